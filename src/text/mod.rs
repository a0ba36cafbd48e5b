//! Deterministic text analysis, at write time and at recall time: word splitting that keeps
//! names, codes, versions and ids intact; stop words and question words; content words; a
//! light stemmer; entity extraction (no LLM); bookkeeping-noise recognition; terminal
//! sanitising; previews; gibberish signs; passages (a memory's sentences, embedded apart);
//! secrets redacted before a write; the form in which two texts are the same memory.
//!
//! Each part has its own file; everything is re-exported here, so callers name
//! `crate::text::words`, `crate::text::entities` and so on without knowing the layout.

mod bookkeeping;
mod dedup;
mod display;
mod entities;
mod gibberish;
mod lexicon;
mod passages;
mod secrets;
mod stem;
mod words;

#[cfg(test)]
mod tests;

pub use bookkeeping::bookkeeping_reason;
pub use dedup::{dedup_form, dedup_hash};
pub use display::{preview, sanitize_for_terminal};
pub use entities::{Entity, EntityKind, entities};
pub use gibberish::{Gibberish, gibberish_signs};
pub use lexicon::{content_words, has_question_word, is_stop_word};
pub use passages::{CONTEXT_WORDS, MAX_PASSAGES, passages, passages_in_context};
pub use secrets::{
    PATTERNS as SECRET_PATTERNS, Redaction, SecretPattern, redact_secrets, redaction_summary,
};
pub use stem::stem;
pub use words::{index_words, is_code_like, word_spans, words};
