//! The SQLite store: the source of truth for every memory.
//!
//! WAL mode (readers never block the writer), a bounded busy timeout, `synchronous=FULL`
//! so an acknowledged write survives a crash or power loss, foreign keys on, and numbered
//! migrations (`schema.rs`). The BM25 and vector indexes are derived from what is here and
//! can be rebuilt at any time; each write appends to `changes`, whose last `seq` is the
//! store generation those indexes compare themselves with.

mod changes;
mod embeddings;
mod feedback;
mod graph;
mod guard;
mod memories;
mod open;
pub use open::FileId;
mod passages;
pub mod pictures;
pub mod recall_log;
pub mod schema;
pub mod views;
mod writer;

pub use guard::{
    MIN_FREE_BYTES, NoWrites, free_bytes, make_private, no_writes, refuse_lost_store,
    unwritable_cause,
};

pub use changes::{Change, ChangeOp};
pub use embeddings::{blob_to_f32s, f32s_to_blob};
pub use feedback::{FeedbackRow, ForgetCounts, ModelRow};
pub use graph::LinkKind;
pub use memories::{ListFilter, MetaRow};
pub use open::open_read_only_uri;
pub use passages::PendingPassages;
pub use writer::Inserted;

use crate::Result;
use rusqlite::{Connection, OptionalExtension, params};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a statement waits for another writer before giving up. Writes are short
/// (one memory, or one import batch), so 10 s means something is stuck.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// The file this connection opened (see [`FileId`]); `None` for connections that never
    /// write (readers), which have nothing to fence.
    file: Option<FileId>,
}

/// Writes inside one transaction (see [`Store::write`]).
pub struct Writer<'a> {
    tx: &'a rusqlite::Transaction<'a>,
}

impl Store {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Run `f` in one transaction: all of it is committed, or none of it.
    pub fn write<T>(&mut self, f: impl FnOnce(&Writer<'_>) -> Result<T>) -> Result<T> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let out = f(&Writer { tx: &tx })?;
        tx.commit()?;
        Ok(out)
    }

    /// This store's identity (random, made by migration 2). The derived indexes are stamped
    /// with it, so an index copied from another store is rebuilt instead of trusted.
    pub fn store_id(&self) -> Result<String> {
        Ok(self.meta_value("store_id")?.unwrap_or_default())
    }

    pub fn meta_value(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
            .query_row([key], |r| r.get(0))
            .optional()?)
    }

    pub fn set_meta_value(&self, key: &str, value: &str) -> Result<()> {
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?;
        Ok(())
    }

    pub fn integrity_check(&self) -> Result<String> {
        Ok(self
            .conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))?)
    }

    pub fn conn(&self) -> &Connection {
        &self.conn
    }
}
