//! Test support: whether text written for a person looks like Rust debug text (issue 33).
//!
//! Shared by the unit tests (`render::human_tests`) and the end-to-end ones
//! (`tests/it/human_text.rs` includes this file by path), so it uses nothing but `std`.

/// Why `text` looks like debug text, or `None` when it reads as written for people. Flags
/// `Some(` and a bare `None`, braces (`{…}`: JSON or a struct's debug form), a parenthesis
/// holding quotes (`Rebuilt("it did not exist")`), an escaped quote (`\"`), and a
/// CamelCase variant name (`CaughtUp`, `NotConfigured`).
pub fn debug_look(text: &str) -> Option<String> {
    if text.contains("Some(") {
        return Some("`Some(` (an Option's debug form)".into());
    }
    if text.contains("\\\"") {
        return Some("an escaped quote (a string's debug form)".into());
    }
    if let Some(open) = text.find('{') {
        if text[open..].contains('}') {
            return Some("a `{…}` (JSON or a struct's debug form)".into());
        }
    }
    if let Some(group) = quoted_parenthesis(text) {
        return Some(format!("a parenthesis holding quotes: ({group})"));
    }
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        if word == "None" {
            return Some("a bare `None` (an Option's debug form)".into());
        }
        if is_camel_case(word) {
            return Some(format!(
                "the CamelCase name {word:?} (an enum's debug form)"
            ));
        }
    }
    None
}

/// The first `(…)` (outermost, nesting counted) that holds a double quote.
fn quoted_parenthesis(text: &str) -> Option<&str> {
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => {
                if depth == 0 {
                    start = i + 1;
                }
                depth += 1;
            }
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 && text[start..i].contains('"') {
                    return Some(&text[start..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Two or more capitalised parts and nothing else: `CaughtUp`, `NotConfigured`, `TimedOut`
/// (not `MB`, `MiB`, `OpenAI` or `Gemma`).
fn is_camel_case(word: &str) -> bool {
    let mut parts = 0;
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii_uppercase() {
            return false;
        }
        let mut lower = 0;
        while chars
            .peek()
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        {
            chars.next();
            lower += 1;
        }
        if lower == 0 {
            return false;
        }
        parts += 1;
    }
    parts >= 2
}

#[cfg(test)]
mod tests {
    use super::debug_look;

    #[test]
    fn debug_text_is_caught() {
        for bad in [
            r#"ok  vectors    Rebuilt("it did not exist"), 3 pending embeddings"#,
            r#"ok  probe      {"dimension":768,"norm":1.0}"#,
            "ok  keywords   CaughtUp(3), 3 documents",
            "reranker: NotConfigured",
            "memory=Some(3)",
            "answer=None",
            r#"the reason "it said \"no\"""#,
        ] {
            assert!(debug_look(bad).is_some(), "not caught: {bad}");
        }
    }

    #[test]
    fn text_for_people_passes() {
        for good in [
            "ok  vectors    rebuilt (there was none), 3 memories",
            "ok  probe      a test embedding works (768 dimensions)",
            "ok  writes     ok (67397.6 MB free)",
            "ok  model      embeddinggemma-300m-int8 (768 dimensions; licence: Gemma Terms of Use (https://ai.google.dev/gemma/terms))",
            "slm: --window \"bogus\": expected a window like 7d",
            "error: invalid value 'x' for '--limit <LIMIT>': \"x\" is not a whole number (give 1 or more)",
            "    reader     none configured (settings answer_check.reader_dir; see docs/models.md)",
            "an OpenAI endpoint, 4 MiB",
        ] {
            assert_eq!(debug_look(good), None, "{good}");
        }
    }
}
