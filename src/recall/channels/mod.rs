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
//!   k-NN prefilter, so its cost stays bounded however large the store is;
//! * picture — only in a profile that holds pictures: what each picture shows against the
//!   question, by the user's image–text model (`pictures`).

//!
//! Here: running them and what they report; one file a producer kind (`vectors`: semantic
//! and hopfield; `keywords`: bm25; `temporal`; `spreading`; `pictures`).

mod keywords;
mod pictures;
mod spreading;
mod temporal;
mod vectors;

pub use keywords::keyword_terms;
pub use spreading::{SPREAD_DECAY, SPREAD_ITERATIONS, SPREAD_MAX_ENTITY_DEGREE, SPREAD_SEEDS};
pub use temporal::{RECENCY_DEPTH, TEMPORAL_MIN_PROXIMITY};
pub use vectors::{HOPFIELD_BETA, HOPFIELD_PREFILTER, HOPFIELD_STEPS};

use super::classify::Classified;
use super::filters::Filters;
use crate::engine::Engine;
use crate::{Error, Result};
use keywords::bm25;
use serde::Serialize;
use spreading::spreading;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use temporal::temporal;
use vectors::{hopfield, semantic};

/// Candidates each producer reports. Wider than any result list so the evidence floor
/// runs before the limit (a qualified candidate just below the cut is not pushed out).
pub const CHANNEL_DEPTH: usize = 100;
/// A producer that has not answered by then is reported `timed_out` and left out.
pub const PRODUCER_TIMEOUT: Duration = Duration::from_secs(3);
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
    /// What a picture shows (a bring-your-own image–text model). Not in [`Channel::ALL`]:
    /// it exists only when the profile holds pictures, and the ranking modes' features are
    /// the five text producers'.
    Picture,
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
            Channel::Picture => "picture",
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
    /// Its model is loading (the picture channel): this recall went on without it.
    Warming(String),
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
            ChannelStatus::Warming(why) => write!(f, "is warming up: {why}"),
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
    /// Milliseconds spent getting the query embedding (a cached one is near zero), when the
    /// model was there to ask.
    pub embed_ms: Option<f64>,
    /// The cosine of each memory the semantic producer scored by its own vector alone (its
    /// hits are the closest of that and its passages'): the support check reads these
    /// instead of the stored vectors again.
    pub own_cosines: HashMap<i64, f64>,
}

/// Why a producer gave no hits: it could not run (its index or the query embedding is not
/// there; reported `unavailable`), or it ran and failed (reported `failed`).
#[derive(Debug, thiserror::Error)]
pub(super) enum ProducerError {
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    Warming(String),
    #[error(transparent)]
    Failed(#[from] Error),
}

/// What a producer returns: its hits, `None` when it had nothing to do, or why not.
pub(super) type Produced = std::result::Result<Option<Hits>, ProducerError>;

pub(super) fn unavailable(why: impl std::fmt::Display) -> ProducerError {
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
        return keyword_producers(engine, q, query, filters, now_ms, out);
    }
    // The keyword producers start at once; the vector producers wait for the one query
    // embedding, made on this thread meanwhile.
    let qvec: std::sync::OnceLock<Option<std::result::Result<Vec<f32>, String>>> =
        std::sync::OnceLock::new();
    let own_cosines: std::sync::OnceLock<HashMap<i64, f64>> = std::sync::OnceLock::new();
    let own = &own_cosines;
    let (tx, rx) = crossbeam_channel::unbounded::<(Channel, Produced, f64)>();
    std::thread::scope(|s| {
        let produce = |c: Channel, qvec: &'_ Option<std::result::Result<Vec<f32>, String>>| {
            let t = Instant::now();
            let r = test_hooks(c)
                .map_err(ProducerError::from)
                .and_then(|_| match c {
                    Channel::Semantic => semantic(engine, qvec, filters, own),
                    Channel::Bm25 => bm25(engine, q, filters),
                    Channel::Temporal => temporal(engine, q, filters, now_ms),
                    Channel::Hopfield => hopfield(engine, qvec, filters),
                    Channel::Picture => pictures::pictures(engine, query, filters),
                    Channel::Spreading => Ok(None),
                });
            (c, r, t.elapsed().as_secs_f64() * 1000.0)
        };
        let with_pictures = pictures::submitted(engine, filters);
        for c in [Channel::Bm25, Channel::Temporal, Channel::Picture] {
            if c == Channel::Picture && !with_pictures {
                continue;
            }
            let tx = tx.clone();
            s.spawn(move || {
                let _ = tx.send(produce(c, &None));
            });
        }
        let t = Instant::now();
        let v = qvec.get_or_init(|| {
            engine
                .embed_query(query)
                .map(|r| r.map_err(|e| e.to_string()))
        });
        if v.is_some() {
            out.embed_ms = Some(t.elapsed().as_secs_f64() * 1000.0);
        }
        for c in [Channel::Semantic, Channel::Hopfield] {
            let tx = tx.clone();
            s.spawn(move || {
                let _ = tx.send(produce(c, v));
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
        if with_pictures {
            out.status
                .entry(Channel::Picture)
                .or_insert(ChannelStatus::TimedOut);
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
    if let Some(Some(Ok(v))) = qvec.into_inner() {
        out.query_vec = Some(v);
    }
    // Only with the producer's hits: a late producer's cosines are left out with them.
    if out.hits.contains_key(&Channel::Semantic) {
        out.own_cosines = own_cosines.into_inner().unwrap_or_default();
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
    query: &str,
    filters: &Filters,
    now_ms: i64,
    mut out: ChannelOutput,
) -> ChannelOutput {
    if pictures::submitted(engine, filters) {
        let t = Instant::now();
        let r = pictures::pictures(engine, query, filters);
        collect(
            &mut out,
            Channel::Picture,
            r,
            t.elapsed().as_secs_f64() * 1000.0,
        );
    }
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
        Err(ProducerError::Warming(why)) => {
            out.status.insert(c, ChannelStatus::Warming(why));
        }
        Err(ProducerError::Failed(e)) => {
            out.status.insert(c, ChannelStatus::Failed(e.to_string()));
        }
    }
}

pub(super) fn admitted(
    engine: &Engine,
    filters: &Filters,
    hits: Vec<(i64, f64)>,
) -> Result<Vec<(i64, f64)>> {
    engine.with_meta(|meta| {
        hits.into_iter()
            .filter(|(id, _)| meta.get(id).is_some_and(|m| filters.admits(m)))
            .collect()
    })
}
