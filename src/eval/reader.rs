//! The reader's own figure in `slm eval`: ROC AUC of its confidence that a memory answers,
//! the memory that answers against the closest one that does not (issue 32). Read from the
//! answer check's verdict in `--explain` (the top three memories it was shown), so it
//! measures the reader as recall runs it.

use crate::recall::RecallResponse;

/// The reader's confidence for each memory it judged on this recall, in the order shown.
pub fn judged(resp: &RecallResponse) -> Vec<(i64, f64)> {
    resp.explain
        .as_ref()
        .and_then(|e| e.answer_check.as_ref())
        .and_then(|a| a.verdict.as_ref())
        .filter(|v| v.judge == crate::embed::reader::READER_NAME)
        .map(|v| v.per_memory.clone())
        .unwrap_or_default()
}

/// Positive and negative scores for the AUC.
#[derive(Debug, Default, Clone)]
pub struct Pairs {
    pub pos: Vec<f64>,
    pub neg: Vec<f64>,
}

impl Pairs {
    /// One question: its answering memories' scores are positives; the best-scored memory
    /// shown that does not answer is the negative (the closest non-answer). A question with
    /// no answer (`gold` empty) gives only that negative.
    pub fn add(&mut self, judged: &[(i64, f64)], gold: &[i64]) {
        for (id, p) in judged {
            if gold.contains(id) {
                self.pos.push(*p);
            }
        }
        if let Some(p) = judged
            .iter()
            .filter(|(id, _)| !gold.contains(id))
            .map(|(_, p)| *p)
            .max_by(f64::total_cmp)
        {
            self.neg.push(p);
        }
    }

    /// ROC AUC (ties count half); None without both kinds.
    pub fn auc(&self) -> Option<f64> {
        auc(&self.pos, &self.neg)
    }
}

/// ROC AUC of `pos` against `neg`: the chance a positive outranks a negative.
pub fn auc(pos: &[f64], neg: &[f64]) -> Option<f64> {
    if pos.is_empty() || neg.is_empty() {
        return None;
    }
    let mut wins = 0.0;
    for p in pos {
        for n in neg {
            wins += if p > n {
                1.0
            } else if p == n {
                0.5
            } else {
                0.0
            };
        }
    }
    Some(wins / (pos.len() * neg.len()) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_is_one_when_every_answer_outranks_every_non_answer_and_half_on_ties() {
        assert_eq!(auc(&[0.9, 0.8], &[0.1, 0.2]), Some(1.0));
        assert_eq!(auc(&[0.5], &[0.5]), Some(0.5));
        assert_eq!(auc(&[0.1], &[0.9]), Some(0.0));
        assert_eq!(auc(&[], &[0.9]), None);
    }

    #[test]
    fn the_closest_non_answer_is_the_best_scored_memory_that_does_not_answer() {
        let mut p = Pairs::default();
        p.add(&[(1, 0.9), (2, 0.4), (3, 0.6)], &[1]);
        p.add(&[(4, 0.7), (5, 0.2)], &[]);
        assert_eq!(p.pos, vec![0.9]);
        assert_eq!(p.neg, vec![0.6, 0.7]);
    }
}
