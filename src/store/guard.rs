//! Guards around opening the store: never start an empty store over a lost one, and keep
//! what holds memory text private to the user.

use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// Refuse to start a new, empty store where one existed: `store.db` missing or empty (no
/// committed pages in it or in its write-ahead log) while the derived indexes in `index_dir`
/// say a store was here. Starting fresh would hide every memory behind "no memories yet"
/// and then write new ids over the old ones. Only a data dir with no store and no indexes
/// starts fresh.
pub fn refuse_lost_store(path: &Path, index_dir: &Path) -> Result<()> {
    let len = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let wal = path.with_file_name(format!(
        "{}-wal",
        path.file_name().unwrap_or_default().to_string_lossy()
    ));
    if len(path) > 0 || len(&wal) > 0 {
        return Ok(());
    }
    let had_indexes = std::fs::read_dir(index_dir)
        .map(|mut d| d.next().is_some())
        .unwrap_or(false);
    if !had_indexes {
        return Ok(());
    }
    Err(Error::LostStore {
        path: path.to_path_buf(),
        state: if path.exists() { "empty" } else { "missing" },
    })
}

/// Make the data dir 0700 and the store's files 0600 when they are looser (a store made
/// by an older slm, or copied in). Says so once: after it, nothing is loose.
#[cfg(unix)]
pub fn make_private(dir: &Path, files: &[PathBuf]) {
    use std::os::unix::fs::PermissionsExt;
    let tighten = |p: &Path| -> bool {
        match std::fs::symlink_metadata(p) {
            Ok(md) if !md.file_type().is_symlink() && md.permissions().mode() & 0o077 != 0 => {
                let mode = if md.is_dir() { 0o700 } else { 0o600 };
                std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).is_ok()
            }
            _ => false,
        }
    };
    let mut changed = tighten(dir);
    for f in files {
        changed |= tighten(f);
    }
    if changed {
        eprintln!(
            "slm: made {} private to you (it was readable by other users)",
            dir.display()
        );
    }
}
