//! Question-level gibberish signs: a recall whose question reads as nonsense goes straight
//! to `none`.

use super::Context;
use crate::text;

/// A question whose content words are mostly not word-like is gibberish.
pub const GIBBERISH_WORDLIKE_BELOW: f64 = 0.5;

/// Does the question look like gibberish? Returns the reason. `pictured`: a picture's
/// picture-channel score reached the media floor, so the question's words need not be in
/// any memory's text (they name what a picture shows).
pub fn gibberish(ctx: &Context<'_>, best_cosine: f64, pictured: bool) -> Option<&'static str> {
    let q = ctx.q;
    if q.content_words.is_empty() {
        return Some("no content words");
    }
    // How many memories hold each word, looked up once per word for both tests below.
    let df = std::cell::RefCell::new(std::collections::HashMap::<String, u64>::new());
    let doc_freq = |w: &str| -> u64 {
        *df.borrow_mut()
            .entry(w.to_string())
            .or_insert_with(|| ctx.engine.doc_freq(w))
    };
    let g = text::gibberish_signs(&ctx.req.query, |w| doc_freq(w) > 0);
    if g.repeated && g.content_words > 0 {
        return Some("repeated tokens");
    }
    if g.keyboard_runs > 0 && g.keyboard_runs * 2 >= g.content_words {
        return Some("keyboard runs");
    }
    if g.hex_like > 0 && g.hex_like == g.content_words {
        return Some("bare ids or hashes");
    }
    if g.content_words > 0
        && (g.wordlike as f64) / (g.content_words as f64) < GIBBERISH_WORDLIKE_BELOW
    {
        return Some("words that are not words");
    }
    // Words found in no memory at all. A statement (no question word) must be carried word
    // for word, so one unknown word means no memory holds it. A question whose every word
    // is unknown and that no memory matches by meaning has nothing to be close to.
    if pictured {
        return None;
    }
    let unknown = q.content_words.iter().filter(|w| doc_freq(w) == 0).count();
    if !q.has_question_word && unknown > 0 {
        return Some("a word of it is in no memory");
    }
    if unknown == q.content_words.len() && best_cosine < ctx.cosine_floor as f64 {
        return Some("its words are in no memory");
    }
    None
}
