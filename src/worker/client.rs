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

/// Run `req` where `mode` says.
pub fn execute(
    paths: &Paths,
    req: Request,
    mode: Mode,
    timeout: Option<Duration>,
) -> Result<Answer> {
    match mode {
        Mode::Off => in_process(paths, req, ServedBy::Cold),
        Mode::Inline => in_process(paths, req, ServedBy::Inline),
        Mode::Auto => {
            let files = WorkerFiles::for_paths(paths)?;
            let body = ClientBody::Request {
                request: req.clone(),
            };
            match exchange(&files, body, timeout.unwrap_or(REPLY_TIMEOUT)) {
                Ok(frame) => match frame.body {
                    WorkerBody::Reply { reply } => Ok(Answer {
                        reply,
                        served_by: ServedBy::Worker,
                    }),
                    WorkerBody::Error { error } => Err(Error::Remote(error)),
                    WorkerBody::ShuttingDown => {
                        // It was leaving and ran nothing: answer here, start a new one.
                        wait_gone(&files, Duration::from_secs(30));
                        start(paths, &files, true)?;
                        in_process(paths, req, ServedBy::Cold)
                    }
                    other => Err(Error::Other(format!(
                        "the worker answered out of turn: {other:?}"
                    ))),
                },
                Err(Transport::NotRunning { stale }) => {
                    start(paths, &files, stale)?;
                    in_process(paths, req, ServedBy::Cold)
                }
                Err(Transport::NotSent(why)) => {
                    eprintln!(
                        "slm: the worker did not take the request ({why}); answering in-process"
                    );
                    in_process(paths, req, ServedBy::Cold)
                }
                Err(Transport::Mismatch) => {
                    wait_gone(&files, Duration::from_secs(10));
                    start(paths, &files, true)?;
                    in_process(paths, req, ServedBy::Cold)
                }
                Err(Transport::Refused(why)) => Err(Error::Other(format!(
                    "{why}; nothing was sent. Remove {} if you trust nothing in {}",
                    files.socket.display(),
                    files.dir.display()
                ))),
                Err(Transport::Lost(why)) if req.op.is_write() => Err(Error::Other(format!(
                    "the worker stopped before confirming this {} ({why}); it may or may not have been saved, and it was not sent again. `slm list` shows what is stored",
                    req.op.name()
                ))),
                Err(Transport::Lost(why)) => {
                    eprintln!(
                        "slm: the worker stopped while answering ({why}); answering in-process this time"
                    );
                    in_process(paths, req, ServedBy::Cold)
                }
            }
        }
    }
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
        },
    )?);
    let reply = service::execute(&engine, &req)?;
    Ok(Answer { reply, served_by })
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

/// Start a worker unless one is starting already. `stale`: a socket file is there but
/// nobody listens (a crashed worker); it is removed under the start-up lock.
fn start(paths: &Paths, files: &WorkerFiles, stale: bool) -> Result<bool> {
    match WriteLock::try_acquire(&files.startup_lock)? {
        // A worker is loading right now (it holds the lock until it listens).
        None => return Ok(false),
        Some(lock) => {
            if stale && Stream::connect(super::server::name(files)?).is_err() {
                let _ = std::fs::remove_file(&files.socket);
            }
            drop(lock);
        }
    }
    spawn(paths, files)?;
    Ok(true)
}

/// Start `slm worker run` detached, its output appended to the log in the data dir.
fn spawn(paths: &Paths, files: &WorkerFiles) -> Result<()> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe().map_err(|e| Error::io("finding the slm binary", e))?;
    std::fs::create_dir_all(&paths.data)
        .map_err(|e| Error::io(format!("creating {}", paths.data.display()), e))?;
    // One old generation is kept: the log never grows past about twice this.
    if std::fs::metadata(&files.log).is_ok_and(|m| m.len() > LOG_ROTATE_BYTES) {
        let _ = std::fs::rename(&files.log, files.log.with_extension("log.1"));
    }
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&files.log)
        .map_err(|e| Error::io(format!("opening {}", files.log.display()), e))?;
    let log2 = log
        .try_clone()
        .map_err(|e| Error::io("opening the worker log", e))?;
    let mut child = std::process::Command::new(exe)
        .args(["worker", "run"])
        .env(paths::HOME_ENV, &paths.data)
        .env(paths::CACHE_ENV, &paths.cache)
        .env(super::runtime_dir::RUNTIME_ENV, &files.dir)
        .env_remove(WORKER_ENV)
        .stdin(std::process::Stdio::null())
        .stdout(log)
        .stderr(log2)
        // Its own process group: a Ctrl-C at the terminal that started it does not stop it.
        .process_group(0)
        .spawn()
        .map_err(|e| Error::io("starting the slm worker", e))?;
    // Reap it if it exits while this process still runs (a long-lived MCP front).
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(())
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
    start(paths, &files, stale)?;
    let t = Instant::now();
    while t.elapsed() < READY_WAIT {
        if let Some(s) = status(paths)? {
            return Ok(s);
        }
        std::thread::sleep(Duration::from_millis(50));
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
