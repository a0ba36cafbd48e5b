//! The writer lease: one writer at a time across every slm process.
//!
//! A plain file lock (`write.lock` in the data dir, `flock` via std). Whoever holds it may
//! write to SQLite and open tantivy's single `IndexWriter`; everyone else reads, and
//! readers never wait for it. The lock is released when the guard drops or the process
//! dies, so a `kill -9` never leaves a stale lock behind.

use crate::{Error, Result};
use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a write waits for another writer. Writes are short; a longer wait means an
/// import is running, and the caller is told to retry (exit 75).
pub const WRITE_WAIT: Duration = Duration::from_secs(15);
/// How often a waiting writer tries the lease again. Chosen, not measured: a write holds it
/// for milliseconds, and a try is one system call.
const LEASE_POLL: Duration = Duration::from_millis(5);

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
    pub fn acquire(path: &Path, wait: Duration) -> Result<WriteLock> {
        let file = open(path)?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(WriteLock { _file: file }),
                Err(TryLockError::WouldBlock) if start.elapsed() < wait => {
                    std::thread::sleep(LEASE_POLL)
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(Error::Busy {
                        message: "another slm is writing (an import?); nothing was written. Try again shortly.".into(),
                        retry_after_s: 5,
                    });
                }
                Err(TryLockError::Error(e)) => {
                    return Err(Error::io("locking the store for writing", e));
                }
            }
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
