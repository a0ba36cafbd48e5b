//! Who a memory speaks about, for the support check (stage 8, `tiers`).
//!
//! A conversational memory is stored as "Speaker: text", with its speaker. Not every word of
//! it is about the speaker: "Caroline: That charity race sounds great, Mel! What got you into
//! running?" is Caroline asking about Melanie's race. So a memory is read sentence by
//! sentence:
//!
//! * a sentence ending in `?` asks; it carries no answer and is left out;
//! * a statement with a second-person pronoun ("you", "your") or a vocative ("That race
//!   sounds great, Mel!"), and no first-person pronoun, is about the person addressed (the
//!   memory's vocatives: "Thanks, Mel!", "Hey Caroline");
//! * any other statement is the speaker's own (first person, or neutral);
//! * a name in a sentence that is not a vocative is a third-person mention of that person.
//!
//! `tiers` then counts only the words of the sentences that speak about the person a
//! question names. LoCoMo's adversarial questions take a real event and swap the person
//! ("What did Caroline realise after her race?" when Melanie ran it); on the dev split
//! 503 of 516 single-name answerable questions have evidence spoken by the named person,
//! against 42 of 172 adversarial ones.

use crate::text;

/// Words that may precede a vocative at the start of a sentence: "Hey Caroline!",
/// "Thanks Mel,", "Wow Nate!". Greetings and interjections, not names.
const INTERJECTIONS: &[&str] = &[
    "hey",
    "hi",
    "hello",
    "hiya",
    "yo",
    "thanks",
    "thank",
    "you",
    "wow",
    "whoa",
    "woah",
    "oh",
    "ah",
    "aw",
    "aww",
    "awww",
    "yay",
    "yes",
    "yeah",
    "yep",
    "no",
    "nope",
    "sorry",
    "congrats",
    "congratulations",
    "dear",
    "haha",
    "omg",
    "ok",
    "okay",
    "well",
    "bye",
    "cheers",
    "morning",
    "evening",
    "night",
    "good",
    "great",
];
const FIRST_PERSON: &[&str] = &[
    "i",
    "i'm",
    "i've",
    "i'd",
    "i'll",
    "im",
    "ive",
    "me",
    "my",
    "mine",
    "myself",
    "we",
    "we're",
    "we've",
    "we'd",
    "we'll",
    "us",
    "our",
    "ours",
    "ourselves",
];
const SECOND_PERSON: &[&str] = &[
    "you",
    "you're",
    "you've",
    "you'd",
    "you'll",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "ya",
    "u",
    "ur",
];
/// A shortened name ("Mel") stands for a longer one ("Melanie") from this many letters.
pub const NICKNAME_MIN_CHARS: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SentenceKind {
    /// The speaker's own statement (first person or neutral).
    Own,
    /// A statement about the person addressed (second person or a vocative, no first person).
    Addressed,
    /// A question: carries no answer.
    Asked,
}

#[derive(Debug, Clone)]
pub struct Sentence {
    pub kind: SentenceKind,
    /// Lowercased words, as `text::index_words` gives them.
    pub words: Vec<String>,
    /// Names mentioned in the third person (not as a vocative), lowercased.
    pub mentions: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Voice {
    /// The speaker's name, lowercased words (none for a plain note).
    pub speaker: Vec<String>,
    /// Lowercased vocatives: who the memory addresses.
    pub addressees: Vec<String>,
    pub sentences: Vec<Sentence>,
}

/// Do two names stand for the same person? Equal, or one a shortening of the other
/// ("mel" / "melanie") of at least `NICKNAME_MIN_CHARS` letters. Multi-word names compare
/// word by word; a single word matches a longer name's first word.
pub fn same_person(a: &[String], b: &[String]) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    if a == b {
        return true;
    }
    if a.len() > 1 && b.len() > 1 {
        return false;
    }
    let (x, y) = (&a[0], &b[0]);
    let (short, long) = if x.len() <= y.len() { (x, y) } else { (y, x) };
    short.chars().count() >= NICKNAME_MIN_CHARS && long.starts_with(short.as_str())
}

/// Split a text into sentences at `.`, `!` or `?` followed by a space or the end ("v0.3.4"
/// stays whole), and at a bracketed aside ("[shares an image: …]").
fn split_sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes: Vec<(usize, char)> = text.char_indices().collect();
    for (i, &(pos, c)) in bytes.iter().enumerate() {
        let next = bytes.get(i + 1).map(|&(_, n)| n);
        let end_here = match c {
            '.' | '!' | '?' => next.is_none_or(|n| n.is_whitespace()),
            '[' => true,
            ']' => true,
            _ => false,
        };
        if end_here {
            let cut = if c == '[' { pos } else { pos + c.len_utf8() };
            let s = text[start..cut].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = cut;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

fn normalise(w: &str) -> String {
    w.replace('’', "'")
}

/// Read a memory: its speaker, its vocatives and its sentences by kind. A leading
/// "Speaker:" is the speaker's label, not part of what was said.
pub fn read(text_m: &str, speaker: Option<&str>) -> Voice {
    let speaker_words = speaker.map(text::words).unwrap_or_default();
    let mut body = text_m.trim();
    if let Some(s) = speaker {
        if let Some(rest) = body.strip_prefix(s.trim()) {
            if let Some(rest) = rest.strip_prefix(':') {
                body = rest;
            }
        }
    }
    let mut addressees = Vec::new();
    let mut sentences = Vec::new();
    for s in split_sentences(body) {
        let spans = text::word_spans(s);
        if spans.is_empty() {
            continue;
        }
        let words: Vec<String> = spans.iter().map(|(_, _, w)| normalise(w)).collect();
        // A vocative: a capitalised word set off by punctuation, opening the sentence
        // (perhaps after interjections) or after a comma, and followed by , . ! ? or the end.
        let mut mentions = Vec::new();
        let mut calls = false;
        for (i, (a, b, w)) in spans.iter().enumerate() {
            let raw = &s[*a..*b];
            if !raw.chars().next().is_some_and(char::is_uppercase) || text::is_stop_word(w) {
                continue;
            }
            let name = normalise(w).trim_end_matches("'s").to_string();
            if FIRST_PERSON.contains(&name.as_str()) || INTERJECTIONS.contains(&name.as_str()) {
                continue;
            }
            let before = s[..*a].trim_end();
            let after = s[*b..].trim_start();
            let opens = before.is_empty()
                || before.ends_with(',')
                || words[..i]
                    .iter()
                    .all(|p| INTERJECTIONS.contains(&p.as_str()));
            let closes = after.is_empty() || after.starts_with([',', '.', '!', '?']);
            if opens && closes && !raw.ends_with("'s") && !raw.ends_with("’s") {
                addressees.push(name);
                calls = true;
            } else {
                mentions.push(name);
            }
        }
        let kind = if s.ends_with('?') {
            SentenceKind::Asked
        } else {
            let first = words.iter().any(|w| FIRST_PERSON.contains(&w.as_str()));
            let second = words.iter().any(|w| SECOND_PERSON.contains(&w.as_str()));
            if (second || calls) && !first {
                SentenceKind::Addressed
            } else {
                SentenceKind::Own
            }
        };
        sentences.push(Sentence {
            kind,
            words: text::index_words(s).iter().map(|w| normalise(w)).collect(),
            mentions,
        });
    }
    Voice {
        speaker: speaker_words,
        addressees,
        sentences,
    }
}

impl Voice {
    /// Does this memory speak as, to or about this person?
    pub fn concerns(&self, person: &[String]) -> bool {
        self.is_speaker(person)
            || self.is_addressee(person)
            || self.sentences.iter().any(|s| s.mentions_person(person))
    }

    pub fn is_speaker(&self, person: &[String]) -> bool {
        same_person(&self.speaker, person)
    }

    pub fn is_addressee(&self, person: &[String]) -> bool {
        self.addressees
            .iter()
            .any(|a| same_person(std::slice::from_ref(a), person))
    }

    /// The words of the statements that speak about one of these people: the speaker's own
    /// statements when one is the speaker, the second-person ones when one is addressed, and
    /// any statement naming one in the third person. With no people: every statement.
    /// Questions are never counted.
    pub fn answer_words(&self, people: &[Vec<String>]) -> Vec<&str> {
        let speaker = people.iter().any(|p| self.is_speaker(p));
        let addressed = people.iter().any(|p| self.is_addressee(p));
        self.sentences
            .iter()
            .filter(|s| s.kind != SentenceKind::Asked)
            .filter(|s| {
                people.is_empty()
                    || (s.kind == SentenceKind::Own && speaker)
                    || (s.kind == SentenceKind::Addressed && addressed)
                    || people.iter().any(|p| s.mentions_person(p))
            })
            .flat_map(|s| s.words.iter().map(String::as_str))
            .collect()
    }

    /// Every name the memory speaks as or to (who counts as a person of the store).
    pub fn people(&self) -> impl Iterator<Item = Vec<String>> + '_ {
        std::iter::once(self.speaker.clone())
            .filter(|s| !s.is_empty())
            .chain(self.addressees.iter().map(|a| vec![a.clone()]))
    }
}

impl Sentence {
    fn mentions_person(&self, person: &[String]) -> bool {
        match person {
            [one] => self
                .mentions
                .iter()
                .any(|m| same_person(std::slice::from_ref(m), std::slice::from_ref(one))),
            many => many.iter().all(|w| self.mentions.contains(w)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Vec<String> {
        text::words(s)
    }

    #[test]
    fn vocatives_are_addressees_not_mentions() {
        let v = read(
            "Melanie: Hey Caroline, since we last chatted I ran a charity race. Thanks, Caroline!",
            Some("Melanie"),
        );
        assert!(v.is_speaker(&p("Melanie")));
        assert!(v.is_addressee(&p("Caroline")));
        assert!(v.sentences.iter().all(|s| s.mentions.is_empty()));
        // Caroline is addressed, but the race is Melanie's own.
        assert!(!v.answer_words(&[p("Caroline")]).contains(&"race"));
        assert!(v.answer_words(&[p("Melanie")]).contains(&"race"));
    }

    #[test]
    fn a_third_person_name_is_a_mention() {
        let v = read("John: I met Maria at the shelter.", Some("John"));
        assert!(v.addressees.is_empty());
        assert!(v.concerns(&p("Maria")));
        assert!(v.answer_words(&[p("Maria")]).contains(&"shelter"));
    }

    #[test]
    fn questions_carry_no_answer() {
        let v = read(
            "Caroline: Wow! What got you into running?",
            Some("Caroline"),
        );
        assert!(!v.answer_words(&[p("Caroline")]).contains(&"running"));
        assert!(!v.answer_words(&[]).contains(&"running"));
    }

    #[test]
    fn second_person_statements_are_about_the_addressee() {
        let v = read(
            "Joanna: Wow Nate, your new hair color looks amazing! I love purple.",
            Some("Joanna"),
        );
        let own = v.answer_words(&[p("Joanna")]);
        assert!(own.contains(&"purple") && !own.contains(&"hair"));
        let theirs = v.answer_words(&[p("Nate")]);
        assert!(theirs.contains(&"hair") && !theirs.contains(&"purple"));
    }

    #[test]
    fn a_statement_calling_someone_is_about_them() {
        let v = read(
            "Caroline: That charity race sounds great, Mel! I love running too.",
            Some("Caroline"),
        );
        let own = v.answer_words(&[p("Caroline")]);
        assert!(!own.contains(&"race") && own.contains(&"running"));
        assert!(v.answer_words(&[p("Melanie")]).contains(&"race"));
    }

    #[test]
    fn a_shortened_name_is_the_same_person() {
        assert!(same_person(&p("Mel"), &p("Melanie")));
        assert!(same_person(&p("Melanie"), &p("Mel")));
        assert!(!same_person(&p("Jon"), &p("John")));
        assert!(!same_person(&p("Al"), &p("Alice")));
        let v = read("Caroline: That race sounds great, Mel!", Some("Caroline"));
        assert!(v.is_addressee(&p("Melanie")));
    }

    #[test]
    fn versions_and_captions_split_sensibly() {
        let s = split_sentences("Deployed v0.3.4 today. Works! [shares an image: a cat] ok");
        assert_eq!(
            s,
            vec![
                "Deployed v0.3.4 today.",
                "Works!",
                "[shares an image: a cat]",
                "ok"
            ]
        );
    }

    #[test]
    fn a_note_without_a_speaker_keeps_its_statements() {
        let v = read("Caroline adopted a rescue dog named Biscuit", None);
        assert!(v.speaker.is_empty());
        assert!(v.concerns(&p("Caroline")));
        assert!(v.answer_words(&[p("Caroline")]).contains(&"biscuit"));
    }
}
