//! A reader: a cross-encoder that reads a question and a memory together and scores whether
//! the memory *answers* it, not merely shares its topic (issue 32). When one is configured
//! it is the answer check's local judge (`recall::answer_check::reader`), in place of the
//! embedding model's own.
//!
//! slm's own reader ([`DEFAULT_READER`]) is the default: cross-encoder/ms-marco-MiniLM-L-12-v2
//! fine-tuned here for answerability (`models/reader/MODEL.md`; retrain with
//! `scripts/models/reader/`), committed as int8 ONNX, installed by `scripts/setup.sh` into the
//! cache dir and checked against [`DEFAULT_READER_SHA256`] when it loads. Settings
//! `answer_check.reader_dir` (or `SLM_READER_DIR`) names another: a directory with
//! `model.onnx` and its four tokenizer files (`tokenizer.json`, `config.json`,
//! `special_tokens_map.json`, `tokenizer_config.json`); setup also installs the untrained
//! base to compare with (`ms-marco-minilm-l12-int8`). A missing, changed or broken reader
//! makes the check `unavailable` with the reason (doctor names the fix), never a failed
//! recall.
//!
//! Loading runs in the background when an engine with the models opens (the slot says how
//! far it got); a recall waits for it only within the judge's time budget, and the cold
//! path never loads it (it says `warming`).

use super::reranker::{Slot, State, load};
use crate::paths::Paths;
use crate::settings::Settings;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Environment variable naming a reader directory (overrides settings).
pub const READER_DIR_ENV: &str = "SLM_READER_DIR";
/// slm's own reader: its folder under the cache dir's `models/` (setup copies
/// `models/reader/` there).
pub const DEFAULT_READER: &str = "slm-reader-12l-v2";
/// The sha256 of its `model.onnx` (models/reader/MODEL.md): a file that differs is refused.
pub const DEFAULT_READER_SHA256: &str =
    "cd84d92f60d0ddac561b42c146c840d07a198c259cd64dfaf6ab7c4b489338d0";
/// Its licence: Apache-2.0, as its base (cross-encoder/ms-marco-MiniLM-L-12-v2) and its
/// training data allow (models/reader/MODEL.md lists each source's licence).
pub const DEFAULT_READER_LICENCE: &str = "Apache-2.0 base model; its training data's licences are in models/reader/MODEL.md, one of them CC BY-NC 4.0";
/// What the reader is called in `answer_check.judge`.
pub const READER_NAME: &str = "local:reader";
/// Question and memory together are cut to this many tokens. A turn or a note is rarely
/// longer; the cost of a read grows with it (the reader runs on the recall path).
pub const READER_MAX_TOKENS: usize = 128;

/// Where setup installs slm's own reader.
pub fn default_dir(paths: &Paths) -> PathBuf {
    paths.cache.join("models").join(DEFAULT_READER)
}

/// The reader's directory: `SLM_READER_DIR`, else settings `answer_check.reader_dir`, else
/// slm's own ([`default_dir`], installed or not: a missing one is `unavailable`, and doctor
/// says to run setup).
pub fn configured_dir(paths: &Paths, settings: &Settings) -> PathBuf {
    std::env::var_os(READER_DIR_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| settings.answer_check.reader_dir.clone())
        .unwrap_or_else(|| default_dir(paths))
}

/// The reader a recall would use (the test-only stand-in embedder of plumbing tests runs
/// without one unless `SLM_READER_DIR` names it).
pub fn configured(paths: &Paths, settings: &Settings) -> Option<PathBuf> {
    let stand_in = std::env::var(super::EMBEDDER_ENV).as_deref() == Ok("hash")
        && std::env::var_os(READER_DIR_ENV).is_none_or(|v| v.is_empty());
    if stand_in {
        return None;
    }
    Some(configured_dir(paths, settings))
}

/// slm's own reader must be the file its sha256 names (a partial copy or another model
/// under its name is refused, not run).
fn verify_default(dir: &std::path::Path, paths: &Paths) -> Result<(), String> {
    if dir != default_dir(paths) {
        return Ok(());
    }
    let file = dir.join("model.onnx");
    match crate::paths::sha256_file(&file) {
        Ok((sum, _)) if sum == DEFAULT_READER_SHA256 => Ok(()),
        Ok((sum, _)) => Err(format!(
            "{} has sha256 {sum}, not the {DEFAULT_READER_SHA256} of slm's reader",
            file.display()
        )),
        Err(e) => Err(format!("{}: {e}", file.display())),
    }
}

/// Start loading the configured reader in the background (None: none configured).
pub fn start(paths: &Paths, settings: &Settings, runtime: PathBuf) -> Option<Slot> {
    let dir = configured(paths, settings)?;
    let paths = paths.clone();
    let slot: Slot = Arc::new(Mutex::new(Arc::new(State::Loading)));
    let s2 = slot.clone();
    std::thread::spawn(move || {
        let st = match verify_default(&dir, &paths)
            .and_then(|()| load(&dir, &runtime, Some(READER_MAX_TOKENS)).map_err(|e| e.to_string()))
        {
            Ok(m) => State::Ready(Mutex::new(m)),
            Err(e) => State::Unavailable(format!("the reader at {}: {e}", dir.display())),
        };
        if let Ok(mut g) = s2.lock() {
            *g = Arc::new(st);
        }
    });
    Some(slot)
}

/// Wait (bounded) until the slot is no longer loading.
pub fn wait_loaded(slot: &Slot, bound: std::time::Duration) {
    let t = std::time::Instant::now();
    while t.elapsed() < bound {
        let loading = slot
            .lock()
            .map(|g| matches!(**g, State::Loading))
            .unwrap_or(false);
        if !loading {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
