//! Entity extraction without a model: capitalised name runs, quoted phrases, versions
//! and codes, each with a normalised form for matching.

use super::{is_code_like, is_stop_word, word_spans};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntityKind {
    Name,
    Quoted,
    Code,
    Version,
}

impl EntityKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            EntityKind::Name => "name",
            EntityKind::Quoted => "quoted",
            EntityKind::Code => "code",
            EntityKind::Version => "version",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "name" => Some(EntityKind::Name),
            "quoted" => Some(EntityKind::Quoted),
            "code" => Some(EntityKind::Code),
            "version" => Some(EntityKind::Version),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Entity {
    pub kind: EntityKind,
    pub norm: String,
    pub surface: String,
}

/// Capitalised words that open sentences in chat and name nothing.
const SENTENCE_OPENERS: &[&str] = &[
    "yeah",
    "hey",
    "wow",
    "thanks",
    "thank",
    "oh",
    "so",
    "well",
    "sure",
    "yes",
    "no",
    "hi",
    "hello",
    "ok",
    "okay",
    "great",
    "awesome",
    "cool",
    "nice",
    "good",
    "glad",
    "sounds",
    "that",
    "this",
    "it",
    "i",
    "we",
    "you",
    "they",
    "haha",
    "lol",
    "omg",
    "absolutely",
    "definitely",
    "totally",
    "really",
    "sorry",
    "congrats",
    "congratulations",
    "aw",
    "aww",
    "ah",
    "hmm",
    "right",
    "love",
    "just",
    "also",
    "but",
    "and",
    "maybe",
    "exactly",
    "agreed",
    "true",
    "what",
    "when",
    "where",
    "who",
    "why",
    "how",
    "which",
    "did",
    "do",
    "does",
    "is",
    "are",
    "was",
    "were",
    "can",
    "could",
    "would",
    "will",
    "have",
    "has",
    "had",
    "let",
    "lets",
    "here",
    "there",
    "my",
    "your",
    "our",
    "their",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "today",
    "yesterday",
    "version",
    "correction",
    "please",
    "note",
    "ticket",
    "lunch",
    "our",
    "update",
    "fixed",
    "started",
];

/// A version: v?DIGITS(.DIGITS)+ with an optional -suffix. Decimals inside prose ("3.5
/// hours") are versions too by shape; we accept that (they are rare and harmless as
/// entities). Dates (2023-05-08) and times (10:30) are not versions.
fn is_version(w: &str) -> bool {
    let core = w.strip_prefix('v').unwrap_or(w);
    let core = core.split('-').next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() >= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

/// Entities mentioned in a text: names, quoted phrases, versions, codes.
pub fn entities(text: &str) -> Vec<Entity> {
    let mut out: Vec<Entity> = Vec::new();
    let mut push = |kind: EntityKind, surface: &str, out: &mut Vec<Entity>| {
        let surface = surface.trim();
        if surface.is_empty() {
            return;
        }
        let norm = surface.to_lowercase();
        if !out.iter().any(|e| e.kind == kind && e.norm == norm) {
            out.push(Entity {
                kind,
                norm,
                surface: surface.to_string(),
            });
        }
    };
    // Quoted phrases.
    for (open, close) in [('"', '"'), ('“', '”'), ('`', '`')] {
        let mut rest = text;
        while let Some(a) = rest.find(open) {
            let after = &rest[a + open.len_utf8()..];
            let Some(b) = after.find(close) else { break };
            let inner = &after[..b];
            if (1..=60).contains(&inner.chars().count()) && !inner.contains('\n') {
                push(EntityKind::Quoted, inner, &mut out);
            }
            rest = &after[b + close.len_utf8()..];
        }
    }
    // Versions and codes from the word stream; names from capitalised runs.
    let spans = word_spans(text);
    let mut run: Vec<&str> = Vec::new();
    let flush = |run: &mut Vec<&str>,
                 out: &mut Vec<Entity>,
                 push: &mut dyn FnMut(EntityKind, &str, &mut Vec<Entity>)| {
        if !run.is_empty() {
            let s = run.join(" ");
            push(EntityKind::Name, &s, out);
            run.clear();
        }
    };
    for (idx, (start, end, w)) in spans.iter().enumerate() {
        let raw = &text[*start..*end];
        if is_version(w) {
            flush(&mut run, &mut out, &mut push);
            push(EntityKind::Version, w, &mut out);
            continue;
        }
        if is_code_like(w) && !looks_like_date_or_time(w) {
            flush(&mut run, &mut out, &mut push);
            push(EntityKind::Code, w, &mut out);
            continue;
        }
        let capital = raw.chars().next().is_some_and(|c| c.is_uppercase());
        let sentence_start = idx == 0 || {
            let before = text[..*start].trim_end();
            before.is_empty() || before.ends_with(['.', '!', '?', ':', '\n', '"', '“'])
        };
        // A capitalised verb opening a sentence ("Started the migration") names nothing.
        let verbish = sentence_start && (w.ends_with("ed") || w.ends_with("ing"));
        let opener = SENTENCE_OPENERS.contains(&w.as_str()) || is_stop_word(w) || verbish;
        let contiguous = run.is_empty() || {
            let prev_end = spans[idx - 1].1;
            text[prev_end..*start].chars().all(|c| c == ' ')
        };
        if capital && !opener && !(sentence_start && is_stop_word(w)) && w.chars().count() > 1 {
            if !contiguous || run.len() >= 4 {
                flush(&mut run, &mut out, &mut push);
            }
            let clean = raw.trim_end_matches("'s").trim_end_matches("’s");
            run.push(clean);
        } else {
            flush(&mut run, &mut out, &mut push);
        }
    }
    flush(&mut run, &mut out, &mut push);
    out
}

fn looks_like_date_or_time(w: &str) -> bool {
    let digits_and = |seps: &[char]| w.chars().all(|c| c.is_ascii_digit() || seps.contains(&c));
    digits_and(&['-', '/', ':', '.']) && w.chars().any(|c| c.is_ascii_digit())
}
