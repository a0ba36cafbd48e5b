//! Passages: the sentences of a memory, embedded one by one beside the whole memory.
//!
//! A memory's one vector is the mean of everything it says, so a turn that answers the
//! question in one sentence and chats in three others sits far from the question. Each
//! passage gets its own vector too, and the semantic channel scores a memory by the closest
//! of its vectors (whole or passage). Measured on LoCoMo dev (EmbeddingGemma, dense cosine,
//! one memory per turn, every conversation better): R@5 0.669 → 0.713, R@10 0.753 → 0.787
//! with the memory's vector and its sentences' vectors, against 0.686 / 0.761 with the
//! sentences' vectors alone (a sentence loses what the rest of the turn says).
//!
//! Splitting is deterministic: lines, then sentence ends. A fragment too short to mean
//! anything alone joins its neighbour; a memory of one passage has none (its own vector is
//! that passage); a long memory's sentences are grouped so it has at most [`MAX_PASSAGES`].
//!
//! A memory said in a session (a conversation, an agent's run) gets one passage more: the
//! memory before it in that session, then itself ([`passages_in_context`]). An answer is
//! often the turn after the question that names its topic ("What did you paint?" —
//! "A sunset over the lake."), and alone it does not say what it is about. Measured the same
//! way (scratch harness, LoCoMo dev, dense cosine, the closest of all vectors, every
//! conversation better): R@5 0.713 → 0.756, R@10 0.787 → 0.825, session R@5 0.864 → 0.886.
//! Only the memory before, never the one after: it is there when the memory is saved, so
//! the passage never waits for the future, and a recall never sees a later memory's words
//! in an earlier one.

/// Most passages one memory gets; longer memories have their sentences grouped. Each passage
/// costs an embedding at write time (about the tokens of the memory again, in all), so this
/// bounds what one long note costs.
pub const MAX_PASSAGES: usize = 8;
/// A sentence of fewer words joins its neighbour ("Wow!", "Thanks.").
pub const MIN_PASSAGE_WORDS: usize = 3;

/// The memory before, in a context passage, is cut to its last this many words: its end
/// (the question just asked) is what the next memory answers, and the pair stays within
/// what the model reads. Chosen, not measured: LoCoMo turns rarely reach it.
pub const CONTEXT_WORDS: usize = 100;

/// Abbreviations whose full stop does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "e.g", "i.e", "no", "fig",
    "approx", "inc", "ltd", "co",
];

/// The passages of `text`, each as it is embedded: when the memory has a speaker, every
/// passage says who spoke ("Caroline: …"), as the memory's first line does. Empty when the
/// memory is one passage.
pub fn passages(text: &str, speaker: Option<&str>) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    for line in text.lines() {
        for s in sentences(line) {
            let words = s.split_whitespace().count();
            match parts.last_mut() {
                Some(prev) if words < MIN_PASSAGE_WORDS => {
                    prev.push(' ');
                    prev.push_str(s);
                }
                _ => parts.push(s.to_string()),
            }
        }
    }
    // A short first fragment ("Hey!") was kept alone: it joins the next one.
    if parts.len() > 1 && parts[0].split_whitespace().count() < MIN_PASSAGE_WORDS {
        let first = parts.remove(0);
        parts[0] = format!("{first} {}", parts[0]);
    }
    if parts.len() <= 1 {
        return Vec::new();
    }
    if parts.len() > MAX_PASSAGES {
        let per = parts.len().div_ceil(MAX_PASSAGES);
        parts = parts.chunks(per).map(|c| c.join(" ")).collect();
    }
    parts.into_iter().map(|p| said_by(p, speaker)).collect()
}

/// The passages of `text` ([`passages`]) and, when the memory has one before it in its
/// session (`before`: its text and speaker), the context passage: the end of that memory,
/// then this one.
pub fn passages_in_context(
    text: &str,
    speaker: Option<&str>,
    before: Option<(&str, Option<&str>)>,
) -> Vec<String> {
    let mut out = passages(text, speaker);
    if let Some((prev, prev_speaker)) = before {
        let words: Vec<&str> = prev.split_whitespace().collect();
        let tail = words[words.len().saturating_sub(CONTEXT_WORDS)..].join(" ");
        if !tail.is_empty() && !text.trim().is_empty() {
            out.push(format!(
                "{}\n{}",
                said_by(tail, prev_speaker),
                said_by(text.trim().to_string(), speaker)
            ));
        }
    }
    out
}

/// `p` as said by `speaker` ("Caroline: …"), unless it already says so or nobody spoke.
fn said_by(p: String, speaker: Option<&str>) -> String {
    match speaker.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) if !p.starts_with(&format!("{s}:")) => format!("{s}: {p}"),
        _ => p,
    }
}

/// The sentences of one line, trimmed, none empty.
fn sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    for (i, &(at, c)) in chars.iter().enumerate() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        // Closing quotes and brackets stay with the sentence they close.
        let mut j = i + 1;
        while j < chars.len() && matches!(chars[j].1, '"' | '\'' | ')' | '”' | '’') {
            j += 1;
        }
        // A sentence ends at whitespace followed by what starts one.
        if j >= chars.len() || !chars[j].1.is_whitespace() {
            continue;
        }
        let mut k = j;
        while k < chars.len() && chars[k].1.is_whitespace() {
            k += 1;
        }
        let Some(&(next_at, next)) = chars.get(k) else {
            continue;
        };
        if !(next.is_uppercase() || next.is_ascii_digit() || matches!(next, '[' | '"' | '“')) {
            continue;
        }
        if c == '.' && is_abbreviation(&line[start..at]) {
            continue;
        }
        let s = line[start..chars.get(j).map_or(line.len(), |x| x.0)].trim();
        if !s.is_empty() {
            out.push(s);
        }
        start = next_at;
    }
    let rest = line[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// Whether the text before a full stop ends in an abbreviation or an initial ("J. Smith").
fn is_abbreviation(before: &str) -> bool {
    let last = before
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("")
        .to_lowercase();
    (last.chars().count() == 1 && last.chars().all(char::is_alphabetic))
        || ABBREVIATIONS.contains(&last.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_is_cut_at_its_sentences_and_each_says_who_spoke() {
        let p = passages(
            "Caroline: Wow, that's great! I went to the LGBTQ support group yesterday. It was so powerful.",
            Some("Caroline"),
        );
        assert_eq!(
            p,
            vec![
                "Caroline: Wow, that's great!",
                "Caroline: I went to the LGBTQ support group yesterday.",
                "Caroline: It was so powerful.",
            ]
        );
    }

    #[test]
    fn one_sentence_and_short_fragments_make_no_passages() {
        assert!(passages("The deploy key rotates every 90 days.", None).is_empty());
        assert!(passages("Thanks! The deploy key rotates every 90 days.", None).is_empty());
        assert!(passages("", None).is_empty());
    }

    #[test]
    fn abbreviations_initials_and_numbers_do_not_end_a_sentence() {
        let p = passages(
            "Dr. Smith moved the sync to 3.30 p.m. on Fridays. J. Doe owns the runbook now.",
            None,
        );
        assert_eq!(
            p,
            vec![
                "Dr. Smith moved the sync to 3.30 p.m. on Fridays.",
                "J. Doe owns the runbook now."
            ]
        );
    }

    #[test]
    fn lines_are_passages_and_a_long_note_is_grouped() {
        let p = passages(
            "Decision: use Postgres 16.\n- backups nightly at 02:00\n",
            None,
        );
        assert_eq!(
            p,
            vec!["Decision: use Postgres 16.", "- backups nightly at 02:00"]
        );
        let long: String = (0..20)
            .map(|i| format!("Sentence number {i} is here."))
            .collect::<Vec<_>>()
            .join(" ");
        let p = passages(&long, None);
        assert_eq!(p.len(), 7); // 20 sentences in groups of 3
        assert!(p[0].starts_with("Sentence number 0") && p[0].contains("number 2 is"));
        assert!(p.len() <= MAX_PASSAGES);
    }

    #[test]
    fn a_caption_in_brackets_is_its_own_passage() {
        let p = passages(
            "Melanie: Look at this pottery I made last week! [shares an image: a bowl with blue glaze]",
            Some("Melanie"),
        );
        assert_eq!(p.len(), 2);
        assert_eq!(p[1], "Melanie: [shares an image: a bowl with blue glaze]");
    }

    #[test]
    fn a_memory_in_a_session_gets_the_one_before_it_as_context() {
        // A one-sentence answer has no passages alone, and one with the question before it.
        assert!(passages("A sunset over the lake.", Some("Mel")).is_empty());
        let p = passages_in_context(
            "A sunset over the lake.",
            Some("Mel"),
            Some(("Caroline: Lovely! What did you paint?", Some("Caroline"))),
        );
        assert_eq!(
            p,
            vec!["Caroline: Lovely! What did you paint?\nMel: A sunset over the lake."]
        );
        // Sentences first, the context passage last; a long memory before is cut to its end.
        let long = format!("{} What did you paint?", "word ".repeat(300));
        let p = passages_in_context(
            "I painted a sunset. It took two days.",
            None,
            Some((&long, None)),
        );
        assert_eq!(p.len(), 3);
        assert_eq!(p[0], "I painted a sunset.");
        let ctx = &p[2];
        assert!(ctx.ends_with("What did you paint?\nI painted a sunset. It took two days."));
        assert_eq!(ctx.split_whitespace().count(), CONTEXT_WORDS + 8);
        // No memory before: the passages alone.
        assert_eq!(
            passages_in_context("I painted a sunset. It took two days.", None, None).len(),
            2
        );
    }
}
