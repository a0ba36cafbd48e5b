//! Feedback for the learned ranking modes: the recent-recall log, marks (explicit and
//! implicit), training on each mark, and the user's control (`--list`, `--forget`).
//!
//! A recall is logged in memory only ([`log::RECENT_RECALLS`] of them), so asking costs no
//! write; it reaches the store with the first mark on it, or when this engine is dropped
//! (the cold path's process ends, the worker stops). Each mark is stored and the models
//! retrained in one transaction: v1 is recomputed from all of the profile's marks, v2 takes
//! gradient steps on the new mark's pairs from its stored weights (or replays every mark
//! when there is no model of the current feature layout, or a mark was changed).

use super::Engine;
use crate::lock::WriteLock;
use crate::recall::ranking_mode::features::FEATURE_VERSION;
use crate::recall::ranking_mode::learn::{Event, IMPLICIT_WEIGHT, Label, V1, V2};
use crate::recall::ranking_mode::log::{self, LoggedRecall};
use crate::recall::ranking_mode::{Learned, MIN_FEEDBACK, ModelVersions};
use crate::store::{FeedbackRow, ForgetCounts, Writer};
use crate::{Error, Result};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// A show or expand of a memory counts as a weak positive for the most recent recall that
/// listed it, if that recall was at most this long ago (half an hour: the same sitting).
pub const IMPLICIT_WINDOW_MS: i64 = 30 * 60_000;
/// How long dropping an engine waits for the writer lease to keep its recent recalls.
const FLUSH_WAIT: Duration = Duration::from_secs(2);

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

impl FeedbackReport {
    /// The line a person reads.
    pub fn human(&self) -> String {
        let what = if self.recorded {
            format!(
                "recorded: memory {} was {} for recall {}",
                self.memory_id,
                self.label.as_str(),
                self.recall_id
            )
        } else {
            format!(
                "already recorded: memory {} was {} for recall {}",
                self.memory_id,
                self.label.as_str(),
                self.recall_id
            )
        };
        let state = if self.feedback >= self.min_feedback {
            "SLM_RANKING=v1, v2 or v2-ensemble will use it".to_string()
        } else {
            format!(
                "learned ranking starts at {} (SLM_RANKING is off unless you set it)",
                self.min_feedback
            )
        };
        format!(
            "{what}\nthis profile has {} feedback mark{}; {state}\n",
            self.feedback,
            if self.feedback == 1.0 { "" } else { "s" }
        )
    }
}

/// `slm feedback --list` for a person.
pub fn feedback_human_list(rows: &[FeedbackRow], style: crate::output::Style) -> String {
    if rows.is_empty() {
        return "no feedback on record\n".to_string();
    }
    let mut s = String::new();
    for r in rows {
        s.push_str(&format!(
            "{}  {:<4} #{:<6} {}  {}  {}\n",
            style.dim(&crate::clock::fmt_ms(r.at)[..16.min(crate::clock::fmt_ms(r.at).len())]),
            r.label.as_str(),
            r.memory_id,
            style.dim(&r.source),
            r.recall_id,
            style.text(&crate::text::preview(&r.query, 60))
        ));
    }
    s
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

impl Engine {
    /// Keep a recall for feedback (in memory; see the module docs).
    pub fn log_recall(&self, r: LoggedRecall) {
        if let Ok(mut q) = self.recent_recalls.lock() {
            if q.len() >= log::RECENT_RECALLS {
                q.pop_front();
            }
            q.push_back(Arc::new(r));
        }
    }

    fn find_recall(&self, recall_id: &str) -> Result<Option<LoggedRecall>> {
        let mem = self.recent_recalls.lock().ok().and_then(|q| {
            q.iter()
                .rev()
                .find(|r| r.recall_id == recall_id)
                .map(|r| (**r).clone())
        });
        match mem {
            Some(r) => Ok(Some(r)),
            None => self.store()?.recall_log(recall_id),
        }
    }

    /// An explicit mark: memory `memory_id` of recall `recall_id` was good or bad.
    pub fn feedback(
        &self,
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
        let rec = self
            .find_recall(recall_id)?
            .filter(|r| r.profile == profile)
            .ok_or_else(unknown)?;
        if rec.item(memory_id).is_none() {
            return Err(Error::Input(format!(
                "memory {memory_id} was not among the memories recall {recall_id} ranked (its first {})",
                log::LOG_DEPTH
            )));
        }
        crate::service::check_profile(self, memory_id, profile)?;
        self.record(&rec, memory_id, label, true)
    }

    /// An implicit mark: a memory shown or expanded soon after a recall that listed it.
    /// Nothing happens when no recent recall listed it, when it has a mark on that recall
    /// already, or when the data dir takes no writes.
    pub fn implicit_feedback(&self, profile: &str, memory_id: i64) -> Result<()> {
        if self.read_only.is_some() {
            return Ok(());
        }
        let since = self.clock.now_ms() - IMPLICIT_WINDOW_MS;
        let listed = |r: &LoggedRecall| {
            r.profile == profile
                && r.at_ms >= since
                && r.items.iter().any(|i| i.id == memory_id && i.shown)
        };
        let mem = self
            .recent_recalls
            .lock()
            .ok()
            .and_then(|q| q.iter().rev().find(|r| listed(r)).map(|r| (**r).clone()));
        let rec = match mem {
            Some(r) => Some(r),
            None => self
                .store()?
                .recall_logs_since(profile, since)?
                .into_iter()
                .find(|r| listed(r)),
        };
        match rec {
            Some(r) => self.record(&r, memory_id, Label::Good, false).map(|_| ()),
            None => Ok(()),
        }
    }

    fn record(
        &self,
        rec: &LoggedRecall,
        memory_id: i64,
        label: Label,
        explicit: bool,
    ) -> Result<FeedbackReport> {
        self.writable()?;
        let now = self.clock.now_ms();
        let profile = rec.profile.as_str();
        let _lease = WriteLock::acquire(&self.paths.write_lock(), crate::lock::WRITE_WAIT)?;
        let mut store = self.store()?;
        let (recorded, versions, counts) = store.write(|w| {
            w.put_recall_log(rec)?;
            let marked_before = w.has_feedback(&rec.recall_id, memory_id)?;
            if !explicit && marked_before {
                return Ok((false, None, w.feedback_counts(profile)?));
            }
            let changed =
                w.put_feedback(profile, &rec.recall_id, memory_id, label, explicit, now)?;
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
    pub fn ranking_learned(&self, profile: &str) -> Result<Learned> {
        let r = self.reader()?;
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

    /// Marks, newest first (one profile, or all when None).
    pub fn feedback_list(&self, profile: Option<&str>, limit: usize) -> Result<Vec<FeedbackRow>> {
        self.store()?.feedback_rows(profile, limit)
    }

    /// Remove marks, logged recalls and models (one profile, or all when None). The order
    /// of that profile's recalls is the fused one again.
    pub fn feedback_forget(&self, profile: Option<&str>) -> Result<ForgetCounts> {
        self.writable()?;
        let _lease = WriteLock::acquire(&self.paths.write_lock(), crate::lock::WRITE_WAIT)?;
        let counts = self.store()?.write(|w| w.forget_feedback(profile))?;
        if let Ok(mut q) = self.recent_recalls.lock() {
            q.retain(|r| profile.is_some_and(|p| r.profile != p));
        }
        Ok(counts)
    }

    /// Keep the recent recalls in the store (so feedback finds them after this process
    /// ends) and prune stored ones nobody marked. Best effort: on a data dir that takes no
    /// writes, or when the writer lease is busy, the recent recalls are dropped.
    pub fn flush_recall_log(&self) -> Result<usize> {
        let recent: Vec<Arc<LoggedRecall>> = match self.recent_recalls.lock() {
            Ok(mut q) => q.drain(..).collect(),
            Err(_) => return Ok(0),
        };
        if recent.is_empty() || self.read_only.is_some() {
            return Ok(0);
        }
        let cutoff = self.clock.now_ms() - log::RECALL_LOG_TTL_MS;
        let _lease = WriteLock::acquire(&self.paths.write_lock(), FLUSH_WAIT)?;
        let mut store = self.store()?;
        store.write(|w| {
            let mut n = 0;
            for r in recent.iter().filter(|r| r.at_ms >= cutoff) {
                w.put_recall_log(r)?;
                n += 1;
            }
            w.prune_recall_log(cutoff)?;
            Ok(n)
        })
    }
}
