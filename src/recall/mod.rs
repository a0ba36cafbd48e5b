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
use std::time::Instant;
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

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0
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
    run_stages(engine, req, true)
}

/// The same without the answer check (status `off`): for callers that only want the
/// ranked memories, not an answer (`forget QUERY` picks what to delete), so nothing is
/// shown to a judge.
pub fn run_unjudged(engine: &Engine, req: &RecallRequest) -> Result<RecallResponse> {
    run_stages(engine, req, false)
}

fn run_stages(engine: &Engine, req: &RecallRequest, judged: bool) -> Result<RecallResponse> {
    validate_query(&req.query)?;
    let total = Instant::now();
    let mut timing = BTreeMap::new();

    // 1. classify
    let t = Instant::now();
    let now = crate::clock::from_ms(req.now_ms);
    let q = classify::classify(&req.query, now, &fusion_scale(engine));
    timing.insert("classify".to_string(), ms(t));

    // 2. producers
    let t = Instant::now();
    let cosine_floor = engine
        .embedder()
        .and_then(|e| e.similarity_floor())
        .unwrap_or(floor::DEFAULT_COSINE_FLOOR);
    let mut out = channels::run(
        engine,
        &q,
        &req.query,
        &req.filters,
        req.now_ms,
        cosine_floor,
        req.keyword_only,
    );
    timing.insert("channels".to_string(), ms(t));
    if let Some(e) = out.embed_ms {
        timing.insert("channel.embed".to_string(), (e * 1000.0).round() / 1000.0);
    }
    for (c, v) in &out.timing_ms {
        timing.insert(
            format!("channel.{}", c.name()),
            (*v * 1000.0).round() / 1000.0,
        );
    }

    // 3. fusion
    let t = Instant::now();
    let mut cands = fusion::fuse(&out, &q.weights);
    let no_candidates = cands.is_empty();
    timing.insert("fusion".to_string(), ms(t));

    // 4. boosts (and the prompts-as-requests rule, which is a boost by provenance)
    let t = Instant::now();
    let boost_report = boosts::apply(
        engine,
        &req.query,
        &q.names,
        q.weights.entity_graph,
        &mut cands,
    );
    engine.with_meta(|meta| {
        for c in cands.iter_mut() {
            if let Some(m) = meta.get(&c.id) {
                if m.kind == Kind::Prompt || m.source == Source::CapturedPrompt {
                    c.score *= if q.asks_for_prompts {
                        PROMPT_PROMOTION
                    } else {
                        PROMPT_DEMOTION
                    };
                }
            }
        }
    })?;
    fusion::sort(&mut cands);
    timing.insert("boosts".to_string(), ms(t));
    let fused_snapshot = if req.explain {
        cands.clone()
    } else {
        Vec::new()
    };

    // 5. evidence floor, before any limit
    let t = Instant::now();
    // Pinned among the candidates only (reading every memory's pin grew with the store).
    let pinned: std::collections::HashSet<i64> = engine.with_meta(|m| {
        cands
            .iter()
            .filter(|c| m.get(&c.id).is_some_and(|r| r.pinned))
            .map(|c| c.id)
            .collect()
    })?;
    let (mut kept, verdicts) = floor::apply(cands, cosine_floor, |id| pinned.contains(&id));
    let floor_left: Vec<tiers::Left> = verdicts
        .iter()
        .filter(|v| req.explain && !v.kept)
        .map(|v| tiers::Left {
            id: v.id,
            step: "floor",
            reason: v.because.join(", "),
        })
        .collect();
    timing.insert("floor".to_string(), ms(t));

    // 6. rerank (never blocks)
    let t = Instant::now();
    let reranker_status = rerank::apply(engine.reranker(), &req.query, &mut kept, |id| {
        engine.reader().ok().and_then(|r| r.text(id).ok().flatten())
    });
    timing.insert("rerank".to_string(), ms(t));

    // 7. ranking mode: off unless asked for and the profile's feedback suffices
    let t = Instant::now();
    // Features of every candidate when a mode reorders them; with the mode off, only of
    // those the recall log keeps for feedback.
    let featured = match req.ranking {
        ranking_mode::Mode::Off => kept.len().min(ranking_mode::log::LOG_DEPTH),
        _ => kept.len(),
    };
    let feats: Vec<Vec<f32>> = engine.with_meta(|m| {
        kept[..featured]
            .iter()
            .map(|c| ranking_mode::features::of(c, m.get(&c.id), req.now_ms))
            .collect()
    })?;
    let before: Vec<(f64, [u32; 5])> = kept[..featured]
        .iter()
        .map(|c| (c.score, ranking_mode::features::channel_ranks(c)))
        .collect();
    let learned = match req.ranking {
        ranking_mode::Mode::Off => None,
        _ => Some(ranking_mode::feedback::learned(
            engine,
            &req.filters.profile,
        )?),
    };
    let ranked = ranking_mode::apply(
        req.ranking,
        learned.as_ref(),
        q.class,
        &q.weights,
        &mut kept,
        &feats,
    );
    let ranked_ids: Vec<i64> = kept.iter().map(|c| c.id).collect();
    timing.insert("ranking_mode".to_string(), ms(t));

    // 8. answer check: a judge of the top three; it adds fields and changes no result
    let t = Instant::now();
    let check = answer_check::stage(engine, req, &ranked_ids, total, judged)?;
    timing.insert("answer_check".to_string(), ms(t));

    // 9. support tiers
    let t = Instant::now();
    let vector_ran = matches!(out.status.get(&Channel::Semantic), Some(ChannelStatus::Ok));
    let reranker_missing = matches!(
        reranker_status,
        rerank::RerankerStatus::Loading
            | rerank::RerankerStatus::Unavailable(_)
            | rerank::RerankerStatus::Failed(_)
    );
    let ctx = tiers::Context {
        engine,
        req,
        q: &q,
        query_vec: out.query_vec.as_deref(),
        own_cosines: tiers::Context::own_cosines_for(
            engine,
            out.query_vec.as_deref(),
            &kept,
            std::mem::take(&mut out.own_cosines),
        ),
        warming: !vector_ran || reranker_missing,
        degraded_reason: if !vector_ran {
            out.status
                .get(&Channel::Semantic)
                .map(|s| format!("vector search {s}"))
        } else if reranker_missing {
            Some(format!("the reranker is {reranker_status}"))
        } else {
            None
        },
        cosine_floor,
        answer_check: Some(&check),
    };
    let decision = tiers::decide(&ctx, &kept)?;
    timing.insert("support".to_string(), ms(t));

    // 10. layers and budget
    let t = Instant::now();
    let score_max = decision
        .results
        .iter()
        .chain(&decision.weak)
        .map(|(c, _, _)| c.score)
        .fold(0.0, f64::max)
        .max(1e-12);
    let mut results = Vec::new();
    let mut weak = Vec::new();
    for (list, into) in [
        (&decision.results, &mut results),
        (&decision.weak, &mut weak),
    ] {
        for (c, tier, support) in list.iter() {
            if let Some(r) = to_result(engine, c, *tier, *support, score_max, req.depth)? {
                into.push(r);
            }
        }
    }
    let layers_report = layers::apply(engine, req, &mut results, &mut weak)?;
    for (i, r) in results.iter_mut().enumerate() {
        r.rank_position = i + 1;
    }
    for (i, r) in weak.iter_mut().enumerate() {
        r.rank_position = results.len() + i + 1;
    }
    timing.insert("layers".to_string(), ms(t));
    timing.insert("total".to_string(), ms(total));

    let reason =
        if !results.is_empty() || !weak.is_empty() || decision.tier != tiers::AnswerTier::None {
            None
        } else if no_candidates {
            Some(floor::Abstain::NoCandidates)
        } else if ranked_ids.is_empty() {
            Some(floor::Abstain::EvidenceFloor)
        } else {
            None
        };
    let note = match (&reason, decision.note.clone()) {
        (Some(floor::Abstain::NoCandidates), None) => {
            Some("Nothing in memory matched this question.".to_string())
        }
        (_, n) => n,
    };
    let mode = ranked.report;
    let mut notes = note;
    if let Some(n) = &mode.note {
        notes = Some(match notes {
            Some(x) => format!("{x} ({n})"),
            None => n.clone(),
        });
    }
    let explain = req.explain.then(|| Explain {
        classified: Some(q.clone()),
        channels: out
            .hits
            .iter()
            .map(|(c, h)| (*c, h.0.iter().take(20).cloned().collect()))
            .collect(),
        fused: fused_snapshot.into_iter().take(40).collect(),
        boosts: boost_report,
        floor: verdicts.into_iter().take(60).collect(),
        support: decision.signals.clone(),
        answer_check: Some(check.explain()),
        ranking: ranked.adjustments.clone(),
        gibberish: decision.gibberish,
        decision: Some(decision.rule),
        left: floor_left
            .into_iter()
            .chain(decision.left.clone())
            .take(60)
            .collect(),
        final_order: results.iter().map(|r| r.id).collect(),
    });
    let recall_id = ranking_mode::log::new_recall_id(req.now_ms);
    let shown: std::collections::HashSet<i64> = results.iter().chain(&weak).map(|r| r.id).collect();
    engine.log_recall(ranking_mode::log::LoggedRecall {
        recall_id: recall_id.clone(),
        profile: req.filters.profile.clone(),
        at_ms: req.now_ms,
        query: req.query.clone(),
        query_class: ranking_mode::class_name(q.class),
        weights: ranking_mode::channel_weights(&q.weights),
        feature_version: ranking_mode::features::FEATURE_VERSION,
        items: ranked
            .order
            .iter()
            .take(ranking_mode::log::LOG_DEPTH)
            .enumerate()
            .map(|(pos, &i)| ranking_mode::log::LoggedItem {
                id: ranked_ids[pos],
                pos: pos + 1,
                shown: shown.contains(&ranked_ids[pos]),
                base: before[i].0,
                ranks: before[i].1,
                f: feats[i].clone(),
            })
            .collect(),
    });
    Ok(RecallResponse {
        recall_id,
        query: req.query.clone(),
        tier: decision.tier,
        note: notes,
        abstained: results.is_empty(),
        reason,
        warming_up: decision.warming,
        query_class: q.class,
        channel_weights: q.weights,
        channel_status: out.status.into_iter().collect(),
        reranker_status,
        ranking_mode: mode,
        answer_check_status: check.status,
        answer_check: check.report(),
        support_gate: req.support_gate,
        calibration_status: "uncalibrated",
        answer_confidence: check.confidence(),
        results,
        weak,
        layers: layers_report,
        timing_ms: timing,
        budget: None,
        explain,
        ranked_ids,
    })
}

fn to_result(
    engine: &Engine,
    c: &Candidate,
    tier: Tier,
    support: Option<f64>,
    score_max: f64,
    depth: u8,
) -> Result<Option<ScoredResult>> {
    let Some(m) = engine.get(c.id)? else {
        return Ok(None);
    };
    Ok(Some(ScoredResult {
        id: m.id,
        rank_position: 0,
        tier,
        relevance_score: (c.score / score_max).clamp(0.0, 1.0),
        ranking_score: c.score,
        memory_confidence: m.confidence,
        trust_score: trust_of(m.source).min(m.trust),
        support_score: support,
        preview: crate::text::preview(&m.text, layers::PREVIEW_CHARS),
        text: (depth >= 1).then(|| m.text.clone()),
        kind: m.kind,
        source: m.source,
        event_at: crate::clock::fmt_ms(m.event_at),
        session_id: m.session_id.clone(),
        tags: m.tags.clone(),
        channels: c.channels.clone(),
        context: None,
    }))
}
