//! A worker's life seen from the client: start one (detached, with a ready signal), wait
//! for it to be gone, ask its status, stop it.

use super::WORKER_ENV;
use super::transport::{Transport, exchange};
use crate::lock::WriteLock;
use crate::paths::{self, Paths};
use crate::worker::protocol::{ClientBody, WorkerBody, WorkerFrame};
use crate::worker::runtime_dir::WorkerFiles;
use crate::worker::server::Status;
use crate::{Error, Result};
use interprocess::local_socket::{Stream, prelude::*};
use std::time::{Duration, Instant};

/// The worker log is rotated when a worker starts and it is larger than this (a worker
/// writes a few lines per start and per background batch; 1 MiB is months of that).
pub const LOG_ROTATE_BYTES: u64 = 1 << 20;
/// `slm worker start` waits this long for the worker to load its model and listen.
pub const READY_WAIT: Duration = Duration::from_secs(60);

/// A ping (status, stop, finding a worker for a bulk command) is answered at once, without
/// a recall slot; a worker that has not answered one in this long is stuck. Chosen, not
/// measured.
pub const PING_TIMEOUT: Duration = Duration::from_secs(5);
/// A worker of another version answers nothing and leaves; a new one is started once it is
/// gone, or after this long. Chosen, not measured: it has no requests of ours to finish.
pub const MISMATCH_GONE_WAIT: Duration = Duration::from_secs(10);
/// `slm worker stop` (and `restart`, `reindex`, `restore`) waits this long for the worker
/// to be gone after asking it to leave. Chosen, not measured: shorter than its drain
/// bound (`server::DRAIN_WAIT`), since a stop should not hang on a stuck question.
pub const STOP_WAIT: Duration = Duration::from_secs(15);
/// How often a client looks whether a leaving worker has gone. Chosen, not measured: one
/// refused connect costs microseconds.
pub const GONE_POLL: Duration = Duration::from_millis(20);

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
pub(super) fn start(paths: &Paths, files: &WorkerFiles, stale: bool) -> Result<Ready> {
    match WriteLock::try_acquire(&files.startup_lock)? {
        // A worker is loading right now (it holds the lock until it listens).
        None => Ok(Ready::Loading(files.startup_lock.clone())),
        Some(lock) => {
            if stale && Stream::connect(crate::worker::server::name(files)?).is_err() {
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
        .env(crate::worker::runtime_dir::RUNTIME_ENV, &files.dir)
        .env(crate::worker::server::READY_PIPE_ENV, "1")
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

pub(super) fn wait_gone(files: &WorkerFiles, wait: Duration) {
    let t = Instant::now();
    while t.elapsed() < wait {
        if Stream::connect(crate::worker::server::name(files).expect("named before")).is_err() {
            return;
        }
        std::thread::sleep(GONE_POLL);
    }
}

/// The running worker's status, or None.
pub fn status(paths: &Paths) -> Result<Option<Status>> {
    let files = WorkerFiles::for_paths(paths)?;
    match exchange(&files, ClientBody::Ping, PING_TIMEOUT) {
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
    if let Err(Transport::Mismatch) = exchange(&files, ClientBody::Ping, PING_TIMEOUT) {
        wait_gone(&files, MISMATCH_GONE_WAIT);
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
    match exchange(&files, ClientBody::Shutdown, PING_TIMEOUT) {
        Ok(f) => {
            wait_gone(&files, STOP_WAIT);
            Ok(Some(f.pid))
        }
        Err(Transport::Mismatch) => {
            wait_gone(&files, STOP_WAIT);
            Ok(None)
        }
        Err(_) => Ok(None),
    }
}

/// Whether a path is a socket file someone left behind (for `doctor`).
pub fn socket_path(paths: &Paths) -> Result<std::path::PathBuf> {
    Ok(WorkerFiles::for_paths(paths)?.socket)
}
