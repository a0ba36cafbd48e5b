//! Stored embeddings: their blob encoding, reading them back for the vector index,
//! the queue of memories still waiting for one, and the per-memory similarity baselines.

use rusqlite::{OptionalExtension, params};

use super::Store;
use crate::Result;

pub fn f32s_to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn blob_to_f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

impl Store {
    pub fn embedding(&self, id: i64) -> Result<Option<Vec<f32>>> {
        let b: Option<Option<Vec<u8>>> = self
            .conn
            .prepare_cached("SELECT embedding FROM memories WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?;
        Ok(b.flatten().map(|b| blob_to_f32s(&b)))
    }

    /// A memory's embedding when `model` made it (None: no embedding yet, another model's,
    /// or no such memory).
    pub fn embedding_by(&self, id: i64, model: &str) -> Result<Option<Vec<f32>>> {
        let b: Option<Option<Vec<u8>>> = self
            .conn
            .prepare_cached(
                "SELECT embedding FROM memories WHERE id = ?1 AND embedding_model = ?2",
            )?
            .query_row(params![id, model], |r| r.get(0))
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
}
