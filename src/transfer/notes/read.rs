//! Walking and reading a notes folder, one file at a time: `.md`, `.markdown` and `.txt`
//! files in path order, hidden entries not entered, and never a step outside the folder.
//!
//! The walk hands each file to its caller as it meets it ([`Root::walk`]); nothing is read
//! until the caller asks ([`read`]), so an import holds one file at a time whatever the
//! folder's size. Symbolic links are not followed: they are listed as skipped with the
//! reason. With `follow_links`, a link is followed only when its canonical target lies inside
//! the canonical folder (a notes repository someone else wrote cannot pull `/etc/passwd` or
//! `../../secret.md` in), and each file and folder is read once however many links lead to
//! it. FIFOs, sockets and devices are listed as skipped and never opened; a file is opened
//! without following a link and without blocking, and must still be a regular file then.

use super::Skipped;
use crate::{Error, Result};
use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Files larger than this are skipped. 1 MiB of notes is ~170,000 words (a dump or a log,
/// not notes), and one file travels to the worker in one request, which must stay inside
/// its 8 MiB frame even when JSON escaping grows the text (up to 6× for control bytes).
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// Bytes looked at to tell a binary file (a NUL byte) from text.
const SNIFF_BYTES: usize = 8192;
/// File name extensions read as notes.
pub const EXTENSIONS: &[&str] = &["md", "markdown", "txt"];
/// What a skipped link says about `--follow-links`.
const LINK_HINT: &str =
    "links are not followed (--follow-links follows links that stay inside the folder)";

/// Whether a path names a notes file by its extension.
pub fn is_notes_path(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

/// A notes file the walk met: the path it is read from (canonical, so a file reached through
/// a link is the same note as the file itself) and the folder tags it gets.
#[derive(Debug, Clone)]
pub struct Found {
    pub path: PathBuf,
    pub tags: Vec<String>,
}

/// One step of a walk.
#[derive(Debug, Clone)]
pub enum Entry {
    File(Found),
    Skipped(Skipped),
}

/// What an import was given: a folder or one file, resolved.
#[derive(Debug, Clone)]
pub struct Root {
    /// The canonical path (the keys and origins name it).
    pub path: PathBuf,
    pub is_folder: bool,
}

/// The file or folder an import names, checked: a missing path, or one that is neither a
/// file nor a folder (a FIFO is never opened), is an error and nothing is imported.
pub fn open_root(root: &Path) -> Result<Root> {
    let nothing =
        |why: String| Error::Input(format!("{}: {why}; nothing was imported", root.display()));
    let path = std::fs::canonicalize(root).map_err(|e| {
        if std::fs::symlink_metadata(root).is_ok_and(|m| m.file_type().is_symlink()) {
            nothing("a link to nothing (its target does not exist)".into())
        } else {
            nothing(e.to_string())
        }
    })?;
    let meta = std::fs::metadata(&path).map_err(|e| nothing(e.to_string()))?;
    if meta.is_dir() {
        return Ok(Root {
            path,
            is_folder: true,
        });
    }
    if !meta.is_file() {
        return Err(nothing(format!(
            "{}, not a notes file or folder",
            special_kind(&meta.file_type())
        )));
    }
    Ok(Root {
        path,
        is_folder: false,
    })
}

impl Root {
    /// Walk the folder in path order (or the one file), handing each notes file and each
    /// skipped entry to `visit` as it is met; an error from `visit` stops the walk.
    pub fn walk(
        &self,
        follow_links: bool,
        visit: &mut dyn FnMut(Entry) -> Result<()>,
    ) -> Result<()> {
        if !self.is_folder {
            let tags = self
                .path
                .parent()
                .and_then(|p| p.file_name())
                .map(|n| vec![n.to_string_lossy().into_owned()])
                .unwrap_or_default();
            return visit(Entry::File(Found {
                path: self.path.clone(),
                tags,
            }));
        }
        let base = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .into_iter()
            .collect();
        let mut w = Walk {
            root: &self.path,
            follow_links,
            dirs: HashSet::from([self.path.clone()]),
            files: HashSet::new(),
            visit,
        };
        w.dir(&self.path, &self.path, base)
    }
}

struct Walk<'a> {
    root: &'a Path,
    follow_links: bool,
    /// Folders entered through links or as the root (a link back up would loop).
    dirs: HashSet<PathBuf>,
    /// Files handed out, when links are followed (two links to one note are one note).
    files: HashSet<PathBuf>,
    visit: &'a mut dyn FnMut(Entry) -> Result<()>,
}

impl Walk<'_> {
    fn skip(&mut self, path: &Path, reason: String) -> Result<()> {
        (self.visit)(Entry::Skipped(Skipped {
            path: path.display().to_string(),
            reason,
        }))
    }

    /// Walk the folder at `real` (its canonical path), shown as `shown` (a link's path).
    fn dir(&mut self, real: &Path, shown: &Path, tags: Vec<String>) -> Result<()> {
        let mut names = match std::fs::read_dir(real) {
            Ok(rd) => rd.flatten().map(|e| e.file_name()).collect::<Vec<_>>(),
            Err(e) => return self.skip(shown, format!("unreadable folder: {e}")),
        };
        names.sort();
        for name in names {
            let text = name.to_string_lossy().into_owned();
            if text.starts_with('.') {
                continue;
            }
            let (real, shown) = (real.join(&name), shown.join(&name));
            let Ok(meta) = std::fs::symlink_metadata(&real) else {
                continue; // removed while we walked
            };
            let ft = meta.file_type();
            if ft.is_symlink() {
                self.link(&real, &shown, text, &tags)?;
            } else if ft.is_dir() {
                let mut t = tags.clone();
                t.push(text);
                self.dir(&real, &shown, t)?;
            } else if ft.is_file() {
                self.file(real, &shown, &tags)?;
            } else {
                let why = format!("{}, not a regular file; not opened", special_kind(&ft));
                self.skip(&shown, why)?;
            }
        }
        Ok(())
    }

    fn file(&mut self, real: PathBuf, shown: &Path, tags: &[String]) -> Result<()> {
        if !is_notes_path(shown) {
            return self.skip(shown, "not a notes file (.md, .markdown, .txt)".into());
        }
        if self.follow_links && !self.files.insert(real.clone()) {
            return self.skip(
                shown,
                "the same file as one already read (through a link)".into(),
            );
        }
        (self.visit)(Entry::File(Found {
            path: real,
            tags: tags.to_vec(),
        }))
    }

    fn link(&mut self, real: &Path, shown: &Path, name: String, tags: &[String]) -> Result<()> {
        let target = std::fs::canonicalize(real);
        if !self.follow_links {
            let what = match &target {
                Err(_) => "a symbolic link to nothing (its target does not exist)",
                Ok(_) => "a symbolic link",
            };
            return self.skip(shown, format!("{what}; {LINK_HINT}"));
        }
        let Ok(target) = target else {
            return self.skip(
                shown,
                "a symbolic link to nothing (its target does not exist)".into(),
            );
        };
        if !target.starts_with(self.root) {
            return self.skip(
                shown,
                "a symbolic link to outside the folder; not followed (imports never leave the folder they were given)".into(),
            );
        }
        let meta = match std::fs::metadata(&target) {
            Ok(m) => m,
            Err(e) => {
                return self.skip(
                    shown,
                    format!("a symbolic link whose target is unreadable: {e}"),
                );
            }
        };
        if meta.is_dir() {
            if !self.dirs.insert(target.clone()) {
                return self.skip(
                    shown,
                    "a symbolic link to a folder already read (a loop)".into(),
                );
            }
            let mut t = tags.to_vec();
            t.push(name);
            self.dir(&target, shown, t)
        } else if meta.is_file() {
            self.file(target, shown, tags)
        } else {
            let why = format!(
                "a symbolic link to {}; not opened",
                special_kind(&meta.file_type())
            );
            self.skip(shown, why)
        }
    }
}

/// What a file that is neither a regular file nor a folder is, in words.
fn special_kind(ft: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        "a FIFO (named pipe)"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_block_device() || ft.is_char_device() {
        "a device"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// A file's text and modification time (Unix ms), or why it is skipped. The file is opened
/// without following a link and without blocking (a FIFO swapped in after the walk), and
/// at most [`MAX_FILE_BYTES`] are read.
pub fn read(path: &Path) -> std::result::Result<(String, Option<i64>), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => format!("a symbolic link; {LINK_HINT}"),
            _ => format!("unreadable: {e}"),
        })?;
    let meta = file.metadata().map_err(|e| format!("unreadable: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "{}, not a regular file",
            special_kind(&meta.file_type())
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{} bytes, over the {} byte limit for one notes file",
            meta.len(),
            MAX_FILE_BYTES
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("unreadable: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "over the {MAX_FILE_BYTES} byte limit for one notes file (it grew while being read)"
        ));
    }
    if bytes[..bytes.len().min(SNIFF_BYTES)].contains(&0) {
        return Err("binary (it holds NUL bytes)".into());
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "binary or not UTF-8 (first bad byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    let modified_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as i64);
    Ok((text, modified_ms))
}
