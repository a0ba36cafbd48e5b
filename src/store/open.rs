//! Opening the store: read-write with migrations, read-only, or without writing anything
//! at all (a read-only or full data dir), and what an open failure means to the user.

use std::path::Path;

use rusqlite::{Connection, ErrorCode, OpenFlags};

use super::{BUSY_TIMEOUT, Store, schema};
use crate::error::is_damaged;
use crate::{Error, Result};

/// Which file a connection has open: device and inode. `slm restore` renames the store
/// aside and puts another file in its place; a process that opened the old one keeps
/// writing into it through its open handle, unseen by everyone else (issue 38: the
/// memories written by a starting worker or a racing import after a restore were only in
/// the file kept aside). Every write checks, under the writer lease, that the store's path
/// still names the file it opened ([`Store::replaced`]); the restore swaps files while it
/// holds that lease, so the check cannot miss a swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The file `path` names now, if any.
    pub fn of(path: &Path) -> Option<FileId> {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| FileId {
            dev: m.dev(),
            ino: m.ino(),
        })
    }
}

/// How many times opening tries again when the store's file changed under it (a restore
/// swapping files at that very moment). One retry is enough for one swap; three for luck.
const OPEN_TRIES: usize = 3;

/// Open the store's file and learn which file that is. The path is looked at before and
/// after opening: when both name the same file, that file is the one the connection has
/// (a swap in between would show as a difference, and the open is done again).
fn open_pinned(path: &Path, dir: &Path) -> Result<(Connection, FileId)> {
    for _ in 0..OPEN_TRIES {
        let before = FileId::of(path);
        let conn = Connection::open(path).map_err(|e| map_open_error(e, dir))?;
        let after = FileId::of(path);
        match (before, after) {
            (Some(b), Some(a)) if a == b => return Ok((conn, a)),
            // A file made by this very open (a fresh store): nothing could swap it yet
            // without the writer lease, and the first write checks anyway.
            (None, Some(a)) => return Ok((conn, a)),
            _ => continue,
        }
    }
    Err(Error::StoreReplaced)
}

impl Store {
    /// Whether the store's path names another file than the one this connection writes
    /// to (a restore put another store in place). Connections that never write say no.
    pub fn replaced(&self) -> bool {
        match self.file {
            Some(f) => FileId::of(&self.path) != Some(f),
            None => false,
        }
    }

    /// The file this connection writes to, for connections that write.
    pub fn file_id(&self) -> Option<FileId> {
        self.file
    }

    /// Open (creating if needed) the store for reading and writing, migrating it forward.
    pub fn open(path: &Path) -> Result<Store> {
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| match e.kind() {
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
                Error::ReadOnly(dir.to_path_buf())
            }
            _ => Error::io(format!("creating {}", dir.display()), e),
        })?;
        check_writable(dir)?;
        let (conn, file) = open_pinned(path, dir)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| map_open_error(e, dir))?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
            file: Some(file),
        };
        store.migrate()?;
        Ok(store)
    }

    /// Open an existing store read-only (recall producers, listings). Never migrates.
    pub fn open_reader(path: &Path) -> Result<Store> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
                | OpenFlags::SQLITE_OPEN_URI,
        )?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
            file: None,
        };
        let v = store.user_version()?;
        if v > schema::latest() {
            return Err(Error::NewerSchema {
                path: path.to_path_buf(),
                found: v,
                supported: schema::latest(),
            });
        }
        Ok(store)
    }

    /// Open an existing store in a data dir that takes no writes (read-only, a full disk),
    /// writing nothing at all: SQLite's `immutable` mode when every committed write is in
    /// the store file (no write-ahead log left over), else `mode=ro`, which reads the log
    /// through its existing shared-memory file. A log that cannot be read that way is
    /// refused with what to do, never skipped (its writes would silently be missing).
    pub fn open_without_writes(path: &Path) -> Result<Store> {
        let wal = path.with_file_name(format!(
            "{}-wal",
            path.file_name().unwrap_or_default().to_string_lossy()
        ));
        let pending_log = std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0);
        let query = if pending_log {
            "mode=ro"
        } else {
            "mode=ro&immutable=1"
        };
        let opened = open_read_only_uri(path, query)
            .map_err(Error::from)
            .and_then(|conn| {
                conn.busy_timeout(BUSY_TIMEOUT)?;
                let store = Store {
                    conn,
                    path: path.to_path_buf(),
                    file: None,
                };
                let v = store.user_version()?;
                Ok((store, v))
            });
        match opened {
            Ok((_, v)) if v > schema::latest() => Err(Error::NewerSchema {
                path: path.to_path_buf(),
                found: v,
                supported: schema::latest(),
            }),
            Ok((store, _)) => Ok(store),
            Err(e) if pending_log => Err(Error::Other(format!(
                "{} holds writes not yet folded into the store, and they cannot be read while the data dir takes no writes ({e}); make it writable (and free some space) once: any slm command folds them in, after which it reads fine read-only",
                wal.display()
            ))),
            Err(e) => Err(e),
        }
    }

    fn user_version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    fn migrate(&mut self) -> Result<()> {
        let current = self.user_version()?;
        let latest = schema::latest();
        if current > latest {
            return Err(Error::NewerSchema {
                path: self.path.clone(),
                found: current,
                supported: latest,
            });
        }
        for (i, sql) in schema::MIGRATIONS.iter().enumerate().skip(current as usize) {
            // IMMEDIATE: two processes opening a new store at once (a client answering cold
            // while the worker it spawned starts) must not both run a migration; the second
            // waits for the first and then finds the version already moved on.
            let tx = self
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let now: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
            if now > i as i64 {
                tx.commit()?;
                continue;
            }
            tx.execute_batch(sql)?;
            schema::backfill((i + 1) as i64, &tx)?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)?;
            tx.commit()?;
        }
        Ok(())
    }
}

/// Refuse to write into a directory whose mode has no owner write bit. Root ignores mode
/// bits, so relying on the OS alone would let root write into a directory its owner
/// meant to keep read-only.
fn check_writable(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(md) = std::fs::metadata(dir) {
            if md.permissions().mode() & 0o200 == 0 {
                return Err(Error::ReadOnly(dir.to_path_buf()));
            }
        }
    }
    Ok(())
}

/// What a failure to open the store means: SQLite's error code says whether the directory
/// takes no writes (`SQLITE_READONLY`, `SQLITE_CANTOPEN`) or the file is damaged.
fn map_open_error(e: rusqlite::Error, dir: &Path) -> Error {
    if matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen)
    ) {
        Error::ReadOnly(dir.to_path_buf())
    } else if is_damaged(&e) {
        Error::Other(format!(
            "{}: the store file is damaged ({e}); nothing was changed. `slm restore BACKUP` puts back a copy made by `slm backup BACKUP` and keeps the damaged store aside",
            dir.display()
        ))
    } else {
        Error::Store(e)
    }
}

/// Open `path` read-only through an SQLite URI with `query` (`mode=ro`, `immutable=1`), the
/// path escaped for a URI (`%`, `?` and `#`).
pub fn open_read_only_uri(path: &Path, query: &str) -> rusqlite::Result<Connection> {
    let mut uri = String::from("file:");
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => uri.push_str("%25"),
            '?' => uri.push_str("%3f"),
            '#' => uri.push_str("%23"),
            c => uri.push(c),
        }
    }
    uri.push('?');
    uri.push_str(query);
    Connection::open_with_flags(
        &uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI,
    )
}
