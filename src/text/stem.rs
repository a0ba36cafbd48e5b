//! A light English suffix stemmer, so that forms of one word meet in the indexes.

use super::is_code_like;

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
