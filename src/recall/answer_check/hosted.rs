//! The hosted judge: an OpenAI-compatible chat-completions endpoint the user chose, with
//! their own key, used only with their recorded consent.
//!
//! What leaves the machine, per recall, and nothing else: the question and the text of the
//! top three memories ([`super::EVIDENCE_COUNT`], each cut to [`MEMORY_MAX_CHARS`]), inside
//! the fixed instructions of [`SYSTEM_PROMPT`], posted to `{endpoint}/chat/completions`
//! with `Authorization: Bearer <key>`. The key is read from the environment variable the
//! user named (`hosted.key_env`) at each call, in the process that answers the recall (the
//! worker inherits the environment of the command that started it). It is never stored,
//! logged, printed or put into a reason: [`scrub`] removes it from anything that could
//! carry it back.
//!
//! Consent is bound to what it was given for: `slm answer-check hosted` records the endpoint,
//! the model and the key's variable, with a digest of them and of what is sent
//! ([`consent_digest`]). When settings.json names anything else (a hand-edited endpoint, model
//! or variable), the consent does not cover it and nothing is sent until the user consents
//! again (issue 38).
//!
//! Outcomes: a parsed verdict → `judged`; no reply within the budget → `skipped`; a refused
//! connection, an HTTP error status (the code is reported), a redirect (never followed: it
//! would send the question, the memories and the key to an address nobody consented to) or
//! a reply that is not the JSON verdict asked for → `unavailable`.
//!
//! ureq (blocking, no async runtime, rustls for https) keeps this a plain function call on
//! the recall's own thread, in the worker and in-process alike.

use super::{Evidence, Judge, JudgeOutcome, Verdict};
use crate::settings::{ConsentScope, HostedJudgeSettings};
use serde_json::{Value, json};
use std::time::Instant;

/// Each memory's text is cut to this many characters before it is sent: a note is rarely
/// longer, and it bounds what one recall costs and sends.
pub const MEMORY_MAX_CHARS: usize = 2000;
/// Tokens the judge may answer with: the JSON verdict with a short span is ~40 tokens.
pub const MAX_TOKENS: u32 = 120;
/// The reply read at most (bytes): a verdict is tiny; a runaway reply is not read whole.
pub const REPLY_MAX_BYTES: u64 = 256 * 1024;
/// The longest answer span kept from the judge (characters).
pub const ANSWER_MAX_CHARS: usize = 300;

/// The fixed instructions sent with every question.
pub const SYSTEM_PROMPT: &str = "You check whether numbered notes answer a question. \
Reply with one JSON object and nothing else: \
{\"answers\": true or false, \"memory\": the number of the note that answers (1 to 3) or null, \
\"answer\": the answer as a short span copied from that note, or null}. \
\"answers\" is true only when a note states the answer; a note about the same topic that does \
not state the answer does not answer it.";

/// Why the hosted judge cannot be used as configured. Nothing is sent in any of these cases.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HostedError {
    #[error(
        "no consent recorded for the hosted answer check (run `slm answer-check hosted --endpoint URL --model M --key-env VAR`); nothing was sent"
    )]
    NoConsent,
    #[error(
        "the recorded consent time {0:?} is not an RFC 3339 time; give consent again with `slm answer-check hosted`; nothing was sent"
    )]
    BadConsent(String),
    /// The consent on record was given for another endpoint, model or key variable (or by
    /// an slm that did not record what it covered): it does not extend to these settings.
    #[error(
        "the recorded consent does not cover {0}; nothing was sent. To send to what is set now, consent again: `slm answer-check hosted --endpoint URL --model M --key-env VAR`"
    )]
    NotCovered(String),
    #[error("settings answer_check.hosted.{0} is not set; nothing was sent")]
    Missing(&'static str),
    #[error("the endpoint {0:?} is not an http:// or https:// URL; nothing was sent")]
    BadEndpoint(String),
}

/// Check an endpoint given on the command line or in settings: an http(s) base URL.
pub fn check_endpoint(endpoint: &str) -> Result<String, HostedError> {
    let e = endpoint.trim().trim_end_matches('/');
    let rest = e
        .strip_prefix("https://")
        .or_else(|| e.strip_prefix("http://"));
    match rest {
        Some(host) if !host.is_empty() && !e.chars().any(char::is_whitespace) => Ok(e.to_string()),
        _ => Err(HostedError::BadEndpoint(endpoint.to_string())),
    }
}

/// Bumped if the digest's input ever changes shape, so an old digest never matches by accident.
const CONSENT_DIGEST_VERSION: &str = "slm-hosted-consent-1";

/// The digest a consent records and each recall checks: sha256 over the endpoint (as
/// [`check_endpoint`] returns it), the model, the key variable's name and
/// [`payload_description`], each length-prefixed. Not a secret and not a signature (whoever
/// can write settings.json can recompute it); it makes a consent void when any one of the
/// things it covered changes, including what slm sends, instead of letting an edit to one
/// field (or to the `consented_to` record) carry it over.
pub fn consent_digest(endpoint: &str, model: &str, key_env: &str) -> String {
    use sha2::{Digest, Sha256};
    let payload = payload_description();
    let mut h = Sha256::new();
    for part in [
        CONSENT_DIGEST_VERSION,
        endpoint,
        model,
        key_env,
        payload.as_str(),
    ] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    format!("{:x}", h.finalize())
}

/// What a consent given now for these settings records.
pub fn consent_record(endpoint: &str, model: &str, key_env: &str) -> (ConsentScope, String) {
    (
        ConsentScope {
            endpoint: endpoint.to_string(),
            model: model.to_string(),
            key_env: key_env.to_string(),
        },
        consent_digest(endpoint, model, key_env),
    )
}

/// What the consent on record does not cover, in words, for [`HostedError::NotCovered`].
fn not_covered(scope: Option<&ConsentScope>, endpoint: &str, model: &str, key_env: &str) -> String {
    let Some(c) = scope else {
        return "the settings now: it was recorded without saying which endpoint, model and key variable it covered".into();
    };
    let mut changed = Vec::new();
    if c.endpoint != endpoint {
        changed.push(format!(
            "the endpoint {endpoint} (consent was given for {})",
            c.endpoint
        ));
    }
    if c.model != model {
        changed.push(format!(
            "the model {model} (consent was given for {})",
            c.model
        ));
    }
    if c.key_env != key_env {
        changed.push(format!(
            "the key variable ${key_env} (consent was given for ${})",
            c.key_env
        ));
    }
    if changed.is_empty() {
        "the settings now: the consent record was changed by hand, or what slm sends has changed since it was given".into()
    } else {
        changed.join(", ")
    }
}

pub struct HostedJudge {
    endpoint: String,
    model: String,
    key_env: String,
}

impl HostedJudge {
    /// The judge the settings describe, only when consent is recorded and covers the
    /// endpoint, model and key variable set now.
    pub fn from_settings(s: &HostedJudgeSettings) -> Result<HostedJudge, HostedError> {
        let consent = s
            .consent_at
            .as_deref()
            .filter(|c| !c.trim().is_empty())
            .ok_or(HostedError::NoConsent)?;
        chrono::DateTime::parse_from_rfc3339(consent.trim())
            .map_err(|_| HostedError::BadConsent(consent.to_string()))?;
        let need = |v: &Option<String>, name| {
            v.as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_string)
                .ok_or(HostedError::Missing(name))
        };
        let judge = HostedJudge {
            endpoint: check_endpoint(&need(&s.endpoint, "endpoint")?)?,
            model: need(&s.model, "model")?,
            key_env: need(&s.key_env, "key_env")?,
        };
        let digest = consent_digest(&judge.endpoint, &judge.model, &judge.key_env);
        if s.consent_digest.as_deref().map(str::trim) != Some(digest.as_str()) {
            return Err(HostedError::NotCovered(not_covered(
                s.consented_to.as_ref(),
                &judge.endpoint,
                &judge.model,
                &judge.key_env,
            )));
        }
        Ok(judge)
    }

    pub fn url(&self) -> String {
        format!("{}/chat/completions", self.endpoint)
    }

    /// The name of the variable the key is read from (never the key).
    pub fn key_env(&self) -> &str {
        &self.key_env
    }
}

/// The request body: the model, the fixed instructions, the question and the numbered
/// memory texts. Nothing else about the store goes into it.
pub fn request_body(model: &str, query: &str, evidence: &[Evidence]) -> Value {
    let mut user = format!("Question: {query}\n\nNotes:\n");
    for (i, e) in evidence.iter().take(super::EVIDENCE_COUNT).enumerate() {
        let text: String = e.text.chars().take(MEMORY_MAX_CHARS).collect();
        user.push_str(&format!("[{}] {}\n", i + 1, text));
    }
    json!({
        "model": model,
        "messages": [
            { "role": "system", "content": SYSTEM_PROMPT },
            { "role": "user", "content": user },
        ],
        "temperature": 0,
        "max_tokens": MAX_TOKENS,
    })
}

/// Remove the key from a text that is about to be reported.
pub fn scrub(text: &str, key: &str) -> String {
    if key.len() < 4 {
        // Too short to search for without mangling ordinary words; such a key is not
        // put into any reason to begin with.
        return text.to_string();
    }
    text.replace(key, "[redacted]")
}

/// The verdict the judge was asked for, from a chat-completions reply: the first JSON
/// object in the message content that has an `answers` field. None when there is none.
pub fn parse_reply(reply: &str, evidence: &[Evidence], judge: &str) -> Option<Verdict> {
    let v: Value = serde_json::from_str(reply).ok()?;
    let content = v
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)?;
    let obj = first_verdict_object(content)?;
    let answers = match obj.get("answers")? {
        Value::Bool(b) => *b,
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" => true,
            "false" | "no" => false,
            _ => return None,
        },
        _ => return None,
    };
    let index = match obj.get("memory") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s
            .trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .ok(),
        _ => None,
    };
    let memory_id = index
        .filter(|i| *i >= 1)
        .and_then(|i| evidence.get(i as usize - 1))
        .map(|e| e.id)
        .filter(|_| answers);
    let answer = obj
        .get("answer")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|a| !a.is_empty() && answers)
        .map(|a| a.chars().take(ANSWER_MAX_CHARS).collect());
    Some(Verdict {
        answers,
        memory_id,
        answer,
        confidence: if answers { 1.0 } else { 0.0 },
        judge: judge.to_string(),
        per_memory: Vec::new(),
    })
}

/// The first `{…}` in `content` that parses as a JSON object with an `answers` field
/// (models wrap JSON in prose or code fences).
fn first_verdict_object(content: &str) -> Option<serde_json::Map<String, Value>> {
    content.match_indices('{').find_map(|(i, _)| {
        let mut it = serde_json::Deserializer::from_str(&content[i..]).into_iter::<Value>();
        match it.next() {
            Some(Ok(Value::Object(m))) if m.contains_key("answers") => Some(m),
            _ => None,
        }
    })
}

fn is_timeout(e: &ureq::Error) -> bool {
    match e {
        ureq::Error::Timeout(_) => true,
        ureq::Error::Io(io) => matches!(
            io.kind(),
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
        ),
        _ => false,
    }
}

impl Judge for HostedJudge {
    fn name(&self) -> String {
        format!("hosted:{}", self.model)
    }

    fn judge(&self, query: &str, evidence: &[Evidence], deadline: Instant) -> JudgeOutcome {
        let key = match std::env::var(&self.key_env) {
            Ok(k) if !k.trim().is_empty() => k,
            _ => {
                return JudgeOutcome::Unavailable(format!(
                    "${} is not set in the environment of the process answering this recall; nothing was sent",
                    self.key_env
                ));
            }
        };
        let budget = deadline.saturating_duration_since(Instant::now());
        if budget.is_zero() {
            return JudgeOutcome::Skipped("no time was left for the judge".into());
        }
        let body = request_body(&self.model, query, evidence).to_string();
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(budget))
            .http_status_as_error(false)
            // A redirect is answered, not followed: consent covers this endpoint only.
            .max_redirects(0)
            .build()
            .into();
        let skipped = || {
            JudgeOutcome::Skipped(format!(
                "the endpoint did not answer within the budget ({} ms)",
                budget.as_millis()
            ))
        };
        let unavailable = |why: String| JudgeOutcome::Unavailable(scrub(&why, &key));
        let mut resp = match agent
            .post(&self.url())
            .header("Authorization", &format!("Bearer {key}"))
            .header("Content-Type", "application/json")
            .send(&body)
        {
            Ok(r) => r,
            Err(e) if is_timeout(&e) => return skipped(),
            Err(e) => return unavailable(format!("could not reach {}: {e}", self.url())),
        };
        let status = resp.status().as_u16();
        if (300..400).contains(&status) {
            return unavailable(format!(
                "the endpoint answered HTTP {status}, a redirect; slm does not follow redirects (consent covers {} only), so nothing else was contacted",
                self.url()
            ));
        }
        if !(200..300).contains(&status) {
            // The body is not reported: an error page may echo what was sent.
            return unavailable(format!("the endpoint answered HTTP {status}"));
        }
        let text = match resp
            .body_mut()
            .with_config()
            .limit(REPLY_MAX_BYTES)
            .read_to_string()
        {
            Ok(t) => t,
            Err(e) if is_timeout(&e) => return skipped(),
            Err(e) => return unavailable(format!("reading the endpoint's reply failed: {e}")),
        };
        match parse_reply(&text, evidence, &self.name()) {
            Some(v) => JudgeOutcome::Verdict(v),
            None => unavailable(
                "the endpoint's reply did not contain the JSON verdict asked for".to_string(),
            ),
        }
    }
}

/// What leaves the machine, in the words `slm answer-check hosted` shows and records.
pub fn payload_description() -> String {
    format!(
        "the question and the text of the top {} memories of each recall (each cut to {} characters)",
        super::EVIDENCE_COUNT,
        MEMORY_MAX_CHARS
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev() -> Vec<Evidence> {
        vec![
            Evidence {
                id: 10,
                text: "We chose Postgres".into(),
                vector: None,
            },
            Evidence {
                id: 20,
                text: "Lunch is at noon".into(),
                vector: None,
            },
        ]
    }

    fn reply(content: &str) -> String {
        json!({"choices": [{"message": {"role": "assistant", "content": content}}]}).to_string()
    }

    #[test]
    fn the_first_json_object_in_the_content_is_the_verdict() {
        let r = reply(
            "Sure! ```json\n{\"answers\": true, \"memory\": 1, \"answer\": \"Postgres\"}\n```",
        );
        let v = parse_reply(&r, &ev(), "hosted:m").unwrap();
        assert!(v.answers);
        assert_eq!(v.memory_id, Some(10));
        assert_eq!(v.answer.as_deref(), Some("Postgres"));
        assert_eq!(v.confidence, 1.0);
        let no = parse_reply(
            &reply("{\"answers\": false, \"memory\": null, \"answer\": null}"),
            &ev(),
            "j",
        )
        .unwrap();
        assert!(!no.answers);
        assert_eq!((no.memory_id, no.confidence), (None, 0.0));
    }

    #[test]
    fn out_of_range_memories_and_junk_are_not_verdicts() {
        let v = parse_reply(&reply("{\"answers\": true, \"memory\": 3}"), &ev(), "j").unwrap();
        assert_eq!(v.memory_id, None, "only two notes were shown");
        assert!(parse_reply(&reply("I think yes."), &ev(), "j").is_none());
        assert!(parse_reply(&reply("{\"answer\": \"x\"}"), &ev(), "j").is_none());
        assert!(parse_reply("not json", &ev(), "j").is_none());
        assert!(parse_reply(&reply("{\"answers\": \"maybe\"}"), &ev(), "j").is_none());
    }

    #[test]
    fn the_body_holds_the_question_and_the_memory_texts_only() {
        let b = request_body("m", "which database?", &ev());
        assert_eq!(b["model"], "m");
        assert_eq!(b["temperature"], 0);
        let user = b["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains("which database?") && user.contains("[2] Lunch is at noon"));
        assert!(!user.contains("10"), "ids stay home: {user}");
    }

    #[test]
    fn consent_and_fields_are_required() {
        let mut s = HostedJudgeSettings {
            endpoint: Some("http://127.0.0.1:1/v1/".into()),
            model: Some("m".into()),
            key_env: Some("K".into()),
            ..Default::default()
        };
        assert_eq!(
            HostedJudge::from_settings(&s).err(),
            Some(HostedError::NoConsent)
        );
        s.consent_at = Some("yesterday".into());
        assert!(matches!(
            HostedJudge::from_settings(&s),
            Err(HostedError::BadConsent(_))
        ));
        s.consent_at = Some("2026-12-05T10:00:00Z".into());
        assert!(
            matches!(
                HostedJudge::from_settings(&s),
                Err(HostedError::NotCovered(_))
            ),
            "a consent that does not say what it covered covers nothing"
        );
        let (scope, digest) = consent_record("http://127.0.0.1:1/v1", "m", "K");
        s.consented_to = Some(scope);
        s.consent_digest = Some(digest);
        let j = HostedJudge::from_settings(&s).unwrap();
        assert_eq!(j.url(), "http://127.0.0.1:1/v1/chat/completions");
        s.model = None;
        assert_eq!(
            HostedJudge::from_settings(&s).err(),
            Some(HostedError::Missing("model"))
        );
        assert!(check_endpoint("ftp://x").is_err());
        assert!(check_endpoint("https://").is_err());
    }

    #[test]
    fn consent_covers_only_what_it_was_given_for() {
        let (scope, digest) = consent_record("https://a.example/v1", "m1", "KEY_A");
        let consented = HostedJudgeSettings {
            endpoint: Some("https://a.example/v1/".into()),
            model: Some("m1".into()),
            key_env: Some("KEY_A".into()),
            consent_at: Some("2026-12-05T10:00:00Z".into()),
            consented_payload: Some("p".into()),
            consented_to: Some(scope),
            consent_digest: Some(digest),
        };
        assert!(HostedJudge::from_settings(&consented).is_ok());
        let edits: [(&str, fn(&mut HostedJudgeSettings)); 4] = [
            ("endpoint", |s| {
                s.endpoint = Some("https://b.example/v1".into())
            }),
            ("model", |s| s.model = Some("m2".into())),
            ("key variable", |s| s.key_env = Some("KEY_B".into())),
            ("by hand", |s| {
                s.endpoint = Some("https://b.example/v1".into());
                s.consented_to.as_mut().unwrap().endpoint = "https://b.example/v1".into();
            }),
        ];
        for (what, edit) in edits {
            let mut s = consented.clone();
            edit(&mut s);
            match HostedJudge::from_settings(&s) {
                Err(HostedError::NotCovered(why)) => assert!(why.contains(what), "{why}"),
                other => panic!("{what}: {:?}", other.err()),
            }
        }
        assert_ne!(
            consent_digest("https://a.example/v1", "m1", "KEY_A"),
            consent_digest("https://a.example/v", "1m1", "KEY_A"),
            "the parts are length-prefixed"
        );
    }

    #[test]
    fn scrub_removes_the_key() {
        assert_eq!(
            scrub("bad key sk-12345 here", "sk-12345"),
            "bad key [redacted] here"
        );
    }
}
