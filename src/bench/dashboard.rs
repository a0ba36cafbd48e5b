//! `slm bench dashboard`: how long the dashboard's pages take over HTTP on the bench store
//! (issue 36: within 200 ms at 27,000 memories, searches excluded — a search is a recall,
//! which `bench worker` times).
//!
//! The bench store (`bench_store`, cached), its own worker, and `slm dashboard` on a free
//! port, as a person runs them; each page is fetched [`ROUNDS`] times with the bearer token,
//! from the request's first byte to the response's last.

use super::args::BenchExportArgs;
use super::pct;
use super::worker::slm;
use crate::output::Style;
use crate::{Error, Result};
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::time::Instant;

/// Fetches of each page. Chosen: enough for a p90 that is not the maximum.
const ROUNDS: usize = 20;

fn get(addr: &str, path: &str, token: &str) -> Result<(u16, usize, f64)> {
    let t = Instant::now();
    let mut s = std::net::TcpStream::connect(addr)
        .map_err(|e| Error::io("connecting to the dashboard", e))?;
    let req = format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    );
    s.write_all(req.as_bytes())
        .map_err(|e| Error::io("asking the dashboard", e))?;
    let mut out = Vec::new();
    s.read_to_end(&mut out)
        .map_err(|e| Error::io("reading the dashboard's answer", e))?;
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    let status = String::from_utf8_lossy(&out[..out.len().min(16)])
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    Ok((status, out.len(), ms))
}

pub fn run(a: BenchExportArgs, style: Style) -> Result<i32> {
    let (engine, home) = super::bench_store(&a.data, a.memories, 0)?;
    let memories = engine.count()?;
    let some_id = engine
        .list(&crate::store::ListFilter {
            newest_first: true,
            limit: Some(1),
            ..Default::default()
        })?
        .first()
        .map_or(1, |m| m.id);
    drop(engine);
    let exe = std::env::current_exe().map_err(|e| Error::io("finding the slm binary", e))?;
    let tmp = crate::eval::tempdir("slm-bench-dashboard")?;
    let run_dir = tmp.path().join("run");
    let started = slm(&exe, &home, &run_dir)
        .args(["worker", "start"])
        .output()
        .map_err(|e| Error::io("starting the worker", e))?;
    if !started.status.success() {
        return Err(Error::Other(format!(
            "bench dashboard: the worker did not start: {}",
            String::from_utf8_lossy(&started.stderr)
        )));
    }
    let mut dash = slm(&exe, &home, &run_dir)
        .args(["dashboard", "--addr", "127.0.0.1:0", "--no-open"])
        .spawn()
        .map_err(|e| Error::io("starting slm dashboard", e))?;
    let mut err = BufReader::new(dash.stderr.take().expect("piped"));
    let mut line = String::new();
    let _ = err.read_line(&mut line);
    std::thread::spawn(move || for _ in err.lines() {});
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .unwrap_or("")
        .to_string();
    let token = std::fs::read_to_string(home.join("http.token"))
        .map_err(|e| Error::io("reading the dashboard's token", e))?;
    let pages = [
        ("Memories, first page", "/memories".to_string()),
        (
            "Memories, page 200 (10,000 in)",
            "/memories?page=200".to_string(),
        ),
        (
            "Memories, kind event, page 20",
            "/memories?kind=event&page=20".to_string(),
        ),
        ("a memory with its context", format!("/memories/{some_id}")),
        ("Views", "/views".to_string()),
        ("Status", "/status".to_string()),
    ];
    let mut rows = Vec::new();
    let mut failed = None;
    for (name, path) in &pages {
        let mut ms = Vec::new();
        let mut bytes = 0;
        for _ in 0..ROUNDS {
            match get(&addr, path, token.trim()) {
                Ok((200, n, t)) => {
                    ms.push(t);
                    bytes = n;
                }
                Ok((status, _, _)) => failed = Some(format!("{path} answered {status}")),
                Err(e) => failed = Some(e.to_string()),
            }
        }
        let max = ms.iter().copied().fold(0.0, f64::max);
        rows.push(json!({ "page": name, "path": path, "bytes": bytes,
            "p50_ms": pct(&mut ms.clone(), 0.5), "p90_ms": pct(&mut ms, 0.9), "max_ms": max }));
    }
    let _ = dash.kill();
    let _ = dash.wait();
    let _ = slm(&exe, &home, &run_dir).args(["worker", "stop"]).output();
    if let Some(why) = failed {
        return Err(Error::Other(format!("bench dashboard: {why}")));
    }
    let body = json!({ "memories": memories, "rounds": ROUNDS, "pages": rows });
    crate::output::emit(style, "bench", body, || {
        let mut s = format!(
            "dashboard bench: {memories} memories, the warm worker, {ROUNDS} fetches a page over HTTP\n"
        );
        for r in &rows {
            s.push_str(&format!(
                "{:<32} p50 {:>6.1} ms  p90 {:>6.1} ms  max {:>6.1} ms  ({} bytes)\n",
                r["page"].as_str().unwrap_or(""),
                r["p50_ms"].as_f64().unwrap_or(0.0),
                r["p90_ms"].as_f64().unwrap_or(0.0),
                r["max_ms"].as_f64().unwrap_or(0.0),
                r["bytes"]
            ));
        }
        s
    })?;
    Ok(0)
}
