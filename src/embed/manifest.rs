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
//! stored text, as the model card says. `fusion` scales recall's channel weights for this
//! model (see [`FusionScale`]): how far its cosine is trusted against exact words depends on
//! how good the model is. `supported_at` is the support check's threshold for this model.

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
    /// How many of the first dimensions the vector index keeps, for a model trained so that
    /// its vectors can be cut (Matryoshka). Missing: all. Cosines are still read from the
    /// full stored vectors (`index::vector`).
    pub index_dimension: Option<usize>,
    /// The licence the weights come under (shown by `slm doctor`).
    pub license: Option<String>,
    pub source: Option<String>,
    /// Channel weight multipliers measured for this model (missing: MiniLM's).
    pub fusion: Option<FusionScale>,
    /// The support score a memory needs to support a question with this model (missing:
    /// `recall::tiers::SUPPORTED_AT`, measured with MiniLM), from the trade-off table of
    /// `slm eval locomo` run with this model.
    pub supported_at: Option<f64>,
    /// The model card's prompt for a question that asks whether a text answers it
    /// (EmbeddingGemma: `task: question answering | query: `): the local answer check's.
    pub answer_prompt: Option<String>,
    /// The answer check's cosine (question with `answer_prompt`, best sentence of a memory)
    /// at which the judge says "answers", measured with `slm eval locomo` for this model.
    pub answer_at: Option<f64>,
    /// A query encoder's memory model (`embed::query`): the id of the model whose stored
    /// vectors its questions are searched among. Only the fast query encoder has one.
    pub pairs_with: Option<String>,
}

/// Multipliers on the reference system's channel weights (`recall::classify`), one per
/// producer, chosen per model because they depend on how strong its semantic channel is.
/// Measured with `slm eval locomo --tune` (leave-one-conversation-out on the dev data).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct FusionScale {
    pub semantic: f64,
    pub bm25: f64,
    pub entity_graph: f64,
    pub temporal: f64,
    pub spreading: f64,
    pub hopfield: f64,
}

impl FusionScale {
    /// Measured with all-MiniLM-L6-v2 by `SLM_EVAL_WEIGHT_SCALE` ablations of `slm eval
    /// locomo` (conv-26, answerable questions): with MiniLM, BM25 alone beats cosine alone on
    /// turn-level evidence (R@5 0.47 vs 0.36), and Hopfield largely re-votes the semantic list,
    /// so it is damped. R@5 went 0.42 → 0.48. A model without `fusion` gets these.
    pub const MINILM: FusionScale = FusionScale {
        semantic: 1.0,
        bm25: 2.0,
        entity_graph: 1.0,
        temporal: 1.0,
        spreading: 0.5,
        hopfield: 0.25,
    };
    /// No change: every multiplier 1.
    pub const ONE: FusionScale = FusionScale {
        semantic: 1.0,
        bm25: 1.0,
        entity_graph: 1.0,
        temporal: 1.0,
        spreading: 1.0,
        hopfield: 1.0,
    };

    /// Channel by channel product.
    pub fn times(&self, o: &FusionScale) -> FusionScale {
        FusionScale {
            semantic: self.semantic * o.semantic,
            bm25: self.bm25 * o.bm25,
            entity_graph: self.entity_graph * o.entity_graph,
            temporal: self.temporal * o.temporal,
            spreading: self.spreading * o.spreading,
            hopfield: self.hopfield * o.hopfield,
        }
    }

    /// Set one channel by name ("semantic", "bm25", "entity_graph", "temporal", "spreading",
    /// "hopfield"); false for an unknown name.
    pub fn set(&mut self, name: &str, v: f64) -> bool {
        match self.channel_mut(name) {
            Some(slot) => {
                *slot = v;
                true
            }
            None => false,
        }
    }

    /// One channel's number by name (see [`FusionScale::set`]), None for an unknown name.
    pub fn channel_mut(&mut self, name: &str) -> Option<&mut f64> {
        Some(match name {
            "semantic" => &mut self.semantic,
            "bm25" => &mut self.bm25,
            "entity_graph" => &mut self.entity_graph,
            "temporal" => &mut self.temporal,
            "spreading" => &mut self.spreading,
            "hopfield" => &mut self.hopfield,
            _ => return None,
        })
    }
}

impl Default for FusionScale {
    fn default() -> Self {
        FusionScale::MINILM
    }
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
