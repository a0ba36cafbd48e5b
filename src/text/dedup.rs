//! When two texts are the same memory: equal once whitespace runs are collapsed to one
//! space, the ends trimmed and case folded. `slm remember` of a text already stored (same
//! profile, scope and session) acknowledges the memory that holds it instead of storing it
//! again; the store finds candidates by [`dedup_hash`] and confirms with [`dedup_form`].

use sha2::{Digest, Sha256};

/// The form two texts are compared in.
pub fn dedup_form(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for w in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(w.chars().flat_map(char::to_lowercase));
    }
    out
}

/// The first 8 bytes of the SHA-256 of [`dedup_form`], as the store's index keeps it.
pub fn dedup_hash(text: &str) -> i64 {
    let d = Sha256::digest(dedup_form(text).as_bytes());
    i64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_and_case_do_not_make_a_new_text() {
        assert_eq!(
            dedup_form("  We chose\tPostgres\n\nfor  ANALYTICS "),
            "we chose postgres for analytics"
        );
        assert_eq!(
            dedup_hash("We chose Postgres"),
            dedup_hash("we  chose\npostgres")
        );
        assert_ne!(
            dedup_hash("We chose Postgres"),
            dedup_hash("We chose MySQL")
        );
    }
}
