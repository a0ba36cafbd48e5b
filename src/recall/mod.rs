//! `recall`: which stored memories are the best evidence for this query?
//!
//! The pipeline follows the spec's flowchart, one small stage per module:
//! classify → channels (five producers in parallel) → fusion (weighted RRF, k = 15) →
//! boosts (entity graph, cross-channel) → evidence floor → rerank (optional) → ranking mode
//! → answer check (a judge of the top three; adds fields, never hides or reorders) →
//! support tiers → layers (depth, max_tokens).
//!
//! Every response ends in exactly one tier (supported, related, none) and carries the
//! score contract: per result `relevance_score` (0..1, relative to this query's best),
//! `ranking_score`, `memory_confidence`, `trust_score`, `rank_position`; per response
//! `calibration_status: "uncalibrated"`, and `answer_confidence` null unless the answer
//! check gave a verdict.

pub mod answer_check;
pub mod boosts;
pub mod budget;
pub mod channels;
pub mod classify;
pub mod filters;
pub mod floor;
pub mod fusion;
pub mod layers;
mod pipeline;
pub mod ranking_mode;
pub mod rerank;
pub mod tiers;
pub mod voice;

use crate::engine::Engine;
use crate::memory::{Kind, Source};
use crate::{Error, Result};
use channels::{Channel, ChannelStatus};
use filters::Filters;
use fusion::{Candidate, ChannelHit};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use tiers::Tier;

/// Longest query accepted, in bytes. A question is a sentence or two; 2 KiB leaves room for
/// pasted error messages while keeping a runaway paste from tying up the producers.
pub const MAX_QUERY_BYTES: usize = 2048;
/// Captured prompts rank as requests: their score is multiplied by this, so what the user
/// and agents saved comes first…
pub const PROMPT_DEMOTION: f64 = 0.5;
/// …unless the question asks for them ("what did I ask for…"), when they come first.
pub const PROMPT_PROMOTION: f64 = 2.0;

/// Who is asking: a person sees related memories, an agent only supported ones.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum View {
    #[default]
    Person,
    Agent {
        include_related: bool,
    },
}

/// A fully resolved recall: every default filled in, so the worker and the in-process path
/// run the same code on the same input.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RecallRequest {
    pub query: String,
    pub filters: Filters,
    pub limit: usize,
    pub depth: u8,
    pub max_tokens: Option<usize>,
    pub show_weak: bool,
    pub view: View,
    pub explain: bool,
    /// The support check; false brings back the ungated behaviour.
    pub support_gate: bool,
    /// The clock, in Unix ms.
    pub now_ms: i64,
    pub budget_s: Option<f64>,
    /// Only the keyword producers run (the budget's fallback and the cold path's answer):
    /// no embedding, no associative channels. Labelled warming like any recall without
    /// vector search.
    #[serde(default)]
    pub keyword_only: bool,
    /// Set by the cold path while a worker loads: how long loading is expected to take,
    /// from the worker's own last measured load, for the warming note.
    #[serde(default)]
    pub warming_estimate_ms: Option<u64>,
    /// The learned ranking mode asked for (`SLM_RANKING` of the caller); off by default.
    #[serde(default)]
    pub ranking: ranking_mode::Mode,
}

#[derive(Debug, Clone, Serialize)]
pub struct ScoredResult {
    pub id: i64,
    pub rank_position: usize,
    pub tier: Tier,
    pub relevance_score: f64,
    pub ranking_score: f64,
    pub memory_confidence: f64,
    pub trust_score: f64,
    /// The support check's score for this memory alone (see `tiers`).
    pub support_score: Option<f64>,
    pub preview: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    pub kind: Kind,
    pub source: Source,
    pub event_at: String,
    pub session_id: Option<String>,
    pub tags: Vec<String>,
    pub channels: BTreeMap<Channel, ChannelHit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<layers::Context>,
    /// The picture this memory keeps (`slm remember --image`): its file, its thumbnail and
    /// what OCR made of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub picture: Option<crate::engine::PictureShown>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RecallResponse {
    /// Names this answer for `slm feedback RECALL_ID MEMORY_ID good|bad`.
    pub recall_id: String,
    pub query: String,
    pub tier: tiers::AnswerTier,
    pub note: Option<String>,
    pub abstained: bool,
    pub reason: Option<floor::Abstain>,
    pub warming_up: bool,
    pub query_class: classify::QueryClass,
    pub channel_weights: classify::Weights,
    pub channel_status: BTreeMap<Channel, ChannelStatus>,
    pub reranker_status: rerank::RerankerStatus,
    pub ranking_mode: ranking_mode::RankingMode,
    pub answer_check_status: answer_check::AnswerCheckStatus,
    /// The judge's verdict, only when `answer_check_status` is `judged`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_check: Option<answer_check::AnswerCheckReport>,
    pub support_gate: bool,
    pub calibration_status: &'static str,
    pub answer_confidence: Option<f64>,
    pub results: Vec<ScoredResult>,
    /// With show_weak: the closest weak matches, listed under the note.
    pub weak: Vec<ScoredResult>,
    pub layers: layers::LayersReport,
    pub timing_ms: BTreeMap<String, f64>,
    /// With a time budget (`--budget-s`, hooks): what answered within it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<budget::BudgetReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Explain>,
    /// The full ranked, floor-passing order before tiers (for evaluation; not serialised).
    #[serde(skip)]
    pub ranked_ids: Vec<i64>,
}

/// `--explain`: every stage for this one recall.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Explain {
    pub classified: Option<classify::Classified>,
    pub channels: BTreeMap<Channel, Vec<(i64, f64)>>,
    pub fused: Vec<Candidate>,
    pub boosts: boosts::BoostReport,
    pub floor: Vec<floor::FloorVerdict>,
    pub support: Vec<tiers::SupportSignals>,
    /// The answer check: the ids shown to the judge, its verdict, its time, why not.
    pub answer_check: Option<answer_check::AnswerCheckExplain>,
    /// The ranking mode: each memory's fused position, learned adjustment, final position.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ranking: Vec<ranking_mode::Adjustment>,
    pub gibberish: Option<&'static str>,
    /// The rule that decided the tier.
    pub decision: Option<tiers::Rule>,
    /// Every candidate that left the list after fusion, with the step and the reason.
    pub left: Vec<tiers::Left>,
    pub final_order: Vec<i64>,
}

/// Trust follows where a memory came from: what the user saved is trusted most, hook and
/// captured text least (it is what was typed, not what was decided). The values order the
/// sources; they were chosen, not measured (`trust_score` is reported, never ranked on).
pub fn trust_of(source: Source) -> f64 {
    match source {
        Source::User => TRUST_USER,
        Source::Agent | Source::Import => TRUST_AGENT_OR_IMPORT,
        Source::Hook => TRUST_HOOK,
        Source::CapturedPrompt => TRUST_CAPTURED_PROMPT,
    }
}

/// What the user saved.
pub const TRUST_USER: f64 = 1.0;
/// What an agent saved, or an import brought in.
pub const TRUST_AGENT_OR_IMPORT: f64 = 0.9;
/// What a hook saved.
pub const TRUST_HOOK: f64 = 0.6;
/// A captured prompt: what was typed, not what was decided.
pub const TRUST_CAPTURED_PROMPT: f64 = 0.5;

pub fn validate_query(q: &str) -> Result<()> {
    if q.trim().is_empty() {
        return Err(Error::Input("the question is empty".into()));
    }
    if q.len() > MAX_QUERY_BYTES {
        return Err(Error::Input(format!(
            "the question is {} bytes; the limit is {MAX_QUERY_BYTES} (MAX_QUERY_BYTES)",
            q.len()
        )));
    }
    Ok(())
}

/// The loaded model's channel scale; MiniLM's measured one when no model is loaded (the
/// keyword-only path, where only the BM25/temporal/graph weights matter anyway).
pub fn fusion_scale(engine: &Engine) -> crate::embed::manifest::FusionScale {
    engine
        .embedder()
        .and_then(|e| e.fusion_scale())
        .unwrap_or_default()
}

/// Run one recall through every stage.
pub fn run(engine: &Engine, req: &RecallRequest) -> Result<RecallResponse> {
    pipeline::run(engine, req, true)
}

/// The same without the answer check (status `off`): for callers that only want the
/// ranked memories, not an answer (`forget QUERY` picks what to delete), so nothing is
/// shown to a judge.
pub fn run_unjudged(engine: &Engine, req: &RecallRequest) -> Result<RecallResponse> {
    pipeline::run(engine, req, false)
}
