//! Deterministic text analysis, at write time and at recall time: word splitting that keeps
//! names, codes, versions and ids intact; stop words and question words; content words; a
//! light stemmer; entity extraction (no LLM); bookkeeping-noise recognition; terminal
//! sanitising; previews; gibberish signs.

use std::collections::HashSet;
use std::sync::LazyLock;

/// Characters kept inside a word when they sit between two alphanumerics:
/// "v0.3.4", "conv-26", "snake_case", "foo.rs", "user@host", "10:30", "a/b".
const JOINERS: &[char] = &['.', '_', '-', '/', ':', '#', '@', '+'];

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// Byte spans and lowercased forms of each word (see [`words`]).
pub fn word_spans(text: &str) -> Vec<(usize, usize, String)> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        if is_cjk(c) {
            out.push((start, start + c.len_utf8(), c.to_lowercase().collect()));
            i += 1;
            continue;
        }
        if !is_word_char(c) {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < chars.len() {
            let cj = chars[j].1;
            if is_cjk(cj) {
                break;
            }
            if is_word_char(cj) || matches!(cj, '\u{0300}'..='\u{036F}') {
                j += 1;
            } else if (JOINERS.contains(&cj) || cj == '\'' || cj == '’')
                && j + 1 < chars.len()
                && is_word_char(chars[j + 1].1)
                && !is_cjk(chars[j + 1].1)
            {
                j += 1;
            } else {
                break;
            }
        }
        let end = if j < chars.len() {
            chars[j].0
        } else {
            text.len()
        };
        let raw = &text[start..end];
        let mut w = raw.to_lowercase();
        // Possessive 's goes; other apostrophes are removed ("don't" → "dont").
        for suffix in ["'s", "’s"] {
            if w.ends_with(suffix) && w.len() > suffix.len() {
                w.truncate(w.len() - suffix.len());
            }
        }
        w = w.replace(['\'', '’'], "");
        if !w.is_empty() {
            out.push((start, end, w));
        }
        i = j;
    }
    out
}

/// Words as slm indexes and compares them: lowercased, codes and versions kept whole,
/// surrounding punctuation dropped, possessive "'s" dropped.
pub fn words(text: &str) -> Vec<String> {
    word_spans(text).into_iter().map(|(_, _, w)| w).collect()
}

/// Separators inside a compound token whose parts are worth finding on their own:
/// "kv/deploy-7" is also "kv" and "deploy-7"; "user@host" also "user" and "host".
const PART_SEPARATORS: &[char] = &['/', '@', ':', '#'];

/// Words plus the parts of path- and address-like tokens (what the keyword index holds,
/// and what the support check compares a question against).
pub fn index_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for w in words(text) {
        if w.contains(PART_SEPARATORS) {
            for p in w.split(PART_SEPARATORS).filter(|p| !p.is_empty()) {
                out.push(p.to_string());
            }
        }
        out.push(w);
    }
    out
}

/// English function words (and question words, which carry no topic either).
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "else",
    "ever",
    "every",
    "few",
    "for",
    "from",
    "further",
    "get",
    "gets",
    "got",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "im",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "ive",
    "just",
    "let",
    "lets",
    "like",
    "may",
    "me",
    "might",
    "more",
    "most",
    "much",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "really",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "thats",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "upon",
    "us",
    "very",
    "was",
    "we",
    "were",
    "what",
    "whats",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "would",
    "yes",
    "yet",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "youre",
    "dont",
    "didnt",
    "doesnt",
    "isnt",
    "wasnt",
    "arent",
    "werent",
    "cant",
    "couldnt",
    "wont",
    "wouldnt",
    "shouldnt",
    "hasnt",
    "havent",
    "hadnt",
    "kind",
    "sort",
    "thing",
    "things",
    "something",
    "anything",
    "everything",
    "nothing",
    "way",
    "ok",
    "okay",
    "oh",
    "yeah",
    "hey",
    "hi",
    "wow",
    "well",
    "gonna",
    "wanna",
    "tell",
    "know",
    "say",
    "said",
];

static STOP: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| STOP_WORDS.iter().copied().collect());

pub fn is_stop_word(w: &str) -> bool {
    STOP.contains(w)
}

const QUESTION_WORDS: &[&str] = &[
    "what", "when", "where", "who", "whom", "whose", "which", "why", "how",
];
const LEADING_AUX: &[&str] = &[
    "did", "do", "does", "is", "are", "was", "were", "can", "could", "should", "would", "will",
    "has", "have", "had", "am",
];

/// Does the query read as a question (a question word anywhere, or a leading auxiliary)?
pub fn has_question_word(query: &str) -> bool {
    let ws = words(query);
    ws.iter().any(|w| QUESTION_WORDS.contains(&w.as_str()))
        || ws
            .first()
            .is_some_and(|w| LEADING_AUX.contains(&w.as_str()))
}

/// Content words: not stop words, not single letters; deduplicated, in order.
pub fn content_words(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    words(text)
        .into_iter()
        .filter(|w| !is_stop_word(w))
        .filter(|w| w.chars().count() > 1 || w.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// A small suffix stemmer so "painted" ~ "paint", "sunrises" ~ "sunrise", "running" ~ "run".
/// Limits: English suffixes only (s/es/ies, ing, ed, ly); irregular forms ("went", "ran")
/// are not related; words of three letters or fewer and code-like tokens are left alone.
pub fn stem(w: &str) -> String {
    if w.chars().count() <= 3 || is_code_like(w) || !w.chars().all(|c| c.is_alphabetic()) {
        return w.to_string();
    }
    // A final silent e goes last, so "decide", "decided" and "deciding" meet at "decid".
    let s = stem_suffix(w);
    match s.strip_suffix('e') {
        Some(b) if b.chars().count() >= 4 => b.to_string(),
        _ => s,
    }
}

fn stem_suffix(w: &str) -> String {
    let s = w;
    let undouble = |base: &str| -> String {
        let b: Vec<char> = base.chars().collect();
        if b.len() >= 3 && b[b.len() - 1] == b[b.len() - 2] && !"aeiouls".contains(b[b.len() - 1]) {
            b[..b.len() - 1].iter().collect()
        } else {
            base.to_string()
        }
    };
    if let Some(b) = s.strip_suffix("ies") {
        if b.chars().count() >= 2 {
            return format!("{b}y");
        }
    }
    if let Some(b) = s.strip_suffix("ing") {
        if b.chars().count() >= 3 && b.chars().any(|c| "aeiouy".contains(c)) {
            return undouble(b);
        }
    }
    if let Some(b) = s.strip_suffix("ed") {
        if b.chars().count() >= 3 && b.chars().any(|c| "aeiouy".contains(c)) {
            if let Some(bb) = b.strip_suffix('i') {
                return format!("{bb}y");
            }
            return undouble(b);
        }
    }
    if let Some(b) = s.strip_suffix("ly") {
        if b.chars().count() >= 4 {
            return b.to_string();
        }
    }
    for suf in ["sses", "shes", "ches", "xes", "zes"] {
        if let Some(b) = s.strip_suffix(suf) {
            return format!("{b}{}", &suf[..suf.len() - 2]);
        }
    }
    if s.ends_with('s') && !s.ends_with("ss") && !s.ends_with("us") && !s.ends_with("is") {
        return s[..s.len() - 1].to_string();
    }
    s.to_string()
}

/// Codes, ids and hashes rather than words.
pub fn is_code_like(w: &str) -> bool {
    let has_digit = w.chars().any(|c| c.is_ascii_digit());
    let has_alpha = w.chars().any(|c| c.is_alphabetic());
    let inner_joiner = w.chars().any(|c| JOINERS.contains(&c));
    let hex = w.len() >= 8 && w.chars().all(|c| c.is_ascii_hexdigit());
    (has_digit && has_alpha) || hex || (inner_joiner && w.chars().any(|c| c.is_alphanumeric()))
}

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

/// Hook and agent bookkeeping patterns (lowercased), by name.
const BOOKKEEPING: &[(&str, &str)] = &[
    ("session ended", "session_event"),
    ("session started", "session_event"),
    ("session start", "session_event"),
    ("session end", "session_event"),
    ("session stopped", "session_event"),
    ("session resumed", "session_event"),
    ("file changed", "file_event"),
    ("file modified", "file_event"),
    ("file edited", "file_event"),
    ("file created", "file_event"),
    ("file deleted", "file_event"),
    ("tool call", "tool_event"),
    ("tool use", "tool_event"),
    ("pretooluse", "tool_event"),
    ("posttooluse", "tool_event"),
    ("context compacted", "context_event"),
    ("compacting context", "context_event"),
    ("heartbeat", "heartbeat"),
    ("[hook]", "hook_noise"),
    ("hook:", "hook_noise"),
    ("subagent stopped", "tool_event"),
    ("user prompt submitted", "hook_noise"),
];
/// Bookkeeping rows are short; prose that merely mentions a session is not bookkeeping.
const BOOKKEEPING_MAX_CHARS: usize = 200;

/// Why a text is hook bookkeeping, or None. The pattern must open the text (after
/// punctuation or a timestamp) and the text must be short.
pub fn bookkeeping_reason(text: &str) -> Option<&'static str> {
    let t = text.trim();
    if t.chars().count() > BOOKKEEPING_MAX_CHARS {
        return None;
    }
    let lower = t.to_lowercase();
    let body = lower.trim_start_matches(|c: char| !c.is_alphabetic() && c != '[');
    for (pat, name) in BOOKKEEPING {
        if body.starts_with(pat) {
            return Some(name);
        }
    }
    None
}

/// Strip terminal control sequences so untrusted memory text cannot move the cursor or
/// retitle the terminal: ESC sequences (CSI, OSC, others), C0 controls but \n and \t, DEL, C1.
pub fn sanitize_for_terminal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut it = text.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\x1b' => match it.peek() {
                Some('[') => {
                    it.next();
                    while let Some(&n) = it.peek() {
                        it.next();
                        if ('\x40'..='\x7e').contains(&n) {
                            break;
                        }
                    }
                }
                Some(']') | Some('P') | Some('_') | Some('^') => {
                    it.next();
                    while let Some(n) = it.next() {
                        if n == '\x07' {
                            break;
                        }
                        if n == '\x1b' && it.peek() == Some(&'\\') {
                            it.next();
                            break;
                        }
                    }
                }
                Some(_) => {
                    it.next();
                }
                None => {}
            },
            '\n' | '\t' => out.push(c),
            c if (c as u32) < 0x20 || c as u32 == 0x7f || (0x80..=0x9f).contains(&(c as u32)) => {}
            c => out.push(c),
        }
    }
    out
}

/// One line, whitespace collapsed, at most `max_chars` characters ("…" when cut).
pub fn preview(text: &str, max_chars: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max_chars {
        return flat;
    }
    let cut: String = flat.chars().take(max_chars.saturating_sub(1)).collect();
    let at_word = match cut.rfind(' ') {
        Some(i) if i > max_chars / 2 => cut[..i].to_string(),
        _ => cut,
    };
    format!("{at_word}…")
}

/// Common English words that do not follow the usual letter patterns closely enough.
const COMMON: &[&str] = &[
    "speed",
    "light",
    "vacuum",
    "database",
    "billing",
    "service",
    "key",
    "build",
    "server",
    "rust",
    "python",
    "version",
    "image",
    "review",
    "page",
    "login",
    "security",
    "certificates",
    "balancer",
    "rotate",
    "gdp",
    "norway",
    "wrote",
    "borrow",
    "checker",
    "rfc",
    "ssh",
    "tls",
    "ci",
    "fingerprint",
    "choose",
    "chose",
];

const KEYBOARD_ROWS: &[&str] = &[
    "qwertyuiop",
    "asdfghjkl",
    "zxcvbnm",
    "poiuytrewq",
    "lkjhgfdsa",
    "mnbvcxz",
    "1234567890",
];

/// Gibberish signs of a query, deterministic.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gibberish {
    pub content_words: usize,
    pub wordlike: usize,
    pub repeated: bool,
    pub keyboard_runs: usize,
    pub hex_like: usize,
}

fn keyboard_run(w: &str) -> bool {
    if w.len() < 4 {
        return false;
    }
    // Four or more letters that follow one keyboard row (either direction).
    KEYBOARD_ROWS.iter().any(|row| {
        let b = w.as_bytes();
        b.windows(4).any(|win| {
            let s = std::str::from_utf8(win).unwrap_or("");
            row.contains(s)
        })
    }) || {
        // One letter held down ("aaaa", "zzz") or two consonants drummed ("hjhj"). Two
        // letters with a vowel are words and names ("coco", "mama", "tutu"), not runs.
        let letters: HashSet<char> = w.chars().collect();
        let vowel = letters.iter().any(|c| "aeiouy".contains(*c));
        (letters.len() == 1 && w.len() >= 3) || (letters.len() == 2 && !vowel && w.len() >= 4)
    }
}

/// Does a token look like an English word: vowels in sensible places, no long consonant
/// runs, not a keyboard run?
fn wordlike(w: &str) -> bool {
    if COMMON.contains(&w) || is_stop_word(w) {
        return true;
    }
    if !w.chars().all(|c| c.is_alphabetic()) {
        return false;
    }
    if !w.is_ascii() {
        return true; // other scripts: no judgement
    }
    if keyboard_run(w) {
        return false;
    }
    let vowels = w.chars().filter(|c| "aeiouy".contains(*c)).count();
    if vowels == 0 {
        return false;
    }
    let mut run = 0;
    for c in w.chars() {
        if "aeiouy".contains(c) {
            run = 0;
        } else {
            run += 1;
            if run >= 4 {
                return false;
            }
        }
    }
    let ratio = vowels as f64 / w.chars().count() as f64;
    (0.2..=0.8).contains(&ratio)
}

pub fn gibberish_signs(query: &str) -> Gibberish {
    let all = words(query);
    let content: Vec<String> = all.iter().filter(|w| !is_stop_word(w)).cloned().collect();
    let mut g = Gibberish {
        content_words: content.len(),
        ..Default::default()
    };
    let distinct: HashSet<&String> = content.iter().collect();
    // Repetition is a sign when it is most of the question ("gnarp gnarp", "xkcd xkcd xkcd"):
    // a real question may well say a word twice ("what game did we play at the game night?").
    g.repeated = content.len() >= 2 && distinct.len() * 2 <= content.len();
    for w in &content {
        if keyboard_run(w) {
            g.keyboard_runs += 1;
        }
        if w.len() >= 8
            && w.chars().all(|c| c.is_ascii_hexdigit())
            && w.chars().any(|c| c.is_ascii_digit())
        {
            g.hex_like += 1;
        }
        if wordlike(w)
            || is_code_like(w) && !(w.len() >= 8 && w.chars().all(|c| c.is_ascii_hexdigit()))
        {
            g.wordlike += 1;
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_codes_and_drop_possessives() {
        assert_eq!(
            words("Did Caroline's v0.3.4 build (conv-26) pass?"),
            vec!["did", "caroline", "v0.3.4", "build", "conv-26", "pass"]
        );
        assert_eq!(
            words("snake_case foo.rs user@host 10:30 don't"),
            vec!["snake_case", "foo.rs", "user@host", "10:30", "dont"]
        );
        assert!(words("🐙🐙 ¯\\_(ツ)_/¯ ??!!").iter().all(|w| w == "ツ"));
    }

    #[test]
    fn entities_find_names_versions_codes_quotes() {
        let e = entities(
            "Caroline went to the LGBTQ support group in New York with Melanie. Version 12.4.9 of `slm` uses d41d8cd98f00b204e9800998ecf8427e.",
        );
        let names: Vec<&str> = e
            .iter()
            .filter(|e| e.kind == EntityKind::Name)
            .map(|e| e.surface.as_str())
            .collect();
        assert_eq!(names, vec!["Caroline", "LGBTQ", "New York", "Melanie"]);
        assert!(
            e.iter()
                .any(|e| e.kind == EntityKind::Version && e.norm == "12.4.9")
        );
        assert!(
            e.iter()
                .any(|e| e.kind == EntityKind::Quoted && e.norm == "slm")
        );
        assert!(
            e.iter()
                .any(|e| e.kind == EntityKind::Code && e.norm.starts_with("d41d8"))
        );
        assert!(
            entities("Yeah, I painted that lake sunrise last year!")
                .iter()
                .all(|e| e.kind != EntityKind::Name)
        );
    }

    #[test]
    fn stemmer_relates_forms_and_leaves_codes() {
        assert_eq!(stem("painted"), stem("paint"));
        assert_eq!(stem("sunrises"), stem("sunrise"));
        assert_eq!(stem("decided"), stem("decide"));
        assert_eq!(stem("deciding"), stem("decide"));
        assert_eq!(stem("running"), "run");
        assert_eq!(stem("researching"), stem("research"));
        assert_eq!(stem("v0.3.4"), "v0.3.4");
        assert_eq!(stem("agencies"), "agency");
    }

    #[test]
    fn bookkeeping_is_short_and_leading() {
        assert_eq!(bookkeeping_reason("session ended"), Some("session_event"));
        assert_eq!(
            bookkeeping_reason("File changed: src/main.rs"),
            Some("file_event")
        );
        assert_eq!(
            bookkeeping_reason("[hook] PostToolUse Read"),
            Some("hook_noise")
        );
        assert_eq!(
            bookkeeping_reason("I ended the session with my therapist early"),
            None
        );
        assert_eq!(
            bookkeeping_reason("We decided the session ended too late for the demo"),
            None
        );
    }

    #[test]
    fn sanitize_strips_control_sequences() {
        assert_eq!(sanitize_for_terminal("\x1b[31mred\x1b[0m"), "red");
        assert_eq!(sanitize_for_terminal("a\x1b]0;title\x07b"), "ab");
        assert_eq!(sanitize_for_terminal("x\u{9b}y\x07z\nok"), "xyz\nok");
    }

    #[test]
    fn gibberish_signs_separate_nonsense_from_questions() {
        let g = gibberish_signs("zorp flanngle quizzit?");
        assert!(g.wordlike < g.content_words, "{g:?}");
        let g = gibberish_signs("What did Caroline research?");
        assert_eq!(g.wordlike, g.content_words);
        let g = gibberish_signs("hjkl hjkl hjkl");
        assert!(g.repeated && g.keyboard_runs > 0);
        assert!(gibberish_signs("poiuytrewq").keyboard_runs > 0);
        let g = gibberish_signs("asdkj qwlek zmxnc");
        assert!(g.wordlike * 2 < g.content_words, "{g:?}");
        assert!(gibberish_signs("gnarp gnarp").repeated);
        assert!(gibberish_signs("xkcd xkcd xkcd").repeated);
        assert!(gibberish_signs("aaaa").keyboard_runs > 0);
    }

    /// Real questions that once read as nonsense: a word said twice, a two-letter name.
    #[test]
    fn real_questions_are_not_gibberish() {
        for q in [
            "What game did Nate play at the game convention?",
            "When did Maria get Coco?",
            "Did mama call papa about the tutu?",
            "When did Nate make vegan ice cream and share it with a vegan diet group?",
        ] {
            let g = gibberish_signs(q);
            assert!(!g.repeated, "{q}: {g:?}");
            assert_eq!(g.keyboard_runs, 0, "{q}: {g:?}");
            assert_eq!(g.wordlike, g.content_words, "{q}: {g:?}");
        }
    }

    #[test]
    fn preview_cuts_at_words() {
        assert_eq!(preview("a  b\n c", 10), "a b c");
        let p = preview("the quick brown fox jumps over the lazy dog", 20);
        assert!(p.ends_with('…') && p.chars().count() <= 20);
    }

    #[test]
    fn no_panics_on_odd_input() {
        for s in [
            "",
            "   ",
            "\u{301}\u{301}",
            "'''",
            "a'",
            "'s",
            "x.",
            ".x",
            "🐙 ago",
            &"é".repeat(50_000),
        ] {
            let _ = words(s);
            let _ = entities(s);
            let _ = content_words(s);
            let _ = gibberish_signs(s);
            let _ = preview(s, 5);
            let _ = bookkeeping_reason(s);
        }
    }
}
