//! `session-context` and `hook recall`: what agents and hooks get.

use super::args::{GlobalArgs, HookCaptureArgs, HookRecallArgs, SessionContextArgs};
use super::forward::forward;
use crate::output::Style;
use crate::service::Op;
use crate::service::resolve::{self, RecallInput};
use crate::session::{SessionMode, SessionRequest};
use crate::worker::client::BUDGET_MARGIN;
use crate::{Error, Result};
use std::time::Duration;

/// A prompt hook's hard limit (the spec: three seconds).
pub const HOOK_MAX_S: f64 = 3.0;
/// How long a capture waits for its answer (a worker answers at once; the cold path saves
/// the spool first) before leaving the capture in the spool for the worker or a later hook.
/// An agent must not wait for a busy store (`slm bench hooks`: every capture took the whole
/// 3 s limit while the worker imported, before this bound). Chosen, not fitted.
const CAPTURE_SEND_WAIT: Duration = Duration::from_millis(400);
/// Results a hook recall considers (its block holds about five).
const HOOK_LIMIT: usize = 5;

pub fn session_context(a: SessionContextArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let mode = SessionMode::parse(&a.mode).ok_or_else(|| {
        Error::Usage(format!(
            "--mode {:?}: expected one of {}",
            a.mode,
            SessionMode::names()
        ))
    })?;
    if a.max_tokens == Some(0) {
        return Err(Error::Usage(
            "--max-tokens 0: expected a positive number".into(),
        ));
    }
    let settings = crate::settings::Settings::load(&crate::paths::Paths::from_env().settings())?;
    let req = SessionRequest {
        profile: g.profile.clone(),
        mode,
        max_tokens: a.max_tokens,
        include_shared: a.include_shared || settings.retrieval.include_shared,
        include_global: a.include_global || settings.retrieval.include_global,
        project: super::current_project(g),
    };
    forward(Op::SessionContext { req }, g, style, None)
}

/// `slm hook recall`: never holds up typing. Whatever happens at run time (out of time,
/// worker down, an empty or unreadable prompt) it exits 0, adds nothing, and says why on
/// standard error only; a mistyped flag is still a usage error (exit 2).
pub fn hook_recall(a: HookRecallArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let budget = hook_budget(a.budget_s)?;
    // The hard limit covers everything, process start and a cold engine included.
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs_f64(budget));
        if crate::output::OUTPUT_STARTED.load(std::sync::atomic::Ordering::SeqCst) {
            return; // the answer is being printed; it ends in a moment, whole
        }
        eprintln!("slm hook: out of time after {budget} s; nothing added");
        std::process::exit(0);
    });
    match hook_inner(a, g, style, budget) {
        Ok(code) => Ok(code),
        Err(e) => {
            eprintln!("slm hook: {e}; nothing added");
            Ok(0)
        }
    }
}

fn hook_inner(a: HookRecallArgs, g: &GlobalArgs, style: Style, budget: f64) -> Result<i32> {
    let query = match a.query.as_deref() {
        None | Some("-") => prompt_from_stdin(&super::read_stdin()?),
        Some(q) => q.to_string(),
    };
    if query.trim().is_empty() {
        return Ok(0);
    }
    // Keep the question within the recall limit rather than refusing a long prompt.
    let query = truncate_bytes(&query, crate::recall::MAX_QUERY_BYTES);
    // The recall's own budget leaves room for the socket round trip inside the hard limit.
    let inner = (budget - BUDGET_MARGIN.as_secs_f64()).max(budget / 2.0);
    // The person view: the block itself keeps only supported memories, or the labelled
    // keyword matches when the full search ran out of time.
    let req = resolve::recall(
        &RecallInput {
            query,
            limit: HOOK_LIMIT,
            depth: 1,
            budget_s: Some(inner),
            project: super::current_project(g),
            ..Default::default()
        },
        &g.profile,
    )?;
    let op = Op::HookRecall {
        req,
        max_tokens: a.max_tokens.unwrap_or(SessionMode::Hook.budget()),
    };
    forward(op, g, style, Some(Duration::from_secs_f64(budget)))
}

/// `slm hook capture`: saves what the hook reports, and never holds the agent up. The
/// capture is written to the spool (durable) first, then sent; whatever happens at run time
/// it exits 0, prints nothing on standard output (an agent may read it as context), and
/// says on standard error what it did not do. Spooled captures of earlier hooks that did not
/// get through are sent after this one, in the time left.
pub fn hook_capture(a: HookCaptureArgs, g: &GlobalArgs) -> Result<i32> {
    let budget = hook_budget(a.budget_s)?;
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs_f64(budget));
        eprintln!(
            "slm hook capture: out of time after {budget} s; what was not saved is kept for the next capture"
        );
        std::process::exit(0);
    });
    if let Err(e) = capture_inner(a, g, budget) {
        eprintln!("slm hook capture: {e}");
    }
    Ok(0)
}

fn capture_inner(a: HookCaptureArgs, g: &GlobalArgs, budget: f64) -> Result<()> {
    use crate::agent::capture;
    use crate::service::spool;
    let started = std::time::Instant::now();
    let input = match a.payload.as_deref() {
        None | Some("-") => super::read_stdin()?,
        Some(p) => p.to_string(),
    };
    let payload: serde_json::Value = serde_json::from_str(&input).map_err(|e| {
        Error::Input(format!(
            "the hook payload is not JSON ({e}); nothing was saved"
        ))
    })?;
    let mut got = capture::from_payload(&payload);
    let project = crate::project::resolve(&super::project_choice(g), got.cwd.as_deref());
    for m in &mut got.memories {
        m.profile = Some(g.profile.clone());
        m.project.clone_from(&project);
    }
    if let Some(why) = &got.skipped {
        eprintln!("slm hook capture: {why}; nothing was saved");
    }
    let paths = crate::paths::Paths::from_env();
    let dir = spool::spool_dir(&paths);
    if !got.memories.is_empty() {
        spool::spool(&dir, &got.memories)
            .map_err(|e| Error::io("keeping the capture on disk", e))?;
    } else if spool::spooled(&dir).is_empty() {
        return Ok(());
    }
    // The capture is durable in the spool; now have it saved. A running worker is told and
    // not waited for (it saves the spool on its own thread, and looks at it every few
    // seconds anyway); without one (or with `--no-worker`) it is saved here, cold, with
    // whatever earlier hooks left. A hook never waits for a model to load:
    // the worker embeds captures in the background.
    let mode = match crate::worker::client::Mode::resolve(g.no_worker)? {
        crate::worker::client::Mode::Inline => crate::worker::client::Mode::Off,
        m => m,
    };
    let req = crate::service::Request {
        op: Op::SaveSpool,
        human: None,
    };
    if mode == crate::worker::client::Mode::Auto
        && crate::worker::client::hand_over_to_worker(&paths, req.clone())?
    {
        return Ok(());
    }
    let wait = Duration::from_secs_f64(budget)
        .saturating_sub(started.elapsed())
        .min(CAPTURE_SEND_WAIT);
    crate::worker::client::execute_with(&paths, req, mode, Some(wait), None)
        .map_err(|e| Error::Other(format!("{e}; the capture is kept for the next one")))?;
    Ok(())
}

/// A hook's `--budget-s`, checked and capped at [`HOOK_MAX_S`].
fn hook_budget(budget_s: f64) -> Result<f64> {
    if !(budget_s.is_finite() && budget_s > 0.0) {
        return Err(Error::Usage(format!(
            "--budget-s {budget_s}: expected a positive number of seconds"
        )));
    }
    Ok(budget_s.min(HOOK_MAX_S))
}

/// Agent hooks send a JSON object with the prompt in "prompt"; anything else is the prompt.
fn prompt_from_stdin(input: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(input) {
        Ok(v) => v
            .get("prompt")
            .and_then(|p| p.as_str())
            .map(str::to_string)
            .unwrap_or_default(),
        Err(_) => input.to_string(),
    }
}

fn truncate_bytes(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_input_is_a_json_prompt_or_plain_text() {
        assert_eq!(
            prompt_from_stdin(r#"{"prompt":"what db?","session_id":"x"}"#),
            "what db?"
        );
        assert_eq!(prompt_from_stdin("plain words"), "plain words");
        assert_eq!(prompt_from_stdin(r#"{"other":1}"#), "");
        assert_eq!(truncate_bytes("héllo", 2), "h");
    }
}
