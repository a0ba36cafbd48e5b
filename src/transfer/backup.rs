//! A consistent copy of the store file, and putting one back.
//!
//! **Backup** uses SQLite's online backup API from a read connection of its own, inside one
//! read transaction: in WAL mode that is a snapshot (the copy is the store as of the moment
//! the transaction began, and nothing written after it), and the worker keeps answering and
//! writing meanwhile (writers never wait for a WAL reader). The copy is written under a
//! temporary name beside the target, switched out of WAL mode (one self-contained file),
//! checked (`PRAGMA integrity_check`), fsynced and renamed into place; then the manifest
//! (`PATH.manifest.json`: slm version, schema version, memory count, sha256, size) is written
//! the same way. The indexes are not copied: they are rebuilt from the store.
//!
//! **Restore** first verifies ([`verify`]) — manifest present and readable, size and sha256
//! as it says, an SQLite file that passes the integrity check, an slm store, schema not
//! newer than this slm, the memory count the manifest says — and only then changes anything
//! ([`put_in_place`]): the backup is copied into the data dir under a temporary name, the
//! current store files are renamed aside (never deleted), the copy is renamed into place,
//! and the derived indexes are removed so the next open rebuilds them from the restored store.

use crate::paths::Paths;
use crate::store::schema;
use crate::{Error, Result};
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What a manifest says it is.
pub const MANIFEST_KIND: &str = "slm-backup";
/// The manifest's own format.
pub const MANIFEST_FORMAT: u32 = 1;
/// Pages copied per backup step (4 KiB pages: 4 MiB a step), so the progress bar moves;
/// the read transaction around the steps keeps them one snapshot.
pub const PAGES_PER_STEP: i32 = 1024;
/// The pause before trying a backup step again that found the source busy or locked.
/// Chosen, not measured: it should not happen at all (see the step loop).
const BUSY_PAUSE: std::time::Duration = std::time::Duration::from_millis(20);
/// Test hook: `PAGES,PAUSE_MS` — copy this many pages a step and pause between steps, so a
/// test can keep a backup running while it writes.
pub const TEST_STEP_ENV: &str = "SLM_TEST_BACKUP_STEP";

/// The manifest written beside a backup.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub kind: String,
    pub format: u32,
    pub slm_version: String,
    pub schema_version: i64,
    pub memories: i64,
    pub sha256: String,
    pub bytes: u64,
    /// When the snapshot was taken (Unix ms, the clock slm runs with).
    pub created_at: i64,
    /// The identity of the store it was taken from.
    pub store_id: String,
}

/// Where the manifest of a backup file lives.
pub fn manifest_path(backup: &Path) -> PathBuf {
    let mut s = backup.as_os_str().to_os_string();
    s.push(".manifest.json");
    PathBuf::from(s)
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

fn parent_of(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

pub use crate::paths::sha256_file;

/// Copy the store at `store` to `dest` (which must not exist). `progress(done, total)` is
/// called in pages. Returns the manifest written beside it.
pub fn backup(
    store: &Path,
    dest: &Path,
    now_ms: i64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Manifest> {
    if !store.exists() {
        return Err(Error::Input(format!(
            "there is no store at {} to back up",
            store.display()
        )));
    }
    if dest.exists() || dest.is_symlink() {
        return Err(Error::Usage(format!(
            "{} exists; a backup never replaces a file (pick a new name)",
            dest.display()
        )));
    }
    // A manifest whose backup file is not there is what a backup killed before its last
    // rename leaves (see below): it describes nothing, and is replaced. Anything else at
    // that name is the user's.
    let mpath = manifest_path(dest);
    if mpath.exists() && !is_our_manifest(&mpath) {
        return Err(Error::Usage(format!(
            "{} exists and is not a backup manifest; a backup never replaces a file (pick a new name)",
            mpath.display()
        )));
    }
    let dir = parent_of(dest);
    if !dir.is_dir() {
        return Err(Error::Usage(format!(
            "{} is not a folder to write the backup in",
            dir.display()
        )));
    }
    remove_dead_leftovers(dest, ".partial-");
    let tmp = sibling(dest, &format!(".partial-{}", std::process::id()));
    let result = copy_snapshot(store, &tmp, progress).and_then(|(memories, store_id)| {
        check_copy(&tmp)?;
        std::fs::File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(format!("syncing {}", tmp.display()), e))?;
        let (sha256, bytes) =
            sha256_file(&tmp).map_err(|e| Error::io(format!("reading {}", tmp.display()), e))?;
        Ok(Manifest {
            kind: MANIFEST_KIND.into(),
            format: MANIFEST_FORMAT,
            slm_version: env!("CARGO_PKG_VERSION").into(),
            schema_version: schema::latest(),
            memories,
            sha256,
            bytes,
            created_at: now_ms,
            store_id,
        })
    });
    let manifest = match result {
        Ok(m) => m,
        Err(e) => {
            // Our own half-written copy, never anything of the user's.
            let _ = std::fs::remove_file(&tmp);
            let _ = std::fs::remove_file(sibling(&tmp, "-journal"));
            return Err(e);
        }
    };
    // The manifest first, then the copy under its name: a backup killed in between leaves
    // a manifest without its file, which the next backup to that name replaces (below),
    // never a file that restore refuses and backup will not overwrite.
    let json = serde_json::to_vec_pretty(&manifest).expect("a manifest serialises");
    let written = crate::paths::write_atomic(&manifest_path(dest), &json)
        .map_err(|e| Error::io(format!("writing {}", manifest_path(dest).display()), e))
        .and_then(|_| {
            std::fs::rename(&tmp, dest)
                .map_err(|e| Error::io(format!("moving the backup to {}", dest.display()), e))
        });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        let _ = std::fs::remove_file(manifest_path(dest));
        return Err(e);
    }
    sync_dir(&dir);
    Ok(manifest)
}

/// Whether a file is a manifest `slm backup` wrote (so it may be replaced when its backup
/// file is missing).
fn is_our_manifest(path: &Path) -> bool {
    std::fs::read(path)
        .ok()
        .and_then(|raw| serde_json::from_slice::<Manifest>(&raw).ok())
        .is_some_and(|m| m.kind == MANIFEST_KIND)
}

/// Remove what a backup or restore killed part way left beside `target` (see
/// [`crate::paths::dead_leftovers`]).
pub fn remove_dead_leftovers(target: &Path, marker: &str) {
    for p in crate::paths::dead_leftovers(target, marker) {
        let _ = std::fs::remove_file(p);
    }
}

/// The online backup itself, inside one read transaction on the source. Returns the memory
/// count and store id as of the snapshot.
fn copy_snapshot(
    store: &Path,
    tmp: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(i64, String)> {
    let src = Connection::open_with_flags(
        store,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    src.busy_timeout(crate::store::BUSY_TIMEOUT)?;
    let found: i64 = src.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if found > schema::latest() {
        return Err(Error::NewerSchema {
            path: store.to_path_buf(),
            found,
            supported: schema::latest(),
        });
    }
    // The snapshot starts with the first read inside the transaction: the count and every
    // page copied below are of that one moment.
    src.execute_batch("BEGIN")?;
    let memories: i64 = src.query_row("SELECT COUNT(*) FROM memories", [], |r| r.get(0))?;
    let store_id: String = src
        .query_row("SELECT value FROM meta WHERE key = 'store_id'", [], |r| {
            r.get(0)
        })
        .optional()?
        .unwrap_or_default();
    let (pages, pause) = std::env::var(TEST_STEP_ENV)
        .ok()
        .and_then(|v| {
            let (p, ms) = v.split_once(',')?;
            Some((p.trim().parse().ok()?, ms.trim().parse().ok()?))
        })
        .map(|(p, ms): (i32, u64)| (p.max(1), std::time::Duration::from_millis(ms)))
        .unwrap_or((PAGES_PER_STEP, std::time::Duration::ZERO));
    let mut dst = Connection::open(tmp)?;
    {
        let b = rusqlite::backup::Backup::new(&src, &mut dst)?;
        loop {
            if !pause.is_zero() {
                std::thread::sleep(pause);
            }
            match b.step(pages)? {
                rusqlite::backup::StepResult::Done => break,
                rusqlite::backup::StepResult::More => {}
                // The destination is ours alone and the source is read in a WAL snapshot:
                // busy or locked here means something else is wrong; wait a little and retry.
                _ => std::thread::sleep(BUSY_PAUSE),
            }
            let p = b.progress();
            let total = p.pagecount.max(0) as u64;
            progress(total.saturating_sub(p.remaining.max(0) as u64), total);
        }
    }
    src.execute_batch("COMMIT")?;
    // One self-contained file: no write-ahead log beside a backup.
    dst.pragma_update(None, "journal_mode", "DELETE")?;
    dst.close().map_err(|(_, e)| Error::from(e))?;
    Ok((memories, store_id))
}

/// Integrity-check a file read-only, writing nothing beside it.
fn integrity(conn: &Connection) -> Result<String> {
    let rows: Vec<String> = conn
        .prepare("PRAGMA integrity_check")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows.join("; "))
}

fn open_immutable(path: &Path) -> rusqlite::Result<Connection> {
    crate::store::open_read_only_uri(path, "mode=ro&immutable=1")
}

fn check_copy(tmp: &Path) -> Result<()> {
    let c = open_immutable(tmp)?;
    let r = integrity(&c)?;
    if r != "ok" {
        return Err(Error::Other(format!(
            "the copy failed SQLite's integrity check ({r}); no backup was written"
        )));
    }
    Ok(())
}

/// A backup that passed every check.
#[derive(Debug, Clone, Serialize)]
pub struct Verified {
    pub path: PathBuf,
    pub manifest: Manifest,
}

/// Check a backup before anything is changed (see the module doc). Errors say what is
/// wrong and that nothing was changed.
pub fn verify(path: &Path) -> Result<Verified> {
    let refuse = |why: String| {
        Err(Error::Input(format!(
            "{} cannot be restored: {why}; nothing was changed",
            path.display()
        )))
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) if m.is_file() => m,
        Ok(_) => return refuse("it is not a file".into()),
        Err(e) => return refuse(format!("{e}")),
    };
    let mpath = manifest_path(path);
    let raw = match std::fs::read(&mpath) {
        Ok(r) => r,
        Err(e) => {
            return refuse(format!(
                "its manifest {} cannot be read ({e}), so this is not a backup `slm backup` wrote",
                mpath.display()
            ));
        }
    };
    let manifest: Manifest = match serde_json::from_slice(&raw) {
        Ok(m) => m,
        Err(e) => return refuse(format!("its manifest {} is not one ({e})", mpath.display())),
    };
    if manifest.kind != MANIFEST_KIND || manifest.format > MANIFEST_FORMAT {
        return refuse(format!(
            "its manifest is of kind {:?} format {}, not an {MANIFEST_KIND} this slm reads (format {MANIFEST_FORMAT})",
            manifest.kind, manifest.format
        ));
    }
    if manifest.schema_version > schema::latest() {
        return Err(Error::NewerSchema {
            path: path.to_path_buf(),
            found: manifest.schema_version,
            supported: schema::latest(),
        });
    }
    if meta.len() != manifest.bytes {
        return refuse(format!(
            "it is {} bytes but its manifest says {} (truncated, or changed since the backup)",
            meta.len(),
            manifest.bytes
        ));
    }
    let (sha, _) =
        sha256_file(path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    if sha != manifest.sha256 {
        return refuse(
            "its sha256 is not the one in its manifest (changed or damaged since the backup)"
                .into(),
        );
    }
    let conn = match open_immutable(path) {
        Ok(c) => c,
        Err(e) => return refuse(format!("it cannot be opened as SQLite ({e})")),
    };
    match integrity(&conn) {
        Ok(r) if r == "ok" => {}
        Ok(r) => return refuse(format!("it fails SQLite's integrity check ({r})")),
        Err(e) => return refuse(format!("it is not an SQLite database ({e})")),
    }
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > schema::latest() {
        return Err(Error::NewerSchema {
            path: path.to_path_buf(),
            found: version,
            supported: schema::latest(),
        });
    }
    let is_store: bool = conn.query_row(
        "SELECT COUNT(*) = 2 FROM sqlite_master WHERE type = 'table' AND name IN ('memories', 'changes')",
        [],
        |r| r.get(0),
    )?;
    if !is_store || version < 1 {
        return refuse("it is an SQLite database, but not an slm store".into());
    }
    let count: i64 = conn.query_row("SELECT COUNT(*) FROM memories", [], |r| r.get(0))?;
    if count != manifest.memories {
        return refuse(format!(
            "it holds {count} memories but its manifest says {}",
            manifest.memories
        ));
    }
    Ok(Verified {
        path: path.to_path_buf(),
        manifest,
    })
}

/// Where the current store goes when a backup replaces it: `store.db.before-restore-<time>`
/// (with `-2`, `-3`… when that exists), its `-wal` and `-shm` beside it under the same name.
pub fn aside_path(paths: &Paths, now_ms: i64) -> PathBuf {
    let stamp = chrono::DateTime::from_timestamp_millis(now_ms)
        .map(|t| t.format("%Y%m%dT%H%M%SZ").to_string())
        .unwrap_or_else(|| now_ms.to_string());
    let base = sibling(&paths.store(), &format!(".before-restore-{stamp}"));
    let taken = |p: &Path| p.exists() || sibling(p, "-wal").exists();
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|n| sibling(&base, &format!("-{n}")))
        .find(|p| !taken(p))
        .expect("some name is free")
}

/// The files of the store as they are now (store, its log, its shared memory), existing ones.
pub fn store_files(paths: &Paths) -> Vec<(PathBuf, &'static str)> {
    ["", "-wal", "-shm"]
        .into_iter()
        .map(|s| (sibling(&paths.store(), s), s))
        .filter(|(p, _)| p.exists())
        .collect()
}

/// Replace the store with a verified backup (the caller stopped the worker and holds the
/// writer lease). Returns the paths the old store files were moved to.
pub fn put_in_place(paths: &Paths, v: &Verified, aside: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(&paths.data)
        .map_err(|e| Error::io(format!("creating {}", paths.data.display()), e))?;
    // Copies left by a restore that was killed before its swap (the store is still here,
    // so they were never put in place).
    if paths.store().exists() {
        remove_dead_leftovers(&paths.store(), ".restoring-");
    }
    let incoming = sibling(
        &paths.store(),
        &format!(".restoring-{}", std::process::id()),
    );
    // Copy first: if the copy fails (a full disk), nothing of the current store was touched.
    let copied = std::fs::copy(&v.path, &incoming)
        .and_then(|_| std::fs::File::open(&incoming)?.sync_all())
        .map_err(|e| Error::io(format!("copying {} into the data dir", v.path.display()), e))
        .and_then(|_| {
            let (sha, _) = sha256_file(&incoming)
                .map_err(|e| Error::io(format!("reading {}", incoming.display()), e))?;
            if sha == v.manifest.sha256 {
                Ok(())
            } else {
                Err(Error::Other(
                    "the copy in the data dir does not match the backup's sha256; nothing was changed".into(),
                ))
            }
        });
    if let Err(e) = copied {
        let _ = std::fs::remove_file(&incoming);
        return Err(e);
    }
    let mut moved = Vec::new();
    for (from, suffix) in store_files(paths) {
        let to = sibling(aside, suffix);
        std::fs::rename(&from, &to).map_err(|e| {
            Error::io(
                format!(
                    "moving {} aside to {} (files moved so far: {}; the backup copy is {})",
                    from.display(),
                    to.display(),
                    if moved.is_empty() {
                        "none".to_string()
                    } else {
                        moved
                            .iter()
                            .map(|p: &std::path::PathBuf| p.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                    incoming.display()
                ),
                e,
            )
        })?;
        moved.push(to);
    }
    std::fs::rename(&incoming, paths.store()).map_err(|e| {
        Error::io(
            format!("putting the backup at {}", paths.store().display()),
            e,
        )
    })?;
    sync_dir(&paths.data);
    // The indexes describe the store that was moved aside: derived, rebuilt from the new one.
    if paths.index_dir().exists() {
        std::fs::remove_dir_all(paths.index_dir()).map_err(|e| {
            Error::io(
                format!(
                    "removing the old indexes {} (run `slm reindex`)",
                    paths.index_dir().display()
                ),
                e,
            )
        })?;
    }
    Ok(moved)
}
