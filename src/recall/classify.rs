//! Stage 1: classify the query and set each producer's weight.
//!
//! Base weights are the reference system's defaults (semantic 1.5, BM25 1.0, entity graph
//! 1.0, temporal 1.0, spreading activation 1.0, Hopfield 0.8). Each class scales them by the
//! factors in `QueryClass::weights`, chosen for what that class of question needs: a time
//! question leans on the temporal producer, a name or code question on exact keywords, a
//! multi-hop question on the graph. The factors were checked on the LoCoMo dev split with
//! `slm eval locomo` (per-category R@5); they are round numbers on purpose.

use crate::embed::manifest::FusionScale;
use crate::text;
use crate::timeparse::{self, QueryTime};
use chrono::{DateTime, Utc};
use serde::Serialize;

pub const BASE_SEMANTIC: f64 = 1.5;
pub const BASE_BM25: f64 = 1.0;
pub const BASE_ENTITY_GRAPH: f64 = 1.0;
pub const BASE_TEMPORAL: f64 = 1.0;
pub const BASE_SPREADING: f64 = 1.0;
pub const BASE_HOPFIELD: f64 = 0.8;
/// See `QueryClass::weights`: scales channel weights for ablations in `slm eval`.
pub const WEIGHT_SCALE_ENV: &str = "SLM_EVAL_WEIGHT_SCALE";

/// `slm eval`'s in-process override (ablations and `--tune` grids), on top of the model's
/// scale. Never set outside `slm eval`.
static EVAL_SCALE: std::sync::RwLock<Option<FusionScale>> = std::sync::RwLock::new(None);

/// Set (or clear) the evaluation override; see [`EVAL_SCALE`].
pub fn set_eval_scale(s: Option<FusionScale>) {
    if let Ok(mut g) = EVAL_SCALE.write() {
        *g = s;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryClass {
    /// Names a time or asks when / in what order.
    Temporal,
    /// Joins two named things ("X and Y", "both", "relationship between").
    MultiHop,
    /// Asks for a count or a list.
    Aggregation,
    /// Asks what someone thinks, feels or prefers.
    Opinion,
    /// About the present: "what am I working on", "currently".
    Recency,
    /// Mostly names, codes or ids.
    Entity,
    /// A what/who/where/which question about a fact.
    Factual,
    /// Too few content words to say much.
    Vague,
    General,
}

/// Each channel's weight in fusion: the same six numbers, channel by channel, as a model's
/// scale, so they are one type (serialised as `channel_weights`).
pub type Weights = FusionScale;

impl QueryClass {
    /// Per-class scale factors on the base weights: (semantic, bm25, entity, temporal, spreading, hopfield).
    fn factors(&self) -> (f64, f64, f64, f64, f64, f64) {
        match self {
            QueryClass::Temporal => (1.0, 1.0, 1.0, 2.0, 0.5, 0.5),
            QueryClass::MultiHop => (1.0, 1.0, 1.2, 0.5, 1.5, 1.2),
            QueryClass::Aggregation => (1.0, 1.2, 1.2, 0.5, 1.0, 0.8),
            QueryClass::Opinion => (1.2, 0.8, 1.0, 0.5, 0.8, 1.0),
            QueryClass::Recency => (0.8, 0.6, 0.8, 2.5, 0.5, 0.5),
            QueryClass::Entity => (0.8, 1.5, 1.5, 0.5, 1.0, 0.5),
            QueryClass::Factual => (1.0, 1.0, 1.0, 0.5, 1.0, 1.0),
            QueryClass::Vague => (1.2, 0.8, 0.8, 0.5, 0.5, 1.0),
            QueryClass::General => (1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
        }
    }

    /// Base weight × this class's factor × the model's scale (× `slm eval`'s override).
    pub fn weights(&self, model: &FusionScale) -> Weights {
        let (s, b, e, t, sp, h) = self.factors();
        let m = match EVAL_SCALE.read().ok().and_then(|g| *g) {
            Some(o) => model.times(&o),
            None => *model,
        };
        let mut w = Weights {
            semantic: BASE_SEMANTIC * s * m.semantic,
            bm25: BASE_BM25 * b * m.bm25,
            entity_graph: BASE_ENTITY_GRAPH * e * m.entity_graph,
            temporal: BASE_TEMPORAL * t * m.temporal,
            spreading: BASE_SPREADING * sp * m.spreading,
            hopfield: BASE_HOPFIELD * h * m.hopfield,
        };
        // Evaluation knob: `SLM_EVAL_WEIGHT_SCALE=bm25=2,hopfield=0` scales channels, so an
        // ablation can be run with `slm eval` without a rebuild. Never set in normal use.
        if let Ok(v) = std::env::var(WEIGHT_SCALE_ENV) {
            for part in v.split(',') {
                if let Some((k, f)) = part.split_once('=') {
                    let f: f64 = f.trim().parse().unwrap_or(1.0);
                    if let Some(x) = w.channel_mut(k.trim()) {
                        *x *= f;
                    }
                }
            }
        }
        w
    }
}

/// What the rest of the pipeline needs to know about the query.
#[derive(Debug, Clone, Serialize)]
pub struct Classified {
    pub class: QueryClass,
    pub weights: Weights,
    pub words: Vec<String>,
    pub content_words: Vec<String>,
    pub has_question_word: bool,
    pub time: QueryTime,
    /// About the present ("what am I working on"): answered from the newest memories.
    pub present_tense: bool,
    /// Asks for the user's own requests ("what did I ask for").
    pub asks_for_prompts: bool,
    /// Named entities of the question, each as its lowercased words.
    pub names: Vec<Vec<String>>,
}

const PRESENT_PATTERNS: &[&str] = &[
    "am i working on",
    "are we working on",
    "i'm working on",
    "im working on",
    "am i doing",
    "are we doing",
    "currently working",
    "working on right now",
    "what's new",
    "whats new",
    "what have i been",
    "what was i doing",
    "where did i leave off",
    "where was i",
    "latest work",
    "current task",
    "current focus",
];

const PROMPT_PATTERNS: &[&str] = &[
    "did i ask",
    "have i asked",
    "i asked for",
    "i asked you",
    "my request",
    "my prompt",
    "did i request",
];

/// `model`: the embedding model's channel scale (`Embedder::fusion_scale`).
pub fn classify(query: &str, now: DateTime<Utc>, model: &FusionScale) -> Classified {
    let lower = query.to_lowercase();
    let words = text::words(query);
    let content_words = text::content_words(query);
    let time = timeparse::parse_query(query, now);
    let present_tense = PRESENT_PATTERNS.iter().any(|p| lower.contains(p));
    let asks_for_prompts = PROMPT_PATTERNS.iter().any(|p| lower.contains(p));
    let names = text::entities(query)
        .iter()
        .filter(|e| e.kind != text::EntityKind::Quoted)
        .count();
    let codes = content_words
        .iter()
        .filter(|w| text::is_code_like(w))
        .count();
    let has_q = text::has_question_word(query);
    let class = if present_tense {
        QueryClass::Recency
    } else if !time.refs.is_empty() || time.asks_when || time.order.is_some() {
        QueryClass::Temporal
    } else if lower.starts_with("how many")
        || lower.contains("how often")
        || lower.contains("list ")
        || lower.contains("what are some")
        || lower.contains("all the ")
    {
        QueryClass::Aggregation
    } else if names >= 2
        && (lower.contains(" and ")
            || lower.contains(" both ")
            || lower.contains("between")
            || lower.contains("in common"))
    {
        QueryClass::MultiHop
    } else if [
        "think",
        "feel",
        "opinion",
        "prefer",
        "favorite",
        "favourite",
        "like about",
        "enjoy",
    ]
    .iter()
    .any(|w| lower.contains(w))
    {
        QueryClass::Opinion
    } else if codes > 0 && content_words.len() <= 4 {
        QueryClass::Entity
    } else if content_words.len() <= 1 && names == 0 {
        QueryClass::Vague
    } else if has_q {
        QueryClass::Factual
    } else if names > 0 && content_words.len() <= 3 {
        QueryClass::Entity
    } else {
        QueryClass::General
    };
    Classified {
        class,
        weights: class.weights(model),
        words,
        content_words,
        has_question_word: has_q,
        time,
        present_tense,
        asks_for_prompts,
        names: text::entities(query)
            .into_iter()
            .filter(|e| e.kind == text::EntityKind::Name)
            .map(|e| text::words(&e.surface))
            .filter(|w| !w.is_empty())
            .collect(),
    }
}
