//! `slm import`: JSON Lines (the format `slm export` writes) or a folder of notes.
//!
//! Both read their input here, resolve it into requests (`RememberBatch` and
//! `SupersedeKeys` for JSON Lines, one `ImportNotes` per notes file as the walk meets it, then
//! one sweep for the files gone) and send them through a [`Target`]: the warm worker when it
//! runs, one engine in this process otherwise.

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
    if let Some(from) = a.from {
        return super::backfill_cmd::backfill(from, &a, g, style);
    }
    let Some(file) = a.file.clone() else {
        return Err(Error::Usage(
            "import needs a FILE or folder (or --from claude-code|codex)".into(),
        ));
    };
    let file = file.as_path();
    let markdown = match a.format {
        ImportFormat::Media => return super::import_media::import_media(file, &a, g, style),
        ImportFormat::Markdown => true,
        ImportFormat::Jsonl => false,
        ImportFormat::Auto => {
            file.as_os_str() != "-" && (file.is_dir() || notes::is_notes_path(file))
        }
    };
    if markdown {
        if file.as_os_str() == "-" {
            return Err(Error::Usage(
                "--format markdown reads files and folders, not standard input".into(),
            ));
        }
        return import_notes(file, a, g, style);
    }
    if a.follow_links {
        return Err(Error::Usage(
            "--follow-links is for notes (--format markdown): a JSON Lines file is read as it is"
                .into(),
        ));
    }
    if a.dry_run {
        return Err(Error::Usage(
            "--dry-run is for notes (--format markdown); a JSON Lines import is resumable, so run it".into(),
        ));
    }
    if file.is_dir() {
        return Err(Error::Usage(format!(
            "{} is a folder: a folder is imported as notes (--format markdown)",
            file.display()
        )));
    }
    import_lines(file, a, g, style)
}

/// An import that failed after `done` of `total` lines were saved says so: an error must
/// say what was written. A restore that replaced the store part way kept those lines in
/// the store it moved aside; running the import again puts every line in the restored one
/// (lines already there are recognised, not duplicated).
fn stopped_part_way(e: Error, done: usize, total: usize) -> Error {
    if done == 0 {
        return e;
    }
    match e {
        Error::StoreReplaced => Error::Other(format!(
            "the store was replaced by `slm restore` after {done} of {total} lines were imported: those {done} are in the store the restore kept aside (store.db.before-restore-*), the other {} were not written. Run the import again to put them all in the restored store",
            total - done
        )),
        e => Error::Other(format!(
            "{e}; the first {done} of {total} lines were saved before this, the rest were not (running the import again finishes it without duplicating them)"
        )),
    }
}

fn run(target: &Target, op: Op) -> Result<serde_json::Value> {
    Ok(target.run(Request { op, human: None })?.body)
}

fn decode<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Result<T> {
    serde_json::from_value(v).map_err(|e| Error::Other(format!("an unreadable answer: {e}")))
}

fn import_lines(
    file: &std::path::Path,
    a: ImportArgs,
    g: &GlobalArgs,
    style: Style,
) -> Result<i32> {
    let raw = if file.as_os_str() == "-" {
        read_stdin()?
    } else {
        let bytes =
            std::fs::read(file).map_err(|e| Error::io(format!("reading {}", file.display()), e))?;
        String::from_utf8(bytes).map_err(|e| {
            Error::Input(format!(
                "{} is not valid UTF-8 (first bad byte at offset {}); nothing was imported",
                file.display(),
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
            Ok(mut p) => {
                p.memory.allow_secrets = a.allow_secrets;
                // A line keeps the project it names; --project names one for lines without.
                if p.memory.project.is_none() {
                    p.memory.project.clone_from(&g.project);
                }
                good.push((i + 1, p))
            }
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
    let mut redacted: Vec<String> = Vec::new();
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
        let body = run(
            &target,
            Op::RememberBatch {
                memories,
                embed: crate::engine::Embed::Now,
            },
        )
        .map_err(|e| stopped_part_way(e, start, good.len()))?;
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
                redacted.extend(r.redacted_kinds.iter().cloned());
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
        "redacted": redacted.len(),
        "redacted_kinds": redacted,
        "bad_lines": bad.iter().map(|(n, e)| json!({"line": n, "error": e})).collect::<Vec<_>>(),
        "links": { "linked": report.linked, "already": report.already, "unresolved": report.unresolved },
        "served_by": target.served_by(),
        "model": target.model_missing().map_or_else(|| json!("loaded"), |s| json!({"missing": s})),
    });
    if !a.print_ids || style.json {
        let status = target.model_missing();
        emit(style, "import", body, || {
            let mut s = format!(
                "imported {added} memories ({existed} already present, {embedded} embedded{})",
                secrets_note(&redacted)
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

/// Planned memories an import report lists at most (created and changed, over all files);
/// past it the report gives counts only, so a report's size does not grow with the folder's
/// (300 files of 1 MB are ~250,000 paragraphs). Ten thousand lines is more than a person
/// reads; the counts stay exact.
const MAX_LISTED: usize = 10_000;
/// Ids a person is shown per file gone (the JSON lists them all).
const MAX_IDS_SHOWN: usize = 50;

/// What a notes import did, gathered file by file as the files are imported.
#[derive(Default)]
struct NotesReport {
    files: usize,
    created: usize,
    changed: usize,
    unchanged: usize,
    gone: usize,
    superseded: Vec<i64>,
    /// Per file, with its planned memories while fewer than MAX_LISTED are listed.
    outcomes: Vec<Outcome>,
    listed: usize,
    truncated: bool,
    files_gone: Vec<notes::GoneFile>,
    skipped: Vec<Skipped>,
    warnings: Vec<String>,
    /// The kinds of the secrets redacted, one per secret, over all files.
    redacted: Vec<String>,
}

impl NotesReport {
    fn add(&mut self, mut o: Outcome) {
        self.files += 1;
        self.created += o.created.len();
        self.changed += o.changed.len();
        self.unchanged += o.unchanged;
        self.gone += o.gone.len();
        self.redacted.append(&mut o.redacted_kinds);
        let n = o.created.len() + o.changed.len();
        if self.listed + n > MAX_LISTED {
            self.truncated = true;
            o.created.clear();
            o.changed.clear();
        } else {
            self.listed += n;
            self.superseded
                .extend(o.changed.iter().filter_map(|c| c.supersedes));
        }
        if o.created.is_empty() && o.changed.is_empty() && o.gone.is_empty() {
            return; // nothing to say about this file
        }
        self.outcomes.push(o);
    }
}

fn import_notes(
    file: &std::path::Path,
    a: ImportArgs,
    g: &GlobalArgs,
    style: Style,
) -> Result<i32> {
    let now = crate::Clock::from_env()?.now();
    let root = notes::open_root(file)?;
    let paths = Paths::from_env();
    let model = if a.dry_run {
        ModelMode::Skip
    } else {
        ModelMode::Load
    };
    let target = Target::connect(&paths, Mode::resolve(g.no_worker)?, model)?;
    let pb = crate::progress::bar(0, "files");
    let mut r = NotesReport::default();
    // File by file: walk, read, split and send one file, then the next (nothing of a file
    // is kept past its request but what the report lists).
    root.walk(a.follow_links, &mut |entry| {
        let found = match entry {
            notes::Entry::Skipped(s) => {
                r.skipped.push(s);
                return Ok(());
            }
            notes::Entry::File(f) => f,
        };
        pb.inc_length(1);
        pb.inc(1);
        let path = found.path.display().to_string();
        let (text, modified_ms) = match notes::read(&found.path) {
            Ok(t) => t,
            Err(reason) => {
                r.skipped.push(Skipped { path, reason });
                return Ok(());
            }
        };
        let (front, chunks) = notes::split(&text);
        drop(text);
        if chunks.is_empty() {
            r.skipped.push(Skipped {
                path,
                reason: "no paragraphs in it".into(),
            });
            return Ok(());
        }
        let event_at = match front.date.as_deref() {
            Some(d) => match crate::timeparse::parse_point(d, now) {
                Ok(t) => Some(t.timestamp_millis()),
                Err(e) => {
                    r.warnings.push(format!(
                        "{path}: front matter date {d:?} not understood ({e}); the file's modification time is used"
                    ));
                    None
                }
            },
            None => None,
        }
        .or(modified_ms)
        .unwrap_or_else(|| now.timestamp_millis());
        let mut tags = found.tags;
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
            sweep: false,
            allow_secrets: a.allow_secrets,
        };
        let body = run(
            &target,
            Op::ImportNotes {
                file,
                dry_run: a.dry_run,
            },
        )
        .map_err(|e| stopped_at(&path, e))?;
        r.add(decode(body)?);
        Ok(())
    })?;
    pb.finish_and_clear();
    if root.is_folder {
        let folder = root.path.display().to_string();
        let sweep = NotesFile {
            profile: g.profile.clone(),
            path: folder.clone(),
            tags: Vec::new(),
            event_at: 0,
            chunks: Vec::new(),
            sweep: true,
            allow_secrets: a.allow_secrets,
        };
        // The files are imported by now: a failed check is a warning, not a failed import.
        let swept = run(
            &target,
            Op::ImportNotes {
                file: sweep,
                dry_run: a.dry_run,
            },
        )
        .and_then(decode::<Outcome>);
        match swept {
            Ok(o) => {
                r.gone += o.files_gone.iter().map(|f| f.ids.len()).sum::<usize>();
                r.files_gone = o.files_gone;
            }
            Err(e) => r.warnings.push(format!(
                "the files gone since an earlier import of {folder} were not looked for: {e}"
            )),
        }
    }
    let body = json!({
        "format": "markdown",
        "dry_run": a.dry_run,
        "files": r.files,
        "created": r.created,
        "changed": r.changed,
        "unchanged": r.unchanged,
        "superseded": r.superseded,
        "no_longer_in_files": r.gone,
        "redacted": r.redacted.len(),
        "redacted_kinds": r.redacted,
        "files_gone": r.files_gone,
        "skipped": r.skipped,
        "warnings": r.warnings,
        "outcomes": r.outcomes,
        "outcomes_truncated": r.truncated,
        "served_by": target.served_by(),
    });
    emit(style, "import", body, || {
        human_notes_report(&r, a.dry_run, style)
    })?;
    Ok(0)
}

/// "; 1 secret redacted: github token" after an import's counts (nothing when none was).
fn secrets_note(kinds: &[String]) -> String {
    if kinds.is_empty() {
        String::new()
    } else {
        format!("; {}", crate::text::redaction_summary(kinds))
    }
}

/// A failed request names the file it stopped at and how to go on.
fn stopped_at(path: &str, e: Error) -> Error {
    Error::Other(format!(
        "stopped at {path}: {e}. The files before it are imported; running the same import again continues (nothing is stored twice)"
    ))
}

fn human_notes_report(r: &NotesReport, dry_run: bool, style: Style) -> String {
    let verb = if dry_run { "would create" } else { "created" };
    let mut s = String::new();
    if dry_run {
        for o in &r.outcomes {
            for c in &o.created {
                s.push_str(&format!(
                    "+ {}:{}  {}\n",
                    style.text(&o.path),
                    c.line,
                    style.text(&c.preview)
                ));
            }
            for c in &o.changed {
                s.push_str(&format!(
                    "~ {}:{}  {}  (supersedes {})\n",
                    style.text(&o.path),
                    c.line,
                    style.text(&c.preview),
                    c.supersedes.unwrap_or_default()
                ));
            }
        }
        if r.truncated {
            s.push_str(&format!(
                "… the first {MAX_LISTED} are listed; the counts below are all of them\n"
            ));
        }
    }
    s.push_str(&format!(
        "{} files: {verb} {} memories, {} {} changed paragraphs (superseding their old memories), {} unchanged",
        r.files,
        r.created,
        if dry_run { "would store" } else { "stored" },
        r.changed,
        r.unchanged
    ));
    if !r.redacted.is_empty() {
        s.push_str(&format!(
            " ({})",
            crate::text::redaction_summary(&r.redacted)
        ));
    }
    let in_files: Vec<&Outcome> = r.outcomes.iter().filter(|o| !o.gone.is_empty()).collect();
    if r.gone > 0 {
        s.push_str(&format!(
            "\n{} memories from an earlier import are no longer in their files (kept; `slm delete ID…` removes them):",
            r.gone
        ));
        for o in &in_files {
            s.push_str(&format!(
                "\n  {} (paragraphs no longer in it): {}",
                style.text(&o.path),
                delete_hint(&o.gone)
            ));
        }
        for f in &r.files_gone {
            s.push_str(&format!(
                "\n  {} (the file is gone): {}",
                style.text(&f.path),
                delete_hint(&f.ids)
            ));
        }
    }
    if !r.skipped.is_empty() {
        s.push_str(&format!("\nskipped {} files:", r.skipped.len()));
        for k in &r.skipped {
            s.push_str(&format!(
                "\n  {}: {}",
                style.text(&k.path),
                style.text(&k.reason)
            ));
        }
    }
    for w in &r.warnings {
        s.push_str(&format!("\nnote: {}", style.text(w)));
    }
    s
}

/// `slm delete 3 4 5` for a list of ids (the first MAX_IDS_SHOWN, then how many more).
fn delete_hint(ids: &[i64]) -> String {
    let shown: Vec<String> = ids
        .iter()
        .take(MAX_IDS_SHOWN)
        .map(|i| i.to_string())
        .collect();
    let more = ids.len().saturating_sub(MAX_IDS_SHOWN);
    let mut s = format!("{} memories, `slm delete {}`", ids.len(), shown.join(" "));
    if more > 0 {
        s.push_str(&format!(" (and {more} more ids: see --json)"));
    }
    s
}
