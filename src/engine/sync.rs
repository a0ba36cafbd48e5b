//! Keeping the derived indexes in step with the store: replaying its change log into the
//! keyword index, the vector index and the meta cache (one [`Replay`] for every caller),
//! filling the keyword index from the store (one [`fill_bm25`]), catching up with other
//! processes' writes, background maintenance, and rebuilding.

use super::Engine;
use crate::Result;
use crate::index::IndexHealth;
use crate::index::bm25::Bm25;
use crate::index::meta::MetaMap;
use crate::index::vector::Vectors;
use crate::lock::WRITE_WAIT;
use crate::store::{Change, ChangeOp, ListFilter, Store};
use std::sync::atomic::Ordering;

/// Where replayed changes go: any of the keyword index, the vector index (with the model
/// whose vectors it holds) and the meta cache.
#[derive(Default)]
pub(super) struct Replay<'a> {
    pub bm25: Option<&'a mut Bm25>,
    pub vectors: Option<(&'a mut Vectors, &'a str)>,
    pub meta: Option<&'a mut MetaMap>,
}

impl Replay<'_> {
    /// Apply `changes` in order, reading each memory as it is now. Upserts are idempotent
    /// and a memory that is gone is removed, so replaying from an older seq is safe.
    /// The keyword index takes text changes only (`embed` changes leave it alone); the vector
    /// index holds a memory when its stored embedding is this model's, of the index's size.
    pub fn apply(&mut self, store: &Store, changes: &[Change]) -> Result<()> {
        for c in changes {
            let id = c.memory_id;
            if let Some(b) = self.bm25.as_deref_mut() {
                match c.op {
                    ChangeOp::Delete => b.delete(id)?,
                    ChangeOp::Upsert => match store.get(id)? {
                        Some(m) => b.upsert(m.id, &m.text, &m.profile, m.scope)?,
                        None => b.delete(id)?,
                    },
                    ChangeOp::Embed => {}
                }
            }
            if let Some((v, model)) = &mut self.vectors {
                let embedding = match c.op {
                    ChangeOp::Delete => None,
                    _ => store.embedding_by(id, model)?,
                };
                match embedding {
                    Some(e) if e.len() == v.dim() => v.upsert(id, &e)?,
                    _ => v.remove(id)?,
                }
            }
            if let Some(meta) = self.meta.as_deref_mut() {
                let row = match c.op {
                    ChangeOp::Delete => None,
                    _ => store.meta(id)?,
                };
                match row {
                    Some(row) => meta.insert(id, row),
                    None => {
                        meta.remove(&id);
                    }
                }
            }
        }
        Ok(())
    }
}

/// Every memory of the store into the keyword index, committed at the store's generation
/// (a rebuild), with a progress bar when `progress`.
pub(super) fn fill_bm25(b: &mut Bm25, store: &Store, progress: bool) -> Result<()> {
    let generation = store.generation()?;
    let pb = match progress {
        true => Some(crate::progress::bar(store.count()? as u64, "keywords")),
        false => None,
    };
    for m in store.list(&ListFilter {
        include_bookkeeping: true,
        ..Default::default()
    })? {
        b.upsert(m.id, &m.text, &m.profile, m.scope)?;
        if let Some(pb) = &pb {
            pb.inc(1);
        }
    }
    b.commit(generation)?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    Ok(())
}

impl Engine {
    /// The change-log seq this engine's indexes have applied: what a recall here can see.
    pub fn seen_generation(&self) -> i64 {
        self.seen_seq.load(Ordering::SeqCst)
    }

    /// Catch up with writes made by other processes (an import, a cold-path remember) since
    /// this engine last looked: cheap when nothing changed (one query). Returns whether
    /// anything was applied. When another process holds the lease, it tries again next time.
    pub fn catch_up(&self) -> Result<bool> {
        if self.read_only.is_some() {
            return Ok(false);
        }
        let generation = self.generation()?;
        if generation <= self.seen_seq.load(Ordering::SeqCst) {
            return Ok(false);
        }
        let Some(_lease) = self.try_lease()? else {
            return Ok(false);
        };
        self.forget_baseline_sample();
        self.apply_changes()?;
        self.close_bm25_writer();
        Ok(true)
    }

    /// One small batch of background work: embed memories still waiting for an embedding
    /// (then passages still waiting for theirs), refresh baselines measured when the store
    /// was much smaller, save the vector index when due. Returns how many memories it touched (0: nothing to do, or another process
    /// is writing).
    pub fn maintain(&self, batch: usize) -> Result<usize> {
        if self.memory_model().is_none() || self.read_only.is_some() {
            return Ok(0);
        }
        if self.pending_embeddings()? == 0 && !self.baselines_stale()? && !self.passages_wait()? {
            return Ok(0);
        }
        // Another process writing (an import not through the worker) goes first.
        let Some(lease) = self.try_lease()? else {
            return Ok(0);
        };
        self.apply_changes()?;
        self.close_bm25_writer();
        drop(lease);
        // The model runs without the lease, which is taken only to store each batch: a
        // write arriving meanwhile (a capture hook) waits milliseconds, not for the model.
        let mut n = self.embed_backlog_unleased(batch)?;
        // Passages, once every memory has its own vector (findable by meaning first).
        if n == 0 {
            n += self.passage_backlog_unleased(batch)?;
        }
        let Some(_lease) = self.try_lease()? else {
            return Ok(n);
        };
        n += self.refresh_baselines(batch)?;
        self.save_vectors_if_due(n == 0)?;
        self.close_bm25_writer();
        Ok(n)
    }

    /// Replay the change log into BM25, the vector index and the meta cache.
    /// Caller holds the writer lease.
    pub(super) fn apply_changes(&self) -> Result<()> {
        let store = self.store()?;
        let mut bm25 = self.bm25_mut()?;
        // From what this engine has seen: another process may have moved the on-disk BM25
        // on already, and upserts are idempotent.
        let from = bm25.applied_seq().min(self.seen_seq.load(Ordering::SeqCst));
        let changes = store.changes_since(from)?;
        let Some(last) = changes.last().map(|c| c.seq) else {
            return Ok(());
        };
        // Lock order, everywhere: store → bm25 → meta → vectors. The recall producers hold
        // meta while they read the vectors; the other order deadlocks a warm worker.
        let mut meta = self.meta_mut()?;
        let mut vectors = self.vectors_mut()?;
        let model = self.embedder.as_ref().map(|e| e.id());
        Replay {
            bm25: Some(&mut bm25),
            vectors: vectors.as_mut().zip(model),
            meta: Some(&mut meta),
        }
        .apply(&store, &changes)?;
        let to = last.max(bm25.applied_seq());
        bm25.commit(to)?;
        if let Some(v) = vectors.as_mut() {
            v.set_applied_seq(last);
        }
        self.seen_seq.fetch_max(last, Ordering::SeqCst);
        Ok(())
    }

    /// Open the vector index of the loaded model: rebuilt from the stored embeddings, or
    /// caught up from the change log.
    pub(super) fn open_vectors(&self, have_lease: bool) -> Result<()> {
        let Some(e) = &self.embedder else {
            return Ok(());
        };
        let store = self.store()?;
        let (mut v, rebuilt) = Vectors::open(
            &self.paths.vectors(),
            &self.paths.vectors_meta(),
            e.id(),
            e.dim(),
            e.index_dim(),
            &self.store_id,
            store.generation()?,
        )?;
        let health = if let Some(why) = rebuilt {
            let n = store.count()? as u64;
            let pb = crate::progress::bar(n, "vectors");
            v.reserve(n as usize + 16)?;
            store.embeddings(e.id(), |id, emb| {
                pb.inc(1);
                v.upsert(id, &emb)
            })?;
            pb.finish_and_clear();
            v.set_applied_seq(store.generation()?);
            IndexHealth::Rebuilt(why)
        } else {
            let changes = store.changes_since(v.applied_seq())?;
            Replay {
                vectors: Some((&mut v, e.id())),
                ..Default::default()
            }
            .apply(&store, &changes)?;
            if let Some(last) = changes.last() {
                v.set_applied_seq(last.seq);
            }
            if changes.is_empty() {
                IndexHealth::Ready
            } else {
                IndexHealth::CaughtUp(changes.len())
            }
        };
        drop(store);
        let unsaved = have_lease && v.has_unsaved();
        *self.vectors_mut()? = Some(v);
        if unsaved {
            self.save_vectors_on_open();
        }
        self.set_vector_health(health)?;
        Ok(())
    }

    /// Save the vector index while opening, if it has unsaved changes. Saving is a shortcut
    /// for the next start, not part of being correct (the change log brings an older file up
    /// to date), so a failure (a full disk) is said on standard error and the command goes on.
    pub(super) fn save_vectors_on_open(&self) {
        if let Err(e) = self.save_vectors_if_due(true) {
            eprintln!(
                "slm: the vector index could not be saved ({e}); the next start catches it up from the change log"
            );
        }
    }

    pub(super) fn save_vectors_if_due(&self, force: bool) -> Result<()> {
        let mut g = self.vectors_mut()?;
        if let Some(v) = g.as_mut() {
            if v.needs_save() || (force && v.has_unsaved()) {
                v.save()?;
            }
        }
        Ok(())
    }

    /// Throw the indexes away and build them again from the store.
    pub fn reindex(&self) -> Result<(u64, usize)> {
        self.writable()?;
        let _lease = self.lease(WRITE_WAIT)?;
        let store = self.store()?;
        let n = store.count()? as u64;
        {
            let mut bm25 = self.bm25_mut()?;
            bm25.delete_all()?;
            fill_bm25(&mut bm25, &store, true)?;
            bm25.close_writer();
        }
        self.set_bm25_health(IndexHealth::Rebuilt("asked for".into()))?;
        drop(store);
        let mut embedded = 0;
        if self.memory_model().is_some() {
            let _ = std::fs::remove_file(self.paths.vectors_meta());
            self.open_vectors(true)?;
            // Each batch is committed: an interrupted reindex resumes where it stopped.
            let pending = self.pending_embeddings()?.max(0) as u64;
            let pb = crate::progress::bar(pending, "embeddings");
            embedded = self.embed_backlog_with(usize::MAX, Some(&pb))?;
            pb.finish_and_clear();
            let pending = self.pending_passages()?.max(0) as u64;
            let pb = crate::progress::bar(pending, "passages");
            self.passage_backlog(usize::MAX, Some(&pb))?;
            pb.finish_and_clear();
            self.refresh_baselines(usize::MAX)?;
            self.save_vectors_if_due(true)?;
        }
        Ok((n, embedded))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::NewMemory;

    fn note(text: &str) -> NewMemory {
        NewMemory {
            text: text.into(),
            ..Default::default()
        }
    }

    /// One replay for every index: text changes reach the keyword index, a deleted memory
    /// leaves every index, and a vector is kept only when the index's model made it.
    #[test]
    fn replay_follows_the_change_log_into_each_index() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("store.db")).unwrap();
        let (a, b) = store
            .write(|w| {
                let a = w.insert(&note("alpha postgres"), 1, &[], None)?.id;
                let b = w.insert(&note("beta redis"), 1, &[], None)?.id;
                Ok((a, b))
            })
            .unwrap();
        store
            .set_embeddings("model-a", &[(a, vec![1.0, 0.0]), (b, vec![0.0, 1.0])])
            .unwrap();
        store.write(|w| w.delete(b)).unwrap();
        store
            .set_embeddings("model-b", &[(a, vec![0.5, 0.5])])
            .unwrap();
        let changes = store.changes_since(0).unwrap();

        let mut bm25 = Bm25::in_memory().unwrap();
        let mut meta = MetaMap::default();
        Replay {
            bm25: Some(&mut bm25),
            meta: Some(&mut meta),
            ..Default::default()
        }
        .apply(&store, &changes)
        .unwrap();
        bm25.commit(store.generation().unwrap()).unwrap();
        bm25.reload().unwrap();
        assert_eq!(bm25.num_docs(), 1);
        assert_eq!(bm25.doc_freq("postgres"), 1);
        assert_eq!(bm25.doc_freq("redis"), 0);
        assert_eq!(meta.keys().copied().collect::<Vec<_>>(), vec![a]);

        // The last embedding of `a` is model-b's: an index of model-a's vectors drops it, and
        // an index of model-b's holds it.
        let replayed = |model: &str, held: Option<i64>| {
            let (mut v, _) = Vectors::open(
                &dir.path().join(format!("{model}.usearch")),
                &dir.path().join(format!("{model}.json")),
                model,
                2,
                2,
                "store",
                0,
            )
            .unwrap();
            if let Some(id) = held {
                v.upsert(id, &[1.0, 0.0]).unwrap();
            }
            Replay {
                vectors: Some((&mut v, model)),
                ..Default::default()
            }
            .apply(&store, &changes)
            .unwrap();
            v
        };
        let v = replayed("model-a", Some(a));
        assert!(v.get(a).is_none() && v.get(b).is_none());
        let w = replayed("model-b", None);
        assert!(w.get(a).is_some() && w.get(b).is_none());
    }
}
