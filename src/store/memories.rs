//! Reading memories: one by id, listings by filter, the small per-memory metadata rows
//! recall filters and scores by, counts and idempotency keys.

use rusqlite::{OptionalExtension, params};

use super::Store;
use crate::Result;
use crate::memory::{Kind, Memory, Scope, Source};

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
    /// This project's memories and those with none (None: every project).
    #[serde(default)]
    pub project: Option<String>,
    #[serde(default)]
    pub scope: Option<Scope>,
    /// Rows skipped before the first returned (the dashboard's pages).
    #[serde(default)]
    pub offset: Option<usize>,
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
    /// The project it was written in (None: every project sees it).
    pub project: Option<String>,
}

const MEMORY_COLUMNS: &str = "id, text, kind, source, profile, scope, session_id, speaker, created_at, event_at, \
     valid_from, valid_until, known_at, updated_at, pinned, bookkeeping, superseded_by, confidence, trust, \
     (SELECT k.key FROM idempotency_keys k WHERE k.memory_id = m.id), baseline_sim, embedding_model, origin, \
     seen_count, last_seen_at, project";

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
        seen_count: r.get(23)?,
        last_seen_at: r.get(24)?,
        project: r.get(25)?,
    })
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
        project: r.get(15)?,
    })
}

impl Store {
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

    /// Who said the memory (None for a plain note).
    pub fn speaker(&self, id: i64) -> Result<Option<String>> {
        Ok(self
            .conn
            .prepare_cached("SELECT speaker FROM memories WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?
            .flatten())
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
        if let Some(p) = &f.project {
            sql.push_str(" AND (project IS NULL OR project = ?)");
            args.push(p.clone().into());
        }
        if let Some(k) = f.kind {
            sql.push_str(" AND kind = ?");
            args.push(k.as_str().to_string().into());
        }
        if let Some(sc) = f.scope {
            sql.push_str(" AND scope = ?");
            args.push(sc.as_str().to_string().into());
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
        match (f.limit, f.offset) {
            (Some(l), Some(o)) => sql.push_str(&format!(" LIMIT {l} OFFSET {o}")),
            (Some(l), None) => sql.push_str(&format!(" LIMIT {l}")),
            (None, Some(o)) => sql.push_str(&format!(" LIMIT -1 OFFSET {o}")),
            (None, None) => {}
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
             known_at, pinned, bookkeeping IS NOT NULL, superseded_by IS NOT NULL, baseline_sim, project FROM memories ORDER BY id",
        )?;
        let rows = st.query_map([], meta_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn meta(&self, id: i64) -> Result<Option<MetaRow>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT id, profile, scope, kind, source, session_id, created_at, event_at, valid_from, valid_until, \
                 known_at, pinned, bookkeeping IS NOT NULL, superseded_by IS NOT NULL, baseline_sim, project FROM memories WHERE id = ?1",
            )?
            .query_row([id], meta_row)
            .optional()?)
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
}
