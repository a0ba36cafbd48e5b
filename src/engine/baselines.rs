//! Per-memory baselines: each memory's mean cosine to a fixed sample of the store, so the
//! support check asks more of memories that sit near everything (ids and hashes). Measured
//! when a memory is embedded, refreshed as the store grows.

use super::Engine;
use crate::Result;
use crate::embed;
use std::sync::Arc;

/// Memories in the sample each memory's baseline similarity is measured against.
/// 64 gives a mean whose standard error is ~0.01 for MiniLM cosines (sd ≈ 0.1).
pub const BASELINE_SAMPLE: usize = 64;
/// Recompute a memory's baseline once the store has grown past this factor of the size it
/// was measured at, so baselines stay current as the store grows.
pub const BASELINE_REFRESH_GROWTH: f64 = 2.0;
/// Typical mean cosine between unrelated MiniLM embeddings of short texts (measured on
/// LoCoMo turns: 0.10–0.20). Baselines shrink toward it, so a small store's few samples
/// cannot make every memory look typical of everything.
pub const BASELINE_PRIOR: f32 = 0.15;
/// Pseudo-count of the prior in that shrinkage (a full 64-memory sample outweighs it 4:1).
pub const BASELINE_PRIOR_WEIGHT: f64 = 16.0;

/// Mean of `n` cosines summing to `sum`, shrunk toward [`BASELINE_PRIOR`].
pub fn shrink_baseline(sum: f64, n: usize) -> f64 {
    (sum + BASELINE_PRIOR_WEIGHT * BASELINE_PRIOR as f64) / (n as f64 + BASELINE_PRIOR_WEIGHT)
}

impl Engine {
    /// The fixed sample of stored embeddings that baselines are measured against (cached).
    pub fn baseline_sample(&self) -> Arc<Vec<Vec<f32>>> {
        if let Ok(g) = self.baseline_sample.read() {
            if let Some(s) = g.as_ref() {
                return s.clone();
            }
        }
        let sample = match (&self.embedder, self.store()) {
            (Some(e), Ok(st)) => st
                .sample_embeddings(e.id(), BASELINE_SAMPLE)
                .unwrap_or_default()
                .into_iter()
                .map(|(_, v)| v)
                .collect(),
            _ => Vec::new(),
        };
        let arc = Arc::new(sample);
        if let Ok(mut g) = self.baseline_sample.write() {
            *g = Some(arc.clone());
        }
        arc
    }

    /// Forget the cached sample (the store changed under it).
    pub(super) fn forget_baseline_sample(&self) {
        if let Ok(mut g) = self.baseline_sample.write() {
            *g = None;
        }
    }

    /// Up to `limit` memories embedded by `model` whose baseline was measured when the store
    /// was smaller than 1/[`BASELINE_REFRESH_GROWTH`] of its size now, and that size.
    fn stale_baselines(&self, model: &str, limit: usize) -> Result<(Vec<i64>, i64)> {
        let store = self.store()?;
        let total = store.count()?;
        let grown_from = (total as f64 / BASELINE_REFRESH_GROWTH).floor() as i64;
        Ok((
            store.stale_baselines(model, grown_from.max(1), limit)?,
            total,
        ))
    }

    pub(super) fn baselines_stale(&self) -> Result<bool> {
        let Some(e) = &self.embedder else {
            return Ok(false);
        };
        let (ids, total) = self.stale_baselines(e.id(), 1)?;
        Ok(total >= 2 && !ids.is_empty())
    }

    /// Each memory's baseline: its mean cosine to a fixed sample of stored memories. A memory
    /// made of ids and hashes sits near everything, so its baseline is high and the support
    /// check asks more of it.
    pub(super) fn compute_baselines(&self, rows: &[(i64, Vec<f32>)]) -> Result<()> {
        let Some(e) = &self.embedder else {
            return Ok(());
        };
        // The store's size from the in-memory metadata (one row per memory): a COUNT(*) here
        // ran after every embedded batch, 15-27 ms at a million memories.
        let total = self.with_meta(|m| m.len() as i64)?;
        let mut store = self.store()?;
        let sample = store.sample_embeddings(e.id(), BASELINE_SAMPLE)?;
        let out: Vec<(i64, f32, i64)> = rows
            .iter()
            .map(|(id, v)| {
                let others: Vec<f32> = sample
                    .iter()
                    .filter(|(sid, _)| sid != id)
                    .map(|(_, s)| embed::cosine(v, s))
                    .collect();
                let mean =
                    shrink_baseline(others.iter().map(|x| *x as f64).sum(), others.len()) as f32;
                (*id, mean, total)
            })
            .collect();
        store.set_baselines(&out)
    }

    /// Recompute baselines measured when the store was much smaller.
    pub fn refresh_baselines(&self, limit: usize) -> Result<usize> {
        let Some(e) = &self.embedder else {
            return Ok(0);
        };
        let (ids, total) = self.stale_baselines(e.id(), limit)?;
        if ids.is_empty() || total < 2 {
            return Ok(0);
        }
        let rows: Vec<(i64, Vec<f32>)> = {
            let store = self.store()?;
            ids.iter()
                .filter_map(|id| store.embedding(*id).ok().flatten().map(|v| (*id, v)))
                .collect()
        };
        self.compute_baselines(&rows)?;
        let n = rows.len();
        // Lock order: store → meta (see `apply_changes`).
        let store = self.store()?;
        let mut meta = self.meta_mut()?;
        for (id, _) in rows {
            if let Some(m) = store.meta(id)? {
                meta.insert(id, m);
            }
        }
        Ok(n)
    }
}
