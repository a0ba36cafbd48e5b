//! Guards around opening the store: never start an empty store over a lost one, keep what
//! holds memory text private to the user, and know when the data dir takes no writes
//! (read-only, a full disk) so that reads open without writing anything.

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

/// Why a data dir takes no writes; reads still work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoWrites {
    /// Read-only: a read-only mount, another owner, or a directory without its owner's
    /// write bit (root ignores mode bits, so the bit is taken as the owner's intent).
    ReadOnly,
    /// The disk holding it has less than [`MIN_FREE_BYTES`] free.
    DiskFull,
}

/// What a person reads (`slm doctor`): why nothing can be written.
impl std::fmt::Display for NoWrites {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NoWrites::ReadOnly => "the data dir is read-only",
            NoWrites::DiskFull => "the disk is full",
        })
    }
}

impl NoWrites {
    pub fn error(self, dir: &Path) -> Error {
        match self {
            NoWrites::ReadOnly => Error::ReadOnly(dir.to_path_buf()),
            NoWrites::DiskFull => Error::DiskFull(dir.to_path_buf()),
        }
    }
}

/// Below this much free space, a store that cannot be opened for writing counts as on a
/// full disk: one write needs a few SQLite pages, their WAL frames and the 32 KiB
/// shared-memory file, a keyword segment and an index save; 1 MiB is that with room.
pub const MIN_FREE_BYTES: u64 = 1 << 20;

/// Whether `dir` takes writes, by its mode and access(2), without writing anything.
/// None: writable (or not there yet).
#[cfg(unix)]
pub fn no_writes(dir: &Path) -> Option<NoWrites> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    let md = std::fs::metadata(dir).ok()?;
    if md.permissions().mode() & 0o200 == 0 {
        return Some(NoWrites::ReadOnly);
    }
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: access reads a NUL-terminated path and has no other preconditions.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK) } != 0 {
        return Some(NoWrites::ReadOnly);
    }
    None
}

/// Bytes free for us on the file system holding `dir`.
#[cfg(unix)]
pub fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs fills the struct we pass; an all-zero statvfs is a valid value.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return None;
    }
    Some(s.f_bavail as u64 * s.f_frsize as u64)
}

/// Why opening the store for writing failed, when the cause is that the dir takes no writes
/// (read-only, or a full disk: SQLite says only "disk I/O error" when it cannot make its
/// shared-memory file). None: some other failure, reported as it is.
pub fn unwritable_cause(e: &Error, dir: &Path) -> Option<NoWrites> {
    match e {
        Error::ReadOnly(_) => Some(NoWrites::ReadOnly),
        Error::DiskFull(_) => Some(NoWrites::DiskFull),
        _ if free_bytes(dir).is_some_and(|f| f < MIN_FREE_BYTES) => Some(NoWrites::DiskFull),
        _ => None,
    }
}
