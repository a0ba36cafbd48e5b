//! `slm bench`: speed, printed as figures (never asserted).
//!
//! * `bench ingest` imports N memories built from LoCoMo turns into a fresh temporary store:
//!   memories/s with embeddings, time until every memory is findable by meaning, the latency
//!   from `remember` to keyword-findable, store size and peak RSS.
//! * `bench recall` builds (or reuses, keyed by a hash of its inputs) a synthetic store of N
//!   memories and runs Q questions through the warm in-process engine at each concurrency:
//!   p50/p90/p99 end to end and per stage, RSS and store size.
//!
//! * `bench worker` runs the same questions through the `slm` binary against the warm
//!   worker (see `bench/worker.rs`).
//! * `bench export` times export, backup and import on the bench store (`bench/transfer.rs`).
//! * `bench hooks` times `slm hook capture` with the worker idle and while it imports
//!   (`bench/hooks.rs`).
//!
//! The synthetic store: LoCoMo dev turns repeated as often as needed. Repetition r renames the
//! speakers (a fixed list of names), shifts dates by r × 97 days, gets its own session ids, and
//! every fifth repetition goes to another profile, so names, dates, sessions and profiles vary
//! the way a long-lived store's do.

use crate::engine::{Engine, ModelMode, OpenOptions};
use crate::eval::locomo;
use crate::memory::NewMemory;
use crate::output::Style;
use crate::paths::Paths;
use crate::{Error, Result};
use args::{BenchCommand, BenchIngestArgs, BenchRecallArgs};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

pub mod args;
mod dashboard;
mod hooks;
mod picture_store;
mod pictures;
mod transfer;
mod worker;

const NAMES: &[&str] = &[
    "Avery", "Blake", "Casey", "Devon", "Emery", "Finley", "Harper", "Jordan", "Kai", "Logan",
    "Morgan", "Quinn", "Riley", "Sage",
];

pub fn run(c: BenchCommand, style: Style) -> Result<i32> {
    match c {
        BenchCommand::Ingest(a) => ingest(a, style),
        BenchCommand::Recall(a) => recall(a, style),
        BenchCommand::Vectors(a) => vectors(a, style),
        BenchCommand::Worker(a) => worker::run(a, style),
        BenchCommand::Export(a) => transfer::run(a, style),
        BenchCommand::Hooks(a) => hooks::run(a, style),
        BenchCommand::Dashboard(a) => dashboard::run(a, style),
        BenchCommand::Pictures(a) => pictures::run(a, style),
    }
}

/// N memories from the LoCoMo turns, varied per repetition (see module doc).
pub fn synthetic(data: &Path, n: usize) -> Result<Vec<NewMemory>> {
    let mut q = locomo::Quirks::default();
    let convs = locomo::load(data, &[], &mut q)?;
    let turns: Vec<(&str, &locomo::Turn)> = convs
        .iter()
        .flat_map(|c| c.turns.iter().map(move |t| (c.sample_id.as_str(), t)))
        .collect();
    if turns.is_empty() {
        return Err(Error::Input(format!("{}: no turns", data.display())));
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let r = i / turns.len();
        let (conv, t) = turns[i % turns.len()];
        let speaker = if r == 0 {
            t.speaker.clone()
        } else {
            NAMES[(r + t.speaker.len()) % NAMES.len()].to_string()
        };
        out.push(NewMemory {
            text: format!("{speaker}: {}", t.text),
            kind: Some(crate::memory::Kind::Event),
            source: Some(crate::memory::Source::Import),
            profile: Some(if r % 5 == 4 {
                format!("bench-{r}")
            } else {
                crate::DEFAULT_PROFILE.into()
            }),
            session_id: Some(format!("r{r}:{conv}:s{}", t.session)),
            speaker: Some(speaker),
            event_at: Some(t.at + r as i64 * 97 * 86_400_000),
            idempotency_key: Some(format!("bench:{i}")),
            ..Default::default()
        });
    }
    Ok(out)
}

/// A `/proc/<pid>/status` field in MB (VmHWM: peak RSS, VmRSS: current).
pub(crate) fn status_mb_of(pid: &str, field: &str) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

fn status_mb(field: &str) -> f64 {
    status_mb_of("self", field)
}

fn peak_rss_mb() -> f64 {
    status_mb("VmHWM:")
}

fn rss_mb() -> f64 {
    status_mb("VmRSS:")
}

fn dir_size_mb(p: &Path) -> f64 {
    fn walk(p: &Path) -> u64 {
        std::fs::read_dir(p)
            .map(|rd| {
                rd.flatten()
                    .map(|e| {
                        if e.path().is_dir() {
                            walk(&e.path())
                        } else {
                            e.metadata().map(|m| m.len()).unwrap_or(0)
                        }
                    })
                    .sum()
            })
            .unwrap_or(0)
    }
    walk(p) as f64 / 1_048_576.0
}

/// Run `job(0..n)` on `concurrency` threads, each taking the next index until none is left.
pub(crate) fn each_concurrently(n: usize, concurrency: usize, job: impl Fn(usize) + Sync) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..concurrency.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    if i >= n {
                        break;
                    }
                    job(i);
                }
            });
        }
    });
}

pub(crate) fn pct(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[(((v.len() - 1) as f64) * p).round() as usize]
}

fn ingest(a: BenchIngestArgs, style: Style) -> Result<i32> {
    let items = synthetic(&a.data, a.memories)?;
    let dir = crate::eval::tempdir("slm-bench-ingest")?;
    let paths = Paths::at(dir.path(), &Paths::from_env().cache);
    let engine = Engine::open(paths, OpenOptions::model(ModelMode::Load))?;
    if engine.embedder().is_none() {
        return Err(Error::Model(
            "bench ingest measures embedding throughput and needs the model".into(),
        ));
    }
    let pb = crate::progress::bar(items.len() as u64, "ingesting");
    let t = Instant::now();
    let mut keyword_ready_s = 0.0;
    for chunk in items.chunks(256) {
        engine.remember_batch(chunk.to_vec(), &mut |_| {})?;
        keyword_ready_s = t.elapsed().as_secs_f64();
        pb.inc(chunk.len() as u64);
    }
    let embedded_s = t.elapsed().as_secs_f64();
    pb.finish_and_clear();
    let pending = engine.pending_embeddings()?;
    // The passages, which a worker embeds in the background once the memories are in.
    let pb = crate::progress::bar(engine.pending_passages()?.max(0) as u64, "passages");
    let tp = Instant::now();
    engine.passage_backlog(usize::MAX, Some(&pb))?;
    let passages_s = tp.elapsed().as_secs_f64();
    pb.finish_and_clear();
    // remember → keyword-findable, one memory at a time (the SQLite commit is the acknowledgement).
    let vis = crate::index::bm25::Visibility {
        profile: crate::DEFAULT_PROFILE.into(),
        shared: false,
        global: false,
    };
    let mut ack_to_findable = Vec::new();
    let mut remember_ms = Vec::new();
    for i in 0..20 {
        let code = format!("zqx{i}bench");
        let t0 = Instant::now();
        let r = engine.remember(NewMemory {
            text: format!("probe {code} for keyword latency"),
            ..Default::default()
        })?;
        remember_ms.push(t0.elapsed().as_secs_f64() * 1000.0);
        // From the SQLite commit (the acknowledgement) to the BM25 commit that makes it visible.
        ack_to_findable.push(r.keyword_ms);
        let hits = engine.bm25_search(&[code], &vis, 1)?;
        if hits.first().map(|h| h.0) != Some(r.id) {
            return Err(Error::Other(format!(
                "memory {} was not keyword-findable after its acknowledgement",
                r.id
            )));
        }
    }
    let body = json!({
        "memories": items.len(),
        "memories_per_s_with_embeddings": items.len() as f64 / embedded_s,
        "seconds_until_all_findable_by_meaning": embedded_s,
        "seconds_until_all_findable_by_keyword": keyword_ready_s,
        "passages_s": passages_s,
        "memories_per_s_with_passages": items.len() as f64 / (embedded_s + passages_s),
        "pending_embeddings_after": pending,
        "remember_ms_p50": pct(&mut remember_ms.clone(), 0.5),
        "ack_to_keyword_findable_ms_p50": pct(&mut ack_to_findable.clone(), 0.5),
        "ack_to_keyword_findable_ms_max": ack_to_findable.iter().cloned().fold(0.0, f64::max),
        "store_mb": dir_size_mb(dir.path()),
        "peak_rss_mb": peak_rss_mb(),
        "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    });
    crate::output::emit(style, "bench", body.clone(), || {
        format!(
            "ingest {} memories: {:.0} memories/s with embeddings; all findable by meaning after {:.1} s\n\
             their passages (in the background in a worker) {:.1} s more: {:.0} memories/s with both\n\
             remember p50 {:.1} ms (inline embedding in this warm process); acknowledged → keyword-findable p50 {:.2} ms, max {:.2} ms\n\
             store {:.1} MB, peak RSS {:.0} MB, {} cores",
            items.len(),
            body["memories_per_s_with_embeddings"]
                .as_f64()
                .unwrap_or(0.0),
            embedded_s,
            passages_s,
            body["memories_per_s_with_passages"].as_f64().unwrap_or(0.0),
            body["remember_ms_p50"].as_f64().unwrap_or(0.0),
            body["ack_to_keyword_findable_ms_p50"]
                .as_f64()
                .unwrap_or(0.0),
            body["ack_to_keyword_findable_ms_max"]
                .as_f64()
                .unwrap_or(0.0),
            body["store_mb"].as_f64().unwrap_or(0.0),
            body["peak_rss_mb"].as_f64().unwrap_or(0.0),
            body["cores"]
        )
    })?;
    Ok(0)
}

/// A reusable bench store, keyed by (data file size, N, format) under the cache dir.
pub(crate) fn bench_store(
    data: &Path,
    n: usize,
    pictures: usize,
) -> Result<(Engine, std::path::PathBuf)> {
    if pictures > 0 {
        return picture_store::pictured_store(data, n, pictures);
    }
    let len = std::fs::metadata(data).map(|m| m.len()).unwrap_or(0);
    let base = Paths::from_env();
    // The store's vectors are the model's: one cached store per model directory.
    let settings = crate::settings::Settings::load(&base.settings()).unwrap_or_default();
    let (model_dir, _) = crate::embed::onnx::locate(&base, &settings);
    let model = model_dir
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The stand-in embedder's vectors are not the model's: its stores are kept apart.
    let model = match std::env::var(crate::embed::EMBEDDER_ENV) {
        Ok(e) if !e.is_empty() => format!("{e}-embedder"),
        _ => model,
    };
    let key = format!("n{n}-d{len}-v1-{model}");
    let dir = base.cache.join("bench").join(key);
    let done = dir.join("COMPLETE");
    let paths = Paths::at(&dir, &base.cache);
    // A cached store is re-used only when it opens and holds what it should; one left by
    // another build (an older or newer schema, a half-written copy) is built again.
    let reusable = done.exists()
        && Engine::open(paths.clone(), OpenOptions::model(ModelMode::Load))
            .and_then(|e| e.count())
            .map(|c| c > 0)
            .unwrap_or(false);
    if !reusable {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io("creating the bench store", e))?;
        let engine = Engine::open(paths.clone(), OpenOptions::model(ModelMode::Load))?;
        let items = synthetic(data, n)?;
        let pb = crate::progress::bar(items.len() as u64, "building");
        // Import throughput as the store fills: memories/s over each tenth of the build.
        let tenth = (items.len() / 10).max(256);
        let (start, mut mark, mut done_n, mut prev_n, mut segments) =
            (Instant::now(), Instant::now(), 0, 0, Vec::new());
        for chunk in items.chunks(256) {
            engine.remember_batch(chunk.to_vec(), &mut |_| {})?;
            pb.inc(chunk.len() as u64);
            done_n += chunk.len();
            if done_n % tenth < chunk.len() || done_n == items.len() {
                let s = mark.elapsed().as_secs_f64();
                segments.push(json!({ "stored_before": prev_n, "stored_after": done_n,
                    "memories_per_s": (done_n - prev_n) as f64 / s.max(1e-9) }));
                (mark, prev_n) = (Instant::now(), done_n);
            }
        }
        let import_s = start.elapsed().as_secs_f64();
        engine.refresh_baselines(usize::MAX)?;
        pb.finish_and_clear();
        drop(engine);
        let record = json!({ "memories": items.len(), "import_s": import_s,
            "with_baselines_s": start.elapsed().as_secs_f64(), "segments": segments });
        let _ = std::fs::write(dir.join("build.json"), record.to_string());
        std::fs::write(&done, b"ok").map_err(|e| Error::io("marking the bench store", e))?;
    }
    let engine = Engine::open(paths, OpenOptions::model(ModelMode::Load))?;
    // Passages, as a worker leaves them: all embedded (a store built before passages gets
    // them here, once).
    let pending = engine.pending_passages()?.max(0) as u64;
    if pending > 0 {
        let pb = crate::progress::bar(pending, "passages");
        engine.passage_backlog(usize::MAX, Some(&pb))?;
        pb.finish_and_clear();
    }
    Ok((engine, dir))
}

fn recall(a: BenchRecallArgs, style: Style) -> Result<i32> {
    let (engine, dir) = bench_store(&a.data, a.memories, a.pictures)?;
    let mut q = locomo::Quirks::default();
    let questions: Vec<String> = locomo::load(&a.data, &[], &mut q)?
        .into_iter()
        .flat_map(|c| c.questions.into_iter().map(|q| q.question))
        .filter(|s| !s.trim().is_empty())
        .take(a.questions)
        .collect();
    let now_ms = crate::Clock::from_env()?.now_ms();
    // Warm-up: the first recall pays one-time costs (caches, pages), not measured.
    for qs in questions.iter().take(5) {
        crate::recall::run(&engine, &crate::eval::request(qs, now_ms, 10, false))?;
    }
    let mut rows = Vec::new();
    let mut human = format!(
        "recall bench: {} memories, {} questions, warm in-process engine\n",
        engine.count()?,
        questions.len()
    );
    for &c in &a.concurrency {
        let c = c.max(1);
        let timings = std::sync::Mutex::new(Vec::new());
        let wall = Instant::now();
        each_concurrently(questions.len(), c, |i| {
            let t = Instant::now();
            if let Ok(r) = crate::recall::run(
                &engine,
                &crate::eval::request(&questions[i], now_ms, 10, false),
            ) {
                let mut tm = r.timing_ms.clone();
                tm.insert("end_to_end".into(), t.elapsed().as_secs_f64() * 1000.0);
                timings.lock().expect("lock").push(tm);
            }
        });
        let wall_s = wall.elapsed().as_secs_f64();
        let timings = timings.into_inner().expect("lock");
        let keys: std::collections::BTreeSet<String> =
            timings.iter().flat_map(|t| t.keys().cloned()).collect();
        let mut stages = serde_json::Map::new();
        for k in &keys {
            let mut v: Vec<f64> = timings.iter().filter_map(|t| t.get(k).copied()).collect();
            stages.insert(
                k.clone(),
                json!({"p50": pct(&mut v, 0.5), "p90": pct(&mut v, 0.9), "p99": pct(&mut v, 0.99)}),
            );
        }
        let e2e = stages.get("end_to_end").cloned().unwrap_or_default();
        human.push_str(&format!(
            "concurrency {c}: end to end p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms; {:.1} recalls/s\n",
            e2e["p50"].as_f64().unwrap_or(0.0),
            e2e["p90"].as_f64().unwrap_or(0.0),
            e2e["p99"].as_f64().unwrap_or(0.0),
            timings.len() as f64 / wall_s
        ));
        for k in &keys {
            if k != "end_to_end" {
                let s = &stages[k];
                human.push_str(&format!(
                    "    {k:<20} p50 {:>7.2}  p90 {:>7.2}  p99 {:>7.2}\n",
                    s["p50"].as_f64().unwrap_or(0.0),
                    s["p90"].as_f64().unwrap_or(0.0),
                    s["p99"].as_f64().unwrap_or(0.0)
                ));
            }
        }
        rows.push(json!({"concurrency": c, "recalls": timings.len(), "recalls_per_s": timings.len() as f64 / wall_s, "stages_ms": stages}));
    }
    let build: serde_json::Value = std::fs::read_to_string(dir.join("build.json"))
        .ok()
        .and_then(|b| serde_json::from_str(&b).ok())
        .unwrap_or(serde_json::Value::Null);
    if let Some(segs) = build["segments"].as_array() {
        human.push_str(&format!(
            "store built in {:.0} s (import {:.0} s); import memories/s by how full the store was: {}\n",
            build["with_baselines_s"].as_f64().unwrap_or(0.0),
            build["import_s"].as_f64().unwrap_or(0.0),
            segs.iter()
                .map(|g| format!(
                    "{}k→{}k {:.0}",
                    g["stored_before"].as_u64().unwrap_or(0) / 1000,
                    g["stored_after"].as_u64().unwrap_or(0) / 1000,
                    g["memories_per_s"].as_f64().unwrap_or(0.0)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let paths = Paths::at(&dir, &Paths::from_env().cache);
    let n = engine.count()?.max(1) as f64;
    let file_mb = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
    let parts = json!({
        "store_mb": file_mb(&paths.store()) + file_mb(&paths.store().with_extension("db-wal")),
        "bm25_mb": dir_size_mb(&paths.bm25_dir()),
        "vectors_mb": file_mb(&paths.vectors()),
    });
    human.push_str(&format!(
        "on disk per memory: store {:.0} B, BM25 {:.0} B, vectors {:.0} B\n",
        parts["store_mb"].as_f64().unwrap_or(0.0) * 1e6 / n,
        parts["bm25_mb"].as_f64().unwrap_or(0.0) * 1e6 / n,
        parts["vectors_mb"].as_f64().unwrap_or(0.0) * 1e6 / n,
    ));
    let body = json!({
        "memories": engine.count()?,
        "questions": questions.len(),
        "build": build,
        "disk_mb": parts,
        "runs": rows,
        "rss_mb": rss_mb(),
        "peak_rss_mb": peak_rss_mb(),
        "store_mb": dir_size_mb(&dir),
        "store_dir": dir.display().to_string(),
    });
    human.push_str(&format!(
        "RSS {:.0} MB (peak {:.0} MB), store {:.1} MB",
        rss_mb(),
        peak_rss_mb(),
        dir_size_mb(&dir)
    ));
    crate::output::emit(style, "bench", body, || human)?;
    Ok(0)
}

/// How much does quantisation cost? Build f32, f16 and i8 HNSW indexes over the bench
/// store's real embeddings and compare each one's top 10 with exact search.
fn vectors(a: BenchRecallArgs, style: Style) -> Result<i32> {
    use usearch::{Index, IndexOptions, MetricKind, ScalarKind};
    let (engine, _dir) = bench_store(&a.data, a.memories, a.pictures)?;
    let model = engine
        .embedder()
        .ok_or_else(|| Error::Model("bench vectors needs the model".into()))?
        .id()
        .to_string();
    let mut all: Vec<(i64, Vec<f32>)> = Vec::new();
    engine.reader()?.embeddings(&model, |id, v| {
        all.push((id, v));
        Ok(())
    })?;
    let mut q = locomo::Quirks::default();
    let questions: Vec<String> = locomo::load(&a.data, &[], &mut q)?
        .into_iter()
        .flat_map(|c| c.questions.into_iter().map(|q| q.question))
        .take(a.questions)
        .collect();
    let qvecs: Vec<Vec<f32>> = questions
        .iter()
        .filter_map(|q| engine.embed_query(q).and_then(|r| r.ok()))
        .collect();
    let k = 10;
    let exact: Vec<Vec<i64>> = qvecs
        .iter()
        .map(|qv| {
            let mut s: Vec<(i64, f32)> = all
                .iter()
                .map(|(id, v)| (*id, crate::embed::cosine(qv, v)))
                .collect();
            s.sort_by(|x, y| y.1.total_cmp(&x.1));
            s.into_iter().take(k).map(|(id, _)| id).collect()
        })
        .collect();
    let depth = crate::recall::channels::CHANNEL_DEPTH;
    let mut rows = Vec::new();
    let mut human = format!(
        "vector precision on {} real embeddings, {} questions, recall@{k} against exact f32; query time as the semantic producer runs it (the channel's {depth} candidates, and for +exact their stored vectors read from the store)\n",
        all.len(),
        qvecs.len()
    );
    // Plain indexes (their own cosines), then what recall does: a compact int8 index of the
    // first d dimensions finds the channel's candidates, the stored vectors rank them.
    let full = all.first().map(|x| x.1.len()).unwrap_or(384);
    let mut layouts: Vec<(String, ScalarKind, usize, bool)> = vec![
        ("f32".into(), ScalarKind::F32, full, false),
        ("f16".into(), ScalarKind::F16, full, false),
        ("i8".into(), ScalarKind::I8, full, false),
    ];
    for d in [full, 512, 256, 128] {
        if d <= full {
            layouts.push((format!("i8-{d}+exact"), ScalarKind::I8, d, true));
        }
    }
    layouts.dedup_by(|a, b| a.0 == b.0);
    for (name, kind, dims, rescore) in layouts {
        let opts = IndexOptions {
            dimensions: dims,
            metric: MetricKind::Cos,
            quantization: kind,
            connectivity: 0,
            expansion_add: 0,
            expansion_search: crate::index::vector::EXPANSION_SEARCH,
            multi: false,
        };
        let ix = Index::new(&opts).map_err(|e| Error::Vector(e.to_string()))?;
        ix.reserve(all.len() + 1)
            .map_err(|e| Error::Vector(e.to_string()))?;
        let t = Instant::now();
        for (id, v) in &all {
            ix.add(*id as u64, &crate::embed::truncated(v, dims))
                .map_err(|e| Error::Vector(e.to_string()))?;
        }
        let build_s = t.elapsed().as_secs_f64();
        let mut hits = 0usize;
        let mut lat = Vec::new();
        for (qv, truth) in qvecs.iter().zip(&exact) {
            let t = Instant::now();
            let found: Vec<i64> = if rescore {
                let m = ix
                    .search(&crate::embed::truncated(qv, dims), depth)
                    .map_err(|e| Error::Vector(e.to_string()))?;
                // As the semantic producer does: the candidates' full vectors from the store.
                let ids: Vec<i64> = m.keys.iter().map(|k| *k as i64).collect();
                let stored = engine.stored_embeddings(&ids)?;
                let mut s: Vec<(i64, f32)> = ids
                    .iter()
                    .filter_map(|id| Some((*id, crate::embed::cosine(qv, stored.get(id)?))))
                    .collect();
                s.sort_by(|x, y| y.1.total_cmp(&x.1));
                s.into_iter().take(k).map(|(id, _)| id).collect()
            } else {
                // The channel's depth, as the semantic producer asks for (its own cosines).
                let m = ix
                    .search(&crate::embed::truncated(qv, dims), depth)
                    .map_err(|e| Error::Vector(e.to_string()))?;
                m.keys.iter().take(k).map(|k| *k as i64).collect()
            };
            lat.push(t.elapsed().as_secs_f64() * 1000.0);
            hits += found.iter().filter(|id| truth.contains(id)).count();
        }
        let recall = hits as f64 / (qvecs.len() * k).max(1) as f64;
        let mem_mb = ix.memory_usage() as f64 / 1_048_576.0;
        human.push_str(&format!("  {name:<12} recall@{k} {recall:.4}  memory {mem_mb:>6.1} MB  build {build_s:>5.1} s  query p50 {:.3} ms\n", pct(&mut lat.clone(), 0.5)));
        rows.push(json!({"quantization": name, "dimensions": dims, "rescored_from": if rescore { Some(depth) } else { None }, "recall_at_10": recall, "memory_mb": mem_mb, "build_s": build_s, "query_ms_p50": pct(&mut lat, 0.5)}));
    }
    crate::output::emit(
        style,
        "bench",
        json!({"embeddings": all.len(), "questions": qvecs.len(), "indexes": rows}),
        || human.trim_end().to_string(),
    )?;
    Ok(0)
}
