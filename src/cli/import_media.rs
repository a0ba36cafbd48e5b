//! `slm import --format media FOLDER|FILE`: every picture (PNG, JPEG, WebP, GIF) and PDF in a
//! folder, or one file, each kept in the data dir and saved as memories named by its path in
//! the folder: a picture is one memory whose words OCR reads in the worker's background queue
//! (here, when no worker runs); a PDF is one memory a page, holding the page's text layer.
//!
//! Every file is checked before any is stored: a damaged or oversized picture stops the
//! import with its name and nothing stored (`--skip-bad` stores the others and lists it).
//! Running it again stores nothing twice (the same picture is recognised by its sha256).

use super::args::{GlobalArgs, ImportArgs};
use crate::engine::ModelMode;
use crate::media;
use crate::memory::{NewMemory, PictureRef};
use crate::output::{Style, emit};
use crate::paths::Paths;
use crate::service::{Op, Request};
use crate::worker::client::{Mode, Target};
use crate::{Error, Result};
use serde_json::json;
use std::path::{Path, PathBuf};

/// Pictures per write.
const BATCH: usize = 16;

/// The pictures under `dir`, sorted; symbolic links are skipped unless `follow` (and then
/// only those that stay inside `dir`). Returns the files and the count of other files.
fn pictures_in(dir: &Path, follow: bool) -> Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    let root = dir
        .canonicalize()
        .map_err(|e| Error::io(format!("reading {}", dir.display()), e))?;
    let (mut pics, mut other) = (Vec::new(), Vec::new());
    let mut todo = vec![root.clone()];
    while let Some(d) = todo.pop() {
        let entries =
            std::fs::read_dir(&d).map_err(|e| Error::io(format!("reading {}", d.display()), e))?;
        for e in entries.flatten() {
            let p = e.path();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_symlink() {
                let inside = follow
                    && p.canonicalize()
                        .map(|t| t.starts_with(&root))
                        .unwrap_or(false);
                if !inside {
                    continue;
                }
            }
            if p.is_dir() {
                todo.push(p);
            } else if p.is_file() {
                if media::ends_like(&p, &media::PICTURE_ENDINGS)
                    || media::ends_like(&p, &media::DOCUMENT_ENDINGS)
                {
                    pics.push(p);
                } else {
                    other.push(p);
                }
            }
        }
    }
    pics.sort();
    other.sort();
    Ok((pics, other))
}

pub fn import_media(dir: &Path, a: &ImportArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    if !dir.is_dir() && !dir.is_file() {
        return Err(Error::Usage(format!(
            "{}: --format media imports a folder of pictures and PDFs, or one file",
            dir.display()
        )));
    }
    if a.dry_run {
        return Err(Error::Usage(
            "--dry-run is for notes (--format markdown); a media import is resumable, so run it"
                .into(),
        ));
    }
    let (files, other) = if dir.is_file() {
        (vec![dir.to_path_buf()], Vec::new())
    } else {
        pictures_in(dir, a.follow_links)?
    };
    let root = match dir.is_file() {
        true => dir.parent().map(Path::to_path_buf).unwrap_or_default(),
        false => dir.to_path_buf(),
    };
    let root = root.canonicalize().unwrap_or(root);
    // Check every file first: nothing is stored when one is bad (unless --skip-bad).
    let pb = crate::progress::bar(files.len() as u64, "checking pictures");
    let mut good: Vec<(PictureRef, PathBuf)> = Vec::new();
    let mut bad: Vec<String> = Vec::new();
    for f in &files {
        let f = f.canonicalize().unwrap_or_else(|_| f.clone());
        match crate::media::inspect_any(&f) {
            Ok(i) => {
                let mut p = i.file;
                p.name = f
                    .strip_prefix(&root)
                    .unwrap_or(&f)
                    .to_string_lossy()
                    .into_owned();
                good.push((p, f.clone()));
            }
            Err(e) => bad.push(e.to_string()),
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    if !bad.is_empty() && !a.skip_bad {
        return Err(Error::Input(format!(
            "{} picture(s) cannot be imported; nothing was imported (use --skip-bad to import the others):\n{}",
            bad.len(),
            bad.join("\n")
        )));
    }
    let paths = Paths::from_env();
    let target = Target::connect(&paths, Mode::resolve(g.no_worker)?, ModelMode::Load)?;
    let pb = crate::progress::bar(good.len() as u64, "importing pictures");
    let (mut added, mut existed) = (0usize, 0usize);
    let mut wordless_docs: Vec<String> = Vec::new();
    for chunk in good.chunks(BATCH) {
        let mut memories = Vec::new();
        for (p, f) in chunk {
            // Read again to keep: the file is stored as it is now, checked by its sha256. A
            // picture was decoded whole by the check above; only a PDF is parsed again (its pages).
            let mut now = if p.ext == "pdf" {
                crate::media::inspect_any(f)?
            } else {
                let bytes = std::fs::read(f)
                    .map_err(|e| Error::io(format!("reading {}", f.display()), e))?;
                crate::media::Inspected {
                    file: PictureRef {
                        sha256: crate::media::sha256_hex(&bytes),
                        ..p.clone()
                    },
                    bytes,
                    pages: None,
                }
            };
            if now.file.sha256 != p.sha256 {
                return Err(Error::Input(format!(
                    "{} changed while it was imported; run the import again",
                    f.display()
                )));
            }
            now.file.name = p.name.clone();
            crate::media::save(&paths, &now.file, &now.bytes)?;
            if now
                .pages
                .as_ref()
                .is_some_and(|ps| ps.iter().all(String::is_empty))
            {
                wordless_docs.push(p.name.clone());
            }
            for (part, text) in crate::media::memories_of(&now) {
                memories.push(NewMemory {
                    text,
                    profile: Some(g.profile.clone()),
                    project: super::current_project(g),
                    allow_secrets: a.allow_secrets,
                    picture: Some(part),
                    ..Default::default()
                });
            }
        }
        let op = Op::RememberBatch {
            memories,
            embed: crate::engine::Embed::Now,
        };
        let body = target.run(Request { op, human: None })?.body;
        // A delete of the same picture between the save above and this write may have removed
        // its file (`Engine::delete`); now that a row keeps it, it stays once saved again.
        for (p, f) in chunk {
            if !crate::media::path_of(&paths, &p.sha256, &p.ext).is_file() {
                let bytes = std::fs::read(f)
                    .map_err(|e| Error::io(format!("reading {}", f.display()), e))?;
                let file = PictureRef {
                    sha256: crate::media::sha256_hex(&bytes),
                    ..p.clone()
                };
                if file.sha256 != p.sha256 {
                    return Err(Error::Input(format!(
                        "{} changed while it was imported; run the import again",
                        f.display()
                    )));
                }
                crate::media::save(&paths, &file, &bytes)?;
            }
        }
        for r in body["results"].as_array().into_iter().flatten() {
            if r["existed"].as_bool() == Some(true) {
                existed += 1;
            } else {
                added += 1;
            }
        }
        pb.inc(chunk.len() as u64);
    }
    pb.finish_and_clear();
    // With no worker to read them in the background, they are read here.
    let read_here = target.read_pictures_here()?;
    let others = other.len();
    emit(
        style,
        "import",
        json!({ "added": added, "existed": existed, "skipped_bad": bad, "other_files": others,
                "read_now": read_here, "documents_without_text": wordless_docs,
                "served_by": target.served_by() }),
        || {
            let mut s = format!("imported {added} pictures and pages");
            if existed > 0 {
                s.push_str(&format!(" ({existed} already there)"));
            }
            s.push_str(&match read_here {
                Some(0) => String::new(),
                Some(n) => format!("; read the words in {n} pictures"),
                None => {
                    "; the words in pictures are read in the background (`slm doctor` shows how many wait)"
                        .into()
                }
            });
            if !wordless_docs.is_empty() {
                s.push_str(&format!(
                    "\n{} PDF(s) with no text layer (scans; slm cannot render pages to read them): {}; found by their name only",
                    wordless_docs.len(),
                    wordless_docs.join(", ")
                ));
            }
            if !bad.is_empty() {
                s.push_str(&format!("\nskipped {}:\n{}", bad.len(), bad.join("\n")));
            }
            if others > 0 {
                s.push_str(&format!(
                    "\n{others} other file(s) left out (pictures are PNG, JPEG, WebP or GIF; documents PDF)"
                ));
            }
            s
        },
    )?;
    Ok(if bad.is_empty() { 0 } else { 1 })
}
