//! `remember`, `import`, `update`, `delete`, `forget`.

use super::args::{DeleteArgs, ForgetArgs, GlobalArgs, ImportArgs, RememberArgs, UpdateArgs};
use super::{emit, parse_kind, parse_scope, parse_time, read_stdin};
use crate::engine::{Engine, ModelMode, OpenOptions, Remembered};
use crate::memory::{MemoryPatch, NewMemory, Source};
use crate::output::Style;
use crate::paths::Paths;
use crate::service::Op;
use crate::{Error, Result};
use serde::Deserialize;
use serde_json::json;

pub(crate) fn open(model: ModelMode) -> Result<Engine> {
    Engine::open(Paths::from_env(), OpenOptions::model(model))
}

pub fn remember(a: RememberArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let text = match a.text.as_deref() {
        None | Some("-") => read_stdin()?,
        Some(t) => t.to_string(),
    };
    crate::memory::validate_text(&text)?;
    let clock = crate::Clock::from_env()?;
    let source = a
        .source
        .as_deref()
        .map(|s| {
            Source::parse(s).ok_or_else(|| {
                Error::Usage(format!(
                    "--source {s:?}: expected one of {}",
                    Source::names()
                ))
            })
        })
        .transpose()?;
    let m = NewMemory {
        text,
        kind: parse_kind(&a.kind)?,
        source,
        profile: Some(g.profile.clone()),
        scope: parse_scope(&a.scope)?,
        session_id: a.session,
        tags: a.tags,
        event_at: parse_time("--at", &a.at, clock.now())?,
        pinned: a.pin,
        idempotency_key: a.idempotency_key,
        supersedes: a.supersedes,
        ..Default::default()
    };
    // The warm worker embeds it at once; a cold write leaves the embedding pending for the
    // worker's background work (loading the model costs more than the write).
    super::forward::forward(Op::Remember { memory: m }, g, style, None)
}

pub(crate) fn human_remembered(r: &Remembered, style: Style) -> String {
    let mut s = if r.existed {
        format!("already remembered as {}", style.bold(&r.id.to_string()))
    } else {
        format!("remembered {}", style.bold(&r.id.to_string()))
    };
    if let Some(b) = &r.bookkeeping {
        s.push_str(&style.dim(&format!(" (bookkeeping: {b}; kept out of answers)")));
    }
    if let Some(n) = &r.note {
        s.push_str(&style.dim(&format!("\n  note: {n}")));
    }
    s
}

/// One JSON Lines record. Unknown fields are an error, so a typo is not silently dropped.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ImportLine {
    text: String,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default, alias = "session")]
    session_id: Option<String>,
    #[serde(default)]
    speaker: Option<String>,
    #[serde(default, alias = "pin")]
    pinned: bool,
    #[serde(default)]
    profile: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    source: Option<String>,
    /// Event time: a date/time string or Unix milliseconds.
    #[serde(default, alias = "at")]
    event_at: Option<serde_json::Value>,
    #[serde(default)]
    valid_from: Option<serde_json::Value>,
    #[serde(default)]
    valid_until: Option<serde_json::Value>,
    /// The caller's id for this memory; importing it again stores nothing new.
    #[serde(default, alias = "idempotency_key")]
    id: Option<serde_json::Value>,
}

fn json_time(
    v: &Option<serde_json::Value>,
    field: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> std::result::Result<Option<i64>, String> {
    match v {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::Number(n)) => n
            .as_i64()
            .map(Some)
            .ok_or_else(|| format!("{field}: not an integer")),
        Some(serde_json::Value::String(s)) => crate::timeparse::parse_point(s, now)
            .map(|t| Some(t.timestamp_millis()))
            .map_err(|e| format!("{field}: {e}")),
        Some(_) => Err(format!(
            "{field}: expected a date string or Unix milliseconds"
        )),
    }
}

/// A stable 64-bit FNV-1a hash (std's hasher may change between Rust releases).
fn fnv64(s: &str) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in s.as_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

fn parse_line(
    raw: &str,
    g: &GlobalArgs,
    now: chrono::DateTime<chrono::Utc>,
) -> std::result::Result<NewMemory, String> {
    let l: ImportLine = serde_json::from_str(raw).map_err(|e| e.to_string())?;
    crate::memory::validate_text(&l.text).map_err(|e| e.to_string())?;
    let kind = l
        .kind
        .as_deref()
        .map(|k| {
            crate::memory::Kind::parse(k).ok_or_else(|| {
                format!(
                    "kind {k:?}: expected one of {}",
                    crate::memory::Kind::names()
                )
            })
        })
        .transpose()?;
    let scope = l
        .scope
        .as_deref()
        .map(|k| {
            crate::memory::Scope::parse(k).ok_or_else(|| {
                format!(
                    "scope {k:?}: expected one of {}",
                    crate::memory::Scope::names()
                )
            })
        })
        .transpose()?;
    let source = l
        .source
        .as_deref()
        .map(|k| {
            Source::parse(k)
                .ok_or_else(|| format!("source {k:?}: expected one of {}", Source::names()))
        })
        .transpose()?;
    // Without an id, the line itself is the key: re-running an interrupted import resumes
    // where it stopped instead of storing the first half twice.
    let key = match &l.id {
        Some(serde_json::Value::String(s)) => format!("id:{s}"),
        Some(serde_json::Value::Number(n)) => format!("id:{n}"),
        Some(_) => return Err("id: expected a string or a number".into()),
        None => format!("line:{:016x}", fnv64(raw.trim())),
    };
    Ok(NewMemory {
        text: l.text,
        kind,
        source: Some(source.unwrap_or(Source::Import)),
        profile: Some(match l.profile {
            Some(p) => crate::memory::parse_profile(&p).map_err(|e| format!("profile: {e}"))?,
            None => g.profile.clone(),
        }),
        scope,
        session_id: l.session_id,
        speaker: l.speaker,
        tags: l.tags,
        event_at: json_time(&l.event_at, "event_at", now)?,
        valid_from: json_time(&l.valid_from, "valid_from", now)?,
        valid_until: json_time(&l.valid_until, "valid_until", now)?,
        known_at: None,
        pinned: l.pinned,
        idempotency_key: Some(key),
        supersedes: None,
    })
}

pub fn import(a: ImportArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
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
    let mut good: Vec<(usize, NewMemory)> = Vec::new();
    let mut bad: Vec<(usize, String)> = Vec::new();
    for (i, line) in raw.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(line, g, now) {
            Ok(m) => good.push((i + 1, m)),
            Err(e) => bad.push((i + 1, e)),
        }
    }
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
    let engine = open(ModelMode::Load)?;
    let pb = crate::progress::bar(good.len() as u64, "importing");
    let (mut added, mut existed, mut embedded) = (0usize, 0usize, 0usize);
    let batch = a.batch.max(1);
    for chunk in good.chunks(batch) {
        let lines: Vec<usize> = chunk.iter().map(|(n, _)| *n).collect();
        let items: Vec<NewMemory> = chunk.iter().map(|(_, m)| m.clone()).collect();
        let print_ids = a.print_ids;
        let res = engine.remember_batch(items, &mut |acked| {
            if print_ids {
                let s: String = lines
                    .iter()
                    .zip(acked)
                    .map(|(n, r)| format!("{n}\t{}\n", r.id))
                    .collect();
                let _ = crate::output::print(s.trim_end());
            }
        })?;
        for r in &res {
            if r.existed {
                existed += 1;
            } else {
                added += 1;
            }
            if r.embedded && !r.existed {
                embedded += 1;
            }
        }
        pb.inc(chunk.len() as u64);
    }
    pb.finish_and_clear();
    let status = engine.model_status().map(|s| s.detail.clone());
    let body = json!({
        "imported": added,
        "already_present": existed,
        "embedded": embedded,
        "bad_lines": bad.iter().map(|(n, e)| json!({"line": n, "error": e})).collect::<Vec<_>>(),
        "model": status.clone().map_or_else(|| json!("loaded"), |s| json!({"missing": s})),
    });
    if !a.print_ids || style.json {
        emit(style, "import", body, || {
            let mut s = format!(
                "imported {added} memories ({existed} already present, {embedded} embedded)"
            );
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

pub fn update(a: UpdateArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let clock = crate::Clock::from_env()?;
    let text = match a.text.as_deref() {
        Some("-") => Some(read_stdin()?),
        other => other.map(str::to_string),
    };
    let patch = MemoryPatch {
        text,
        kind: parse_kind(&a.kind)?,
        tags: if a.tags.is_empty() {
            None
        } else {
            Some(a.tags)
        },
        pinned: if a.pin {
            Some(true)
        } else if a.unpin {
            Some(false)
        } else {
            None
        },
        scope: parse_scope(&a.scope)?,
        event_at: parse_time("--at", &a.at, clock.now())?,
        superseded_by: a.superseded_by.map(Some),
        ..Default::default()
    };
    let op = Op::Update {
        id: a.id,
        profile: g.profile.clone(),
        patch,
    };
    super::forward::forward(op, g, style, None)
}

pub fn delete(a: DeleteArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let op = Op::Delete {
        ids: a.ids,
        profile: g.profile.clone(),
    };
    super::forward::forward(op, g, style, None)
}

pub fn forget(a: ForgetArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    use std::io::IsTerminal;
    if a.query.is_none()
        && a.kind.is_none()
        && a.tag.is_none()
        && a.session.is_none()
        && a.before.is_none()
    {
        return Err(Error::Usage(
            "forget needs a query or a filter (--kind, --tag, --session, --before)".into(),
        ));
    }
    let clock = crate::Clock::from_env()?;
    let before = parse_time("--before", &a.before, clock.now())?;
    let engine = open(if a.query.is_some() {
        ModelMode::Load
    } else {
        ModelMode::Skip
    })?;
    let filter = crate::store::ListFilter {
        profile: Some(g.profile.clone()),
        kind: super::parse_kind(&a.kind)?,
        tag: a.tag.clone(),
        session_id: a.session.clone(),
        until: before,
        include_bookkeeping: true,
        ..Default::default()
    };
    let mut targets = engine.list(&filter)?;
    if let Some(q) = &a.query {
        let req = super::recall_cmd::resolve(
            &super::args::RecallArgs {
                query: q.clone(),
                limit: 50,
                depth: 0,
                ..Default::default()
            },
            g,
        )?;
        let resp = crate::recall::run(&engine, &req)?;
        let hit: std::collections::HashSet<i64> = resp
            .results
            .iter()
            .filter(|r| r.tier != crate::recall::tiers::Tier::Weak)
            .map(|r| r.id)
            .collect();
        targets.retain(|m| hit.contains(&m.id));
    }
    let ids: Vec<i64> = targets.iter().map(|m| m.id).collect();
    if a.dry_run || ids.is_empty() {
        emit(
            style,
            "forget",
            json!({ "dry_run": a.dry_run, "would_forget": ids, "forgotten": [] }),
            || {
                if ids.is_empty() {
                    return "nothing matches; nothing was forgotten".into();
                }
                let mut s = format!("would forget {} memories:", ids.len());
                for m in &targets {
                    s.push_str(&format!(
                        "\n  {:>6}  {}",
                        m.id,
                        style.text(&crate::text::preview(&m.text, 70))
                    ));
                }
                s
            },
        )?;
        return Ok(0);
    }
    if !a.yes {
        if !std::io::stdin().is_terminal() {
            return Err(Error::Usage(format!(
                "forget would delete {} memories; pass -y to confirm (or --dry-run to look)",
                ids.len()
            )));
        }
        eprint!("forget {} memories? [y/N] ", ids.len());
        let mut answer = String::new();
        std::io::stdin()
            .read_line(&mut answer)
            .map_err(|e| Error::io("reading the answer", e))?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            eprintln!("nothing was forgotten");
            return Ok(1);
        }
    }
    engine.delete(&ids)?;
    emit(
        style,
        "forget",
        json!({ "dry_run": false, "forgotten": ids }),
        || format!("forgot {} memories", ids.len()),
    )?;
    Ok(0)
}
