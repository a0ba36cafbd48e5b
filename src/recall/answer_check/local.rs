//! The local judge: the embedding model's own "question answering" task, run on this
//! machine, nothing sent anywhere.
//!
//! EmbeddingGemma was trained with task prompts; its model card's prompt for a question
//! whose answer is sought (`task: question answering | query: `) differs from the search
//! prompt recall ranks with (`task: search result | query: `). The judge embeds the
//! question with that prompt and every sentence of the top three memories (and each whole
//! memory) as documents, and takes the best cosine: the sentence that answers best is the
//! answer it points at, its memory the one that answers. The verdict is "answers" when that
//! cosine reaches the model's `answer_at` (measured with `slm eval locomo`, see
//! [`crate::embed::graph::DEFAULT_ANSWER_AT`]); the confidence is a logistic of the margin.
//!
//! It is a relevance judge, not a reader: it cannot tell who did something when two people
//! did similar things, which the support check's voice rules do. No generative model was
//! used: the small ones found in the registries (Gemma 3 270M, SmolLM2-135M) would cost
//! hundreds of milliseconds a recall on two cores, and no cross-encoder with its weights in
//! a package exists there (issue "The answer check").
//!
//! A model without an `answer_prompt` in its manifest (all-MiniLM-L6-v2) has no local judge:
//! `auto` stays off and `local` says unavailable.

use super::{Evidence, Judge, JudgeOutcome, Verdict};
use crate::embed::Embedder;
use std::sync::Arc;
use std::time::Instant;

/// Sentences of one memory the judge reads at most (the rest are judged through the whole
/// memory's vector). A turn or note rarely has more; a long pasted text costs no more.
pub const MAX_SENTENCES_PER_MEMORY: usize = 6;
/// A sentence shorter than this many words joins the next one ("Yes!", "Thanks, Mel."),
/// since alone it answers nothing.
pub const MIN_SENTENCE_WORDS: usize = 4;
/// Width of the confidence logistic, in cosine: 0.05 above `answer_at` is ~73% confident.
/// Uncalibrated (the response says so); it only orders verdicts.
pub const CONFIDENCE_SCALE: f64 = 0.05;
/// Longest answer text returned (characters): a span, not the memory again.
pub const MAX_ANSWER_CHARS: usize = 240;

pub struct EmbeddingJudge {
    embedder: Arc<dyn Embedder>,
    prompt: String,
    answers_at: f64,
}

/// The local judge a recall would use, named as `answer_check.judge` names it, when the
/// active model's manifest has an answer prompt; read without loading the model.
pub fn installed(
    paths: &crate::paths::Paths,
    settings: &crate::settings::Settings,
) -> Option<String> {
    if std::env::var(crate::embed::EMBEDDER_ENV).as_deref() == Ok("hash") {
        return None;
    }
    let (dir, _) = crate::embed::onnx::locate(paths, settings);
    if !dir.join("model.onnx").is_file() {
        return None;
    }
    let m = crate::embed::Manifest::read(&dir).ok()?;
    m.answer_prompt?;
    Some(format!(
        "local:{}",
        m.id.unwrap_or_else(|| dir.file_name().unwrap_or_default().to_string_lossy().into())
    ))
}

/// What the judge measured for one memory: its best cosine and the text that had it.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryScore {
    pub id: i64,
    pub cosine: f64,
    pub best_span: String,
}

impl EmbeddingJudge {
    /// The judge for this embedder, when its model has an answer prompt.
    pub fn for_embedder(embedder: &Arc<dyn Embedder>) -> Option<EmbeddingJudge> {
        let (prompt, at) = embedder.answer_prompt()?;
        Some(EmbeddingJudge {
            prompt: prompt.to_string(),
            answers_at: at,
            embedder: embedder.clone(),
        })
    }

    /// Confidence that a memory with this cosine answers (uncalibrated, 0..1).
    pub fn confidence(&self, cosine: f64) -> f64 {
        1.0 / (1.0 + (-(cosine - self.answers_at) / CONFIDENCE_SCALE).exp())
    }

    /// Each memory's best cosine to the question under the answer prompt. A whole memory
    /// is judged by its stored vector when it has one (the same model and document prompt);
    /// only its sentences, and memories without a vector, are embedded here.
    pub fn score(&self, query: &str, evidence: &[Evidence]) -> crate::Result<Vec<MemoryScore>> {
        // (memory index, text, vector if already known)
        let mut spans: Vec<(usize, String, Option<Vec<f32>>)> = Vec::new();
        for (i, e) in evidence.iter().enumerate() {
            spans.push((i, e.text.clone(), e.vector.clone()));
            let sentences = sentences(&e.text);
            if sentences.len() > 1 {
                spans.extend(
                    sentences
                        .into_iter()
                        .take(MAX_SENTENCES_PER_MEMORY)
                        .map(|s| (i, s, None)),
                );
            }
        }
        let q = format!("{}{query}", self.prompt);
        let qv = self.embedder.embed_prompted(&[q.as_str()])?;
        let Some(qv) = qv.first() else {
            return Ok(Vec::new());
        };
        let todo: Vec<&str> = spans
            .iter()
            .filter(|(_, _, v)| v.is_none())
            .map(|(_, s, _)| s.as_str())
            .collect();
        let mut fresh = self.embedder.embed(&todo)?.into_iter();
        for span in spans.iter_mut().filter(|(_, _, v)| v.is_none()) {
            span.2 = fresh.next();
        }
        let mut out: Vec<MemoryScore> = evidence
            .iter()
            .map(|e| MemoryScore {
                id: e.id,
                cosine: f64::MIN,
                best_span: String::new(),
            })
            .collect();
        for (i, span, v) in &spans {
            let Some(v) = v else { continue };
            let c = crate::embed::cosine(qv, v) as f64;
            // Ties go to the later span: a sentence over its whole memory.
            if c >= out[*i].cosine {
                out[*i].cosine = c;
                out[*i].best_span = span.clone();
            }
        }
        Ok(out)
    }
}

impl Judge for EmbeddingJudge {
    fn name(&self) -> String {
        format!("local:{}", self.embedder.id())
    }

    /// Opt-in (`answer_check.mode = local`): measured on the LoCoMo dev split it moved the
    /// support check's trade-off curve along itself, not past it (judged at the support
    /// threshold + `JUDGE_CENTRE` 0.906 / 0.555 against 0.908 / 0.566 unjudged), while costing
    /// one more query embedding and the top memories' sentences per recall. On the notes set
    /// it helps paraphrases a little (docs/answer-check.md).
    fn used_by_auto(&self) -> bool {
        false
    }

    fn judge(&self, query: &str, evidence: &[Evidence], deadline: Instant) -> JudgeOutcome {
        let scores = match self.score(query, evidence) {
            Ok(s) => s,
            Err(e) => return JudgeOutcome::Unavailable(format!("the local judge failed: {e}")),
        };
        if Instant::now() > deadline {
            return JudgeOutcome::Skipped("the local judge ran past its time budget".into());
        }
        let Some(best) = scores
            .iter()
            .max_by(|a, b| a.cosine.total_cmp(&b.cosine))
            .cloned()
        else {
            return JudgeOutcome::Skipped("nothing to judge".into());
        };
        let answers = best.cosine >= self.answers_at;
        let confidence = self.confidence(best.cosine);
        JudgeOutcome::Verdict(Verdict {
            answers,
            memory_id: answers.then_some(best.id),
            answer: answers.then(|| crate::text::preview(&best.best_span, MAX_ANSWER_CHARS)),
            confidence,
            judge: self.name(),
            per_memory: scores
                .iter()
                .map(|s| (s.id, self.confidence(s.cosine)))
                .collect(),
        })
    }
}

/// A memory's sentences, short fragments joined to the next one.
pub fn sentences(text: &str) -> Vec<String> {
    let mut raw: Vec<String> = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &ch) in chars.iter().enumerate() {
        if ch == '\n' {
            push(&mut raw, &mut cur);
            continue;
        }
        cur.push(ch);
        let ends =
            matches!(ch, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        if ends {
            push(&mut raw, &mut cur);
        }
    }
    push(&mut raw, &mut cur);
    let mut out: Vec<String> = Vec::new();
    let mut pending = String::new();
    for s in raw {
        if !pending.is_empty() {
            pending.push(' ');
        }
        pending.push_str(&s);
        if pending.split_whitespace().count() >= MIN_SENTENCE_WORDS {
            out.push(std::mem::take(&mut pending));
        }
    }
    if !pending.is_empty() {
        match out.last_mut() {
            Some(last) => {
                last.push(' ');
                last.push_str(&pending);
            }
            None => out.push(pending),
        }
    }
    out
}

fn push(into: &mut Vec<String>, cur: &mut String) {
    let t = cur.trim();
    if !t.is_empty() {
        into.push(t.to_string());
    }
    cur.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_fragments_join_the_next_sentence() {
        let s =
            sentences("Yes! We moved CI to GitHub Actions last week. It is faster now, honestly.");
        assert_eq!(
            s,
            vec![
                "Yes! We moved CI to GitHub Actions last week.".to_string(),
                "It is faster now, honestly.".to_string()
            ]
        );
    }

    #[test]
    fn a_trailing_fragment_joins_the_last_sentence_and_versions_are_not_split() {
        let s = sentences("Deploy v1.2.3 went out on Tuesday after review. Thanks!");
        assert_eq!(
            s,
            vec!["Deploy v1.2.3 went out on Tuesday after review. Thanks!".to_string()]
        );
    }

    struct Fixed;
    impl Embedder for Fixed {
        fn id(&self) -> &str {
            "fixed"
        }
        fn dim(&self) -> usize {
            2
        }
        fn similarity_floor(&self) -> Option<f32> {
            None
        }
        fn answer_prompt(&self) -> Option<(&str, f64)> {
            Some(("Q: ", 0.9))
        }
        // Texts mentioning "Postgres" point the question's way.
        fn embed(&self, texts: &[&str]) -> crate::Result<Vec<Vec<f32>>> {
            Ok(texts
                .iter()
                .map(|t| {
                    if t.contains("Postgres") {
                        vec![1.0, 0.0]
                    } else {
                        vec![0.0, 1.0]
                    }
                })
                .collect())
        }
        fn embed_prompted(&self, texts: &[&str]) -> crate::Result<Vec<Vec<f32>>> {
            assert!(texts.iter().all(|t| t.starts_with("Q: ")));
            Ok(texts.iter().map(|_| vec![1.0, 0.0]).collect())
        }
        fn count_tokens(&self, t: &str) -> usize {
            t.len()
        }
    }

    #[test]
    fn the_verdict_points_at_the_sentence_and_memory_that_answer() {
        let e: Arc<dyn Embedder> = Arc::new(Fixed);
        let j = EmbeddingJudge::for_embedder(&e).unwrap();
        let ev = vec![
            Evidence {
                id: 7,
                text: "Redis was our session cache for years.".into(),
                vector: None,
            },
            Evidence {
                id: 9,
                text:
                    "We dropped Redis last spring. Sessions now live in Postgres unlogged tables."
                        .into(),
                vector: None,
            },
        ];
        let far = Instant::now() + std::time::Duration::from_secs(5);
        let JudgeOutcome::Verdict(v) = j.judge("what stores sessions?", &ev, far) else {
            panic!("no verdict");
        };
        assert!(v.answers);
        assert_eq!(v.memory_id, Some(9));
        assert_eq!(
            v.answer.as_deref(),
            Some("Sessions now live in Postgres unlogged tables.")
        );
        assert!(v.confidence > 0.5);
        let no = vec![ev[0].clone()];
        let JudgeOutcome::Verdict(v) = j.judge("what stores sessions?", &no, far) else {
            panic!("no verdict");
        };
        assert!(!v.answers);
        assert_eq!(v.memory_id, None);
        assert_eq!(v.answer, None);
    }
}
