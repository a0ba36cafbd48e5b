//! `slm bench pictures`: what reading pictures costs and finds (issue 37).
//!
//! 1. OCR alone: each picture decoded and read `--runs` times by the installed models on this
//!    machine; p50 and p90 per picture, pictures per second.
//! 2. Through the worker, on a temporary store: `slm import --format media DIR`, then the time
//!    until the background queue has read every picture; with a `questions.json` beside the
//!    pictures (as `fixtures/pictures` has), each question asked and its picture looked for in
//!    the top 3 results.

use super::args::BenchPicturesArgs;
use super::pct;
use super::worker::slm;
use crate::media::{self, ocr::Ocr};
use crate::output::{Style, emit};
use crate::paths::Paths;
use crate::settings::Settings;
use crate::{Error, Result};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// How long the bench waits for the worker to read every picture.
const READ_WAIT: Duration = Duration::from_secs(900);

fn pictures_in(dir: &std::path::Path) -> Result<Vec<std::path::PathBuf>> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(format!("reading {}", dir.display()), e))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| media::ends_like(p, &media::PICTURE_ENDINGS))
        .collect();
    v.sort();
    Ok(v)
}

fn json_of(out: &std::process::Output, what: &str) -> Result<Value> {
    serde_json::from_slice(&out.stdout).map_err(|_| {
        Error::Other(format!(
            "{what} did not answer in JSON: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    })
}

pub fn run(a: BenchPicturesArgs, style: Style) -> Result<i32> {
    let files = pictures_in(&a.dir)?;
    if files.is_empty() {
        return Err(Error::Usage(format!("no pictures in {}", a.dir.display())));
    }
    // 1. OCR alone.
    let paths = Paths::from_env();
    let settings = Settings::load(&paths.settings())?;
    let (_, runtime) = crate::embed::onnx::locate(&paths, &settings);
    let t = Instant::now();
    let ocr = Ocr::load(&media::ocr::model_dir(&paths), &runtime).map_err(Error::Model)?;
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut per = Vec::new();
    let (mut lines, mut wordless) = (0usize, 0usize);
    let t_all = Instant::now();
    for run in 0..a.runs.max(1) {
        for f in &files {
            let bytes =
                std::fs::read(f).map_err(|e| Error::io(format!("reading {}", f.display()), e))?;
            let t = Instant::now();
            let img = media::decode(&bytes).map_err(Error::Input)?;
            let read = ocr.read(&img).map_err(Error::Model)?;
            per.push(t.elapsed().as_secs_f64() * 1e3);
            if run == 0 {
                lines += read.len();
                wordless += read.is_empty() as usize;
            }
        }
    }
    let per_s = per.len() as f64 / t_all.elapsed().as_secs_f64();
    let (p50, p90) = (pct(&mut per, 0.5), pct(&mut per, 0.9));

    // 2. Through the worker on a temporary store.
    let exe = std::env::current_exe().map_err(|e| Error::io("finding slm", e))?;
    let dir = crate::eval::tempdir("slm-bench-pictures")?;
    let (home, run) = (dir.path().join("home"), dir.path().join("run"));
    let start = slm(&exe, &home, &run)
        .args(["worker", "start", "--json"])
        .output()
        .map_err(|e| Error::io("starting the worker", e))?;
    json_of(&start, "worker start")?;
    let t = Instant::now();
    let imp = slm(&exe, &home, &run)
        .args(["import", "--format", "media", "--json"])
        .arg(&a.dir)
        .output()
        .map_err(|e| Error::io("importing", e))?;
    let imp = json_of(&imp, "import")?;
    let import_s = t.elapsed().as_secs_f64();
    let read_s = loop {
        let d = slm(&exe, &home, &run)
            .args(["doctor", "--json"])
            .output()
            .map_err(|e| Error::io("asking doctor", e))?;
        let d = json_of(&d, "doctor")?;
        if d["pictures"]["pending"] == 0 {
            break t.elapsed().as_secs_f64();
        }
        if t.elapsed() > READ_WAIT {
            return Err(Error::Other(format!(
                "pictures still waiting after {} s: {}",
                READ_WAIT.as_secs(),
                d["pictures"]
            )));
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    let mut found = Value::Null;
    let qfile = a.dir.join("questions.json");
    if let Ok(raw) = std::fs::read(&qfile) {
        let spec: Value = serde_json::from_slice(&raw)
            .map_err(|e| Error::Input(format!("{}: {e}", qfile.display())))?;
        let (mut hit, mut missed) = (0usize, Vec::new());
        let qs = spec["questions"].as_array().cloned().unwrap_or_default();
        for q in &qs {
            let (text, want) = (
                q["q"].as_str().unwrap_or(""),
                q["file"].as_str().unwrap_or(""),
            );
            let out = slm(&exe, &home, &run)
                .args(["recall", text, "--show-weak", "--json"])
                .output()
                .map_err(|e| Error::io("recalling", e))?;
            let r = json_of(&out, "recall")?;
            let top: Vec<&str> = r["results"]
                .as_array()
                .into_iter()
                .flatten()
                .take(3)
                .filter_map(|x| x["picture"]["name"].as_str())
                .collect();
            if top.contains(&want) {
                hit += 1;
            } else {
                missed.push(text.to_string());
            }
        }
        found = json!({ "questions": qs.len(), "top3": hit, "missed": missed });
    }
    let _ = slm(&exe, &home, &run).args(["worker", "stop"]).output();
    let body = json!({
        "pictures": files.len(), "runs": a.runs, "ocr_load_ms": load_ms,
        "ocr_ms_p50": p50, "ocr_ms_p90": p90, "ocr_pictures_per_s": per_s,
        "lines_read": lines, "wordless": wordless,
        "import_s": import_s, "all_read_s": read_s, "added": imp["added"], "found": found,
    });
    emit(style, "bench pictures", body, || {
        let mut s = format!(
            "OCR alone: {} pictures × {} runs: p50 {p50:.0} ms, p90 {p90:.0} ms a picture, {per_s:.2} pictures/s (models loaded in {load_ms:.0} ms); {lines} lines read, {wordless} wordless\n",
            files.len(),
            a.runs.max(1)
        );
        s.push_str(&format!(
            "through the worker: imported in {import_s:.1} s, every picture read {read_s:.1} s after the import began\n"
        ));
        if !found.is_null() {
            s.push_str(&format!(
                "questions: {} of {} found their picture in the top 3{}",
                found["top3"],
                found["questions"],
                match found["missed"].as_array().map(|m| m.len()).unwrap_or(0) {
                    0 => String::new(),
                    _ => format!("; missed: {}", found["missed"]),
                }
            ));
        }
        s
    })?;
    Ok(0)
}
