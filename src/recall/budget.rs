//! A recall under a time budget: `--budget-s`, and the prompt hooks' hard limit.
//!
//! The full pipeline runs on its own thread. When it is still running after
//! [`HEDGE_AFTER`] (about a second, the spec's figure; half the budget when the budget is
//! shorter), a keyword-only recall starts beside it, and whichever is ready first answers.
//! When neither is ready by the deadline the answer is empty and says so: nothing was
//! checked, so it is never "that isn't in memory". The keyword answer is labelled
//! (`budget.answered_by = "keyword"`, `warming_up: true`, tier related), because the support
//! check had nothing to measure it with.
//!
//! Without a budget (a question), this is just [`super::run`]: a question always runs the
//! full pipeline.

use super::{RecallRequest, RecallResponse};
use crate::Result;
use crate::engine::Engine;
use serde::Serialize;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// When the full search is still running after this long, the keyword search starts beside
/// it (the spec: "after about a second").
pub const HEDGE_AFTER: Duration = Duration::from_secs(1);

/// The longest budget accepted. A budget is for callers that must not wait; ten minutes is
/// far past any of them, and it keeps deadline arithmetic finite.
pub const MAX_BUDGET_S: f64 = 600.0;

/// What answered within the budget.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AnsweredBy {
    /// The full pipeline finished in time.
    Full,
    /// The keyword search answered first: unchecked keyword matches.
    Keyword,
    /// Neither finished in time: nothing is added.
    Nothing,
}

#[derive(Debug, Clone, Serialize)]
pub struct BudgetReport {
    pub budget_s: f64,
    pub answered_by: AnsweredBy,
    /// Milliseconds after which the keyword search was started beside the full one.
    pub hedged_after_ms: Option<f64>,
}

/// The note of an answer that ran out of time.
pub const NOTE_OUT_OF_TIME: &str =
    "The search did not finish within its time budget; nothing was checked, so nothing is added.";

/// Run `req` within its budget (or fully, when it has none).
pub fn run(engine: &Arc<Engine>, req: &RecallRequest) -> Result<RecallResponse> {
    let Some(budget_s) = req.budget_s else {
        return super::run(engine, req);
    };
    let start = Instant::now();
    let budget = Duration::from_secs_f64(budget_s);
    let deadline = start + budget;
    let hedge_at = start + HEDGE_AFTER.min(budget / 2);
    let (tx, rx) = crossbeam_channel::bounded::<(AnsweredBy, Result<RecallResponse>)>(2);
    {
        let (engine, req, tx) = (engine.clone(), req.clone(), tx.clone());
        std::thread::spawn(move || {
            let _ = tx.send((AnsweredBy::Full, super::run(&engine, &req)));
        });
    }
    let report = |by, hedged: Option<Duration>| BudgetReport {
        budget_s,
        answered_by: by,
        hedged_after_ms: hedged.map(|d| d.as_secs_f64() * 1000.0),
    };
    let mut hedged = None;
    let mut pending = 1;
    let mut last_err = None;
    loop {
        let wait_until = if hedged.is_none() { hedge_at } else { deadline };
        match rx.recv_deadline(wait_until) {
            Ok((by, Ok(mut resp))) => {
                resp.budget = Some(report(by, hedged));
                return Ok(resp);
            }
            Ok((_, Err(e))) => {
                pending -= 1;
                last_err = Some(e);
                if pending == 0 && hedged.is_some() {
                    break;
                }
            }
            Err(_) if hedged.is_none() => {}
            Err(_) => break,
        }
        if hedged.is_none() {
            // The full search is slow (or failed): start the keyword search beside it.
            hedged = Some(start.elapsed());
            pending += 1;
            let (engine, mut kreq, tx) = (engine.clone(), req.clone(), tx.clone());
            kreq.keyword_only = true;
            kreq.explain = false;
            std::thread::spawn(move || {
                let _ = tx.send((AnsweredBy::Keyword, super::run(&engine, &kreq)));
            });
        }
    }
    if let (Some(e), 0) = (last_err, pending) {
        return Err(e);
    }
    let mut resp = out_of_time(req);
    resp.budget = Some(report(AnsweredBy::Nothing, hedged));
    Ok(resp)
}

/// The empty answer when nothing finished in time: tier related (nothing was measured, so
/// never "none"), warming, no results.
fn out_of_time(req: &RecallRequest) -> RecallResponse {
    let q = super::classify::classify(
        &req.query,
        crate::clock::from_ms(req.now_ms),
        &Default::default(),
    );
    RecallResponse {
        recall_id: super::ranking_mode::log::new_recall_id(req.now_ms),
        query: req.query.clone(),
        tier: super::tiers::AnswerTier::Related,
        note: Some(NOTE_OUT_OF_TIME.to_string()),
        abstained: true,
        reason: None,
        warming_up: true,
        query_class: q.class,
        channel_weights: q.weights,
        channel_status: Default::default(),
        reranker_status: super::rerank::RerankerStatus::NotConfigured,
        ranking_mode: super::ranking_mode::RankingMode::skipped(
            req.ranking,
            "the time budget ran out",
        ),
        answer_check_status: super::answer_check::AnswerCheckStatus::Off,
        answer_check: None,
        support_gate: req.support_gate,
        calibration_status: "uncalibrated",
        answer_confidence: None,
        results: Vec::new(),
        weak: Vec::new(),
        layers: super::layers::LayersReport {
            depth: req.depth,
            max_tokens: req.max_tokens,
            ..Default::default()
        },
        timing_ms: Default::default(),
        budget: None,
        explain: None,
        ranked_ids: Vec::new(),
    }
}
