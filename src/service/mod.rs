//! The resolved request every front sends, and the one dispatcher that answers it.
//!
//! The CLI parses flags into a [`Request`] with every default filled in on the client side
//! (clock, profile, settings, stdin already read, output style). That value is what goes over
//! the socket to the warm worker, and it is what the in-process (cold) path runs when no
//! worker answers: both call [`execute`] on an [`Engine`], so they run the very same code on
//! the very same input. The MCP and HTTP fronts build the same requests ([`resolve`] turns
//! what any front was asked into them).
//!
//! A [`Reply`] carries the JSON body (what `--json` prints inside the envelope) and, when the
//! caller wants it, the human text rendered with the caller's style, so a worker never needs
//! to know about terminals and a client never re-implements rendering.

pub mod resolve;
pub mod spool;

use crate::engine::{Engine, KeyLink};
use crate::memory::{MemoryPatch, NewMemory};
use crate::output::Style;
use crate::recall::RecallRequest;
use crate::recall::filters::Filters;
use crate::store::ListFilter;
use crate::transfer::export::ExportQuery;
use crate::transfer::notes::NotesFile;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::Arc;

/// One operation, fully resolved.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// A question: always the full pipeline (slots, single flight, cache in the worker).
    Recall {
        req: RecallRequest,
    },
    /// A prompt hook: recall under a hard time limit, printed as a context block.
    HookRecall {
        req: RecallRequest,
        max_tokens: usize,
    },
    Remember {
        memory: NewMemory,
    },
    Update {
        id: i64,
        profile: String,
        patch: MemoryPatch,
    },
    Delete {
        ids: Vec<i64>,
        profile: String,
    },
    List {
        filter: ListFilter,
    },
    Show {
        id: i64,
        profile: String,
    },
    Expand {
        id: i64,
        filters: Filters,
    },
    SessionContext {
        req: crate::session::SessionRequest,
    },
    /// One batch of an import: all of it is committed, or none of it.
    RememberBatch {
        memories: Vec<NewMemory>,
        /// When the memories get their vectors (a capture hook: later).
        #[serde(default)]
        embed: crate::engine::Embed,
    },
    /// Save the capture spool (`service::spool`). A worker answers at once and saves it on
    /// its own thread, so a capture hook never waits behind other writes; run anywhere
    /// else (cold), it saves the spool before answering.
    SaveSpool,
    /// The correction links an import named by key (sent after all of its lines).
    SupersedeKeys {
        links: Vec<KeyLink>,
    },
    /// One page of an export.
    ExportPage {
        query: ExportQuery,
    },
    /// One file of a notes import, planned against what an earlier import stored.
    ImportNotes {
        file: NotesFile,
        dry_run: bool,
    },
    /// The dashboard's saved views of a profile.
    Views {
        profile: String,
    },
    /// Save (or replace) a view.
    ViewSave {
        view: crate::store::views::SavedView,
    },
    ViewDelete {
        profile: String,
        name: String,
    },
    /// A mark on one memory of one recall, for the learned ranking modes.
    Feedback {
        profile: String,
        recall_id: String,
        memory_id: i64,
        label: crate::recall::ranking_mode::learn::Label,
    },
    /// The marks on record (one profile, or every profile).
    FeedbackList {
        profile: Option<String>,
        limit: usize,
    },
    /// Remove marks, logged recalls and learned models (one profile, or every profile).
    FeedbackForget {
        profile: Option<String>,
    },
}

impl Op {
    /// The command name in the JSON envelope.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Recall { .. } => "recall",
            Op::HookRecall { .. } => "hook",
            Op::Remember { .. } => "remember",
            Op::Update { .. } => "update",
            Op::Delete { .. } => "delete",
            Op::List { .. } => "list",
            Op::Show { .. } => "show",
            Op::Expand { .. } => "expand",
            Op::SessionContext { .. } => "session-context",
            Op::RememberBatch { .. } | Op::SupersedeKeys { .. } | Op::ImportNotes { .. } => {
                "import"
            }
            Op::ExportPage { .. } => "export",
            Op::SaveSpool => "capture",
            Op::Views { .. } | Op::ViewSave { .. } | Op::ViewDelete { .. } => "views",
            Op::Feedback { .. } | Op::FeedbackList { .. } | Op::FeedbackForget { .. } => "feedback",
        }
    }

    /// A write changes the store: it is never sent twice, and it drops cached answers.
    pub fn is_write(&self) -> bool {
        matches!(
            self,
            Op::Remember { .. }
                | Op::Update { .. }
                | Op::Delete { .. }
                | Op::RememberBatch { .. }
                | Op::SaveSpool
                | Op::ViewSave { .. }
                | Op::ViewDelete { .. }
                | Op::SupersedeKeys { .. }
                | Op::ImportNotes { .. }
                | Op::Feedback { .. }
                | Op::FeedbackForget { .. }
        )
    }

    /// A question waits for a recall slot.
    pub fn is_question(&self) -> bool {
        matches!(self, Op::Recall { .. } | Op::SessionContext { .. })
    }
}

/// What a front sends: the operation and how the answer should be rendered.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    pub op: Op,
    /// Render the human text with this style (None: JSON only, as MCP and HTTP want).
    pub human: Option<Style>,
}

/// The answer to one request.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Reply {
    pub command: String,
    /// The command's fields (the `--json` body without the envelope).
    pub body: Value,
    /// The human text, when asked for.
    pub human: Option<String>,
    /// The process exit code this answer means (0 unless the command says otherwise).
    #[serde(default)]
    pub exit: i32,
}

impl Reply {
    pub(crate) fn new(op: &Op, body: Value, human: Option<String>) -> Reply {
        Reply {
            command: op.name().to_string(),
            body,
            human,
            exit: 0,
        }
    }
}

/// Answer one request on this engine. The worker and the cold path both call this.
pub fn execute(engine: &Arc<Engine>, req: &Request) -> Result<Reply> {
    let style = req.human;
    let op = &req.op;
    match op {
        Op::Recall { req: r } => {
            let resp = crate::recall::budget::run(engine, r)?;
            let human = style.map(|s| crate::render::recall(&resp, s, r.explain));
            Ok(Reply::new(op, json!(resp), human))
        }
        Op::HookRecall { req: r, max_tokens } => {
            let resp = crate::recall::budget::run(engine, r)?;
            let block = crate::session::hook_block(engine, &resp, *max_tokens);
            let human = style.map(|_| block.text.clone());
            Ok(Reply::new(
                op,
                json!({ "recall": resp, "context": block }),
                human,
            ))
        }
        Op::Remember { memory } => {
            let r = engine.remember(memory.clone())?;
            let human = style.map(|s| crate::render::remembered(&r, s));
            Ok(Reply::new(op, json!(r), human))
        }
        Op::Update { id, profile, patch } => {
            engine.check_profile(*id, profile)?;
            let m = engine.update(*id, patch.clone())?;
            let human = style.map(|_| crate::render::updated(m.id));
            Ok(Reply::new(op, json!({ "memory": m }), human))
        }
        Op::Delete { ids, profile } => {
            for id in ids {
                engine.check_profile(*id, profile)?;
            }
            let n = engine.delete(ids)?;
            let human = style.map(|_| crate::render::deleted(n));
            Ok(Reply::new(op, json!({ "deleted": ids }), human))
        }
        Op::List { filter } => {
            let ms = engine.list(filter)?;
            let human = style.map(|s| crate::render::list(&ms, s));
            Ok(Reply::new(op, json!({ "memories": ms }), human))
        }
        Op::Show { id, profile } => {
            engine.check_profile(*id, profile)?;
            let m = engine.get(*id)?.ok_or(Error::NotFound(*id))?;
            implicit_feedback(engine, profile, *id);
            let human = style.map(|s| crate::render::show(&m, s));
            Ok(Reply::new(op, json!({ "memory": m }), human))
        }
        Op::Expand { id, filters } => {
            engine.check_profile(*id, &filters.profile)?;
            let m = engine.get(*id)?.ok_or(Error::NotFound(*id))?;
            implicit_feedback(engine, &filters.profile, *id);
            let ctx = crate::recall::layers::context_for(engine, *id, filters)?;
            let human = style.map(|s| crate::render::expand(&m, &ctx, s));
            Ok(Reply::new(
                op,
                json!({ "memory": m, "context": ctx }),
                human,
            ))
        }
        Op::SessionContext { req: r } => {
            let block = crate::session::session_context(engine, r)?;
            let human = style.map(|_| block.text.clone());
            Ok(Reply::new(op, json!(block), human))
        }
        // The bulk operations answer JSON only: the command sending them sums the pages up.
        Op::RememberBatch { memories, embed } => {
            let r = engine.remember_batch_with(memories.clone(), &mut |_| {}, *embed)?;
            Ok(Reply::new(op, json!({ "results": r }), None))
        }
        Op::Views { profile } => Ok(Reply::new(
            op,
            json!({ "views": engine.views(profile)? }),
            None,
        )),
        Op::ViewSave { view } => {
            engine.save_view(view)?;
            Ok(Reply::new(op, json!({ "saved": view.name.trim() }), None))
        }
        Op::ViewDelete { profile, name } => {
            let deleted = engine.delete_view(profile, name)?;
            Ok(Reply::new(op, json!({ "deleted": deleted }), None))
        }
        Op::SaveSpool => {
            let dir = crate::service::spool::spool_dir(&engine.paths);
            let d = crate::service::spool::drain(engine, &dir)?;
            Ok(Reply::new(op, json!({ "saved": d, "queued": false }), None))
        }
        Op::SupersedeKeys { links } => {
            let r = engine.supersede_by_keys(links)?;
            Ok(Reply::new(op, json!(r), None))
        }
        Op::ExportPage { query } => {
            let page = crate::transfer::export::page_of(engine, query)?;
            Ok(Reply::new(op, json!(page), None))
        }
        Op::ImportNotes { file, dry_run } => {
            let r = crate::transfer::notes::import_file(engine, file, *dry_run)?;
            Ok(Reply::new(op, json!(r), None))
        }
        Op::Feedback {
            profile,
            recall_id,
            memory_id,
            label,
        } => {
            let r = crate::recall::ranking_mode::feedback::feedback(
                engine, profile, recall_id, *memory_id, *label,
            )?;
            let human = style.map(|_| crate::render::feedback::report(&r));
            Ok(Reply::new(op, json!(r), human))
        }
        Op::FeedbackList { profile, limit } => {
            let rows = engine.feedback_list(profile.as_deref(), *limit)?;
            let human = style.map(|s| crate::render::feedback::list(&rows, s));
            Ok(Reply::new(op, json!({ "feedback": rows }), human))
        }
        Op::FeedbackForget { profile } => {
            let c = engine.feedback_forget(profile.as_deref())?;
            let human = style.map(|_| crate::render::feedback::forgotten(&c, profile.as_deref()));
            Ok(Reply::new(
                op,
                json!({ "forgotten": c, "profile": profile }),
                human,
            ))
        }
    }
}

/// A show or expand soon after a recall that listed the memory is a weak positive for the
/// learned ranking modes. Never fails the read: a mark that cannot be written is skipped.
fn implicit_feedback(engine: &Engine, profile: &str, id: i64) {
    let _ = crate::recall::ranking_mode::feedback::implicit(engine, profile, id);
}
