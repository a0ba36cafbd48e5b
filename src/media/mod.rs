//! Pictures: checking a file before anything is stored, keeping the original
//! (content-addressed, never modified), and the text a picture's memory holds.
//!
//! A picture is saved as a memory whose text is the user's note, the file's name, and — once
//! the worker's background queue has read it (`ocr`) — the lines OCR read. The words feed
//! BM25 and the dense channel like any memory's; the `pictures` table (migration 11) keeps
//! the file, its size and what OCR found. A picture in which OCR finds no line at
//! [`ocr::LINE_CONFIDENCE`] is **wordless**: it is found by its note alone.

pub mod clip;
pub mod detect;
pub mod ocr;
pub mod pdf;

use crate::paths::Paths;
use crate::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The largest file taken (issue 37's default).
pub const MAX_BYTES: u64 = 25 * 1024 * 1024;
/// The most pixels decoded (a 10,000 × 5,000 picture); a larger one would cost hundreds of
/// megabytes to read and is refused before it is decoded.
pub const MAX_PIXELS: u64 = 50_000_000;
/// The folder under the data dir that holds the originals.
pub const MEDIA_DIR: &str = "media";
/// Hex digits of the sha256 in a picture's memory text: it keeps two pictures with the same
/// name and note apart, and finds the file again by eye.
const TEXT_SHA_DIGITS: usize = 12;

pub use crate::memory::PictureRef;

/// The file endings taken as pictures and as documents when a folder is read (the content
/// decides the format; these only choose which files to look at).
pub const PICTURE_ENDINGS: [&str; 5] = ["png", "jpg", "jpeg", "webp", "gif"];
pub const DOCUMENT_ENDINGS: [&str; 1] = ["pdf"];

/// Whether a file's name ends like one of `endings` (case aside).
pub fn ends_like(p: &Path, endings: &[&str]) -> bool {
    let ext = p
        .extension()
        .map(|x| x.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    endings.contains(&ext.as_str())
}

/// A file's content address.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    format!("{:x}", Sha256::digest(bytes))
}

fn input(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::Input(format!("{}: {why}; nothing was stored", path.display()))
}

/// Read and check a picture file: its size, its format (PNG, JPEG, WebP, GIF: the first
/// frame), its pixel count, and that it decodes whole. Returns what its memory records and
/// the file's bytes.
pub fn inspect(path: &Path) -> Result<(PictureRef, Vec<u8>)> {
    let meta = std::fs::metadata(path).map_err(|e| input(path, e))?;
    if !meta.is_file() {
        return Err(input(path, "not a file"));
    }
    if meta.len() > MAX_BYTES {
        return Err(input(
            path,
            format!(
                "{} bytes is over the limit of {} bytes (25 MB)",
                meta.len(),
                MAX_BYTES
            ),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| input(path, e))?;
    if pdf::is_pdf(&bytes) {
        return Err(input(
            path,
            "a PDF is a document, not a picture: `slm import --format media` takes it, page by page",
        ));
    }
    let format = image::guess_format(&bytes)
        .map_err(|_| input(path, "not a PNG, JPEG, WebP or GIF picture"))?;
    let ext = match format {
        image::ImageFormat::Png => "png",
        image::ImageFormat::Jpeg => "jpg",
        image::ImageFormat::WebP => "webp",
        image::ImageFormat::Gif => "gif",
        other => {
            return Err(input(
                path,
                format!("{other:?} pictures are not supported (PNG, JPEG, WebP or GIF)"),
            ));
        }
    };
    let reader = image::ImageReader::with_format(std::io::Cursor::new(&bytes), format);
    let (width, height) = reader
        .into_dimensions()
        .map_err(|e| input(path, format!("the picture cannot be read ({e})")))?;
    if width as u64 * height as u64 > MAX_PIXELS {
        return Err(input(
            path,
            format!("{width} × {height} pixels is over the limit of {MAX_PIXELS} pixels"),
        ));
    }
    decode(&bytes).map_err(|e| input(path, format!("the picture is damaged ({e})")))?;
    let sha256 = sha256_hex(&bytes);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| format!("picture.{ext}"));
    Ok((
        PictureRef {
            sha256,
            ext: ext.into(),
            name,
            bytes: meta.len(),
            width,
            height,
            ..Default::default()
        },
        bytes,
    ))
}

/// A file to import: a picture, or a PDF and its pages' text.
pub struct Inspected {
    pub file: PictureRef,
    pub bytes: Vec<u8>,
    /// A PDF's pages (an empty string for a page without a text layer); None for a picture.
    pub pages: Option<Vec<String>>,
}

/// [`inspect`] for a picture or a PDF (the file's own header decides).
pub fn inspect_any(path: &Path) -> Result<Inspected> {
    let head = {
        use std::io::Read;
        let mut b = [0u8; 5];
        let n = std::fs::File::open(path)
            .and_then(|mut f| f.read(&mut b))
            .map_err(|e| input(path, e))?;
        b[..n].to_vec()
    };
    if !pdf::is_pdf(&head) {
        let (file, bytes) = inspect(path)?;
        return Ok(Inspected {
            file,
            bytes,
            pages: None,
        });
    }
    let meta = std::fs::metadata(path).map_err(|e| input(path, e))?;
    if meta.len() > MAX_BYTES {
        return Err(input(
            path,
            format!(
                "{} bytes is over the limit of {MAX_BYTES} bytes (25 MB)",
                meta.len()
            ),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| input(path, e))?;
    let pages = pdf::pages(path, &bytes)?;
    let sha256 = sha256_hex(&bytes);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "document.pdf".into());
    Ok(Inspected {
        file: PictureRef {
            sha256,
            ext: "pdf".into(),
            name,
            bytes: meta.len(),
            ..Default::default()
        },
        bytes,
        pages: Some(pages),
    })
}

/// The memories a file becomes: one for a picture (its words come later, from OCR), one a page
/// for a PDF (each with its page's text, or wordless).
pub fn memories_of(f: &Inspected) -> Vec<(PictureRef, String)> {
    match &f.pages {
        None => vec![(f.file.clone(), memory_text(&f.file, &[]))],
        Some(pages) => pages
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let p = PictureRef {
                    page: Some(i as u32 + 1),
                    text_layer: Some(!text.is_empty()),
                    ..f.file.clone()
                };
                let lines: Vec<String> = text.lines().map(str::to_string).collect();
                let t = memory_text(&p, &lines);
                (p, t)
            })
            .collect(),
    }
}

/// Decode a picture's bytes (a GIF's first frame), within [`MAX_PIXELS`].
pub fn decode(bytes: &[u8]) -> std::result::Result<image::DynamicImage, String> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| e.to_string())?;
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(MAX_PIXELS * 4 + (64 << 20));
    reader.limits(limits);
    reader.decode().map_err(|e| e.to_string())
}

/// Where a picture's original lives: `<data>/media/<first two hex>/<sha256>.<ext>`.
pub fn path_of(paths: &Paths, sha256: &str, ext: &str) -> PathBuf {
    paths.data.join(MEDIA_DIR).join(relative_path(sha256, ext))
}

/// A picture's file under the media folder: `<ab>/<sha256>.<ext>`.
pub fn relative_path(sha256: &str, ext: &str) -> PathBuf {
    let shard = sha256.get(..2).unwrap_or("00");
    Path::new(shard).join(format!("{sha256}.{ext}"))
}

/// Where a picture's thumbnail lives: `<data>/media/thumbs/<sha256>.png`.
pub fn thumbnail_path(paths: &Paths, sha256: &str) -> PathBuf {
    paths
        .data
        .join(MEDIA_DIR)
        .join("thumbs")
        .join(format!("{sha256}.png"))
}

/// Write a picture's thumbnail (its longer side `edge` pixels), written aside and renamed
/// into place.
pub fn write_thumbnail(
    paths: &Paths,
    sha256: &str,
    img: &image::DynamicImage,
    edge: u32,
) -> std::result::Result<PathBuf, String> {
    let dest = thumbnail_path(paths, sha256);
    let dir = dest.parent().expect("the path has a folder");
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let small = img.thumbnail(edge, edge);
    let tmp = tempfile::Builder::new()
        .suffix(".png")
        .tempfile_in(dir)
        .map_err(|e| e.to_string())?;
    small
        .save_with_format(tmp.path(), image::ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    tmp.persist(&dest).map_err(|e| e.error.to_string())?;
    Ok(dest)
}

/// Keep the original: written to a temporary file, synced, renamed into place, the folder
/// synced, then read back and checked against its sha256. A file already there with the
/// right contents is kept as it is (the same picture saved twice is stored once).
pub fn save(paths: &Paths, p: &PictureRef, bytes: &[u8]) -> Result<PathBuf> {
    let dest = path_of(paths, &p.sha256, &p.ext);
    let matches = |f: &Path| {
        crate::paths::sha256_file(f)
            .map(|(sum, _)| sum == p.sha256)
            .unwrap_or(false)
    };
    if dest.is_file() && matches(&dest) {
        return Ok(dest);
    }
    let dir = dest.parent().expect("the path has a folder");
    let io = |source: std::io::Error| Error::Io {
        context: format!("keeping the picture in {}", dir.display()),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(&dest).map_err(|e| io(e.error))?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    if !matches(&dest) {
        return Err(Error::Other(format!(
            "{} does not read back as it was written; nothing was stored",
            dest.display()
        )));
    }
    Ok(dest)
}

/// The text a picture's memory holds: the note, a line naming the file, and the lines OCR
/// read (once it has), cut to fit the memory limit.
pub fn memory_text(p: &PictureRef, ocr_lines: &[String]) -> String {
    let mut t = String::new();
    if let Some(n) = p.note.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
        t.push_str(n);
        t.push('\n');
    }
    let sha = p.sha256.get(..TEXT_SHA_DIGITS).unwrap_or(&p.sha256);
    match p.page {
        Some(n) => t.push_str(&format!("[document: {}, page {n} · {sha}]", p.name)),
        None => t.push_str(&format!("[picture: {} · {sha}]", p.name)),
    }
    for line in ocr_lines {
        if t.len() + 1 + line.len() > crate::memory::MAX_TEXT_BYTES {
            break;
        }
        t.push('\n');
        t.push_str(line);
    }
    t
}

/// Lines OCR read, joined into the lines of the picture: boxes on one line of the picture
/// are one line of text.
pub fn join_lines(lines: &[ocr::Line]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut prev: Option<[u32; 4]> = None;
    for l in lines {
        let same = prev.is_some_and(|p| {
            let c = (l.bbox[1] + l.bbox[3]) / 2;
            c > p[1] && c < p[3] && l.bbox[0] >= p[0]
        });
        match out.last_mut() {
            Some(last) if same => {
                last.push(' ');
                last.push_str(&l.text);
            }
            _ => out.push(l.text.clone()),
        }
        prev = Some(l.bbox);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_text_names_the_file_and_keeps_within_the_limit() {
        let p = PictureRef {
            sha256: "ab".repeat(32),
            ext: "png".into(),
            name: "q3.png".into(),
            note: Some("the quarterly slide".into()),
            ..Default::default()
        };
        assert_eq!(
            memory_text(&p, &[]),
            "the quarterly slide\n[picture: q3.png · abababababab]"
        );
        let long = vec!["x".repeat(1000); 100];
        let t = memory_text(&p, &long);
        assert!(t.len() <= crate::memory::MAX_TEXT_BYTES && t.len() > 30_000);
    }

    #[test]
    fn boxes_on_one_line_join() {
        let l = |t: &str, b: [u32; 4]| ocr::Line {
            text: t.into(),
            confidence: 0.9,
            bbox: b,
        };
        let lines = [
            l("Revenue", [10, 10, 80, 30]),
            l("up 12%", [90, 12, 150, 31]),
            l("Costs flat", [10, 50, 120, 70]),
        ];
        assert_eq!(join_lines(&lines), vec!["Revenue up 12%", "Costs flat"]);
    }
}
