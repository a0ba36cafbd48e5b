//! Plain notes into memories: a folder of Markdown or text files, each split at headings and
//! blank-line paragraphs (`slm import DIR --format markdown`).
//!
//! * **Reading** ([`collect`], client side): `.md`, `.markdown` and `.txt` files under the
//!   folder, in path order; hidden entries (`.git`, `.obsidian`) are not entered. Files that
//!   are binary, larger than [`MAX_FILE_BYTES`] or unreadable are skipped with the reason,
//!   never fatal.
//! * **Splitting** ([`split`]): YAML-style front matter (`date:`, `tags:`) is read and left
//!   out; then each paragraph (a run of non-blank lines; a fenced code block whole) becomes
//!   one memory, prefixed by the headings it sits under (`Projects > Database`), so a
//!   heading's text stays with its paragraphs. A paragraph shorter than [`MIN_CHUNK_CHARS`]
//!   joins the next one of the same section; one longer than [`MAX_CHUNK_CHARS`] is cut at
//!   sentence ends.
//! * **Keys** ([`chunk_key`]): `md:<absolute path>#<hash of the memory text>`, so importing
//!   the same folder again stores nothing new, per file and paragraph content.
//! * **Planning** ([`plan`], in the engine's process): the file's memories from an earlier
//!   import, in their order in the file then, are aligned with its paragraphs now. Paragraphs
//!   whose text is unchanged are anchors (the longest run of them in the same order); between
//!   two anchors, the i-th new paragraph replaces the i-th old one: it is stored as a new
//!   memory that supersedes the old (a changed paragraph never duplicates). Paragraphs left
//!   over are created; old memories left over are reported as no longer in the file and kept
//!   (slm never deletes what you saved).
//!
//! Here: the types and keys; `read` (the files), `split` (paragraphs into chunks), `plan`
//! (aligning a file with an earlier import), `import` (running the plan on the engine).

mod import;
mod plan;
mod read;
mod split;
#[cfg(test)]
mod tests;

pub use import::import_file;
pub use plan::{Step, plan};
pub use read::{EXTENSIONS, MAX_FILE_BYTES, collect, is_notes_path};
pub use split::{MAX_CHUNK_CHARS, MAX_TRAIL_CHARS, MIN_CHUNK_CHARS, split};

use crate::transfer::line::fnv64;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// One memory cut from a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    pub text: String,
    /// 1-based line of the file where it starts.
    pub line: usize,
}

/// What front matter said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrontMatter {
    pub date: Option<String>,
    pub tags: Vec<String>,
}

/// One file, split, as it is sent to the engine.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NotesFile {
    pub profile: String,
    /// The absolute path (the keys and origins name it).
    pub path: String,
    pub tags: Vec<String>,
    /// Front matter `date:`, else the file's modification time (Unix ms).
    pub event_at: i64,
    pub chunks: Vec<Chunk>,
}

/// A memory an import creates or replaces.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Planned {
    pub line: usize,
    /// The new memory's id (None on a dry run).
    pub id: Option<i64>,
    /// The memory it supersedes (a changed paragraph).
    pub supersedes: Option<i64>,
    pub preview: String,
}

/// What importing one file did (or, on a dry run, would do).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Outcome {
    pub path: String,
    pub created: Vec<Planned>,
    pub changed: Vec<Planned>,
    pub unchanged: usize,
    /// Memories of an earlier import whose paragraph is no longer in the file (kept).
    pub gone: Vec<i64>,
}

/// A file that was not imported, and why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// A file to import: its path, its folder tags, its text and modification time.
#[derive(Debug, Clone)]
pub struct Found {
    pub path: PathBuf,
    pub tags: Vec<String>,
    pub text: String,
    pub modified_ms: Option<i64>,
}

/// The key of one chunk of a file.
pub fn chunk_key(path: &str, text: &str) -> String {
    format!("{}{:016x}", key_prefix(path), fnv64(text))
}

/// Every chunk key of a file starts with this.
pub fn key_prefix(path: &str) -> String {
    format!("md:{path}#")
}
