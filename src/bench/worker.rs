//! `slm bench worker`: questions through the real `slm` binary against the warm worker.
//!
//! Every figure is end to end as a caller sees it: process start, argument parsing, the
//! socket round trip, the full recall pipeline in the worker, JSON out. Baselines in the same
//! run: `slm --version` (the floor a process start costs on this machine) and the cold path
//! (`--no-worker`: in-process, keyword-only, what a caller gets while the worker starts).
//! Each concurrency level asks its own slice of the questions, so no answer is reused from
//! the worker's 8-second answer cache. The worker's RSS is read from /proc after the runs.
//! The cost of a learned ranking mode and of the local answer check are measured against
//! off on the same questions, interleaved.

use super::args::BenchRecallArgs;
use super::{bench_store, each_concurrently, pct, status_mb_of};
use crate::eval::locomo;
use crate::output::Style;
use crate::{Error, Result};
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The `slm` binary against the bench's own data dir and worker (also `bench/hooks.rs`).
pub(super) fn slm(exe: &std::path::Path, home: &std::path::Path, run: &std::path::Path) -> Command {
    let mut c = Command::new(exe);
    c.env("SLM_HOME", home)
        .env("SLM_RUNTIME_DIR", run)
        .env("SLM_WORKER", "auto")
        .env("SLM_WORKER_IDLE_S", "900")
        .env("SLM_NO_PROGRESS", "1")
        .env_remove("SLM_PROJECT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Run each argument list `concurrency` at a time; milliseconds per process.
fn timed(
    exe: &std::path::Path,
    home: &std::path::Path,
    run: &std::path::Path,
    jobs: &[Vec<String>],
    concurrency: usize,
) -> Result<Vec<f64>> {
    Ok(timed_answers(exe, home, run, jobs, concurrency)?
        .into_iter()
        .map(|(ms, _)| ms)
        .collect())
}

/// [`timed`] with each command's JSON answer (null when it printed none).
fn timed_answers(
    exe: &std::path::Path,
    home: &std::path::Path,
    run: &std::path::Path,
    jobs: &[Vec<String>],
    concurrency: usize,
) -> Result<Vec<(f64, Value)>> {
    let out = std::sync::Mutex::new(Vec::new());
    let failed = std::sync::Mutex::new(None);
    each_concurrently(jobs.len(), concurrency, |i| {
        let t = Instant::now();
        let o = slm(exe, home, run).args(&jobs[i]).output();
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        match o {
            Ok(o) if o.status.success() => out
                .lock()
                .expect("lock")
                .push((ms, serde_json::from_slice(&o.stdout).unwrap_or(Value::Null))),
            Ok(o) => {
                *failed.lock().expect("lock") = Some(format!(
                    "slm {} exited {}: {}",
                    jobs[i].join(" "),
                    exit_status(&o.status),
                    String::from_utf8_lossy(&o.stderr)
                ))
            }
            Err(e) => *failed.lock().expect("lock") = Some(e.to_string()),
        }
    });
    if let Some(f) = failed.into_inner().expect("lock") {
        return Err(Error::Other(format!("bench worker: {f}")));
    }
    Ok(out.into_inner().expect("lock"))
}

/// Run one question (`c`, made by [`slm`] with `args`): its time in milliseconds and its
/// JSON answer; a failed command is an error naming it.
fn ask_json(mut c: Command, args: &[String]) -> Result<(f64, Value)> {
    let t = Instant::now();
    let o = c.output().map_err(|e| Error::io("asking a question", e))?;
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    if !o.status.success() {
        return Err(Error::Other(format!(
            "bench worker: slm {} exited {}: {}",
            args.join(" "),
            exit_status(&o.status),
            String::from_utf8_lossy(&o.stderr)
        )));
    }
    Ok((ms, serde_json::from_slice(&o.stdout).unwrap_or(Value::Null)))
}

/// Restarts measured for "first question after idle".
const FIRST_QUESTION_RUNS: usize = 5;
/// Marks given before measuring learned ranking (above `ranking_mode::MIN_FEEDBACK`).
const RANKING_SEED_MARKS: usize = 16;
/// The mode measured: the ensemble runs both learners, so it is the most expensive.
const RANKING_MODE: &str = "v2-ensemble";

/// What a learned mode adds to a warm recall: give `RANKING_SEED_MARKS` marks (the top
/// listed memory of each seed question), then ask each question of `measure` with the
/// mode off and on, alternating which goes first (the second ask of a question finds its
/// embedding cached), and forget the marks again so the cached bench store stays as built.
fn ranking_cost(
    exe: &std::path::Path,
    home: &std::path::Path,
    run: &std::path::Path,
    seed: &[Vec<String>],
    measure: &[Vec<String>],
) -> Result<Value> {
    let ask = |args: &[String], mode: Option<&str>| -> Result<(f64, Value)> {
        let mut c = slm(exe, home, run);
        c.args(args);
        if let Some(m) = mode {
            c.env("SLM_RANKING", m);
        }
        ask_json(c, args)
    };
    let mut marks = 0;
    for j in seed {
        if marks >= RANKING_SEED_MARKS {
            break;
        }
        let (_, v) = ask(j, None)?;
        let top = v["results"][0]["id"]
            .as_i64()
            .or_else(|| v["weak"][0]["id"].as_i64());
        if let (Some(rid), Some(id)) = (v["recall_id"].as_str(), top) {
            let o = slm(exe, home, run)
                .args(["feedback", rid, &id.to_string(), "good"])
                .output()
                .map_err(|e| Error::io("giving feedback", e))?;
            if o.status.success() {
                marks += 1;
            }
        }
    }
    let (mut off, mut on, mut applied) = (Vec::new(), Vec::new(), 0);
    for (i, j) in measure.iter().enumerate() {
        for first in [i % 2 == 0, i % 2 != 0] {
            if first {
                off.push(ask(j, None)?.0);
            } else {
                let (ms, v) = ask(j, Some(RANKING_MODE))?;
                on.push(ms);
                applied += (v["ranking_mode"]["applied"] == true) as usize;
            }
        }
    }
    let _ = slm(exe, home, run).args(["feedback", "--forget"]).output();
    let (off, on) = (summary(off), summary(on));
    let diff = on["p50"].as_f64().unwrap_or(0.0) - off["p50"].as_f64().unwrap_or(0.0);
    Ok(json!({
        "mode": RANKING_MODE,
        "marks": marks,
        "applied": applied,
        "off_ms": off,
        "with_mode_ms": on,
        "p50_difference_ms": diff,
    }))
}

/// What the local answer check adds to a warm recall: each question of `measure` asked with
/// `answer_check.mode` off and local (set through `slm answer-check`, as a user would),
/// alternating which goes first (the second ask finds the query embedding cached), then the
/// store's setting put back to the default (`auto`). The judge's own time is its
/// `answer_check.time_ms`.
fn judge_cost(
    exe: &std::path::Path,
    home: &std::path::Path,
    run: &std::path::Path,
    measure: &[Vec<String>],
) -> Result<Value> {
    let set = |mode: &str| -> Result<()> {
        let o = slm(exe, home, run)
            .args(["answer-check", mode])
            .output()
            .map_err(|e| Error::io("setting the answer check", e))?;
        if o.status.success() {
            Ok(())
        } else {
            Err(Error::Other(format!(
                "bench worker: slm answer-check {mode} exited {}: {}",
                exit_status(&o.status),
                String::from_utf8_lossy(&o.stderr)
            )))
        }
    };
    let ask = |args: &[String]| -> Result<(f64, Value)> {
        let mut c = slm(exe, home, run);
        c.args(args);
        ask_json(c, args)
    };
    let (mut off, mut on, mut judge, mut judged) = (Vec::new(), Vec::new(), Vec::new(), 0);
    let mut statuses: std::collections::BTreeMap<String, usize> = Default::default();
    let result = (|| -> Result<()> {
        for (i, j) in measure.iter().enumerate() {
            for local in [i % 2 != 0, i % 2 == 0] {
                set(if local { "local" } else { "off" })?;
                let (ms, v) = ask(j)?;
                if !local {
                    off.push(ms);
                    continue;
                }
                on.push(ms);
                let status = v["answer_check_status"].as_str().unwrap_or("missing");
                *statuses.entry(status.to_string()).or_default() += 1;
                if status == "judged" {
                    judged += 1;
                    if let Some(t) = v["answer_check"]["time_ms"].as_f64() {
                        judge.push(t);
                    }
                }
            }
        }
        Ok(())
    })();
    set("auto")?;
    result?;
    let (off, on) = (summary(off), summary(on));
    let diff = on["p50"].as_f64().unwrap_or(0.0) - off["p50"].as_f64().unwrap_or(0.0);
    Ok(json!({
        "off_ms": off,
        "local_ms": on,
        "p50_difference_ms": diff,
        "judged": judged,
        "statuses": statuses,
        "judge_ms": summary(judge),
    }))
}

/// The query embedding's own time of each answer that made one (`timing_ms`
/// `channel.embed`; a cached embedding is left out by the worker's cache, not here).
fn embed_times(answers: &[(f64, Value)]) -> Vec<f64> {
    answers
        .iter()
        .filter_map(|(_, v)| v["timing_ms"]["channel.embed"].as_f64())
        .collect()
}

fn summary(mut v: Vec<f64>) -> Value {
    json!({ "n": v.len(), "p50": pct(&mut v, 0.5), "p90": pct(&mut v, 0.9), "p99": pct(&mut v, 0.99) })
}

pub fn run(a: BenchRecallArgs, style: Style) -> Result<i32> {
    let (engine, home) = bench_store(&a.data, a.memories, a.pictures)?;
    let memories = engine.count()?;
    drop(engine);
    let exe = std::env::current_exe().map_err(|e| Error::io("finding the slm binary", e))?;
    let rundir = crate::eval::tempdir("slm-bench-worker")?;
    let run = rundir.path().join("run");
    let mut q = locomo::Quirks::default();
    let levels: Vec<usize> = a.concurrency.iter().map(|c| (*c).max(1)).collect();
    let per = a.questions.max(24);
    let questions: Vec<String> = locomo::load(&a.data, &[], &mut q)?
        .into_iter()
        .flat_map(|c| c.questions.into_iter().map(|q| q.question))
        .filter(|s| !s.trim().is_empty())
        .take(per * (levels.len() + 5))
        .collect();
    let slice = |i: usize| -> Vec<Vec<String>> {
        questions
            .iter()
            .cycle()
            .skip(i * per)
            .take(per)
            .map(|q| vec!["recall".into(), q.clone(), "--json".into()])
            .collect()
    };
    let mut human = format!(
        "worker bench: {memories} memories, {per} questions per run, through the slm binary ({} cores)\n",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    // Baseline: what starting a process costs here.
    let version: Vec<Vec<String>> = (0..per).map(|_| vec!["--version".into()]).collect();
    let floor = summary(timed(&exe, &home, &run, &version, 1)?);
    human.push_str(&format!(
        "process start (slm --version): p50 {:.1} ms, p90 {:.1} ms\n",
        floor["p50"].as_f64().unwrap_or(0.0),
        floor["p90"].as_f64().unwrap_or(0.0)
    ));
    // The cold path: no worker.
    let _ = slm(&exe, &home, &run).args(["worker", "stop"]).output();
    let cold_jobs: Vec<Vec<String>> = slice(0)
        .into_iter()
        .map(|mut j| {
            j.push("--no-worker".into());
            j
        })
        .collect();
    let cold_answers = timed_answers(&exe, &home, &run, &cold_jobs, 1)?;
    let cold_vectors = cold_answers
        .iter()
        .filter(|(_, v)| v["channel_status"]["semantic"]["status"] == "ok")
        .count();
    let cold_embed = summary(embed_times(&cold_answers));
    let cold = summary(cold_answers.iter().map(|(ms, _)| *ms).collect());
    human.push_str(&format!(
        "cold path (--no-worker): p50 {:.1} ms, p90 {:.1} ms; vector search ran in {cold_vectors}/{}; its query embedding p50 {:.1} ms\n",
        cold["p50"].as_f64().unwrap_or(0.0),
        cold["p90"].as_f64().unwrap_or(0.0),
        cold_answers.len(),
        cold_embed["p50"].as_f64().unwrap_or(0.0),
    ));
    // Start the worker and warm it (a few questions outside the measured slices).
    let t = Instant::now();
    let st = slm(&exe, &home, &run)
        .args(["worker", "start", "--json"])
        .output()
        .map_err(|e| Error::io("starting the worker", e))?;
    let start_ms = t.elapsed().as_secs_f64() * 1000.0;
    let status: Value = serde_json::from_slice(&st.stdout).unwrap_or(Value::Null);
    let pid = status["status"]["pid"].as_i64().unwrap_or(0);
    timed(&exe, &home, &run, &slice(levels.len() + 1)[..5], 1)?;
    human.push_str(&format!(
        "worker start (model load included): {start_ms:.0} ms\n"
    ));
    let mut rows = Vec::new();
    for (i, &c) in levels.iter().enumerate() {
        let wall = Instant::now();
        let answers = timed_answers(&exe, &home, &run, &slice(i + 1), c)?;
        let wall_s = wall.elapsed().as_secs_f64();
        let embed = summary(embed_times(&answers));
        let s = summary(answers.iter().map(|(ms, _)| *ms).collect());
        human.push_str(&format!(
            "warm worker, {c} concurrent caller{}: end to end p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms; {:.1} recalls/s; query embedding p50 {:.1} ms\n",
            if c == 1 { "" } else { "s" },
            s["p50"].as_f64().unwrap_or(0.0),
            s["p90"].as_f64().unwrap_or(0.0),
            s["p99"].as_f64().unwrap_or(0.0),
            per as f64 / wall_s,
            embed["p50"].as_f64().unwrap_or(0.0),
        ));
        rows.push(
            json!({ "concurrency": c, "end_to_end_ms": s, "recalls_per_s": per as f64 / wall_s,
                    "query_embedding_ms": embed }),
        );
    }
    let rss = status_mb_of(&pid.to_string(), "VmRSS");
    let peak = status_mb_of(&pid.to_string(), "VmHWM");
    human.push_str(&format!("worker RSS {rss:.0} MB (peak {peak:.0} MB)\n"));
    let ranking = ranking_cost(
        &exe,
        &home,
        &run,
        &slice(levels.len() + 2),
        &slice(levels.len() + 3),
    )?;
    human.push_str(&format!(
        "learned ranking ({} marks, SLM_RANKING={} vs off, same questions interleaved): p50 {:.1} ms vs {:.1} ms ({:+.1} ms); applied on {}/{}\n",
        ranking["marks"],
        RANKING_MODE,
        ranking["with_mode_ms"]["p50"].as_f64().unwrap_or(0.0),
        ranking["off_ms"]["p50"].as_f64().unwrap_or(0.0),
        ranking["p50_difference_ms"].as_f64().unwrap_or(0.0),
        ranking["applied"],
        ranking["with_mode_ms"]["n"],
    ));
    let judge = judge_cost(&exe, &home, &run, &slice(levels.len() + 4))?;
    human.push_str(&format!(
        "answer check (answer_check.mode local vs off, same questions interleaved): p50 {:.1} ms vs {:.1} ms ({:+.1} ms); judged {}/{}; the judge's own time p50 {:.1} ms, p90 {:.1} ms\n",
        judge["local_ms"]["p50"].as_f64().unwrap_or(0.0),
        judge["off_ms"]["p50"].as_f64().unwrap_or(0.0),
        judge["p50_difference_ms"].as_f64().unwrap_or(0.0),
        judge["judged"],
        judge["local_ms"]["n"],
        judge["judge_ms"]["p50"].as_f64().unwrap_or(0.0),
        judge["judge_ms"]["p90"].as_f64().unwrap_or(0.0),
    ));
    // The first question after idle: no worker running; one `slm recall` starts it, waits
    // for its ready signal and gets the full answer. Several restarts, each a new question.
    let mut first = Vec::new();
    let mut first_full = 0;
    for j in slice(levels.len() + 1)
        .iter()
        .skip(5)
        .take(FIRST_QUESTION_RUNS)
    {
        let _ = slm(&exe, &home, &run).args(["worker", "stop"]).output();
        let t = Instant::now();
        let o = slm(&exe, &home, &run)
            .args(j)
            .output()
            .map_err(|e| Error::io("asking the first question", e))?;
        first.push(t.elapsed().as_secs_f64() * 1000.0);
        let v: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
        if v["served_by"] == "worker" && v["warming_up"] == false {
            first_full += 1;
        }
    }
    let first_n = first.len();
    let first = summary(first);
    human.push_str(&format!(
        "first question after idle (worker stopped; one recall starts it and waits): time to full answer p50 {:.0} ms, p90 {:.0} ms; {first_full}/{first_n} answered in full by the worker",
        first["p50"].as_f64().unwrap_or(0.0),
        first["p90"].as_f64().unwrap_or(0.0),
    ));
    let _ = slm(&exe, &home, &run).args(["worker", "stop"]).output();
    let body = json!({
        "memories": memories,
        "questions_per_run": per,
        "process_start_ms": floor,
        "cold_ms": cold,
        "cold_vector_search": cold_vectors,
        "cold_query_embedding_ms": cold_embed,
        "worker_start_ms": start_ms,
        "warm": rows,
        "worker_rss_mb": rss,
        "worker_peak_rss_mb": peak,
        "ranking": ranking,
        "answer_check": judge,
        "first_question_after_idle_ms": first,
        "first_question_full_answers": first_full,
    });
    crate::output::emit(style, "bench", body, || human)?;
    Ok(0)
}

/// How a process ended, in words: "with code 1", "by a signal".
fn exit_status(s: &std::process::ExitStatus) -> String {
    match s.code() {
        Some(c) => format!("with code {c}"),
        None => "by a signal".to_string(),
    }
}
