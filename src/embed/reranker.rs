//! The optional cross-encoder: a user-supplied ONNX model (settings `reranker.dir` or
//! `SLM_RERANKER_DIR`, with `model.onnx` and the tokenizer files), loaded in the background
//! when the engine opens. The slot says how far loading got; `recall::rerank` applies it.

use super::onnx::environment;
use fastembed::{
    RerankInitOptionsUserDefined, TextRerank, TokenizerFiles, UserDefinedRerankingModel,
};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub const RERANKER_DIR_ENV: &str = "SLM_RERANKER_DIR";

/// How far loading got.
pub enum State {
    NotConfigured,
    Loading,
    Ready(Mutex<TextRerank>),
    Unavailable(String),
}

/// What a person reads about a cross-encoder or reader: "ready", "still loading",
/// "unavailable (why)".
impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            State::NotConfigured => f.write_str("none configured"),
            State::Loading => f.write_str("still loading"),
            State::Ready(_) => f.write_str("ready"),
            State::Unavailable(why) => write!(f, "unavailable ({why})"),
        }
    }
}

/// The engine's slot: the loader thread replaces its state once, readers clone the `Arc`.
pub type Slot = Arc<Mutex<Arc<State>>>;

/// The cross-encoder directory: `SLM_RERANKER_DIR`, else settings `reranker.dir`.
pub fn configured_dir(settings: &crate::settings::Settings) -> Option<PathBuf> {
    std::env::var_os(RERANKER_DIR_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| settings.reranker.dir.clone())
}

/// Why a configured cross-encoder could not be loaded (its `Display` is what
/// `reranker_status` says).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{} is missing or unreadable ({source})", path.display())]
    Missing {
        path: PathBuf,
        source: std::io::Error,
    },
    /// ONNX Runtime could not start (its own message).
    #[error("{0}")]
    Runtime(String),
    #[error("the cross-encoder could not be loaded: {0}")]
    Model(String),
}

fn read(dir: &Path, name: &str) -> Result<Vec<u8>, LoadError> {
    let path = dir.join(name);
    std::fs::read(&path).map_err(|source| LoadError::Missing { path, source })
}

/// Load a cross-encoder from a directory (blocking; call it off the recall path).
/// `max_tokens`: question and memory together are cut to this many tokens (the length the
/// model was trained at); None is fastembed's default (512).
pub fn load(
    dir: &Path,
    runtime: &Path,
    max_tokens: Option<usize>,
) -> Result<TextRerank, LoadError> {
    let onnx = read(dir, "model.onnx")?;
    let files = TokenizerFiles {
        tokenizer_file: read(dir, "tokenizer.json")?,
        config_file: read(dir, "config.json")?,
        special_tokens_map_file: read(dir, "special_tokens_map.json")?,
        tokenizer_config_file: read(dir, "tokenizer_config.json")?,
    };
    let env = environment(runtime).map_err(LoadError::Runtime)?;
    let mut opts = RerankInitOptionsUserDefined::new().with_environment(env);
    if let Some(n) = max_tokens {
        opts = opts.with_max_length(n);
    }
    TextRerank::try_new_from_user_defined(UserDefinedRerankingModel::new(onnx, files), opts)
        .map_err(|e| LoadError::Model(e.to_string()))
}

/// Start loading in the background; the slot says how far it got.
pub fn start(settings: &crate::settings::Settings, runtime: PathBuf) -> Slot {
    let Some(dir) = configured_dir(settings) else {
        return Arc::new(Mutex::new(Arc::new(State::NotConfigured)));
    };
    let slot: Slot = Arc::new(Mutex::new(Arc::new(State::Loading)));
    let s2 = slot.clone();
    std::thread::spawn(move || {
        let st = match load(&dir, &runtime, None) {
            Ok(m) => State::Ready(Mutex::new(m)),
            Err(e) => State::Unavailable(e.to_string()),
        };
        if let Ok(mut g) = s2.lock() {
            *g = Arc::new(st);
        }
    });
    slot
}
