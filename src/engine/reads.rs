//! What the engine answers without writing: memories, keyword and vector lookups, index
//! health, and the loaded models (the query embedding cache, token counting).

use super::{BM25_HEALTH_LOCK, BM25_LOCK, Engine, META_LOCK, VECTOR_HEALTH_LOCK, VECTORS_LOCK};
use crate::Result;
use crate::embed::{self, Embedder, ModelStatus};
use crate::error::{poisoned, poisoned_message};
use crate::index::IndexHealth;
use crate::index::bm25::{Bm25, Visibility};
use crate::index::meta::MetaMap;
use crate::index::vector::Vectors;
use crate::memory::Memory;
use crate::store::ListFilter;
use std::collections::HashMap;
use std::sync::Arc;

/// Recent query embeddings kept (queries repeat: hooks, retries, agents).
const QUERY_CACHE: usize = 256;

impl Engine {
    pub fn embedder(&self) -> Option<&Arc<dyn Embedder>> {
        self.embedder.as_ref()
    }

    pub fn reranker(&self) -> &embed::reranker::Slot {
        &self.reranker
    }

    /// The reader (the answer check's judge), when one is configured and this engine loads
    /// models.
    pub fn answer_reader(&self) -> Option<&embed::reranker::Slot> {
        self.reader.as_ref()
    }

    pub fn model_status(&self) -> Option<&ModelStatus> {
        self.model_status.as_ref()
    }

    pub fn bm25_health(&self) -> IndexHealth {
        self.bm25_health
            .lock()
            .map(|h| h.clone())
            .unwrap_or_else(|_| IndexHealth::Unavailable(poisoned_message(BM25_HEALTH_LOCK)))
    }

    pub fn vector_health(&self) -> IndexHealth {
        self.vector_health
            .lock()
            .map(|h| h.clone())
            .unwrap_or_else(|_| IndexHealth::Unavailable(poisoned_message(VECTOR_HEALTH_LOCK)))
    }

    pub fn with_bm25<T>(&self, f: impl FnOnce(&Bm25) -> T) -> Result<T> {
        let g = self.bm25.read().map_err(poisoned(BM25_LOCK))?;
        Ok(f(&g))
    }

    pub fn with_vectors<T>(&self, f: impl FnOnce(Option<&Vectors>) -> T) -> Result<T> {
        let g = self.vectors.read().map_err(poisoned(VECTORS_LOCK))?;
        Ok(f(g.as_ref()))
    }

    pub fn with_meta<T>(&self, f: impl FnOnce(&MetaMap) -> T) -> Result<T> {
        let g = self.meta.read().map_err(poisoned(META_LOCK))?;
        Ok(f(&g))
    }

    /// The stored, full-precision embeddings of `ids` made by the loaded model, read through
    /// one reader connection (the vector index keeps only a compact copy: `index::vector`).
    /// A memory without one (not embedded yet, or by another model) is absent.
    pub fn stored_embeddings(&self, ids: &[i64]) -> Result<HashMap<i64, Vec<f32>>> {
        let Some(e) = &self.embedder else {
            return Ok(HashMap::new());
        };
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        self.reader()?.embeddings_of(ids, e.id())
    }

    /// For each of `ids` with passages by the loaded model, the best cosine between `q` and
    /// one of them (`text::passages`).
    pub fn best_passage_cosines(&self, ids: &[i64], q: &[f32]) -> Result<HashMap<i64, f32>> {
        let Some(e) = &self.embedder else {
            return Ok(HashMap::new());
        };
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        self.reader()?.best_passage_cosines(ids, e.id(), q)
    }

    /// The query's embedding (cached), or None when no model is loaded.
    pub fn embed_query(&self, q: &str) -> Option<Result<Vec<f32>>> {
        let e = self.embedder.as_ref()?;
        if let Ok(c) = self.query_vecs.lock() {
            if let Some(v) = c.get(q) {
                return Some(Ok(v.clone()));
            }
        }
        let r = e
            .embed_queries(&[q])
            .map(|mut v| v.pop().unwrap_or_default());
        if let (Ok(v), Ok(mut c)) = (&r, self.query_vecs.lock()) {
            if c.len() >= QUERY_CACHE {
                c.clear();
            }
            c.insert(q.to_string(), v.clone());
        }
        Some(r)
    }

    /// Whether counting tokens costs no load: the model is loaded, or its tokenizer already
    /// was for counting.
    pub fn tokenizer_at_hand(&self) -> bool {
        self.embedder.is_some() || self.counting_tokenizer.get().is_some()
    }

    /// Count tokens with the embedding model's tokenizer. Without the model loaded (the cold
    /// path) only its tokenizer is loaded, on first use, so budgets count the same tokens
    /// either way; the deliberately high estimate is left for a missing model.
    pub fn count_tokens(&self, text: &str) -> usize {
        if let Some(e) = &self.embedder {
            return e.count_tokens(text);
        }
        let t = self.counting_tokenizer.get_or_init(|| {
            let dir = embed::onnx::locate(&self.paths, &self.settings).0;
            embed::bpe::Counter::load(&dir)
        });
        match t {
            Some(t) => t.count(text),
            None => embed::fallback_token_count(text),
        }
    }

    // ---- reads --------------------------------------------------------------------------

    pub fn get(&self, id: i64) -> Result<Option<Memory>> {
        self.store()?.get(id)
    }

    /// A memory of another profile is "not found" for this one (no existence leak).
    pub fn check_profile(&self, id: i64, profile: &str) -> Result<()> {
        match self.get(id)? {
            Some(m) if m.profile == profile => Ok(()),
            _ => Err(crate::Error::NotFound(id)),
        }
    }

    pub fn get_many(&self, ids: &[i64]) -> Result<Vec<Memory>> {
        self.store()?.get_many(ids)
    }

    pub fn list(&self, f: &ListFilter) -> Result<Vec<Memory>> {
        self.store()?.list(f)
    }

    pub fn count(&self) -> Result<i64> {
        self.store()?.count()
    }

    pub fn generation(&self) -> Result<i64> {
        self.store()?.generation()
    }

    pub fn pending_embeddings(&self) -> Result<i64> {
        match &self.embedder {
            Some(e) => self.store()?.pending_embedding_count(e.id()),
            None => self.store()?.pending_embedding_count(""),
        }
    }

    pub fn bm25_search(
        &self,
        words: &[String],
        vis: &Visibility,
        k: usize,
    ) -> Result<Vec<(i64, f32)>> {
        self.with_bm25(|b| b.search(words, vis, k))?
    }

    pub fn doc_freq(&self, word: &str) -> u64 {
        self.with_bm25(|b| b.doc_freq(word)).unwrap_or(0)
    }

    pub fn num_docs(&self) -> u64 {
        self.with_bm25(|b| b.num_docs()).unwrap_or(0)
    }
}
