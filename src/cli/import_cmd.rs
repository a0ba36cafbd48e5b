//! `slm import`: JSON Lines (the format `slm export` writes) or a folder of notes.
//!
//! Both read their input here, resolve it into requests (`RememberBatch` and
//! `SupersedeKeys` for JSON Lines, one `ImportNotes` per notes file) and send them through a
//! [`Target`]: the warm worker when it runs, one engine in this process otherwise.

use super::args::{GlobalArgs, ImportArgs, ImportFormat};
use super::read_stdin;
use crate::Result;
use crate::engine::{KeyLink, LinkReport, ModelMode, Remembered};
use crate::error::Error;
use crate::output::Style;
use crate::output::emit;
use crate::paths::Paths;
use crate::service::{Op, Request};
use crate::transfer::line::{Line, Parsed};
use crate::transfer::notes::{self, NotesFile, Outcome, Skipped};
use crate::worker::client::{Mode, Target};
use serde_json::json;

/// Text bytes per import request at most (besides `--batch` lines): a batch goes to the
/// worker in one frame (8 MiB), and JSON escaping can grow text up to 6×.
pub const BATCH_BYTES: usize = 1 << 20;
/// Correction links per request.
const LINKS_PER_REQUEST: usize = 1000;

pub fn import(a: ImportArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let markdown = match a.format {
        ImportFormat::Markdown => true,
        ImportFormat::Jsonl => false,
        ImportFormat::Auto => {
            a.file.as_os_str() != "-" && (a.file.is_dir() || notes::is_notes_path(&a.file))
        }
    };
    if markdown {
        if a.file.as_os_str() == "-" {
            return Err(Error::Usage(
                "--format markdown reads files and folders, not standard input".into(),
            ));
        }
        return import_notes(a, g, style);
    }
    if a.dry_run {
        return Err(Error::Usage(
            "--dry-run is for notes (--format markdown); a JSON Lines import is resumable, so run it".into(),
        ));
    }
    if a.file.is_dir() {
        return Err(Error::Usage(format!(
            "{} is a folder: a folder is imported as notes (--format markdown)",
            a.file.display()
        )));
    }
    import_lines(a, g, style)
}

fn run(target: &Target, op: Op) -> Result<serde_json::Value> {
    Ok(target.run(Request { op, human: None })?.body)
}

fn decode<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Result<T> {
    serde_json::from_value(v).map_err(|e| Error::Other(format!("an unreadable answer: {e}")))
}

fn import_lines(a: ImportArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let raw = if a.file.as_os_str() == "-" {
        read_stdin()?
    } else {
        let bytes = std::fs::read(&a.file)
            .map_err(|e| Error::io(format!("reading {}", a.file.display()), e))?;
        String::from_utf8(bytes).map_err(|e| {
            Error::Input(format!(
                "{} is not valid UTF-8 (first bad byte at offset {}); nothing was imported",
                a.file.display(),
                e.utf8_error().valid_up_to()
            ))
        })?
    };
    let clock = crate::Clock::from_env()?;
    let now = clock.now();
    let mut good: Vec<(usize, Parsed)> = Vec::new();
    let mut bad: Vec<(usize, String)> = Vec::new();
    for (i, line) in raw.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match Line::parse(line, &g.profile, now) {
            Ok(p) => good.push((i + 1, p)),
            Err(e) => bad.push((i + 1, e)),
        }
    }
    drop(raw);
    if !bad.is_empty() && !a.skip_bad {
        let list: Vec<String> = bad
            .iter()
            .take(20)
            .map(|(n, e)| format!("  line {n}: {e}"))
            .collect();
        let more = if bad.len() > 20 {
            format!("\n  … and {} more", bad.len() - 20)
        } else {
            String::new()
        };
        return Err(Error::Input(format!(
            "{} bad line(s); nothing was imported (use --skip-bad to import the good lines):\n{}{more}",
            bad.len(),
            list.join("\n")
        )));
    }
    let paths = Paths::from_env();
    let target = Target::connect(&paths, Mode::resolve(g.no_worker)?, ModelMode::Load)?;
    let pb = crate::progress::bar(good.len() as u64, "importing");
    let (mut added, mut existed, mut embedded) = (0usize, 0usize, 0usize);
    let mut links: Vec<KeyLink> = Vec::new();
    let batch = a.batch.max(1);
    let mut start = 0;
    while start < good.len() {
        // Up to --batch lines and BATCH_BYTES of text per request (always at least one).
        let mut end = start;
        let mut bytes = 0;
        while end < good.len() && end - start < batch && (end == start || bytes < BATCH_BYTES) {
            bytes += good[end].1.memory.text.len();
            end += 1;
        }
        let chunk = &good[start..end];
        let memories = chunk.iter().map(|(_, p)| p.memory.clone()).collect();
        let body = run(&target, Op::RememberBatch { memories })?;
        let res: Vec<Remembered> = decode(body["results"].clone())?;
        if a.print_ids {
            let s: String = chunk
                .iter()
                .zip(&res)
                .map(|((n, _), r)| format!("{n}\t{}\n", r.id))
                .collect();
            crate::output::print(s.trim_end()).map_err(|e| Error::io("writing to stdout", e))?;
        }
        for r in &res {
            if r.existed {
                existed += 1;
            } else {
                added += 1;
                if r.embedded {
                    embedded += 1;
                }
            }
        }
        for (_, p) in chunk {
            for old in &p.supersedes {
                links.push(KeyLink {
                    profile: p
                        .memory
                        .profile
                        .clone()
                        .unwrap_or_else(|| g.profile.clone()),
                    new_key: p.memory.idempotency_key.clone().unwrap_or_default(),
                    old_ref: old.clone(),
                });
            }
        }
        pb.inc(chunk.len() as u64);
        start = end;
    }
    pb.finish_and_clear();
    // Links last: a line may name a memory that comes after it.
    let mut report = LinkReport::default();
    for chunk in links.chunks(LINKS_PER_REQUEST) {
        let r: LinkReport = decode(run(
            &target,
            Op::SupersedeKeys {
                links: chunk.to_vec(),
            },
        )?)?;
        report.linked += r.linked;
        report.already += r.already;
        report.unresolved.extend(r.unresolved);
    }
    let body = json!({
        "format": "jsonl",
        "imported": added,
        "already_present": existed,
        "embedded": embedded,
        "bad_lines": bad.iter().map(|(n, e)| json!({"line": n, "error": e})).collect::<Vec<_>>(),
        "links": { "linked": report.linked, "already": report.already, "unresolved": report.unresolved },
        "served_by": target.served_by(),
        "model": target.model_missing().map_or_else(|| json!("loaded"), |s| json!({"missing": s})),
    });
    if !a.print_ids || style.json {
        let status = target.model_missing();
        emit(style, "import", body, || {
            let mut s = format!(
                "imported {added} memories ({existed} already present, {embedded} embedded)"
            );
            if report.linked + report.already > 0 {
                s.push_str(&format!(
                    "\nlinked {} corrections ({} already linked)",
                    report.linked, report.already
                ));
            }
            for l in &report.unresolved {
                s.push_str(&format!(
                    "\nnot linked: {} supersedes {} (no such key in profile {})",
                    l.new_key, l.old_ref, l.profile
                ));
            }
            for (n, e) in &bad {
                s.push_str(&format!("\nskipped line {n}: {e}"));
            }
            if let Some(st) = &status {
                s.push_str(&format!("\nno embedding model ({st}); keyword search only until `slm reindex` after setup"));
            }
            s
        })?;
    }
    Ok(0)
}

fn import_notes(a: ImportArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let now = crate::Clock::from_env()?.now();
    let (found, mut skipped) = notes::collect(&a.file)?;
    let paths = Paths::from_env();
    let model = if a.dry_run {
        ModelMode::Skip
    } else {
        ModelMode::Load
    };
    let target = Target::connect(&paths, Mode::resolve(g.no_worker)?, model)?;
    let pb = crate::progress::bar(found.len() as u64, "files");
    let mut outcomes: Vec<Outcome> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();
    let mut files = 0usize;
    for f in found {
        pb.inc(1);
        let (front, chunks) = notes::split(&f.text);
        let path = f.path.display().to_string();
        if chunks.is_empty() {
            skipped.push(Skipped {
                path,
                reason: "no paragraphs in it".into(),
            });
            continue;
        }
        let event_at = match front.date.as_deref() {
            Some(d) => match crate::timeparse::parse_point(d, now) {
                Ok(t) => Some(t.timestamp_millis()),
                Err(e) => {
                    warnings.push(format!(
                        "{path}: front matter date {d:?} not understood ({e}); the file's modification time is used"
                    ));
                    None
                }
            },
            None => None,
        }
        .or(f.modified_ms)
        .unwrap_or_else(|| now.timestamp_millis());
        let mut tags = f.tags.clone();
        for t in front.tags {
            if !tags.contains(&t) {
                tags.push(t);
            }
        }
        let file = NotesFile {
            profile: g.profile.clone(),
            path: path.clone(),
            tags,
            event_at,
            chunks,
        };
        let body = run(
            &target,
            Op::ImportNotes {
                file,
                dry_run: a.dry_run,
            },
        )
        .map_err(|e| {
            Error::Other(format!(
                "stopped at {path}: {e}. The files before it are imported; running the same import again continues (nothing is stored twice)"
            ))
        })?;
        outcomes.push(decode(body)?);
        files += 1;
    }
    pb.finish_and_clear();
    let created: usize = outcomes.iter().map(|o| o.created.len()).sum();
    let changed: usize = outcomes.iter().map(|o| o.changed.len()).sum();
    let unchanged: usize = outcomes.iter().map(|o| o.unchanged).sum();
    let gone: usize = outcomes.iter().map(|o| o.gone.len()).sum();
    let superseded: Vec<i64> = outcomes
        .iter()
        .flat_map(|o| o.changed.iter().filter_map(|c| c.supersedes))
        .collect();
    let body = json!({
        "format": "markdown",
        "dry_run": a.dry_run,
        "files": files,
        "created": created,
        "changed": changed,
        "unchanged": unchanged,
        "superseded": superseded,
        "no_longer_in_files": gone,
        "skipped": skipped,
        "warnings": warnings,
        "outcomes": outcomes,
        "served_by": target.served_by(),
    });
    emit(style, "import", body, || {
        let verb = if a.dry_run { "would create" } else { "created" };
        let mut s = String::new();
        if a.dry_run {
            for o in &outcomes {
                for c in &o.created {
                    s.push_str(&format!(
                        "+ {}:{}  {}\n",
                        o.path,
                        c.line,
                        style.text(&c.preview)
                    ));
                }
                for c in &o.changed {
                    s.push_str(&format!(
                        "~ {}:{}  {}  (supersedes {})\n",
                        o.path,
                        c.line,
                        style.text(&c.preview),
                        c.supersedes.unwrap_or_default()
                    ));
                }
            }
        }
        s.push_str(&format!(
            "{files} files: {verb} {created} memories, {} {changed} changed paragraphs (superseding their old memories), {unchanged} unchanged",
            if a.dry_run { "would store" } else { "stored" }
        ));
        if gone > 0 {
            s.push_str(&format!(
                "\n{gone} memories from an earlier import are no longer in their files (kept; `slm forget` removes them)"
            ));
        }
        if !skipped.is_empty() {
            s.push_str(&format!("\nskipped {} files:", skipped.len()));
            for k in &skipped {
                s.push_str(&format!("\n  {}: {}", k.path, k.reason));
            }
        }
        for w in &warnings {
            s.push_str(&format!("\nnote: {w}"));
        }
        s
    })?;
    Ok(0)
}
