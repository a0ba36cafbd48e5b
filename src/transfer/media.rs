//! The pictures' originals in a backup: `slm backup PATH` copies each file the snapshot's
//! pictures name into `PATH.media/`, and `slm restore PATH` puts back those the data dir
//! lacks. Files are content-addressed (`<ab>/<sha256>.<ext>`), so every copy is checked
//! against the sha256 in its name, a copy is never changed in place (written aside, synced,
//! renamed), and a second backup or restore into the same folder only adds what is missing.

use crate::{Error, Result};
use rusqlite::{Connection, OpenFlags};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What copying the originals did.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct MediaCopy {
    /// Files the pictures name.
    pub files: u64,
    /// Copied now (the rest were already there, checked).
    pub copied: u64,
    /// Named by a picture but not found (or not matching its sha256) where they should be.
    pub missing: Vec<String>,
}

/// Where a backup's originals go.
pub fn media_dir_of(backup: &Path) -> PathBuf {
    let mut s = backup.as_os_str().to_os_string();
    s.push(".media");
    PathBuf::from(s)
}

/// The files the pictures of the store at `db` name: (sha256, ext). A store from before
/// pictures names none.
fn named(db: &Path) -> Result<Vec<(String, String)>> {
    let c = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let has: bool = c.query_row(
        "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'pictures'",
        [],
        |r| r.get(0),
    )?;
    if !has {
        return Ok(Vec::new());
    }
    let mut st = c.prepare("SELECT DISTINCT sha256, ext FROM pictures ORDER BY sha256")?;
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether `p` holds exactly the bytes named `sha`.
fn holds(p: &Path, sha: &str) -> bool {
    crate::paths::sha256_file(p).is_ok_and(|(got, _)| got == sha)
}

/// Copy `from` to `to` (aside, synced, renamed) and check the copy against `sha`.
fn copy_checked(from: &Path, to: &Path, sha: &str) -> Result<()> {
    let dir = to.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    let tmp = to.with_extension(format!("partial-{}", std::process::id()));
    let done = std::fs::copy(from, &tmp)
        .and_then(|_| std::fs::File::open(&tmp)?.sync_all())
        .map_err(|e| {
            Error::io(
                format!("copying {} to {}", from.display(), tmp.display()),
                e,
            )
        })
        .and_then(|_| {
            if holds(&tmp, sha) {
                Ok(())
            } else {
                Err(Error::Other(format!(
                    "the copy of {} does not match its sha256",
                    from.display()
                )))
            }
        })
        .and_then(|_| {
            std::fs::rename(&tmp, to)
                .map_err(|e| Error::io(format!("moving {} into place", to.display()), e))
        });
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

/// Copy the originals the store at `db` names from the folder `from` to the folder `to`,
/// each file checked by its sha256; those already in `to` are checked and kept.
pub fn copy_named(db: &Path, from: &Path, to: &Path) -> Result<MediaCopy> {
    let mut out = MediaCopy::default();
    for (sha, ext) in named(db)? {
        out.files += 1;
        let rel = crate::media::relative_path(&sha, &ext);
        let (src, dst) = (from.join(&rel), to.join(&rel));
        if holds(&dst, &sha) {
            continue;
        }
        if !holds(&src, &sha) {
            out.missing.push(rel.display().to_string());
            continue;
        }
        copy_checked(&src, &dst, &sha)?;
        out.copied += 1;
    }
    Ok(out)
}
