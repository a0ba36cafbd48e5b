//! `remember`, `update`, `delete`, `forget` (`import` is in `import_cmd`).

use super::args::{DeleteArgs, ForgetArgs, GlobalArgs, RememberArgs, UpdateArgs};
use super::read_stdin;
use crate::engine::{Engine, ModelMode, OpenOptions};
use crate::memory::{Kind, MemoryPatch, NewMemory, Scope, Source};
use crate::output::Style;
use crate::output::emit;
use crate::paths::Paths;
use crate::service::Op;
use crate::service::resolve::{self, RecallInput, time_point};
use crate::{Error, Result};
use serde_json::json;

pub(crate) fn open(model: ModelMode) -> Result<Engine> {
    Engine::open(Paths::from_env(), OpenOptions::model(model))
}

pub fn remember(a: RememberArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let (text, picture) = match &a.image {
        Some(file) => {
            let note = match a.text.as_deref() {
                Some("-") => Some(read_stdin()?),
                other => other.map(str::to_string),
            };
            let (mut p, bytes) = crate::media::inspect(file)?;
            p.note = note.filter(|n| !n.trim().is_empty());
            // The original is kept before the memory is written: a memory never points at a
            // file that is not there.
            crate::media::save(&Paths::from_env(), &p, &bytes)?;
            (crate::media::memory_text(&p, &[]), Some(p))
        }
        None => match a.text.as_deref() {
            None | Some("-") => (read_stdin()?, None),
            Some(t) => (t.to_string(), None),
        },
    };
    crate::memory::validate_text(&text)?;
    let clock = crate::Clock::from_env()?;
    let source = Source::parse_flag("--source", a.source.as_deref())?;
    let m = NewMemory {
        text,
        kind: Kind::parse_flag("--kind", a.kind.as_deref())?,
        source,
        profile: Some(g.profile.clone()),
        scope: Scope::parse_flag("--scope", a.scope.as_deref())?,
        session_id: a.session,
        tags: a.tags,
        event_at: time_point("--at", a.at.as_deref(), clock.now())?,
        pinned: a.pin,
        idempotency_key: a.idempotency_key,
        supersedes: a.supersedes,
        allow_secrets: a.allow_secrets,
        project: super::current_project(g),
        picture,
        ..Default::default()
    };
    // The warm worker embeds it at once; a cold write leaves the embedding pending for the
    // worker's background work (loading the model costs more than the write).
    let kept = m.picture.clone();
    let code = super::forward::forward(Op::Remember { memory: m }, g, style, None)?;
    // A delete of the same picture between the save above and this write may have removed
    // the file (`Engine::delete`); now that a row keeps it, it stays once saved again.
    let paths = Paths::from_env();
    if let (Some(p), Some(file)) = (kept, &a.image)
        && !crate::media::path_of(&paths, &p.sha256, &p.ext).is_file()
    {
        let (now, bytes) = crate::media::inspect(file)?;
        if now.sha256 != p.sha256 {
            return Err(Error::Input(format!(
                "{} changed while it was saved; save it again",
                file.display()
            )));
        }
        crate::media::save(&paths, &p, &bytes)?;
    }
    Ok(code)
}

pub fn update(a: UpdateArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let clock = crate::Clock::from_env()?;
    let text = match a.text.as_deref() {
        Some("-") => Some(read_stdin()?),
        other => other.map(str::to_string),
    };
    let patch = MemoryPatch {
        text,
        kind: Kind::parse_flag("--kind", a.kind.as_deref())?,
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
        scope: Scope::parse_flag("--scope", a.scope.as_deref())?,
        event_at: time_point("--at", a.at.as_deref(), clock.now())?,
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
    let before = time_point("--before", a.before.as_deref(), clock.now())?;
    let engine = open(if a.query.is_some() {
        ModelMode::Load
    } else {
        ModelMode::Skip
    })?;
    let filter = crate::store::ListFilter {
        profile: Some(g.profile.clone()),
        kind: Kind::parse_flag("--kind", a.kind.as_deref())?,
        tag: a.tag.clone(),
        session_id: a.session.clone(),
        until: before,
        include_bookkeeping: true,
        project: super::current_project(g),
        ..Default::default()
    };
    let mut targets = engine.list(&filter)?;
    if let Some(q) = &a.query {
        let req = resolve::recall(
            &RecallInput {
                query: q.clone(),
                limit: 50,
                depth: 0,
                project: super::current_project(g),
                ..Default::default()
            },
            &g.profile,
        )?;
        // Choosing what to delete needs no answer: nothing is shown to a judge.
        let resp = crate::recall::run_unjudged(&engine, &req)?;
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
