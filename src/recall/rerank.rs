//! Stage 6: the optional cross-encoder rerank. It never blocks.
//!
//! A user-supplied ONNX cross-encoder (settings `reranker.dir` or `SLM_RERANKER_DIR`, with
//! `model.onnx` and the tokenizer files) is loaded in the background when the engine opens.
//! Until it is ready — and whenever none is configured — the fused order stands and
//! `reranker_status` says why. No cross-encoder weights can be fetched on this machine, so
//! the loading path and the fallback are what the tests exercise.

use super::fusion::{self, Candidate};
use crate::embed::onnx::environment;
use fastembed::{
    RerankInitOptionsUserDefined, TextRerank, TokenizerFiles, UserDefinedRerankingModel,
};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub const RERANKER_DIR_ENV: &str = "SLM_RERANKER_DIR";
/// Candidates the cross-encoder scores (the head of the qualified pool).
pub const RERANK_DEPTH: usize = 30;

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "state", content = "detail")]
pub enum RerankerStatus {
    /// No cross-encoder configured: the fused order is the order.
    NotConfigured,
    /// Loading in the background; this recall kept the fused order.
    Loading,
    /// It ran on this recall.
    Applied,
    /// Configured but unusable (the reason); the fused order stands.
    Unavailable(String),
    /// It failed on this recall (the reason); the fused order stands.
    Failed(String),
}

impl std::fmt::Display for RerankerStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RerankerStatus::NotConfigured => f.write_str("not configured"),
            RerankerStatus::Loading => f.write_str("still loading, so the fused order stands"),
            RerankerStatus::Applied => f.write_str("applied"),
            RerankerStatus::Unavailable(why) => write!(f, "unavailable ({why})"),
            RerankerStatus::Failed(why) => write!(f, "failed on this recall ({why})"),
        }
    }
}

pub enum State {
    NotConfigured,
    Loading,
    Ready(Mutex<TextRerank>),
    Unavailable(String),
}

pub type Slot = Arc<Mutex<Arc<State>>>;

pub fn configured_dir(settings: &crate::settings::Settings) -> Option<PathBuf> {
    std::env::var_os(RERANKER_DIR_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| settings.reranker.dir.clone())
}

fn read(dir: &Path, name: &str) -> Result<Vec<u8>, String> {
    std::fs::read(dir.join(name)).map_err(|e| {
        format!(
            "{} is missing or unreadable ({e})",
            dir.join(name).display()
        )
    })
}

/// Load a cross-encoder from a directory (blocking; call it off the recall path).
pub fn load(dir: &Path, runtime: &Path) -> Result<TextRerank, String> {
    let onnx = read(dir, "model.onnx")?;
    let files = TokenizerFiles {
        tokenizer_file: read(dir, "tokenizer.json")?,
        config_file: read(dir, "config.json")?,
        special_tokens_map_file: read(dir, "special_tokens_map.json")?,
        tokenizer_config_file: read(dir, "tokenizer_config.json")?,
    };
    let env = environment(runtime)?;
    TextRerank::try_new_from_user_defined(
        UserDefinedRerankingModel::new(onnx, files),
        RerankInitOptionsUserDefined::new().with_environment(env),
    )
    .map_err(|e| format!("the cross-encoder could not be loaded: {e}"))
}

/// Start loading in the background; the slot says how far it got.
pub fn start(settings: &crate::settings::Settings, runtime: PathBuf) -> Slot {
    let Some(dir) = configured_dir(settings) else {
        return Arc::new(Mutex::new(Arc::new(State::NotConfigured)));
    };
    let slot: Slot = Arc::new(Mutex::new(Arc::new(State::Loading)));
    let s2 = slot.clone();
    std::thread::spawn(move || {
        let st = match load(&dir, &runtime) {
            Ok(m) => State::Ready(Mutex::new(m)),
            Err(e) => State::Unavailable(e),
        };
        if let Ok(mut g) = s2.lock() {
            *g = Arc::new(st);
        }
    });
    slot
}

/// Reorder the head of the qualified pool by the cross-encoder, when it is ready.
pub fn apply(
    slot: &Slot,
    query: &str,
    cands: &mut [Candidate],
    text_of: impl Fn(i64) -> Option<String>,
) -> RerankerStatus {
    let state = match slot.lock() {
        Ok(g) => g.clone(),
        Err(_) => return RerankerStatus::Failed("reranker lock poisoned".into()),
    };
    let model = match &*state {
        State::NotConfigured => return RerankerStatus::NotConfigured,
        State::Loading => return RerankerStatus::Loading,
        State::Unavailable(e) => return RerankerStatus::Unavailable(e.clone()),
        State::Ready(m) => m,
    };
    let n = cands.len().min(RERANK_DEPTH);
    if n == 0 {
        return RerankerStatus::Applied;
    }
    let docs: Vec<String> = cands[..n]
        .iter()
        .map(|c| text_of(c.id).unwrap_or_default())
        .collect();
    let Ok(mut m) = model.lock() else {
        return RerankerStatus::Failed("reranker lock poisoned".into());
    };
    match m.rerank(query.to_string(), docs, false, None) {
        Ok(rs) => {
            for r in rs {
                if let Some(c) = cands.get_mut(r.index) {
                    c.rerank_score = Some(r.score);
                }
            }
            // Reranked head, by cross-encoder score; the tail keeps its fused order below it.
            let head = &mut cands[..n];
            head.sort_by(|a, b| {
                b.rerank_score
                    .unwrap_or(f32::MIN)
                    .total_cmp(&a.rerank_score.unwrap_or(f32::MIN))
                    .then(a.id.cmp(&b.id))
            });
            let _ = fusion::sort;
            RerankerStatus::Applied
        }
        Err(e) => RerankerStatus::Failed(e.to_string()),
    }
}
