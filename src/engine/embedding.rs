//! The embedding queue: memories saved without an embedding (a cold write, a model change)
//! are embedded in batches by whoever holds the writer lease with the model loaded; their
//! passages (`text::passages`) follow in the background the same way.

use super::Engine;
use crate::Result;
use crate::lock::WRITE_WAIT;

/// Memories embedded inline when a process that loads the model finds a backlog; above
/// this, the rest is left for `slm reindex`/the worker and the vector channel reports
/// that it is catching up. 512 embeddings take ~2-3 s on 2 cores.
pub const INLINE_BACKLOG_LIMIT: usize = 512;
/// Memories a starting worker embeds before it says ready: the few saved cold while it was
/// down (about 0.1 s a memory with EmbeddingGemma on 2 cores, so 32 cost ~1-3 s at most).
pub const WORKER_OPEN_BACKLOG: usize = 32;

impl Engine {
    /// Embed the given memories now (caller holds the lease). Returns the ids embedded.
    /// Their passages follow in the background ([`Engine::passage_backlog`]): a memory is
    /// findable by meaning as soon as its own vector is stored.
    pub(super) fn embed_ids(&self, ids: &[i64]) -> Result<Vec<i64>> {
        let computed = self.compute_vectors(ids)?;
        self.store_vectors(computed)
    }

    /// The same, with the model running outside the writer lease: the lease is taken
    /// (waiting up to [`WRITE_WAIT`]) only to store the vectors, so a write that arrives
    /// meanwhile (a capture hook, a `remember`) waits milliseconds, not for a model. The
    /// caller must not hold the lease (it would wait for itself).
    pub(super) fn embed_ids_unleased(&self, ids: &[i64]) -> Result<Vec<i64>> {
        let computed = self.compute_vectors(ids)?;
        if computed.is_empty() {
            return Ok(Vec::new());
        }
        let _lease = self.lease(WRITE_WAIT)?;
        let done = self
            .store_vectors(computed)
            .and_then(|done| self.save_vectors_if_due(false).map(|_| done));
        self.close_bm25_writer();
        done
    }

    /// Model time: each memory's text and its vector. Writes nothing, needs no lease.
    fn compute_vectors(&self, ids: &[i64]) -> Result<Vec<(i64, String, Vec<f32>)>> {
        let Some(e) = self.memory_model() else {
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
        let vecs = {
            let _bulk = crate::priority::bulk_scope();
            e.embed(&refs)?
        };
        Ok(texts
            .into_iter()
            .zip(vecs)
            .map(|((id, t), v)| (id, t, v))
            .collect())
    }

    /// Store vectors from [`Engine::compute_vectors`] (caller holds the lease), for the
    /// memories whose text is still the one embedded: one edited or deleted while the model
    /// ran is left to the write that changed it. Returns the ids stored.
    fn store_vectors(&self, computed: Vec<(i64, String, Vec<f32>)>) -> Result<Vec<i64>> {
        let Some(e) = &self.embedder else {
            return Ok(Vec::new());
        };
        if computed.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<(i64, Vec<f32>)> = {
            let mut store = self.store()?;
            let rows: Vec<(i64, Vec<f32>)> = computed
                .into_iter()
                .filter(|(id, t, _)| store.text(*id).ok().flatten().as_deref() == Some(t))
                .map(|(id, _, v)| (id, v))
                .collect();
            store.set_embeddings(e.id(), &rows)?;
            rows
        };
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
        let Some(e) = self.memory_model() else {
            return Ok(0);
        };
        drain(limit, pb, |room| {
            let batch = self.store()?.pending_embeddings(e.id(), room.min(256))?;
            let ids: Vec<i64> = batch.iter().map(|(id, _)| *id).collect();
            Ok(self.embed_ids(&ids)?.len())
        })
    }

    /// [`Engine::embed_backlog`] for background work, which does not hold the lease: the
    /// model runs outside it, each batch's vectors are stored under it
    /// ([`Engine::embed_ids_unleased`]).
    pub(super) fn embed_backlog_unleased(&self, limit: usize) -> Result<usize> {
        let Some(e) = self.memory_model() else {
            return Ok(0);
        };
        drain(limit, None, |room| {
            let batch = self.store()?.pending_embeddings(e.id(), room.min(256))?;
            let ids: Vec<i64> = batch.iter().map(|(id, _)| *id).collect();
            Ok(self.embed_ids_unleased(&ids)?.len())
        })
    }

    /// Embed the passages of memories whose own vector is stored and whose passages are not
    /// (just saved, or a store from before passages), up to `limit`; a memory said in a
    /// session gets its context passage too (`text::passages_in_context`). Returns how many
    /// memories were done. Recall works meanwhile, scoring those memories by their own
    /// vector alone. Passages come after the memories' own vectors because they cost more
    /// than those (measured, `slm bench ingest --memories 1000`: all findable by meaning
    /// after 24 s, all passages 79-87 s later, the context passages being two memories long).
    pub fn passage_backlog(
        &self,
        limit: usize,
        pb: Option<&indicatif::ProgressBar>,
    ) -> Result<usize> {
        self.passages_with(limit, pb, false)
    }

    /// [`Engine::passage_backlog`] for background work, which does not hold the lease: the
    /// model runs outside it, and it is taken only to store each batch.
    pub(super) fn passage_backlog_unleased(&self, limit: usize) -> Result<usize> {
        self.passages_with(limit, None, true)
    }

    fn passages_with(
        &self,
        limit: usize,
        pb: Option<&indicatif::ProgressBar>,
        take_lease: bool,
    ) -> Result<usize> {
        let Some(e) = self.memory_model() else {
            return Ok(0);
        };
        drain(limit, pb, |room| {
            let batch = self
                .store()?
                .pending_passages(e.id(), room.min(PASSAGE_BATCH))?;
            let split: Vec<Vec<String>> = batch
                .iter()
                .map(|m| {
                    let before = m.before.as_ref().map(|(t, s)| (t.as_str(), s.as_deref()));
                    crate::text::passages_in_context(&m.text, m.speaker.as_deref(), before)
                })
                .collect();
            let all: Vec<&str> = split.iter().flatten().map(String::as_str).collect();
            let mut vecs = {
                let _bulk = crate::priority::bulk_scope();
                e.embed(&all)?.into_iter()
            };
            let computed: Vec<(i64, &str, Vec<Vec<f32>>)> = batch
                .iter()
                .zip(&split)
                .map(|(m, p)| (m.id, m.text.as_str(), vecs.by_ref().take(p.len()).collect()))
                .collect();
            let _lease = if take_lease && !computed.is_empty() {
                Some(self.lease(WRITE_WAIT)?)
            } else {
                None
            };
            let mut store = self.store()?;
            // A memory edited or deleted while the model ran waits for its new passages.
            let computed: Vec<_> = computed
                .into_iter()
                .filter(|(id, t, _)| store.text(*id).ok().flatten().as_deref() == Some(*t))
                .collect();
            let ids: Vec<i64> = computed.iter().map(|(id, _, _)| *id).collect();
            let passages: Vec<(i64, Vec<Vec<f32>>)> = computed
                .into_iter()
                .filter(|(_, _, p)| !p.is_empty())
                .map(|(id, _, p)| (id, p))
                .collect();
            if !ids.is_empty() {
                store.set_passages(e.id(), &ids, &passages)?;
            }
            Ok(ids.len())
        })
    }

    /// Whether any memory waits for its passages (one probe, for the idle check).
    pub(super) fn passages_wait(&self) -> Result<bool> {
        match &self.embedder {
            Some(e) => Ok(!self.store()?.pending_passages(e.id(), 1)?.is_empty()),
            None => Ok(false),
        }
    }

    /// Memories whose passages the loaded model has still to embed.
    pub fn pending_passages(&self) -> Result<i64> {
        match &self.embedder {
            Some(e) => self.store()?.pending_passage_count(e.id()),
            None => Ok(0),
        }
    }
}

/// Run `step` (given how many it may still do; it returns how many it did) until it does
/// none or `limit` are done, counting on `pb`. Returns how many were done.
fn drain(
    limit: usize,
    pb: Option<&indicatif::ProgressBar>,
    mut step: impl FnMut(usize) -> Result<usize>,
) -> Result<usize> {
    let mut done = 0;
    while done < limit {
        let n = step(limit - done)?;
        if n == 0 {
            break;
        }
        done += n;
        if let Some(pb) = pb {
            pb.inc(n as u64);
        }
    }
    Ok(done)
}

/// Memories a passage backlog step reads at once.
pub const PASSAGE_BATCH: usize = 64;
