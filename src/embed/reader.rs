//! A reader: a cross-encoder that reads a question and a memory together and scores whether
//! the memory *answers* it, not merely shares its topic (issue 32). When one is configured
//! it is the answer check's local judge (`recall::answer_check::reader`), in place of the
//! embedding model's own.
//!
//! None is installed by default: no reader that runs here has been measured to make the
//! tiers better on every data set (docs/answer-check.md; the training pipeline is
//! `scripts/models/reader/`). `scripts/setup.sh` installs one to try,
//! cross-encoder/ms-marco-MiniLM-L-12-v2 (int8, Apache-2.0, sha256-checked), and settings
//! `answer_check.reader_dir` (or `SLM_READER_DIR`) turns it on: a directory with
//! `model.onnx` and its four tokenizer files (`tokenizer.json`, `config.json`,
//! `special_tokens_map.json`, `tokenizer_config.json`). A missing or broken reader makes
//! the check `unavailable` with the reason, never a failed recall.
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
/// What the reader is called in `answer_check.judge`.
pub const READER_NAME: &str = "local:reader";
/// Question and memory together are cut to this many tokens. A turn or a note is rarely
/// longer; the cost of a read grows with it (the reader runs on the recall path).
pub const READER_MAX_TOKENS: usize = 128;

/// The configured reader's directory: `SLM_READER_DIR`, else settings
/// `answer_check.reader_dir`.
pub fn configured_dir(settings: &Settings) -> Option<PathBuf> {
    std::env::var_os(READER_DIR_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| settings.answer_check.reader_dir.clone())
}

/// Whether a reader is configured (the test-only stand-in embedder of plumbing tests runs
/// without one unless `SLM_READER_DIR` names it).
pub fn configured(settings: &Settings) -> Option<PathBuf> {
    let stand_in = std::env::var(super::EMBEDDER_ENV).as_deref() == Ok("hash")
        && std::env::var_os(READER_DIR_ENV).is_none_or(|v| v.is_empty());
    if stand_in {
        return None;
    }
    configured_dir(settings)
}

/// Start loading the configured reader in the background (None: none configured).
pub fn start(_paths: &Paths, settings: &Settings, runtime: PathBuf) -> Option<Slot> {
    let dir = configured(settings)?;
    let slot: Slot = Arc::new(Mutex::new(Arc::new(State::Loading)));
    let s2 = slot.clone();
    std::thread::spawn(move || {
        let st = match load(&dir, &runtime, Some(READER_MAX_TOKENS)) {
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
