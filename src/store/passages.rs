//! The passages' vectors (`text::passages`): one row per memory that has more than one
//! passage, int8 with a scale; which model embedded them (`memories.passages_model`); the
//! memories still waiting for them; and the best cosine among a candidate's passages.

use rusqlite::params;

use super::Store;
use crate::Result;

/// The memories waiting for passages, through `memories_pending_passages`. The unary `+`
/// keeps SQLite off `memories_embedding_model`, which it otherwise prefers: that index holds
/// every embedded memory, so each check read the whole store (40 ms at 27,000 memories, every
/// few seconds in an idle worker) instead of only the waiting ones.
/// With each, the memory before it in its session (the source of its `next` link: same
/// profile, same scope, not bookkeeping), whose text its context passage starts with.
const PENDING_PASSAGES_SQL: &str = "SELECT m.id, m.text, m.speaker, p.text, p.speaker \
     FROM memories m LEFT JOIN memories p ON p.id = (SELECT l.src FROM links l \
     WHERE l.dst = m.id AND l.kind = 'next' ORDER BY l.src DESC LIMIT 1) \
     AND p.profile = m.profile AND p.scope = m.scope AND p.bookkeeping IS NULL \
     WHERE m.passages_model IS NULL AND +m.embedding_model = ?1 ORDER BY m.id LIMIT ?2";
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

/// A memory waiting for its passages.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingPassages {
    pub id: i64,
    pub text: String,
    pub speaker: Option<String>,
    /// The memory before it in its session, text and speaker (`text::passages`' context).
    pub before: Option<(String, Option<String>)>,
}

impl Store {
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

    /// Memories embedded by `model` whose passages are not, oldest first, each with the
    /// memory before it in its session. Found through `memories_pending_passages`.
    pub fn pending_passages(&self, model: &str, limit: usize) -> Result<Vec<PendingPassages>> {
        let mut st = self.conn.prepare_cached(PENDING_PASSAGES_SQL)?;
        let rows = st.query_map(params![model, limit as i64], |r| {
            let before: Option<String> = r.get(3)?;
            Ok(PendingPassages {
                id: r.get(0)?,
                text: r.get(1)?,
                speaker: r.get(2)?,
                before: before.map(|t| r.get(4).map(|s| (t, s))).transpose()?,
            })
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
    /// one of them. A memory waiting for its context passage after the upgrade to schema 7
    /// still has its sentences' row (a new text, a new embedding or a changed memory before
    /// it delete the row), so those keep counting until the new ones are written. One
    /// statement per [`IDS_PER_READ`] ids, like [`Store::embeddings_of`].
    pub fn best_passage_cosines(
        &self,
        ids: &[i64],
        model: &str,
        q: &[f32],
    ) -> Result<std::collections::HashMap<i64, f32>> {
        let mut out = std::collections::HashMap::new();
        self.each_row_of(
            "SELECT p.memory_id, p.vectors FROM passages p JOIN memories m ON m.id = p.memory_id \
             WHERE p.memory_id IN ({marks}) \
             AND COALESCE(m.passages_model, m.embedding_model) = ?",
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
}

/// Forget a memory's passages (a new text or a new embedding): its row goes and it waits
/// for them again. One place for what the writer and `set_embeddings` both need.
pub(super) fn drop_passages(tx: &rusqlite::Transaction<'_>, id: i64) -> Result<()> {
    tx.prepare_cached("DELETE FROM passages WHERE memory_id = ?1")?
        .execute([id])?;
    tx.prepare_cached("UPDATE memories SET passages_model = NULL WHERE id = ?1")?
        .execute([id])?;
    Ok(())
}

/// Replace the passages of `ids` and mark them done by `model`.
fn write_passages(
    tx: &rusqlite::Transaction<'_>,
    model: &str,
    ids: &[i64],
    passages: &[(i64, Vec<Vec<f32>>)],
) -> Result<()> {
    let mut done = tx.prepare_cached("UPDATE memories SET passages_model = ?2 WHERE id = ?1")?;
    for id in ids {
        drop_passages(tx, *id)?;
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
    use crate::store::embeddings::tests::store_of;

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

    /// The memories waiting for passages by model "m".
    fn waiting(s: &Store) -> Vec<i64> {
        s.pending_passages("m", 10)
            .unwrap()
            .into_iter()
            .map(|r| r.id)
            .collect()
    }

    /// Give memory `id` a new text, as `slm edit` does.
    fn new_text(store: &mut Store, id: i64, text: &str) {
        let patch = crate::memory::MemoryPatch {
            text: Some(text.into()),
            ..Default::default()
        };
        store
            .write(|w| w.update(id, &patch, 2, Some(&[]), None))
            .unwrap();
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
        new_text(&mut store, ids[0], "note 0, said again");
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
    fn a_memory_waits_again_when_the_one_before_it_in_its_session_changes_or_goes() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("store.db")).unwrap();
        let said = |text: &str, speaker: &str, session: &str| crate::memory::NewMemory {
            text: text.into(),
            speaker: Some(speaker.into()),
            session_id: Some(session.into()),
            ..Default::default()
        };
        let ids: Vec<i64> = store
            .write(|w| {
                [
                    said("What did you paint?", "Caroline", "s1"),
                    said("A sunset over the lake.", "Mel", "s1"),
                    said("It took two days.", "Mel", "s1"),
                    said("Unrelated, elsewhere.", "Mel", "s2"),
                ]
                .iter()
                .map(|m| w.insert(m, 1, &[], None).map(|r| r.id))
                .collect()
            })
            .unwrap();
        let rows: Vec<(i64, Vec<f32>)> = ids.iter().map(|id| (*id, unit(*id as u64, 8))).collect();
        store.set_embeddings("m", &rows).unwrap();
        let pending = store.pending_passages("m", 10).unwrap();
        let before: Vec<Option<(String, Option<String>)>> =
            pending.iter().map(|p| p.before.clone()).collect();
        assert_eq!(
            before,
            vec![
                None,
                Some(("What did you paint?".into(), Some("Caroline".into()))),
                Some(("A sunset over the lake.".into(), Some("Mel".into()))),
                None,
            ]
        );
        let all_done = |store: &mut Store| {
            let with: Vec<(i64, Vec<Vec<f32>>)> =
                ids.iter().map(|id| (*id, vec![unit(90, 8)])).collect();
            store.set_passages("m", &ids, &with).unwrap();
        };
        all_done(&mut store);
        assert!(waiting(&store).is_empty());
        // The upgrade to schema 7 (its last statement, again): the memories with one before
        // them wait for their context passage, and their sentences count meanwhile.
        store
            .conn
            .execute_batch(
                "UPDATE memories SET passages_model = NULL \
                 WHERE id IN (SELECT dst FROM links WHERE kind = 'next')",
            )
            .unwrap();
        assert_eq!(waiting(&store), vec![ids[1], ids[2]]);
        let q = unit(90, 8);
        assert_eq!(store.best_passage_cosines(&ids, "m", &q).unwrap().len(), 4);
        assert!(
            store
                .best_passage_cosines(&ids, "other", &q)
                .unwrap()
                .is_empty()
        );
        all_done(&mut store);
        // A new text of the first: it waits (its own embedding went too, so it waits for
        // that first), and the one after it waits for a new context passage.
        new_text(&mut store, ids[0], "What did you paint last week?");
        assert_eq!(waiting(&store), vec![ids[1]]);
        store.set_embeddings("m", &rows[..1]).unwrap();
        assert_eq!(waiting(&store), vec![ids[0], ids[1]]);
        all_done(&mut store);
        // The middle one goes: the one after it waits, now without a memory before it.
        store.write(|w| w.delete(ids[1])).unwrap();
        let left = store.pending_passages("m", 10).unwrap();
        assert_eq!(left.iter().map(|p| p.id).collect::<Vec<_>>(), vec![ids[2]]);
        assert_eq!(left[0].before, None);
        let rows_left: i64 = store
            .conn
            .query_row("SELECT COUNT(*) FROM passages", [], |r| r.get(0))
            .unwrap();
        assert_eq!(
            rows_left, 2,
            "the first memory and the one in s2 keep theirs"
        );
    }

    #[test]
    fn a_memory_of_another_scope_or_bookkeeping_is_no_context() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("store.db")).unwrap();
        let in_s3 = |text: &str, scope: crate::memory::Scope| crate::memory::NewMemory {
            text: text.into(),
            scope: Some(scope),
            session_id: Some("s3".into()),
            ..Default::default()
        };
        use crate::memory::Scope::{Personal, Shared};
        let ids: Vec<i64> = store
            .write(|w| {
                Ok(vec![
                    w.insert(
                        &in_s3("My salary review is on Monday.", Personal),
                        1,
                        &[],
                        None,
                    )?
                    .id,
                    // Shared after personal: the personal words must not reach it.
                    w.insert(&in_s3("The team offsite is in May.", Shared), 1, &[], None)?
                        .id,
                    w.insert(&in_s3("session ended", Shared), 1, &[], Some("hook noise"))?
                        .id,
                    // After bookkeeping: no context rather than hook noise.
                    w.insert(&in_s3("Venue booked in Porto.", Shared), 1, &[], None)?
                        .id,
                    w.insert(&in_s3("Flights are on the 3rd.", Shared), 1, &[], None)?
                        .id,
                ])
            })
            .unwrap();
        let rows: Vec<(i64, Vec<f32>)> = ids.iter().map(|id| (*id, unit(*id as u64, 8))).collect();
        store.set_embeddings("m", &rows).unwrap();
        let before: Vec<(i64, Option<String>)> = store
            .pending_passages("m", 10)
            .unwrap()
            .into_iter()
            .map(|p| (p.id, p.before.map(|b| b.0)))
            .collect();
        assert_eq!(
            before,
            vec![
                (ids[0], None),
                (ids[1], None),
                (ids[2], Some("The team offsite is in May.".into())),
                (ids[3], None),
                (ids[4], Some("Venue booked in Porto.".into())),
            ]
        );
    }
}
