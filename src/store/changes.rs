//! The change log: every write appends a row, and its last `seq` is the store generation
//! the derived indexes compare themselves with to catch up.

use rusqlite::params;

use super::{Store, Writer};
use crate::Result;

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

impl Store {
    /// The store generation: the last change seq (0 for an empty store).
    pub fn generation(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("SELECT COALESCE(MAX(seq), 0) FROM changes", [], |r| {
                r.get(0)
            })?)
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
}

impl Writer<'_> {
    pub(super) fn changed(&self, id: i64, deleted: bool) -> Result<()> {
        self.tx
            .prepare_cached("INSERT INTO changes(memory_id, op) VALUES (?1, ?2)")?
            .execute(params![id, if deleted { "delete" } else { "upsert" }])?;
        Ok(())
    }
}
