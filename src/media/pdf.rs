//! PDF documents: each page becomes one memory, holding the page's text layer.
//!
//! The text is read with `pdf-extract` (on lopdf, pure Rust). A page without a text layer (a
//! scan) would need rendering before OCR; no well-kept pure-Rust renderer exists, and slm links
//! no system library, so such a page is stored as **wordless** and reported as such: found by
//! the document's name and the user's note, as a wordless picture is.

use crate::{Error, Result};
use std::path::Path;

/// The most pages a document may have (issue 37: a page limit with a clear error).
pub const MAX_PAGES: usize = 500;
/// A page counts as having a text layer when it holds at least this many letters or digits
/// (a page number alone is not text to find a page by).
pub const MIN_PAGE_CHARS: usize = 3;

/// Whether these bytes are a PDF (its header).
pub fn is_pdf(bytes: &[u8]) -> bool {
    bytes.starts_with(b"%PDF-")
}

fn input(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::Input(format!("{}: {why}; nothing was stored", path.display()))
}

/// Each page's text, whitespace tidied; an empty string for a page without a text layer.
pub fn pages(path: &Path, bytes: &[u8]) -> Result<Vec<String>> {
    let doc = pdf_extract::Document::load_mem(bytes)
        .map_err(|e| input(path, format!("the PDF cannot be read ({e})")))?;
    let n = doc.get_pages().len();
    if n == 0 {
        return Err(input(path, "the PDF has no pages"));
    }
    if n > MAX_PAGES {
        return Err(input(
            path,
            format!("{n} pages is over the limit of {MAX_PAGES} pages"),
        ));
    }
    drop(doc);
    // pdf-extract panics on some malformed files instead of returning an error: such a file is
    // refused like any unreadable one.
    let got = std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem_by_pages(bytes));
    let texts = match got {
        Ok(Ok(t)) => t,
        Ok(Err(e)) => return Err(input(path, format!("the PDF's text cannot be read ({e})"))),
        Err(_) => return Err(input(path, "the PDF's text cannot be read (malformed)")),
    };
    Ok(texts
        .into_iter()
        .map(|t| {
            let tidy: Vec<String> = t
                .lines()
                .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|l| !l.is_empty())
                .collect();
            let t = tidy.join("\n");
            if t.chars().filter(|c| c.is_alphanumeric()).count() >= MIN_PAGE_CHARS {
                t
            } else {
                String::new()
            }
        })
        .collect())
}
