//! A reader as the answer check's local judge: the question and each of the top three
//! memories read together by a cross-encoder (`embed::reader`), in one batched run.
//!
//! Each memory gets the reader's logit; its confidence that the memory answers is a
//! logistic of the logit's distance from [`ANSWERS_AT`]. The verdict is "answers" when the
//! best memory reaches it, and names that memory. The reader cannot point at a span, so the
//! verdict carries no answer text. How the confidences enter the support tiers is
//! `tiers::score` (the reader rule) — this judge only measures.

use super::{Evidence, Judge, JudgeOutcome, Verdict};
use crate::embed::reader::READER_NAME;
use crate::embed::reranker::{Slot, State};
use std::time::Instant;

/// The reader's logit at which a memory answers (confidence 0.5), for slm's reader
/// (`embed::reader::DEFAULT_READER`): fitted leave-one-source-out on its training run's dev
/// split (held-out SQuAD articles, CAsT queries, FriendsQA scenes and written notes; no notes
/// fixture and no evaluation conversation). The threshold with the best balanced accuracy on
/// three sources, applied to the fourth (CAsT, FriendsQA, SQuAD, written notes), was −0.91,
/// −0.91, −0.56 and −1.30 for slm-reader-12l-v2; this is their mean (`evaluate.py`,
/// models/reader/MODEL.md; v1's was −0.8). Another reader (settings
/// `answer_check.reader_dir`) is held to the same value.
pub const ANSWERS_AT: f64 = -0.92;
/// Width of the logistic, in logits (1: the model's own sigmoid). Uncalibrated (the
/// response says so); it orders verdicts and feeds the support rule.
pub const LOGIT_SCALE: f64 = 1.0;

pub struct ReaderJudge {
    slot: Slot,
}

impl ReaderJudge {
    pub fn new(slot: Slot) -> ReaderJudge {
        ReaderJudge { slot }
    }

    /// Confidence that a memory with this logit answers.
    pub fn confidence(logit: f64) -> f64 {
        1.0 / (1.0 + (-(logit - ANSWERS_AT) / LOGIT_SCALE).exp())
    }
}

impl Judge for ReaderJudge {
    fn name(&self) -> String {
        READER_NAME.into()
    }

    fn judge(&self, query: &str, evidence: &[Evidence], deadline: Instant) -> JudgeOutcome {
        // Still loading (it loads beside the embedding model): wait for it within the
        // budget, since a verdict late is no verdict; past it, `warming`.
        crate::embed::reader::wait_loaded(
            &self.slot,
            deadline.saturating_duration_since(Instant::now()),
        );
        let state = match self.slot.lock() {
            Ok(g) => g.clone(),
            Err(_) => return JudgeOutcome::Unavailable("the reader's lock was poisoned".into()),
        };
        let model = match &*state {
            State::NotConfigured => {
                return JudgeOutcome::Unavailable(super::NO_LOCAL_JUDGE.into());
            }
            State::Loading => return JudgeOutcome::Warming,
            State::Unavailable(why) => return JudgeOutcome::Unavailable(why.clone()),
            State::Ready(m) => m,
        };
        if evidence.is_empty() {
            return JudgeOutcome::Skipped("nothing to judge".into());
        }
        let docs: Vec<&str> = evidence.iter().map(|e| e.text.as_str()).collect();
        // One recall at a time reads with it; another waiting recall is told `busy` only
        // past the deadline (a read costs milliseconds).
        let mut m = loop {
            match model.try_lock() {
                Ok(m) => break m,
                Err(std::sync::TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                Err(std::sync::TryLockError::WouldBlock) => return JudgeOutcome::Busy,
                Err(std::sync::TryLockError::Poisoned(_)) => {
                    return JudgeOutcome::Unavailable("the reader's lock was poisoned".into());
                }
            }
        };
        let results = match m.rerank(query, docs.as_slice(), false, Some(docs.len())) {
            Ok(r) => r,
            Err(e) => return JudgeOutcome::Unavailable(format!("the reader failed: {e}")),
        };
        drop(m);
        if Instant::now() > deadline {
            return JudgeOutcome::Skipped("the reader ran past its time budget".into());
        }
        let mut logits = vec![f64::MIN; evidence.len()];
        for r in results {
            if let Some(l) = logits.get_mut(r.index) {
                *l = r.score as f64;
            }
        }
        let per_memory: Vec<(i64, f64)> = evidence
            .iter()
            .zip(&logits)
            .map(|(e, l)| (e.id, ReaderJudge::confidence(*l)))
            .collect();
        let best = per_memory
            .iter()
            .copied()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .expect("evidence is not empty");
        let answers = best.1 >= 0.5;
        JudgeOutcome::Verdict(Verdict {
            answers,
            memory_id: answers.then_some(best.0),
            answer: None,
            // As every local judge reports it: the confidence that the best memory answers.
            confidence: best.1,
            judge: self.name(),
            per_memory,
        })
    }
}
