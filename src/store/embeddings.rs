//! Stored embeddings: their blob encoding, reading them back for the vector index,
//! the queue of memories still waiting for one, and the per-memory similarity baselines.
//! The passages' vectors are in `passages`.

use rusqlite::{OptionalExtension, params};

use super::Store;
use crate::Result;

/// Ids read by one statement of [`Store::embeddings_of`]: the semantic channel's depth (100),
/// so a recall's candidates take one statement.
/// Well below SQLite's limit on bound parameters (32,766).
pub const IDS_PER_READ: usize = 100;

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

    /// The embeddings `model` made of the memories `ids` (missing ids, and memories without
    /// one of that model's, are left out). One statement per [`IDS_PER_READ`] ids: recall
    /// reads the semantic channel's candidates this way on every question.
    pub fn embeddings_of(
        &self,
        ids: &[i64],
        model: &str,
    ) -> Result<std::collections::HashMap<i64, Vec<f32>>> {
        let mut out = std::collections::HashMap::with_capacity(ids.len());
        self.each_row_of(
            "SELECT id, embedding FROM memories WHERE id IN ({marks}) AND embedding_model = ?",
            ids,
            model,
            |r| {
                let b: Option<Vec<u8>> = r.get(1)?;
                if let Some(b) = b {
                    out.insert(r.get(0)?, blob_to_f32s(&b));
                }
                Ok(())
            },
        )?;
        Ok(out)
    }

    /// Run `sql` once per [`IDS_PER_READ`] of `ids`: `{marks}` in it becomes their
    /// placeholders, and one `?` after them takes `model`. `each` sees every row.
    pub(super) fn each_row_of(
        &self,
        sql: &str,
        ids: &[i64],
        model: &str,
        mut each: impl FnMut(&rusqlite::Row<'_>) -> Result<()>,
    ) -> Result<()> {
        for chunk in ids.chunks(IDS_PER_READ) {
            let marks = vec!["?"; chunk.len()].join(",");
            let mut st = self.conn.prepare_cached(&sql.replace("{marks}", &marks))?;
            let args = chunk
                .iter()
                .map(|id| id as &dyn rusqlite::ToSql)
                .chain(std::iter::once(&model as &dyn rusqlite::ToSql));
            let mut rows = st.query(rusqlite::params_from_iter(args))?;
            while let Some(r) = rows.next()? {
                each(r)?;
            }
        }
        Ok(())
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

    /// Memories still waiting for an embedding by `model` (none, or one from another model),
    /// oldest first. The waiting ones are found through indexes (no embedding:
    /// `memories_pending_embedding`; another model's: `memories_embedding_model`), so the
    /// cost follows how many wait, not how many are stored.
    pub fn pending_embeddings(&self, model: &str, limit: usize) -> Result<Vec<(i64, String)>> {
        let mut st = self.conn.prepare_cached(
            "SELECT id, text FROM memories WHERE id IN (\
                 SELECT id FROM memories WHERE embedding IS NULL \
                 UNION ALL SELECT id FROM memories WHERE embedding_model < ?1 \
                 UNION ALL SELECT id FROM memories WHERE embedding_model > ?1) \
             ORDER BY id LIMIT ?2",
        )?;
        let rows = st.query_map(params![model, limit as i64], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// How many memories wait for an embedding by `model` (as `pending_embeddings`, counted
    /// through the same indexes).
    pub fn pending_embedding_count(&self, model: &str) -> Result<i64> {
        Ok(self.conn.query_row(
            "SELECT (SELECT COUNT(*) FROM memories WHERE embedding IS NULL) \
                  + (SELECT COUNT(*) FROM memories WHERE embedding_model < ?1) \
                  + (SELECT COUNT(*) FROM memories WHERE embedding_model > ?1)",
            [model],
            |r| r.get(0),
        )?)
    }

    /// A deterministic sample of stored embeddings by `model`, for baselines: up to `n`,
    /// spread evenly over the range of ids (the first embedded memory at or after each of
    /// `n` evenly spaced ids). Each probe is one seek on the row id, so the cost does not grow
    /// with the store: it runs after every embedded batch, and the former "every k-th row"
    /// scan read the whole table each time, which made a million-memory import quadratic
    /// (`slm bench recall --memories 1000000`: 590 memories/s at the start, 240 at 200,000).
    pub fn sample_embeddings(&self, model: &str, n: usize) -> Result<Vec<(i64, Vec<f32>)>> {
        // Two queries: SQLite reads MIN or MAX alone from the end of the row-id tree, but
        // both in one query by scanning the table (152 ms at a million memories).
        let end = |sql: &str| -> Result<Option<i64>> {
            Ok(self.conn.prepare_cached(sql)?.query_row([], |r| r.get(0))?)
        };
        let (lo, hi) = (
            end("SELECT MIN(id) FROM memories")?,
            end("SELECT MAX(id) FROM memories")?,
        );
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return Ok(Vec::new());
        };
        let mut st = self.conn.prepare_cached(
            "SELECT id, embedding FROM memories WHERE id >= ?1 AND embedding IS NOT NULL \
             AND embedding_model = ?2 ORDER BY id LIMIT 1",
        )?;
        let span = (hi - lo + 1) as f64;
        let mut out: Vec<(i64, Vec<f32>)> = Vec::with_capacity(n);
        for i in 0..n {
            let at = lo + (span * i as f64 / n.max(1) as f64) as i64;
            let at = out.last().map_or(at, |(last, _)| at.max(last + 1));
            if at > hi {
                break;
            }
            let row = st
                .query_row(params![at, model], |r| {
                    let b: Vec<u8> = r.get(1)?;
                    Ok((r.get(0)?, blob_to_f32s(&b)))
                })
                .optional()?;
            match row {
                Some(r) => out.push(r),
                // Nothing embedded by this model from here on: later probes start later.
                None => break,
            }
        }
        Ok(out)
    }

    /// Set embeddings for many memories at once (one transaction), logged as `embed` changes
    /// so the vector index catches up and the keyword index skips them. Their passages wait
    /// to be embedded again (a new text or a new model; [`Store::pending_passages`]).
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
                super::passages::drop_passages(&tx, *id)?;
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
        // Through `memories_baseline_n`: a store whose baselines are all fresh answers at once.
        let mut st = self.conn.prepare_cached(
            "SELECT id FROM memories WHERE id IN (\
                 SELECT id FROM memories WHERE baseline_n IS NULL \
                 UNION ALL SELECT id FROM memories WHERE baseline_n < ?2) \
             AND embedding IS NOT NULL AND embedding_model = ?1 ORDER BY id LIMIT ?3",
        )?;
        let rows = st.query_map(params![model, n, limit as i64], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::memory::NewMemory;

    /// A store in a temporary directory holding `n` memories, and their ids in order.
    pub(in crate::store) fn store_of(n: usize) -> (tempfile::TempDir, Store, Vec<i64>) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("store.db")).unwrap();
        let ids = store
            .write(|w| {
                (0..n)
                    .map(|i| {
                        let m = NewMemory {
                            text: format!("note {i}"),
                            ..Default::default()
                        };
                        w.insert(&m, 1, &[], None).map(|r| r.id)
                    })
                    .collect()
            })
            .unwrap();
        (dir, store, ids)
    }

    #[test]
    fn embeddings_of_reads_only_the_models_vectors_of_the_ids_asked_past_one_statement() {
        let (_dir, mut store, ids) = store_of(250);
        // Even ids by model-a, odd by model-b; the last ten have none.
        let rows = |parity: i64| -> Vec<(i64, Vec<f32>)> {
            ids[..240]
                .iter()
                .filter(|id| *id % 2 == parity)
                .map(|id| (*id, vec![*id as f32, 0.5]))
                .collect()
        };
        store.set_embeddings("model-a", &rows(0)).unwrap();
        store.set_embeddings("model-b", &rows(1)).unwrap();
        let mut asked: Vec<i64> = ids.iter().rev().copied().collect();
        asked.push(999_999); // no such memory
        assert!(asked.len() > 2 * IDS_PER_READ);
        let got = store.embeddings_of(&asked, "model-a").unwrap();
        let want: Vec<i64> = ids[..240]
            .iter()
            .filter(|id| *id % 2 == 0)
            .copied()
            .collect();
        let mut got_ids: Vec<i64> = got.keys().copied().collect();
        got_ids.sort();
        assert_eq!(got_ids, want);
        for (id, v) in &got {
            assert_eq!(v, &vec![*id as f32, 0.5]);
        }
        assert!(store.embeddings_of(&[], "model-a").unwrap().is_empty());
    }

    #[test]
    fn the_baseline_sample_is_spread_over_the_store_and_only_the_models() {
        let (_dir, mut store, ids) = store_of(100);
        // Every third memory by model-a, the rest by model-b.
        let rows = |keep: usize| -> Vec<(i64, Vec<f32>)> {
            ids.iter()
                .enumerate()
                .filter(|(i, _)| (i % 3 == 0) == (keep == 0))
                .map(|(_, id)| (*id, vec![*id as f32, 1.0]))
                .collect()
        };
        store.set_embeddings("model-a", &rows(0)).unwrap();
        store.set_embeddings("model-b", &rows(1)).unwrap();
        let a = store.sample_embeddings("model-a", 10).unwrap();
        assert_eq!(a.len(), 10);
        let a_ids: Vec<i64> = a.iter().map(|(id, _)| *id).collect();
        assert!(a_ids.windows(2).all(|w| w[0] < w[1]), "{a_ids:?}");
        assert!(a_ids.iter().all(|id| (id - ids[0]) % 3 == 0), "{a_ids:?}");
        // Spread: from the first tenth to the last.
        assert!(a_ids[0] < ids[10] && a_ids[9] > ids[85], "{a_ids:?}");
        assert_eq!(a[0].1, vec![a_ids[0] as f32, 1.0]);
        // Asking for more than there are gives each once; no model, none.
        assert_eq!(store.sample_embeddings("model-a", 500).unwrap().len(), 34);
        assert!(store.sample_embeddings("model-c", 10).unwrap().is_empty());
    }

    #[test]
    fn waiting_memories_and_stale_baselines_are_found_through_their_indexes() {
        let (_dir, mut store, ids) = store_of(6);
        // 0, 1: model "m"; 2: model "a" (sorts before "m"); 3: model "z" (after); 4, 5: none.
        store
            .set_embeddings("m", &[(ids[0], vec![1.0, 0.0]), (ids[1], vec![0.0, 1.0])])
            .unwrap();
        store
            .set_embeddings("a", &[(ids[2], vec![1.0, 0.0])])
            .unwrap();
        store
            .set_embeddings("z", &[(ids[3], vec![1.0, 0.0])])
            .unwrap();
        let waiting: Vec<i64> = store
            .pending_embeddings("m", 10)
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(waiting, ids[2..].to_vec());
        assert_eq!(store.pending_embedding_count("m").unwrap(), 4);
        assert_eq!(store.pending_embeddings("m", 2).unwrap().len(), 2);
        // Without a model every embedded memory waits too (as before the indexes).
        assert_eq!(store.pending_embedding_count("").unwrap(), 6);

        // Baselines: none measured yet, so both of model m's memories are stale; measured
        // against 4 memories, they are stale only once the store counts more than that.
        assert_eq!(
            store.stale_baselines("m", 1, 10).unwrap(),
            ids[..2].to_vec()
        );
        store
            .set_baselines(&[(ids[0], 0.1, 4), (ids[1], 0.1, 4)])
            .unwrap();
        assert!(store.stale_baselines("m", 4, 10).unwrap().is_empty());
        assert_eq!(store.stale_baselines("m", 5, 1).unwrap(), vec![ids[0]]);
        assert!(store.stale_baselines("a", 1, 10).unwrap() == vec![ids[2]]);
    }
}
