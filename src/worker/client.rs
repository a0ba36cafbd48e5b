//! The client side: send a resolved request to the warm worker, start one on demand, and
//! answer in-process (cold) while it starts.
//!
//! Fall back only on transport errors, and never send a write twice: when the connection to
//! the worker breaks after a write was sent, the caller is told the write may or may not have
//! been saved, and nothing is replayed. A read that lost its worker is answered in-process
//! and says so. A worker of another version is asked to leave and a new one is started.

use super::protocol::{self, ClientBody, ClientFrame, WorkerBody, WorkerFrame};
use super::runtime_dir::WorkerFiles;
use super::server::Status;
use crate::engine::{Engine, ModelMode, OpenOptions};
use crate::lock::WriteLock;
use crate::paths::{self, Paths};
use crate::service::{self, Op, Reply, Request};
use crate::{Error, Result};
use interprocess::local_socket::{Stream, prelude::*};
use serde::Serialize;
use std::io::BufReader;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const WORKER_ENV: &str = "SLM_WORKER";
/// How long a reply may take before the client gives up: a question may wait 12 s for a
/// slot and run under the producers' 3 s guards; two minutes means the worker is stuck.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(120);
/// The worker log is rotated when a worker starts and it is larger than this (a worker
/// writes a few lines per start and per background batch; 1 MiB is months of that).
pub const LOG_ROTATE_BYTES: u64 = 1 << 20;
/// `slm worker start` waits this long for the worker to load its model and listen.
pub const READY_WAIT: Duration = Duration::from_secs(60);
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
                Some(b) => configured().min(Duration::from_secs_f64(b / 2.0)),
                None => configured(),
            },
            past_bound: PastBound::Cold,
        }),
        Op::Expand { .. } | Op::SessionContext { .. } => Some(Wait {
            bound: configured(),
            past_bound: PastBound::Cold,
        }),
        Op::HookRecall { req, .. } => Some(Wait {
            bound: Duration::from_secs_f64(req.budget_s.unwrap_or(1.0)),
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

/// A transport failure (never an answer from the worker).
#[derive(Debug)]
enum Transport {
    /// No socket, or nobody listening on it (stale).
    NotRunning { stale: bool },
    /// The request could not be handed over: the worker did not get it.
    NotSent(String),
    /// The worker is another version; it ran nothing and is leaving.
    Mismatch,
    /// The request was sent, then the connection broke or timed out: it may have run.
    Lost(String),
    /// Something that is not our worker listens on the socket: nothing was sent to it.
    Refused(String),
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
                        // It was leaving and ran nothing: start a new one.
                        wait_gone(&files, Duration::from_secs(30));
                        Transport::NotRunning { stale: true }
                    }
                },
                Err(t) => t,
            };
            let ready = match not_ready {
                Transport::NotRunning { stale } => start(paths, &files, stale)?,
                Transport::Mismatch => {
                    wait_gone(&files, Duration::from_secs(10));
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
        other => Err(Unanswered::Error(Error::Other(format!(
            "the worker answered out of turn: {other:?}"
        )))),
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

/// Answer in this process: cold (no model, keyword-only recall) or inline (model loaded).
pub fn in_process(paths: &Paths, mut req: Request, served_by: ServedBy) -> Result<Answer> {
    let model = match served_by {
        ServedBy::Inline => ModelMode::Load,
        _ => ModelMode::Skip,
    };
    if model == ModelMode::Skip {
        if let Op::Recall { req: r } | Op::HookRecall { req: r, .. } = &mut req.op {
            // Never wait for a model to load: keyword search answers, labelled warming.
            r.keyword_only = true;
        }
    }
    let engine = Arc::new(Engine::open(
        paths.clone(),
        OpenOptions {
            model,
            wait_for_lease: false,
            no_writes: false,
        },
    )?);
    let reply = service::execute(&engine, &req)?;
    Ok(Answer {
        reply,
        served_by,
        waited_ms: None,
    })
}

fn exchange(
    files: &WorkerFiles,
    body: ClientBody,
    timeout: Duration,
) -> std::result::Result<WorkerFrame, Transport> {
    let conn = match Stream::connect(
        super::server::name(files).map_err(|e| Transport::NotSent(e.to_string()))?,
    ) {
        Ok(c) => c,
        Err(e) => {
            return Err(Transport::NotRunning {
                stale: e.kind() == std::io::ErrorKind::ConnectionRefused,
            });
        }
    };
    // Before a byte of the request leaves: is the listener us?
    if let Err(e) = super::runtime_dir::check_peer(&conn) {
        return Err(Transport::Refused(e.to_string()));
    }
    let _ = conn.set_send_timeout(Some(Duration::from_secs(10)));
    let _ = conn.set_recv_timeout(Some(timeout));
    let frame = ClientFrame {
        protocol: protocol::PROTOCOL,
        version: protocol::version(),
        body,
    };
    {
        let mut w = &conn;
        // A frame that did not get out whole is never run (the worker needs its newline).
        protocol::write_frame(&mut w, &frame).map_err(|e| Transport::NotSent(e.to_string()))?;
    }
    let reply: WorkerFrame = protocol::read_frame(&mut BufReader::new(&conn))
        .map_err(|e| Transport::Lost(e.to_string()))?;
    if reply.protocol != protocol::PROTOCOL
        || reply.version != protocol::version()
        || matches!(reply.body, WorkerBody::VersionMismatch)
    {
        return Err(Transport::Mismatch);
    }
    Ok(reply)
}

/// How to learn that a starting worker is ready: a real signal, never a polling loop.
pub enum Ready {
    /// We spawned it: it writes one line on the pipe that is its stdout when it listens
    /// (and the pipe closes if it dies first).
    Spawned(std::io::PipeReader),
    /// Another process spawned it and it is loading: it holds the start-up lock until it
    /// listens, so taking that lock (blocking) is the signal.
    Loading(std::path::PathBuf),
}

impl Ready {
    /// Wait up to `bound` for the signal. True when the worker said it is ready.
    pub fn wait(self, bound: Duration) -> bool {
        let (tx, rx) = crossbeam_channel::bounded(1);
        std::thread::spawn(move || {
            let ok = match self {
                Ready::Spawned(pipe) => {
                    use std::io::BufRead;
                    let mut line = String::new();
                    std::io::BufReader::new(pipe)
                        .read_line(&mut line)
                        .is_ok_and(|_| line.starts_with("ready"))
                }
                Ready::Loading(lock) => std::fs::OpenOptions::new()
                    .write(true)
                    .open(&lock)
                    .and_then(|f| f.lock())
                    .is_ok(),
            };
            let _ = tx.send(ok);
        });
        rx.recv_timeout(bound).unwrap_or(false)
    }
}

/// Start a worker unless one is starting already. `stale`: a socket file is there but
/// nobody listens (a crashed worker); it is removed under the start-up lock.
fn start(paths: &Paths, files: &WorkerFiles, stale: bool) -> Result<Ready> {
    match WriteLock::try_acquire(&files.startup_lock)? {
        // A worker is loading right now (it holds the lock until it listens).
        None => Ok(Ready::Loading(files.startup_lock.clone())),
        Some(lock) => {
            if stale && Stream::connect(super::server::name(files)?).is_err() {
                let _ = std::fs::remove_file(&files.socket);
            }
            drop(lock);
            spawn(paths, files).map(Ready::Spawned)
        }
    }
}

/// Start `slm worker run` detached, its output appended to the log in the data dir and its
/// stdout a pipe on which it says when it is ready.
fn spawn(paths: &Paths, files: &WorkerFiles) -> Result<std::io::PipeReader> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe().map_err(|e| Error::io("finding the slm binary", e))?;
    std::fs::create_dir_all(&paths.data)
        .map_err(|e| Error::io(format!("creating {}", paths.data.display()), e))?;
    // A data dir that takes no writes (read-only) still gets a worker; its log goes
    // nowhere, and nothing is created there (root could, whatever the mode says).
    let writable = crate::store::no_writes(&paths.data).is_none();
    // One old generation is kept: the log never grows past about twice this.
    if writable && std::fs::metadata(&files.log).is_ok_and(|m| m.len() > LOG_ROTATE_BYTES) {
        let _ = std::fs::rename(&files.log, files.log.with_extension("log.1"));
    }
    let log: std::process::Stdio = match writable
        .then(|| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&files.log)
        })
        .and_then(|r| r.ok())
    {
        Some(f) => f.into(),
        None => std::process::Stdio::null(),
    };
    let (ready_rx, ready_tx) =
        std::io::pipe().map_err(|e| Error::io("making the worker's ready pipe", e))?;
    let mut child = std::process::Command::new(exe)
        .args(["worker", "run"])
        .env(paths::HOME_ENV, &paths.data)
        .env(paths::CACHE_ENV, &paths.cache)
        .env(super::runtime_dir::RUNTIME_ENV, &files.dir)
        .env(super::server::READY_PIPE_ENV, "1")
        .env_remove(WORKER_ENV)
        .stdin(std::process::Stdio::null())
        .stdout(ready_tx)
        .stderr(log)
        // Its own process group: a Ctrl-C at the terminal that started it does not stop it.
        .process_group(0)
        .spawn()
        .map_err(|e| Error::io("starting the slm worker", e))?;
    // Reap it if it exits while this process still runs (a long-lived MCP front).
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(ready_rx)
}

fn wait_gone(files: &WorkerFiles, wait: Duration) {
    let t = Instant::now();
    while t.elapsed() < wait {
        if Stream::connect(super::server::name(files).expect("named before")).is_err() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The running worker's status, or None.
pub fn status(paths: &Paths) -> Result<Option<Status>> {
    let files = WorkerFiles::for_paths(paths)?;
    match exchange(&files, ClientBody::Ping, Duration::from_secs(5)) {
        Ok(WorkerFrame {
            body: WorkerBody::Status { status },
            ..
        }) => Ok(Some(status)),
        // It runs but could not answer (busy): say that, not "not running".
        Ok(WorkerFrame {
            body: WorkerBody::Error { error },
            ..
        }) => Err(Error::Remote(error)),
        Ok(_) => Err(Error::Other(
            "the worker answered a ping out of turn".into(),
        )),
        Err(Transport::Mismatch) => Ok(None),
        Err(_) => Ok(None),
    }
}

/// `slm worker start`: start one (unless running) and wait until it answers.
pub fn start_and_wait(paths: &Paths) -> Result<Status> {
    let files = WorkerFiles::for_paths(paths)?;
    if let Some(s) = status(paths)? {
        return Ok(s);
    }
    let stale = files.socket.exists();
    if let Err(Transport::Mismatch) = exchange(&files, ClientBody::Ping, Duration::from_secs(5)) {
        wait_gone(&files, Duration::from_secs(10));
    }
    let ready = start(paths, &files, stale)?;
    if ready.wait(READY_WAIT) {
        if let Some(s) = status(paths)? {
            return Ok(s);
        }
    }
    Err(Error::Other(format!(
        "the worker did not answer within {} s; see {}",
        READY_WAIT.as_secs(),
        files.log.display()
    )))
}

/// `slm worker stop`: ask it to leave and wait until it is gone. Returns the pid stopped.
pub fn stop(paths: &Paths) -> Result<Option<u32>> {
    let files = WorkerFiles::for_paths(paths)?;
    match exchange(&files, ClientBody::Shutdown, Duration::from_secs(5)) {
        Ok(f) => {
            wait_gone(&files, Duration::from_secs(15));
            Ok(Some(f.pid))
        }
        Err(Transport::Mismatch) => {
            wait_gone(&files, Duration::from_secs(15));
            Ok(None)
        }
        Err(_) => Ok(None),
    }
}

/// Whether a path is a socket file someone left behind (for `doctor`).
pub fn socket_path(paths: &Paths) -> Result<std::path::PathBuf> {
    Ok(WorkerFiles::for_paths(paths)?.socket)
}

/// Where a command that sends many requests in a row (an import, an export) runs them: the
/// warm worker when one answers, else one engine opened here for all of them (not one per
/// request). Both run `service::execute`, so the lines are the same either way. Nothing is
/// started: a bulk command does not need a model loaded for later questions.
pub struct Target {
    paths: Paths,
    model: ModelMode,
    worker: std::sync::Mutex<Option<WorkerFiles>>,
    local: std::sync::OnceLock<Arc<Engine>>,
    served_by: std::sync::Mutex<ServedBy>,
}

impl Target {
    /// Find the worker (mode auto) or prepare to answer here. `model`: whether an engine
    /// opened here loads the model (an import embeds as it goes; an export needs none).
    pub fn connect(paths: &Paths, mode: Mode, model: ModelMode) -> Result<Target> {
        let worker = match mode {
            Mode::Auto => {
                let files = WorkerFiles::for_paths(paths)?;
                match exchange(&files, ClientBody::Ping, Duration::from_secs(5)) {
                    Ok(WorkerFrame {
                        body: WorkerBody::Status { .. },
                        ..
                    }) => Some(files),
                    _ => None,
                }
            }
            Mode::Off | Mode::Inline => None,
        };
        let (model, served) = match (mode, &worker) {
            (_, Some(_)) => (model, ServedBy::Worker),
            (Mode::Off, None) => (ModelMode::Skip, ServedBy::Cold),
            (_, None) if model == ModelMode::Load => (model, ServedBy::Inline),
            (_, None) => (model, ServedBy::Cold),
        };
        Ok(Target {
            paths: paths.clone(),
            model,
            worker: std::sync::Mutex::new(worker),
            local: std::sync::OnceLock::new(),
            served_by: std::sync::Mutex::new(served),
        })
    }

    pub fn served_by(&self) -> ServedBy {
        self.served_by.lock().map(|s| *s).unwrap_or(ServedBy::Cold)
    }

    /// Why an engine opened here has no embedding model (None: it has one, or none was opened).
    pub fn model_missing(&self) -> Option<String> {
        let e = self.local.get()?;
        if self.model == ModelMode::Skip {
            return None;
        }
        e.model_status().map(|s| s.detail.clone())
    }

    fn engine(&self) -> Result<Arc<Engine>> {
        if let Some(e) = self.local.get() {
            return Ok(e.clone());
        }
        let e = Arc::new(Engine::open(
            self.paths.clone(),
            OpenOptions {
                model: self.model,
                wait_for_lease: false,
                no_writes: false,
            },
        )?);
        Ok(self.local.get_or_init(|| e).clone())
    }

    /// Run one request. A worker that went away before taking it (nothing ran) hands over
    /// to an engine here; one that went away after a write was sent is reported, and the
    /// write is not sent again.
    pub fn run(&self, req: Request) -> Result<Reply> {
        let files = self.worker.lock().ok().and_then(|w| w.clone());
        if let Some(files) = files {
            let sent = exchange(
                &files,
                ClientBody::Request {
                    request: req.clone(),
                },
                REPLY_TIMEOUT,
            );
            match sent {
                Ok(frame) => match answer_of(frame.body, None) {
                    Ok(a) => return Ok(a.reply),
                    Err(Unanswered::Error(e)) => return Err(e),
                    Err(Unanswered::ShuttingDown) => {}
                },
                Err(Transport::Lost(why)) => {
                    return Err(Error::Other(format!(
                        "the worker stopped before confirming this {} ({why}); it may or may not have been saved, and it was not sent again. Run the command again: what was saved is recognised by its key",
                        req.op.name()
                    )));
                }
                Err(Transport::Refused(why)) => return Err(Error::Other(why)),
                Err(_) => {}
            }
            // It ran nothing (gone, leaving, another version): carry on here.
            if let Ok(mut w) = self.worker.lock() {
                *w = None;
            }
            if let Ok(mut s) = self.served_by.lock() {
                *s = if self.model == ModelMode::Load {
                    ServedBy::Inline
                } else {
                    ServedBy::Cold
                };
            }
        }
        service::execute(&self.engine()?, &req)
    }
}
