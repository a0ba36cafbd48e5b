//! The producers that read the vector index: semantic (k-NN on the query embedding, each
//! candidate scored by the closest of its own vector and its passages' vectors) and
//! hopfield (softmax update steps over the embeddings of a k-NN prefilter).

use super::{CHANNEL_DEPTH, Hits, Produced, ProducerError, unavailable};
use crate::engine::Engine;
use crate::recall::filters::Filters;
use crate::{Error, embed};

/// Prefilter size for Hopfield retrieval.
pub const HOPFIELD_PREFILTER: usize = 64;
/// Inverse temperature of the Hopfield softmax. With unit vectors, β = 16 makes the update
/// concentrate on the few patterns within ~0.1 cosine of the best.
pub const HOPFIELD_BETA: f32 = 16.0;
/// Update steps (the spec: one or two).
pub const HOPFIELD_STEPS: usize = 2;

/// Evaluation knob: set, the semantic channel scores memories by their own vectors only, so
/// `slm eval` can measure what passages add without a rebuild. Never set in normal use.
pub const NO_PASSAGES_ENV: &str = "SLM_EVAL_NO_PASSAGES";

fn query_vec<'a>(
    qvec: &'a Option<std::result::Result<Vec<f32>, String>>,
) -> std::result::Result<&'a Vec<f32>, ProducerError> {
    match qvec {
        None => Err(unavailable("no embedding model loaded")),
        Some(Err(e)) => Err(Error::Model(format!("embedding the query failed: {e}")).into()),
        Some(Ok(v)) => Ok(v),
    }
}

/// `own` receives each candidate's cosine by its own vector (see `ChannelOutput::own_cosines`).
pub(super) fn semantic(
    engine: &Engine,
    qvec: &Option<std::result::Result<Vec<f32>, String>>,
    filters: &Filters,
    own: &std::sync::OnceLock<std::collections::HashMap<i64, f64>>,
) -> Produced {
    let v = query_vec(qvec)?;
    let health = engine.vector_health();
    if !health.usable() {
        return Err(unavailable(format!("the vector index is {health}")));
    }
    let near = engine.with_meta(|meta| {
        engine.with_vectors(|vx| match vx {
            None => Err(unavailable("vector index not loaded")),
            Some(vx) => vx
                .search(v, CHANNEL_DEPTH, |id| {
                    meta.get(&id).is_some_and(|m| filters.admits(m))
                })
                .map_err(ProducerError::from),
        })
    })???;
    // The index found the candidates by its compact vectors; their cosines are the stored
    // vectors' (see `index::vector`), and a memory's cosine is that of the closest of its
    // own vector and its passages' (`text::passages`).
    let ids: Vec<i64> = near.iter().map(|(id, _)| *id).collect();
    let exact = engine.stored_embeddings(&ids)?;
    let passages = if std::env::var_os(NO_PASSAGES_ENV).is_some() {
        Default::default()
    } else {
        engine.best_passage_cosines(&ids, v)?
    };
    let mut own_cosines = std::collections::HashMap::with_capacity(near.len());
    let mut hits: Vec<(i64, f64)> = near
        .into_iter()
        .map(|(id, approx)| {
            let cos = match exact.get(&id) {
                Some(e) => {
                    let c = embed::cosine(v, e);
                    own_cosines.insert(id, c as f64);
                    c
                }
                None => approx,
            };
            let best = passages.get(&id).map_or(cos, |p| cos.max(*p));
            (id, best as f64)
        })
        .collect();
    let _ = own.set(own_cosines);
    hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(Some(Hits(hits)))
}

pub(super) fn hopfield(
    engine: &Engine,
    qvec: &Option<std::result::Result<Vec<f32>, String>>,
    filters: &Filters,
) -> Produced {
    let q = query_vec(qvec)?;
    // Hopfield works in the index's compact space: its patterns are the index's vectors and
    // the query is cut the same way; its output is an order, never a cosine held to a
    // threshold.
    type Compact = (Vec<f32>, Vec<(i64, Vec<f32>)>);
    let (q, patterns): Compact = engine.with_meta(|meta| {
        engine.with_vectors(|vx| -> std::result::Result<Compact, ProducerError> {
            let vx = vx.ok_or_else(|| unavailable("vector index not loaded"))?;
            let near = vx.search(q, HOPFIELD_PREFILTER, |id| {
                meta.get(&id).is_some_and(|m| filters.admits(m))
            })?;
            let patterns = near
                .into_iter()
                .filter_map(|(id, _)| vx.get(id).map(|v| (id, v)))
                .collect();
            Ok((vx.compact_query(q), patterns))
        })
    })???;
    if patterns.is_empty() {
        return Ok(Some(Hits::default()));
    }
    let q = &q;
    let attention = |xi: &[f32]| -> Vec<f32> {
        let logits: Vec<f32> = patterns
            .iter()
            .map(|(_, x)| HOPFIELD_BETA * embed::cosine(x, xi))
            .collect();
        let max = logits.iter().cloned().fold(f32::MIN, f32::max);
        let exps: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
        let sum: f32 = exps.iter().sum();
        exps.iter().map(|e| e / sum).collect()
    };
    let mut xi = q.clone();
    for _ in 0..HOPFIELD_STEPS {
        let p = attention(&xi);
        let mut next = vec![0f32; xi.len()];
        for (w, (_, x)) in p.iter().zip(&patterns) {
            for (n, v) in next.iter_mut().zip(x) {
                *n += w * v;
            }
        }
        embed::normalize(&mut next);
        xi = next;
    }
    let p = attention(&xi);
    let mut hits: Vec<(i64, f64)> = patterns
        .iter()
        .zip(p)
        .map(|((id, _), w)| (*id, w as f64))
        .collect();
    hits.sort_by(|a, b| b.1.total_cmp(&a.1));
    Ok(Some(Hits(hits)))
}
