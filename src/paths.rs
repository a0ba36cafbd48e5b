//! Where slm keeps things.
//!
//! * data dir (`SLM_HOME`, else the platform data dir, `~/.local/share/slm` on Linux):
//!   the SQLite store (the truth), the derived indexes, the write lock and `settings.json`.
//! * cache dir (`SLM_CACHE_DIR`, else `~/.cache/slm`): ONNX Runtime and the models that
//!   `scripts/setup.sh` fetched. Everything there can be fetched again.

use std::path::{Path, PathBuf};

pub const HOME_ENV: &str = "SLM_HOME";
pub const CACHE_ENV: &str = "SLM_CACHE_DIR";

/// The models slm uses unless `model.id` / `SLM_MODEL_ID` / `model.dir` picks one, best
/// first: the first one installed is the default. `scripts/setup.sh` installs both;
/// `scripts/setup.sh --model minilm` only the small Apache-2.0 one. EmbeddingGemma retrieves
/// better (issue "A stronger memory model"; docs/measurements.md has the figures).
pub const DEFAULT_MODELS: &[&str] = &[EMBEDDINGGEMMA_MODEL_NAME, MINILM_MODEL_NAME];
/// all-MiniLM-L6-v2 int8 (Apache-2.0): the fallback when EmbeddingGemma is not installed.
pub const MINILM_MODEL_NAME: &str = "all-minilm-l6-v2-int8";
/// EmbeddingGemma-300M int8, built on the machine by setup (Gemma Terms of Use).
pub const EMBEDDINGGEMMA_MODEL_NAME: &str = "embeddinggemma-300m-int8";
/// The ONNX Runtime library `scripts/setup.sh` installs (ort needs ≥ 1.24).
pub const DEFAULT_RUNTIME_FILE: &str = "libonnxruntime.so.1.32.0";

#[derive(Debug, Clone)]
pub struct Paths {
    pub data: PathBuf,
    pub cache: PathBuf,
}

impl Paths {
    pub fn from_env() -> Self {
        let dirs = directories::ProjectDirs::from("", "", "slm");
        let data = std::env::var_os(HOME_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| dirs.as_ref().map(|d| d.data_dir().to_path_buf()))
            .unwrap_or_else(|| PathBuf::from(".slm"));
        let cache = std::env::var_os(CACHE_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| dirs.as_ref().map(|d| d.cache_dir().to_path_buf()))
            .unwrap_or_else(|| data.join("cache"));
        Paths { data, cache }
    }

    pub fn at(data: &Path, cache: &Path) -> Self {
        Paths {
            data: data.to_path_buf(),
            cache: cache.to_path_buf(),
        }
    }

    pub fn store(&self) -> PathBuf {
        self.data.join("store.db")
    }
    pub fn index_dir(&self) -> PathBuf {
        self.data.join("index")
    }
    pub fn bm25_dir(&self) -> PathBuf {
        self.index_dir().join("bm25")
    }
    pub fn vectors(&self) -> PathBuf {
        self.index_dir().join("vectors.usearch")
    }
    pub fn vectors_meta(&self) -> PathBuf {
        self.index_dir().join("vectors.json")
    }
    pub fn write_lock(&self) -> PathBuf {
        self.data.join("write.lock")
    }
    /// Files holding memory text or derived from it: private to the user (0600).
    pub fn private_files(&self) -> Vec<PathBuf> {
        let store = self.store();
        let mut v = vec![
            store.clone(),
            store.with_file_name("store.db-wal"),
            store.with_file_name("store.db-shm"),
            self.index_dir(),
            self.vectors(),
            self.vectors_meta(),
            self.settings(),
            self.data.join("worker.log"),
            self.data.join("worker.log.1"),
        ];
        if let Ok(d) = std::fs::read_dir(self.bm25_dir()) {
            v.push(self.bm25_dir());
            v.extend(d.flatten().map(|e| e.path()));
        }
        v
    }
    pub fn settings(&self) -> PathBuf {
        self.data.join("settings.json")
    }
    /// The first of [`DEFAULT_MODELS`] that is installed (has a `model.onnx`); the best one
    /// when none is, so `slm doctor` names what setup would install.
    pub fn default_model_dir(&self) -> PathBuf {
        let dir = |id: &str| self.cache.join("models").join(id);
        DEFAULT_MODELS
            .iter()
            .map(|id| dir(id))
            .find(|d| d.join("model.onnx").is_file())
            .unwrap_or_else(|| dir(DEFAULT_MODELS[0]))
    }
    pub fn default_runtime(&self) -> PathBuf {
        self.cache.join("runtime").join(DEFAULT_RUNTIME_FILE)
    }
}

/// Files and directories slm creates are the user's alone (0600 files, 0700 directories):
/// they hold memory text. Called first thing by the binary.
pub fn private_umask() {
    // SAFETY: umask only sets the process's file-creation mask; it cannot fail.
    unsafe {
        libc::umask(0o077);
    }
}

/// Write a file by writing a temporary sibling and renaming it over, so a reader
/// (or a crash) never sees half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

/// The sha256 of a file, hex.
pub fn sha256_file(path: &Path) -> std::io::Result<(String, u64)> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut n = 0u64;
    loop {
        let k = f.read(&mut buf)?;
        if k == 0 {
            break;
        }
        n += k as u64;
        h.update(&buf[..k]);
    }
    let hex = h
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>();
    Ok((hex, n))
}

/// Whether a process with this id runs (signal 0 checks without sending anything).
pub fn process_alive(pid: i32) -> bool {
    // SAFETY: kill with signal 0 only checks whether the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Files `<target><marker><pid>` (and their SQLite `-journal`) left by an slm process that
/// is gone: a backup's or a restore's copy under its temporary name, killed part way. Those
/// of a process that still runs are its own and never listed.
pub fn dead_leftovers(target: &Path, marker: &str) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        return Vec::new();
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = format!("{}{marker}", name.to_string_lossy());
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_prefix(&prefix)
                .map(|rest| rest.strip_suffix("-journal").unwrap_or(rest))
                .and_then(|pid| pid.parse::<i32>().ok())
                .is_some_and(|pid| !process_alive(pid))
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// The copies of a backup that a restore killed mid-swap left in the data dir
/// (`store.db.restoring-<pid>` of a process that is gone). Each is a complete, verified
/// copy of a backup when the store is missing (it is renamed aside only after checking).
pub fn interrupted_restores(store: &Path) -> Vec<PathBuf> {
    dead_leftovers(store, ".restoring-")
        .into_iter()
        .filter(|p| !p.to_string_lossy().ends_with("-journal"))
        .collect()
}
