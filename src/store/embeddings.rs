//! Stored embeddings: their blob encoding, reading them back for the vector index,
//! the queue of memories still waiting for one, the passages' vectors (`text::passages`)
//! and the per-memory similarity baselines.

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

/// The memories waiting for passages, through `memories_pending_passages`. The unary `+`
/// keeps SQLite off `memories_embedding_model`, which it otherwise prefers: that index holds
/// every embedded memory, so each check read the whole store (40 ms at 27,000 memories, every
/// few seconds in an idle worker) instead of only the waiting ones.
const PENDING_PASSAGES_SQL: &str = "SELECT id, text, speaker FROM memories \
     WHERE passages_model IS NULL AND +embedding_model = ?1 ORDER BY id LIMIT ?2";
const PENDING_PASSAGES_COUNT_SQL: &str =
    "SELECT COUNT(*) FROM memories WHERE passages_model IS NULL AND +embedding_model = ?1";

/// Passage vectors are stored as int8, each vector as its scale (f32, the largest magnitude
/// over 127) then one byte a dimension: a quarter of f32's size. They only rescore the
/// semantic channel's candidates, where the cosine error (below 0.005 for unit vectors of
/// 768 dims, see the test) does not move a ranking that f32 would keep.
pub fn passages_to_blob(vs: &[Vec<f32>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(vs.iter().map(|v| 4 + v.len()).sum());
    for v in vs {
        let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
        out.extend_from_slice(&scale.to_le_bytes());
        out.extend(
            v.iter()
                .map(|x| ((x / scale).round().clamp(-127.0, 127.0) as i8) as u8),
        );
    }
    out
}

/// The largest cosine between `q` and the passage vectors of one blob (`dim` each).
pub fn best_passage_cosine(blob: &[u8], dim: usize, q: &[f32]) -> Option<f32> {
    if dim == 0 || q.len() != dim {
        return None;
    }
    let qn = q.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    blob.chunks_exact(4 + dim)
        .map(|c| {
            let scale = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            let (mut dot, mut nn) = (0f32, 0f32);
            for (b, x) in c[4..].iter().zip(q) {
                let v = (*b as i8) as f32;
                dot += v * x;
                nn += v * v;
            }
            let vn = (nn.sqrt() * scale).max(1e-12);
            dot * scale / (vn * qn)
        })
        .reduce(f32::max)
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
    fn each_row_of(
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
                "UPDATE memories SET embedding = ?2, embedding_model = ?3, embedding_dim = ?4, \
                 passages_model = NULL WHERE id = ?1",
            )?;
            for (id, v) in rows {
                st.execute(params![id, f32s_to_blob(v), model, v.len() as i64])?;
            }
            let mut ch =
                tx.prepare_cached("INSERT INTO changes(memory_id, op) VALUES (?1, 'embed')")?;
            let mut del = tx.prepare_cached("DELETE FROM passages WHERE memory_id = ?1")?;
            for (id, _) in rows {
                ch.execute([id])?;
                del.execute([id])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Set the passages' vectors of memories whose own embedding by `model` is stored, and
    /// mark them done. `ids` are all the memories done, those with no passage included.
    pub fn set_passages(
        &mut self,
        model: &str,
        ids: &[i64],
        passages: &[(i64, Vec<Vec<f32>>)],
    ) -> Result<()> {
        let tx = self.conn.transaction()?;
        write_passages(&tx, model, ids, passages)?;
        tx.commit()?;
        Ok(())
    }

    /// Memories embedded by `model` whose passages are not, oldest first: (id, text,
    /// speaker). Found through `memories_pending_passages`.
    pub fn pending_passages(
        &self,
        model: &str,
        limit: usize,
    ) -> Result<Vec<(i64, String, Option<String>)>> {
        let mut st = self.conn.prepare_cached(PENDING_PASSAGES_SQL)?;
        let rows = st.query_map(params![model, limit as i64], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// How many memories wait for passages by `model` (as `pending_passages`).
    pub fn pending_passage_count(&self, model: &str) -> Result<i64> {
        Ok(self
            .conn
            .query_row(PENDING_PASSAGES_COUNT_SQL, [model], |r| r.get(0))?)
    }

    /// For each of `ids` whose passages `model` embedded, the largest cosine between `q` and
    /// one of them. One statement per [`IDS_PER_READ`] ids, like [`Store::embeddings_of`].
    pub fn best_passage_cosines(
        &self,
        ids: &[i64],
        model: &str,
        q: &[f32],
    ) -> Result<std::collections::HashMap<i64, f32>> {
        let mut out = std::collections::HashMap::new();
        self.each_row_of(
            "SELECT p.memory_id, p.vectors FROM passages p JOIN memories m ON m.id = p.memory_id \
             WHERE p.memory_id IN ({marks}) AND m.passages_model = ?",
            ids,
            model,
            |r| {
                let b: Vec<u8> = r.get(1)?;
                if let Some(c) = best_passage_cosine(&b, q.len(), q) {
                    out.insert(r.get(0)?, c);
                }
                Ok(())
            },
        )?;
        Ok(out)
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

/// Replace the passages of `ids` and mark them done by `model`.
fn write_passages(
    tx: &rusqlite::Transaction<'_>,
    model: &str,
    ids: &[i64],
    passages: &[(i64, Vec<Vec<f32>>)],
) -> Result<()> {
    let mut del = tx.prepare_cached("DELETE FROM passages WHERE memory_id = ?1")?;
    let mut done = tx.prepare_cached("UPDATE memories SET passages_model = ?2 WHERE id = ?1")?;
    for id in ids {
        del.execute([id])?;
        done.execute(params![id, model])?;
    }
    let mut ins = tx.prepare_cached("INSERT INTO passages(memory_id, vectors) VALUES (?1, ?2)")?;
    for (id, vs) in passages.iter().filter(|(_, vs)| !vs.is_empty()) {
        ins.execute(params![id, passages_to_blob(vs)])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::NewMemory;

    /// A store in a temporary directory holding `n` memories, and their ids in order.
    fn store_of(n: usize) -> (tempfile::TempDir, Store, Vec<i64>) {
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

    /// A deterministic unit vector of `dim` (a hash walk; no rand crate needed).
    fn unit(seed: u64, dim: usize) -> Vec<f32> {
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut v: Vec<f32> = (0..dim)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 33) as f32 / (1u64 << 31) as f32) - 0.5
            })
            .collect();
        crate::embed::normalize(&mut v);
        v
    }

    #[test]
    fn int8_passages_keep_the_best_cosine_within_a_few_thousandths() {
        let q = unit(1, 768);
        let mut worst = 0f32;
        for seed in 2..40u64 {
            // A passage near the question and two unrelated ones.
            let mut near: Vec<f32> = q
                .iter()
                .zip(unit(seed, 768))
                .map(|(a, b)| a + 0.6 * b)
                .collect();
            crate::embed::normalize(&mut near);
            let vs = vec![unit(seed + 100, 768), near.clone(), unit(seed + 200, 768)];
            let exact = vs
                .iter()
                .map(|v| crate::embed::cosine(&q, v))
                .fold(f32::MIN, f32::max);
            let blob = passages_to_blob(&vs);
            assert_eq!(blob.len(), 3 * (4 + 768));
            let got = best_passage_cosine(&blob, 768, &q).unwrap();
            worst = worst.max((got - exact).abs());
        }
        assert!(worst < 0.005, "worst cosine error {worst}");
        assert_eq!(best_passage_cosine(&[], 768, &q), None);
        assert_eq!(
            best_passage_cosine(&passages_to_blob(&[q.clone()]), 4, &q),
            None
        );
    }

    #[test]
    fn passages_wait_for_their_memory_are_read_by_model_and_go_with_it() {
        let (_dir, mut store, ids) = store_of(3);
        let q = unit(7, 8);
        let rows: Vec<(i64, Vec<f32>)> = ids.iter().map(|id| (*id, unit(*id as u64, 8))).collect();
        store.set_embeddings("m", &rows).unwrap();
        // Embedded memories wait for their passages; another model's do not count.
        let waiting = |s: &Store| -> Vec<i64> {
            s.pending_passages("m", 10)
                .unwrap()
                .into_iter()
                .map(|r| r.0)
                .collect()
        };
        assert_eq!(waiting(&store), ids);
        assert_eq!(store.pending_passage_count("m").unwrap(), 3);
        // Through the index of the waiting ones, never a walk over every embedded memory.
        for (sql, args) in [
            (PENDING_PASSAGES_SQL, params!["m", 1]),
            (PENDING_PASSAGES_COUNT_SQL, params!["m"]),
        ] {
            let plan: Vec<String> = store
                .conn
                .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .unwrap()
                .query_map(args, |r| r.get::<_, String>(3))
                .unwrap()
                .map(|r| r.unwrap())
                .collect();
            assert!(
                plan.iter().any(|p| p.contains("memories_pending_passages")),
                "{sql}: {plan:?}"
            );
        }
        assert!(store.pending_passages("other", 10).unwrap().is_empty());
        // Done: two with passages, one of a single passage (no row).
        let near = unit(7, 8);
        store
            .set_passages(
                "m",
                &ids,
                &[
                    (ids[0], vec![unit(50, 8), near]),
                    (ids[1], vec![unit(51, 8)]),
                ],
            )
            .unwrap();
        assert!(waiting(&store).is_empty());
        let best = store.best_passage_cosines(&ids, "m", &q).unwrap();
        assert_eq!(best.len(), 2);
        assert!((best[&ids[0]] - 1.0).abs() < 0.01, "{best:?}");
        assert!(
            store
                .best_passage_cosines(&ids, "other", &q)
                .unwrap()
                .is_empty()
        );
        // A new embedding of the memory (a new text or model) drops its passages until
        // they are embedded again.
        store.set_embeddings("m", &rows[..1]).unwrap();
        assert_eq!(waiting(&store), vec![ids[0]]);
        assert!(
            !store
                .best_passage_cosines(&ids, "m", &q)
                .unwrap()
                .contains_key(&ids[0])
        );
        // A changed text does too; a deleted memory takes its passages with it.
        store
            .set_passages("m", &ids[..1], &[(ids[0], vec![unit(52, 8)])])
            .unwrap();
        let patch = crate::memory::MemoryPatch {
            text: Some("note 0, said again".into()),
            ..Default::default()
        };
        store
            .write(|w| w.update(ids[0], &patch, 2, Some(&[]), None))
            .unwrap();
        assert!(
            !store
                .best_passage_cosines(&ids, "m", &q)
                .unwrap()
                .contains_key(&ids[0])
        );
        store.write(|w| w.delete(ids[1])).unwrap();
        let left: i64 = store
            .conn
            .query_row("SELECT COUNT(*) FROM passages", [], |r| r.get(0))
            .unwrap();
        assert_eq!(left, 0);
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
