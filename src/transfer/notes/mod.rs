//! Plain notes into memories: a folder of Markdown or text files, each split at headings and
//! blank-line paragraphs (`slm import DIR --format markdown`).
//!
//! * **Reading** ([`open_root`], [`Root::walk`], [`read`], client side): `.md`, `.markdown`
//!   and `.txt` files under the folder, in path order, handed over one at a time (an import
//!   holds one file, whatever the folder's size); hidden entries (`.git`, `.obsidian`) are not
//!   entered. An import never leaves its folder: symbolic links are skipped, or with
//!   `--follow-links` followed only to targets inside the folder. Files that are binary,
//!   larger than [`MAX_FILE_BYTES`], unreadable, links, FIFOs or devices are skipped with the
//!   reason, never fatal, and a FIFO is never opened.
//! * **Splitting** ([`split`]): YAML-style front matter (`date:`, `tags:`) is read and left
//!   out; then each paragraph (a run of non-blank lines; a fenced code block whole) becomes
//!   one memory, prefixed by the headings it sits under (`Projects > Database`), so a
//!   heading's text stays with its paragraphs. A paragraph shorter than [`MIN_CHUNK_CHARS`]
//!   joins the next one of the same section; one longer than [`MAX_CHUNK_CHARS`] is cut at
//!   sentence ends.
//! * **Identity** ([`plan`], in the engine's process): a note is its place in its file, not
//!   its text. The file's current memories from an earlier import, in their order in the file
//!   then, are aligned with its paragraphs now. Paragraphs whose text is unchanged are anchors
//!   (the longest run of them in the same order); between two anchors, the i-th new paragraph
//!   takes the place of the i-th old one: it is stored as a new memory that supersedes the old
//!   (a changed paragraph never duplicates, and a paragraph edited back to an earlier text is
//!   such a change too). Paragraphs left over are created; old memories left over are
//!   reported as no longer in the file and kept (slm never deletes what you saved).
//! * **Keys** ([`chunk_key`]): `md:<absolute path>#<hash of the text>`, and for a memory that
//!   takes an old one's place `…~<old id>`. The text hash tells an unchanged paragraph; the
//!   old id makes each version's key new (a memory is replaced at most once), so a revert is
//!   never mistaken for the superseded memory that once held the same text, and importing the
//!   same files again stores nothing.
//! * **Files gone** ([`NotesFile::sweep`]): after a folder, the files under it that an earlier
//!   import made memories of and that no longer exist are reported with those memories' ids
//!   (kept; `slm delete` removes them).
//!
//! Here: the types and keys; `read` (the walk and the files), `split` (paragraphs into
//! chunks), `plan` (aligning a file with an earlier import), `import` (running the plan on the
//! engine, and the sweep for files gone).

mod import;
mod plan;
mod read;
mod split;
#[cfg(test)]
mod tests;

pub use import::import_file;
pub use plan::{Step, plan};
pub use read::{EXTENSIONS, Entry, Found, MAX_FILE_BYTES, Root, is_notes_path, open_root, read};
pub use split::{MAX_CHUNK_CHARS, MAX_TRAIL_CHARS, MIN_CHUNK_CHARS, split};

use crate::transfer::line::fnv64;
use serde::{Deserialize, Serialize};

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
    /// Not a file but the end of a folder (`path`, no chunks): report the files under it
    /// that an earlier import made memories of and that no longer exist.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sweep: bool,
    /// Store the paragraphs as given, secrets and all (`--allow-secrets`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_secrets: bool,
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
    /// On a sweep: the files that are gone, with their memories that still stand (kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_gone: Vec<GoneFile>,
    /// The kinds of the secrets redacted from what was written (one per secret).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redacted_kinds: Vec<String>,
}

/// A file an earlier import read that no longer exists, and its memories (kept).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct GoneFile {
    pub path: String,
    pub ids: Vec<i64>,
}

/// A file that was not imported, and why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// The hash of a chunk's text, as its key holds it.
pub fn text_hash(text: &str) -> String {
    format!("{:016x}", fnv64(text))
}

/// The key of one chunk of a file: its text's hash, and the memory it takes the place of.
pub fn chunk_key(path: &str, text: &str, replaces: Option<i64>) -> String {
    let mut k = format!("{}{}", key_prefix(path), text_hash(text));
    if let Some(old) = replaces {
        k.push_str(&format!("~{old}"));
    }
    k
}

/// Every chunk key of a file starts with this.
pub fn key_prefix(path: &str) -> String {
    format!("md:{path}#")
}

/// The text hash a chunk key holds (`key` under `prefix`), whatever it replaced.
pub fn key_text_hash<'a>(key: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = key.strip_prefix(prefix)?;
    Some(rest.split_once('~').map_or(rest, |(h, _)| h))
}

/// The file a chunk key names (`md:<path>#…`).
pub fn key_path(key: &str) -> Option<&str> {
    key.strip_prefix("md:")?.rsplit_once('#').map(|(p, _)| p)
}
