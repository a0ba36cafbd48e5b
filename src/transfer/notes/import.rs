//! Importing one file on the engine: the plan run as one batch of writes (or, on a dry run,
//! only reported); and, at the end of a folder, the sweep for files that are gone.

use super::{
    Chunk, GoneFile, NotesFile, Outcome, Planned, Step, chunk_key, key_path, key_prefix,
    key_text_hash, plan, text_hash,
};
use crate::Result;
use crate::engine::Engine;
use crate::memory::{Kind, NewMemory, Source};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The line an origin `path:line` names.
fn origin_line(origin: Option<&str>) -> usize {
    origin
        .and_then(|o| o.rsplit_once(':'))
        .and_then(|(_, l)| l.parse().ok())
        .unwrap_or(usize::MAX)
}

/// Import one file on `engine` (or, with `dry_run`, say what that would do); a sweep
/// reports the files gone under a folder instead.
pub fn import_file(engine: &Engine, f: &NotesFile, dry_run: bool) -> Result<Outcome> {
    if f.sweep {
        return sweep(engine, f);
    }
    // The memories an earlier import made of this file that still stand, in file order then,
    // with the hash of their text.
    let prefix = key_prefix(&f.path);
    let existing = engine.keys_with_prefix(&f.profile, &prefix)?;
    let ids: Vec<i64> = existing.iter().map(|(_, id)| *id).collect();
    let states: HashMap<i64, (Option<String>, bool)> = engine
        .origins(&ids)?
        .into_iter()
        .map(|(id, o, sup)| (id, (o, sup)))
        .collect();
    let mut old: Vec<(String, i64, usize)> = existing
        .iter()
        .filter_map(|(k, id)| match states.get(id) {
            Some((o, false)) => Some((
                key_text_hash(k, &prefix)?.to_string(),
                *id,
                origin_line(o.as_deref()),
            )),
            _ => None,
        })
        .collect();
    drop(existing);
    old.sort_by_key(|(_, id, line)| (*line, *id));
    // A paragraph written twice in one file is one memory.
    let mut seen = HashSet::new();
    let chunks: Vec<(&Chunk, String)> = f
        .chunks
        .iter()
        .map(|c| (c, text_hash(&c.text)))
        .filter(|(_, h)| seen.insert(h.clone()))
        .collect();
    let old_hashes: Vec<String> = old.iter().map(|(h, _, _)| h.clone()).collect();
    let new_hashes: Vec<String> = chunks.iter().map(|(_, h)| h.clone()).collect();
    let (steps, gone) = plan(&old_hashes, &new_hashes);
    let mut out = Outcome {
        path: f.path.clone(),
        gone: gone.iter().map(|&j| old[j].1).collect(),
        ..Default::default()
    };
    let mut writes: Vec<NewMemory> = Vec::new();
    let mut planned: Vec<Planned> = Vec::new();
    let mut moved: Vec<(i64, String)> = Vec::new();
    for ((c, _), step) in chunks.iter().zip(&steps) {
        let origin = format!("{}:{}", f.path, c.line);
        let supersedes = match step {
            Step::Unchanged(j) => {
                out.unchanged += 1;
                if old[*j].2 != c.line {
                    moved.push((old[*j].1, origin));
                }
                continue;
            }
            Step::Replaces(j) => Some(old[*j].1),
            Step::Created => None,
        };
        // What is shown is what would be stored: a secret is not printed either.
        let shown = if f.allow_secrets {
            std::borrow::Cow::Borrowed(c.text.as_str())
        } else {
            crate::text::redact_secrets(&c.text).text
        };
        planned.push(Planned {
            line: c.line,
            id: None,
            supersedes,
            preview: crate::text::preview(&shown.replace('\n', " — "), 70),
        });
        writes.push(NewMemory {
            text: c.text.clone(),
            kind: Some(Kind::Note),
            source: Some(Source::Import),
            profile: Some(f.profile.clone()),
            tags: f.tags.clone(),
            event_at: Some(f.event_at),
            // The key names the version: the same text in the place of another memory is a
            // new memory (a revert), never the superseded one that once held it.
            idempotency_key: Some(chunk_key(&f.path, &c.text, supersedes)),
            supersedes,
            origin: Some(origin),
            allow_secrets: f.allow_secrets,
            ..Default::default()
        });
    }
    if dry_run {
        if !f.allow_secrets {
            for w in &writes {
                let kinds = crate::text::redact_secrets(&w.text).kinds;
                out.redacted_kinds
                    .extend(kinds.into_iter().map(String::from));
            }
        }
        for p in planned {
            if p.supersedes.is_some() {
                out.changed.push(p);
            } else {
                out.created.push(p);
            }
        }
        return Ok(out);
    }
    let results = if writes.is_empty() {
        Vec::new()
    } else {
        engine.remember_batch(writes, &mut |_| {})?
    };
    // Report only what was written: a write whose key already stood stored nothing.
    for (mut p, r) in planned.into_iter().zip(&results) {
        if r.existed {
            out.unchanged += 1;
            continue;
        }
        out.redacted_kinds.extend(r.redacted_kinds.iter().cloned());
        p.id = Some(r.id);
        if p.supersedes.is_some() {
            out.changed.push(p);
        } else {
            out.created.push(p);
        }
    }
    engine.set_origins(&moved)?;
    Ok(out)
}

/// The files under the folder `f.path` that an earlier import made memories of and that no
/// longer exist, with their memories that still stand (nothing is written).
fn sweep(engine: &Engine, f: &NotesFile) -> Result<Outcome> {
    let folder = format!("md:{}/", f.path.trim_end_matches('/'));
    let mut by_file: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    let mut gone_file: HashMap<String, bool> = HashMap::new();
    for (key, id) in engine.keys_with_prefix(&f.profile, &folder)? {
        let Some(path) = key_path(&key) else { continue };
        let gone = *gone_file.entry(path.to_string()).or_insert_with(|| {
            matches!(std::fs::symlink_metadata(path), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
        });
        if gone {
            by_file.entry(path.to_string()).or_default().push(id);
        }
    }
    let mut out = Outcome {
        path: f.path.clone(),
        ..Default::default()
    };
    for (path, ids) in by_file {
        let mut standing: Vec<i64> = engine
            .origins(&ids)?
            .into_iter()
            .filter(|(_, _, superseded)| !superseded)
            .map(|(id, _, _)| id)
            .collect();
        standing.sort_unstable();
        if !standing.is_empty() {
            out.files_gone.push(GoneFile {
                path,
                ids: standing,
            });
        }
    }
    Ok(out)
}
