//! The engine: one API over the store, the indexes and the models.
//!
//! Every front (the CLI in-process, the warm worker, MCP and HTTP through the service) calls
//! these methods and nothing else, so each runs the very same code on the same input.
//!
//! Write path: validate → take the writer lease → SQLite commit (now durable, and the id is
//! acknowledged) → BM25 upsert + commit (keyword-findable at once) → embedding when the
//! model is loaded here, otherwise left pending and embedded by the next process that loads
//! the model (the backlog). SQLite is the truth; the indexes catch up from its change log.
//!
//! This file opens an engine and owns its locks; the rest is by job: `reads` (memories,
//! lookups, health, the models), `writes` and `after_commit` (the write path), `sync` (the
//! indexes following the change log, rebuilding), `open_index` (the keyword index at open),
//! `embedding` (the embedding queue), `baselines` (per-memory baselines), `transfer` (import
//! and export's side).

use crate::embed::{self, Embedder, ModelStatus};
use crate::error::poisoned;
use crate::index::IndexHealth;
use crate::index::bm25::Bm25;
use crate::index::meta::MetaMap;
use crate::index::vector::Vectors;
use crate::lock::{WRITE_WAIT, WriteLock};
use crate::paths::Paths;
use crate::settings::Settings;
use crate::store::{MetaRow, NoWrites, Store};
use crate::{Clock, Error, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockWriteGuard};

mod after_commit;
mod baselines;
mod embedding;
mod feedback;
mod fence;
mod image_text;
mod models;
mod open_index;
mod pictures;
pub use image_text::{PictureQuery, QUERY_WAIT as PICTURE_QUERY_WAIT};
pub use pictures::{PictureShown, PictureStatus};
mod reads;
mod sync;
mod transfer;
mod views;
mod writes;
pub use baselines::{
    BASELINE_PRIOR, BASELINE_PRIOR_WEIGHT, BASELINE_REFRESH_GROWTH, BASELINE_SAMPLE,
    shrink_baseline,
};
pub use embedding::{INLINE_BACKLOG_LIMIT, WORKER_OPEN_BACKLOG};
use open_index::open_bm25;
pub use transfer::{KeyLink, LinkReport};
pub use views::MAX_VIEW_NAME;

const BM25_LOCK: &str = "the keyword index lock";
const VECTORS_LOCK: &str = "the vector index lock";
const META_LOCK: &str = "the meta cache lock";
const BM25_HEALTH_LOCK: &str = "the keyword index health lock";
const VECTOR_HEALTH_LOCK: &str = "the vector index health lock";

/// Which models to load when opening.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelMode {
    /// The memory model (and the fast query encoder beside it, when it pairs), the reader.
    Load,
    /// Only a query encoder that pairs with the stored vectors (the cold path, which must not
    /// load the memory model): questions are searched among the stored vectors, stored texts
    /// wait for the worker. Without an encoder that pairs, the same as `Skip`.
    Query,
    /// No model: keyword search only.
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

/// When a write's new memories get their vectors.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Embed {
    /// Before the write answers: findable by meaning as soon as it is acknowledged.
    #[default]
    Now,
    /// By the worker's background work: the write answers once it is findable by keyword.
    /// For capture hooks, which must never hold an agent up behind a model (issue 35).
    Later,
}

/// What a write acknowledged.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Remembered {
    pub id: i64,
    /// The idempotency key or the same text was already stored; nothing new was written.
    pub existed: bool,
    /// The same text (whitespace and case aside) already stands as this memory: it was
    /// acknowledged, and marked seen again, instead of being stored twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<i64>,
    /// Secrets replaced by `[redacted: KIND]` before the write (`text::redact_secrets`).
    #[serde(default)]
    pub redacted: usize,
    /// Their kinds, one per secret, in the order met.
    #[serde(default)]
    pub redacted_kinds: Vec<String>,
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
    /// The settings file as it is now, for what must follow it while the engine lives (the
    /// answer check: consent, mode, reader); read again only when the file changed.
    pub live_settings: crate::settings::Live,
    pub clock: Clock,
    store: Mutex<Store>,
    bm25: RwLock<Bm25>,
    bm25_health: Mutex<IndexHealth>,
    vectors: RwLock<Option<Vectors>>,
    vector_health: Mutex<IndexHealth>,
    embedder: Option<Arc<dyn Embedder>>,
    model_status: Option<ModelStatus>,
    /// Why questions do not go through the fast query encoder, when they do not.
    query_status: Option<embed::query::NotUsed>,
    meta: RwLock<MetaMap>,
    query_vecs: Mutex<HashMap<String, Vec<f32>>>,
    baseline_sample: RwLock<Option<Arc<Vec<Vec<f32>>>>>,
    /// Set when the data dir takes no writes (read-only, a full disk): reads open without
    /// writing anything, writes say why they cannot.
    read_only: Option<NoWrites>,
    /// The cross-encoder, loading in the background when one is configured.
    reranker: embed::reranker::Slot,
    /// The reader (the answer check's judge), loading in the background when one is
    /// configured and this engine loads models; None on the cold path, which never waits
    /// for a model.
    reader: Option<embed::reranker::Slot>,
    /// The last change-log seq applied to this engine's in-memory state (meta cache, vector
    /// index, BM25 reader). Another process may have moved the on-disk BM25 further; what
    /// this engine has seen is tracked here.
    seen_seq: std::sync::atomic::AtomicI64,
    /// The model's tokenizer alone, for counting when the model is not loaded.
    counting_tokenizer: std::sync::OnceLock<Option<embed::bpe::Counter>>,
    /// The store's identity; both indexes are stamped with it.
    store_id: String,
    /// The file this engine's store connection writes to (`fence.rs`).
    store_file: Option<crate::store::FileId>,
    /// The last recalls answered here, for feedback (see `feedback.rs`).
    recent_recalls: Mutex<std::collections::VecDeque<Arc<crate::store::recall_log::LoggedRecall>>>,
    /// Read connections handed back after use (see [`Engine::reader`]).
    readers: Mutex<Vec<Store>>,
    /// The OCR models, loaded the first time a picture waits for them (`pictures.rs`).
    ocr: std::sync::OnceLock<std::result::Result<Arc<crate::media::ocr::Ocr>, String>>,
    /// The picture channel's image–text model, when the user gave one (`image_text.rs`).
    picture_models: image_text::PictureModels,
    /// Whether the log already says the OCR models could not be loaded.
    ocr_unavailable_said: std::sync::atomic::AtomicBool,
}

/// How long opening waits for the reader to finish loading (it loads in parallel with the
/// embedding model and is usually done first; a reader that takes longer is `warming` to
/// the questions that meet it). Chosen, not measured: above the embedding model's load.
const READER_LOAD_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

/// How many times opening starts over when a restore swapped the store while it opened.
/// A restore takes seconds and holds the writer lease throughout; one more try waits for
/// it. Chosen, not measured.
const OPEN_TRIES: usize = 3;

impl Engine {
    /// Open the engine over the data dir in `paths`. When a restore swapped the store while
    /// this open was under way (see `fence.rs`), it starts over on the restored store.
    pub fn open(paths: Paths, opts: OpenOptions) -> Result<Engine> {
        let mut tries = 1;
        loop {
            match Engine::open_once(paths.clone(), opts) {
                Err(Error::StoreReplaced) if tries < OPEN_TRIES => tries += 1,
                r => return r,
            }
        }
    }

    fn open_once(paths: Paths, opts: OpenOptions) -> Result<Engine> {
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
        let (embedder, model_status, query_status) = models::load(&paths, &settings, opts.model);
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
        if lease.is_some() && store.replaced() {
            // Opened just before a restore swapped the store: never write into the old one.
            return Err(Error::StoreReplaced);
        }
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
        let reader = match opts.model {
            ModelMode::Load => {
                embed::reader::start(&paths, &settings_for_rerank, runtime_for_rerank.clone())
            }
            ModelMode::Query | ModelMode::Skip => None,
        };
        let store_file = store.file_id();
        let engine = Engine {
            live_settings: crate::settings::Live::new(paths.settings()),
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
            query_status,
            meta: RwLock::new(meta.into()),
            query_vecs: Mutex::new(HashMap::new()),
            baseline_sample: RwLock::new(None),
            read_only,
            reader,
            reranker: embed::reranker::start(&settings_for_rerank, runtime_for_rerank),
            seen_seq: std::sync::atomic::AtomicI64::new(seen),
            store_id,
            store_file,
            counting_tokenizer: std::sync::OnceLock::new(),
            recent_recalls: Default::default(),
            readers: Mutex::new(Vec::new()),
            ocr: std::sync::OnceLock::new(),
            ocr_unavailable_said: std::sync::atomic::AtomicBool::new(false),
            // The worker is the engine that waits for the writer lease: it lives long enough
            // to load the image–text model in the background.
            picture_models: image_text::PictureModels::new(match opts.model {
                ModelMode::Load if opts.wait_for_lease => image_text::QuestionModel::Background,
                ModelMode::Load => image_text::QuestionModel::Here,
                _ => image_text::QuestionModel::Never,
            }),
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
                // Only the fast query encoder (the cold path): stored texts and their
                // baselines wait for the worker.
                if engine.memory_model().is_some() {
                    engine.embed_backlog(backlog)?;
                    engine.refresh_baselines(INLINE_BACKLOG_LIMIT)?;
                }
                engine.save_vectors_on_open();
            }
        }
        engine.close_bm25_writer();
        drop(lease);
        // The reader loaded beside the embedding model; an engine that loads models is
        // ready when both are (a question must not meet a reader still loading).
        if let Some(slot) = &engine.reader {
            embed::reader::wait_loaded(slot, READER_LOAD_WAIT);
        }
        Ok(engine)
    }

    pub(super) fn writable(&self) -> Result<()> {
        match self.read_only {
            Some(why) => Err(why.error(&self.paths.data)),
            None => Ok(()),
        }
    }

    /// Why this engine takes no writes, if it does not.
    pub fn no_writes(&self) -> Option<NoWrites> {
        self.read_only
    }

    // The locks. A poisoned one (its holder panicked) is an internal error named after it.

    pub(super) fn store(&self) -> Result<MutexGuard<'_, Store>> {
        self.store.lock().map_err(poisoned("the store lock"))
    }

    fn bm25_mut(&self) -> Result<RwLockWriteGuard<'_, Bm25>> {
        self.bm25.write().map_err(poisoned(BM25_LOCK))
    }

    fn vectors_mut(&self) -> Result<RwLockWriteGuard<'_, Option<Vectors>>> {
        self.vectors.write().map_err(poisoned(VECTORS_LOCK))
    }

    fn meta_mut(&self) -> Result<RwLockWriteGuard<'_, MetaMap>> {
        self.meta.write().map_err(poisoned(META_LOCK))
    }

    fn set_bm25_health(&self, h: IndexHealth) -> Result<()> {
        *self
            .bm25_health
            .lock()
            .map_err(poisoned(BM25_HEALTH_LOCK))? = h;
        Ok(())
    }

    fn set_vector_health(&self, h: IndexHealth) -> Result<()> {
        *self
            .vector_health
            .lock()
            .map_err(poisoned(VECTOR_HEALTH_LOCK))? = h;
        Ok(())
    }

    /// Let go of the keyword index's writer (tantivy allows one per index), so the next
    /// process that takes the lease can write.
    fn close_bm25_writer(&self) {
        if let Ok(mut b) = self.bm25.write() {
            b.close_writer();
        }
    }

    /// The store's identity (both indexes are stamped with it; export keys mint from it).
    pub fn store_id(&self) -> &str {
        &self.store_id
    }

    /// A read connection of its own (for producers running in parallel), taken from the
    /// engine's pool and given back when dropped. A recall opens several (producers, the
    /// exact cosines of the vector candidates, the support check, layers); opening each anew
    /// cost a connection and a cold page cache every time.
    pub fn reader(&self) -> Result<Reader<'_>> {
        let pooled = self.readers.lock().ok().and_then(|mut p| p.pop());
        let store = match pooled {
            Some(s) => s,
            None => match self.read_only {
                Some(_) => Store::open_without_writes(&self.paths.store())?,
                None => Store::open_reader(&self.paths.store())?,
            },
        };
        Ok(Reader {
            store: Some(store),
            pool: &self.readers,
        })
    }
}

/// Read connections kept for reuse: as many as were ever in use at once (a recall's
/// parallel producers), which on this machine is a handful.
const READERS_KEPT: usize = 8;

/// A pooled read connection ([`Engine::reader`]); it goes back to the pool when dropped.
pub struct Reader<'a> {
    store: Option<Store>,
    pool: &'a Mutex<Vec<Store>>,
}

impl std::ops::Deref for Reader<'_> {
    type Target = Store;
    fn deref(&self) -> &Store {
        self.store.as_ref().expect("present until drop")
    }
}

impl Drop for Reader<'_> {
    fn drop(&mut self) {
        if let (Some(s), Ok(mut pool)) = (self.store.take(), self.pool.lock()) {
            if pool.len() < READERS_KEPT {
                pool.push(s);
            }
        }
    }
}

/// Recent recalls reach the store when the engine goes (the cold path's process ends, the
/// worker stops), so feedback still finds them.
impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.flush_recall_log();
    }
}
