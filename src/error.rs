//! One error type for the whole program, gathered from the modules' own failures.
//!
//! Every error knows its exit code (documented in docs/json.md: 0 ok, 1 internal or
//! environment failure, 2 usage or input error, 75 busy) and may carry a hint that
//! tells the user the command that fixes it.

use std::path::PathBuf;

/// Exit code for usage and input errors (clap uses the same).
pub const EXIT_USAGE: i32 = 2;
/// Exit code when slm is busy answering others (EX_TEMPFAIL, as the spec says).
pub const EXIT_BUSY: i32 = 75;
/// Exit code for failures of the environment or of slm itself.
pub const EXIT_FAILURE: i32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A flag value or argument that cannot be used, named in the message.
    #[error("{0}")]
    Usage(String),
    /// Input that was read but is not acceptable (empty text, bad JSON Lines, invalid UTF-8).
    #[error("{0}")]
    Input(String),
    #[error("no memory with id {0}")]
    NotFound(i64),
    #[error(
        "the store at {path} was written by a newer slm (schema {found}, this slm knows up to {supported})"
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error(
        "the store {} is {state}, but this data directory held a store before (its indexes are still here); slm will not start a new, empty store over it",
        path.display()
    )]
    LostStore { path: PathBuf, state: &'static str },
    /// The store's file was replaced (by `slm restore`) after this process opened it: a
    /// write here would land in the file kept aside, so nothing was written.
    #[error(
        "the store was replaced by `slm restore` while this command ran, so nothing was written"
    )]
    StoreReplaced,
    #[error("the data directory {0} is read-only, so nothing can be written")]
    ReadOnly(PathBuf),
    #[error("the disk holding {0} is full, so nothing can be written")]
    DiskFull(PathBuf),
    /// A recall that found every question slot busy (`RECALL_BUSY`).
    #[error("{message}")]
    Busy { message: String, retry_after_s: u64 },
    /// A write that could not take the writer lease (`lock.rs`) within its wait: another slm
    /// is writing (an import, a backup, a restore). Nothing was written; asking again works.
    #[error("{message}")]
    WriteBusy { message: String, retry_after_s: u64 },
    #[error("store: {0}")]
    Store(#[from] rusqlite::Error),
    #[error("keyword index: {0}")]
    Bm25(String),
    #[error("vector index: {0}")]
    Vector(String),
    #[error("model: {0}")]
    Model(String),
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Other(String),
    /// A failure reported by the warm worker, carried over the socket as it was.
    #[error("{}", .0.message)]
    Remote(RemoteError),
}

/// An error as it travels over the worker socket (and as `--json` prints it).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RemoteError {
    pub code: String,
    pub message: String,
    pub hint: Option<String>,
    pub retryable: bool,
    pub exit: i32,
    #[serde(default)]
    pub retry_after_s: Option<u64>,
}

impl From<&Error> for RemoteError {
    fn from(e: &Error) -> Self {
        RemoteError {
            code: e.code().to_string(),
            message: e.to_string(),
            hint: e.hint(),
            retryable: e.retryable(),
            exit: e.exit_code(),
            retry_after_s: match e {
                Error::Busy { retry_after_s, .. } => Some(*retry_after_s),
                Error::WriteBusy { retry_after_s, .. } => Some(*retry_after_s),
                Error::Remote(r) => r.retry_after_s,
                _ => None,
            },
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The error for a lock whose holder panicked, named after the lock:
/// `readers.lock().map_err(poisoned("the readers lock"))?`. Every lock in slm reports a
/// poisoning this way (an internal error: something panicked while holding it).
pub fn poisoned<T>(lock: &'static str) -> impl FnOnce(T) -> Error {
    move |_| Error::Other(poisoned_message(lock))
}

/// What [`poisoned`] says, for a caller that reports a status rather than an error.
pub fn poisoned_message(lock: &str) -> String {
    format!("{lock} was poisoned")
}

/// SQLite gave up waiting for another connection (`SQLITE_BUSY`, `SQLITE_LOCKED`).
pub fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// The store file is not a readable database (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
pub fn is_damaged(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}

impl Error {
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) | Error::Input(_) | Error::NotFound(_) => EXIT_USAGE,
            Error::Busy { .. } | Error::StoreReplaced => EXIT_BUSY,
            Error::WriteBusy { .. } => EXIT_BUSY,
            Error::Remote(r) => r.exit,
            _ => EXIT_FAILURE,
        }
    }

    /// A stable machine-readable code for `--json` error objects.
    pub fn code(&self) -> &str {
        match self {
            Error::Remote(r) => &r.code,
            Error::Usage(_) => "USAGE",
            Error::Input(_) => "BAD_INPUT",
            Error::NotFound(_) => "NOT_FOUND",
            Error::NewerSchema { .. } => "NEWER_SCHEMA",
            Error::ReadOnly(_) => "READ_ONLY",
            Error::DiskFull(_) => "DISK_FULL",
            Error::LostStore { .. } => "STORE_MISSING",
            Error::StoreReplaced => "STORE_REPLACED",
            Error::Busy { .. } => "RECALL_BUSY",
            Error::WriteBusy { .. } => "WRITE_BUSY",
            Error::Store(_) => "STORE",
            Error::Bm25(_) => "BM25_INDEX",
            Error::Vector(_) => "VECTOR_INDEX",
            Error::Model(_) => "MODEL",
            Error::Io { .. } => "IO",
            Error::Other(_) => "INTERNAL",
        }
    }

    /// What the user can do about it, when we know.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::Remote(r) => r.hint.clone(),
            Error::NotFound(_) => Some("`slm list` shows the ids in this profile".into()),
            Error::NewerSchema { .. } => Some("upgrade slm; this store was not changed".into()),
            Error::ReadOnly(_) => Some(
                "make the directory writable or point SLM_HOME elsewhere; reads still work".into(),
            ),
            Error::DiskFull(_) => {
                Some("free some space on that disk (nothing was written); reads still work".into())
            }
            Error::LostStore { path, .. } => Some(
                match crate::paths::interrupted_restores(path).first() {
                    Some(copy) => format!(
                        "a restore was interrupted while it swapped the store: {} is the backup it had copied and checked; `mv {} {}` finishes it (the store before is kept as {}.before-restore-*); nothing was changed",
                        copy.display(),
                        copy.display(),
                        path.display(),
                        path.display()
                    ),
                    None => format!(
                        "put {} back from a copy you trust (`slm restore BACKUP` puts back one made by `slm backup`; nothing was changed); to start over on purpose, move {} aside first",
                        path.display(),
                        path.parent().unwrap_or(path).display()
                    ),
                },
            ),
            Error::StoreReplaced => {
                Some("run the command again: it works on the restored store".into())
            }
            Error::Bm25(_) | Error::Vector(_) => {
                Some("`slm reindex` rebuilds the indexes from the store".into())
            }
            Error::Model(_) => Some(
                "`slm doctor` names what is missing; `scripts/setup.sh --models-only` fetches it"
                    .into(),
            ),
            Error::Store(e) if is_damaged(e) => {
                Some("the store file is damaged: `slm restore BACKUP` puts back a copy made by `slm backup BACKUP` (the damaged store is kept aside, never deleted); `slm doctor` checks it".into())
            }
            Error::Store(e) if is_busy(e) => Some("another slm is writing; try again".into()),
            Error::WriteBusy { retry_after_s, .. } => Some(format!(
                "ask again in about {retry_after_s} s; nothing was written, so nothing is lost"
            )),
            _ => None,
        }
    }

    /// Asking again may succeed, and nothing was changed by this attempt: a busy answer, or
    /// SQLite giving up on another writer's lock (a write transaction that could not begin
    /// wrote nothing; its hint already says "try again").
    pub fn retryable(&self) -> bool {
        match self {
            Error::Remote(r) => r.retryable,
            Error::Store(e) => is_busy(e),
            Error::WriteBusy { .. } => true,
            e => matches!(e, Error::Busy { .. } | Error::StoreReplaced),
        }
    }

    /// Seconds after which asking again makes sense (busy answers).
    pub fn retry_after_s(&self) -> Option<u64> {
        RemoteError::from(self).retry_after_s
    }
}

impl From<tantivy::TantivyError> for Error {
    fn from(e: tantivy::TantivyError) -> Self {
        Error::Bm25(e.to_string())
    }
}
