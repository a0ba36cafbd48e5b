//! `slm bench hooks`: how long `slm hook capture` holds an agent up while the worker is busy
//! importing (issue 35: the hook's p99 ≤ 50 ms while the worker imports).
//!
//! A temporary store, the real `slm` binary: the worker is started, an import of N memories
//! (LoCoMo turns, as `bench ingest` makes them) runs through it in the background, and
//! meanwhile capture hooks fire one after another with a Claude Code prompt payload on
//! standard input, each timed from process start to exit. Baseline in the same run: the same
//! hooks with the worker idle. Every capture must be in the store afterwards (none lost):
//! the bench waits for the worker to empty the spool, then counts.

use super::args::BenchHooksArgs;
use super::worker::slm;
use super::{pct, synthetic};
use crate::output::Style;
use crate::{Error, Result};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::Instant;

/// How long the bench waits, after the import, for the worker to save the last captures.
const SPOOL_SETTLE: std::time::Duration = std::time::Duration::from_secs(60);

/// One capture hook: milliseconds from start to exit.
fn capture(exe: &Path, home: &Path, run: &Path, i: usize) -> Result<f64> {
    let payload = json!({
        "session_id": "bench-hooks", "hook_event_name": "UserPromptSubmit", "cwd": "/",
        "prompt": format!("bench prompt {i}: please look at the staging database port again")
    });
    let t = Instant::now();
    let mut child = slm(exe, home, run)
        .args(["hook", "capture"])
        .stdin(Stdio::piped())
        .spawn()
        .map_err(|e| Error::io("starting slm hook capture", e))?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(payload.to_string().as_bytes());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| Error::io("waiting for slm hook capture", e))?;
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    if !out.status.success() {
        return Err(Error::Other(format!(
            "bench hooks: slm hook capture failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(ms)
}

fn summary(mut v: Vec<f64>) -> Value {
    let max = v.iter().copied().fold(0.0, f64::max);
    json!({ "n": v.len(), "p50": pct(&mut v, 0.5), "p90": pct(&mut v, 0.9),
            "p99": pct(&mut v, 0.99), "max": max })
}

fn line(name: &str, s: &Value) -> String {
    format!(
        "{name}: n {}, p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms\n",
        s["n"],
        s["p50"].as_f64().unwrap_or(0.0),
        s["p90"].as_f64().unwrap_or(0.0),
        s["p99"].as_f64().unwrap_or(0.0),
        s["max"].as_f64().unwrap_or(0.0)
    )
}

pub fn run(a: BenchHooksArgs, style: Style) -> Result<i32> {
    let exe = std::env::current_exe().map_err(|e| Error::io("finding the slm binary", e))?;
    let dir = crate::eval::tempdir("slm-bench-hooks")?;
    let (home, run) = (dir.path().join("home"), dir.path().join("run"));
    let file = dir.path().join("import.jsonl");
    let mut lines = String::new();
    for m in synthetic(&a.data, a.memories)? {
        lines.push_str(&json!({ "text": m.text, "session_id": m.session_id }).to_string());
        lines.push('\n');
    }
    std::fs::write(&file, lines).map_err(|e| Error::io("writing the import file", e))?;
    let started = slm(&exe, &home, &run)
        .args(["worker", "start"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::io("starting the worker", e))?;
    if !started.status.success() {
        return Err(Error::Other(format!(
            "bench hooks: the worker did not start: {}",
            String::from_utf8_lossy(&started.stderr)
        )));
    }
    // Baseline: the worker idle.
    let idle: Vec<f64> = (0..a.captures)
        .map(|i| capture(&exe, &home, &run, i))
        .collect::<Result<_>>()?;
    // While an import runs through the worker.
    let t = Instant::now();
    let mut import = slm(&exe, &home, &run)
        .args(["import", &file.to_string_lossy(), "--json"])
        .stdin(Stdio::null())
        .spawn()
        .map_err(|e| Error::io("starting the import", e))?;
    let mut busy = Vec::new();
    let mut i = a.captures;
    while import
        .try_wait()
        .map_err(|e| Error::io("watching the import", e))?
        .is_none()
    {
        busy.push(capture(&exe, &home, &run, i)?);
        i += 1;
        std::thread::sleep(std::time::Duration::from_millis(a.interval_ms));
    }
    if busy.is_empty() {
        return Err(Error::Other(
            "bench hooks: the import ended before any hook fired; give more --memories".into(),
        ));
    }
    let fired = i;
    let import_out = import
        .wait_with_output()
        .map_err(|e| Error::io("waiting for the import", e))?;
    let import_s = t.elapsed().as_secs_f64();
    // The worker saves the spool on its own thread: give it time to finish.
    let spool = home.join("spool");
    let t = Instant::now();
    while !crate::service::spool::spooled(&spool).is_empty() && t.elapsed() < SPOOL_SETTLE {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let stored = slm(&exe, &home, &run)
        .args([
            "list",
            "--kind",
            "prompt",
            "--limit",
            "1000000",
            "--all-projects",
            "--json",
        ])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::io("listing the captures", e))?;
    let _ = slm(&exe, &home, &run)
        .args(["worker", "stop"])
        .stdin(Stdio::null())
        .output();
    let stored: Value = serde_json::from_slice(&stored.stdout).unwrap_or(Value::Null);
    let kept = stored["memories"].as_array().map_or(0, Vec::len);
    let spooled = crate::service::spool::spooled(&spool).len();
    let (idle, busy) = (summary(idle), summary(busy));
    let body = json!({
        "memories": a.memories, "interval_ms": a.interval_ms, "import_s": import_s, "import_ok": import_out.status.success(),
        "hooks_idle": idle, "hooks_while_importing": busy,
        "captures_fired": fired, "captures_stored": kept, "captures_left_in_spool": spooled,
    });
    crate::output::emit(style, "bench", body, || {
        let mut s = format!(
            "hooks bench: slm hook capture through the worker ({} cores), {} ms between hooks; an import of {} memories took {import_s:.1} s\n",
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            a.interval_ms,
            a.memories
        );
        s.push_str(&line("worker idle", &idle));
        s.push_str(&line("while importing", &busy));
        s.push_str(&format!(
            "captures: {fired} fired, {kept} stored, {spooled} left in the spool for the next hook\n"
        ));
        s
    })?;
    Ok(0)
}
