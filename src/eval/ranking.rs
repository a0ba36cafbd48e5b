//! `slm eval locomo --ranking v1,v2,v2-ensemble`: the learned ranking modes, measured with
//! simulated feedback that could not see the questions it is scored on.
//!
//! For each conversation (its own store, so its own feedback), the answerable questions
//! with evidence (categories 1–4) are split by position: the even ones train, the odd ones
//! are scored. Each training question is asked once with the mode off, and every gold
//! evidence turn among the first [`learn::PAIR_DEPTH`] results (what a person reads) is
//! marked good through `Engine::feedback`, the same path `slm feedback` takes: a person
//! marks what helped, and cannot mark what they never saw. Then each scored question is
//! asked with the mode off and with each mode, and R@5, R@10 and MRR are reported on the
//! same questions for all of them.

use super::TempStore;
use super::locomo::Conversation;
use super::report::{QuestionOutcome, stats};
use crate::Result;
use crate::recall::ranking_mode::{Mode, learn};
use crate::recall::tiers::AnswerTier;
use serde::Serialize;

/// `--ranking` values → modes (`all` for the three).
pub fn parse_modes(values: &[String]) -> Result<Vec<Mode>> {
    let mut out = Vec::new();
    for v in values {
        if v == "all" {
            out.extend(Mode::LEARNED);
            continue;
        }
        match Mode::parse(v) {
            Some(Mode::Off) | None => {
                return Err(crate::Error::Usage(format!(
                    "--ranking {v:?}: expected v1, v2, v2-ensemble or all"
                )));
            }
            Some(m) if !out.contains(&m) => out.push(m),
            Some(_) => {}
        }
    }
    Ok(out)
}

/// Every scored question's outcome under each mode, and what trained them.
#[derive(Debug, Default)]
pub struct Runs {
    /// (mode, outcome), off included.
    pub outcomes: Vec<(Mode, QuestionOutcome)>,
    pub train_questions: usize,
    pub marks: usize,
    /// Scored questions where the mode was applied (per mode).
    pub applied: Vec<(Mode, usize)>,
}

/// Train on one half of a conversation's questions, score the other half.
pub fn conversation(
    store: &TempStore,
    conv: &Conversation,
    now_ms: i64,
    modes: &[Mode],
    kmax: usize,
    runs: &mut Runs,
) -> Result<()> {
    let gold_of = |ev: &[String]| -> Vec<i64> {
        ev.iter()
            .filter_map(|d| store.ids.get(&format!("{}:{d}", conv.sample_id)).copied())
            .collect()
    };
    let answerable: Vec<_> = conv
        .questions
        .iter()
        .filter(|q| (1..=4).contains(&q.category) && !q.question.trim().is_empty())
        .map(|q| (q, gold_of(&q.evidence)))
        .filter(|(_, g)| !g.is_empty())
        .collect();
    let profile = crate::DEFAULT_PROFILE;
    for (q, gold) in answerable.iter().step_by(2) {
        runs.train_questions += 1;
        let req = super::request(&q.question, now_ms, kmax, false);
        let resp = crate::recall::run_unjudged(&store.engine, &req)?;
        for id in resp.ranked_ids.iter().take(learn::PAIR_DEPTH) {
            if gold.contains(id) {
                crate::recall::ranking_mode::feedback::feedback(
                    &store.engine,
                    profile,
                    &resp.recall_id,
                    *id,
                    learn::Label::Good,
                )?;
                runs.marks += 1;
            }
        }
    }
    let session_of = |ids: &[i64]| -> Vec<usize> {
        ids.iter()
            .map(|id| store.sessions.get(id).copied().unwrap_or(0))
            .collect()
    };
    for (q, gold) in answerable.iter().skip(1).step_by(2) {
        for mode in std::iter::once(Mode::Off).chain(modes.iter().copied()) {
            let mut req = super::request(&q.question, now_ms, kmax, false);
            req.ranking = mode;
            let resp = crate::recall::run_unjudged(&store.engine, &req)?;
            if resp.ranking_mode.applied {
                match runs.applied.iter_mut().find(|(m, _)| *m == mode) {
                    Some((_, n)) => *n += 1,
                    None => runs.applied.push((mode, 1)),
                }
            }
            let ranked: Vec<i64> = resp.ranked_ids.iter().take(kmax).copied().collect();
            runs.outcomes.push((
                mode,
                QuestionOutcome {
                    conversation: conv.sample_id.clone(),
                    question: q.question.clone(),
                    category: q.category,
                    gold: gold.clone(),
                    gold_audited: gold.clone(),
                    gold_sessions: session_of(gold),
                    ranked_sessions: session_of(&ranked),
                    ranked,
                    tier: AnswerTier::Supported,
                    support_max: 0.0,
                    timing: Default::default(),
                    unjudged: None,
                },
            ));
        }
    }
    Ok(())
}

#[derive(Debug, Clone, Serialize)]
pub struct ModeRow {
    pub mode: String,
    pub questions: usize,
    /// Scored questions on which the mode was applied (enough feedback).
    pub applied: usize,
    pub recall_at_5: f64,
    pub recall_at_10: f64,
    pub mrr: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Table {
    pub train_questions: usize,
    pub marks: usize,
    pub rows: Vec<ModeRow>,
}

pub fn table(runs: &Runs, modes: &[Mode]) -> Table {
    let rows = std::iter::once(Mode::Off)
        .chain(modes.iter().copied())
        .map(|m| {
            let qs: Vec<&QuestionOutcome> = runs
                .outcomes
                .iter()
                .filter(|(mm, _)| *mm == m)
                .map(|(_, o)| o)
                .collect();
            let s = stats(&[5, 10], &qs, false);
            ModeRow {
                mode: m.name().to_string(),
                questions: qs.len(),
                applied: runs
                    .applied
                    .iter()
                    .find(|(mm, _)| *mm == m)
                    .map(|x| x.1)
                    .unwrap_or(0),
                recall_at_5: s.recall_at[&5],
                recall_at_10: s.recall_at[&10],
                mrr: s.mrr,
            }
        })
        .collect();
    Table {
        train_questions: runs.train_questions,
        marks: runs.marks,
        rows,
    }
}

impl Table {
    pub fn markdown(&self) -> String {
        let mut s = format!(
            "\nlearned ranking, simulated feedback ({} training questions gave {} good marks; scored on the other half):\n\n| mode | questions | applied | R@5 | R@10 | MRR |\n|---|---|---|---|---|---|\n",
            self.train_questions, self.marks
        );
        for r in &self.rows {
            s.push_str(&format!(
                "| {} | {} | {} | {:.3} | {:.3} | {:.3} |\n",
                r.mode, r.questions, r.applied, r.recall_at_5, r.recall_at_10, r.mrr
            ));
        }
        s
    }
}
