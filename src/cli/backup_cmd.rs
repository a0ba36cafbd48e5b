//! `slm backup PATH` and `slm restore PATH [--dry-run]` (the work is in `transfer::backup`).

use super::args::{BackupArgs, GlobalArgs, RestoreArgs};
use crate::engine::{Engine, ModelMode, OpenOptions};
use crate::lock::{WRITE_WAIT, WriteLock};
use crate::output::Style;
use crate::output::emit;
use crate::paths::Paths;
use crate::transfer::backup;
use crate::worker::server::STARTUP_LOCK_WAIT;
use crate::{Error, Result};
use serde_json::json;

pub fn backup(a: BackupArgs, _g: &GlobalArgs, style: Style) -> Result<i32> {
    let paths = Paths::from_env();
    let clock = crate::Clock::from_env()?;
    let started = std::time::Instant::now();
    let pb = crate::progress::bar(0, "backing up");
    let manifest = backup::backup(
        &paths.store(),
        &a.path,
        clock.now_ms(),
        &mut |done, total| {
            pb.set_length(total);
            pb.set_position(done);
        },
    )?;
    pb.finish_and_clear();
    // The pictures' originals the snapshot names, beside it (checked by their sha256).
    let media_dir = crate::transfer::media::media_dir_of(&a.path);
    let media = crate::transfer::media::copy_named(
        &a.path,
        &paths.data.join(crate::media::MEDIA_DIR),
        &media_dir,
    )?;
    let secs = started.elapsed().as_secs_f64();
    let mpath = backup::manifest_path(&a.path);
    emit(
        style,
        "backup",
        json!({
            "path": a.path.display().to_string(),
            "manifest_path": mpath.display().to_string(),
            "manifest": manifest,
            "media_path": (media.files > 0).then(|| media_dir.display().to_string()),
            "media": media,
            "seconds": secs,
        }),
        || {
            let mut s = format!(
                "backed up {} memories to {} ({:.1} MB, schema {}, sha256 {}…) in {secs:.1} s\nmanifest: {}",
                manifest.memories,
                a.path.display(),
                manifest.bytes as f64 / 1e6,
                manifest.schema_version,
                &manifest.sha256[..12],
                mpath.display(),
            );
            if media.files > 0 {
                s.push_str(&format!(
                    "\npictures: {} files in {}",
                    media.files - media.missing.len() as u64,
                    media_dir.display()
                ));
            }
            if !media.missing.is_empty() {
                s.push_str(&format!(
                    "\nwarning: {} picture files were not in the data dir to copy (first: {})",
                    media.missing.len(),
                    media.missing[0]
                ));
            }
            s.push_str(&format!("\nrestore with: slm restore {}", a.path.display()));
            s
        },
    )?;
    Ok(0)
}

pub fn restore(a: RestoreArgs, _g: &GlobalArgs, style: Style) -> Result<i32> {
    let paths = Paths::from_env();
    let clock = crate::Clock::from_env()?;
    let v = backup::verify(&a.path)?;
    let current: Vec<_> = backup::store_files(&paths);
    let current_count = if current.is_empty() {
        None
    } else {
        Some(
            crate::store::Store::open_reader(&paths.store())
                .and_then(|s| s.count())
                .map_err(|e| e.to_string()),
        )
    };
    let aside = backup::aside_path(&paths, clock.now_ms());
    let worker = crate::worker::client::status(&paths).ok().flatten();
    let taken = chrono::DateTime::from_timestamp_millis(v.manifest.created_at)
        .map(|t| t.to_rfc3339())
        .unwrap_or_default();
    let describe_current = || match &current_count {
        None => "there is no store now, so nothing is moved aside".to_string(),
        Some(Ok(n)) => format!(
            "the current store ({n} memories) is kept at {}",
            aside.display()
        ),
        Some(Err(e)) => format!(
            "the current store (unreadable: {e}) is kept at {}",
            aside.display()
        ),
    };
    if a.dry_run {
        let plan = vec![
            match &worker {
                Some(w) => format!("stop the worker (pid {})", w.pid),
                None => "no worker runs, none to stop".into(),
            },
            describe_current(),
            format!(
                "put the backup in place: {} memories, taken {taken} by slm {} (schema {})",
                v.manifest.memories, v.manifest.slm_version, v.manifest.schema_version
            ),
            "rebuild the keyword and vector indexes from it".into(),
        ];
        emit(
            style,
            "restore",
            json!({ "dry_run": true, "backup": v, "plan": plan, "current_memories": current_count.as_ref().and_then(|c| c.as_ref().ok()),
                    "aside": (!current.is_empty()).then(|| aside.display().to_string()) }),
            || {
                let mut s = format!(
                    "{} passed every check; restoring it would:",
                    a.path.display()
                );
                for (i, p) in plan.iter().enumerate() {
                    s.push_str(&format!("\n  {}. {p}", i + 1));
                }
                s.push_str("\nnothing was changed (--dry-run)");
                s
            },
        )?;
        return Ok(0);
    }
    // A new home (restoring onto a fresh machine) has no data dir yet for the locks.
    std::fs::create_dir_all(&paths.data)
        .map_err(|e| Error::io(format!("creating {}", paths.data.display()), e))?;
    // One fenced operation (issue 38). First the start-up lock: a worker that is loading
    // holds it until it listens, so taking it waits for that worker (which is then stopped
    // below), and while it is held no new worker can start on the store being swapped.
    let files = crate::worker::runtime_dir::WorkerFiles::for_paths(&paths)?;
    let _no_new_worker = WriteLock::acquire(&files.startup_lock, STARTUP_LOCK_WAIT).map_err(|_| {
        Error::WriteBusy {
            message: "a worker has been starting for a minute; nothing was changed. Try again, or `slm worker stop` first.".into(),
            retry_after_s: 5,
        }
    })?;
    let stopped = crate::worker::client::stop(&paths)?;
    let (moved, restored) = {
        // No writer may commit into the store while it is swapped. Anyone still holding the
        // old store learns of the swap when they next take this lease (`engine/fence.rs`)
        // and writes nothing.
        let _lease = WriteLock::acquire(&paths.write_lock(), WRITE_WAIT)?;
        let moved = backup::put_in_place(&paths, &v, &aside)?;
        // Counted before anyone else may write: what this restore put in place.
        let restored = crate::store::Store::open_reader(&paths.store())?.count()?;
        (moved, restored)
    };
    if restored != v.manifest.memories {
        return Err(Error::Other(format!(
            "the restored store holds {restored} memories, not {}; the store before is at {}",
            v.manifest.memories,
            aside.display()
        )));
    }
    // The pictures' originals the restored store names and the data dir lacks, from beside
    // the backup (the files already here stay: the store kept aside may name them).
    let media = crate::transfer::media::copy_named(
        &paths.store(),
        &crate::transfer::media::media_dir_of(&a.path),
        &paths.data.join(crate::media::MEDIA_DIR),
    )?;
    // Opening rebuilds both indexes from the restored store (progress bars on a terminal);
    // others may write to it from here on, which is theirs to report.
    let engine = Engine::open(paths.clone(), OpenOptions::model(ModelMode::Load))?;
    let bm25 = engine.bm25_health();
    let vectors = engine.vector_health();
    let pending = engine.pending_embeddings()?;
    emit(
        style,
        "restore",
        json!({
            "dry_run": false,
            "backup": v,
            "memories": restored,
            "kept_aside": moved.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "worker_stopped": stopped,
            "media": media,
            "indexes": { "bm25": bm25, "vectors": vectors, "pending_embeddings": pending },
        }),
        || {
            let mut s = format!(
                "restored {restored} memories from {} (taken {taken} by slm {})",
                a.path.display(),
                v.manifest.slm_version
            );
            if let Some(pid) = stopped {
                s.push_str(&format!(
                    "\nstopped the worker (pid {pid}); the next command starts it"
                ));
            }
            match moved.first() {
                Some(p) => s.push_str(&format!(
                    "\nthe store before is kept at {} (nothing was deleted)",
                    p.display()
                )),
                None => s.push_str("\nthere was no store before"),
            }
            if media.copied > 0 {
                s.push_str(&format!("\nput back {} picture files", media.copied));
            }
            if !media.missing.is_empty() {
                s.push_str(&format!(
                    "\nwarning: {} picture files are in neither the backup nor the data dir (first: {}); those pictures are found by their text but their files are gone",
                    media.missing.len(),
                    media.missing[0]
                ));
            }
            s.push_str("\nindexes rebuilt from the restored store");
            if pending > 0 {
                s.push_str(&format!(
                    "; {pending} memories wait for an embedding (the worker or `slm reindex` does them)"
                ));
            }
            s
        },
    )?;
    Ok(0)
}
