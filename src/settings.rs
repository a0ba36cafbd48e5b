//! `settings.json` in the data dir: the few switches a user may set once.
//!
//! Every field has a default, so a missing file, a missing field or an older file all
//! work. Unknown fields are kept out of the way (ignored), never an error, so a newer
//! slm's settings do not break an older one.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Settings {
    pub retrieval: RetrievalSettings,
    pub model: ModelSettings,
    pub reranker: RerankerSettings,
    pub worker: WorkerSettings,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct WorkerSettings {
    /// Questions answered at once (default: the machine's cores; see `worker::slots`).
    pub recall_slots: Option<usize>,
    /// Seconds without a request after which the worker exits (default 900).
    pub idle_timeout_s: Option<u64>,
    /// Seconds a question waits for a starting worker before answering cold (default 10).
    pub question_wait_s: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct RetrievalSettings {
    /// The support check (spec: "Does any memory support the question?"). `false` brings
    /// back the ungated behaviour, like `SLM_RECALL_NO_SUPPORT_GATE=1`.
    pub answer_support_gate: bool,
    /// Let shared memories join every recall without `--include-shared` (operator policy).
    pub include_shared: bool,
    /// Let global memories join every recall without `--include-global` (operator policy).
    pub include_global: bool,
}

impl Default for RetrievalSettings {
    fn default() -> Self {
        RetrievalSettings {
            answer_support_gate: true,
            include_shared: false,
            include_global: false,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ModelSettings {
    /// Which installed model to use, by its id (a folder under the cache dir's `models/`):
    /// `all-minilm-l6-v2-int8` (the default) or `embeddinggemma-300m-int8`.
    /// `SLM_MODEL_ID` overrides it.
    pub id: Option<String>,
    /// A user-supplied embedding model directory (model.onnx + tokenizer files, optional slm-model.json).
    pub dir: Option<PathBuf>,
    /// The ONNX Runtime shared library to load.
    pub runtime: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct RerankerSettings {
    /// A user-supplied ONNX cross-encoder directory (model.onnx + tokenizer files).
    pub dir: Option<PathBuf>,
}

impl Settings {
    /// Read settings; a broken file is an input error naming the file, not a silent default.
    pub fn load(path: &std::path::Path) -> crate::Result<Self> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| crate::Error::Input(format!("{}: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(e) => Err(crate::Error::io(format!("reading {}", path.display()), e)),
        }
    }
}
