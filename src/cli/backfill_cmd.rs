//! `slm import --from claude-code|codex [DIR]`: a coding agent's past sessions as memories
//! (`transfer::history` reads them), sent in batches like any import, one session file at a
//! time with a progress bar. Every turn has its own key, so a second run adds nothing and
//! an interrupted one is finished by running it again.

use super::args::{GlobalArgs, ImportArgs};
use super::import_cmd::BATCH_BYTES;
use crate::Result;
use crate::engine::{ModelMode, Remembered};
use crate::error::Error;
use crate::memory::{Kind, NewMemory};
use crate::output::{Style, emit};
use crate::paths::Paths;
use crate::project::Choice;
use crate::service::{Op, Request};
use crate::transfer::history::{self, Agent};
use crate::worker::client::{Mode, Target};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub fn backfill(agent: Agent, a: &ImportArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    if a.follow_links || a.skip_bad || a.print_ids {
        return Err(Error::Usage(
            "--follow-links, --skip-bad and --print-ids are not for --from (unreadable lines are skipped and counted)".into(),
        ));
    }
    let dir = match &a.file {
        Some(d) => d.clone(),
        None => agent.default_dir().ok_or_else(|| {
            Error::Usage(format!(
                "no home folder to find {}'s sessions in; give the folder: slm import --from {} DIR",
                agent.id(),
                agent.id()
            ))
        })?,
    };
    if !dir.exists() {
        return Err(Error::Input(format!(
            "{} has no sessions at {} (nothing was imported); give the folder: slm import --from {} DIR",
            agent.id(),
            dir.display(),
            agent.id()
        )));
    }
    let files = agent.session_files(&dir);
    let choice = super::project_choice(g);
    let mut projects: HashMap<String, Option<String>> = HashMap::new();
    let mut project_for = |cwd: Option<&str>| -> Option<String> {
        match (&choice, cwd) {
            (Choice::Named(p), _) => Some(p.clone()),
            (Choice::All, _) | (Choice::Detect, None) => None,
            (Choice::Detect, Some(c)) => projects
                .entry(c.to_string())
                .or_insert_with(|| history::project_of(c))
                .clone(),
        }
    };
    let target = if a.dry_run {
        None
    } else {
        Some(Target::connect(
            &Paths::from_env(),
            Mode::resolve(g.no_worker)?,
            ModelMode::Load,
        )?)
    };
    let pb = crate::progress::bar(files.len() as u64, "sessions");
    let mut t = Totals::default();
    for file in &files {
        let session = agent
            .read(file)
            .map_err(|e| Error::io(format!("reading {}", file.display()), e))?;
        t.bad_lines += session.bad_lines;
        for (k, n) in &session.skipped {
            *t.skipped.entry(k.clone()).or_default() += n;
        }
        let memories: Vec<NewMemory> = session
            .turns
            .into_iter()
            .map(|turn| {
                let project = project_for(turn.cwd.as_deref());
                if let Some(p) = &project {
                    t.projects.insert(p.clone());
                }
                let mut m = turn.into_memory(agent, &g.profile, project);
                m.allow_secrets = a.allow_secrets;
                m
            })
            .collect();
        t.sessions += usize::from(!memories.is_empty());
        t.prompts += memories
            .iter()
            .filter(|m| m.kind == Some(Kind::Prompt))
            .count();
        t.replies += memories
            .iter()
            .filter(|m| m.kind == Some(Kind::Note))
            .count();
        if let Some(target) = &target {
            send(target, memories, a.batch.max(1), &mut t).map_err(|e| stopped(e, file, &t))?;
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    let body = json!({
        "format": agent.id(),
        "dry_run": a.dry_run,
        "folder": dir.display().to_string(),
        "files": files.len(),
        "sessions": t.sessions,
        "prompts": t.prompts,
        "replies": t.replies,
        "imported": t.added,
        "already_present": t.existed,
        "redacted": t.redacted,
        "projects": t.projects,
        "skipped": t.skipped,
        "bad_lines": t.bad_lines,
        "served_by": target.as_ref().map(|t| t.served_by()),
    });
    emit(style, "import", body, || report(agent, a.dry_run, &t))?;
    Ok(0)
}

#[derive(Default)]
struct Totals {
    sessions: usize,
    prompts: usize,
    replies: usize,
    added: usize,
    existed: usize,
    redacted: usize,
    bad_lines: usize,
    skipped: BTreeMap<String, usize>,
    projects: BTreeSet<String>,
}

/// One session's memories, in requests of at most `batch` memories and [`BATCH_BYTES`].
fn send(target: &Target, memories: Vec<NewMemory>, batch: usize, t: &mut Totals) -> Result<()> {
    let mut rest = memories.into_iter().peekable();
    while rest.peek().is_some() {
        let mut chunk = Vec::new();
        let mut bytes = 0;
        while let Some(m) = rest.peek() {
            if !chunk.is_empty() && (chunk.len() >= batch || bytes + m.text.len() > BATCH_BYTES) {
                break;
            }
            bytes += m.text.len();
            chunk.extend(rest.next());
        }
        let body = target
            .run(Request {
                op: Op::RememberBatch {
                    memories: chunk,
                    embed: crate::engine::Embed::Now,
                },
                human: None,
            })?
            .body;
        let res: Vec<Remembered> = serde_json::from_value(body["results"].clone())
            .map_err(|e| Error::Other(format!("an unreadable answer: {e}")))?;
        for r in res {
            if r.existed {
                t.existed += 1;
            } else {
                t.added += 1;
                t.redacted += r.redacted;
            }
        }
    }
    Ok(())
}

fn stopped(e: Error, file: &std::path::Path, t: &Totals) -> Error {
    Error::Other(format!(
        "{e} (at {}); {} memories were saved before this. Running the import again finishes it without duplicating them",
        file.display(),
        t.added
    ))
}

fn report(agent: Agent, dry_run: bool, t: &Totals) -> String {
    let mut s = if dry_run {
        format!(
            "would import from {} sessions of {}: {} prompts and {} replies (nothing was written)",
            t.sessions,
            agent.id(),
            t.prompts,
            t.replies
        )
    } else {
        format!(
            "imported {} memories from {} sessions of {} ({} prompts and {} replies read; {} already present)",
            t.added,
            t.sessions,
            agent.id(),
            t.prompts,
            t.replies,
            t.existed
        )
    };
    if t.redacted > 0 {
        s.push_str(&format!(
            "\n{} secrets were replaced by [redacted: KIND] (--allow-secrets keeps them)",
            t.redacted
        ));
    }
    if !t.projects.is_empty() {
        let names: Vec<&str> = t.projects.iter().map(String::as_str).collect();
        s.push_str(&format!("\nprojects: {}", names.join(", ")));
    }
    let left: usize = t.skipped.values().sum();
    if left > 0 {
        let kinds: Vec<String> = t.skipped.iter().map(|(k, n)| format!("{k} {n}")).collect();
        s.push_str(&format!("\nleft out: {left} lines ({})", kinds.join(", ")));
    }
    if t.bad_lines > 0 {
        s.push_str(&format!(
            "\n{} lines were not JSON and were skipped",
            t.bad_lines
        ));
    }
    s
}
