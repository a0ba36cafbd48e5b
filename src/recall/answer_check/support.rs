//! How the answer check's verdict enters the support check (`recall::tiers`): a memory the
//! judge was shown gets `W_JUDGE·(2p − 1) − JUDGE_CENTRE` for the judge's confidence p that
//! it answers, and a confident yes passes the word-match test by meaning.
//!
//! Measured with EmbeddingGemma's local judge (`answer_at` 0.50). `slm eval notes`
//! (fixtures/notes-dev.json): W_JUDGE 0 with the word route at 0.5 gave answerable
//! supported-first 0.640, unanswerable not supported 0.400; W_JUDGE 0.2 with the route at 0.8
//! gave 0.653 / 0.480; as shipped (with the centre) `--answer-check local` gives 0.640 / 0.520
//! against 0.613 / 0.440 off. `slm eval locomo` (dev): judged at the support threshold 0.60 (before
//! centring) 0.906 / 0.555 against 0.908 / 0.566 unjudged at 0.50, hence the centre.

use super::AnswerCheck;

/// Weight of the judge's confidence in the support score.
pub const W_JUDGE: f64 = 0.20;
/// Subtracted from the judge's term so a recall it judged meets the same bar as one it did
/// not (a skipped check changes only the verdict, never the threshold): the judged support
/// scores ran about this much above the unjudged ones on the LoCoMo dev split.
pub const JUDGE_CENTRE: f64 = 0.10;
/// A memory the judge is at least this confident answers passes the word-match test by
/// meaning, whatever words it shares: a paraphrase ("what CI are we moving to" → "migrate
/// CI from Jenkins to GitHub Actions"). At 0.5 more topic-sharing questions got through on
/// notes-dev (unanswerable not supported 0.400 with W_JUDGE 0); 0.8 keeps the paraphrases.
pub const JUDGE_WORDS_AT: f64 = 0.8;

/// What the judge's confidence `p` adds to a memory's support score.
pub fn term(p: f64) -> f64 {
    W_JUDGE * (2.0 * p - 1.0) - JUDGE_CENTRE
}

/// The reader rule (issue 32), for a memory the reader judged on a question: the names and
/// answer-type tests must pass, and then either
/// - the support check passes (the word-match test and the support threshold) **and** the
///   reader's confidence reaches [`READER_SUPPORTS_AT`]: the reader vetoes a memory on the
///   same topic that does not answer; or
/// - the reader is sure ([`READER_SURE_AT`]) and the support score (without any judge term)
///   reaches [`READER_SCORE_FLOOR`]: a paraphrase that shares few words.
///
/// A memory the reader says does not answer is never supported.
///
/// Fitted on `slm eval locomo --signals` (the LoCoMo dev split; `scripts/models/reader/
/// fit_rule.py`) and checked on the notes sets, another source: letting the reader alone
/// decide above a low floor (0.25) turned adversarial questions supported (not supported
/// 0.468 against 0.676 with the support check alone, 405 questions); this rule gave
/// 0.806 / 0.721 (answerable supported / adversarial not) against 0.840 / 0.676, and on
/// conv-30, which the reader never saw, 0.754 / 0.833 against 0.902 / 0.667. A wrong
/// "supported" costs more than a right answer shown as related, so the veto stands.
pub const READER_SUPPORTS_AT: f64 = 0.5;
/// See the rule above: the reader's confidence at which it admits a paraphrase.
pub const READER_SURE_AT: f64 = 0.9;
/// See the rule above: the support score a paraphrase the reader is sure of still needs,
/// which keeps out a memory sharing no word and little meaning with the question.
pub const READER_SCORE_FLOOR: f64 = 0.3;

impl AnswerCheck {
    /// A reader's confidence that memory `id` answers, when a reader judged it.
    pub fn reader_confidence_for(&self, id: i64) -> Option<f64> {
        let v = self.verdict.as_ref()?;
        if v.judge != crate::embed::reader::READER_NAME {
            return None;
        }
        v.per_memory.iter().find(|(m, _)| *m == id).map(|(_, p)| *p)
    }

    /// The judge's confidence that memory `id` answers, when it judged it.
    pub fn confidence_for(&self, id: i64) -> Option<f64> {
        let v = self.verdict.as_ref()?;
        if !v.per_memory.is_empty() {
            return v.per_memory.iter().find(|(m, _)| *m == id).map(|(_, p)| *p);
        }
        // A judge that names one memory: yes for it, the verdict's no for every memory shown.
        if v.memory_id == Some(id) || (!v.answers && self.input.contains(&id)) {
            Some(v.confidence)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sure_yes_adds_a_tenth_and_a_sure_no_takes_three_tenths() {
        assert!((term(1.0) - 0.10).abs() < 1e-12);
        assert!((term(0.0) + 0.30).abs() < 1e-12);
    }
}
