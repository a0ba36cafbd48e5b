//! Feedback for the learned ranking modes: marks (explicit and implicit), training on each
//! mark, and what a profile's feedback has taught. The engine keeps the records (the recent
//! recalls in memory, marks and models in the store: `engine/feedback.rs`); this decides
//! what a mark means and what the models learn from it.
//!
//! Each mark is stored and the models retrained in one transaction: v1 is recomputed from
//! all of the profile's marks, v2 takes gradient steps on the new mark's pairs from its
//! stored weights (or replays every mark when there is no model of the current feature
//! layout, or a mark was changed).

use super::features::FEATURE_VERSION;
use super::learn::{Event, IMPLICIT_WEIGHT, Label, V1, V2};
use super::log::{self, LoggedRecall};
use super::{Learned, MIN_FEEDBACK, ModelVersions};
use crate::engine::Engine;
use crate::store::{FeedbackRow, Writer};
use crate::{Error, Result};
use serde::Serialize;
use std::collections::HashMap;

/// A show or expand of a memory counts as a weak positive for the most recent recall that
/// listed it, if that recall was at most this long ago (half an hour: the same sitting).
pub const IMPLICIT_WINDOW_MS: i64 = 30 * 60_000;

/// What `slm feedback RECALL_ID MEMORY_ID good|bad` answers.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct FeedbackReport {
    pub recall_id: String,
    pub memory_id: i64,
    pub label: Label,
    pub source: String,
    /// False when the same mark was already stored (nothing changed).
    pub recorded: bool,
    /// This profile's feedback, weighted (explicit 1, implicit 0.5).
    pub feedback: f64,
    pub min_feedback: f64,
    /// Versions of the models after this mark.
    pub model_version: Option<ModelVersions>,
}

fn weighted((explicit, implicit): (usize, usize)) -> f64 {
    explicit as f64 + IMPLICIT_WEIGHT * implicit as f64
}

/// Stored rows → learner events (each with every mark on its recall).
fn events<'a>(rows: &'a [(FeedbackRow, LoggedRecall)]) -> Vec<Event<'a>> {
    let mut marks: HashMap<&str, HashMap<i64, Label>> = HashMap::new();
    for (f, _) in rows {
        marks
            .entry(f.recall_id.as_str())
            .or_default()
            .insert(f.memory_id, f.label);
    }
    rows.iter()
        .map(|(f, r)| Event {
            recall: r,
            memory_id: f.memory_id,
            label: f.label,
            weight: if f.source == "explicit" {
                1.0
            } else {
                IMPLICIT_WEIGHT
            },
            others: marks[f.recall_id.as_str()].clone(),
        })
        .collect()
}

fn to_json<T: Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::Other(format!("saving a ranking model: {e}")))
}

/// Retrain after a mark on (`recall_id`, `memory_id`); `replay` retrains v2 from scratch.
fn retrain(
    w: &Writer<'_>,
    profile: &str,
    recall_id: &str,
    memory_id: i64,
    replay: bool,
    now: i64,
) -> Result<ModelVersions> {
    let rows = w.feedback_events(profile)?;
    let evs = events(&rows);
    let v1 = V1::learn(&evs);
    let v1_version = w.put_ranking_model(
        profile,
        "v1",
        FEATURE_VERSION,
        evs.len() as i64,
        &to_json(&v1)?,
        now,
    )?;
    let stored: Option<V2> = w
        .ranking_model(profile, "v2")?
        .filter(|m| m.feature_version == FEATURE_VERSION)
        .and_then(|m| serde_json::from_str(&m.body).ok());
    let v2 = match stored {
        Some(mut m) if !replay => {
            for e in evs
                .iter()
                .filter(|e| e.recall.recall_id == recall_id && e.memory_id == memory_id)
            {
                m.update(e);
            }
            m
        }
        _ => {
            let mut m = V2::default();
            for e in &evs {
                m.update(e);
            }
            m
        }
    };
    let v2_version = w.put_ranking_model(
        profile,
        "v2",
        FEATURE_VERSION,
        v2.pairs as i64,
        &to_json(&v2)?,
        now,
    )?;
    Ok(ModelVersions {
        v1: Some(v1_version),
        v2: Some(v2_version),
    })
}

/// An explicit mark: memory `memory_id` of recall `recall_id` was good or bad.
pub fn feedback(
    engine: &Engine,
    profile: &str,
    recall_id: &str,
    memory_id: i64,
    label: Label,
) -> Result<FeedbackReport> {
    if !log::valid_recall_id(recall_id) {
        return Err(Error::Usage(format!(
            "{recall_id:?} is not a recall id (they look like r0123456789abcdef; `slm recall --json` prints one as recall_id)"
        )));
    }
    let unknown = || {
        Error::Input(format!(
            "no recall {recall_id} in profile {profile:?} (feedback can name a recall of the last day; `slm recall --json` prints recall_id)"
        ))
    };
    let rec = engine
        .find_recall(recall_id)?
        .filter(|r| r.profile == profile)
        .ok_or_else(unknown)?;
    if rec.item(memory_id).is_none() {
        return Err(Error::Input(format!(
            "memory {memory_id} was not among the memories recall {recall_id} ranked (its first {})",
            log::LOG_DEPTH
        )));
    }
    engine.check_profile(memory_id, profile)?;
    record(engine, &rec, memory_id, label, true)
}

/// An implicit mark: a memory shown or expanded soon after a recall that listed it.
/// Nothing happens when no recent recall listed it, when it has a mark on that recall
/// already, or when the data dir takes no writes.
pub fn implicit(engine: &Engine, profile: &str, memory_id: i64) -> Result<()> {
    if engine.no_writes().is_some() {
        return Ok(());
    }
    let since = engine.clock.now_ms() - IMPLICIT_WINDOW_MS;
    let listed = |r: &LoggedRecall| {
        r.profile == profile
            && r.at_ms >= since
            && r.items.iter().any(|i| i.id == memory_id && i.shown)
    };
    match engine.latest_recall(profile, since, listed)? {
        Some(r) => record(engine, &r, memory_id, Label::Good, false).map(|_| ()),
        None => Ok(()),
    }
}

fn record(
    engine: &Engine,
    rec: &LoggedRecall,
    memory_id: i64,
    label: Label,
    explicit: bool,
) -> Result<FeedbackReport> {
    let now = engine.clock.now_ms();
    let profile = rec.profile.as_str();
    let (recorded, versions, counts) = engine.write_feedback(|w| {
        w.put_recall_log(rec)?;
        let marked_before = w.has_feedback(&rec.recall_id, memory_id)?;
        if !explicit && marked_before {
            return Ok((false, None, w.feedback_counts(profile)?));
        }
        let changed = w.put_feedback(profile, &rec.recall_id, memory_id, label, explicit, now)?;
        let versions = if changed {
            Some(retrain(
                w,
                profile,
                &rec.recall_id,
                memory_id,
                marked_before,
                now,
            )?)
        } else {
            None
        };
        Ok((changed, versions, w.feedback_counts(profile)?))
    })?;
    Ok(FeedbackReport {
        recall_id: rec.recall_id.clone(),
        memory_id,
        label,
        source: if explicit { "explicit" } else { "implicit" }.into(),
        recorded,
        feedback: weighted(counts),
        min_feedback: MIN_FEEDBACK,
        model_version: versions,
    })
}

/// What a profile's feedback has taught, for one recall (read on its own connection).
pub fn learned(engine: &Engine, profile: &str) -> Result<Learned> {
    let r = engine.reader()?;
    let feedback = weighted(r.feedback_counts(profile)?);
    let v1 = r
        .ranking_model(profile, "v1")?
        .and_then(|m| Some((serde_json::from_str::<V1>(&m.body).ok()?, m.version)));
    let v2 = r
        .ranking_model(profile, "v2")?
        .filter(|m| m.feature_version == FEATURE_VERSION)
        .and_then(|m| Some((serde_json::from_str::<V2>(&m.body).ok()?, m.version)));
    Ok(Learned { feedback, v1, v2 })
}
