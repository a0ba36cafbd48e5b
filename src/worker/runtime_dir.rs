//! Where the worker's socket and start-up lock live: a directory that is ours alone.
//!
//! `$SLM_RUNTIME_DIR` (tests), else `$XDG_RUNTIME_DIR/slm`, else `/tmp/slm-<uid>`. The
//! directory must be a real directory (not a symlink), owned by us, with no access for group
//! or others (0700). We create it so. One that others can write to is refused, not
//! repaired: someone may already have planted a socket in it. One that is ours and only
//! readable by others is tightened, and we say so. Whoever can reach the socket can read
//! every memory, so both ends also check the other's user id on every connection
//! ([`check_peer`]).
//!
//! One worker serves one data directory, so the socket's name is derived from the data
//! directory's canonical path.

use crate::paths::Paths;
use crate::{Error, Result};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

pub const RUNTIME_ENV: &str = "SLM_RUNTIME_DIR";

/// The socket, lock and log names of the worker for one data directory.
#[derive(Debug, Clone)]
pub struct WorkerFiles {
    pub dir: PathBuf,
    pub socket: PathBuf,
    pub startup_lock: PathBuf,
    pub log: PathBuf,
    /// The last measured load time of this data dir's worker, in ms (for warming notes).
    pub load_time: PathBuf,
}

impl WorkerFiles {
    pub fn for_paths(paths: &Paths) -> Result<WorkerFiles> {
        let dir = runtime_dir()?;
        let data = std::fs::canonicalize(&paths.data).unwrap_or_else(|_| paths.data.clone());
        let key = format!("{:016x}", fnv64(data.as_os_str().as_encoded_bytes()));
        Ok(WorkerFiles {
            socket: dir.join(format!("{key}.sock")),
            startup_lock: dir.join(format!("{key}.start.lock")),
            load_time: dir.join(format!("{key}.load_ms")),
            log: paths.data.join("worker.log"),
            dir,
        })
    }
}

fn fnv64(b: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for x in b {
        h ^= *x as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

fn uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The runtime directory, created and checked.
pub fn runtime_dir() -> Result<PathBuf> {
    let dir = match std::env::var_os(RUNTIME_ENV).filter(|v| !v.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => match std::env::var_os("XDG_RUNTIME_DIR").filter(|v| !v.is_empty()) {
            Some(x) if Path::new(&x).is_dir() => PathBuf::from(x).join("slm"),
            _ => std::env::temp_dir().join(format!("slm-{}", uid())),
        },
    };
    ensure_private(&dir)?;
    Ok(dir)
}

/// Create `dir` 0700 or check that the existing one is ours alone.
pub fn ensure_private(dir: &Path) -> Result<()> {
    if let Some(parent) = dir.parent() {
        if !parent.exists() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::io(format!("creating {}", parent.display()), e))?;
        }
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(Error::io(format!("creating {}", dir.display()), e)),
    }
    let md = std::fs::symlink_metadata(dir)
        .map_err(|e| Error::io(format!("checking {}", dir.display()), e))?;
    let refuse = |why: &str| {
        Err(Error::Other(format!(
            "the worker's socket directory {} {why}; refusing to use it (set {RUNTIME_ENV} to a private directory)",
            dir.display()
        )))
    };
    if md.file_type().is_symlink() {
        return refuse("is a symlink");
    }
    if !md.is_dir() {
        return refuse("is not a directory");
    }
    if md.uid() != uid() {
        return refuse("belongs to another user");
    }
    if md.mode() & 0o022 != 0 {
        return refuse(&format!(
            "can be written by other users (mode {:o}): a socket in it may not be ours",
            md.mode() & 0o777
        ));
    }
    if md.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| Error::io(format!("making {} private", dir.display()), e))?;
        eprintln!(
            "slm: made the worker's socket directory {} private (it was readable by others)",
            dir.display()
        );
    }
    Ok(())
}

/// The other end of a worker connection must be us: the same effective user id. Checked by
/// the client on the worker (a socket planted by someone else would read the request and
/// forge the answer) and by the worker on each client.
pub fn check_peer(conn: &interprocess::local_socket::Stream) -> Result<()> {
    use interprocess::local_socket::traits::StreamCommon;
    let creds = conn
        .peer_creds()
        .map_err(|e| Error::io("reading the worker socket's peer credentials", e))?;
    match creds.euid() {
        Some(u) if u == uid() => Ok(()),
        other => Err(Error::Other(format!(
            "the process at the other end of the worker socket runs as user {}, not as you ({}); refusing to talk to it",
            other
                .map(|u| u.to_string())
                .unwrap_or_else(|| "unknown".into()),
            uid()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_private_and_tightens_readable_dirs() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("run");
        ensure_private(&d).unwrap();
        assert_eq!(std::fs::metadata(&d).unwrap().mode() & 0o777, 0o700);
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
        ensure_private(&d).unwrap();
        assert_eq!(std::fs::metadata(&d).unwrap().mode() & 0o777, 0o700);
    }

    #[test]
    fn refuses_a_dir_others_can_write_without_repairing_it() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("run");
        std::fs::create_dir(&d).unwrap();
        for mode in [0o777, 0o1777, 0o770, 0o702] {
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(mode)).unwrap();
            let e = ensure_private(&d).unwrap_err().to_string();
            assert!(e.contains("written by other users"), "{mode:o}: {e}");
            assert_eq!(
                std::fs::metadata(&d).unwrap().mode() & 0o7777,
                mode,
                "left as it was"
            );
        }
    }

    #[test]
    fn refuses_a_symlink() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let e = ensure_private(&link).unwrap_err().to_string();
        assert!(e.contains("symlink"), "{e}");
    }
}
