//! The picture producer: what a picture shows, scored against the question by the user's
//! image–text model (`media::clip`, `engine::image_text`).
//!
//! It is submitted only when pictures are on and the profile holds at least one picture;
//! otherwise a recall is exactly what it was without it (no status, no candidates). Without
//! a model it reports `unavailable` and why; while the model loads, or when the question's
//! vector is later than the spec's 0.3 s, `warming`. Its score is the cosine of the picture's
//! and the question's vectors; the evidence floor compares it with the media floor.

use super::{CHANNEL_DEPTH, Hits, Produced, ProducerError, admitted, unavailable};
use crate::engine::{Engine, PictureQuery};
use crate::recall::filters::Filters;

/// Whether the picture producer is submitted for this recall (one count on the picture rows).
pub(super) fn submitted(engine: &Engine, filters: &Filters) -> bool {
    engine.picture_channel_submitted(&filters.profile)
}

pub(super) fn pictures(engine: &Engine, question: &str, filters: &Filters) -> Produced {
    let (query, vectors) = match engine.picture_query(question, &filters.profile)? {
        PictureQuery::Unavailable(why) => return Err(unavailable(why)),
        PictureQuery::Warming(why) => return Err(ProducerError::Warming(why)),
        PictureQuery::Ready { query, pictures } => (query, pictures),
    };
    let mut hits: Vec<(i64, f64)> = vectors
        .iter()
        .map(|(id, v)| (*id, crate::media::clip::score(&query, v) as f64))
        .filter(|(_, s)| *s > 0.0)
        .collect();
    hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    hits.truncate(CHANNEL_DEPTH * 2);
    let mut hits = admitted(engine, filters, hits)?;
    hits.truncate(CHANNEL_DEPTH);
    Ok(Some(Hits(hits)))
}
