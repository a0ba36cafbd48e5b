//! `slm bench export`: how fast memories go out and back in, on the bench store (the same
//! reusable synthetic store `bench recall` uses, with its real embeddings).
//!
//! Figures: the export in-process (pages written to a file: memories/s, MB/s), `slm export`
//! end to end through the binary (cold path, to /dev/null, with its peak RSS: an export
//! streams, so it should not grow with the store), a backup (SQLite's online backup, fsync
//! and sha256 included: MB/s), verifying that backup as `restore` does, and importing the
//! export into an empty store without the model (keyword-findable; embedding is what
//! `bench ingest` measures).

use super::args::BenchExportArgs;
use crate::engine::{Engine, ModelMode, OpenOptions};
use crate::memory::NewMemory;
use crate::output::Style;
use crate::paths::Paths;
use crate::transfer::{backup, export::ExportQuery, line::Line};
use crate::{Error, Result};
use serde_json::json;
use std::io::{BufRead, Write};
use std::time::Instant;

pub fn run(a: BenchExportArgs, style: Style) -> Result<i32> {
    let (engine, dir) = super::bench_store(&a.data, a.memories, 0)?;
    let memories = engine.count()?;
    let tmp = crate::eval::tempdir("slm-bench-export")?;
    let file = tmp.path().join("export.jsonl");

    // Export in-process, page by page, into a file.
    let t = Instant::now();
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(&file).map_err(|e| Error::io("creating the export file", e))?,
    );
    let mut q = ExportQuery {
        profile: None,
        include_bookkeeping: true,
        after_id: None,
    };
    let mut exported = 0u64;
    loop {
        let page = crate::transfer::export::page_of(&engine, &q)?;
        for l in &page.lines {
            serde_json::to_writer(&mut out, l).map_err(|e| Error::io("writing", e.into()))?;
            out.write_all(b"\n").map_err(|e| Error::io("writing", e))?;
        }
        exported += page.lines.len() as u64;
        if page.done {
            break;
        }
        q.after_id = page.last_id;
    }
    out.flush().map_err(|e| Error::io("writing", e))?;
    drop(out);
    let export_s = t.elapsed().as_secs_f64();
    let export_mb = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;

    // `slm export` through the binary, cold (no worker), to /dev/null.
    let exe = std::env::current_exe().map_err(|e| Error::io("finding the slm binary", e))?;
    let t = Instant::now();
    let status = std::process::Command::new(&exe)
        .args(["export", "--all-profiles", "--include-bookkeeping"])
        .env(crate::paths::HOME_ENV, &dir)
        .env("SLM_WORKER", "off")
        .env("SLM_NO_PROGRESS", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| Error::io("running slm export", e))?;
    let cli_s = t.elapsed().as_secs_f64();
    if !status.success() {
        return Err(Error::Other(format!("slm export failed: {status}")));
    }
    let cli_rss_mb = children_peak_rss_mb();

    // Backup, then verify it as restore does.
    let dest = tmp.path().join("store.backup");
    let t = Instant::now();
    let manifest = backup::backup(
        &engine.paths.store(),
        &dest,
        engine.clock.now_ms(),
        &mut |_, _| {},
    )?;
    let backup_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    backup::verify(&dest)?;
    let verify_s = t.elapsed().as_secs_f64();
    let backup_mb = manifest.bytes as f64 / 1e6;

    // Import the export into an empty store, without the model.
    let home = tmp.path().join("import-home");
    let fresh = Engine::open(
        Paths::at(&home, &engine.paths.cache),
        OpenOptions::model(ModelMode::Skip),
    )?;
    let now = engine.clock.now();
    let t = Instant::now();
    let reader = std::io::BufReader::new(
        std::fs::File::open(&file).map_err(|e| Error::io("reading the export", e))?,
    );
    let mut batch: Vec<NewMemory> = Vec::with_capacity(256);
    let mut imported = 0usize;
    for line in reader.lines() {
        let line = line.map_err(|e| Error::io("reading the export", e))?;
        let p = Line::parse(&line, crate::DEFAULT_PROFILE, now).map_err(Error::Input)?;
        batch.push(p.memory);
        if batch.len() == 256 {
            imported += fresh
                .remember_batch(std::mem::take(&mut batch), &mut |_| {})?
                .len();
        }
    }
    if !batch.is_empty() {
        imported += fresh.remember_batch(batch, &mut |_| {})?.len();
    }
    let import_s = t.elapsed().as_secs_f64();

    let body = json!({
        "memories": memories,
        "export": { "memories": exported, "seconds": export_s, "memories_per_s": exported as f64 / export_s,
                    "mb": export_mb, "mb_per_s": export_mb / export_s },
        "export_cli": { "seconds": cli_s, "memories_per_s": exported as f64 / cli_s, "peak_rss_mb": cli_rss_mb },
        "backup": { "seconds": backup_s, "mb": backup_mb, "mb_per_s": backup_mb / backup_s,
                    "memories_per_s": manifest.memories as f64 / backup_s },
        "verify_seconds": verify_s,
        "import_without_model": { "memories": imported, "seconds": import_s, "memories_per_s": imported as f64 / import_s },
        "store_dir": dir.display().to_string(),
    });
    let human = format!(
        "export/backup bench: {memories} memories (store {})\n\
         export in-process     {exported} lines, {export_mb:.1} MB in {export_s:.2} s: {:.0} memories/s, {:.1} MB/s\n\
         slm export (cold CLI) {cli_s:.2} s: {:.0} memories/s, peak RSS {cli_rss_mb:.0} MB\n\
         backup                {backup_mb:.1} MB in {backup_s:.2} s: {:.1} MB/s, {:.0} memories/s (fsync, integrity check and sha256 included)\n\
         verify (as restore)   {verify_s:.2} s\n\
         import of the export  {imported} memories in {import_s:.2} s: {:.0} memories/s (no model: keyword-findable, embeddings pending)",
        dir.display(),
        exported as f64 / export_s,
        export_mb / export_s,
        exported as f64 / cli_s,
        backup_mb / backup_s,
        manifest.memories as f64 / backup_s,
        imported as f64 / import_s,
    );
    crate::output::emit(style, "bench", body, || human)?;
    Ok(0)
}

/// Peak RSS of the largest finished child process, in MB.
fn children_peak_rss_mb() -> f64 {
    // SAFETY: getrusage fills the struct it is given; RUSAGE_CHILDREN has no preconditions.
    unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) == 0 {
            u.ru_maxrss as f64 / 1024.0
        } else {
            0.0
        }
    }
}
