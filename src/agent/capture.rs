//! `slm hook capture`: what a coding agent's hook hands slm, turned into memories.
//!
//! Each agent sends one JSON object per event (on standard input; Codex CLI's `notify`
//! passes it as the last argument). Read from the agents' own documentation:
//!
//! | agent | event field | prompt | file changed | session ended | session id |
//! |---|---|---|---|---|---|
//! | Claude Code (code.claude.com/docs/en/hooks) | `hook_event_name` | `UserPromptSubmit`: `prompt` | `PostToolUse` of Write, Edit, MultiEdit, NotebookEdit: `tool_input.file_path` | `SessionEnd` (`reason`) | `session_id` |
//! | Gemini CLI (geminicli.com/docs/hooks) | `hook_event_name` | `BeforeAgent`: `prompt` | `AfterTool` of write_file, replace: `tool_input.file_path` | `SessionEnd` | `session_id` |
//! | Cursor (cursor.com/docs/agent/hooks) | `hook_event_name` | `beforeSubmitPrompt`: `prompt` | `afterFileEdit`: `file_path` | `stop` | `conversation_id` |
//! | Codex CLI (`notify`, developers.openai.com/codex/config) | `type` | `agent-turn-complete`: `input-messages` | — | — | `thread-id` |
//!
//! A prompt is saved as kind `prompt`, source `captured_prompt` (the spec ranks captured
//! prompts as requests, below what was decided). "File changed: PATH" and "session ended"
//! are saved as bookkeeping: kept, flagged, and left out of answers. Anything else (another
//! event, a tool that changes no file) is not saved, and the caller is told why.
//!
//! Every memory carries an idempotency key made of the agent's session, the event and the
//! text, so delivering a capture twice (a retry, the spool) stores it once.

use crate::memory::{Kind, NewMemory, Source};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// Tools whose use changes a file, by the names the agents give them.
const FILE_TOOLS: &[&str] = &[
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "write_file",
    "replace",
    "edit_file",
];

/// What one hook payload gives.
#[derive(Debug, Default)]
pub struct Captured {
    pub memories: Vec<NewMemory>,
    /// Why nothing was saved, when nothing was.
    pub skipped: Option<String>,
    /// The agent's working directory, when the payload names it (the project is read from it).
    pub cwd: Option<PathBuf>,
}

/// Read one hook payload. Never fails: a payload slm does not understand saves nothing and
/// says why.
pub fn from_payload(v: &Value) -> Captured {
    let mut out = Captured {
        cwd: str_at(v, &["cwd"])
            .or_else(|| v["workspace_roots"].get(0).and_then(Value::as_str))
            .map(PathBuf::from),
        ..Default::default()
    };
    let Some(obj) = v.as_object() else {
        out.skipped = Some("the hook payload is not a JSON object".into());
        return out;
    };
    let session = ["session_id", "conversation_id", "thread-id", "thread_id"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))
        .map(str::to_string);
    let event = obj
        .get("hook_event_name")
        .or_else(|| obj.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let texts: Vec<(String, Kind)> = match event {
        "UserPromptSubmit" | "BeforeAgent" | "beforeSubmitPrompt" | "" => str_at(v, &["prompt"])
            .map(|p| vec![(p.to_string(), Kind::Prompt)])
            .unwrap_or_default(),
        "agent-turn-complete" => v["input-messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|p| (p.to_string(), Kind::Prompt))
            .collect(),
        "PostToolUse" | "AfterTool" => {
            let tool = str_at(v, &["tool_name"]).unwrap_or("");
            let input = &v["tool_input"];
            let path = ["file_path", "path", "absolute_path", "notebook_path"]
                .iter()
                .find_map(|k| input.get(*k).and_then(Value::as_str));
            match path {
                Some(p) if FILE_TOOLS.contains(&tool) => {
                    vec![(format!("File changed: {p}"), Kind::Bookkeeping)]
                }
                _ => Vec::new(),
            }
        }
        "afterFileEdit" => str_at(v, &["file_path"])
            .map(|p| vec![(format!("File changed: {p}"), Kind::Bookkeeping)])
            .unwrap_or_default(),
        "SessionEnd" | "stop" => {
            let reason = str_at(v, &["reason"]).or_else(|| str_at(v, &["status"]));
            let text = match reason {
                Some(r) if !r.trim().is_empty() => format!("session ended ({})", r.trim()),
                _ => "session ended".to_string(),
            };
            vec![(text, Kind::Bookkeeping)]
        }
        other => {
            out.skipped = Some(format!("the event {other:?} is not one slm captures"));
            return out;
        }
    };
    for (text, kind) in texts {
        let text = crate::memory::clip_text(text.trim());
        if text.is_empty() {
            continue;
        }
        let source = if kind == Kind::Prompt {
            Source::CapturedPrompt
        } else {
            Source::Hook
        };
        out.memories.push(NewMemory {
            idempotency_key: Some(key(session.as_deref(), event, &text)),
            text,
            kind: Some(kind),
            source: Some(source),
            session_id: session.clone(),
            ..Default::default()
        });
    }
    if out.memories.is_empty() && out.skipped.is_none() {
        out.skipped = Some(if event.is_empty() {
            "the payload has no prompt and names no event".into()
        } else {
            format!("the {event} event carried nothing slm keeps")
        });
    }
    out
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(*k))?.as_str()
}

/// The idempotency key of a capture: the same event of the same session with the same text
/// is one memory, however often it is delivered.
fn key(session: Option<&str>, event: &str, text: &str) -> String {
    let mut h = Sha256::new();
    for part in [session.unwrap_or(""), event, text] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    let hex: String = h.finalize()[..12]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("capture:{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MAX_TEXT_BYTES;
    use serde_json::json;
    use std::path::Path;

    #[test]
    fn claude_code_prompt_file_edit_and_session_end() {
        let p = from_payload(&json!({
            "session_id": "abc", "cwd": "/home/u/proj", "hook_event_name": "UserPromptSubmit",
            "prompt": "  use port 5433 for staging  ", "transcript_path": "/x.jsonl"
        }));
        assert_eq!(p.memories.len(), 1);
        let m = &p.memories[0];
        assert_eq!(m.text, "use port 5433 for staging");
        assert_eq!(m.kind, Some(Kind::Prompt));
        assert_eq!(m.source, Some(Source::CapturedPrompt));
        assert_eq!(m.session_id.as_deref(), Some("abc"));
        assert_eq!(p.cwd.as_deref(), Some(Path::new("/home/u/proj")));

        let f = from_payload(&json!({
            "session_id": "abc", "hook_event_name": "PostToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": "/home/u/proj/src/main.rs", "old_string": "a"}
        }));
        assert_eq!(f.memories[0].text, "File changed: /home/u/proj/src/main.rs");
        assert_eq!(f.memories[0].kind, Some(Kind::Bookkeeping));
        assert_eq!(
            crate::text::bookkeeping_reason(&f.memories[0].text),
            Some("file_event")
        );

        let read = from_payload(&json!({
            "hook_event_name": "PostToolUse", "tool_name": "Read",
            "tool_input": {"file_path": "/a"}
        }));
        assert!(read.memories.is_empty());
        assert!(read.skipped.unwrap().contains("PostToolUse"));

        let end = from_payload(&json!({"hook_event_name": "SessionEnd", "reason": "logout"}));
        assert_eq!(end.memories[0].text, "session ended (logout)");
        assert_eq!(
            crate::text::bookkeeping_reason(&end.memories[0].text),
            Some("session_event")
        );
    }

    #[test]
    fn cursor_gemini_and_codex_payloads() {
        let c = from_payload(&json!({
            "hook_event_name": "beforeSubmitPrompt", "conversation_id": "c1",
            "prompt": "why does the build fail", "workspace_roots": ["/w/app"]
        }));
        assert_eq!(c.memories[0].session_id.as_deref(), Some("c1"));
        assert_eq!(c.cwd.as_deref(), Some(Path::new("/w/app")));
        let g =
            from_payload(&json!({"hook_event_name": "BeforeAgent", "prompt": "hi there friend"}));
        assert_eq!(g.memories[0].kind, Some(Kind::Prompt));
        let x = from_payload(&json!({
            "type": "agent-turn-complete", "thread-id": "t9",
            "input-messages": ["rename the crate", "and bump the version"],
            "last-assistant-message": "Done."
        }));
        assert_eq!(x.memories.len(), 2);
        assert_eq!(x.memories[1].text, "and bump the version");
        assert_eq!(x.memories[1].session_id.as_deref(), Some("t9"));
    }

    #[test]
    fn the_same_event_twice_has_one_key_and_other_payloads_save_nothing() {
        let a = json!({"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": "x y"});
        assert_eq!(
            from_payload(&a).memories[0].idempotency_key,
            from_payload(&a).memories[0].idempotency_key
        );
        let b = json!({"session_id": "t", "hook_event_name": "UserPromptSubmit", "prompt": "x y"});
        assert_ne!(
            from_payload(&a).memories[0].idempotency_key,
            from_payload(&b).memories[0].idempotency_key
        );
        for v in [
            json!([1, 2]),
            json!({"hook_event_name": "PreCompact"}),
            json!({"hook_event_name": "UserPromptSubmit", "prompt": "   "}),
            json!({"unrelated": true}),
        ] {
            let c = from_payload(&v);
            assert!(c.memories.is_empty(), "{v}");
            assert!(c.skipped.is_some(), "{v}");
        }
        let long = "é".repeat(MAX_TEXT_BYTES);
        let c = from_payload(&json!({ "prompt": long }));
        assert!(c.memories[0].text.len() <= MAX_TEXT_BYTES);
    }
}
