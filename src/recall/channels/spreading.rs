//! The spreading producer: activation from the top semantic and BM25 hits over memory links
//! and shared entities, with decay and fan-out normalisation.

use super::{CHANNEL_DEPTH, Channel, ChannelOutput, Hits, Produced, admitted};
use crate::engine::Engine;
use crate::recall::filters::Filters;
use std::collections::HashMap;

/// Seeds for spreading activation: the top hits of semantic and BM25 together.
pub const SPREAD_SEEDS: usize = 10;
/// Activation kept per hop (classic spreading-activation decay).
pub const SPREAD_DECAY: f64 = 0.5;
/// Hops of spreading activation.
pub const SPREAD_ITERATIONS: usize = 2;
/// Entities mentioned by more memories than this are too common to carry a signal (a
/// speaker's own name in a conversation) and are not walked.
pub const SPREAD_MAX_ENTITY_DEGREE: i64 = 60;

pub(super) fn spreading(
    engine: &Engine,
    out: &ChannelOutput,
    filters: &Filters,
    cosine_floor: f32,
) -> Produced {
    // Seeds: interleave the best of semantic and BM25, the two direct-evidence producers,
    // counting only hits that are evidence themselves (cosine at the floor, any BM25 match).
    let mut seeds: Vec<(i64, f64)> = Vec::new();
    let semantic: Hits = Hits(
        out.hits
            .get(&Channel::Semantic)
            .map(|h| {
                h.0.iter()
                    .filter(|(_, s)| *s >= cosine_floor as f64)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default(),
    );
    let lists: Vec<&Hits> = [Some(&semantic), out.hits.get(&Channel::Bm25)]
        .into_iter()
        .flatten()
        .collect();
    for i in 0..SPREAD_SEEDS {
        for l in &lists {
            if let Some((id, _)) = l.0.get(i) {
                if !seeds.iter().any(|(s, _)| s == id) && seeds.len() < SPREAD_SEEDS {
                    seeds.push((*id, 1.0 / (1.0 + i as f64)));
                }
            }
        }
    }
    if seeds.is_empty() {
        return Ok(None);
    }
    let reader = engine.reader()?;
    // What each memory receives from its neighbours; a seed's own starting activation is
    // not counted, so the channel reports linkage, not the seeds' own ranks again.
    let mut activation: HashMap<i64, f64> = HashMap::new();
    let mut frontier: HashMap<i64, f64> = seeds.iter().cloned().collect();
    let mut entity_members: HashMap<i64, Vec<i64>> = HashMap::new();
    for _ in 0..SPREAD_ITERATIONS {
        let mut next: HashMap<i64, f64> = HashMap::new();
        for (&node, &a) in &frontier {
            let mut neighbours: Vec<(i64, f64)> = Vec::new();
            for (other, _kind, w) in reader.links_of(node)? {
                neighbours.push((other, w));
            }
            for eid in reader.entity_ids(node)? {
                let members = match entity_members.get(&eid) {
                    Some(m) => m.clone(),
                    None => {
                        let deg = reader.entity_degree_upto(eid, SPREAD_MAX_ENTITY_DEGREE)?;
                        let m = if deg > SPREAD_MAX_ENTITY_DEGREE {
                            Vec::new()
                        } else {
                            reader.memories_with_entity(eid, SPREAD_MAX_ENTITY_DEGREE as usize)?
                        };
                        entity_members.insert(eid, m.clone());
                        m
                    }
                };
                let share = 1.0 / (members.len().max(1) as f64);
                for m in members {
                    if m != node {
                        neighbours.push((m, share));
                    }
                }
            }
            // Fan-out normalisation: a node with many neighbours spreads thinly.
            let fan = (neighbours.len().max(1) as f64).sqrt();
            for (n, w) in neighbours {
                *next.entry(n).or_default() += SPREAD_DECAY * a * w / fan;
            }
        }
        for (n, a) in &next {
            *activation.entry(*n).or_default() += a;
        }
        frontier = next;
    }
    let mut hits: Vec<(i64, f64)> = activation.into_iter().filter(|(_, a)| *a > 0.0).collect();
    hits = admitted(engine, filters, hits)?;
    hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    hits.truncate(CHANNEL_DEPTH);
    Ok(Some(Hits(hits)))
}
