//! The embedding queue: memories saved without an embedding (a cold write, a model change)
//! are embedded in batches by whoever holds the writer lease with the model loaded.

use super::Engine;
use crate::Result;

/// Memories embedded inline when a process that loads the model finds a backlog; above
/// this, the rest is left for `slm reindex`/the worker and the vector channel reports
/// that it is catching up. 512 embeddings take ~2-3 s on 2 cores.
pub const INLINE_BACKLOG_LIMIT: usize = 512;
/// Memories a starting worker embeds before it says ready: the few saved cold while it was
/// down (about 0.1 s a memory with EmbeddingGemma on 2 cores, so 32 cost ~1-3 s at most).
pub const WORKER_OPEN_BACKLOG: usize = 32;

impl Engine {
    /// Embed the given memories now (caller holds the lease). Returns the ids embedded.
    pub(super) fn embed_ids(&self, ids: &[i64]) -> Result<Vec<i64>> {
        let Some(e) = &self.embedder else {
            return Ok(Vec::new());
        };
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let texts: Vec<(i64, String)> = {
            let store = self.store()?;
            ids.iter()
                .filter_map(|id| store.text(*id).ok().flatten().map(|t| (*id, t)))
                .collect()
        };
        let refs: Vec<&str> = texts.iter().map(|(_, t)| t.as_str()).collect();
        let vecs = e.embed(&refs)?;
        let rows: Vec<(i64, Vec<f32>)> = texts.iter().map(|(id, _)| *id).zip(vecs).collect();
        self.store()?.set_embeddings(e.id(), &rows)?;
        self.compute_baselines(&rows)?;
        self.apply_changes()?;
        Ok(rows.iter().map(|(id, _)| *id).collect())
    }

    /// Embed memories still waiting for one, up to `limit`. Returns how many were done.
    pub fn embed_backlog(&self, limit: usize) -> Result<usize> {
        self.embed_backlog_with(limit, None)
    }

    /// The same with a progress bar (`slm reindex` after a model change).
    pub(super) fn embed_backlog_with(
        &self,
        limit: usize,
        pb: Option<&indicatif::ProgressBar>,
    ) -> Result<usize> {
        let Some(e) = &self.embedder else {
            return Ok(0);
        };
        let mut done = 0;
        while done < limit {
            let batch = self
                .store()?
                .pending_embeddings(e.id(), (limit - done).min(256))?;
            if batch.is_empty() {
                break;
            }
            let ids: Vec<i64> = batch.iter().map(|(id, _)| *id).collect();
            let n = self.embed_ids(&ids)?.len();
            done += n;
            if let Some(pb) = pb {
                pb.inc(n as u64);
            }
        }
        Ok(done)
    }
}
