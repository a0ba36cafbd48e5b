//! `slm answer-check hosted|off|auto|local|status`: choose the answer check's judge.
//!
//! Consent to the hosted judge is a deliberate act: `hosted` prints exactly what will leave
//! the machine, asks y/N on a terminal (refuses without one unless `--yes`), and only then
//! records the mode, the endpoint, the model, the *name* of the key's variable and the time
//! of consent in settings.json (written atomically, other settings kept), with what the
//! consent covered and its digest (`hosted::consent_record`): a later edit to the endpoint,
//! model or variable is not covered, and `status` says so. `off`, `auto` and `local` remove
//! the consent. Nothing here opens the store or talks to the worker: every recall reads these
//! settings afresh.

use super::args::{AnswerCheckCommand, AnswerCheckHostedArgs};
use crate::output::Style;
use crate::output::emit;
use crate::recall::answer_check::hosted::{self, HostedError, HostedJudge};
use crate::recall::answer_check::{self, Mode};
use crate::settings::Settings;
use crate::{Error, Result};
use serde_json::json;
use std::io::IsTerminal;

pub fn run(c: AnswerCheckCommand, style: Style) -> Result<i32> {
    let path = crate::paths::Paths::from_env().settings();
    match c {
        AnswerCheckCommand::Hosted(a) => consent(a, &path, style),
        AnswerCheckCommand::Off => set_mode(Mode::Off, &path, style),
        AnswerCheckCommand::Auto => set_mode(Mode::Auto, &path, style),
        AnswerCheckCommand::Local => set_mode(Mode::Local, &path, style),
        AnswerCheckCommand::Status => status(&path, style),
    }
}

/// A variable name, so a key pasted into `--key-env` by mistake is refused, not stored.
fn is_var_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// What `hosted` shows before asking, and records as what was consented to.
fn disclosure(url: &str, model: &str, key_env: &str) -> String {
    format!(
        "The hosted answer check sends, for each recall:\n  \
         {payload}\n\
         to:     {url}\n\
         model:  {model}\n\
         The API key is read from ${key_env} at each recall and is never stored.\n\
         Nothing else leaves this machine. `slm answer-check off` revokes this.",
        payload = hosted::payload_description(),
    )
}

fn consent(a: AnswerCheckHostedArgs, path: &std::path::Path, style: Style) -> Result<i32> {
    let endpoint = hosted::check_endpoint(&a.endpoint)
        .map_err(|_| Error::Usage(format!("--endpoint {:?}: expected an http:// or https:// URL such as https://api.example.com/v1", a.endpoint)))?;
    let model = a.model.trim().to_string();
    if model.is_empty() {
        return Err(Error::Usage("--model is empty".into()));
    }
    if !is_var_name(&a.key_env) {
        // Not echoed: it may be the key itself.
        return Err(Error::Usage(
            "--key-env takes the NAME of an environment variable (letters, digits, _), not the key itself".into(),
        ));
    }
    let mut settings = Settings::load(path)?;
    let url = format!("{endpoint}/chat/completions");
    let text = disclosure(&url, &model, &a.key_env);
    // With --json stdout is one JSON object, so what leaves the machine goes to stderr.
    if style.json {
        eprintln!("{text}");
    } else {
        println!("{text}");
    }
    if !a.yes {
        if !std::io::stdin().is_terminal() {
            return Err(Error::Usage(
                "consent needs a terminal to ask on; pass --yes to consent from a script (nothing was changed)".into(),
            ));
        }
        if !super::ask_yes(&format!("Send this to {url}?"))? {
            emit(
                style,
                "answer-check",
                json!({ "mode": settings.answer_check.mode, "consented": false }),
                || "not consented; nothing was changed".into(),
            )?;
            return Ok(1);
        }
    }
    let at = crate::Clock::from_env()?
        .now()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let ac = &mut settings.answer_check;
    ac.mode = Mode::Hosted.as_str().into();
    ac.hosted.endpoint = Some(endpoint.clone());
    ac.hosted.model = Some(model.clone());
    ac.hosted.key_env = Some(a.key_env.clone());
    ac.hosted.consent_at = Some(at.clone());
    let (scope, digest) = hosted::consent_record(&endpoint, &model, &a.key_env);
    ac.hosted.consented_to = Some(scope);
    ac.hosted.consent_digest = Some(digest);
    ac.hosted.consented_payload = Some(format!(
        "{} sent to {url} (model {model}); key read from ${}",
        hosted::payload_description(),
        a.key_env
    ));
    Settings::save_answer_check(path, &settings.answer_check)?;
    let key_set = std::env::var_os(&a.key_env).is_some_and(|v| !v.is_empty());
    emit(
        style,
        "answer-check",
        json!({
            "mode": "hosted",
            "consented": true,
            "consent_at": at,
            "endpoint": url,
            "model": model,
            "key_env": a.key_env,
            "key_set": key_set,
        }),
        || {
            let mut s = format!("hosted answer check on (consent recorded {at})");
            if !key_set {
                s.push_str(&format!(
                    "\nnote: ${} is not set in this shell; recalls report the check unavailable until it is",
                    a.key_env
                ));
            }
            s
        },
    )?;
    Ok(0)
}

fn set_mode(mode: Mode, path: &std::path::Path, style: Style) -> Result<i32> {
    let mut settings = Settings::load(path)?;
    let revoked = settings.answer_check.hosted.revoke_consent();
    settings.answer_check.mode = mode.as_str().into();
    Settings::save_answer_check(path, &settings.answer_check)?;
    emit(
        style,
        "answer-check",
        json!({ "mode": mode.as_str(), "consent_revoked": revoked }),
        || {
            let what = match mode {
                Mode::Off => "answer check off",
                Mode::Auto => {
                    "answer check auto (a local judge when one is installed; never hosted)"
                }
                Mode::Local => "answer check local",
                Mode::Hosted => "answer check hosted",
            };
            if revoked {
                format!("{what}; consent to the hosted judge revoked, nothing is sent")
            } else {
                what.to_string()
            }
        },
    )?;
    Ok(0)
}

fn status(path: &std::path::Path, style: Style) -> Result<i32> {
    let settings = Settings::load(path)?;
    let ac = &settings.answer_check;
    let (mode, budget) = answer_check::mode_and_budget(ac)?;
    let h = &ac.hosted;
    // What a recall would use: the local judge runs on the active embedding model when its
    // manifest has an answer prompt (read here without loading the model).
    let local = answer_check::local::installed(&crate::paths::Paths::from_env(), &settings);
    // A consent on record that does not cover the settings now (or cannot be read) is void,
    // whatever the mode: say so rather than show it as given.
    let checked = HostedJudge::from_settings(h);
    let (judge, state, reason): (Option<String>, &str, Option<String>) = match (mode, local) {
        (Mode::Off, _) => (None, "off", None),
        (Mode::Local, Some(name)) => (Some(name), "ready", None),
        (Mode::Auto, Some(name)) => (
            None,
            "off",
            Some(format!(
                "auto leaves the local judge ({name}) off: it did not improve the tiers on the dev data; 'slm answer-check local' turns it on"
            )),
        ),
        (Mode::Auto, None) => (
            None,
            "off",
            Some("auto uses a local judge when one is installed, and never the hosted one".into()),
        ),
        (Mode::Local, None) => (
            Some("local".into()),
            "unavailable",
            Some(answer_check::NO_LOCAL_JUDGE.into()),
        ),
        (Mode::Hosted, _) => match &checked {
            Ok(j) => {
                let key_set = std::env::var_os(j.key_env()).is_some_and(|v| !v.is_empty());
                let name = crate::recall::answer_check::Judge::name(j);
                if key_set {
                    (Some(name), "ready", None)
                } else {
                    (
                        Some(name),
                        "unavailable",
                        Some(format!("${} is not set in this shell", j.key_env())),
                    )
                }
            }
            Err(e) => (Some("hosted".into()), "unavailable", Some(e.to_string())),
        },
    };
    let void = match &checked {
        Err(e @ (HostedError::NotCovered(_) | HostedError::BadConsent(_))) => Some(e.to_string()),
        _ => None,
    };
    let body = json!({
        "mode": mode.as_str(),
        "judge": judge,
        "state": state,
        "reason": reason,
        "budget_ms": budget.as_millis() as u64,
        // Consent is on record and covers the endpoint, model and key variable set now.
        "consent_valid": checked.is_ok(),
        "hosted": {
            "endpoint": h.endpoint,
            "model": h.model,
            "key_env": h.key_env,
            "consent_at": h.consent_at,
            "consented_payload": h.consented_payload,
            "consented_to": h.consented_to,
        },
    });
    emit(style, "answer-check", body, || {
        let mut s = format!(
            "mode:    {}\njudge:   {} ({state}{})\nbudget:  {} ms\n",
            mode.as_str(),
            judge.as_deref().unwrap_or("none"),
            reason
                .as_deref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default(),
            budget.as_millis()
        );
        match (&h.consent_at, &h.consented_payload) {
            (Some(at), _) if void.is_some() => s.push_str(&format!(
                "consent: given {at}, void now: {}",
                void.as_deref().unwrap_or_default()
            )),
            (Some(at), Some(p)) => s.push_str(&format!("consent: given {at}: {p}")),
            (Some(at), None) => s.push_str(&format!("consent: given {at}")),
            _ => s.push_str("consent: none recorded (nothing is sent to a hosted judge)"),
        }
        s
    })?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_env_must_be_a_name() {
        assert!(is_var_name("OPENAI_API_KEY"));
        assert!(is_var_name("_K1"));
        assert!(!is_var_name("sk-abc123"));
        assert!(!is_var_name("1KEY"));
        assert!(!is_var_name(""));
    }
}
