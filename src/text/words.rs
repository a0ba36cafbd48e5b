//! Word splitting as slm indexes and compares text: lowercased words with names, codes,
//! versions and ids kept whole ("v0.3.4", "conv-26", "user@host"), CJK characters one
//! word each, and the parts of path- and address-like tokens for the keyword index.

/// Characters kept inside a word when they sit between two alphanumerics:
/// "v0.3.4", "conv-26", "snake_case", "foo.rs", "user@host", "10:30", "a/b".
pub(super) const JOINERS: &[char] = &['.', '_', '-', '/', ':', '#', '@', '+'];

pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

pub(super) fn is_cjk(c: char) -> bool {
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
pub(super) const PART_SEPARATORS: &[char] = &['/', '@', ':', '#'];

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

/// Codes, ids and hashes rather than words.
pub fn is_code_like(w: &str) -> bool {
    let has_digit = w.chars().any(|c| c.is_ascii_digit());
    let has_alpha = w.chars().any(|c| c.is_alphabetic());
    let inner_joiner = w.chars().any(|c| JOINERS.contains(&c));
    let hex = w.len() >= 8 && w.chars().all(|c| c.is_ascii_hexdigit());
    (has_digit && has_alpha) || hex || (inner_joiner && w.chars().any(|c| c.is_alphanumeric()))
}
