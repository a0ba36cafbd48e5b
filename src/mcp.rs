//! `slm mcp`: a Model Context Protocol server over stdio (JSON-RPC 2.0, one message a line).
//!
//! A thin front: every tool call becomes the same resolved request the CLI sends, answered
//! by the warm worker (or in-process while it starts) through [`crate::agent::Front`]. It
//! speaks the stable protocol revisions in [`PROTOCOL_VERSIONS`] (it answers with the
//! client's revision when it knows it, else its newest): `initialize` / `initialized`,
//! `ping`, `tools/list`, `tools/call`, `resources/list`, `resources/read`. Malformed JSON
//! (-32700), JSON that is not a request object (`42`, `"hello"`, `null`, `[]`, `{}`: -32600
//! with id null), unknown methods and oversized messages get proper JSON-RPC error objects,
//! and the server keeps running.
//!
//! A response object from the client (it has `result` or `error`, no `method`) gets no
//! answer. Tool arguments are typed (`agent::params`): an argument a tool's schema does not
//! list is refused, as its `additionalProperties: false` says.
//!
//! Tool failures are tool results with `isError: true` and a structured error
//! (`code`, `message`, `hint`, `retryable`, `retry_after_s`): a busy recall is
//! `code: RECALL_BUSY, retryable: true`; a write held off by another writer is
//! `code: WRITE_BUSY, retryable: true`.

use crate::agent::Front;
use crate::error::RemoteError;
use crate::session::SessionMode;
use crate::{Error, Result};
use serde_json::{Value, json};
use std::io::{BufRead, Write};

/// The revisions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The largest message accepted: a memory is at most 1 MiB of text, JSON-escaped.
pub const MAX_MESSAGE: usize = 4 << 20;
/// The session-context resource.
pub const CONTEXT_URI: &str = "slm://session-context";

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

const INSTRUCTIONS: &str = "slm is the user's local memory. Call session_init once at the start of a session. \
Use recall to ask a question: it returns only memories that support an answer (tier \"supported\"). \
An empty recall with tier \"related\" means close memories exist but none answers it; call again with include_related=true to see them. \
Tier \"none\" means it is not in memory. If warming_up is true, slm is still loading: tell the user and do not conclude that the memory is absent. \
If a call returns code RECALL_BUSY or WRITE_BUSY (retryable), wait retry_after_s seconds and ask again; nothing was lost.";

/// Serve MCP on stdin/stdout until stdin closes.
pub fn serve(front: Front) -> Result<()> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    loop {
        let line = match read_message(&mut input) {
            Ok(None) => return Ok(()),
            Ok(Some(Ok(l))) => l,
            Ok(Some(Err((code, why)))) => {
                write(&stdout, &error(Value::Null, code, &why))?;
                continue;
            }
            Err(e) => return Err(Error::io("reading the MCP client", e)),
        };
        if line.trim().is_empty() {
            continue;
        }
        if let Some(reply) = handle_line(&front, &line) {
            write(&stdout, &reply)?;
        }
    }
}

/// One line, or a JSON-RPC error (code, text) when it is larger than [`MAX_MESSAGE`] (the
/// rest of that line is read and thrown away) or not UTF-8. None at the end of input.
type Message = std::result::Result<String, (i64, String)>;

fn read_message(r: &mut impl BufRead) -> std::io::Result<Option<Message>> {
    let mut buf = Vec::new();
    let mut too_big = false;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            if buf.is_empty() && !too_big {
                return Ok(None);
            }
            break;
        }
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !too_big {
            buf.extend_from_slice(&chunk[..take]);
            if buf.len() > MAX_MESSAGE {
                too_big = true;
                buf.clear();
            }
        }
        r.consume(take);
        if done {
            break;
        }
    }
    if too_big {
        return Ok(Some(Err((
            INVALID_REQUEST,
            format!("message larger than {MAX_MESSAGE} bytes"),
        ))));
    }
    Ok(Some(String::from_utf8(buf).map_err(|_| {
        (
            PARSE_ERROR,
            "parse error: the message is not valid UTF-8".into(),
        )
    })))
}

fn write(stdout: &std::io::Stdout, v: &Value) -> Result<()> {
    let mut out = stdout.lock();
    let mut bytes = serde_json::to_vec(v).expect("a JSON value serialises");
    bytes.push(b'\n');
    out.write_all(&bytes)
        .and_then(|_| out.flush())
        .map_err(|e| Error::io("writing to the MCP client", e))
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

fn ok(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// Answer one message; None for notifications (and for responses the client sends us).
pub fn handle_line(front: &Front, line: &str) -> Option<Value> {
    let msg: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return Some(error(
                Value::Null,
                PARSE_ERROR,
                &format!("parse error: {e}"),
            ));
        }
    };
    if msg.is_array() {
        return Some(error(
            Value::Null,
            INVALID_REQUEST,
            "batches are not supported",
        ));
    }
    if !msg.is_object() {
        // Valid JSON that is no request at all (`42`, `"hello"`, `null`): JSON-RPC 2.0 asks
        // for an Invalid Request error with a null id, not silence.
        return Some(error(
            Value::Null,
            INVALID_REQUEST,
            "not a request: a JSON-RPC request is an object",
        ));
    }
    let id = msg.get("id").cloned();
    let Some(method) = msg.get("method").and_then(Value::as_str) else {
        // A client's response (to a request of ours, or one it thinks we sent) is never
        // answered: JSON-RPC forbids replying to a response, and an error would only start
        // a loop of errors. Anything else without a method is an invalid request, answered
        // with its id when that id is usable, else null.
        if msg.get("result").is_some() || msg.get("error").is_some() {
            return None;
        }
        let id = id
            .filter(|i| i.is_string() || i.is_i64() || i.is_u64())
            .unwrap_or(Value::Null);
        return Some(error(id, INVALID_REQUEST, "not a request: no method"));
    };
    if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Some(error(
            id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            "jsonrpc must be \"2.0\"",
        ));
    }
    let params = msg.get("params").cloned().unwrap_or(Value::Null);
    if id
        .as_ref()
        .is_some_and(|i| !(i.is_string() || i.is_i64() || i.is_u64()))
    {
        return Some(error(
            Value::Null,
            INVALID_REQUEST,
            "id must be a string or an integer",
        ));
    }
    let Some(id) = id else {
        // Notifications (initialized, cancelled, …) need no answer.
        return None;
    };
    Some(match method {
        "initialize" => {
            let asked = params
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or("");
            let version = if PROTOCOL_VERSIONS.contains(&asked) {
                asked
            } else {
                PROTOCOL_VERSIONS[0]
            };
            ok(
                id,
                json!({
                    "protocolVersion": version,
                    "capabilities": { "tools": { "listChanged": false }, "resources": { "listChanged": false } },
                    "serverInfo": { "name": crate::PRODUCT_NAME, "version": env!("CARGO_PKG_VERSION") },
                    "instructions": INSTRUCTIONS,
                }),
            )
        }
        "ping" => ok(id, json!({})),
        "tools/list" => ok(id, json!({ "tools": tools() })),
        "tools/call" => {
            let Some(name) = params.get("name").and_then(Value::as_str) else {
                return Some(error(id, INVALID_PARAMS, "tools/call needs params.name"));
            };
            if !tools().iter().any(|t| t["name"] == name) {
                return Some(error(id, INVALID_PARAMS, &format!("unknown tool {name:?}")));
            }
            let args = params.get("arguments").cloned().unwrap_or(json!({}));
            ok(id, tool_result(front.call(name, &args)))
        }
        "resources/list" => ok(
            id,
            json!({ "resources": [{
                "uri": CONTEXT_URI,
                "name": "session-context",
                "title": "slm session context",
                "description": "The memories an agent should know at session start (pinned first, then newest), held to a 4,000-token budget.",
                "mimeType": "text/plain",
            }] }),
        ),
        "resources/templates/list" => ok(id, json!({ "resourceTemplates": [] })),
        "resources/read" => {
            let uri = params.get("uri").and_then(Value::as_str).unwrap_or("");
            if uri != CONTEXT_URI {
                return Some(error(
                    id,
                    INVALID_PARAMS,
                    &format!("unknown resource {uri:?}"),
                ));
            }
            match front.session_text(SessionMode::Resource) {
                Ok(text) => ok(
                    id,
                    json!({ "contents": [{ "uri": CONTEXT_URI, "mimeType": "text/plain", "text": text }] }),
                ),
                Err(e) => error(id, -32603, &e.to_string()),
            }
        }
        other => error(id, METHOD_NOT_FOUND, &format!("method not found: {other}")),
    })
}

/// A tool's answer: the JSON as text and as structured content; failures flagged.
fn tool_result(r: Result<Value>) -> Value {
    match r {
        Ok(v) => json!({
            "content": [{ "type": "text", "text": serde_json::to_string(&v).unwrap_or_default() }],
            "structuredContent": v,
            "isError": false,
        }),
        Err(e) => {
            let re = RemoteError::from(&e);
            let v = json!({ "error": re });
            json!({
                "content": [{ "type": "text", "text": serde_json::to_string(&v).unwrap_or_default() }],
                "structuredContent": v,
                "isError": true,
            })
        }
    }
}

fn recall_props(extra: Value) -> Value {
    let mut p = json!({
        "query": { "type": "string", "description": "The question, in your own words." },
        "show_weak": { "type": "boolean", "default": false, "description": "Also list the closest weak matches, each labelled weak." },
        "depth": { "type": "integer", "enum": [0, 1, 2], "default": 1, "description": "0: ids, tier, score and a one-line preview; 1: full memories; 2: plus the source memory, same-session and same-entity memories and the correction." },
        "max_tokens": { "type": "integer", "minimum": 1, "description": "Cap the whole answer at this many tokens; context is dropped first, then the last memory is shortened, then memories are left out (the layers field says what)." },
        "budget_s": { "type": "number", "exclusiveMinimum": 0, "description": "Answer within this many seconds, with unchecked keyword matches when the full search cannot finish. Leave unset for a question." },
        "limit": { "type": "integer", "minimum": 1, "default": 10 },
        "window": { "type": "string", "description": "Only memories whose event time is in this window: 7d, 12h, 2024-01-01..2024-02-01." },
        "as_of": { "type": "string", "description": "What was true at this time." },
        "known_as_of": { "type": "string", "description": "What slm knew before this time." },
        "valid_at": { "type": "string", "description": "Only memories valid at this time." },
        "include_shared": { "type": "boolean", "default": false },
        "include_global": { "type": "boolean", "default": false },
        "kind": { "type": "string", "description": "Only memories of this kind: note, decision, fact, prompt, event." }
    });
    if let (Some(o), Some(e)) = (p.as_object_mut(), extra.as_object()) {
        o.extend(e.clone());
    }
    json!({ "type": "object", "properties": p, "required": ["query"], "additionalProperties": false })
}

/// The tools, with input schemas and descriptions written for an agent.
pub fn tools() -> Vec<Value> {
    vec![
        json!({
            "name": "recall",
            "title": "Recall from memory",
            "description": "Ask the user's memory a question. Returns only memories that support an answer (tier \"supported\"), each with relevance_score, ranking_score, memory_confidence, trust_score, rank_position and tier. \
        Tier \"related\": close memories exist but none answers the question; results are empty unless include_related=true. Tier \"none\": it is not in memory. \
        If warming_up is true, slm is still loading and the results may be incomplete: say so and do NOT conclude that the memory is absent. \
        If the result is an error with code RECALL_BUSY (retryable), wait retry_after_s seconds and ask again; nothing was lost.",
            "inputSchema": recall_props(json!({
                "include_related": { "type": "boolean", "default": false, "description": "Return the closest related memories (labelled related) when none supports the question." }
            })),
        }),
        json!({
            "name": "search",
            "title": "Search memory (person view)",
            "description": "Search the user's memory the way a person would: supported memories, or when none supports the query up to three related memories, each labelled. Use recall for questions you will act on.",
            "inputSchema": recall_props(json!({})),
        }),
        json!({
            "name": "expand",
            "title": "Expand one memory",
            "description": "One memory in full with its depth-2 context: the memory it came from, up to three from the same session, up to three about the same entities, and the correction that replaced it.",
            "inputSchema": { "type": "object", "properties": {
                "fact_id": { "type": "integer", "description": "A result id from recall or search." },
                "memory_id": { "type": "integer", "description": "Same as fact_id." }
            }, "additionalProperties": false },
        }),
        json!({
            "name": "fetch",
            "title": "Fetch memories by id",
            "description": "The full memories with these ids, at most 100 at a time (ids of other profiles are reported as not_found).",
            "inputSchema": { "type": "object", "properties": {
                "ids": { "type": "array", "items": { "type": "integer" }, "minItems": 1, "maxItems": crate::agent::params::MAX_FETCH_IDS }
            }, "required": ["ids"], "additionalProperties": false },
        }),
        json!({
            "name": "feedback",
            "title": "Say which result helped",
            "description": "After recall or search: tell slm whether one of its results helped (helpful=true) or not (false), naming the response's recall_id and the result's id. It is kept in the user's store for this profile only and is used only if the user turned learned ranking on (SLM_RANKING); it never hides a memory.",
            "inputSchema": { "type": "object", "properties": {
                "recall_id": { "type": "string", "description": "recall_id of the recall or search response." },
                "memory_id": { "type": "integer", "description": "The id of the result the mark is about." },
                "helpful": { "type": "boolean", "description": "true: it helped answer; false: it did not." }
            }, "required": ["recall_id", "memory_id", "helpful"], "additionalProperties": false },
        }),
        json!({
            "name": "remember",
            "title": "Remember",
            "description": "Save a memory (a decision, fact or note worth keeping). It is durable when this returns, and findable at once. The same idempotency_key stores it once. If the result is an error with code WRITE_BUSY (retryable), another writer held the store: nothing was written; wait retry_after_s seconds and call again.",
            "inputSchema": { "type": "object", "properties": {
                "content": { "type": "string", "description": "The memory, one self-contained statement." },
                "kind": { "type": "string", "enum": ["note", "decision", "fact", "prompt", "event", "bookkeeping"] },
                "tags": { "type": "array", "items": { "type": "string" } },
                "session_id": { "type": "string" },
                "scope": { "type": "string", "enum": ["personal", "shared", "global"] },
                "idempotency_key": { "type": "string" }
            }, "required": ["content"], "additionalProperties": false },
        }),
        json!({
            "name": "session_init",
            "title": "Start a session",
            "description": "Call once at the start of a session: the memories to know up front (pinned first, then the newest decisions, facts and notes), held to a token budget and marked when cut. This is loading context, not an answer to a question.",
            "inputSchema": { "type": "object", "properties": {
                "mode": { "type": "string", "enum": ["start", "compact", "resource", "hook"], "default": "start", "description": "start: 1500 tokens; compact (after your context was compacted): 500." },
                "max_tokens": { "type": "integer", "minimum": 1 },
                "include_shared": { "type": "boolean", "default": false },
                "include_global": { "type": "boolean", "default": false }
            }, "additionalProperties": false },
        }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn front() -> Front {
        Front {
            paths: crate::paths::Paths::at(
                std::path::Path::new("/nonexistent/slm-test"),
                std::path::Path::new("/nonexistent"),
            ),
            mode: crate::worker::client::Mode::Off,
            profile: "default".into(),
            project: None,
        }
    }

    #[test]
    fn protocol_errors_are_proper_json_rpc_errors() {
        let f = front();
        let e = handle_line(&f, "{not json").unwrap();
        assert_eq!(e["error"]["code"], PARSE_ERROR);
        assert_eq!(e["id"], Value::Null);
        let e = handle_line(&f, r#"{"jsonrpc":"2.0","id":3,"method":"nope"}"#).unwrap();
        assert_eq!(e["error"]["code"], METHOD_NOT_FOUND);
        assert_eq!(e["id"], 3);
        let e = handle_line(
            &f,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"bogus"}}"#,
        )
        .unwrap();
        assert_eq!(e["error"]["code"], INVALID_PARAMS);
        assert!(
            handle_line(
                &f,
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
            )
            .is_none()
        );
        let init = handle_line(&f, r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#).unwrap();
        assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
        let init = handle_line(&f, r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}"#).unwrap();
        assert_eq!(init["result"]["protocolVersion"], PROTOCOL_VERSIONS[0]);
    }

    #[test]
    fn json_that_is_not_a_request_object_is_an_invalid_request() {
        let f = front();
        for line in [
            "42",
            "\"hello\"",
            "null",
            "true",
            "[]",
            "[1]",
            "{}",
            r#"{"id":7}"#,
        ] {
            let e = handle_line(&f, line).unwrap_or_else(|| panic!("{line}: no reply"));
            assert_eq!(e["jsonrpc"], "2.0", "{line}");
            assert_eq!(e["error"]["code"], INVALID_REQUEST, "{line}: {e}");
            let id = if line == r#"{"id":7}"# {
                json!(7)
            } else {
                Value::Null
            };
            assert_eq!(e["id"], id, "{line}: {e}");
        }
        // A response from the client is still never answered.
        assert!(handle_line(&f, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).is_none());
    }

    #[test]
    fn bad_tool_arguments_are_tool_errors() {
        let f = front();
        let r = handle_line(&f, r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"recall","arguments":{"depth":7,"query":"x"}}}"#).unwrap();
        assert_eq!(r["result"]["isError"], true);
        assert_eq!(r["result"]["structuredContent"]["error"]["code"], "USAGE");
    }

    #[test]
    fn oversized_messages_are_refused_and_the_next_one_is_read() {
        let mut data = vec![b'x'; MAX_MESSAGE + 10];
        data.extend_from_slice(b"\n{\"ok\":1}\n");
        let mut r = std::io::BufReader::new(&data[..]);
        assert!(read_message(&mut r).unwrap().unwrap().is_err());
        assert_eq!(
            read_message(&mut r).unwrap().unwrap().unwrap().trim(),
            "{\"ok\":1}"
        );
        assert!(read_message(&mut r).unwrap().is_none());
    }
}
