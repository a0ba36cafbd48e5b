//! The writer lease: one writer at a time across every slm process.
//!
//! A plain file lock (`write.lock` in the data dir, `flock` via std). Whoever holds it may
//! write to SQLite and open tantivy's single `IndexWriter`; everyone else reads, and
//! readers never wait for it. The lock is released when the guard drops or the process
//! dies, so a `kill -9` never leaves a stale lock behind.

use crate::{Error, Result};
use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;
use std::time::Duration;

/// How long a write waits for another writer. Writes are short; a longer wait means an
/// import is running, and the caller is told to retry (exit 75, `WRITE_BUSY`).
pub const WRITE_WAIT: Duration = Duration::from_secs(15);
/// What a write held off by the lease is told to wait before asking again (`retry_after_s`
/// of `WRITE_BUSY`). Chosen, not measured (the value this lease gave before it had its own
/// code): asking too early only meets busy again, and nothing is lost either way.
pub const WRITE_BUSY_RETRY_S: u64 = 5;

pub struct WriteLock {
    _file: File,
}

fn open(path: &Path) -> Result<File> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
                Error::ReadOnly(path.parent().unwrap_or(path).to_path_buf())
            }
            _ => Error::io(format!("opening {}", path.display()), e),
        })
}

impl WriteLock {
    /// Take the lease, waiting up to `wait`.
    ///
    /// The wait is the kernel's (a blocking `flock` in a thread of its own), not a polling
    /// loop: a writer that releases the lease and takes it again at once (an import's next
    /// batch) left a poller, waking every few milliseconds, almost no chance to get in, and a
    /// restore racing a one-line-a-batch import gave up busy (issue 38). A waiter blocked in
    /// the kernel is woken as the lease is released.
    pub fn acquire(path: &Path, wait: Duration) -> Result<WriteLock> {
        let file = open(path)?;
        match file.try_lock() {
            Ok(()) => return Ok(WriteLock { _file: file }),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => {
                return Err(Error::io("locking the store for writing", e));
            }
        }
        let (tx, rx) = crossbeam_channel::bounded(1);
        std::thread::spawn(move || {
            let got = file.lock().map(|_| file);
            // Past the caller's wait nobody receives: the file drops here and the lease it
            // may have taken is released at once.
            let _ = tx.send(got);
        });
        match rx.recv_timeout(wait) {
            Ok(Ok(file)) => Ok(WriteLock { _file: file }),
            Ok(Err(e)) => Err(Error::io("locking the store for writing", e)),
            Err(_) => Err(Error::WriteBusy {
                message: "another slm is writing (an import, a backup or a restore?) and kept the store past this write's wait; nothing was written".into(),
                retry_after_s: WRITE_BUSY_RETRY_S,
            }),
        }
    }

    /// Take the lease only if it is free right now.
    pub fn try_acquire(path: &Path) -> Result<Option<WriteLock>> {
        let file = match open(path) {
            Ok(f) => f,
            Err(Error::ReadOnly(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        match file.try_lock() {
            Ok(()) => Ok(Some(WriteLock { _file: file })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(Error::io("locking the store for writing", e)),
        }
    }
}
