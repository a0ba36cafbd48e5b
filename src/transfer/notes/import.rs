//! Importing one file on the engine: the plan run as one batch of writes (or, on a dry run,
//! only reported).

use super::{Chunk, NotesFile, Outcome, Planned, Step, chunk_key, key_prefix, plan};
use crate::Result;
use crate::engine::Engine;
use crate::memory::{Kind, NewMemory, Source};
use std::collections::HashMap;

/// The line an origin `path:line` names.
fn origin_line(origin: Option<&str>) -> usize {
    origin
        .and_then(|o| o.rsplit_once(':'))
        .and_then(|(_, l)| l.parse().ok())
        .unwrap_or(usize::MAX)
}

/// Import one file on `engine` (or, with `dry_run`, say what that would do).
pub fn import_file(engine: &Engine, f: &NotesFile, dry_run: bool) -> Result<Outcome> {
    // The memories an earlier import made of this file that still stand, in file order then.
    let existing = engine.keys_with_prefix(&f.profile, &key_prefix(&f.path))?;
    let ids: Vec<i64> = existing.iter().map(|(_, id)| *id).collect();
    let states: HashMap<i64, (Option<String>, bool)> = engine
        .origins(&ids)?
        .into_iter()
        .map(|(id, o, sup)| (id, (o, sup)))
        .collect();
    let mut old: Vec<(String, i64, usize)> = existing
        .into_iter()
        .filter_map(|(k, id)| match states.get(&id) {
            Some((o, false)) => Some((k, id, origin_line(o.as_deref()))),
            _ => None,
        })
        .collect();
    old.sort_by_key(|(_, id, line)| (*line, *id));
    // A paragraph written twice in one file is one memory.
    let mut seen = std::collections::HashSet::new();
    let chunks: Vec<(&Chunk, String)> = f
        .chunks
        .iter()
        .map(|c| (c, chunk_key(&f.path, &c.text)))
        .filter(|(_, k)| seen.insert(k.clone()))
        .collect();
    let old_keys: Vec<String> = old.iter().map(|(k, _, _)| k.clone()).collect();
    let new_keys: Vec<String> = chunks.iter().map(|(_, k)| k.clone()).collect();
    let (steps, gone) = plan(&old_keys, &new_keys);
    let mut out = Outcome {
        path: f.path.clone(),
        gone: gone.iter().map(|&j| old[j].1).collect(),
        ..Default::default()
    };
    let mut writes: Vec<(NewMemory, bool)> = Vec::new();
    let mut moved: Vec<(i64, String)> = Vec::new();
    for ((c, key), step) in chunks.iter().zip(&steps) {
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
        let planned = Planned {
            line: c.line,
            id: None,
            supersedes,
            preview: crate::text::preview(&c.text.replace('\n', " — "), 70),
        };
        if supersedes.is_some() {
            out.changed.push(planned);
        } else {
            out.created.push(planned);
        }
        writes.push((
            NewMemory {
                text: c.text.clone(),
                kind: Some(Kind::Note),
                source: Some(Source::Import),
                profile: Some(f.profile.clone()),
                tags: f.tags.clone(),
                event_at: Some(f.event_at),
                idempotency_key: Some(key.clone()),
                supersedes,
                origin: Some(origin),
                ..Default::default()
            },
            supersedes.is_some(),
        ));
    }
    if dry_run {
        return Ok(out);
    }
    if !writes.is_empty() {
        let results =
            engine.remember_batch(writes.iter().map(|(m, _)| m.clone()).collect(), &mut |_| {})?;
        let (mut c, mut ch) = (0, 0);
        for (r, (_, is_change)) in results.iter().zip(&writes) {
            if *is_change {
                out.changed[ch].id = Some(r.id);
                ch += 1;
            } else {
                out.created[c].id = Some(r.id);
                c += 1;
            }
        }
    }
    engine.set_origins(&moved)?;
    Ok(out)
}
