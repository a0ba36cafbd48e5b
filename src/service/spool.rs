//! The capture spool: a hook writes its capture here (durable) before anything else, so a
//! capture that runs out of time, finds the store busy or finds no worker is never lost.
//!
//! Who empties it: a hook without a worker saves its own capture and what earlier hooks
//! left (cold, in its own time budget); with a worker running, the hook only tells the
//! worker, which answers at once and saves the spool on its own thread ([`drain`]), so a
//! hook never waits behind an import's writes (issue 35: the hook's p99 ≤ 50 ms while the
//! worker imports). Every capture carries an idempotency key, so one delivered twice (a
//! drain interrupted after its commit) is stored once.

use crate::engine::{Embed, Engine};
use crate::memory::NewMemory;
use crate::{Error, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Spooled captures a drain saves in one transaction, at most: one keyword-index commit
/// for many captures when hooks fired faster than the store took them. Chosen, not
/// measured: a capture is one or two short memories, so 64 is a small import batch.
pub const DRAIN_FILES: usize = 64;

/// The spool: a capture is written here (durable) before it is sent, and removed once the
/// store acknowledged it, so a capture that runs out of time or finds the store busy is
/// delivered by the next one instead of being lost.
pub fn spool_dir(paths: &crate::paths::Paths) -> PathBuf {
    paths.data.join("spool")
}

/// Write a capture's memories to the spool; returns the file.
pub fn spool(dir: &Path, memories: &[NewMemory]) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let file = dir.join(format!(
        "capture-{}-{}.json",
        now.as_micros(),
        std::process::id()
    ));
    crate::paths::write_atomic(&file, &serde_json::to_vec(memories)?)?;
    Ok(file)
}

/// Spooled captures left by earlier hooks, oldest first. A file a hook took and did not
/// finish (the process ended at its time limit) is put back first.
pub fn spooled(dir: &Path) -> Vec<PathBuf> {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    let mut v = Vec::new();
    for p in files {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !name.starts_with("capture-") {
            continue;
        }
        if name.ends_with(".json") {
            v.push(p);
        } else if let Some((stem, pid)) = name.rsplit_once(".taking") {
            let dead = pid
                .parse::<i32>()
                .is_ok_and(|pid| !crate::paths::process_alive(pid));
            let back = p.with_file_name(format!("{stem}.json"));
            if dead && std::fs::rename(&p, &back).is_ok() {
                v.push(back);
            }
        }
    }
    v.sort();
    v
}

/// Take a spooled file for delivery: renamed first, so two hooks never send the same file
/// at once (the keys would make it harmless, but it would be work twice). `None`: another
/// hook has it, or it is unreadable (it is then left where it is, for `slm doctor`).
pub fn take(file: &Path) -> Option<(PathBuf, Vec<NewMemory>)> {
    let taken = file.with_extension(format!("taking{}", std::process::id()));
    std::fs::rename(file, &taken).ok()?;
    match std::fs::read(&taken)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
    {
        Some(m) => Some((taken, m)),
        None => {
            let _ = std::fs::rename(&taken, file);
            None
        }
    }
}

/// Put a taken file back for a later hook (its delivery failed).
pub fn give_back(taken: &Path, original: &Path) {
    let _ = std::fs::rename(taken, original);
}

/// What a [`drain`] did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Drained {
    /// Spool files saved (and removed).
    pub files: usize,
    /// Memories in them (a memory already stored counts: it was acknowledged again).
    pub memories: usize,
    /// Files the store refused for good (renamed `*.rejected`, kept for a person to read).
    pub rejected: usize,
}

/// Save the spooled captures with `engine`, oldest first, [`DRAIN_FILES`] at a time, their
/// embeddings left to background work ([`Embed::Later`]). A file is removed only after the
/// commit that saved it. When the store is busy or failing, what was taken is put back and
/// the error returned (a later drain retries); a batch the store refuses for another
/// reason is retried a file at a time, and a file it still refuses is renamed
/// `*.rejected` (never deleted) so it does not block the ones behind it.
pub fn drain(engine: &Engine, dir: &Path) -> Result<Drained> {
    let mut out = Drained::default();
    for group in spooled(dir).chunks(DRAIN_FILES) {
        let taken: Vec<(PathBuf, PathBuf, Vec<NewMemory>)> = group
            .iter()
            .filter_map(|f| take(f).map(|(t, m)| (f.clone(), t, m)))
            .collect();
        let all: Vec<NewMemory> = taken.iter().flat_map(|(_, _, m)| m.clone()).collect();
        match engine.remember_batch_with(all, &mut |_| {}, Embed::Later) {
            Ok(saved) => {
                for (_, t, _) in &taken {
                    let _ = std::fs::remove_file(t);
                }
                out.files += taken.len();
                out.memories += saved.len();
            }
            Err(e) if passing(&e) => {
                for (f, t, _) in &taken {
                    give_back(t, f);
                }
                return Err(e);
            }
            Err(_) => {
                for (f, t, m) in taken {
                    match engine.remember_batch_with(m, &mut |_| {}, Embed::Later) {
                        Ok(saved) => {
                            let _ = std::fs::remove_file(&t);
                            out.files += 1;
                            out.memories += saved.len();
                        }
                        Err(e) if passing(&e) => {
                            give_back(&t, &f);
                            return Err(e);
                        }
                        Err(e) => {
                            let kept = f.with_extension("rejected");
                            let _ = std::fs::rename(&t, &kept);
                            eprintln!(
                                "slm: a spooled capture was refused ({e}); it is kept in {}",
                                kept.display()
                            );
                            out.rejected += 1;
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

/// How often a worker looks at the spool without being told (captures a hook saved cold, or
/// spooled while no worker ran). Chosen, not measured: a hook tells the worker at once; this
/// only bounds how long a capture nobody announced waits.
pub const SPOOL_LOOK: std::time::Duration = std::time::Duration::from_secs(5);

/// The worker's spool thread: save the spool when `woken` (a hook wrote to it) and every
/// [`SPOOL_LOOK`], until `stop` says so; `saved` runs after a drain that saved anything. A
/// failed save (the store busy past its wait) is retried at the next wake or look; nothing
/// leaves the spool until it is saved.
pub fn keep_saving(
    engine: &Engine,
    woken: &crossbeam_channel::Receiver<()>,
    stop: impl Fn() -> bool,
    saved: impl Fn(),
) {
    let dir = spool_dir(&engine.paths);
    while !stop() {
        match drain(engine, &dir) {
            Ok(d) if d.files > 0 => saved(),
            Ok(_) => {}
            Err(e) => {
                eprintln!("slm worker: saving the capture spool failed ({e}); retrying later")
            }
        }
        let _ = woken.recv_timeout(SPOOL_LOOK);
    }
}

/// An error that passes (the store busy, a disk or lock problem): the capture waits.
fn passing(e: &Error) -> bool {
    !matches!(e, Error::Input(_) | Error::Usage(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spooled_capture_is_taken_once_and_can_be_given_back() {
        let dir = tempfile::tempdir().unwrap();
        let m = vec![NewMemory {
            text: "keep me".into(),
            ..Default::default()
        }];
        let f = spool(dir.path(), &m).unwrap();
        assert_eq!(spooled(dir.path()), vec![f.clone()]);
        let (taken, back) = take(&f).unwrap();
        assert_eq!(back[0].text, "keep me");
        assert!(take(&f).is_none(), "a taken file is not taken twice");
        assert!(spooled(dir.path()).is_empty());
        give_back(&taken, &f);
        assert_eq!(spooled(dir.path()), vec![f.clone()]);
        // taken by a process that is gone: put back
        let orphan = f.with_extension("taking999999999");
        std::fs::rename(&f, &orphan).unwrap();
        assert_eq!(spooled(dir.path()), vec![f]);
    }
}
