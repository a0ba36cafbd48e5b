//! Gibberish signs of a query (keyboard runs, repetition, hex blobs, words that do not
//! look English), which the support tiers use to refuse nonsense questions.

use std::collections::HashSet;

use super::{is_code_like, is_stop_word, words};

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

/// The gibberish signs of `query`. A word `known` says the store holds ("postgres",
/// "nginx", "k8s", a commit hash someone saved) is a word of this user's, whatever its
/// letters look like: it counts as word-like and is never a keyboard run, a hex blob or
/// nonsense repetition. Letter shapes only judge words no memory carries.
pub fn gibberish_signs(query: &str, known: impl Fn(&str) -> bool) -> Gibberish {
    let all = words(query);
    let content: Vec<String> = all.iter().filter(|w| !is_stop_word(w)).cloned().collect();
    let mut g = Gibberish {
        content_words: content.len(),
        ..Default::default()
    };
    let distinct: HashSet<&String> = content.iter().collect();
    // Repetition is a sign when it is most of the question ("gnarp gnarp", "xkcd xkcd xkcd"):
    // a real question may well say a word twice ("what game did we play at the game night?").
    g.repeated = content.len() >= 2
        && distinct.len() * 2 <= content.len()
        && distinct.iter().any(|w| !known(w));
    for w in &content {
        if known(w) {
            g.wordlike += 1;
            continue;
        }
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
