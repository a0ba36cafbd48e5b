//! The warm worker: one process per data directory that keeps the engine (store, indexes,
//! embedding model, reranker) loaded and answers requests over a local socket.
//!
//! Start-up: take the start-up lock (so two spawns never race), make sure no live worker
//! already answers (then exit quietly), remove a stale socket, load the engine (the slow
//! part: clients run cold meanwhile), listen, release the lock. Each connection gets a
//! thread that reads one frame, answers it and closes. A frame must arrive whole within
//! [`FRAME_DEADLINE`]; connections still sending theirs are capped per client process
//! ([`MAX_READING_PER_PEER`]) and in all ([`MAX_READING`]), and when they are full the one
//! that stalled longest is closed, so callers that send their frame at once (questions,
//! status) always get in past slow ones. Questions go through
//! [`Questions`] (slots, single flight, reuse); writes clear reused answers. Before each
//! request the engine catches up with writes made by other processes.
//!
//! Background work (the embedding backlog, baselines, index saves) runs in small batches on
//! its own thread and steps aside while a question runs, never for more than
//! [`STEP_ASIDE_MAX`]. After [`DEFAULT_IDLE`] without requests the worker exits.

use super::protocol::{self, ClientBody, ClientFrame, FrameError, WorkerBody};
use super::questions::{self, QuestionStats, Questions};
use super::runtime_dir::WorkerFiles;
use super::wire::{Deadline, close, reply_error, send};
use crate::engine::{Engine, ModelMode, OpenOptions};
use crate::error::{RemoteError, poisoned};
use crate::paths::Paths;
use crate::service::{self, Op, Request};
use crate::{Error, Result};
use interprocess::local_socket::{GenericFilePath, ListenerOptions, Stream, prelude::*};
use serde::{Deserialize, Serialize};
use std::io::BufReader;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

mod background;
pub use background::{
    BACKGROUND_BATCH, BACKGROUND_PAUSE, IDLE_CHECK, PICTURES_PER_ROUND, STEP_ASIDE_MAX,
};
use background::{background, watch_idle};

/// Seconds without a request after which the worker exits: long enough to stay warm across
/// a working session's pauses, short enough not to hold ~300 MB all day.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(900);
pub const IDLE_ENV: &str = "SLM_WORKER_IDLE_S";
/// Set by the client that spawned this worker: its stdout is a pipe waiting for "ready".
pub const READY_PIPE_ENV: &str = "SLM_WORKER_READY_PIPE";
/// Test hook: sleep this many ms before loading, as a slow model load would.
pub const TEST_SLOW_LOAD_ENV: &str = "SLM_TEST_SLOW_LOAD_MS";
/// Test hook: milliseconds the worker pauses after opening the store, before it listens.
pub const TEST_OPENED_PAUSE_ENV: &str = "SLM_TEST_OPENED_PAUSE_MS";
/// Connections served at once; past this a connection is answered busy at once (unless a
/// stalled one can be closed to make room, see [`STALLED_AFTER`]).
pub const MAX_CONNECTIONS: usize = 64;
/// How long a client may take to send its whole frame (not each read: a client sending a
/// byte now and then is cut off here). A client writes its frame in one go right after
/// connecting; the largest (8 MiB) takes milliseconds over a local socket, so 5 s is
/// slack for a loaded machine, not a budget anyone uses.
pub const FRAME_DEADLINE: Duration = Duration::from_secs(5);
/// Connections still sending their frame, at most, from one client process. An slm client
/// has one at a time; MCP and HTTP fronts a few; past this that process is answered busy.
pub const MAX_READING_PER_PEER: usize = 8;
/// Connections still sending their frame, at most, from everyone: half the connections,
/// so the other half is always there for frames that have arrived (questions, status).
pub const MAX_READING: usize = MAX_CONNECTIONS / 2;
/// A connection still without its whole frame after this long has stalled (a client sends
/// its frame within a millisecond of connecting): when the readers are full, the one that
/// stalled longest is closed to let a new caller in. This is the reserved path: a caller
/// that sends its question or status ping at once is never kept out by callers that do not.
pub const STALLED_AFTER: Duration = Duration::from_millis(250);

/// How long a second worker waits for the start-up lock of one already loading before it
/// gives up (the same minute `slm worker start` waits for readiness, `client::READY_WAIT`).
pub const STARTUP_LOCK_WAIT: Duration = Duration::from_secs(60);
/// A stopping worker lets the requests it is answering finish for at most this long: above
/// a question's own bounds (a slot wait of 12 s, producers of 3 s, the answer check's
/// budget) with room to spare. Chosen, not measured.
pub const DRAIN_WAIT: Duration = Duration::from_secs(30);
/// How often a stopping worker looks whether its requests have finished. Chosen, not
/// measured: short next to any request, cheap (one atomic load).
pub const DRAIN_POLL: Duration = Duration::from_millis(20);
/// What `slm worker status` shows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Status {
    pub pid: u32,
    pub version: String,
    pub protocol: u32,
    pub data_dir: String,
    pub socket: String,
    pub uptime_s: f64,
    pub idle_s: f64,
    pub idle_timeout_s: u64,
    pub model_loaded: bool,
    pub pending_embeddings: i64,
    /// Memories whose passages (`text::passages`) the background work has still to embed.
    #[serde(default)]
    pub pending_passages: i64,
    pub memories: i64,
    pub connections: usize,
    pub questions: QuestionStats,
}

/// A connection that has not sent its whole frame yet.
struct Reader {
    id: u64,
    pid: Option<i32>,
    since: Instant,
    /// A second handle on the socket, to close it from the accept loop.
    conn: Stream,
}

struct Worker {
    engine: Arc<Engine>,
    readers: std::sync::Mutex<Vec<Reader>>,
    next_reader: AtomicU64,
    questions: Questions,
    files: WorkerFiles,
    started: Instant,
    last_activity_ms: AtomicU64,
    connections: AtomicUsize,
    idle: Duration,
    stopping: AtomicBool,
    /// Requests being answered (a shutdown waits for them).
    active: AtomicUsize,
    /// A background round is running (the idle watch waits for it to end).
    background_busy: AtomicBool,
    /// Wakes the thread that saves the capture spool (`service::spool::keep_saving`).
    spool_wake: crossbeam_channel::Sender<()>,
}

/// Decrements a counter when dropped, so a panicking thread cannot leak its count.
struct Count<'a>(&'a AtomicUsize);
impl Drop for Count<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Worker {
    /// Let a new connection in as a reader (it has not sent its frame yet), or say why not.
    /// When the readers are full, the one that stalled longest is closed to make room.
    fn admit(&self, conn: &Stream) -> Result<u64> {
        use interprocess::local_socket::traits::StreamCommon;
        let pid = conn.peer_creds().ok().and_then(|c| c.pid());
        let busy = |why: &str| Error::Busy {
            message: format!(
                "{} is answering too many callers right now ({why}). Ask again in about 2 seconds; nothing was lost.",
                crate::PRODUCT_NAME
            ),
            retry_after_s: 2,
        };
        let mut readers = self.readers.lock().map_err(poisoned("the readers lock"))?;
        if pid.is_some() && readers.iter().filter(|r| r.pid == pid).count() >= MAX_READING_PER_PEER
        {
            return Err(busy("too many unfinished requests from one process"));
        }
        let full = readers.len() >= MAX_READING
            || self.connections.load(Ordering::SeqCst) >= MAX_CONNECTIONS;
        if full {
            let stalled = readers
                .iter()
                .enumerate()
                .filter(|(_, r)| r.since.elapsed() >= STALLED_AFTER)
                .min_by_key(|(_, r)| r.since)
                .map(|(i, _)| i);
            match stalled {
                Some(i) => {
                    let r = readers.swap_remove(i);
                    close(&r.conn);
                }
                None => return Err(busy("every connection is in use")),
            }
        }
        use interprocess::TryClone;
        let copy = conn
            .try_clone()
            .map_err(|e| Error::io("keeping a handle on a worker connection", e))?;
        let id = self.next_reader.fetch_add(1, Ordering::SeqCst);
        readers.push(Reader {
            id,
            pid,
            since: Instant::now(),
            conn: copy,
        });
        Ok(id)
    }

    /// The connection has sent its frame (or given up): it no longer counts as a reader.
    fn done_reading(&self, id: u64) {
        if let Ok(mut r) = self.readers.lock() {
            r.retain(|x| x.id != id);
        }
    }

    fn touch(&self) {
        self.last_activity_ms
            .store(self.started.elapsed().as_millis() as u64, Ordering::SeqCst);
    }

    fn idle_for(&self) -> Duration {
        let last = Duration::from_millis(self.last_activity_ms.load(Ordering::SeqCst));
        self.started.elapsed().saturating_sub(last)
    }

    fn status(&self) -> Status {
        Status {
            pid: std::process::id(),
            version: protocol::version(),
            protocol: protocol::PROTOCOL,
            data_dir: self.engine.paths.data.display().to_string(),
            socket: self.files.socket.display().to_string(),
            uptime_s: self.started.elapsed().as_secs_f64(),
            idle_s: self.idle_for().as_secs_f64(),
            idle_timeout_s: self.idle.as_secs(),
            model_loaded: self.engine.embedder().is_some(),
            pending_embeddings: self.engine.pending_embeddings().unwrap_or(-1),
            pending_passages: self.engine.pending_passages().unwrap_or(-1),
            memories: self.engine.count().unwrap_or(-1),
            connections: self.connections.load(Ordering::SeqCst),
            questions: self.questions.stats(),
        }
    }
}

/// `slm worker run`: serve until idle, stopped or killed.
pub fn run(paths: Paths) -> Result<()> {
    let files = WorkerFiles::for_paths(&paths)?;
    let startup = crate::lock::WriteLock::acquire(&files.startup_lock, STARTUP_LOCK_WAIT)
        .map_err(|_| Error::Other("another worker has been starting for a minute".into()))?;
    if Stream::connect(name(&files)?).is_ok() {
        eprintln!(
            "slm worker: another worker already answers on {}",
            files.socket.display()
        );
        return Ok(());
    }
    let _ = std::fs::remove_file(&files.socket);
    let t = Instant::now();
    if let Some(ms) = env_num(TEST_SLOW_LOAD_ENV) {
        std::thread::sleep(Duration::from_millis(ms));
    }
    let engine = Arc::new(Engine::open(
        paths,
        OpenOptions {
            model: ModelMode::Load,
            wait_for_lease: true,
            no_writes: false,
        },
    )?);
    if let Some(ms) = env_num(TEST_OPENED_PAUSE_ENV) {
        // The store is open and the worker not listening yet: a restore now must wait for
        // it (the start-up lock) and then stop it.
        std::thread::sleep(Duration::from_millis(ms));
    }
    let settings = &engine.settings.worker;
    let slots = env_num(questions::SLOTS_ENV)
        .map(|n| n as usize)
        .or(settings.recall_slots)
        .unwrap_or_else(questions::default_slots);
    let slot_wait = env_num(questions::SLOT_WAIT_ENV)
        .map(Duration::from_millis)
        .unwrap_or(questions::SLOT_WAIT);
    let idle = env_num(IDLE_ENV)
        .map(Duration::from_secs)
        .or(settings.idle_timeout_s.map(Duration::from_secs))
        .unwrap_or(DEFAULT_IDLE);
    let listener = ListenerOptions::new()
        .name(name(&files)?)
        .create_sync()
        .map_err(|e| Error::io(format!("listening on {}", files.socket.display()), e))?;
    drop(startup);
    let load_ms = t.elapsed().as_millis() as u64;
    let _ = crate::paths::write_atomic(&files.load_time, load_ms.to_string().as_bytes());
    signal_ready(load_ms);
    eprintln!(
        "slm worker {} (pid {}) ready on {} in {:.0} ms; model {}; {slots} question slots; idle exit after {} s",
        protocol::version(),
        std::process::id(),
        files.socket.display(),
        t.elapsed().as_secs_f64() * 1000.0,
        if engine.embedder().is_some() {
            "loaded"
        } else {
            "missing (keyword-only)"
        },
        idle.as_secs()
    );
    let (spool_wake, spool_woken) = crossbeam_channel::bounded(1);
    let w = Arc::new(Worker {
        engine,
        readers: std::sync::Mutex::new(Vec::new()),
        next_reader: AtomicU64::new(0),
        questions: Questions::new(slots, slot_wait),
        files,
        started: Instant::now(),
        last_activity_ms: AtomicU64::new(0),
        connections: AtomicUsize::new(0),
        idle,
        stopping: AtomicBool::new(false),
        active: AtomicUsize::new(0),
        background_busy: AtomicBool::new(false),
        spool_wake,
    });
    {
        let w = w.clone();
        std::thread::spawn(move || background(&w));
    }
    {
        let w = w.clone();
        std::thread::spawn(move || {
            service::spool::keep_saving(
                &w.engine,
                &spool_woken,
                || w.stopping.load(Ordering::SeqCst) || w.engine.store_replaced(),
                || w.questions.invalidate(),
            )
        });
    }
    {
        let w = w.clone();
        std::thread::spawn(move || watch_idle(&w));
    }
    for conn in listener.incoming() {
        let conn = match conn {
            Ok(c) => c,
            Err(e) => {
                eprintln!("slm worker: accepting a connection failed: {e}");
                continue;
            }
        };
        let reader = match w.admit(&conn) {
            Ok(id) => id,
            Err(e) => {
                let _ = reply_error(&conn, &e);
                continue;
            }
        };
        w.connections.fetch_add(1, Ordering::SeqCst);
        let w = w.clone();
        std::thread::spawn(move || {
            let _counted = Count(&w.connections);
            serve(&w, conn, reader);
        });
    }
    Ok(())
}

/// Tell the client that spawned us that we listen: one line on the pipe that is our stdout,
/// then point stdout at the log (stderr) so nothing else ever writes into that pipe.
fn signal_ready(load_ms: u64) {
    if std::env::var_os(READY_PIPE_ENV).is_none() {
        return;
    }
    use std::io::Write;
    let mut out = std::io::stdout();
    let _ = writeln!(out, "ready {load_ms}");
    let _ = out.flush();
    // SAFETY: dup2 on the process's own standard descriptors; stdout was just flushed.
    unsafe {
        libc::dup2(2, 1);
    }
}

fn env_num(key: &str) -> Option<u64> {
    std::env::var(key).ok()?.trim().parse().ok()
}

pub(crate) fn name(files: &WorkerFiles) -> Result<interprocess::local_socket::Name<'_>> {
    files
        .socket
        .as_path()
        .to_fs_name::<GenericFilePath>()
        .map_err(|e| Error::io(format!("naming the socket {}", files.socket.display()), e))
}

/// One connection: one frame in, one frame out.
fn serve(w: &Arc<Worker>, conn: Stream, reader: u64) {
    if let Err(e) = super::runtime_dir::check_peer(&conn) {
        // Another user reached the socket: answer nothing, read nothing.
        w.done_reading(reader);
        eprintln!("slm worker: {e}");
        return;
    }
    let frame = protocol::read_frame(&mut BufReader::new(Deadline {
        conn: &conn,
        until: Instant::now() + FRAME_DEADLINE,
    }));
    w.done_reading(reader);
    let frame: ClientFrame = match frame {
        Ok(f) => f,
        Err(FrameError::Closed) => return,
        Err(e) => {
            let _ = reply_error(
                &conn,
                &Error::Input(format!("the worker could not read the request: {e}")),
            );
            return;
        }
    };
    if frame.protocol != protocol::PROTOCOL || frame.version != protocol::version() {
        // Never run a request from another version; let the client start the right worker.
        let _ = send(&conn, WorkerBody::VersionMismatch);
        eprintln!(
            "slm worker: a client of version {} (protocol {}) asked; this is {} (protocol {}); exiting so it can start its own",
            frame.version,
            frame.protocol,
            protocol::version(),
            protocol::PROTOCOL
        );
        shutdown(w);
        return;
    }
    match frame.body {
        ClientBody::Ping => {
            let _ = send(&conn, WorkerBody::Status { status: w.status() });
        }
        ClientBody::Shutdown => {
            let _ = send(&conn, WorkerBody::ShuttingDown);
            shutdown(w);
        }
        ClientBody::Request { request } => {
            // Counted before the check, so a shutdown that starts now waits for this one.
            w.active.fetch_add(1, Ordering::SeqCst);
            let _active = Count(&w.active);
            if w.stopping.load(Ordering::SeqCst) {
                // Nothing was run: the client answers in-process and starts a new worker.
                let _ = send(&conn, WorkerBody::ShuttingDown);
                return;
            }
            if w.engine.store_replaced() {
                // A restore put another store in place: answer nothing from the old one.
                // The client starts a new worker, which opens the restored store.
                left_for_restore(w);
                let _ = send(&conn, WorkerBody::ShuttingDown);
                return;
            }
            // Only requests keep the worker warm; a status ping does not.
            w.touch();
            let result =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle(w, request)))
                    .unwrap_or_else(|_| {
                        Err(Error::Other(
                            "the worker failed on this request (a bug); see its log".into(),
                        ))
                    });
            w.touch();
            let body = match result {
                // Swapped between the check above and the write: nothing was written
                // (the lease's fence), so the client may ask a new worker.
                Err(Error::StoreReplaced) => {
                    left_for_restore(w);
                    WorkerBody::ShuttingDown
                }
                Ok(reply) => WorkerBody::Reply { reply },
                Err(e) => WorkerBody::Error {
                    error: RemoteError::from(&e),
                },
            };
            let _ = send(&conn, body);
        }
    }
}

fn handle(w: &Arc<Worker>, request: Request) -> Result<crate::service::Reply> {
    // A capture hook waits for nothing: its capture is durable in the spool, and the spool
    // thread saves it (a wake already pending covers this one too).
    if let Op::SaveSpool = request.op {
        let _ = w.spool_wake.try_send(());
        return Ok(crate::service::Reply::new(
            &request.op,
            serde_json::json!({ "queued": true }),
            None,
        ));
    }
    if let Err(e) = w.engine.catch_up() {
        eprintln!("slm worker: catching up with other writers failed: {e}");
    }
    let engine = &w.engine;
    match &request.op {
        op if op.is_write() => {
            let r = service::execute(engine, &request);
            w.questions.invalidate();
            r
        }
        Op::Recall { req } if req.budget_s.is_none() => {
            let key = question_key(engine, &request);
            w.questions.ask(
                key,
                || engine.seen_generation(),
                || service::execute(engine, &request),
            )
        }
        Op::SessionContext { .. } => {
            let key = question_key(engine, &request);
            w.questions.ask(
                key,
                || engine.seen_generation(),
                || service::execute(engine, &request),
            )
        }
        // Budgeted recalls (hooks, --budget-s) bound their own time and never queue.
        _ => service::execute(engine, &request),
    }
}

/// The identity of a question: the resolved request without its clock, and the answer
/// check's settings as they are now (an answer judged before `slm answer-check off`, or
/// refused before consent, is not reused after it).
fn question_key(engine: &Engine, request: &Request) -> String {
    let mut r = request.clone();
    if let Op::Recall { req } = &mut r.op {
        req.now_ms = 0;
    }
    format!(
        "{}\u{1f}{}",
        crate::recall::answer_check::fingerprint(engine),
        serde_json::to_string(&r).unwrap_or_default()
    )
}

/// Leave because the store was restored under this worker (see `engine/fence.rs`).
fn left_for_restore(w: &Arc<Worker>) {
    if !w.stopping.load(Ordering::SeqCst) {
        eprintln!(
            "slm worker (pid {}): the store was replaced by a restore; leaving so a new worker opens it",
            std::process::id()
        );
    }
    shutdown(w);
}

fn shutdown(w: &Arc<Worker>) {
    if w.stopping.swap(true, Ordering::SeqCst) {
        return;
    }
    let w = w.clone();
    std::thread::spawn(move || {
        // New requests are refused from now on; let the ones being answered finish
        // (bounded), then leave.
        let t = Instant::now();
        while w.active.load(Ordering::SeqCst) > 0 && t.elapsed() < DRAIN_WAIT {
            std::thread::sleep(DRAIN_POLL);
        }
        let _ = std::fs::remove_file(&w.files.socket);
        eprintln!("slm worker (pid {}) stopped", std::process::id());
        std::process::exit(0);
    });
}
