//! The memory graph: entities a memory mentions, explicit links between memories
//! (`next` within a session, `supersedes` for a correction), and session neighbours.

use rusqlite::params;

use super::{Store, Writer};
use crate::Result;
use crate::text::Entity;

/// The kind of an explicit link between two memories, as stored in `links.kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    /// From a memory to the following one of the same session.
    Next,
    /// From a correction to the memory it corrects.
    Supersedes,
}

impl LinkKind {
    /// The spelling stored in the `links` table.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkKind::Next => "next",
            LinkKind::Supersedes => "supersedes",
        }
    }
}

impl Store {
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

    /// How many memories mention an entity, counted up to `cap` + 1 (callers only ask
    /// whether it is above a cap, and a full count of a common entity grows with the store).
    pub fn entity_degree_upto(&self, entity_id: i64, cap: i64) -> Result<i64> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT COUNT(*) FROM (SELECT 1 FROM memory_entities WHERE entity_id = ?1 LIMIT ?2)",
            )?
            .query_row(params![entity_id, cap + 1], |r| r.get(0))?)
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

    /// The memories `new` corrects (those whose `superseded_by` is `new`), oldest first.
    /// Read through the `supersedes` links, which are indexed by their source.
    pub fn superseded_by_this(&self, new: i64) -> Result<Vec<i64>> {
        let mut st = self.conn.prepare_cached(
            "SELECT l.dst FROM links l JOIN memories o ON o.id = l.dst \
             WHERE l.src = ?1 AND l.kind = ?2 AND o.superseded_by = l.src ORDER BY l.dst",
        )?;
        let rows = st.query_map(params![new, LinkKind::Supersedes.as_str()], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

impl Writer<'_> {
    /// Add (or re-weight) a link from `src` to `dst`.
    pub fn link(&self, src: i64, dst: i64, kind: LinkKind, weight: f64) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO links(src, dst, kind, weight) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![src, dst, kind.as_str(), weight])?;
        Ok(())
    }

    pub(super) fn set_entities(&self, id: i64, entities: &[Entity]) -> Result<()> {
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
}
