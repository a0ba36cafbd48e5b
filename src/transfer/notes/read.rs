//! Reading a notes folder: `.md`, `.markdown` and `.txt` files in path order, hidden
//! entries not entered, binary, oversized or unreadable files skipped with the reason.

use super::{Found, Skipped};
use crate::{Error, Result};
use std::path::Path;

/// Files larger than this are skipped. 1 MiB of notes is ~170,000 words (a dump or a log,
/// not notes), and one file travels to the worker in one request, which must stay inside
/// its 8 MiB frame even when JSON escaping grows the text (up to 6× for control bytes).
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// Bytes looked at to tell a binary file (a NUL byte) from text.
const SNIFF_BYTES: usize = 8192;
/// File name extensions read as notes.
pub const EXTENSIONS: &[&str] = &["md", "markdown", "txt"];

/// Whether a path names a notes file by its extension.
pub fn is_notes_path(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

/// Read the notes files under `root` (or `root` itself when it is a file).
pub fn collect(root: &Path) -> Result<(Vec<Found>, Vec<Skipped>)> {
    let meta = std::fs::metadata(root)
        .map_err(|e| Error::Input(format!("{}: {e}; nothing was imported", root.display())))?;
    let root = std::fs::canonicalize(root)
        .map_err(|e| Error::io(format!("resolving {}", root.display()), e))?;
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    if meta.is_file() {
        let tags = root
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| vec![n.to_string_lossy().into_owned()])
            .unwrap_or_default();
        read_one(&root, tags, &mut found, &mut skipped);
        return Ok((found, skipped));
    }
    let base = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .into_iter()
        .collect::<Vec<_>>();
    walk(&root, base, &mut found, &mut skipped);
    Ok((found, skipped))
}

fn walk(dir: &Path, tags: Vec<String>, found: &mut Vec<Found>, skipped: &mut Vec<Skipped>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => {
            let mut v: Vec<_> = rd.flatten().collect();
            v.sort_by_key(|e| e.file_name());
            v
        }
        Err(e) => {
            skipped.push(Skipped {
                path: dir.display().to_string(),
                reason: format!("unreadable folder: {e}"),
            });
            return;
        }
    };
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = e.path();
        // Symlinked folders are not entered (a link back up would loop); linked files are read.
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            let mut t = tags.clone();
            t.push(name);
            walk(&path, t, found, skipped);
        } else if ft.is_file() || (ft.is_symlink() && path.is_file()) {
            if is_notes_path(&path) {
                read_one(&path, tags.clone(), found, skipped);
            } else {
                skipped.push(Skipped {
                    path: path.display().to_string(),
                    reason: "not a notes file (.md, .markdown, .txt)".into(),
                });
            }
        }
    }
}

fn read_one(path: &Path, tags: Vec<String>, found: &mut Vec<Found>, skipped: &mut Vec<Skipped>) {
    let skip = |reason: String, skipped: &mut Vec<Skipped>| {
        skipped.push(Skipped {
            path: path.display().to_string(),
            reason,
        })
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => return skip(format!("unreadable: {e}"), skipped),
    };
    if meta.len() > MAX_FILE_BYTES {
        return skip(
            format!(
                "{} bytes, over the {} byte limit for one notes file",
                meta.len(),
                MAX_FILE_BYTES
            ),
            skipped,
        );
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return skip(format!("unreadable: {e}"), skipped),
    };
    if bytes[..bytes.len().min(SNIFF_BYTES)].contains(&0) {
        return skip("binary (it holds NUL bytes)".into(), skipped);
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            return skip(
                format!(
                    "binary or not UTF-8 (first bad byte at offset {})",
                    e.utf8_error().valid_up_to()
                ),
                skipped,
            );
        }
    };
    let modified_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as i64);
    found.push(Found {
        path: path.to_path_buf(),
        tags,
        text,
        modified_ms,
    });
}
