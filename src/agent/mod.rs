//! The agent-facing calls, over JSON arguments: what the MCP tools and the HTTP endpoint
//! run. Each builds the same resolved request the CLI builds and sends it the same way
//! (warm worker, cold path while it starts), so there is no second engine.
//!
//! Agent rules (the spec, "Who sees what"): `recall` returns only supported results; for a
//! related answer it is empty with the include_related note, and `include_related=true`
//! returns them. `search` is the person view: related memories shown, labelled. Every
//! result carries the score contract fields and its tier. Arguments arrive as JSON and are
//! read into the typed structs of [`params`], which refuse arguments no schema lists.

use crate::memory::{Kind, NewMemory, Scope, Source};
use crate::paths::Paths;
use crate::recall::View;
use crate::recall::filters::Filters;
use crate::recall::ranking_mode::learn::Label;
use crate::service::resolve::{self, RecallInput};
use crate::service::{Op, Request};
use crate::session::{SessionMode, SessionRequest};
use crate::worker::client::{self, Mode};
use crate::{Error, Result};
use params::{
    ExpandParams, FeedbackParams, FetchParams, RecallParams, RememberParams, SessionInitParams,
};
use serde_json::{Value, json};
use std::time::Duration;

pub mod capture;
pub mod params;

/// Who is calling and where their requests run.
#[derive(Debug, Clone)]
pub struct Front {
    pub paths: Paths,
    pub mode: Mode,
    pub profile: String,
    /// The project its writes record and its questions read (`crate::project`): worked out
    /// once, where the server starts (an agent starts its MCP server in the project).
    pub project: Option<String>,
}

impl Front {
    pub fn from_env(
        profile: &str,
        no_worker: bool,
        project: &crate::project::Choice,
    ) -> Result<Front> {
        Ok(Front {
            paths: Paths::from_env(),
            mode: Mode::resolve(no_worker)?,
            profile: profile.to_string(),
            project: crate::project::resolve(project, None),
        })
    }

    fn run(&self, op: Op, timeout: Option<Duration>) -> Result<Value> {
        self.run_for(op, timeout, true)
    }

    /// Run `op` where this front's mode says, the answer's `served_by` added. For an agent
    /// (`agent`), a question never gets a cold guess while its own worker loads: it waits
    /// within its slot time, then hears busy (retryable); a person's front (the dashboard)
    /// gets the CLI's cold answer, labelled warming.
    pub(crate) fn run_for(&self, op: Op, timeout: Option<Duration>, agent: bool) -> Result<Value> {
        let wait = client::question_wait(&op, &self.paths).map(|w| {
            if agent && w.past_bound == client::PastBound::Cold {
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

    /// Run one named call. Unknown names, unknown arguments and bad values are usage errors.
    pub fn call(&self, name: &str, args: &Value) -> Result<Value> {
        match name {
            "recall" => {
                let p: RecallParams = params::parse(name, args)?;
                let include_related = p.include_related.is_some_and(|f| f.0);
                self.recall(p, View::Agent { include_related })
            }
            "search" => {
                let p: RecallParams = params::parse(name, args)?;
                if p.include_related.is_some() {
                    return Err(Error::Usage(
                        "search: unknown field `include_related` (search always shows related memories; recall takes it)".into(),
                    ));
                }
                self.recall(p, View::Person)
            }
            "expand" => {
                let p: ExpandParams = params::parse(name, args)?;
                let id = p
                    .fact_id
                    .or(p.memory_id)
                    .map(|i| i.0)
                    .ok_or_else(|| Error::Usage("expand needs fact_id or memory_id".into()))?;
                let filters = Filters {
                    profile: self.profile.clone(),
                    project: self.project.clone(),
                    ..Default::default()
                };
                self.run(Op::Expand { id, filters }, None)
            }
            "fetch" => {
                let p: FetchParams = params::parse(name, args)?;
                let ids = p.ids.ok_or_else(|| {
                    Error::Usage("fetch needs ids: an array of memory ids".into())
                })?;
                if ids.is_empty() || ids.len() > params::MAX_FETCH_IDS {
                    return Err(Error::Usage(format!(
                        "fetch: {} ids; give 1 to {} at a time",
                        ids.len(),
                        params::MAX_FETCH_IDS
                    )));
                }
                let mut memories = Vec::new();
                let mut missing = Vec::new();
                for id in ids.iter().map(|i| i.0) {
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
            "feedback" => {
                let p: FeedbackParams = params::parse(name, args)?;
                let (Some(recall_id), Some(memory_id), Some(helpful)) =
                    (p.recall_id, p.memory_id, p.helpful)
                else {
                    return Err(Error::Usage(
                        "feedback needs recall_id, memory_id and helpful".into(),
                    ));
                };
                let label = if helpful.0 { Label::Good } else { Label::Bad };
                self.run(
                    Op::Feedback {
                        profile: self.profile.clone(),
                        recall_id,
                        memory_id: memory_id.0,
                        label,
                    },
                    None,
                )
            }
            "remember" => {
                let p: RememberParams = params::parse(name, args)?;
                let content = p
                    .content
                    .ok_or_else(|| Error::Usage("content is required".into()))?;
                // The CLI's own parsers: one list of kinds and scopes, one wording.
                let kind = Kind::parse_flag("--kind", p.kind.as_deref())?;
                let scope = Scope::parse_flag("--scope", p.scope.as_deref())?;
                crate::memory::validate_text(&content)?;
                let memory = NewMemory {
                    text: content,
                    kind,
                    source: Some(Source::Agent),
                    profile: Some(self.profile.clone()),
                    scope,
                    session_id: p.session_id,
                    tags: p.tags.unwrap_or_default(),
                    idempotency_key: p.idempotency_key,
                    project: self.project.clone(),
                    ..Default::default()
                };
                self.run(Op::Remember { memory }, None)
            }
            "session_init" => {
                let p: SessionInitParams = params::parse(name, args)?;
                let mode = match p.mode {
                    None => SessionMode::Start,
                    Some(m) => SessionMode::parse(&m).ok_or_else(|| {
                        Error::Usage(format!(
                            "mode {m:?}: expected one of {}",
                            SessionMode::names()
                        ))
                    })?,
                };
                let max_tokens = p.max_tokens.map(|n| positive(n.0)).transpose()?;
                let req = SessionRequest {
                    profile: self.profile.clone(),
                    mode,
                    max_tokens,
                    include_shared: p.include_shared.is_some_and(|f| f.0),
                    include_global: p.include_global.is_some_and(|f| f.0),
                    project: self.project.clone(),
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

    fn recall(&self, p: RecallParams, view: View) -> Result<Value> {
        let (agent, include_related) = match view {
            View::Agent { include_related } => (true, include_related),
            View::Person => (false, false),
        };
        let a = RecallInput {
            query: p
                .query
                .ok_or_else(|| Error::Usage("query is required".into()))?,
            limit: p.limit.map(|n| positive(n.0)).transpose()?.unwrap_or(10),
            depth: match p.depth.map(|d| d.0) {
                None => 1,
                Some(d @ 0..=2) => d as u8,
                Some(d) => return Err(Error::Usage(format!("depth {d}: expected 0, 1 or 2"))),
            },
            max_tokens: p.max_tokens.map(|n| positive(n.0)).transpose()?,
            show_weak: p.show_weak.is_some_and(|f| f.0),
            window: p.window,
            as_of: p.as_of,
            known_as_of: p.known_as_of,
            valid_at: p.valid_at,
            include_shared: p.include_shared.is_some_and(|f| f.0),
            include_global: p.include_global.is_some_and(|f| f.0),
            kind: p.kind,
            budget_s: p.budget_s.map(|b| b.0),
            agent,
            include_related,
            explain: false,
            project: self.project.clone(),
        };
        let req = resolve::recall(&a, &self.profile)?;
        let timeout = client::reply_timeout(req.budget_s);
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
