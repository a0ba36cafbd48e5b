//! Codex CLI's session files: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`.
//!
//! Since late 2025 each line is `{"timestamp", "type", "payload"}`:
//! - `session_meta`: `payload.id` (the session) and `payload.cwd`;
//! - `response_item` with `payload.type = "message"`: `role` `user` (its `input_text`
//!   blocks are a prompt) or `assistant` (its `output_text` blocks are a reply); every other
//!   `response_item` (`function_call`, `function_call_output`, `reasoning`, …) is left out;
//! - `event_msg`, `turn_context`, `compacted`: the harness's own records, left out (an
//!   `event_msg` of type `user_message` repeats a prompt the `response_item` already holds).
//!
//! Older files hold the items themselves, one a line (`{"type": "message", "role", …}`),
//! after a first line `{"id", "timestamp", "instructions"}` naming the session. Both are
//! read. A user message that is context Codex injects (`<environment_context>`,
//! `<user_instructions>`, AGENTS.md) is not a prompt.

use super::{Session, Turn, time_ms};
use crate::memory::Kind;

/// Prefixes of user messages Codex writes itself.
const INJECTED: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "<user_shell_command>",
    "# AGENTS.md instructions",
];

/// Read one rollout file's text (`stem`: the file name; its last 36 characters are the
/// session id when no line names one).
pub fn read(text: &str, stem: &str) -> Session {
    let mut s = Session::default();
    let mut session: Option<String> = stem
        .len()
        .checked_sub(36)
        .and_then(|i| stem.get(i..))
        .map(str::to_string);
    let mut cwd: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let Some(v) = s.object(line) else {
            continue;
        };
        let (typ, item) = match (v["type"].as_str(), v.get("payload")) {
            (Some(t), Some(p)) => (t, p),
            // an older file: the line is the item itself
            (Some(t), None) => (t, &v),
            (None, _) if v.get("id").is_some() => ("session_meta", &v),
            (None, _) => {
                s.skip("untyped");
                continue;
            }
        };
        match typ {
            "session_meta" => {
                if let Some(id) = item["id"].as_str() {
                    session = Some(id.to_string());
                }
                if let Some(d) = item["cwd"].as_str() {
                    cwd = Some(d.to_string());
                }
                continue;
            }
            "response_item" | "message" => {}
            other => {
                s.skip(other);
                continue;
            }
        }
        let item_type = item["type"].as_str().unwrap_or("untyped");
        if item_type != "message" {
            s.skip(item_type);
            continue;
        }
        let (kind, block) = match item["role"].as_str() {
            Some("user") => (Kind::Prompt, "input_text"),
            Some("assistant") => (Kind::Note, "output_text"),
            _ => {
                s.skip("message_of_another_role");
                continue;
            }
        };
        let parts: Vec<&str> = item["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == block)
            .filter_map(|b| b["text"].as_str())
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect();
        let text = parts.join("\n\n");
        if text.is_empty() {
            s.skip("message_without_text");
            continue;
        }
        if kind == Kind::Prompt && INJECTED.iter().any(|p| text.starts_with(p)) {
            s.skip("injected_context");
            continue;
        }
        let sid = session.clone().unwrap_or_else(|| stem.to_string());
        s.turns.push(Turn {
            text,
            kind,
            at_ms: time_ms(&v["timestamp"]),
            cwd: cwd.clone(),
            key: format!("codex:{sid}:{}", n + 1),
            session: Some(sid),
        });
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEW: &str = r#"{"timestamp":"2025-10-02T10:00:00.000Z","type":"session_meta","payload":{"id":"0199a000-0000-7000-8000-000000000001","timestamp":"2025-10-02T10:00:00.000Z","cwd":"/w/web","originator":"codex_cli_rs","cli_version":"0.44.0"}}
{"timestamp":"2025-10-02T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/w/web</cwd>\n</environment_context>"}]}}
{"timestamp":"2025-10-02T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Rename the crate to webshop"}]}}
{"timestamp":"2025-10-02T10:00:02.100Z","type":"event_msg","payload":{"type":"user_message","message":"Rename the crate to webshop"}}
{"timestamp":"2025-10-02T10:00:03.000Z","type":"turn_context","payload":{"cwd":"/w/web","model":"gpt-5-codex"}}
{"timestamp":"2025-10-02T10:00:04.000Z","type":"response_item","payload":{"type":"reasoning","summary":[]}}
{"timestamp":"2025-10-02T10:00:05.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}
{"timestamp":"2025-10-02T10:00:06.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}
{"timestamp":"2025-10-02T10:00:07.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Renamed the crate to webshop in Cargo.toml."}]}}
[1,2,3]
"#;

    const OLD: &str = r#"{"id":"5b1c0000-0000-4000-8000-00000000abcd","timestamp":"2025-05-01T08:00:00.000Z","instructions":null}
{"type":"message","role":"user","content":[{"type":"input_text","text":"Why does the nightly build fail?"}]}
{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The nightly build fails because the cache key changed."}]}
"#;

    #[test]
    fn the_current_format_keeps_prompts_and_replies_only() {
        let s = read(
            NEW,
            "rollout-2025-10-02T10-00-00-0199a000-0000-7000-8000-000000000001",
        );
        let got: Vec<(&str, Kind)> = s.turns.iter().map(|t| (t.text.as_str(), t.kind)).collect();
        assert_eq!(
            got,
            vec![
                ("Rename the crate to webshop", Kind::Prompt),
                ("Renamed the crate to webshop in Cargo.toml.", Kind::Note)
            ]
        );
        assert_eq!(
            s.turns[0].session.as_deref(),
            Some("0199a000-0000-7000-8000-000000000001")
        );
        assert_eq!(s.turns[0].cwd.as_deref(), Some("/w/web"));
        assert_eq!(
            s.turns[0].key,
            "codex:0199a000-0000-7000-8000-000000000001:3"
        );
        assert_eq!(s.bad_lines, 1);
        for what in [
            "injected_context",
            "event_msg",
            "turn_context",
            "reasoning",
            "function_call",
            "function_call_output",
        ] {
            assert_eq!(s.skipped.get(what), Some(&1), "{what}: {:?}", s.skipped);
        }
    }

    #[test]
    fn the_older_format_is_read_too() {
        let s = read(
            OLD,
            "rollout-2025-05-01-5b1c0000-0000-4000-8000-00000000abcd",
        );
        assert_eq!(s.turns.len(), 2);
        assert_eq!(s.turns[0].text, "Why does the nightly build fail?");
        assert_eq!(
            s.turns[1].session.as_deref(),
            Some("5b1c0000-0000-4000-8000-00000000abcd")
        );
        assert_eq!(s.turns[0].cwd, None);
        assert_eq!(s.skipped.get("function_call"), Some(&1));
    }
}
