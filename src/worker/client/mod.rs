//! The client side: send a resolved request to the warm worker, start one on demand, and
//! answer in-process (cold) while it starts.
//!
//! Fall back only on transport errors, and never send a write twice: when the connection to
//! the worker breaks after a write was sent, the caller is told the write may or may not have
//! been saved, and nothing is replayed. A read that lost its worker is answered in-process
//! and says so. A worker of another version is asked to leave and a new one is started.
//!
//! Here: where a request runs and how it waits; `transport` (one exchange on the socket),
//! `lifecycle` (starting, stopping and asking a worker), `bulk` (many requests in a row).

mod bulk;
mod lifecycle;
mod transport;

pub use bulk::Target;
pub use lifecycle::{
    LOG_ROTATE_BYTES, READY_WAIT, Ready, socket_path, start_and_wait, status, stop,
};

use super::protocol::{ClientBody, WorkerBody};
use super::runtime_dir::WorkerFiles;
use crate::engine::{Engine, ModelMode, OpenOptions};
use crate::paths::Paths;
use crate::service::{self, Op, Reply, Request};
use crate::{Error, Result};
use lifecycle::{start, wait_gone};
use serde::Serialize;
use std::sync::Arc;
use std::time::{Duration, Instant};
use transport::{Transport, exchange, hand_over};

pub const WORKER_ENV: &str = "SLM_WORKER";
/// How long a reply may take before the client gives up: a question may wait 12 s for a
/// slot and run under the producers' 3 s guards; two minutes means the worker is stuck.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(120);
/// How long a question waits for the worker it started (or found loading) before it
/// answers cold (`worker.question_wait_s`, `SLM_QUESTION_WAIT_S`; `--no-wait` skips it).
/// The wait ends the moment the worker says it is ready, so the bound matters only when
/// loading is slow: measured here on 2 cores, a worker with MiniLM starts in 0.57 s
/// (`slm bench worker`), and a process loading EmbeddingGemma int8 took 6.5 s in a debug
/// build (its tokenizer.json 4.0 s, the ONNX session 1.9 s); 10 s covers both.
pub const QUESTION_WAIT: Duration = Duration::from_secs(10);
pub const QUESTION_WAIT_ENV: &str = "SLM_QUESTION_WAIT_S";
/// What the warming note says before any worker of this data dir has measured its own
/// load (the first start ever): the figure measured for the default model here.
pub const DEFAULT_LOAD_ESTIMATE_MS: u64 = 2000;

/// Slack over a recall's own budget for the socket round trip and process start.
pub const BUDGET_MARGIN: Duration = Duration::from_millis(300);

/// A budgeted recall waits for a starting worker at most this share of its budget, so the
/// rest is left to answer from keyword search in time. Chosen, not measured.
pub const BUDGETED_WAIT_SHARE: f64 = 0.5;
/// A prompt hook without a budget of its own (`slm hook recall` always gives one) waits
/// this many seconds. Chosen, not measured: a third of the hook's 3 s hard limit.
pub const HOOK_WAIT_S: f64 = 1.0;

/// How long to wait for the reply to a request with this budget (None: no budget, the
/// usual [`REPLY_TIMEOUT`]): a budgeted recall must not wait past its budget for the worker
/// either.
pub fn reply_timeout(budget_s: Option<f64>) -> Option<Duration> {
    budget_s.map(|b| Duration::from_secs_f64(b) + BUDGET_MARGIN)
}

/// How long this request waits for a starting worker, and what it does past that.
/// Questions (recall, expand, session context) wait; writes and listings do not (the
/// in-process answer is the full answer for them). A budgeted recall or a hook waits
/// within its own budget; a hook past it prints nothing rather than a warming guess.
pub fn question_wait(op: &Op, paths: &Paths) -> Option<Wait> {
    let configured = || {
        std::env::var(QUESTION_WAIT_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .or_else(|| {
                crate::settings::Settings::load(&paths.settings())
                    .ok()
                    .and_then(|s| s.worker.question_wait_s)
            })
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64)
            .unwrap_or(QUESTION_WAIT)
    };
    match op {
        Op::Recall { req } => Some(Wait {
            bound: match req.budget_s {
                Some(b) => configured().min(Duration::from_secs_f64(b * BUDGETED_WAIT_SHARE)),
                None => configured(),
            },
            past_bound: PastBound::Cold,
        }),
        Op::Expand { .. } | Op::SessionContext { .. } => Some(Wait {
            bound: configured(),
            past_bound: PastBound::Cold,
        }),
        Op::HookRecall { req, .. } => Some(Wait {
            bound: Duration::from_secs_f64(req.budget_s.unwrap_or(HOOK_WAIT_S)),
            past_bound: PastBound::Nothing,
        }),
        _ => None,
    }
}

/// How a question waits for a worker that is starting.
#[derive(Debug, Clone, Copy)]
pub struct Wait {
    pub bound: Duration,
    pub past_bound: PastBound,
}

/// What a question does when the worker is not ready within the bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PastBound {
    /// Answer in-process from keyword search, labelled warming (a person, a script).
    Cold,
    /// Say busy (MCP and HTTP: an agent never gets a cold guess while its worker loads).
    Busy,
    /// Answer nothing (a prompt hook prints nothing rather than a warming guess).
    Nothing,
}

/// Where commands run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Forward to the warm worker, start it on demand, answer cold while it starts.
    Auto,
    /// Never touch the worker: answer in-process, cold (keyword-only, labelled warming).
    Off,
    /// In-process with the model loaded: full answers without a worker, slow to start.
    Inline,
}

impl Mode {
    /// `--no-worker` wins; otherwise `SLM_WORKER=auto|off|inline` (default auto).
    pub fn resolve(no_worker: bool) -> Result<Mode> {
        if no_worker {
            return Ok(Mode::Off);
        }
        match std::env::var(WORKER_ENV).unwrap_or_default().trim() {
            "" | "auto" => Ok(Mode::Auto),
            "off" | "0" | "no" => Ok(Mode::Off),
            "inline" => Ok(Mode::Inline),
            other => Err(Error::Usage(format!(
                "{WORKER_ENV}={other:?}: expected auto, off or inline"
            ))),
        }
    }
}

/// Who answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ServedBy {
    /// The warm worker.
    Worker,
    /// This process, without the model (the worker was starting, down, or not wanted).
    Cold,
    /// This process, with the model loaded (`SLM_WORKER=inline`).
    Inline,
}

pub struct Answer {
    pub reply: Reply,
    pub served_by: ServedBy,
    /// Milliseconds this command waited for a starting worker (None: it did not wait).
    pub waited_ms: Option<f64>,
}

/// Run `req` where `mode` says, without waiting for a starting worker.
pub fn execute(
    paths: &Paths,
    req: Request,
    mode: Mode,
    timeout: Option<Duration>,
) -> Result<Answer> {
    execute_with(paths, req, mode, timeout, None)
}

/// Hand `req` to the running worker and return without its answer: `Ok(false)` when no
/// worker listens (the caller then runs it another way). Only for a request whose effect
/// is already safe on disk: the capture hook's [`Op::SaveSpool`], whose captures the spool
/// keeps until a worker or a later hook saves them.
pub fn hand_over_to_worker(paths: &Paths, req: Request) -> Result<bool> {
    let files = WorkerFiles::for_paths(paths)?;
    hand_over(&files, ClientBody::Request { request: req }).map_err(|t| match t {
        Transport::Refused(why) => Error::Other(format!(
            "{why}; nothing was sent. Remove {} if you trust nothing in {}",
            files.socket.display(),
            files.dir.display()
        )),
        Transport::NotSent(why) | Transport::Lost(why) => {
            Error::Other(format!("the worker did not take the request ({why})"))
        }
        Transport::NotRunning { .. } | Transport::Mismatch => {
            Error::Other("the worker did not take the request".into())
        }
    })
}

/// Run `req` where `mode` says. With `wait`, a request that finds no ready worker starts
/// one (or finds it loading) and waits up to `wait.bound` for its ready signal, then asks
/// it; past the bound it does what `wait.past_bound` says.
pub fn execute_with(
    paths: &Paths,
    req: Request,
    mode: Mode,
    timeout: Option<Duration>,
    wait: Option<Wait>,
) -> Result<Answer> {
    match mode {
        Mode::Off => in_process(paths, req, ServedBy::Cold),
        Mode::Inline => in_process(paths, req, ServedBy::Inline),
        Mode::Auto => {
            let files = WorkerFiles::for_paths(paths)?;
            let timeout = timeout.unwrap_or(REPLY_TIMEOUT);
            let body = || ClientBody::Request {
                request: req.clone(),
            };
            let not_ready = match exchange(&files, body(), timeout) {
                Ok(frame) => match answer_of(frame.body, None) {
                    Ok(a) => return Ok(a),
                    Err(Unanswered::Error(e)) => return Err(e),
                    Err(Unanswered::ShuttingDown) => {
                        // It was leaving and ran nothing: start a new one once it is gone.
                        wait_gone(&files, super::server::DRAIN_WAIT);
                        Transport::NotRunning { stale: true }
                    }
                },
                Err(t) => t,
            };
            let ready = match not_ready {
                Transport::NotRunning { stale } => start(paths, &files, stale)?,
                Transport::Mismatch => {
                    wait_gone(&files, lifecycle::MISMATCH_GONE_WAIT);
                    start(paths, &files, true)?
                }
                Transport::NotSent(why) => {
                    eprintln!(
                        "slm: the worker did not take the request ({why}); answering in-process"
                    );
                    return in_process(paths, req, ServedBy::Cold);
                }
                Transport::Lost(why) if req.op.is_write() => {
                    return Err(Error::Other(format!(
                        "the worker stopped before confirming this {} ({why}); it may or may not have been saved, and it was not sent again. `slm list` shows what is stored",
                        req.op.name()
                    )));
                }
                Transport::Lost(why) => {
                    eprintln!(
                        "slm: the worker stopped while answering ({why}); answering in-process this time"
                    );
                    return in_process(paths, req, ServedBy::Cold);
                }
                Transport::Refused(why) => {
                    return Err(Error::Other(format!(
                        "{why}; nothing was sent. Remove {} if you trust nothing in {}",
                        files.socket.display(),
                        files.dir.display()
                    )));
                }
            };
            let Some(wait) = wait else {
                return cold(paths, &files, req);
            };
            let t = Instant::now();
            if ready.wait(wait.bound) {
                let waited = Some(t.elapsed().as_secs_f64() * 1000.0);
                if let Ok(frame) = exchange(&files, body(), timeout) {
                    if let Ok(a) = answer_of(frame.body, waited) {
                        return Ok(a);
                    }
                }
            }
            let waited = Some(t.elapsed().as_secs_f64() * 1000.0);
            match wait.past_bound {
                PastBound::Cold => {
                    let mut a = cold(paths, &files, req)?;
                    a.waited_ms = waited;
                    Ok(a)
                }
                PastBound::Busy => Err(Error::Busy {
                    message: format!(
                        "{} is still loading its model. Ask again in about {} seconds; nothing was lost.",
                        crate::PRODUCT_NAME,
                        load_estimate_ms(&files).div_ceil(1000).max(1)
                    ),
                    retry_after_s: load_estimate_ms(&files).div_ceil(1000).max(1),
                }),
                PastBound::Nothing => Ok(Answer {
                    reply: Reply {
                        command: req.op.name().to_string(),
                        body: serde_json::json!({ "recall": null, "context": null,
                            "skipped": "the worker was still loading its model" }),
                        human: Some(String::new()),
                        exit: 0,
                    },
                    served_by: ServedBy::Cold,
                    waited_ms: waited,
                }),
            }
        }
    }
}

/// A worker's answer, or what went wrong with it.
enum Unanswered {
    Error(Error),
    /// It was leaving and ran nothing.
    ShuttingDown,
}

fn answer_of(body: WorkerBody, waited_ms: Option<f64>) -> std::result::Result<Answer, Unanswered> {
    match body {
        WorkerBody::Reply { reply } => Ok(Answer {
            reply,
            served_by: ServedBy::Worker,
            waited_ms,
        }),
        WorkerBody::Error { error } => Err(Unanswered::Error(Error::Remote(error))),
        WorkerBody::ShuttingDown => Err(Unanswered::ShuttingDown),
        _ => Err(Unanswered::Error(Error::Other(
            "the worker sent an answer of another kind than asked for; ask again (`slm worker restart` if it repeats)".into(),
        ))),
    }
}

/// Answer here without the model while the worker loads; the warming note says how long
/// loading took the last time this data dir's worker measured it.
fn cold(paths: &Paths, files: &WorkerFiles, mut req: Request) -> Result<Answer> {
    if let Op::Recall { req: r } | Op::HookRecall { req: r, .. } = &mut req.op {
        r.warming_estimate_ms = Some(load_estimate_ms(files));
    }
    in_process(paths, req, ServedBy::Cold)
}

/// The worker's own last measured load time (written when it became ready).
pub fn load_estimate_ms(files: &WorkerFiles) -> u64 {
    std::fs::read_to_string(&files.load_time)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(DEFAULT_LOAD_ESTIMATE_MS)
}

/// Answer in this process: cold (for a question, a query encoder that pairs with the stored
/// vectors, loaded alone, when one is installed; no model otherwise) or inline (models loaded).
pub fn in_process(paths: &Paths, mut req: Request, served_by: ServedBy) -> Result<Answer> {
    let question = matches!(req.op, Op::Recall { .. } | Op::HookRecall { .. });
    let model = match served_by {
        ServedBy::Inline => ModelMode::Load,
        // A question is embedded by a query encoder (`embed::query`) and searched among the
        // stored vectors; the memory model stays with the worker.
        _ if question => ModelMode::Query,
        _ => ModelMode::Skip,
    };
    let engine = Arc::new(Engine::open(
        paths.clone(),
        OpenOptions {
            model,
            wait_for_lease: false,
            no_writes: false,
        },
    )?);
    // No encoder that pairs with the stored vectors: never wait for a model to load; keyword
    // search answers, labelled warming.
    if engine.embedder().is_none()
        && let Op::Recall { req: r } | Op::HookRecall { req: r, .. } = &mut req.op
    {
        r.keyword_only = true;
    }
    let reply = service::execute(&engine, &req)?;
    // Inline, nothing works in the background: a picture just saved is read now.
    if served_by == ServedBy::Inline && matches!(req.op, Op::Remember { .. }) {
        let _ = engine.picture_work(usize::MAX);
    }
    Ok(Answer {
        reply,
        served_by,
        waited_ms: None,
    })
}
