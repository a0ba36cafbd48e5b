//! The questions' encoder (issue 34): a question needs a vector in the memory model's space,
//! fast; stored memories need the memory model only once, at write time, in the background.
//!
//! A query encoder is a model directory like the memory model's (`model.onnx`,
//! `tokenizer.json`, `slm-model.json`) whose manifest names the memory model it pairs with
//! (`pairs_with`): a question embedded by it is only ever searched among vectors of that model.
//! When one is installed (`<cache>/models/slm-query-fast-v1`, or `SLM_QUERY_ENCODER_DIR`) and
//! pairs, the worker embeds questions with it ([`Paired`]) and the cold path loads it alone
//! ([`QueryOnly`]) and runs the full pipeline, vector search included. When the memory model is
//! another one (a model changed under it), the pair is refused: questions go through the memory
//! model (the worker) or keyword search (the cold path), and `slm doctor` names the fix.
//!
//! slm ships no such encoder yet: `scripts/models/query-encoder` trains one (EmbeddingGemma's
//! first layers with its pooling and dense head, distilled toward its question vectors), and
//! what it reached on this machine so far is far from the memory model's recall (the issue's
//! notes). Until one does, questions go through the memory model everywhere.
//!
//! `model.query` in settings (or `SLM_QUERY_ENCODER`) chooses: `fast` (an encoder that pairs,
//! when one is installed; the default) or `full` (the memory model, always).

use super::{Embedder, Manifest, ModelStatus};
use crate::paths::Paths;
use crate::settings::Settings;
use crate::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// The folder under the cache dir's `models/` that setup installs the encoder into.
pub const QUERY_ENCODER_NAME: &str = "slm-query-fast-v1";
/// Environment variable overriding `model.query` (`fast` or `full`).
pub const QUERY_ENV: &str = "SLM_QUERY_ENCODER";
/// Environment variable naming another encoder directory (tests, a user's own).
pub const QUERY_DIR_ENV: &str = "SLM_QUERY_ENCODER_DIR";

/// Which encoder embeds questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryMode {
    /// The fast encoder when it is installed and pairs with the memory model.
    Fast,
    /// The memory model itself.
    Full,
}

impl QueryMode {
    pub fn parse(s: &str) -> Result<QueryMode> {
        match s.trim() {
            "fast" => Ok(QueryMode::Fast),
            "full" => Ok(QueryMode::Full),
            other => Err(Error::Usage(format!(
                "model.query is '{other}'; it takes 'fast' (the small query encoder) or 'full' (the memory model for questions too)"
            ))),
        }
    }

    /// `SLM_QUERY_ENCODER`, else settings `model.query`, else fast.
    pub fn configured(settings: &Settings) -> Result<QueryMode> {
        match std::env::var(QUERY_ENV).ok().filter(|v| !v.is_empty()) {
            Some(v) => QueryMode::parse(&v),
            None => settings
                .model
                .query
                .as_deref()
                .map(QueryMode::parse)
                .unwrap_or(Ok(QueryMode::Fast)),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            QueryMode::Fast => "fast",
            QueryMode::Full => "full",
        }
    }
}

/// Where the encoder is: `SLM_QUERY_ENCODER_DIR`, else the cache dir's.
pub fn locate(paths: &Paths) -> PathBuf {
    std::env::var_os(QUERY_DIR_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| paths.cache.join("models").join(QUERY_ENCODER_NAME))
}

/// The memory model's id as its embedder will report it (its manifest's `id`, else its
/// folder's name), read without loading it.
pub fn memory_model_id(model_dir: &Path) -> String {
    Manifest::read(model_dir)
        .ok()
        .and_then(|m| m.id)
        .unwrap_or_else(|| {
            model_dir
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_else(|| "user-model".into())
        })
}

/// Why the fast encoder is not used, in words a person can act on.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NotUsed {
    /// `full` (chosen), `none` (no encoder for this memory model, none needed), `missing`,
    /// `mismatch` (pairs with another memory model), `broken`.
    pub state: &'static str,
    pub detail: String,
    pub fix: Option<String>,
}

/// Load the fast encoder for memories embedded by `memory_model` (its id), if the settings
/// ask for it and it pairs; otherwise say why not.
pub fn load(
    paths: &Paths,
    settings: &Settings,
    memory_model: &str,
    runtime: &Path,
) -> std::result::Result<super::graph::GraphEmbedder, NotUsed> {
    let mode = QueryMode::configured(settings).map_err(|e| NotUsed {
        state: "broken",
        detail: e.to_string(),
        fix: Some(r#"set "model": {"query": "fast"} (or "full") in settings.json"#.into()),
    })?;
    if mode == QueryMode::Full {
        return Err(NotUsed {
            state: "full",
            detail: "through the memory model (model.query is 'full')".into(),
            fix: None,
        });
    }
    let dir = locate(paths);
    pairing(&dir, memory_model)?;
    super::graph::GraphEmbedder::load(&dir, runtime).map_err(|s: ModelStatus| NotUsed {
        state: if s.state == "missing" {
            "missing"
        } else {
            "broken"
        },
        detail: s.detail,
        fix: s.fix,
    })
}

/// Whether the encoder in `dir` pairs with `memory_model`: its manifest's `pairs_with`.
pub fn pairing(dir: &Path, memory_model: &str) -> std::result::Result<(), NotUsed> {
    if !dir.join("model.onnx").is_file() {
        // None ships yet (see the module docs): nothing to fix.
        return Err(NotUsed {
            state: "none",
            detail: format!(
                "through {memory_model}, the memory model (no fast query encoder in {})",
                dir.display()
            ),
            fix: None,
        });
    }
    let manifest = Manifest::read(dir).map_err(|e| NotUsed {
        state: "broken",
        detail: e,
        fix: Some(super::SETUP_FIX.into()),
    })?;
    match manifest.pairs_with.as_deref() {
        Some(p) if p == memory_model => Ok(()),
        Some(p) => Err(NotUsed {
            state: "mismatch",
            detail: format!(
                "the fast query encoder pairs with {p}, but memories are embedded by {memory_model}: its questions would land in another model's space, so it is not used"
            ),
            fix: Some(format!(
                r#"use {p} for memories ("model": {{"id": "{p}"}} in settings.json, then slm reindex), or "model": {{"query": "full"}}"#
            )),
        }),
        None => Err(NotUsed {
            state: "broken",
            detail: format!(
                "{} names no memory model to pair with (pairs_with)",
                dir.join("slm-model.json").display()
            ),
            fix: Some(super::SETUP_FIX.into()),
        }),
    }
}

/// Questions through the fast encoder, everything else through the memory model: what the
/// worker and `slm eval` load. The memory model's id, dimension and measured settings are
/// the ones that count (vectors are searched in its space). `slm eval --query-encoder`
/// switches questions between the two ([`Paired::set_mode`]).
pub struct Paired {
    memory: Box<dyn Embedder>,
    query: Box<dyn Embedder>,
    full: AtomicBool,
}

impl Paired {
    pub fn new(memory: Box<dyn Embedder>, query: Box<dyn Embedder>) -> Paired {
        Paired {
            memory,
            query,
            full: AtomicBool::new(false),
        }
    }

    pub fn set_mode(&self, mode: QueryMode) {
        self.full.store(mode == QueryMode::Full, Ordering::Relaxed);
    }

    fn questions(&self) -> &dyn Embedder {
        if self.full.load(Ordering::Relaxed) {
            self.memory.as_ref()
        } else {
            self.query.as_ref()
        }
    }
}

impl Embedder for Paired {
    fn id(&self) -> &str {
        self.memory.id()
    }
    fn dim(&self) -> usize {
        self.memory.dim()
    }
    fn index_dim(&self) -> usize {
        self.memory.index_dim()
    }
    fn similarity_floor(&self) -> Option<f32> {
        self.memory.similarity_floor()
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.memory.embed(texts)
    }
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.questions().embed_queries(texts)
    }
    fn license(&self) -> Option<&str> {
        self.memory.license()
    }
    fn fusion_scale(&self) -> Option<super::manifest::FusionScale> {
        self.memory.fusion_scale()
    }
    fn supported_at(&self) -> Option<f64> {
        self.memory.supported_at()
    }
    fn answer_prompt(&self) -> Option<(&str, f64)> {
        self.memory.answer_prompt()
    }
    fn embed_prompted(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.memory.embed_prompted(texts)
    }
    fn count_tokens(&self, text: &str) -> usize {
        self.memory.count_tokens(text)
    }
    fn query_encoder(&self) -> Option<&str> {
        (!self.full.load(Ordering::Relaxed)).then(|| self.query.id())
    }
    fn as_paired(&self) -> Option<&Paired> {
        Some(self)
    }
}

/// The cold path's embedder: the fast encoder alone, answering for the memory model whose
/// space it pairs with (that model's id, dimension and measured settings, read from its
/// manifest without loading it). It embeds questions only: stored texts wait for the worker.
pub struct QueryOnly {
    query: Box<dyn Embedder>,
    card: super::ModelCard,
}

impl QueryOnly {
    pub fn new(query: Box<dyn Embedder>, memory_dir: &Path) -> QueryOnly {
        let manifest = Manifest::read(memory_dir).unwrap_or_default();
        let mut card = super::ModelCard::new(memory_dir, &manifest, query.dim());
        card.dim = manifest.dimension.unwrap_or(card.dim);
        QueryOnly { query, card }
    }
}

impl Embedder for QueryOnly {
    super::card_methods!();
    fn embed(&self, _texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Err(Error::Model(
            "stored texts are embedded by the memory model, which this process did not load".into(),
        ))
    }
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.query.embed_queries(texts)
    }
    fn count_tokens(&self, text: &str) -> usize {
        self.query.count_tokens(text)
    }
    fn embeds_documents(&self) -> bool {
        false
    }
    fn query_encoder(&self) -> Option<&str> {
        Some(self.query.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoder_dir(pairs_with: Option<&str>) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("model.onnx"), b"not read by pairing").unwrap();
        let m = match pairs_with {
            Some(p) => format!(r#"{{"id": "q", "pairs_with": "{p}"}}"#),
            None => r#"{"id": "q"}"#.to_string(),
        };
        std::fs::write(d.path().join("slm-model.json"), m).unwrap();
        d
    }

    #[test]
    fn an_encoder_is_used_only_with_the_memory_model_it_pairs_with() {
        let d = encoder_dir(Some("embeddinggemma-300m-int8"));
        assert!(pairing(d.path(), "embeddinggemma-300m-int8").is_ok());
        let other = pairing(d.path(), "all-minilm-l6-v2-int8").unwrap_err();
        assert_eq!(other.state, "mismatch");
        assert!(
            other.detail.contains("all-minilm-l6-v2-int8"),
            "{}",
            other.detail
        );
        assert!(other.fix.unwrap().contains("\"query\": \"full\""));
        // A manifest that names no memory model pairs with none.
        let unnamed = encoder_dir(None);
        assert_eq!(
            pairing(unnamed.path(), "embeddinggemma-300m-int8")
                .unwrap_err()
                .state,
            "broken"
        );
    }

    #[test]
    fn a_missing_encoder_is_no_fault_questions_go_through_the_memory_model() {
        let empty = tempfile::tempdir().unwrap();
        let why = pairing(empty.path(), crate::paths::EMBEDDINGGEMMA_MODEL_NAME).unwrap_err();
        assert_eq!(why.state, "none");
        assert!(why.fix.is_none());
        assert!(
            why.detail
                .contains("through embeddinggemma-300m-int8, the memory model")
        );
    }

    #[test]
    fn model_query_takes_fast_or_full_and_names_the_setting_otherwise() {
        assert_eq!(QueryMode::parse("fast").unwrap(), QueryMode::Fast);
        assert_eq!(QueryMode::parse(" full ").unwrap(), QueryMode::Full);
        let e = QueryMode::parse("quick").unwrap_err().to_string();
        assert!(e.contains("model.query") && e.contains("'fast'"), "{e}");
    }
}
