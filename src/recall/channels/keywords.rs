//! The keyword producer: BM25 over the words of the question.

use super::{CHANNEL_DEPTH, Hits, Produced, admitted};
use crate::Error;
use crate::engine::Engine;
use crate::recall::classify::Classified;
use crate::recall::filters::Filters;

/// Words the keyword producer searches for: content words, or all words when the query
/// is nothing but stop words (so "the a an of" still searches and finds nothing real).
pub fn keyword_terms(q: &Classified) -> Vec<String> {
    if q.content_words.is_empty() {
        q.words.clone()
    } else {
        q.content_words.clone()
    }
}

pub(super) fn bm25(engine: &Engine, q: &Classified, filters: &Filters) -> Produced {
    let health = engine.bm25_health();
    if !health.usable() {
        // Reported as failed, as it always has been (not `unavailable`): "keyword index:
        // unavailable (why)".
        return Err(Error::Bm25(health.to_string()).into());
    }
    let terms = keyword_terms(q);
    if terms.is_empty() {
        return Ok(None);
    }
    // Over-fetch: time and kind filters are applied after the index's visibility filter.
    let raw = engine.bm25_search(&terms, &filters.visibility(), CHANNEL_DEPTH * 2)?;
    let mut hits = admitted(
        engine,
        filters,
        raw.into_iter().map(|(id, s)| (id, s as f64)).collect(),
    )?;
    hits.truncate(CHANNEL_DEPTH);
    Ok(Some(Hits(hits)))
}
