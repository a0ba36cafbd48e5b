//! `slm-model.json`: how to run a model directory.
//!
//! ```json
//! { "id": "all-minilm-l6-v2-int8", "dimension": 384, "pooling": "mean",
//!   "output_key": "last_hidden_state", "max_length": 256, "similarity_floor": 0.6 }
//! ```
//! Every field is optional. `similarity_floor` is the model's own evidence floor on raw
//! cosine; without it recall uses `recall::floor::DEFAULT_COSINE_FLOOR` (0.60).
//! `pooling: "none"` means the graph pools and normalises itself and its `output_key`
//! output is the sentence embedding (EmbeddingGemma as `scripts/models/embeddinggemma`
//! builds it); `query_prefix` / `document_prefix` are put before every query and every
//! stored text, as the model card says.

use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Manifest {
    pub id: Option<String>,
    pub dimension: Option<usize>,
    /// "mean" (sentence-transformers models such as MiniLM) or "cls".
    pub pooling: Option<String>,
    pub output_key: Option<String>,
    pub max_length: Option<usize>,
    pub similarity_floor: Option<f32>,
    pub query_prefix: Option<String>,
    pub document_prefix: Option<String>,
    /// The licence the weights come under (shown by `slm doctor`).
    pub license: Option<String>,
    pub source: Option<String>,
}

/// Tokens the model reads per text. MiniLM was trained at 256 (sentence-transformers'
/// max_seq_length for all-MiniLM-L6-v2); longer texts are truncated for the embedding only.
pub const DEFAULT_MAX_LENGTH: usize = 256;

impl Manifest {
    pub fn read(dir: &Path) -> Result<Manifest, String> {
        match std::fs::read(dir.join("slm-model.json")) {
            Ok(b) => serde_json::from_slice(&b).map_err(|e| format!("slm-model.json: {e}")),
            Err(_) => Ok(Manifest::default()),
        }
    }
}
