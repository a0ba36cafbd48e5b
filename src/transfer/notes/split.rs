//! Splitting one file: front matter read and left out, then a memory a paragraph (a fenced
//! code block whole) under its heading trail, short ones joined, long ones cut.

use super::{Chunk, FrontMatter};

/// A paragraph shorter than this (a label such as "Decisions:", a one-word line) joins the
/// next paragraph of its section: alone it would be a memory with nothing to find it by.
pub const MIN_CHUNK_CHARS: usize = 60;
/// A paragraph longer than this is cut at sentence ends. The embedding model reads the first
/// 256 tokens of a memory (~1,000–1,200 characters of English), so a longer memory would be
/// findable by meaning only through its start.
pub const MAX_CHUNK_CHARS: usize = 1200;
/// The heading trail in front of a paragraph is cut to this many characters.
pub const MAX_TRAIL_CHARS: usize = 200;

/// Split a file's text into front matter and memories (see the module doc).
pub fn split(text: &str) -> (FrontMatter, Vec<Chunk>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    let (front, body_start) = front_matter(&lines);
    let mut blocks: Vec<Block> = Vec::new();
    let mut trail: Vec<(usize, String)> = Vec::new();
    let mut para: Vec<&str> = Vec::new();
    let mut para_line = 0usize;
    let mut fence: Option<String> = None;
    let flush =
        |para: &mut Vec<&str>, at: usize, trail: &[(usize, String)], blocks: &mut Vec<Block>| {
            let body = para.join("\n").trim().to_string();
            para.clear();
            if !body.is_empty() {
                blocks.push(Block {
                    trail: trail_text(trail),
                    body,
                    line: at,
                });
            }
        };
    for (i, raw) in lines.iter().enumerate().skip(body_start) {
        let n = i + 1;
        let t = raw.trim();
        if let Some(f) = &fence {
            para.push(raw);
            if t.starts_with(f.as_str()) {
                fence = None;
                flush(&mut para, para_line, &trail, &mut blocks);
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            flush(&mut para, para_line, &trail, &mut blocks);
            fence = Some(t[..3].to_string());
            para_line = n;
            para.push(raw);
            continue;
        }
        if let Some((level, heading)) = atx_heading(t) {
            flush(&mut para, para_line, &trail, &mut blocks);
            while trail.last().is_some_and(|(l, _)| *l >= level) {
                trail.pop();
            }
            if !heading.is_empty() {
                trail.push((level, heading));
            }
            continue;
        }
        if t.is_empty() || is_rule(t) {
            flush(&mut para, para_line, &trail, &mut blocks);
            continue;
        }
        if para.is_empty() {
            para_line = n;
        }
        para.push(raw);
    }
    flush(&mut para, para_line, &trail, &mut blocks);
    (front, size(blocks))
}

struct Block {
    trail: String,
    body: String,
    line: usize,
}

fn trail_text(trail: &[(usize, String)]) -> String {
    let t = trail
        .iter()
        .map(|(_, h)| h.as_str())
        .collect::<Vec<_>>()
        .join(" > ");
    cut_chars(&t, MAX_TRAIL_CHARS)
}

fn cut_chars(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => s[..i].trim_end().to_string(),
        None => s.to_string(),
    }
}

/// `# Heading` (1–6 hashes and a space); the closing hashes are dropped.
fn atx_heading(t: &str) -> Option<(usize, String)> {
    let level = t.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &t[level..];
    if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
        return None;
    }
    Some((level, rest.trim().trim_end_matches('#').trim().to_string()))
}

/// A thematic break (`---`, `***`, `___`).
fn is_rule(t: &str) -> bool {
    let c: Vec<char> = t.chars().filter(|c| !c.is_whitespace()).collect();
    c.len() >= 3 && ['-', '*', '_'].iter().any(|r| c.iter().all(|x| x == r))
}

/// Front matter between a first line `---` and the next `---` (or `...`): `date:` and
/// `tags:` (`[a, b]`, `a, b`, or `- a` lines). Returns it and the first body line's index.
fn front_matter(lines: &[&str]) -> (FrontMatter, usize) {
    let mut fm = FrontMatter::default();
    if lines.first().map(|l| l.trim()) != Some("---") {
        return (fm, 0);
    }
    let Some(end) = lines
        .iter()
        .enumerate()
        .skip(1)
        .take(200)
        .find(|(_, l)| matches!(l.trim(), "---" | "..."))
        .map(|(i, _)| i)
    else {
        return (fm, 0);
    };
    let unquote = |s: &str| {
        s.trim()
            .trim_matches('"')
            .trim_matches('\'')
            .trim()
            .to_string()
    };
    let mut in_tags = false;
    for l in &lines[1..end] {
        if in_tags {
            if let Some(item) = l.trim().strip_prefix("- ") {
                fm.tags.push(unquote(item));
                continue;
            }
            in_tags = false;
        }
        let Some((k, v)) = l.split_once(':') else {
            continue;
        };
        match k.trim().to_ascii_lowercase().as_str() {
            "date" => {
                let v = unquote(v);
                if !v.is_empty() {
                    fm.date = Some(v);
                }
            }
            "tags" | "tag" => {
                let v = v.trim().trim_start_matches('[').trim_end_matches(']');
                if v.trim().is_empty() {
                    in_tags = true;
                }
                fm.tags
                    .extend(v.split(',').map(unquote).filter(|t| !t.is_empty()));
            }
            _ => {}
        }
    }
    (fm, end + 1)
}

/// Join short paragraphs to the next of their section, cut long ones, add the trail.
fn size(blocks: Vec<Block>) -> Vec<Chunk> {
    let mut merged: Vec<Block> = Vec::new();
    for b in blocks {
        match merged.last_mut() {
            Some(prev)
                if prev.trail == b.trail
                    && prev.body.chars().count() < MIN_CHUNK_CHARS
                    // A code block ends what it joined: prose after it is its own memory.
                    && !prev.body.contains("```")
                    && !prev.body.contains("~~~") =>
            {
                prev.body.push_str("\n\n");
                prev.body.push_str(&b.body);
            }
            _ => merged.push(b),
        }
    }
    let mut out = Vec::new();
    for b in merged {
        let mut line = b.line;
        for piece in cut(&b.body, MAX_CHUNK_CHARS) {
            let text = if b.trail.is_empty() {
                piece.clone()
            } else {
                format!("{}\n{}", b.trail, piece)
            };
            out.push(Chunk { text, line });
            line += piece.matches('\n').count();
        }
    }
    out
}

/// Cut a text into pieces of at most `max` characters, at sentence ends when it can, else
/// at a space, else anywhere (between characters).
fn cut(text: &str, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while rest.chars().count() > max {
        let limit = rest
            .char_indices()
            .nth(max)
            .map(|(i, _)| i)
            .unwrap_or(rest.len());
        let window = &rest[..limit];
        let at = window
            .rmatch_indices(['.', '?', '!', '\n'])
            .map(|(i, _)| i + 1)
            .find(|&i| i > limit / 3 && rest[i..].starts_with(char::is_whitespace))
            .or_else(|| window.rfind(char::is_whitespace).filter(|&i| i > 0))
            .unwrap_or(limit);
        out.push(rest[..at].trim().to_string());
        rest = rest[at..].trim_start();
    }
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}
