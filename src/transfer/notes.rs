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

use crate::engine::Engine;
use crate::memory::{Kind, NewMemory, Source};
use crate::transfer::line::fnv64;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Files larger than this are skipped. 1 MiB of notes is ~170,000 words (a dump or a log,
/// not notes), and one file travels to the worker in one request, which must stay inside
/// its 8 MiB frame even when JSON escaping grows the text (up to 6× for control bytes).
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// A paragraph shorter than this (a label such as "Decisions:", a one-word line) joins the
/// next paragraph of its section: alone it would be a memory with nothing to find it by.
pub const MIN_CHUNK_CHARS: usize = 60;
/// A paragraph longer than this is cut at sentence ends. The embedding model reads the first
/// 256 tokens of a memory (~1,000–1,200 characters of English), so a longer memory would be
/// findable by meaning only through its start.
pub const MAX_CHUNK_CHARS: usize = 1200;
/// The heading trail in front of a paragraph is cut to this many characters.
pub const MAX_TRAIL_CHARS: usize = 200;
/// Bytes looked at to tell a binary file (a NUL byte) from text.
const SNIFF_BYTES: usize = 8192;
/// File name extensions read as notes.
pub const EXTENSIONS: &[&str] = &["md", "markdown", "txt"];

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

/// How a paragraph of the file now relates to the memories of an earlier import.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Same text: the memory at this index of the old list.
    Unchanged(usize),
    /// New text in the place of the old memory at this index: it supersedes it.
    Replaces(usize),
    /// New text with nothing in its place.
    Created,
}

/// Align the old memories' keys (in file order then) with the chunks' keys now (see the
/// module doc). Returns a step per new key and the old indices left over.
pub fn plan(old: &[String], new: &[String]) -> (Vec<Step>, Vec<usize>) {
    let at_old: HashMap<&str, usize> = old
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let common: Vec<(usize, usize)> = new
        .iter()
        .enumerate()
        .filter_map(|(i, k)| at_old.get(k.as_str()).map(|&j| (i, j)))
        .collect();
    let anchors = longest_increasing(&common);
    let mut steps = vec![Step::Created; new.len()];
    let mut old_used = vec![false; old.len()];
    for &(i, j) in &common {
        steps[i] = Step::Unchanged(j);
        old_used[j] = true;
    }
    let mut bounds: Vec<(isize, isize)> = vec![(-1, -1)];
    bounds.extend(anchors.iter().map(|&(i, j)| (i as isize, j as isize)));
    bounds.push((new.len() as isize, old.len() as isize));
    for w in bounds.windows(2) {
        let (ni0, oj0) = w[0];
        let (ni1, oj1) = w[1];
        let new_gap: Vec<usize> = ((ni0 + 1)..ni1)
            .map(|i| i as usize)
            .filter(|&i| steps[i] == Step::Created)
            .collect();
        let old_gap: Vec<usize> = ((oj0 + 1)..oj1)
            .map(|j| j as usize)
            .filter(|&j| !old_used[j])
            .collect();
        for (&i, &j) in new_gap.iter().zip(&old_gap) {
            steps[i] = Step::Replaces(j);
            old_used[j] = true;
        }
    }
    let gone = (0..old.len()).filter(|&j| !old_used[j]).collect();
    (steps, gone)
}

/// The longest subsequence of (new, old) pairs, in new order, whose old indices increase.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // Patience sorting: tails[k] = index into pairs of the smallest tail of a run of k+1.
    let mut tails: Vec<usize> = Vec::new();
    let mut prev: Vec<Option<usize>> = vec![None; pairs.len()];
    for (p, &(_, j)) in pairs.iter().enumerate() {
        let k = tails.partition_point(|&t| pairs[t].1 < j);
        prev[p] = k.checked_sub(1).map(|k| tails[k]);
        if k == tails.len() {
            tails.push(p);
        } else {
            tails[k] = p;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied();
    while let Some(p) = at {
        out.push(pairs[p]);
        at = prev[p];
    }
    out.reverse();
    out
}

/// The line an origin `path:line` names.
fn origin_line(origin: Option<&str>) -> usize {
    origin
        .and_then(|o| o.rsplit_once(':'))
        .and_then(|(_, l)| l.parse().ok())
        .unwrap_or(usize::MAX)
}

/// Import one file on `engine` (or, with `dry_run`, say what that would do).
pub fn import_file(engine: &Engine, f: &NotesFile, dry_run: bool) -> Result<Outcome> {
    // The memories an earlier import made of this file that still stand, in file order then.
    let existing = engine.keys_with_prefix(&f.profile, &key_prefix(&f.path))?;
    let ids: Vec<i64> = existing.iter().map(|(_, id)| *id).collect();
    let states: HashMap<i64, (Option<String>, bool)> = engine
        .origins(&ids)?
        .into_iter()
        .map(|(id, o, sup)| (id, (o, sup)))
        .collect();
    let mut old: Vec<(String, i64, usize)> = existing
        .into_iter()
        .filter_map(|(k, id)| match states.get(&id) {
            Some((o, false)) => Some((k, id, origin_line(o.as_deref()))),
            _ => None,
        })
        .collect();
    old.sort_by_key(|(_, id, line)| (*line, *id));
    // A paragraph written twice in one file is one memory.
    let mut seen = std::collections::HashSet::new();
    let chunks: Vec<(&Chunk, String)> = f
        .chunks
        .iter()
        .map(|c| (c, chunk_key(&f.path, &c.text)))
        .filter(|(_, k)| seen.insert(k.clone()))
        .collect();
    let old_keys: Vec<String> = old.iter().map(|(k, _, _)| k.clone()).collect();
    let new_keys: Vec<String> = chunks.iter().map(|(_, k)| k.clone()).collect();
    let (steps, gone) = plan(&old_keys, &new_keys);
    let mut out = Outcome {
        path: f.path.clone(),
        gone: gone.iter().map(|&j| old[j].1).collect(),
        ..Default::default()
    };
    let mut writes: Vec<(NewMemory, bool)> = Vec::new();
    let mut moved: Vec<(i64, String)> = Vec::new();
    for ((c, key), step) in chunks.iter().zip(&steps) {
        let origin = format!("{}:{}", f.path, c.line);
        let supersedes = match step {
            Step::Unchanged(j) => {
                out.unchanged += 1;
                if old[*j].2 != c.line {
                    moved.push((old[*j].1, origin));
                }
                continue;
            }
            Step::Replaces(j) => Some(old[*j].1),
            Step::Created => None,
        };
        let planned = Planned {
            line: c.line,
            id: None,
            supersedes,
            preview: crate::text::preview(&c.text.replace('\n', " — "), 70),
        };
        if supersedes.is_some() {
            out.changed.push(planned);
        } else {
            out.created.push(planned);
        }
        writes.push((
            NewMemory {
                text: c.text.clone(),
                kind: Some(Kind::Note),
                source: Some(Source::Import),
                profile: Some(f.profile.clone()),
                tags: f.tags.clone(),
                event_at: Some(f.event_at),
                idempotency_key: Some(key.clone()),
                supersedes,
                origin: Some(origin),
                ..Default::default()
            },
            supersedes.is_some(),
        ));
    }
    if dry_run {
        return Ok(out);
    }
    if !writes.is_empty() {
        let results =
            engine.remember_batch(writes.iter().map(|(m, _)| m.clone()).collect(), &mut |_| {})?;
        let (mut c, mut ch) = (0, 0);
        for (r, (_, is_change)) in results.iter().zip(&writes) {
            if *is_change {
                out.changed[ch].id = Some(r.id);
                ch += 1;
            } else {
                out.created[c].id = Some(r.id);
                c += 1;
            }
        }
    }
    engine.set_origins(&moved)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn headings_stay_with_their_paragraphs_and_front_matter_is_read() {
        let md = "---\ndate: 2024-03-01\ntags: [work, db]\n---\n# Project\n\n## Database\n\nWe chose Postgres for the analytics warehouse because it is what the team knows.\n\nThe staging database listens on port 6543 and is rebuilt every night at two.\n\n# Other\nNo heading trail leaks across sections, even without a blank line here.\n";
        let (fm, chunks) = split(md);
        assert_eq!(fm.date.as_deref(), Some("2024-03-01"));
        assert_eq!(fm.tags, vec!["work", "db"]);
        assert_eq!(chunks.len(), 3, "{chunks:?}");
        assert!(
            chunks[0]
                .text
                .starts_with("Project > Database\nWe chose Postgres")
        );
        assert_eq!(chunks[0].line, 9);
        assert_eq!(chunks[1].line, 11);
        assert!(chunks[2].text.starts_with("Other\nNo heading"));
    }

    #[test]
    fn short_paragraphs_join_the_next_and_long_ones_are_cut_at_sentences() {
        let long = "This sentence is about forty characters. ".repeat(60);
        let md = format!(
            "Decisions:\n\n- use Postgres for analytics and keep MySQL for billing\n\n{long}\n"
        );
        let (_, chunks) = split(&md);
        assert!(chunks[0].text.starts_with("Decisions:\n\n- use Postgres"));
        assert!(chunks.len() >= 3, "{}", chunks.len());
        for c in &chunks[1..] {
            assert!(
                c.text.chars().count() <= MAX_CHUNK_CHARS,
                "{}",
                c.text.len()
            );
            assert!(c.text.ends_with('.'), "{:?}", &c.text[c.text.len() - 10..]);
        }
    }

    #[test]
    fn a_fenced_block_is_one_chunk_with_its_blank_lines() {
        let md = "Setup steps for the staging box, in the order they must run:\n\n```sh\nmake build\n\nmake deploy\n```\n";
        let (_, chunks) = split(md);
        assert_eq!(chunks.len(), 2, "{chunks:?}");
        assert!(chunks[1].text.contains("make build\n\nmake deploy"));
    }

    #[test]
    fn an_edited_paragraph_replaces_its_old_memory_and_nothing_else() {
        let old = keys(&["a", "b", "c", "d"]);
        let (steps, gone) = plan(&old, &keys(&["a", "b2", "c", "d"]));
        assert_eq!(
            steps,
            vec![
                Step::Unchanged(0),
                Step::Replaces(1),
                Step::Unchanged(2),
                Step::Unchanged(3)
            ]
        );
        assert!(gone.is_empty());
        // An inserted paragraph is created; a removed one is reported gone.
        let (steps, gone) = plan(&old, &keys(&["x", "a", "b", "d"]));
        assert_eq!(steps[0], Step::Created);
        assert_eq!(gone, vec![2]);
        // The same text again changes nothing.
        let (steps, gone) = plan(&old, &old);
        assert!(steps.iter().all(|s| matches!(s, Step::Unchanged(_))) && gone.is_empty());
        // A moved paragraph is still unchanged.
        let (steps, _) = plan(&old, &keys(&["d", "a", "b", "c"]));
        assert!(
            steps.iter().all(|s| matches!(s, Step::Unchanged(_))),
            "{steps:?}"
        );
    }
}
