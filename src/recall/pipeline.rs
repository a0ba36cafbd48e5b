//! One recall through every stage, in the spec's order: classify → channels → fusion →
//! boosts → evidence floor → rerank → ranking mode → answer check → support tiers →
//! layers. Each stage is one call here, timed the same way ([`Timings::stage`]); what a
//! stage hands on is its return value, and `--explain` collects each stage's trace.

use super::channels::{self, Channel, ChannelOutput, ChannelStatus};
use super::classify::{self, Classified};
use super::fusion::{self, Candidate};
use super::{
    Explain, PROMPT_DEMOTION, PROMPT_PROMOTION, RecallRequest, RecallResponse, ScoredResult,
    answer_check, boosts, floor, layers, ranking_mode, rerank, tiers, trust_of, validate_query,
};
use crate::Result;
use crate::engine::Engine;
use crate::memory::{Kind, Source};
use std::collections::{BTreeMap, HashSet};
use std::time::Instant;

/// Each stage's time in milliseconds (microsecond resolution), by the stage's name.
#[derive(Default)]
struct Timings(BTreeMap<String, f64>);

impl Timings {
    /// Run `f` as the stage `name`, recording its time.
    fn stage<T>(&mut self, name: &str, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let out = f();
        self.0.insert(name.to_string(), ms(t));
        out
    }

    /// The producers' own times and the query embedding's, under `channel.*`.
    fn channels(&mut self, out: &ChannelOutput) {
        if let Some(e) = out.embed_ms {
            self.0.insert("channel.embed".into(), round3(e));
        }
        for (c, v) in &out.timing_ms {
            self.0.insert(format!("channel.{}", c.name()), round3(*v));
        }
    }
}

fn ms(t: Instant) -> f64 {
    round3(t.elapsed().as_secs_f64() * 1000.0)
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// Run one recall; `judged` false leaves the answer check off (see `run_unjudged`).
pub(super) fn run(engine: &Engine, req: &RecallRequest, judged: bool) -> Result<RecallResponse> {
    validate_query(&req.query)?;
    let total = Instant::now();
    let mut timing = Timings::default();

    let q = timing.stage("classify", || classify_query(engine, req));
    let cosine_floor = engine
        .embedder()
        .and_then(|e| e.similarity_floor())
        .unwrap_or(floor::DEFAULT_COSINE_FLOOR);
    let mut out = timing.stage("channels", || {
        channels::run(
            engine,
            &q,
            &req.query,
            &req.filters,
            req.now_ms,
            cosine_floor,
            req.keyword_only,
        )
    });
    timing.channels(&out);
    let cands = timing.stage("fusion", || fusion::fuse(&out, &q.weights));
    let no_candidates = cands.is_empty();
    let (cands, boost_report) = timing.stage("boosts", || boost(engine, req, &q, cands))?;
    let fused_snapshot = if req.explain {
        cands.clone()
    } else {
        Vec::new()
    };
    let (mut kept, verdicts, wordless) = timing.stage("floor", || {
        evidence_floor(engine, &req.query, cands, cosine_floor)
    })?;
    let reranker_status = timing.stage("rerank", || {
        rerank::apply(
            engine.reranker(),
            &req.query,
            &mut kept,
            |id| engine.reader().ok().and_then(|r| r.text(id).ok().flatten()),
            // A wordless picture keeps its fused place: a text reranker would read its label.
            |id| wordless.contains(&id),
        )
    });
    let ranked = timing.stage("ranking_mode", || rank(engine, req, &q, &mut kept))?;
    let check = timing.stage("answer_check", || {
        answer_check::stage(engine, req, &ranked.ids, total, judged)
    })?;
    let decision = timing.stage("support", || {
        support_tiers(
            engine,
            req,
            &q,
            &mut out,
            &kept,
            &reranker_status,
            cosine_floor,
            &check,
            &wordless,
        )
    })?;
    let (results, weak, layers_report) =
        timing.stage("layers", || shown(engine, req, &decision))?;
    timing.0.insert("total".into(), ms(total));

    let reason = abstain_reason(&decision, &results, &weak, no_candidates, &ranked.ids);
    let note = note(&reason, &decision, &ranked.applied.report);
    let explain = req.explain.then(|| Explain {
        classified: Some(q.clone()),
        channels: out
            .hits
            .iter()
            .map(|(c, h)| (*c, h.0.iter().take(20).cloned().collect()))
            .collect(),
        fused: fused_snapshot.into_iter().take(40).collect(),
        boosts: boost_report,
        left: verdicts
            .iter()
            .filter(|v| !v.kept)
            .map(|v| tiers::Left {
                id: v.id,
                step: "floor",
                reason: v.because.join(", "),
            })
            .chain(decision.left.clone())
            .take(60)
            .collect(),
        floor: verdicts.into_iter().take(60).collect(),
        support: decision.signals.clone(),
        answer_check: Some(check.explain()),
        ranking: ranked.applied.adjustments.clone(),
        gibberish: decision.gibberish,
        decision: Some(decision.rule),
        final_order: results.iter().map(|r| r.id).collect(),
    });
    let recall_id = ranking_mode::log::new_recall_id(req.now_ms);
    log(engine, req, &q, &recall_id, &ranked, &results, &weak);
    Ok(RecallResponse {
        recall_id,
        query: req.query.clone(),
        tier: decision.tier,
        note,
        abstained: results.is_empty(),
        reason,
        warming_up: decision.warming,
        query_class: q.class,
        channel_weights: q.weights,
        channel_status: out.status.into_iter().collect(),
        reranker_status,
        ranking_mode: ranked.applied.report,
        answer_check_status: check.status,
        answer_check: check.report(),
        support_gate: req.support_gate,
        calibration_status: "uncalibrated",
        answer_confidence: check.confidence(),
        results,
        weak,
        layers: layers_report,
        timing_ms: timing.0,
        budget: None,
        explain,
        ranked_ids: ranked.ids,
    })
}

/// 1. classify: the query class, its channel weights, names, time phrases.
fn classify_query(engine: &Engine, req: &RecallRequest) -> Classified {
    let now = crate::clock::from_ms(req.now_ms);
    classify::classify(&req.query, now, &super::fusion_scale(engine))
}

/// 4. boosts: the entity graph and cross-channel agreement, then the prompts-as-requests
/// rule (a boost by provenance); the candidates come back sorted.
fn boost(
    engine: &Engine,
    req: &RecallRequest,
    q: &Classified,
    mut cands: Vec<Candidate>,
) -> Result<(Vec<Candidate>, boosts::BoostReport)> {
    let report = boosts::apply(
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
    Ok((cands, report))
}

/// 5. the evidence floor, before any limit (pinned memories pass). Also returns the wordless
/// pictures among the candidates.
fn evidence_floor(
    engine: &Engine,
    query: &str,
    cands: Vec<Candidate>,
    cosine_floor: f32,
) -> Result<(Vec<Candidate>, Vec<floor::FloorVerdict>, HashSet<i64>)> {
    // Pinned among the candidates only (reading every memory's pin grew with the store).
    let pinned: HashSet<i64> = engine.with_meta(|m| {
        cands
            .iter()
            .filter(|c| m.get(&c.id).is_some_and(|r| r.pinned))
            .map(|c| c.id)
            .collect()
    })?;
    // Wordless pictures among them, and whether the question's words are in their note.
    let ids: Vec<i64> = cands.iter().map(|c| c.id).collect();
    let notes = engine.wordless_notes(&ids)?;
    let asked: HashSet<String> = crate::text::content_words(query)
        .iter()
        .map(|w| crate::text::stem(w))
        .collect();
    let wordless: std::collections::HashMap<i64, bool> = notes
        .into_iter()
        .map(|(id, note)| {
            let matched = note.is_some_and(|n| {
                crate::text::content_words(&n)
                    .iter()
                    .any(|w| asked.contains(&crate::text::stem(w)))
            });
            (id, matched)
        })
        .collect();
    let (kept, verdicts) = floor::apply(
        cands,
        cosine_floor,
        engine.media_floor(),
        |id| pinned.contains(&id),
        |id| wordless.get(&id).copied(),
    );
    Ok((kept, verdicts, wordless.into_keys().collect()))
}

/// The ranking mode's outcome with what the recall log keeps of the order before it.
struct Ranked {
    applied: ranking_mode::Applied,
    /// The ranked ids after the mode (the floor's survivors, in order).
    ids: Vec<i64>,
    /// Each logged candidate's features, and its score and channel ranks before the mode.
    feats: Vec<Vec<f32>>,
    before: Vec<(f64, [u32; 5])>,
}

/// 7. the ranking mode: off unless asked for and the profile's feedback suffices.
fn rank(
    engine: &Engine,
    req: &RecallRequest,
    q: &Classified,
    kept: &mut Vec<Candidate>,
) -> Result<Ranked> {
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
    let before = kept[..featured]
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
    let applied = ranking_mode::apply(
        req.ranking,
        learned.as_ref(),
        q.class,
        &q.weights,
        kept,
        &feats,
    );
    Ok(Ranked {
        applied,
        ids: kept.iter().map(|c| c.id).collect(),
        feats,
        before,
    })
}

/// 9. the support tiers: which tier, which memories. Warming when vector search or a
/// configured reranker did not run (nothing was measured).
#[allow(clippy::too_many_arguments)]
fn support_tiers(
    engine: &Engine,
    req: &RecallRequest,
    q: &Classified,
    out: &mut ChannelOutput,
    kept: &[Candidate],
    reranker_status: &rerank::RerankerStatus,
    cosine_floor: f32,
    check: &answer_check::AnswerCheck,
    wordless: &HashSet<i64>,
) -> Result<tiers::Decision> {
    let vector_ran = matches!(out.status.get(&Channel::Semantic), Some(ChannelStatus::Ok));
    // The cold path with the fast query encoder: memories saved since the worker last ran
    // have no vector yet, so an answer without them is warming, never "none".
    let unseen = if vector_ran {
        engine.unseen_by_vectors()?
    } else {
        0
    };
    let reranker_missing = matches!(
        reranker_status,
        rerank::RerankerStatus::Loading
            | rerank::RerankerStatus::Unavailable(_)
            | rerank::RerankerStatus::Failed(_)
    );
    let ctx = tiers::Context {
        engine,
        req,
        q,
        query_vec: out.query_vec.as_deref(),
        own_cosines: tiers::Context::own_cosines_for(
            engine,
            out.query_vec.as_deref(),
            kept,
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
        answer_check: Some(check),
        wordless,
    };
    let mut d = tiers::decide(&ctx, kept)?;
    if unseen > 0 {
        // Incomplete, so labelled warming, and never "isn't in memory": what was found stands.
        let why = format!(
            "vector search ran without {unseen} {} saved while the worker was away, which {} for {} embedding",
            if unseen == 1 { "memory" } else { "memories" },
            if unseen == 1 { "waits" } else { "wait" },
            if unseen == 1 { "its" } else { "their" },
        );
        d.warming = true;
        let warm = format!("{} ({why})", tiers::note_warming(req.warming_estimate_ms));
        if d.tier == tiers::AnswerTier::None {
            // "Not in memory" is not known while memories wait.
            d.tier = tiers::AnswerTier::Related;
            d.note = Some(warm);
        } else {
            d.note = Some(match d.note.take() {
                Some(n) => format!("{warm} {n}"),
                None => warm,
            });
        }
    }
    Ok(d)
}

/// 10. layers and the token budget: the shown memories as results, in rank positions.
fn shown(
    engine: &Engine,
    req: &RecallRequest,
    decision: &tiers::Decision,
) -> Result<(Vec<ScoredResult>, Vec<ScoredResult>, layers::LayersReport)> {
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
    let report = layers::apply(engine, req, &mut results, &mut weak)?;
    for (i, r) in results.iter_mut().enumerate() {
        r.rank_position = i + 1;
    }
    for (i, r) in weak.iter_mut().enumerate() {
        r.rank_position = results.len() + i + 1;
    }
    Ok((results, weak, report))
}

/// Why nothing is shown, when nothing is and no tier rule said so.
fn abstain_reason(
    decision: &tiers::Decision,
    results: &[ScoredResult],
    weak: &[ScoredResult],
    no_candidates: bool,
    ranked: &[i64],
) -> Option<floor::Abstain> {
    if !results.is_empty() || !weak.is_empty() || decision.tier != tiers::AnswerTier::None {
        None
    } else if no_candidates {
        Some(floor::Abstain::NoCandidates)
    } else if ranked.is_empty() {
        Some(floor::Abstain::EvidenceFloor)
    } else {
        None
    }
}

/// The note a person reads: the tier's, or "nothing matched", with the ranking mode's.
fn note(
    reason: &Option<floor::Abstain>,
    decision: &tiers::Decision,
    mode: &ranking_mode::RankingMode,
) -> Option<String> {
    let note = match (reason, decision.note.clone()) {
        (Some(floor::Abstain::NoCandidates), None) => {
            Some("Nothing in memory matched this question.".to_string())
        }
        (_, n) => n,
    };
    match (note, &mode.note) {
        (Some(x), Some(n)) => Some(format!("{x} ({n})")),
        (None, Some(n)) => Some(n.clone()),
        (x, None) => x,
    }
}

/// The recall log keeps the ranked head for feedback (`slm feedback`).
fn log(
    engine: &Engine,
    req: &RecallRequest,
    q: &Classified,
    recall_id: &str,
    ranked: &Ranked,
    results: &[ScoredResult],
    weak: &[ScoredResult],
) {
    let shown: HashSet<i64> = results.iter().chain(weak).map(|r| r.id).collect();
    engine.log_recall(ranking_mode::log::LoggedRecall {
        recall_id: recall_id.to_string(),
        profile: req.filters.profile.clone(),
        at_ms: req.now_ms,
        query: req.query.clone(),
        query_class: ranking_mode::class_name(q.class),
        weights: ranking_mode::channel_weights(&q.weights),
        feature_version: ranking_mode::features::FEATURE_VERSION,
        items: ranked
            .applied
            .order
            .iter()
            .take(ranking_mode::log::LOG_DEPTH)
            .enumerate()
            .map(|(pos, &i)| ranking_mode::log::LoggedItem {
                id: ranked.ids[pos],
                pos: pos + 1,
                shown: shown.contains(&ranked.ids[pos]),
                base: ranked.before[i].0,
                ranks: ranked.before[i].1,
                f: ranked.feats[i].clone(),
            })
            .collect(),
    });
}

fn to_result(
    engine: &Engine,
    c: &Candidate,
    tier: tiers::Tier,
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
        picture: engine.picture_shown(m.id)?,
    }))
}
