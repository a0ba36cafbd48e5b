//! Embedding models: the real one (ONNX via fastembed, loaded from local files) and a
//! deterministic stand-in for plumbing tests.
//!
//! Nothing is fetched at run time. `scripts/setup.sh` puts ONNX Runtime and
//! all-MiniLM-L6-v2 (int8) into the cache dir; a user may point `SLM_MODEL_DIR` (or
//! `model.dir` in settings) at another model directory, with an optional `slm-model.json`
//! that names its pooling, dimension and its own similarity floor. When the model or the
//! runtime is missing, slm runs BM25-only and says so; it never panics.

pub mod bpe;
pub mod graph;
pub mod manifest;
pub mod onnx;
pub mod query;
pub mod reader;
pub mod reranker;
pub mod shared_run;
pub mod tokenizer;

pub use manifest::Manifest;

use crate::Result;

/// Environment variable naming a model directory to use instead of the default.
pub const MODEL_DIR_ENV: &str = "SLM_MODEL_DIR";
/// Environment variable naming the ONNX Runtime library (ort's own convention).
pub const ORT_LIB_ENV: &str = "ORT_DYLIB_PATH";
/// Test-only switch: `SLM_EMBEDDER=hash` uses the deterministic stand-in. It has no
/// notion of meaning and must never be used to judge recall quality.
pub const EMBEDDER_ENV: &str = "SLM_EMBEDDER";

/// What a model directory's manifest says about the model, as its embedder reports it: the
/// same for every embedder that loads one (see `card_methods!`).
#[derive(Debug, Clone)]
pub struct ModelCard {
    /// The manifest's `id`, else the directory's name.
    pub id: String,
    /// The dimension its probe embedding had.
    pub dim: usize,
    pub floor: Option<f32>,
    pub license: Option<String>,
    pub fusion: Option<manifest::FusionScale>,
    pub supported_at: Option<f64>,
    /// The manifest's `index_dimension`.
    pub index_dim: Option<usize>,
}

impl ModelCard {
    pub fn new(model_dir: &std::path::Path, manifest: &Manifest, dim: usize) -> ModelCard {
        ModelCard {
            id: manifest.id.clone().unwrap_or_else(|| {
                model_dir
                    .file_name()
                    .map(|n| n.to_string_lossy().to_string())
                    .unwrap_or_else(|| "user-model".into())
            }),
            dim,
            floor: manifest.similarity_floor,
            license: manifest.license.clone(),
            fusion: manifest.fusion,
            supported_at: manifest.supported_at,
            index_dim: manifest.index_dimension,
        }
    }
}

/// The [`Embedder`] methods a model answers from its card (a field `card`), written once for
/// every embedder that loads a model directory.
macro_rules! card_methods {
    () => {
        fn id(&self) -> &str {
            &self.card.id
        }
        fn dim(&self) -> usize {
            self.card.dim
        }
        fn index_dim(&self) -> usize {
            self.card
                .index_dim
                .filter(|d| *d > 0 && *d <= self.card.dim)
                .unwrap_or(self.card.dim)
        }
        fn similarity_floor(&self) -> Option<f32> {
            self.card.floor
        }
        fn license(&self) -> Option<&str> {
            self.card.license.as_deref()
        }
        fn fusion_scale(&self) -> Option<$crate::embed::manifest::FusionScale> {
            self.card.fusion
        }
        fn supported_at(&self) -> Option<f64> {
            self.card.supported_at
        }
    };
}
use card_methods;

/// What a poisoned lock around a loaded model is called in the error.
const EMBEDDER_LOCK: &str = "the embedder lock";

/// Something that turns texts into unit-length vectors.
pub trait Embedder: Send + Sync {
    /// Stable id of the model; stored with every embedding.
    fn id(&self) -> &str;
    fn dim(&self) -> usize;
    /// The dimensions the vector index keeps of each vector (the manifest's
    /// `index_dimension`; all of them unless the model was trained to be cut).
    fn index_dim(&self) -> usize {
        self.dim()
    }
    /// The model's own evidence floor for cosine similarity, when it declares one.
    fn similarity_floor(&self) -> Option<f32>;
    /// Embed stored texts (documents: the model's document prefix, if any, is added).
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
    /// Embed questions (the model's query prefix, if any, is added).
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed(texts)
    }
    /// The licence of the weights, when the manifest names it.
    fn license(&self) -> Option<&str> {
        None
    }
    /// Recall's channel weight multipliers for this model (`slm-model.json` `fusion`).
    fn fusion_scale(&self) -> Option<manifest::FusionScale> {
        None
    }
    /// The support check's threshold for this model (`slm-model.json` `supported_at`): the
    /// score mixes cosine lifts, whose scale is the model's own.
    fn supported_at(&self) -> Option<f64> {
        None
    }
    /// The model's own prompt for questions that ask whether a text answers them
    /// (`slm-model.json` `answer_prompt`; EmbeddingGemma's "question answering" task), with
    /// the threshold measured for it (`answer_at`). The local answer check runs only on a
    /// model that has one.
    fn answer_prompt(&self) -> Option<(&str, f64)> {
        None
    }
    /// Embed texts that already carry their prompt (no prefix is added).
    fn embed_prompted(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed(texts)
    }
    /// Count tokens the way this model's tokenizer does (for token budgets).
    fn count_tokens(&self, text: &str) -> usize;
    /// Whether it embeds stored texts: false for the cold path's fast query encoder alone
    /// ([`query::QueryOnly`]), which leaves them to the worker's memory model.
    fn embeds_documents(&self) -> bool {
        true
    }
    /// The id of the encoder that embeds questions when it is not this model itself
    /// ([`query`]); None when questions go through the memory model.
    fn query_encoder(&self) -> Option<&str> {
        None
    }
    /// The memory model and the fast query encoder as a pair, to switch between them.
    fn as_paired(&self) -> Option<&query::Paired> {
        None
    }
}

/// Cosine similarity of two vectors (unit length or not).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let (mut dot, mut na, mut nb) = (0f32, 0f32, 0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

/// The first `dims` dimensions of `v`, at unit length: a Matryoshka-trained model's vector
/// cut to fewer dimensions (all of them when `dims` is as many or more).
pub fn truncated(v: &[f32], dims: usize) -> Vec<f32> {
    let mut c = v[..dims.min(v.len())].to_vec();
    normalize(&mut c);
    c
}

pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

/// Deterministic stand-in: hashed character trigrams and words into 384 dimensions.
/// Texts sharing words get similar vectors; nothing else. Plumbing tests only.
pub struct HashEmbedder;

impl HashEmbedder {
    pub const DIM: usize = 384;
}

impl Embedder for HashEmbedder {
    fn id(&self) -> &str {
        "hash-stand-in-384"
    }
    fn dim(&self) -> usize {
        Self::DIM
    }
    fn similarity_floor(&self) -> Option<f32> {
        None
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| hash_vector(t, Self::DIM)).collect())
    }
    fn count_tokens(&self, text: &str) -> usize {
        fallback_token_count(text)
    }
}

/// Hashed words into `dim` dimensions (the stand-in's vectors at another size).
fn hash_vector(text: &str, dim: usize) -> Vec<f32> {
    let mut v = vec![0f32; dim];
    for w in crate::text::words(text) {
        let h = fnv(w.as_bytes());
        v[(h % dim as u64) as usize] += 1.0;
        v[((h >> 20) % dim as u64) as usize] += 0.5;
    }
    normalize(&mut v);
    v
}

/// For measuring speed at scale only (`SLM_EMBEDDER=hash-docs slm bench recall`): stored
/// texts get hashed vectors of the model's size, so a million memories build in minutes,
/// while questions are embedded by the real model, so the query embedding's cost is real.
/// The vector channel's answers mean nothing with it.
pub struct HashDocsEmbedder {
    real: Box<dyn Embedder>,
    id: String,
}

impl Embedder for HashDocsEmbedder {
    fn id(&self) -> &str {
        &self.id
    }
    fn dim(&self) -> usize {
        self.real.dim()
    }
    fn index_dim(&self) -> usize {
        self.real.index_dim()
    }
    fn similarity_floor(&self) -> Option<f32> {
        self.real.similarity_floor()
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| hash_vector(t, self.dim())).collect())
    }
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.real.embed_queries(texts)
    }
    fn fusion_scale(&self) -> Option<manifest::FusionScale> {
        self.real.fusion_scale()
    }
    fn supported_at(&self) -> Option<f64> {
        self.real.supported_at()
    }
    fn count_tokens(&self, text: &str) -> usize {
        self.real.count_tokens(text)
    }
    fn query_encoder(&self) -> Option<&str> {
        self.real.query_encoder()
    }
    fn as_paired(&self) -> Option<&query::Paired> {
        self.real.as_paired()
    }
}

fn fnv(b: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for x in b {
        h ^= *x as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// A deliberately high token estimate for when no tokenizer is available: every word
/// piece, digit group and symbol as its own token, plus one per 4 characters of long
/// words. WordPiece never produces more tokens than this for ASCII text, so a budget
/// counted this way is never exceeded.
pub fn fallback_token_count(text: &str) -> usize {
    let mut n = 0;
    for w in text.split_whitespace() {
        let chars = w.chars().count();
        let symbols = w.chars().filter(|c| !c.is_alphanumeric()).count();
        n += 1 + symbols + chars / 4;
    }
    n
}

/// What `slm doctor` and `channel_status` say about the embedder.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ModelStatus {
    pub state: &'static str,
    pub model_dir: String,
    pub runtime: String,
    pub detail: String,
    pub fix: Option<String>,
}

/// What fixes a missing model or runtime.
pub(crate) const SETUP_FIX: &str = "scripts/setup.sh --models-only";

impl ModelStatus {
    /// The status a loader reports for the model in `model_dir` on `runtime`: its `state`
    /// ("missing", "invalid", "broken"), what is wrong, and the command that fixes it.
    pub(crate) fn of(
        model_dir: &std::path::Path,
        runtime: &std::path::Path,
    ) -> impl Fn(&'static str, String, Option<&str>) -> ModelStatus {
        let (model_dir, runtime) = (
            model_dir.display().to_string(),
            runtime.display().to_string(),
        );
        move |state, detail, fix| ModelStatus {
            state,
            model_dir: model_dir.clone(),
            runtime: runtime.clone(),
            detail,
            fix: fix.map(str::to_string),
        }
    }
}

/// Load the embedder the environment asks for: a graph that pools inside itself
/// (`pooling: "none"` in its manifest) runs on ONNX Runtime directly; a sentence-transformers
/// export that leaves pooling to the caller runs through fastembed.
pub fn load(
    paths: &crate::paths::Paths,
    settings: &crate::settings::Settings,
) -> std::result::Result<Box<dyn Embedder>, ModelStatus> {
    load_paired(paths, settings).map(|(e, _)| e)
}

/// [`load`], with questions through the fast query encoder when it pairs with the memory model
/// ([`query::Paired`]), or why not. The stand-in pairs with nothing; `hash-docs` pairs its real
/// model, so a speed bench at scale measures the questions' real encoder.
pub fn load_paired(
    paths: &crate::paths::Paths,
    settings: &crate::settings::Settings,
) -> std::result::Result<(Box<dyn Embedder>, Option<query::NotUsed>), ModelStatus> {
    let stand_in = std::env::var(EMBEDDER_ENV).unwrap_or_default();
    if stand_in == "hash" {
        return Ok((Box::new(HashEmbedder), None));
    }
    let (model_dir, runtime) = onnx::locate(paths, settings);
    let memory = load_model(&model_dir, &runtime)?;
    let (real, why) = match query::load(paths, settings, memory.id(), &runtime) {
        Ok(fast) => (
            Box::new(query::Paired::new(memory, Box::new(fast))) as Box<dyn Embedder>,
            None,
        ),
        Err(why) => (memory, Some(why)),
    };
    if stand_in == "hash-docs" {
        return Ok((
            Box::new(HashDocsEmbedder {
                id: format!("hash-docs-{}", real.dim()),
                real,
            }),
            why,
        ));
    }
    Ok((real, why))
}

fn load_model(
    model_dir: &std::path::Path,
    runtime: &std::path::Path,
) -> std::result::Result<Box<dyn Embedder>, ModelStatus> {
    let pooled_inside = Manifest::read(&model_dir)
        .map(|m| m.pooling.as_deref() == Some("none"))
        .unwrap_or(false);
    if pooled_inside {
        graph::GraphEmbedder::load(model_dir, runtime).map(|e| Box::new(e) as Box<dyn Embedder>)
    } else {
        onnx::OnnxEmbedder::load(model_dir, runtime).map(|e| Box::new(e) as Box<dyn Embedder>)
    }
}
