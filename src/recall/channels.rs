//! Stage 2: the five producers, run in parallel, each behind a time guard.
//!
//! A producer reports only when its index is healthy; a missing, failed or late producer
//! is listed in `channel_status` and the recall goes on with the others.
//!
//! * semantic — usearch k-NN on the query embedding;
//! * bm25 — tantivy over the words of the query (names and codes kept whole);
//! * temporal — event-time proximity to the query's time references, or newest-first for
//!   questions about the present;
//! * spreading — activation from the top hits over memory links and shared entities, with
//!   decay and fan-out normalisation;
//! * hopfield — a modern-Hopfield retrieval (softmax update steps) over the embeddings of a
//!   k-NN prefilter, so its cost stays bounded however large the store is.

use super::classify::Classified;
use super::filters::{Filters, interval_ms};
use crate::engine::Engine;
use crate::index::meta::MetaMap;
use crate::memory::Kind;
use crate::{Error, Result, embed, timeparse};
use serde::Serialize;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Candidates each producer reports. Wider than any result list so the evidence floor
/// runs before the limit (a qualified candidate just below the cut is not pushed out).
pub const CHANNEL_DEPTH: usize = 100;
/// A producer that has not answered by then is reported `timed_out` and left out.
pub const PRODUCER_TIMEOUT: Duration = Duration::from_secs(3);
/// Seeds for spreading activation: the top hits of semantic and BM25 together.
pub const SPREAD_SEEDS: usize = 10;
/// Activation kept per hop (classic spreading-activation decay).
pub const SPREAD_DECAY: f64 = 0.5;
/// Hops of spreading activation.
pub const SPREAD_ITERATIONS: usize = 2;
/// Entities mentioned by more memories than this are too common to carry a signal (a
/// speaker's own name in a conversation) and are not walked.
pub const SPREAD_MAX_ENTITY_DEGREE: i64 = 60;
/// Prefilter size for Hopfield retrieval.
pub const HOPFIELD_PREFILTER: usize = 64;
/// Inverse temperature of the Hopfield softmax. With unit vectors, β = 16 makes the update
/// concentrate on the few patterns within ~0.1 cosine of the best.
pub const HOPFIELD_BETA: f32 = 16.0;
/// Update steps (the spec: one or two).
pub const HOPFIELD_STEPS: usize = 2;
/// Newest memories considered for questions about the present.
pub const RECENCY_DEPTH: usize = 50;
/// Test-only: `SLM_TEST_CHANNEL_DELAY=bm25:500` sleeps in that producer;
/// `SLM_TEST_CHANNEL_FAIL=semantic` makes it fail.
pub const TEST_DELAY_ENV: &str = "SLM_TEST_CHANNEL_DELAY";
pub const TEST_FAIL_ENV: &str = "SLM_TEST_CHANNEL_FAIL";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    Semantic,
    Bm25,
    Temporal,
    Spreading,
    Hopfield,
}

impl Channel {
    pub const ALL: [Channel; 5] = [
        Channel::Semantic,
        Channel::Bm25,
        Channel::Temporal,
        Channel::Spreading,
        Channel::Hopfield,
    ];
    pub fn name(&self) -> &'static str {
        match self {
            Channel::Semantic => "semantic",
            Channel::Bm25 => "bm25",
            Channel::Temporal => "temporal",
            Channel::Spreading => "spreading",
            Channel::Hopfield => "hopfield",
        }
    }
}

/// One producer's ranked list: (memory id, channel score), best first.
#[derive(Debug, Clone, Default)]
pub struct Hits(pub Vec<(i64, f64)>);

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "status", content = "detail")]
pub enum ChannelStatus {
    Ok,
    /// Nothing to do for this query (e.g. no time reference for the temporal producer).
    Idle,
    Unavailable(String),
    Failed(String),
    TimedOut,
}

/// What a person reads about a channel (notes and `--explain`): a sentence, not debug text.
impl std::fmt::Display for ChannelStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChannelStatus::Ok => f.write_str("ran"),
            ChannelStatus::Idle => f.write_str("had nothing to do for this question"),
            ChannelStatus::Unavailable(why) => write!(f, "did not run: {why}"),
            ChannelStatus::Failed(why) => write!(f, "failed: {why}"),
            ChannelStatus::TimedOut => f.write_str("ran out of time"),
        }
    }
}

#[derive(Debug, Default)]
pub struct ChannelOutput {
    pub hits: HashMap<Channel, Hits>,
    pub status: HashMap<Channel, ChannelStatus>,
    pub timing_ms: HashMap<Channel, f64>,
    /// The query embedding, when one was made.
    pub query_vec: Option<Vec<f32>>,
}

/// Why a producer gave no hits: it could not run (its index or the query embedding is not
/// there; reported `unavailable`), or it ran and failed (reported `failed`).
#[derive(Debug, thiserror::Error)]
enum ProducerError {
    #[error("{0}")]
    Unavailable(String),
    #[error(transparent)]
    Failed(#[from] Error),
}

/// What a producer returns: its hits, `None` when it had nothing to do, or why not.
type Produced = std::result::Result<Option<Hits>, ProducerError>;

fn unavailable(why: impl std::fmt::Display) -> ProducerError {
    ProducerError::Unavailable(why.to_string())
}

fn test_hooks(c: Channel) -> Result<()> {
    if let Ok(v) = std::env::var(TEST_DELAY_ENV) {
        for part in v.split(',') {
            if let Some((name, ms)) = part.split_once(':') {
                if name == c.name() {
                    std::thread::sleep(Duration::from_millis(ms.parse().unwrap_or(0)));
                }
            }
        }
    }
    if std::env::var(TEST_FAIL_ENV).is_ok_and(|v| v.split(',').any(|n| n == c.name())) {
        return Err(Error::Other(format!(
            "{} failed on purpose (test hook)",
            c.name()
        )));
    }
    Ok(())
}

/// Run the first-wave producers in parallel, then spreading activation from their seeds.
pub fn run(
    engine: &Engine,
    q: &Classified,
    query: &str,
    filters: &Filters,
    now_ms: i64,
    cosine_floor: f32,
    keyword_only: bool,
) -> ChannelOutput {
    let mut out = ChannelOutput::default();
    let deadline = Instant::now() + PRODUCER_TIMEOUT;
    if keyword_only {
        return keyword_producers(engine, q, filters, now_ms, out);
    }
    // Embed once, before the vector producers split.
    let qvec: Option<std::result::Result<Vec<f32>, String>> = engine
        .embed_query(query)
        .map(|r| r.map_err(|e| e.to_string()));
    let (tx, rx) = crossbeam_channel::unbounded::<(Channel, Produced, f64)>();
    std::thread::scope(|s| {
        for c in [
            Channel::Semantic,
            Channel::Bm25,
            Channel::Temporal,
            Channel::Hopfield,
        ] {
            let tx = tx.clone();
            let qvec = &qvec;
            s.spawn(move || {
                let t = Instant::now();
                let r = test_hooks(c)
                    .map_err(ProducerError::from)
                    .and_then(|_| match c {
                        Channel::Semantic => semantic(engine, qvec, filters),
                        Channel::Bm25 => bm25(engine, q, filters),
                        Channel::Temporal => temporal(engine, q, filters, now_ms),
                        Channel::Hopfield => hopfield(engine, qvec, filters),
                        Channel::Spreading => Ok(None),
                    });
                let _ = tx.send((c, r, t.elapsed().as_secs_f64() * 1000.0));
            });
        }
        drop(tx);
        while let Ok((c, r, ms)) = rx.recv_deadline(deadline) {
            collect(&mut out, c, r, ms);
        }
        // Anything not heard from by the deadline is out of this recall.
        for c in [
            Channel::Semantic,
            Channel::Bm25,
            Channel::Temporal,
            Channel::Hopfield,
        ] {
            out.status.entry(c).or_insert(ChannelStatus::TimedOut);
        }
    });
    // The scope joined late producers; their answers arrived after the deadline and were dropped.
    let t = Instant::now();
    let r = test_hooks(Channel::Spreading)
        .map_err(ProducerError::from)
        .and_then(|_| spreading(engine, &out, filters, cosine_floor));
    collect(
        &mut out,
        Channel::Spreading,
        r,
        t.elapsed().as_secs_f64() * 1000.0,
    );
    if let Some(Ok(v)) = qvec {
        out.query_vec = Some(v);
    }
    out
}

/// Why the semantic channel did not run in a keyword-only answer, as a user reads it.
pub const KEYWORD_ONLY_REASON: &str =
    "the embedding model is not loaded in this process, so keyword search answered";

/// The keyword-only answer: BM25 and the temporal producer, in this thread, nothing that
/// needs the model. The other producers are reported as not run.
fn keyword_producers(
    engine: &Engine,
    q: &Classified,
    filters: &Filters,
    now_ms: i64,
    mut out: ChannelOutput,
) -> ChannelOutput {
    for c in [Channel::Bm25, Channel::Temporal] {
        let t = Instant::now();
        let r = test_hooks(c)
            .map_err(ProducerError::from)
            .and_then(|_| match c {
                Channel::Bm25 => bm25(engine, q, filters),
                _ => temporal(engine, q, filters, now_ms),
            });
        collect(&mut out, c, r, t.elapsed().as_secs_f64() * 1000.0);
    }
    for c in [Channel::Semantic, Channel::Hopfield, Channel::Spreading] {
        out.status
            .insert(c, ChannelStatus::Unavailable(KEYWORD_ONLY_REASON.into()));
    }
    out
}

fn collect(out: &mut ChannelOutput, c: Channel, r: Produced, ms: f64) {
    out.timing_ms.insert(c, ms);
    match r {
        Ok(Some(h)) => {
            out.hits.insert(c, h);
            out.status.insert(c, ChannelStatus::Ok);
        }
        Ok(None) => {
            out.status.insert(c, ChannelStatus::Idle);
        }
        Err(ProducerError::Unavailable(why)) => {
            out.status.insert(c, ChannelStatus::Unavailable(why));
        }
        Err(ProducerError::Failed(e)) => {
            out.status.insert(c, ChannelStatus::Failed(e.to_string()));
        }
    }
}

fn admitted(engine: &Engine, filters: &Filters, hits: Vec<(i64, f64)>) -> Result<Vec<(i64, f64)>> {
    engine.with_meta(|meta| {
        hits.into_iter()
            .filter(|(id, _)| meta.get(id).is_some_and(|m| filters.admits(m)))
            .collect()
    })
}

fn query_vec<'a>(
    qvec: &'a Option<std::result::Result<Vec<f32>, String>>,
) -> std::result::Result<&'a Vec<f32>, ProducerError> {
    match qvec {
        None => Err(unavailable("no embedding model loaded")),
        Some(Err(e)) => Err(Error::Model(format!("embedding the query failed: {e}")).into()),
        Some(Ok(v)) => Ok(v),
    }
}

fn semantic(
    engine: &Engine,
    qvec: &Option<std::result::Result<Vec<f32>, String>>,
    filters: &Filters,
) -> Produced {
    let v = query_vec(qvec)?;
    let health = engine.vector_health();
    if !health.usable() {
        return Err(unavailable(format!("{health:?}")));
    }
    let hits = engine.with_meta(|meta| {
        engine.with_vectors(|vx| match vx {
            None => Err(unavailable("vector index not loaded")),
            Some(vx) => vx
                .search(v, CHANNEL_DEPTH, |id| {
                    meta.get(&id).is_some_and(|m| filters.admits(m))
                })
                .map_err(ProducerError::from),
        })
    })???;
    Ok(Some(Hits(
        hits.into_iter().map(|(id, c)| (id, c as f64)).collect(),
    )))
}

/// Words the keyword producer searches for: content words, or all words when the query
/// is nothing but stop words (so "the a an of" still searches and finds nothing real).
pub fn keyword_terms(q: &Classified) -> Vec<String> {
    if q.content_words.is_empty() {
        q.words.clone()
    } else {
        q.content_words.clone()
    }
}

fn bm25(engine: &Engine, q: &Classified, filters: &Filters) -> Produced {
    let health = engine.bm25_health();
    if !health.usable() {
        // Reported as failed, with this text, as it always has been (not `unavailable`).
        return Err(Error::Bm25(format!("unavailable: {health:?}")).into());
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

/// Below this closeness to a named time a memory is not a temporal hit (the proximity
/// halves every interval length outside it, so 0.05 is about 4.3 lengths away). Chosen,
/// not measured.
pub const TEMPORAL_MIN_PROXIMITY: f64 = 0.05;

/// The newest admitted memories up to `now_ms` ("what am I working on").
fn newest(meta: &MetaMap, filters: &Filters, now_ms: i64) -> Vec<(i64, i64)> {
    meta.newest_in(i64::MIN, now_ms.saturating_add(1))
        .filter(|m| {
            filters.admits(m)
                && m.kind != Kind::Prompt
                && m.source != crate::memory::Source::CapturedPrompt
        })
        .take(RECENCY_DEPTH)
        .map(|m| (m.id, m.event_at))
        .collect()
}

/// The [`CHANNEL_DEPTH`] admitted memories closest to one interval, read from the time
/// index: inside it newest first (all at proximity 1), then outward from both ends, the
/// closer side first, until the proximity falls below [`TEMPORAL_MIN_PROXIMITY`]. What it
/// reads is bounded by the depth plus the memories the filters turn away, not by the store.
fn closest_to(
    meta: &MetaMap,
    filters: &Filters,
    interval: &timeparse::Interval,
    into: &mut HashMap<i64, (f64, i64)>,
) {
    let (s, e) = interval_ms(interval);
    let mut keep = |m: &crate::store::MetaRow, p: f64| {
        let slot = into.entry(m.id).or_insert((0.0, m.event_at));
        slot.0 = slot.0.max(p);
    };
    let mut taken = 0;
    for m in meta.newest_in(s, e).filter(|m| filters.admits(m)) {
        keep(m, 1.0);
        taken += 1;
        if taken >= CHANNEL_DEPTH {
            return;
        }
    }
    let p_of = |m: &crate::store::MetaRow| {
        timeparse::proximity(crate::clock::from_ms(m.event_at), interval)
    };
    let mut before = meta
        .newest_in(i64::MIN, s)
        .filter(|m| filters.admits(m))
        .peekable();
    let mut after = meta.oldest_from(e).filter(|m| filters.admits(m)).peekable();
    while taken < CHANNEL_DEPTH {
        let pb = before.peek().map(|m| p_of(m)).unwrap_or(0.0);
        let pa = after.peek().map(|m| p_of(m)).unwrap_or(0.0);
        if pb.max(pa) <= TEMPORAL_MIN_PROXIMITY {
            return;
        }
        let m = if pb >= pa {
            before.next()
        } else {
            after.next()
        };
        if let Some(m) = m {
            keep(m, pb.max(pa));
            taken += 1;
        }
    }
}

fn temporal(engine: &Engine, q: &Classified, filters: &Filters, now_ms: i64) -> Produced {
    if q.present_tense {
        // Newest first; captured prompts and bookkeeping are not what "I am working on" means.
        let rows = engine.with_meta(|meta| newest(meta, filters, now_ms))?;
        let n = rows.len().max(1) as f64;
        return Ok(Some(Hits(
            rows.iter()
                .enumerate()
                .map(|(i, (id, _))| (*id, 1.0 - i as f64 / n))
                .collect(),
        )));
    }
    if q.time.refs.is_empty() {
        return Ok(None);
    }
    let best = engine.with_meta(|meta| {
        let mut best = HashMap::new();
        for r in &q.time.refs {
            closest_to(meta, filters, &r.interval, &mut best);
        }
        best
    })?;
    let mut rows: Vec<(i64, f64, i64)> =
        best.into_iter().map(|(id, (p, at))| (id, p, at)).collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.2.cmp(&a.2)).then(b.0.cmp(&a.0)));
    rows.truncate(CHANNEL_DEPTH);
    Ok(Some(Hits(
        rows.into_iter().map(|(id, p, _)| (id, p)).collect(),
    )))
}

fn hopfield(
    engine: &Engine,
    qvec: &Option<std::result::Result<Vec<f32>, String>>,
    filters: &Filters,
) -> Produced {
    let q = query_vec(qvec)?;
    let patterns: Vec<(i64, Vec<f32>)> = engine.with_meta(|meta| {
        engine.with_vectors(
            |vx| -> std::result::Result<Vec<(i64, Vec<f32>)>, ProducerError> {
                let vx = vx.ok_or_else(|| unavailable("vector index not loaded"))?;
                let near = vx.search(q, HOPFIELD_PREFILTER, |id| {
                    meta.get(&id).is_some_and(|m| filters.admits(m))
                })?;
                Ok(near
                    .into_iter()
                    .filter_map(|(id, _)| vx.get(id).map(|v| (id, v)))
                    .collect())
            },
        )
    })???;
    if patterns.is_empty() {
        return Ok(Some(Hits::default()));
    }
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

fn spreading(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{Scope, Source};
    use crate::store::MetaRow;

    fn row(id: i64, at: i64) -> MetaRow {
        MetaRow {
            id,
            profile: crate::DEFAULT_PROFILE.into(),
            scope: Scope::Personal,
            kind: Kind::Note,
            source: Source::User,
            session_id: None,
            created_at: at,
            event_at: at,
            valid_from: None,
            valid_until: None,
            known_at: at,
            pinned: false,
            bookkeeping: id % 7 == 0, // some rows the filters turn away
            superseded: false,
            baseline_sim: None,
        }
    }

    /// The time index gives exactly what scanning every memory gave.
    #[test]
    fn the_time_index_finds_what_a_full_scan_finds() {
        let mut seed: u64 = 42;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        let day = 86_400_000i64;
        let mut meta = MetaMap::default();
        for id in 1..=3000 {
            meta.insert(id, row(id, (next() as i64 % (400 * day)) + 1));
        }
        let filters = Filters {
            profile: crate::DEFAULT_PROFILE.into(),
            ..Default::default()
        };
        for _ in 0..40 {
            let start = next() as i64 % (420 * day) - 10 * day;
            let len = [day / 24, day, 7 * day, 30 * day][next() as usize % 4];
            let iv = timeparse::Interval {
                start: crate::clock::from_ms(start),
                end: crate::clock::from_ms(start + len),
            };
            let mut best = HashMap::new();
            closest_to(&meta, &filters, &iv, &mut best);
            let mut got: Vec<(i64, f64, i64)> =
                best.into_iter().map(|(id, (p, at))| (id, p, at)).collect();
            let mut want: Vec<(i64, f64, i64)> = meta
                .values()
                .filter(|m| filters.admits(m))
                .map(|m| {
                    let p = timeparse::proximity(crate::clock::from_ms(m.event_at), &iv);
                    (m.id, p, m.event_at)
                })
                .filter(|r| r.1 > TEMPORAL_MIN_PROXIMITY)
                .collect();
            for v in [&mut got, &mut want] {
                v.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.2.cmp(&a.2)).then(b.0.cmp(&a.0)));
                v.truncate(CHANNEL_DEPTH);
            }
            assert_eq!(got, want, "interval {iv:?}");
        }
    }
}
