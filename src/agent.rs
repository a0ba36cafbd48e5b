//! The agent-facing calls, over JSON arguments: what the MCP tools and the HTTP endpoint
//! run. Each builds the same resolved request the CLI builds and sends it the same way
//! (warm worker, cold path while it starts), so there is no second engine.
//!
//! Agent rules (the spec, "Who sees what"): `recall` returns only supported results; for a
//! related answer it is empty with the include_related note, and `include_related=true`
//! returns them. `search` is the person view: related memories shown, labelled. Every
//! result carries the score contract fields and its tier.

use crate::cli::args::{ColorChoice, GlobalArgs, RecallArgs};
use crate::memory::{NewMemory, Source};
use crate::paths::Paths;
use crate::recall::View;
use crate::recall::filters::Filters;
use crate::service::{Op, Request};
use crate::session::{SessionMode, SessionRequest};
use crate::worker::client::{self, Mode};
use crate::{Error, Result};
use serde_json::{Value, json};
use std::time::Duration;

/// Who is calling and where their requests run.
#[derive(Debug, Clone)]
pub struct Front {
    pub paths: Paths,
    pub mode: Mode,
    pub profile: String,
}

impl Front {
    pub fn from_env(profile: &str, no_worker: bool) -> Result<Front> {
        Ok(Front {
            paths: Paths::from_env(),
            mode: Mode::resolve(no_worker)?,
            profile: profile.to_string(),
        })
    }

    fn global(&self) -> GlobalArgs {
        GlobalArgs {
            json: true,
            color: ColorChoice::Never,
            profile: self.profile.clone(),
            no_worker: self.mode == Mode::Off,
            no_wait: false,
        }
    }

    fn run(&self, op: Op, timeout: Option<Duration>) -> Result<Value> {
        // An agent never gets a cold guess while its own worker loads: a question waits
        // within its slot time, then hears busy (retryable).
        let wait = crate::cli::forward::question_wait(&op, &self.paths).map(|w| {
            if w.past_bound == client::PastBound::Cold {
                client::Wait {
                    bound: crate::worker::questions::SLOT_WAIT,
                    past_bound: client::PastBound::Busy,
                }
            } else {
                w
            }
        });
        let answer = client::execute_with(
            &self.paths,
            Request { op, human: None },
            self.mode,
            timeout,
            wait,
        )?;
        let mut body = answer.reply.body;
        if let Some(o) = body.as_object_mut() {
            o.insert("served_by".into(), json!(answer.served_by));
        }
        Ok(body)
    }

    /// Run one named call. Unknown names and bad arguments are usage errors.
    pub fn call(&self, name: &str, args: &Value) -> Result<Value> {
        let args = match args {
            Value::Null => &json!({}),
            Value::Object(_) => args,
            _ => return Err(Error::Usage("arguments must be a JSON object".into())),
        };
        match name {
            "recall" => {
                let include_related = opt_bool(args, "include_related")?.unwrap_or(false);
                self.recall(args, View::Agent { include_related })
            }
            "search" => self.recall(args, View::Person),
            "expand" => {
                let id = opt_i64(args, "fact_id")?
                    .or(opt_i64(args, "memory_id")?)
                    .ok_or_else(|| Error::Usage("expand needs fact_id or memory_id".into()))?;
                let filters = Filters {
                    profile: self.profile.clone(),
                    ..Default::default()
                };
                self.run(Op::Expand { id, filters }, None)
            }
            "fetch" => {
                let ids = args.get("ids").and_then(Value::as_array).ok_or_else(|| {
                    Error::Usage("fetch needs ids: an array of memory ids".into())
                })?;
                let mut memories = Vec::new();
                let mut missing = Vec::new();
                for v in ids {
                    let id = v
                        .as_i64()
                        .ok_or_else(|| Error::Usage(format!("fetch: {v} is not a memory id")))?;
                    match self.run(
                        Op::Show {
                            id,
                            profile: self.profile.clone(),
                        },
                        None,
                    ) {
                        Ok(b) => memories.push(b["memory"].clone()),
                        Err(Error::NotFound(_)) => missing.push(id),
                        Err(Error::Remote(r)) if r.code == "NOT_FOUND" => missing.push(id),
                        Err(e) => return Err(e),
                    }
                }
                Ok(json!({ "memories": memories, "not_found": missing }))
            }
            "remember" => {
                let content = req_str(args, "content")?;
                // The CLI's own parsers: one list of kinds and scopes, one wording.
                let kind = crate::cli::parse_kind(&opt_str(args, "kind")?)?;
                let scope = crate::cli::parse_scope(&opt_str(args, "scope")?)?;
                let tags = match args.get("tags") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(a)) => a
                        .iter()
                        .map(|t| {
                            t.as_str()
                                .map(str::to_string)
                                .ok_or_else(|| Error::Usage("tags must be strings".into()))
                        })
                        .collect::<Result<_>>()?,
                    Some(_) => return Err(Error::Usage("tags must be an array of strings".into())),
                };
                crate::memory::validate_text(&content)?;
                let memory = NewMemory {
                    text: content,
                    kind,
                    source: Some(Source::Agent),
                    profile: Some(self.profile.clone()),
                    scope,
                    session_id: opt_str(args, "session_id")?,
                    tags,
                    idempotency_key: opt_str(args, "idempotency_key")?,
                    ..Default::default()
                };
                self.run(Op::Remember { memory }, None)
            }
            "session_init" => {
                let mode = match opt_str(args, "mode")? {
                    None => SessionMode::Start,
                    Some(m) => SessionMode::parse(&m).ok_or_else(|| {
                        Error::Usage(format!(
                            "mode {m:?}: expected one of {}",
                            SessionMode::names()
                        ))
                    })?,
                };
                let max_tokens = opt_i64(args, "max_tokens")?.map(positive).transpose()?;
                let req = SessionRequest {
                    profile: self.profile.clone(),
                    mode,
                    max_tokens,
                    include_shared: opt_bool(args, "include_shared")?.unwrap_or(false),
                    include_global: opt_bool(args, "include_global")?.unwrap_or(false),
                };
                self.run(Op::SessionContext { req }, None)
            }
            other => Err(Error::Usage(format!("unknown tool {other:?}"))),
        }
    }

    /// The session-context text (the MCP resource).
    pub fn session_text(&self, mode: SessionMode) -> Result<String> {
        let body = self.call("session_init", &json!({ "mode": mode }))?;
        Ok(body["text"].as_str().unwrap_or_default().to_string())
    }

    fn recall(&self, args: &Value, view: View) -> Result<Value> {
        let a = RecallArgs {
            query: req_str(args, "query")?,
            limit: opt_i64(args, "limit")?
                .map(positive)
                .transpose()?
                .unwrap_or(10),
            depth: match opt_i64(args, "depth")? {
                None => 1,
                Some(d @ 0..=2) => d as u8,
                Some(d) => return Err(Error::Usage(format!("depth {d}: expected 0, 1 or 2"))),
            },
            max_tokens: opt_i64(args, "max_tokens")?.map(positive).transpose()?,
            show_weak: opt_bool(args, "show_weak")?.unwrap_or(false),
            window: opt_str(args, "window")?,
            as_of: opt_str(args, "as_of")?,
            known_as_of: opt_str(args, "known_as_of")?,
            valid_at: opt_str(args, "valid_at")?,
            include_shared: opt_bool(args, "include_shared")?.unwrap_or(false),
            include_global: opt_bool(args, "include_global")?.unwrap_or(false),
            kind: opt_str(args, "kind")?,
            budget_s: opt_f64(args, "budget_s")?,
            ..Default::default()
        };
        let mut req = crate::cli::recall_cmd::resolve(&a, &self.global())?;
        req.view = view;
        let timeout = req
            .budget_s
            .map(|b| Duration::from_secs_f64(b) + crate::cli::forward::BUDGET_MARGIN);
        self.run(Op::Recall { req }, timeout)
    }
}

fn positive(n: i64) -> Result<usize> {
    if n > 0 {
        Ok(n as usize)
    } else {
        Err(Error::Usage(format!("{n}: expected a positive number")))
    }
}

fn opt_str(a: &Value, k: &str) -> Result<Option<String>> {
    match a.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(Error::Usage(format!("{k}: expected a string, got {v}"))),
    }
}

fn req_str(a: &Value, k: &str) -> Result<String> {
    opt_str(a, k)?.ok_or_else(|| Error::Usage(format!("{k} is required")))
}

fn opt_bool(a: &Value, k: &str) -> Result<Option<bool>> {
    match a.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(Value::String(s)) if s == "true" || s == "1" => Ok(Some(true)),
        Some(Value::String(s)) if s == "false" || s == "0" => Ok(Some(false)),
        Some(v) => Err(Error::Usage(format!(
            "{k}: expected true or false, got {v}"
        ))),
    }
}

fn opt_i64(a: &Value, k: &str) -> Result<Option<i64>> {
    match a.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.as_i64().is_some() => Ok(n.as_i64()),
        Some(Value::String(s)) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| Error::Usage(format!("{k}: expected a whole number, got {s:?}"))),
        Some(v) => Err(Error::Usage(format!(
            "{k}: expected a whole number, got {v}"
        ))),
    }
}

fn opt_f64(a: &Value, k: &str) -> Result<Option<f64>> {
    match a.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64()),
        Some(Value::String(s)) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| Error::Usage(format!("{k}: expected a number, got {s:?}"))),
        Some(v) => Err(Error::Usage(format!("{k}: expected a number, got {v}"))),
    }
}
