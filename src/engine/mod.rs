//! The engine: one API over the store, the indexes and the models.
//!
//! Every front (the CLI in-process today, the warm worker and MCP later) calls these
//! methods and nothing else, so each runs the very same code on the same input.
//!
//! Write path: validate → take the writer lease → SQLite commit (now durable, and the id is
//! acknowledged) → BM25 upsert + commit (keyword-findable at once) → embedding when the
//! model is loaded here, otherwise left pending and embedded by the next process that loads
//! the model (the backlog). SQLite is the truth; the indexes catch up from its change log.

use crate::embed::{self, Embedder, ModelStatus};
use crate::index::IndexHealth;
use crate::index::bm25::{Bm25, Visibility};
use crate::index::vector::Vectors;
use crate::lock::{WRITE_WAIT, WriteLock};
use crate::memory::{self, Kind, Memory, MemoryPatch, NewMemory};
use crate::paths::Paths;
use crate::settings::Settings;
use crate::store::{ChangeOp, ListFilter, MetaRow, NoWrites, Store};
use crate::{Clock, Error, Result, text};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

mod after_commit;
mod feedback;
mod open_index;
mod transfer;
use after_commit::injected_after_commit_failure;
pub use feedback::{FeedbackReport, IMPLICIT_WINDOW_MS, feedback_human_list};
use open_index::open_bm25;
pub use transfer::{KeyLink, LinkReport};

/// Memories embedded inline when a process that loads the model finds a backlog; above
/// this, the rest is left for `slm reindex`/the worker and the vector channel reports
/// that it is catching up. 512 embeddings take ~2-3 s on 2 cores.
pub const INLINE_BACKLOG_LIMIT: usize = 512;
/// Memories a starting worker embeds before it says ready: the few saved cold while it was
/// down (about 0.1 s a memory with EmbeddingGemma on 2 cores, so 32 cost ~1-3 s at most).
pub const WORKER_OPEN_BACKLOG: usize = 32;
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

/// Recent query embeddings kept (queries repeat: hooks, retries, agents).
const QUERY_CACHE: usize = 256;

/// Whether to load the embedding model when opening.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelMode {
    Load,
    Skip,
}

#[derive(Debug, Clone, Copy)]
pub struct OpenOptions {
    pub model: ModelMode,
    /// Wait for the writer lease (up to `WRITE_WAIT`) instead of opening read-only when
    /// another process is writing: the worker needs writable indexes for its whole life.
    pub wait_for_lease: bool,
    /// Open as if the data dir took no writes, even if it does (`doctor` after a failed
    /// open, to report instead of failing).
    pub no_writes: bool,
}

impl OpenOptions {
    pub fn model(model: ModelMode) -> OpenOptions {
        OpenOptions {
            model,
            wait_for_lease: false,
            no_writes: false,
        }
    }
}

/// What a write acknowledged.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Remembered {
    pub id: i64,
    /// The idempotency key was already stored; nothing new was written.
    pub existed: bool,
    /// Findable by meaning now (false: embedding pending).
    pub embedded: bool,
    pub bookkeeping: Option<String>,
    /// Milliseconds from the SQLite commit (the acknowledgement) to keyword-findable.
    pub keyword_ms: f64,
    /// Set when the memory is saved but updating an index after the commit failed (a full
    /// disk, say): the write stands, and the indexes catch up from the change log later.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

pub struct Engine {
    pub paths: Paths,
    pub settings: Settings,
    pub clock: Clock,
    store: Mutex<Store>,
    bm25: RwLock<Bm25>,
    bm25_health: Mutex<IndexHealth>,
    vectors: RwLock<Option<Vectors>>,
    vector_health: Mutex<IndexHealth>,
    embedder: Option<Arc<dyn Embedder>>,
    model_status: Option<ModelStatus>,
    meta: RwLock<crate::index::meta::MetaMap>,
    query_vecs: Mutex<HashMap<String, Vec<f32>>>,
    baseline_sample: RwLock<Option<Arc<Vec<Vec<f32>>>>>,
    /// Set when the data dir takes no writes (read-only, a full disk): reads open without
    /// writing anything, writes say why they cannot.
    read_only: Option<NoWrites>,
    /// The cross-encoder, loading in the background when one is configured.
    reranker: embed::reranker::Slot,
    /// The last change-log seq applied to this engine's in-memory state (meta cache, vector
    /// index, BM25 reader). Another process may have moved the on-disk BM25 further; what
    /// this engine has seen is tracked here.
    seen_seq: std::sync::atomic::AtomicI64,
    /// The model's tokenizer alone, for counting when the model is not loaded.
    counting_tokenizer: std::sync::OnceLock<Option<tokenizers::Tokenizer>>,
    /// The store's identity; both indexes are stamped with it.
    store_id: String,
    /// The last recalls answered here, for feedback (see `feedback.rs`).
    recent_recalls:
        Mutex<std::collections::VecDeque<Arc<crate::recall::ranking_mode::log::LoggedRecall>>>,
}

impl Engine {
    pub fn open(paths: Paths, opts: OpenOptions) -> Result<Engine> {
        let settings = Settings::load(&paths.settings())?;
        let clock = Clock::from_env()?;
        crate::store::refuse_lost_store(&paths.store(), &paths.index_dir())?;
        let exists = paths.store().exists();
        let mut read_only = match crate::store::no_writes(&paths.data) {
            Some(w) if exists => Some(w),
            _ if opts.no_writes && exists => Some(match crate::store::free_bytes(&paths.data) {
                Some(f) if f < crate::store::MIN_FREE_BYTES => NoWrites::DiskFull,
                _ => NoWrites::ReadOnly,
            }),
            _ => None,
        };
        let store = match read_only {
            // Reads still work from a data dir that takes no writes, and write nothing.
            Some(_) => Store::open_without_writes(&paths.store())?,
            None => match Store::open(&paths.store()) {
                Ok(s) => s,
                Err(e) => match crate::store::unwritable_cause(&e, &paths.data) {
                    Some(why) if exists => {
                        read_only = Some(why);
                        Store::open_without_writes(&paths.store())?
                    }
                    Some(why) => return Err(why.error(&paths.data)),
                    None => return Err(e),
                },
            },
        };
        if read_only.is_none() {
            crate::store::make_private(&paths.data, &paths.private_files());
        }
        let store_id = store.store_id()?;
        let (embedder, model_status) = match opts.model {
            ModelMode::Skip => (None, None),
            ModelMode::Load => match embed::load(&paths, &settings) {
                Ok(e) => (Some(Arc::from(e)), None),
                Err(status) => (None, Some(status)),
            },
        };
        let settings_for_rerank = settings.clone();
        let runtime_for_rerank = embed::onnx::locate(&paths, &settings).1;
        let lease = if read_only.is_some() {
            // Not even the lock file: nothing is written.
            None
        } else if opts.wait_for_lease {
            Some(WriteLock::acquire(&paths.write_lock(), WRITE_WAIT)?)
        } else {
            WriteLock::try_acquire(&paths.write_lock())?
        };
        let (bm25, bm25_health) = open_bm25(
            &paths,
            &store,
            &store_id,
            lease.is_some(),
            read_only.is_some(),
        )?;
        let seen = store.generation()?;
        let meta: HashMap<i64, MetaRow> =
            store.all_meta()?.into_iter().map(|m| (m.id, m)).collect();
        let engine = Engine {
            paths,
            settings,
            clock,
            store: Mutex::new(store),
            bm25: RwLock::new(bm25),
            bm25_health: Mutex::new(bm25_health),
            vectors: RwLock::new(None),
            vector_health: Mutex::new(IndexHealth::Unavailable("no embedding model loaded".into())),
            embedder,
            model_status,
            meta: RwLock::new(meta.into()),
            query_vecs: Mutex::new(HashMap::new()),
            baseline_sample: RwLock::new(None),
            read_only,
            reranker: embed::reranker::start(&settings_for_rerank, runtime_for_rerank),
            seen_seq: std::sync::atomic::AtomicI64::new(seen),
            store_id,
            counting_tokenizer: std::sync::OnceLock::new(),
            recent_recalls: Default::default(),
        };
        if engine.embedder.is_some() {
            engine.open_vectors(lease.is_some())?;
            // The worker (it waits for the lease) embeds only a small backlog before it
            // says ready (the memories saved cold while it was down, which the question
            // that started it is likely about) and leaves the rest to its background thread.
            let backlog = if opts.wait_for_lease {
                WORKER_OPEN_BACKLOG
            } else {
                INLINE_BACKLOG_LIMIT
            };
            if lease.is_some() {
                engine.embed_backlog(backlog)?;
                engine.refresh_baselines(INLINE_BACKLOG_LIMIT)?;
                engine.save_vectors_if_due(true)?;
            }
        }
        if let Ok(mut b) = engine.bm25.write() {
            b.close_writer();
        }
        drop(lease);
        Ok(engine)
    }

    fn writable(&self) -> Result<()> {
        match self.read_only {
            Some(why) => Err(why.error(&self.paths.data)),
            None => Ok(()),
        }
    }

    /// Why this engine takes no writes, if it does not.
    pub fn no_writes(&self) -> Option<NoWrites> {
        self.read_only
    }

    fn store(&self) -> Result<std::sync::MutexGuard<'_, Store>> {
        self.store
            .lock()
            .map_err(|_| Error::Other("the store lock was poisoned".into()))
    }

    /// A separate read-only connection (for producers running in parallel).
    pub fn reader(&self) -> Result<Store> {
        match self.read_only {
            Some(_) => Store::open_without_writes(&self.paths.store()),
            None => Store::open_reader(&self.paths.store()),
        }
    }

    pub fn embedder(&self) -> Option<&Arc<dyn Embedder>> {
        self.embedder.as_ref()
    }

    pub fn reranker(&self) -> &embed::reranker::Slot {
        &self.reranker
    }

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

    pub fn model_status(&self) -> Option<&ModelStatus> {
        self.model_status.as_ref()
    }

    pub fn bm25_health(&self) -> IndexHealth {
        self.bm25_health
            .lock()
            .map(|h| h.clone())
            .unwrap_or(IndexHealth::Unavailable("poisoned".into()))
    }

    pub fn vector_health(&self) -> IndexHealth {
        self.vector_health
            .lock()
            .map(|h| h.clone())
            .unwrap_or(IndexHealth::Unavailable("poisoned".into()))
    }

    pub fn with_bm25<T>(&self, f: impl FnOnce(&Bm25) -> T) -> Result<T> {
        let g = self
            .bm25
            .read()
            .map_err(|_| Error::Bm25("lock poisoned".into()))?;
        Ok(f(&g))
    }

    pub fn with_vectors<T>(&self, f: impl FnOnce(Option<&Vectors>) -> T) -> Result<T> {
        let g = self
            .vectors
            .read()
            .map_err(|_| Error::Vector("lock poisoned".into()))?;
        Ok(f(g.as_ref()))
    }

    pub fn with_meta<T>(&self, f: impl FnOnce(&crate::index::meta::MetaMap) -> T) -> Result<T> {
        let g = self
            .meta
            .read()
            .map_err(|_| Error::Other("meta lock poisoned".into()))?;
        Ok(f(&g))
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

    /// Count tokens with the embedding model's tokenizer. Without the model loaded (the cold
    /// path) only its tokenizer is loaded, on first use, so budgets count the same tokens
    /// either way; the deliberately high estimate is left for a missing model.
    pub fn count_tokens(&self, text: &str) -> usize {
        if let Some(e) = &self.embedder {
            return e.count_tokens(text);
        }
        let t = self.counting_tokenizer.get_or_init(|| {
            let dir = embed::onnx::locate(&self.paths, &self.settings).0;
            std::fs::read(dir.join("tokenizer.json"))
                .ok()
                .and_then(|b| embed::onnx::counting_tokenizer(&b))
        });
        match t {
            Some(t) => embed::onnx::count_with(t, text),
            None => embed::fallback_token_count(text),
        }
    }

    // ---- writes -------------------------------------------------------------------------

    /// Save one memory. Returns once it is committed to SQLite and findable by keyword.
    pub fn remember(&self, m: NewMemory) -> Result<Remembered> {
        let mut out = self.remember_batch(vec![m], &mut |_| {})?;
        Ok(out.pop().expect("one in, one out"))
    }

    /// Save many memories in one transaction (an import batch): all or none.
    /// `acked` is called with the ids once they are durable, before indexing finishes.
    pub fn remember_batch(
        &self,
        items: Vec<NewMemory>,
        acked: &mut dyn FnMut(&[Remembered]),
    ) -> Result<Vec<Remembered>> {
        for m in &items {
            memory::validate_text(&m.text)?;
        }
        self.writable()?;
        let now = self.clock.now_ms();
        let prepared: Vec<_> = items
            .iter()
            .map(|m| {
                let bk = if m.kind == Some(Kind::Bookkeeping) {
                    Some("saved as bookkeeping")
                } else {
                    text::bookkeeping_reason(&m.text)
                };
                (text::entities(&m.text), bk)
            })
            .collect();
        let _lease = WriteLock::acquire(&self.paths.write_lock(), WRITE_WAIT)?;
        let mut results = {
            let mut store = self.store()?;
            store.write(|w| {
                items
                    .iter()
                    .zip(&prepared)
                    .map(|(m, (ents, bk))| {
                        let ins = w.insert(m, now, ents, *bk)?;
                        Ok(Remembered {
                            id: ins.id,
                            existed: ins.existed,
                            embedded: false,
                            bookkeeping: if ins.existed {
                                None
                            } else {
                                bk.map(str::to_string)
                            },
                            keyword_ms: 0.0,
                            note: None,
                        })
                    })
                    .collect::<Result<Vec<_>>>()
            })?
        };
        let committed = std::time::Instant::now();
        acked(&results);
        // From here on the write is durable: a failure to update the indexes (a full disk)
        // must not be reported as a failed write, or a caller would retry a saved memory.
        // The indexes catch up from the change log on the next write or start.
        if let Err(e) = self.index_after_write(&mut results, committed) {
            let why = format!(
                "saved, but updating the indexes failed ({e}); they catch up on the next write or start"
            );
            eprintln!("slm: {why}");
            self.mark_stale(&why);
            for r in &mut results {
                r.note = Some(why.clone());
            }
        }
        if let Ok(mut b) = self.bm25.write() {
            b.close_writer();
        }
        Ok(results)
    }

    pub fn update(&self, id: i64, patch: MemoryPatch) -> Result<Memory> {
        if let Some(t) = &patch.text {
            memory::validate_text(t)?;
        }
        let now = self.clock.now_ms();
        self.writable()?;
        let ents = patch.text.as_deref().map(text::entities);
        let bk = patch.text.as_deref().map(text::bookkeeping_reason);
        let _lease = WriteLock::acquire(&self.paths.write_lock(), WRITE_WAIT)?;
        {
            let mut store = self.store()?;
            store.write(|w| w.update(id, &patch, now, ents.as_deref(), bk))?;
        }
        // Committed: an index failure from here on is reported, not returned (see remember).
        let indexed = (|| -> Result<()> {
            injected_after_commit_failure()?;
            self.apply_changes()?;
            if patch.text.is_some() && self.embedder.is_some() {
                self.embed_ids(&[id])?;
                self.save_vectors_if_due(false)?;
            }
            Ok(())
        })();
        if let Err(e) = indexed {
            let why = format!("memory {id} was updated, but updating the indexes failed ({e})");
            eprintln!("slm: {why}");
            self.mark_stale(&why);
        }
        if let Ok(mut b) = self.bm25.write() {
            b.close_writer();
        }
        self.get(id)?.ok_or(Error::NotFound(id))
    }

    pub fn delete(&self, ids: &[i64]) -> Result<usize> {
        self.writable()?;
        let _lease = WriteLock::acquire(&self.paths.write_lock(), WRITE_WAIT)?;
        let n = {
            let mut store = self.store()?;
            store.write(|w| {
                for id in ids {
                    w.delete(*id)?;
                }
                Ok(ids.len())
            })?
        };
        let indexed = (|| -> Result<()> {
            injected_after_commit_failure()?;
            self.apply_changes()?;
            self.save_vectors_if_due(false)
        })();
        if let Err(e) = indexed {
            let why = format!("deleted, but updating the indexes failed ({e})");
            eprintln!("slm: {why}");
            self.mark_stale(&why);
        }
        if let Ok(mut b) = self.bm25.write() {
            b.close_writer();
        }
        Ok(n)
    }

    // ---- reads --------------------------------------------------------------------------

    pub fn get(&self, id: i64) -> Result<Option<Memory>> {
        self.store()?.get(id)
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

    // ---- index maintenance --------------------------------------------------------------

    /// The change-log seq this engine's indexes have applied: what a recall here can see.
    pub fn seen_generation(&self) -> i64 {
        self.seen_seq.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Catch up with writes made by other processes (an import, a cold-path remember) since
    /// this engine last looked: cheap when nothing changed (one query). Returns whether
    /// anything was applied. When another process holds the lease, it tries again next time.
    pub fn catch_up(&self) -> Result<bool> {
        if self.read_only.is_some() {
            return Ok(false);
        }
        let generation = self.generation()?;
        if generation <= self.seen_seq.load(std::sync::atomic::Ordering::SeqCst) {
            return Ok(false);
        }
        let Some(_lease) = WriteLock::try_acquire(&self.paths.write_lock())? else {
            return Ok(false);
        };
        if let Ok(mut g) = self.baseline_sample.write() {
            *g = None;
        }
        self.apply_changes()?;
        if let Ok(mut b) = self.bm25.write() {
            b.close_writer();
        }
        Ok(true)
    }

    /// One small batch of background work: embed memories still waiting for an embedding,
    /// refresh baselines measured when the store was much smaller, save the vector index
    /// when due. Returns how many memories it touched (0: nothing to do, or another process
    /// is writing).
    pub fn maintain(&self, batch: usize) -> Result<usize> {
        if self.embedder.is_none() || self.read_only.is_some() {
            return Ok(0);
        }
        if self.pending_embeddings()? == 0 && !self.baselines_stale()? {
            return Ok(0);
        }
        let Some(_lease) = WriteLock::try_acquire(&self.paths.write_lock())? else {
            return Ok(0);
        };
        self.apply_changes()?;
        let mut n = self.embed_backlog(batch)?;
        n += self.refresh_baselines(batch)?;
        self.save_vectors_if_due(n == 0)?;
        if let Ok(mut b) = self.bm25.write() {
            b.close_writer();
        }
        Ok(n)
    }

    fn baselines_stale(&self) -> Result<bool> {
        let Some(e) = &self.embedder else {
            return Ok(false);
        };
        let store = self.store()?;
        let total = store.count()?;
        let grown_from = (total as f64 / BASELINE_REFRESH_GROWTH).floor() as i64;
        Ok(total >= 2
            && !store
                .stale_baselines(e.id(), grown_from.max(1), 1)?
                .is_empty())
    }

    /// Replay the change log into BM25, the vector index and the meta cache.
    /// Caller holds the writer lease.
    fn apply_changes(&self) -> Result<()> {
        let store = self.store()?;
        let mut bm25 = self
            .bm25
            .write()
            .map_err(|_| Error::Bm25("lock poisoned".into()))?;
        // From what this engine has seen: another process may have moved the on-disk BM25
        // on already, and upserts are idempotent.
        let from = bm25
            .applied_seq()
            .min(self.seen_seq.load(std::sync::atomic::Ordering::SeqCst));
        let changes = store.changes_since(from)?;
        let Some(last) = changes.last().map(|c| c.seq) else {
            return Ok(());
        };
        // Lock order, everywhere: store → bm25 → meta → vectors. The recall producers hold
        // meta while they read the vectors; the other order deadlocks a warm worker.
        let mut meta = self
            .meta
            .write()
            .map_err(|_| Error::Other("meta lock poisoned".into()))?;
        let mut vectors = self
            .vectors
            .write()
            .map_err(|_| Error::Vector("lock poisoned".into()))?;
        let model = self.embedder.as_ref().map(|e| e.id().to_string());
        for c in &changes {
            match c.op {
                ChangeOp::Delete => {
                    bm25.delete(c.memory_id)?;
                    if let Some(v) = vectors.as_mut() {
                        v.remove(c.memory_id)?;
                    }
                    meta.remove(&c.memory_id);
                }
                ChangeOp::Upsert | ChangeOp::Embed => {
                    let Some(m) = store.get(c.memory_id)? else {
                        continue;
                    };
                    if c.op == ChangeOp::Upsert {
                        bm25.upsert(m.id, &m.text, &m.profile, m.scope)?;
                    }
                    if let (Some(v), Some(model)) = (vectors.as_mut(), &model) {
                        if m.embedding_model.as_deref() == Some(model) {
                            if let Some(e) = store.embedding(m.id)? {
                                v.upsert(m.id, &e)?;
                            }
                        } else {
                            v.remove(m.id)?;
                        }
                    }
                    if let Some(row) = store.meta(m.id)? {
                        meta.insert(m.id, row);
                    }
                }
            }
        }
        let to = last.max(bm25.applied_seq());
        bm25.commit(to)?;
        if let Some(v) = vectors.as_mut() {
            v.set_applied_seq(last);
        }
        self.seen_seq
            .fetch_max(last, std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }

    fn open_vectors(&self, have_lease: bool) -> Result<()> {
        let Some(e) = &self.embedder else {
            return Ok(());
        };
        let store = self.store()?;
        let (mut v, rebuilt) = Vectors::open(
            &self.paths.vectors(),
            &self.paths.vectors_meta(),
            e.id(),
            e.dim(),
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
            for c in &changes {
                match c.op {
                    ChangeOp::Delete => v.remove(c.memory_id)?,
                    _ => match store.embedding(c.memory_id)? {
                        Some(emb) if emb.len() == v.dim() => v.upsert(c.memory_id, &emb)?,
                        _ => v.remove(c.memory_id)?,
                    },
                }
            }
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
        if have_lease && v.has_unsaved() {
            v.save()?;
        }
        *self
            .vectors
            .write()
            .map_err(|_| Error::Vector("lock poisoned".into()))? = Some(v);
        *self
            .vector_health
            .lock()
            .map_err(|_| Error::Vector("lock poisoned".into()))? = health;
        Ok(())
    }

    fn save_vectors_if_due(&self, force: bool) -> Result<()> {
        let mut g = self
            .vectors
            .write()
            .map_err(|_| Error::Vector("lock poisoned".into()))?;
        if let Some(v) = g.as_mut() {
            if v.needs_save() || (force && v.has_unsaved()) {
                v.save()?;
            }
        }
        Ok(())
    }

    /// Embed the given memories now (caller holds the lease). Returns the ids embedded.
    fn embed_ids(&self, ids: &[i64]) -> Result<Vec<i64>> {
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
    fn embed_backlog_with(
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

    /// Each memory's baseline: its mean cosine to a fixed sample of stored memories. A memory
    /// made of ids and hashes sits near everything, so its baseline is high and the support
    /// check asks more of it.
    fn compute_baselines(&self, rows: &[(i64, Vec<f32>)]) -> Result<()> {
        let Some(e) = &self.embedder else {
            return Ok(());
        };
        let mut store = self.store()?;
        let total = store.count()?;
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
        let (ids, total) = {
            let store = self.store()?;
            let total = store.count()?;
            let grown_from = (total as f64 / BASELINE_REFRESH_GROWTH).floor() as i64;
            (
                store.stale_baselines(e.id(), grown_from.max(1), limit)?,
                total,
            )
        };
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
        let mut meta = self
            .meta
            .write()
            .map_err(|_| Error::Other("meta lock poisoned".into()))?;
        let store = self.store()?;
        for (id, _) in rows {
            if let Some(m) = store.meta(id)? {
                meta.insert(id, m);
            }
        }
        Ok(n)
    }

    /// Throw the indexes away and build them again from the store.
    pub fn reindex(&self) -> Result<(u64, usize)> {
        self.writable()?;
        let _lease = WriteLock::acquire(&self.paths.write_lock(), WRITE_WAIT)?;
        let store = self.store()?;
        let n = store.count()? as u64;
        let gen_ = store.generation()?;
        {
            let mut bm25 = self
                .bm25
                .write()
                .map_err(|_| Error::Bm25("lock poisoned".into()))?;
            bm25.delete_all()?;
            let pb = crate::progress::bar(n, "keywords");
            for m in store.list(&ListFilter {
                include_bookkeeping: true,
                ..Default::default()
            })? {
                bm25.upsert(m.id, &m.text, &m.profile, m.scope)?;
                pb.inc(1);
            }
            bm25.commit(gen_)?;
            bm25.close_writer();
            pb.finish_and_clear();
        }
        *self
            .bm25_health
            .lock()
            .map_err(|_| Error::Bm25("poisoned".into()))? =
            IndexHealth::Rebuilt("asked for".into());
        drop(store);
        let mut embedded = 0;
        if self.embedder.is_some() {
            let _ = std::fs::remove_file(self.paths.vectors_meta());
            self.open_vectors(true)?;
            // Each batch is committed: an interrupted reindex resumes where it stopped.
            let pending = self.pending_embeddings()?.max(0) as u64;
            let pb = crate::progress::bar(pending, "embeddings");
            embedded = self.embed_backlog_with(usize::MAX, Some(&pb))?;
            pb.finish_and_clear();
            self.refresh_baselines(usize::MAX)?;
            self.save_vectors_if_due(true)?;
        }
        Ok((n, embedded))
    }
}

/// Recent recalls reach the store when the engine goes (the cold path's process ends, the
/// worker stops), so feedback still finds them.
impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.flush_recall_log();
    }
}
