//! The SQLite store: the source of truth for every memory.
//!
//! WAL mode (readers never block the writer), a bounded busy timeout, `synchronous=FULL`
//! so an acknowledged write survives a crash or power loss, foreign keys on, and numbered
//! migrations (`schema.rs`). The BM25 and vector indexes are derived from what is here and
//! can be rebuilt at any time; each write appends to `changes`, whose last `seq` is the
//! store generation those indexes compare themselves with.

mod guard;
pub mod schema;

pub use guard::{
    MIN_FREE_BYTES, NoWrites, free_bytes, make_private, no_writes, refuse_lost_store,
    unwritable_cause,
};

use crate::memory::{Kind, Memory, MemoryPatch, NewMemory, Scope, Source};
use crate::text::Entity;
use crate::{Error, Result};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a statement waits for another writer before giving up. Writes are short
/// (one memory, or one import batch), so 10 s means something is stuck.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Store {
    conn: Connection,
    path: PathBuf,
}

/// What an insert did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inserted {
    pub id: i64,
    /// The idempotency key was already stored: nothing new was written.
    pub existed: bool,
}

/// The filters of `slm list` / `slm forget`.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct ListFilter {
    pub profile: Option<String>,
    pub kind: Option<Kind>,
    pub tag: Option<String>,
    pub session_id: Option<String>,
    pub since: Option<i64>,
    pub until: Option<i64>,
    pub include_bookkeeping: bool,
    pub ids: Option<Vec<i64>>,
    /// Only ids above this (paging in id order: an export reads the store this way).
    #[serde(default)]
    pub after_id: Option<i64>,
    pub limit: Option<usize>,
    /// Newest first when true.
    pub newest_first: bool,
}

/// One entry of the change log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    pub seq: i64,
    pub memory_id: i64,
    pub op: ChangeOp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeOp {
    /// Text or metadata changed (or the memory is new).
    Upsert,
    Delete,
    /// Only the embedding changed.
    Embed,
}

/// The per-memory facts recall filters and scores by, kept small so all of them fit in memory.
#[derive(Debug, Clone)]
pub struct MetaRow {
    pub id: i64,
    pub profile: String,
    pub scope: Scope,
    pub kind: Kind,
    pub source: Source,
    pub session_id: Option<String>,
    pub created_at: i64,
    pub event_at: i64,
    pub valid_from: Option<i64>,
    pub valid_until: Option<i64>,
    pub known_at: i64,
    pub pinned: bool,
    pub bookkeeping: bool,
    pub superseded: bool,
    pub baseline_sim: Option<f32>,
}

const MEMORY_COLUMNS: &str = "id, text, kind, source, profile, scope, session_id, speaker, created_at, event_at, \
     valid_from, valid_until, known_at, updated_at, pinned, bookkeeping, superseded_by, confidence, trust, \
     (SELECT k.key FROM idempotency_keys k WHERE k.memory_id = m.id), baseline_sim, embedding_model, origin";

fn row_to_memory(r: &rusqlite::Row<'_>) -> rusqlite::Result<Memory> {
    let kind: String = r.get(2)?;
    let source: String = r.get(3)?;
    let scope: String = r.get(5)?;
    Ok(Memory {
        id: r.get(0)?,
        text: r.get(1)?,
        kind: Kind::parse(&kind).unwrap_or(Kind::Note),
        source: Source::parse(&source).unwrap_or(Source::User),
        profile: r.get(4)?,
        scope: Scope::parse(&scope).unwrap_or(Scope::Personal),
        session_id: r.get(6)?,
        speaker: r.get(7)?,
        tags: Vec::new(),
        created_at: r.get(8)?,
        event_at: r.get(9)?,
        valid_from: r.get(10)?,
        valid_until: r.get(11)?,
        known_at: r.get(12)?,
        updated_at: r.get(13)?,
        pinned: r.get::<_, i64>(14)? != 0,
        bookkeeping: r.get(15)?,
        superseded_by: r.get(16)?,
        confidence: r.get(17)?,
        trust: r.get(18)?,
        idempotency_key: r.get(19)?,
        baseline_sim: r.get(20)?,
        embedding_model: r.get(21)?,
        origin: r.get(22)?,
    })
}

pub fn f32s_to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn blob_to_f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
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

impl Store {
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
        let conn = Connection::open(path).map_err(|e| map_open_error(e, dir))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| map_open_error(e, dir))?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
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
        let mut uri = String::from("file:");
        for c in path.to_string_lossy().chars() {
            match c {
                '%' => uri.push_str("%25"),
                '?' => uri.push_str("%3f"),
                '#' => uri.push_str("%23"),
                c => uri.push(c),
            }
        }
        uri.push_str(if pending_log {
            "?mode=ro"
        } else {
            "?mode=ro&immutable=1"
        });
        let opened = Connection::open_with_flags(
            &uri,
            OpenFlags::SQLITE_OPEN_READ_ONLY
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
                | OpenFlags::SQLITE_OPEN_URI,
        )
        .map_err(Error::from)
        .and_then(|conn| {
            conn.busy_timeout(BUSY_TIMEOUT)?;
            let store = Store {
                conn,
                path: path.to_path_buf(),
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

    pub fn path(&self) -> &Path {
        &self.path
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
            tx.pragma_update(None, "user_version", (i + 1) as i64)?;
            tx.commit()?;
        }
        Ok(())
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

    /// The store generation: the last change seq (0 for an empty store).
    pub fn generation(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("SELECT COALESCE(MAX(seq), 0) FROM changes", [], |r| {
                r.get(0)
            })?)
    }

    pub fn count(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("SELECT COUNT(*) FROM memories", [], |r| r.get(0))?)
    }

    pub fn get(&self, id: i64) -> Result<Option<Memory>> {
        let sql = format!("SELECT {MEMORY_COLUMNS} FROM memories m WHERE id = ?1");
        let m = self
            .conn
            .prepare_cached(&sql)?
            .query_row([id], row_to_memory)
            .optional()?;
        match m {
            Some(mut m) => {
                m.tags = self.tags(id)?;
                Ok(Some(m))
            }
            None => Ok(None),
        }
    }

    /// Several memories by id, in the order asked (missing ids are skipped).
    pub fn get_many(&self, ids: &[i64]) -> Result<Vec<Memory>> {
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            if let Some(m) = self.get(id)? {
                out.push(m);
            }
        }
        Ok(out)
    }

    pub fn text(&self, id: i64) -> Result<Option<String>> {
        Ok(self
            .conn
            .prepare_cached("SELECT text FROM memories WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?)
    }

    pub fn tags(&self, id: i64) -> Result<Vec<String>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT tag FROM tags WHERE memory_id = ?1 ORDER BY tag")?;
        let rows = st.query_map([id], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn list(&self, f: &ListFilter) -> Result<Vec<Memory>> {
        let mut sql = format!("SELECT {MEMORY_COLUMNS} FROM memories m WHERE 1=1");
        let mut args: Vec<rusqlite::types::Value> = Vec::new();
        if let Some(p) = &f.profile {
            sql.push_str(" AND profile = ?");
            args.push(p.clone().into());
        }
        if let Some(k) = f.kind {
            sql.push_str(" AND kind = ?");
            args.push(k.as_str().to_string().into());
        }
        if let Some(t) = &f.tag {
            sql.push_str(
                " AND EXISTS (SELECT 1 FROM tags t WHERE t.memory_id = m.id AND t.tag = ?)",
            );
            args.push(t.clone().into());
        }
        if let Some(s) = &f.session_id {
            sql.push_str(" AND session_id = ?");
            args.push(s.clone().into());
        }
        if let Some(s) = f.since {
            sql.push_str(" AND event_at >= ?");
            args.push(s.into());
        }
        if let Some(u) = f.until {
            sql.push_str(" AND event_at < ?");
            args.push(u.into());
        }
        if !f.include_bookkeeping {
            sql.push_str(" AND bookkeeping IS NULL");
        }
        if let Some(a) = f.after_id {
            sql.push_str(" AND id > ?");
            args.push(a.into());
        }
        if let Some(ids) = &f.ids {
            let list = ids
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",");
            sql.push_str(&format!(" AND id IN ({list})"));
        }
        sql.push_str(if f.newest_first {
            " ORDER BY event_at DESC, id DESC"
        } else {
            " ORDER BY id"
        });
        if let Some(l) = f.limit {
            sql.push_str(&format!(" LIMIT {l}"));
        }
        let mut st = self.conn.prepare(&sql)?;
        let rows = st.query_map(rusqlite::params_from_iter(args), row_to_memory)?;
        let mut out: Vec<Memory> = rows.collect::<rusqlite::Result<_>>()?;
        for m in &mut out {
            m.tags = self.tags(m.id)?;
        }
        Ok(out)
    }

    /// Every memory's recall metadata, for the in-memory filter cache.
    pub fn all_meta(&self) -> Result<Vec<MetaRow>> {
        let mut st = self.conn.prepare(
            "SELECT id, profile, scope, kind, source, session_id, created_at, event_at, valid_from, valid_until, \
             known_at, pinned, bookkeeping IS NOT NULL, superseded_by IS NOT NULL, baseline_sim FROM memories ORDER BY id",
        )?;
        let rows = st.query_map([], meta_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn meta(&self, id: i64) -> Result<Option<MetaRow>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT id, profile, scope, kind, source, session_id, created_at, event_at, valid_from, valid_until, \
                 known_at, pinned, bookkeeping IS NOT NULL, superseded_by IS NOT NULL, baseline_sim FROM memories WHERE id = ?1",
            )?
            .query_row([id], meta_row)
            .optional()?)
    }

    pub fn changes_since(&self, seq: i64) -> Result<Vec<Change>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT seq, memory_id, op FROM changes WHERE seq > ?1 ORDER BY seq")?;
        let rows = st.query_map([seq], |r| {
            let op: String = r.get(2)?;
            Ok(Change {
                seq: r.get(0)?,
                memory_id: r.get(1)?,
                op: match op.as_str() {
                    "delete" => ChangeOp::Delete,
                    "embed" => ChangeOp::Embed,
                    _ => ChangeOp::Upsert,
                },
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn embedding(&self, id: i64) -> Result<Option<Vec<f32>>> {
        let b: Option<Option<Vec<u8>>> = self
            .conn
            .prepare_cached("SELECT embedding FROM memories WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?;
        Ok(b.flatten().map(|b| blob_to_f32s(&b)))
    }

    /// Every stored embedding made by `model` (for rebuilding the vector index).
    pub fn embeddings(
        &self,
        model: &str,
        mut each: impl FnMut(i64, Vec<f32>) -> Result<()>,
    ) -> Result<()> {
        let mut st = self
            .conn
            .prepare("SELECT id, embedding FROM memories WHERE embedding IS NOT NULL AND embedding_model = ?1")?;
        let mut rows = st.query([model])?;
        while let Some(r) = rows.next()? {
            let b: Vec<u8> = r.get(1)?;
            each(r.get(0)?, blob_to_f32s(&b))?;
        }
        Ok(())
    }

    /// Memories still waiting for an embedding by `model` (none, or one from another model).
    pub fn pending_embeddings(&self, model: &str, limit: usize) -> Result<Vec<(i64, String)>> {
        let mut st = self.conn.prepare_cached(
            "SELECT id, text FROM memories WHERE embedding IS NULL OR embedding_model IS NOT ?1 ORDER BY id LIMIT ?2",
        )?;
        let rows = st.query_map(params![model, limit as i64], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn pending_embedding_count(&self, model: &str) -> Result<i64> {
        Ok(self.conn.query_row(
            "SELECT COUNT(*) FROM memories WHERE embedding IS NULL OR embedding_model IS NOT ?1",
            [model],
            |r| r.get(0),
        )?)
    }

    /// Entity ids mentioned by a memory.
    pub fn entity_ids(&self, memory_id: i64) -> Result<Vec<i64>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT entity_id FROM memory_entities WHERE memory_id = ?1")?;
        let rows = st.query_map([memory_id], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Entities (kind, norm, surface) of a memory.
    pub fn entities_of(&self, memory_id: i64) -> Result<Vec<(String, String, String)>> {
        let mut st = self.conn.prepare_cached(
            "SELECT e.kind, e.norm, e.surface FROM memory_entities me JOIN entities e ON e.id = me.entity_id \
             WHERE me.memory_id = ?1 ORDER BY e.kind, e.norm",
        )?;
        let rows = st.query_map([memory_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Entity ids whose normalised key is one of `norms`, with how many memories mention each.
    pub fn entities_by_norm(&self, norms: &[String]) -> Result<Vec<(i64, String, i64)>> {
        let mut out = Vec::new();
        let mut st = self.conn.prepare_cached(
            "SELECT e.id, e.norm, (SELECT COUNT(*) FROM memory_entities me WHERE me.entity_id = e.id) FROM entities e WHERE e.norm = ?1",
        )?;
        for n in norms {
            let rows = st.query_map([n], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            for r in rows {
                out.push(r?);
            }
        }
        Ok(out)
    }

    /// Memories mentioning an entity (at most `limit`).
    pub fn memories_with_entity(&self, entity_id: i64, limit: usize) -> Result<Vec<i64>> {
        let mut st = self.conn.prepare_cached(
            "SELECT memory_id FROM memory_entities WHERE entity_id = ?1 LIMIT ?2",
        )?;
        let rows = st.query_map(params![entity_id, limit as i64], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// How many memories mention an entity.
    pub fn entity_degree(&self, entity_id: i64) -> Result<i64> {
        Ok(self
            .conn
            .prepare_cached("SELECT COUNT(*) FROM memory_entities WHERE entity_id = ?1")?
            .query_row([entity_id], |r| r.get(0))?)
    }

    /// Graph neighbours of a memory over explicit links, both directions: (other, kind, weight).
    pub fn links_of(&self, memory_id: i64) -> Result<Vec<(i64, String, f64)>> {
        let mut st = self.conn.prepare_cached(
            "SELECT dst, kind, weight FROM links WHERE src = ?1 UNION ALL SELECT src, kind, weight FROM links WHERE dst = ?1",
        )?;
        let rows = st.query_map([memory_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Other memories of the same session, nearest ids first.
    pub fn same_session(&self, memory_id: i64, session: &str, limit: usize) -> Result<Vec<i64>> {
        let mut st = self.conn.prepare_cached(
            "SELECT id FROM memories WHERE session_id = ?1 AND id != ?2 AND bookkeeping IS NULL ORDER BY ABS(id - ?2) LIMIT ?3",
        )?;
        let rows = st.query_map(params![session, memory_id, limit as i64], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// A deterministic sample of stored embeddings (every k-th row), for baselines.
    pub fn sample_embeddings(&self, model: &str, n: usize) -> Result<Vec<(i64, Vec<f32>)>> {
        let total: i64 = self.conn.query_row(
            "SELECT COUNT(*) FROM memories WHERE embedding IS NOT NULL AND embedding_model = ?1",
            [model],
            |r| r.get(0),
        )?;
        let step = ((total as usize) / n.max(1)).max(1) as i64;
        let mut st = self.conn.prepare_cached(
            "SELECT id, embedding FROM (SELECT id, embedding, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM memories \
             WHERE embedding IS NOT NULL AND embedding_model = ?1) WHERE (rn - 1) % ?2 = 0 LIMIT ?3",
        )?;
        let rows = st.query_map(params![model, step, n as i64], |r| {
            let b: Vec<u8> = r.get(1)?;
            Ok((r.get(0)?, blob_to_f32s(&b)))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
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

    /// Set embeddings for many memories at once (one transaction), logged as `embed` changes
    /// so the vector index catches up and the keyword index skips them.
    pub fn set_embeddings(&mut self, model: &str, rows: &[(i64, Vec<f32>)]) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut st = tx.prepare_cached(
                "UPDATE memories SET embedding = ?2, embedding_model = ?3, embedding_dim = ?4 WHERE id = ?1",
            )?;
            for (id, v) in rows {
                st.execute(params![id, f32s_to_blob(v), model, v.len() as i64])?;
            }
            let mut ch =
                tx.prepare_cached("INSERT INTO changes(memory_id, op) VALUES (?1, 'embed')")?;
            for (id, _) in rows {
                ch.execute([id])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    pub fn set_baselines(&mut self, rows: &[(i64, f32, i64)]) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut st = tx.prepare_cached(
                "UPDATE memories SET baseline_sim = ?2, baseline_n = ?3 WHERE id = ?1",
            )?;
            for (id, b, n) in rows {
                st.execute(params![id, *b as f64, n])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Ids whose baseline was computed against fewer than `n` memories (stale as the store grows).
    pub fn stale_baselines(&self, model: &str, n: i64, limit: usize) -> Result<Vec<i64>> {
        let mut st = self.conn.prepare_cached(
            "SELECT id FROM memories WHERE embedding IS NOT NULL AND embedding_model = ?1 \
             AND (baseline_n IS NULL OR baseline_n < ?2) ORDER BY id LIMIT ?3",
        )?;
        let rows = st.query_map(params![model, n, limit as i64], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// How many memories a filter matches (profile and bookkeeping only: what an export counts).
    pub fn count_matching(&self, profile: Option<&str>, include_bookkeeping: bool) -> Result<i64> {
        let mut sql =
            String::from("SELECT COUNT(*) FROM memories WHERE (?1 IS NULL OR profile = ?1)");
        if !include_bookkeeping {
            sql.push_str(" AND bookkeeping IS NULL");
        }
        Ok(self.conn.query_row(&sql, [profile], |r| r.get(0))?)
    }

    /// The idempotency key a memory was stored under, if any.
    pub fn key_of(&self, memory_id: i64) -> Result<Option<String>> {
        Ok(self
            .conn
            .prepare_cached("SELECT key FROM idempotency_keys WHERE memory_id = ?1 LIMIT 1")?
            .query_row([memory_id], |r| r.get(0))
            .optional()?)
    }

    /// The memories `new` corrects (those whose `superseded_by` is `new`), oldest first.
    /// Read through the `supersedes` links, which are indexed by their source.
    pub fn superseded_by_this(&self, new: i64) -> Result<Vec<i64>> {
        let mut st = self.conn.prepare_cached(
            "SELECT l.dst FROM links l JOIN memories o ON o.id = l.dst \
             WHERE l.src = ?1 AND l.kind = 'supersedes' AND o.superseded_by = l.src ORDER BY l.dst",
        )?;
        let rows = st.query_map([new], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Every (key, memory id) of a profile whose key starts with `prefix`.
    pub fn keys_with_prefix(&self, profile: &str, prefix: &str) -> Result<Vec<(String, i64)>> {
        // A range on the primary key (profile, key) instead of LIKE, which would scan.
        let mut upper = prefix.to_string();
        upper.push(char::MAX);
        let mut st = self.conn.prepare_cached(
            "SELECT key, memory_id FROM idempotency_keys WHERE profile = ?1 AND key >= ?2 AND key < ?3 ORDER BY key",
        )?;
        let rows = st.query_map(params![profile, prefix, upper], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
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

fn meta_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<MetaRow> {
    let scope: String = r.get(2)?;
    let kind: String = r.get(3)?;
    let source: String = r.get(4)?;
    Ok(MetaRow {
        id: r.get(0)?,
        profile: r.get(1)?,
        scope: Scope::parse(&scope).unwrap_or(Scope::Personal),
        kind: Kind::parse(&kind).unwrap_or(Kind::Note),
        source: Source::parse(&source).unwrap_or(Source::User),
        session_id: r.get(5)?,
        created_at: r.get(6)?,
        event_at: r.get(7)?,
        valid_from: r.get(8)?,
        valid_until: r.get(9)?,
        known_at: r.get(10)?,
        pinned: r.get::<_, i64>(11)? != 0,
        bookkeeping: r.get::<_, i64>(12)? != 0,
        superseded: r.get::<_, i64>(13)? != 0,
        baseline_sim: r.get::<_, Option<f64>>(14)?.map(|v| v as f32),
    })
}

fn map_open_error(e: rusqlite::Error, dir: &Path) -> Error {
    let s = e.to_string();
    if s.contains("readonly") || s.contains("read-only") || s.contains("unable to open") {
        Error::ReadOnly(dir.to_path_buf())
    } else if s.contains("not a database") || s.contains("malformed") {
        Error::Other(format!(
            "{}: the store file is damaged ({s}); nothing was changed. `slm restore BACKUP` puts back a copy made by `slm backup BACKUP` and keeps the damaged store aside",
            dir.display()
        ))
    } else {
        Error::Store(e)
    }
}

/// Writes inside one transaction (see [`Store::write`]).
pub struct Writer<'a> {
    tx: &'a rusqlite::Transaction<'a>,
}

impl Writer<'_> {
    /// Insert one memory with its tags, entities and session link.
    pub fn insert(
        &self,
        m: &NewMemory,
        now: i64,
        entities: &[Entity],
        bookkeeping: Option<&str>,
    ) -> Result<Inserted> {
        let profile = m
            .profile
            .clone()
            .unwrap_or_else(|| crate::DEFAULT_PROFILE.to_string());
        // Keys are per profile: another profile's key never answers for this write.
        if let Some(key) = &m.idempotency_key {
            let existing: Option<i64> = self
                .tx
                .prepare_cached(
                    "SELECT memory_id FROM idempotency_keys WHERE profile = ?1 AND key = ?2",
                )?
                .query_row(params![profile, key], |r| r.get(0))
                .optional()?;
            if let Some(id) = existing {
                return Ok(Inserted { id, existed: true });
            }
        }
        let kind = if bookkeeping.is_some() {
            Kind::Bookkeeping
        } else {
            m.kind.unwrap_or(Kind::Note)
        };
        self.tx
            .prepare_cached(
                "INSERT INTO memories (text, kind, source, profile, scope, session_id, speaker, created_at, event_at, \
                 valid_from, valid_until, known_at, updated_at, pinned, bookkeeping, origin) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?8, ?13, ?14, ?15)",
            )?
            .execute(params![
                m.text,
                kind.as_str(),
                m.source.unwrap_or(Source::User).as_str(),
                profile,
                m.scope.unwrap_or(Scope::Personal).as_str(),
                m.session_id,
                m.speaker,
                m.created_at.unwrap_or(now),
                m.event_at.unwrap_or(now),
                m.valid_from,
                m.valid_until,
                m.known_at.unwrap_or(now),
                m.pinned as i64,
                bookkeeping,
                m.origin,
            ])?;
        let id = self.tx.last_insert_rowid();
        if let Some(key) = &m.idempotency_key {
            self.tx
                .prepare_cached(
                    "INSERT INTO idempotency_keys(profile, key, memory_id) VALUES (?1, ?2, ?3)",
                )?
                .execute(params![profile, key, id])?;
        }
        self.set_tags(id, &m.tags)?;
        self.set_entities(id, entities)?;
        if let Some(session) = &m.session_id {
            let prev: Option<i64> = self
                .tx
                .prepare_cached("SELECT MAX(id) FROM memories WHERE session_id = ?1 AND profile = ?2 AND id < ?3")?
                .query_row(params![session, profile, id], |r| r.get(0))?;
            if let Some(prev) = prev {
                self.link(prev, id, "next", 1.0)?;
            }
        }
        if let Some(old) = m.supersedes {
            self.supersede(old, id, now)?;
        }
        self.changed(id, false)?;
        Ok(Inserted { id, existed: false })
    }

    /// The memory stored under an idempotency key of a profile.
    pub fn id_for_key(&self, profile: &str, key: &str) -> Result<Option<i64>> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT memory_id FROM idempotency_keys WHERE profile = ?1 AND key = ?2",
            )?
            .query_row(params![profile, key], |r| r.get(0))
            .optional()?)
    }

    /// Mark `old` corrected by `new` unless it already is (an import run twice changes
    /// nothing). Returns whether anything changed.
    pub fn supersede_once(&self, old: i64, new: i64, now: i64) -> Result<bool> {
        let current: Option<Option<i64>> = self
            .tx
            .prepare_cached("SELECT superseded_by FROM memories WHERE id = ?1")?
            .query_row([old], |r| r.get(0))
            .optional()?;
        if current == Some(Some(new)) {
            return Ok(false);
        }
        self.supersede(old, new, now)?;
        Ok(true)
    }

    /// Set where a memory came from (a re-imported file whose paragraphs moved).
    pub fn set_origin(&self, id: i64, origin: Option<&str>) -> Result<()> {
        self.tx
            .prepare_cached("UPDATE memories SET origin = ?2 WHERE id = ?1")?
            .execute(params![id, origin])?;
        Ok(())
    }

    /// `new` corrects `old`. Both must be of one profile: a write may only refer to memories
    /// its own profile can see, so another profile's memory is "not found" (no existence leak).
    fn supersede(&self, old: i64, new: i64, now: i64) -> Result<()> {
        let profile_of = |id: i64| -> Result<Option<String>> {
            Ok(self
                .tx
                .prepare_cached("SELECT profile FROM memories WHERE id = ?1")?
                .query_row([id], |r| r.get(0))
                .optional()?)
        };
        let new_profile = profile_of(new)?.ok_or(Error::NotFound(new))?;
        match profile_of(old)? {
            Some(p) if p == new_profile => {}
            _ => return Err(Error::NotFound(old)),
        }
        if old == new {
            return Err(Error::Usage(format!("memory {old} cannot correct itself")));
        }
        let n = self.tx.execute(
            "UPDATE memories SET superseded_by = ?2, updated_at = ?3 WHERE id = ?1",
            params![old, new, now],
        )?;
        if n == 0 {
            return Err(Error::NotFound(old));
        }
        self.link(new, old, "supersedes", 1.0)?;
        self.changed(old, false)
    }

    pub fn link(&self, src: i64, dst: i64, kind: &str, weight: f64) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO links(src, dst, kind, weight) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![src, dst, kind, weight])?;
        Ok(())
    }

    fn set_tags(&self, id: i64, tags: &[String]) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM tags WHERE memory_id = ?1")?
            .execute([id])?;
        let mut st = self
            .tx
            .prepare_cached("INSERT OR IGNORE INTO tags(memory_id, tag) VALUES (?1, ?2)")?;
        for t in tags {
            let t = t.trim();
            if !t.is_empty() {
                st.execute(params![id, t])?;
            }
        }
        Ok(())
    }

    fn set_entities(&self, id: i64, entities: &[Entity]) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM memory_entities WHERE memory_id = ?1")?
            .execute([id])?;
        let mut up = self.tx.prepare_cached(
            "INSERT INTO entities(kind, norm, surface) VALUES (?1, ?2, ?3) ON CONFLICT(kind, norm) DO UPDATE SET kind = kind RETURNING id",
        )?;
        let mut link = self.tx.prepare_cached(
            "INSERT OR IGNORE INTO memory_entities(memory_id, entity_id) VALUES (?1, ?2)",
        )?;
        for e in entities {
            let eid: i64 =
                up.query_row(params![e.kind.as_str(), e.norm, e.surface], |r| r.get(0))?;
            link.execute(params![id, eid])?;
        }
        Ok(())
    }

    /// Apply a patch; text changes re-extract entities and drop the old embedding.
    pub fn update(
        &self,
        id: i64,
        p: &MemoryPatch,
        now: i64,
        entities: Option<&[Entity]>,
        bookkeeping: Option<Option<&str>>,
    ) -> Result<()> {
        let exists: Option<i64> = self
            .tx
            .prepare_cached("SELECT id FROM memories WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?;
        if exists.is_none() {
            return Err(Error::NotFound(id));
        }
        if let Some(t) = &p.text {
            self.tx.execute(
                "UPDATE memories SET text = ?2, embedding = NULL, embedding_model = NULL, baseline_sim = NULL, baseline_n = NULL WHERE id = ?1",
                params![id, t],
            )?;
        }
        if let Some(k) = p.kind {
            self.tx.execute(
                "UPDATE memories SET kind = ?2 WHERE id = ?1",
                params![id, k.as_str()],
            )?;
        }
        if let Some(b) = bookkeeping {
            self.tx.execute(
                "UPDATE memories SET bookkeeping = ?2 WHERE id = ?1",
                params![id, b],
            )?;
        }
        if let Some(pin) = p.pinned {
            self.tx.execute(
                "UPDATE memories SET pinned = ?2 WHERE id = ?1",
                params![id, pin as i64],
            )?;
        }
        if let Some(s) = p.scope {
            self.tx.execute(
                "UPDATE memories SET scope = ?2 WHERE id = ?1",
                params![id, s.as_str()],
            )?;
        }
        if let Some(e) = p.event_at {
            self.tx.execute(
                "UPDATE memories SET event_at = ?2 WHERE id = ?1",
                params![id, e],
            )?;
        }
        if let Some(v) = p.valid_from {
            self.tx.execute(
                "UPDATE memories SET valid_from = ?2 WHERE id = ?1",
                params![id, v],
            )?;
        }
        if let Some(v) = p.valid_until {
            self.tx.execute(
                "UPDATE memories SET valid_until = ?2 WHERE id = ?1",
                params![id, v],
            )?;
        }
        if let Some(s) = p.superseded_by {
            if let Some(new) = s {
                self.supersede(id, new, now)?;
            } else {
                self.tx.execute(
                    "UPDATE memories SET superseded_by = NULL WHERE id = ?1",
                    [id],
                )?;
            }
        }
        if let Some(tags) = &p.tags {
            self.set_tags(id, tags)?;
        }
        if let Some(ents) = entities {
            self.set_entities(id, ents)?;
        }
        self.tx.execute(
            "UPDATE memories SET updated_at = ?2 WHERE id = ?1",
            params![id, now],
        )?;
        self.changed(id, false)
    }

    pub fn delete(&self, id: i64) -> Result<()> {
        let n = self
            .tx
            .execute("DELETE FROM memories WHERE id = ?1", [id])?;
        if n == 0 {
            return Err(Error::NotFound(id));
        }
        self.changed(id, true)
    }

    fn changed(&self, id: i64, deleted: bool) -> Result<()> {
        self.tx
            .prepare_cached("INSERT INTO changes(memory_id, op) VALUES (?1, ?2)")?
            .execute(params![id, if deleted { "delete" } else { "upsert" }])?;
        Ok(())
    }
}
