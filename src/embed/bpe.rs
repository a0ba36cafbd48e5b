//! A SentencePiece-style BPE tokenizer (Gemma's) that loads in milliseconds, for questions.
//!
//! EmbeddingGemma's `tokenizer.json` (262,144 tokens, 514,906 merges, 6,415 added tokens) takes
//! the `tokenizers` crate about half a second to build even through `tokenizer::from_bytes`,
//! which is most of what a cold question would cost (issue 34). This reads a compact form of the
//! same tables, written next to `tokenizer.json` on first use (`tokenizer.slm-bpe`, stamped with
//! the JSON's size and modification time, rebuilt when they change): vocabulary and merges as
//! sorted arrays searched in place, so loading is reading one file. Only the shape Gemma uses is
//! taken (normalizer `Replace " " → "▁"`, pre-tokenizer absent or `Split " "` (a no-op after
//! that normalizer), BPE with byte fallback, added tokens matched on the raw text, a
//! `TemplateProcessing` post-processor); anything else is `None` and the caller uses
//! `tokenizers`. Its ids equal the `tokenizers` crate's (tests compare them on a corpus).

use super::tokenizer::{RawAdded, RawBpe};
use aho_corasick::{AhoCorasick, MatchKind};
use serde::Deserialize;
use std::path::Path;

const MAGIC: &[u8; 8] = b"SLMBPE1\0";
/// The compact form's file name, beside `tokenizer.json`.
pub const COMPACT_FILE: &str = "tokenizer.slm-bpe";
const NONE: u32 = u32::MAX;

pub struct Compact {
    data: Vec<u8>,
    vocab_n: usize,
    /// Byte offsets into `data` of the sections.
    offsets_at: usize,
    ids_at: usize,
    blob_at: usize,
    merges_n: usize,
    merges_at: usize,
    byte_ids: [u32; 256],
    unk: u32,
    prefix: Vec<u32>,
    suffix: Vec<u32>,
    added: Option<(AhoCorasick, Vec<u32>)>,
}

fn u32_at(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(d[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(d: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(d[at..at + 8].try_into().expect("8 bytes"))
}

/// The size and modification time of `tokenizer.json`: what the compact form is stamped with.
fn stamp(json: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(json).ok()?;
    let t = m
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some((m.len(), t.as_nanos() as u64))
}

impl Compact {
    /// The compact tokenizer of the model in `dir`: read from its compact file when that is
    /// current, else built from `tokenizer.json` and written for next time (a write that fails
    /// costs only the next load). None when the tokenizer is not of the shape this reads.
    pub fn load(dir: &Path) -> Option<Compact> {
        let json = dir.join("tokenizer.json");
        let st = stamp(&json)?;
        let file = dir.join(COMPACT_FILE);
        if let Some(c) = std::fs::read(&file)
            .ok()
            .and_then(|d| Compact::parse(d, Some(st)))
        {
            return Some(c);
        }
        let bytes = build(&std::fs::read(&json).ok()?, st)?;
        let tmp = dir.join(format!("{COMPACT_FILE}.{}.part", std::process::id()));
        if std::fs::write(&tmp, &bytes).is_ok() && std::fs::rename(&tmp, &file).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        Compact::parse(bytes, Some(st))
    }

    fn parse(data: Vec<u8>, want: Option<(u64, u64)>) -> Option<Compact> {
        if data.len() < 40 || &data[..8] != MAGIC {
            return None;
        }
        if want.is_some_and(|(len, t)| u64_at(&data, 8) != len || u64_at(&data, 16) != t) {
            return None;
        }
        let mut at = 24;
        let mut next = |n: usize| {
            let here = at;
            at += n;
            here
        };
        let unk = u32_at(&data, next(4));
        let read_list = |data: &[u8], at: &mut usize| -> Option<Vec<u32>> {
            let n = u32_at(data, *at) as usize;
            *at += 4;
            let v = (0..n).map(|i| u32_at(data, *at + 4 * i)).collect();
            *at += 4 * n;
            Some(v)
        };
        let prefix = read_list(&data, &mut at)?;
        let suffix = read_list(&data, &mut at)?;
        let mut byte_ids = [NONE; 256];
        for (i, b) in byte_ids.iter_mut().enumerate() {
            *b = u32_at(&data, at + 4 * i);
        }
        at += 1024;
        let vocab_n = u32_at(&data, at) as usize;
        at += 4;
        let offsets_at = at;
        at += 4 * (vocab_n + 1);
        let ids_at = at;
        at += 4 * vocab_n;
        let blob_at = at;
        at += u32_at(&data, offsets_at + 4 * vocab_n) as usize;
        let merges_n = u32_at(&data, at) as usize;
        at += 4;
        let merges_at = at;
        at += 16 * merges_n;
        let added_n = u32_at(&data, at) as usize;
        at += 4;
        let (mut patterns, mut added_ids) = (Vec::new(), Vec::new());
        for _ in 0..added_n {
            let id = u32_at(&data, at);
            let len = u32_at(&data, at + 4) as usize;
            patterns.push(
                std::str::from_utf8(data.get(at + 8..at + 8 + len)?)
                    .ok()?
                    .to_string(),
            );
            added_ids.push(id);
            at += 8 + len;
        }
        if at != data.len() {
            return None;
        }
        let added = if patterns.is_empty() {
            None
        } else {
            let ac = AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&patterns)
                .ok()?;
            Some((ac, added_ids))
        };
        Some(Compact {
            data,
            vocab_n,
            offsets_at,
            ids_at,
            blob_at,
            merges_n,
            merges_at,
            byte_ids,
            unk,
            prefix,
            suffix,
            added,
        })
    }

    /// The id of one token, by its text.
    pub fn token(&self, s: &str) -> Option<u32> {
        let d = &self.data;
        let (mut lo, mut hi) = (0usize, self.vocab_n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let a = u32_at(d, self.offsets_at + 4 * mid) as usize;
            let b = u32_at(d, self.offsets_at + 4 * mid + 4) as usize;
            match d[self.blob_at + a..self.blob_at + b].cmp(s.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(u32_at(d, self.ids_at + 4 * mid)),
            }
        }
        None
    }

    /// (rank, merged id) of the pair, if it merges.
    fn merge(&self, a: u32, b: u32) -> Option<(u32, u32)> {
        let key = ((a as u64) << 32) | b as u64;
        let d = &self.data;
        let (mut lo, mut hi) = (0usize, self.merges_n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let at = self.merges_at + 16 * mid;
            match u64_at(d, at).cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return Some((u32_at(d, at + 8), u32_at(d, at + 12)));
                }
            }
        }
        None
    }

    /// Tokens of `text` without the special tokens (for budgets).
    pub fn count(&self, text: &str) -> usize {
        self.encode(text).len() - self.prefix.len() - self.suffix.len()
    }

    /// Token ids of `text` with the post-processor's special tokens (`<bos>` … `<eos>`).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = self.prefix.clone();
        let mut from = 0;
        if let Some((ac, ids)) = &self.added {
            for m in ac.find_iter(text) {
                self.encode_piece(&text[from..m.start()], &mut out);
                out.push(ids[m.pattern().as_usize()]);
                from = m.end();
            }
        }
        self.encode_piece(&text[from..], &mut out);
        out.extend(&self.suffix);
        out
    }

    /// BPE over one stretch between added tokens, after `" " → "▁"`.
    fn encode_piece(&self, piece: &str, out: &mut Vec<u32>) {
        if piece.is_empty() {
            return;
        }
        let norm = piece.replace(' ', "\u{2581}");
        let mut syms: Vec<u32> = Vec::with_capacity(norm.len());
        let mut buf = [0u8; 4];
        for c in norm.chars() {
            match self.token(c.encode_utf8(&mut buf)) {
                Some(id) => syms.push(id),
                None => {
                    let bytes: Vec<u32> = c
                        .encode_utf8(&mut buf)
                        .bytes()
                        .map(|b| self.byte_ids[b as usize])
                        .collect();
                    if bytes.contains(&NONE) {
                        // No byte token: one unknown, fused with an unknown before it.
                        if syms.last() != Some(&self.unk) {
                            syms.push(self.unk);
                        }
                    } else {
                        syms.extend(bytes);
                    }
                }
            }
        }
        merge_all(&mut syms, |a, b| self.merge(a, b));
        out.extend(syms);
    }
}

/// A model's tokenizer for counting tokens (budgets) without loading the model: the compact
/// one when the tokenizer has its shape (milliseconds), else the `tokenizers` crate's.
pub enum Counter {
    Compact(Box<Compact>),
    Full(Box<tokenizers::Tokenizer>),
}

impl Counter {
    /// The counter of the model in `dir`; None without a readable tokenizer.json.
    pub fn load(dir: &Path) -> Option<Counter> {
        if let Some(c) = Compact::load(dir) {
            return Some(Counter::Compact(Box::new(c)));
        }
        let json = std::fs::read(dir.join("tokenizer.json")).ok()?;
        super::onnx::counting_tokenizer(&json).map(|t| Counter::Full(Box::new(t)))
    }

    /// Tokens of `text`, special tokens left out.
    pub fn count(&self, text: &str) -> usize {
        match self {
            Counter::Compact(c) => c.count(text),
            Counter::Full(t) => super::onnx::count_with(t, text),
        }
    }
}

/// BPE: merge the lowest-ranked adjacent pair, leftmost first, until none merges, as the
/// tokenizers crate does (a heap of candidate merges over a linked list of symbols, each
/// candidate checked against the symbols still there): O(n log n), so a long memory counted for
/// a budget costs little.
fn merge_all(syms: &mut Vec<u32>, merge: impl Fn(u32, u32) -> Option<(u32, u32)>) {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = syms.len();
    if n < 2 {
        return;
    }
    let mut next: Vec<usize> = (1..=n).collect();
    let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
    let mut alive = vec![true; n];
    // (rank, left position, the left and right ids it was found for, the merged id)
    let mut heap = BinaryHeap::new();
    for i in 0..n - 1 {
        if let Some((rank, id)) = merge(syms[i], syms[i + 1]) {
            heap.push(Reverse((rank, i, syms[i], syms[i + 1], id)));
        }
    }
    while let Some(Reverse((_, i, a, b, id))) = heap.pop() {
        let j = next[i];
        // Stale: a symbol of the pair was merged away or changed since it was found.
        if !alive[i] || j >= n || !alive[j] || syms[i] != a || syms[j] != b {
            continue;
        }
        syms[i] = id;
        alive[j] = false;
        next[i] = next[j];
        if next[i] < n {
            prev[next[i]] = i;
        }
        let p = prev[i];
        if p < n
            && let Some((rank, m)) = merge(syms[p], syms[i])
        {
            heap.push(Reverse((rank, p, syms[p], syms[i], m)));
        }
        let q = next[i];
        if q < n
            && let Some((rank, m)) = merge(syms[i], syms[q])
        {
            heap.push(Reverse((rank, i, syms[i], syms[q], m)));
        }
    }
    let mut k = 0;
    for i in 0..n {
        if alive[i] {
            syms[k] = syms[i];
            k += 1;
        }
    }
    syms.truncate(k);
}

#[derive(Deserialize)]
struct RawJson {
    #[serde(default)]
    added_tokens: Vec<RawAdded>,
    normalizer: Option<serde_json::Value>,
    pre_tokenizer: Option<serde_json::Value>,
    post_processor: Option<serde_json::Value>,
    model: RawBpe,
}

/// The compact form of a tokenizer.json, or None when it is not Gemma's shape.
fn build(json: &[u8], (len, mtime): (u64, u64)) -> Option<Vec<u8>> {
    let raw: RawJson = serde_json::from_slice(json).ok()?;
    let m = raw.model;
    let gemma_normalizer =
        serde_json::json!({"type": "Replace", "pattern": {"String": " "}, "content": "\u{2581}"});
    let split_space = serde_json::json!({"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": false});
    let shape_ok = m.kind == "BPE"
        && m.dropout.is_none()
        && m.byte_fallback
        && m.fuse_unk
        && !m.ignore_merges
        && m.continuing_subword_prefix.is_none()
        && m.end_of_word_suffix.is_none()
        && raw.normalizer.as_ref() == Some(&gemma_normalizer)
        && raw.pre_tokenizer.as_ref().is_none_or(|p| *p == split_space)
        && raw
            .added_tokens
            .iter()
            .all(|a| !a.normalized && !a.lstrip && !a.rstrip && !a.single_word);
    if !shape_ok {
        return None;
    }
    let (prefix, suffix) = template(raw.post_processor.as_ref()?)?;
    let mut out = Vec::new();
    let put = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&mtime.to_le_bytes());
    put(
        &mut out,
        m.unk_token
            .as_ref()
            .and_then(|u| m.vocab.get(u))
            .copied()
            .unwrap_or(NONE),
    );
    for list in [&prefix, &suffix] {
        put(&mut out, list.len() as u32);
        for id in list {
            put(&mut out, *id);
        }
    }
    for b in 0..=255u8 {
        put(
            &mut out,
            m.vocab
                .get(&format!("<0x{b:02X}>"))
                .copied()
                .unwrap_or(NONE),
        );
    }
    let mut vocab: Vec<(&String, u32)> = m.vocab.iter().map(|(k, v)| (k, *v)).collect();
    vocab.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    put(&mut out, vocab.len() as u32);
    let mut offset = 0u32;
    for (s, _) in &vocab {
        put(&mut out, offset);
        offset += s.len() as u32;
    }
    put(&mut out, offset);
    for (_, id) in &vocab {
        put(&mut out, *id);
    }
    for (s, _) in &vocab {
        out.extend_from_slice(s.as_bytes());
    }
    let mut merges: Vec<(u64, u32, u32)> = Vec::with_capacity(m.merges.len());
    for (rank, (a, b)) in m.merges.iter().enumerate() {
        let (ia, ib) = (*m.vocab.get(a)?, *m.vocab.get(b)?);
        let merged = *m.vocab.get(&format!("{a}{b}"))?;
        merges.push((((ia as u64) << 32) | ib as u64, rank as u32, merged));
    }
    merges.sort_unstable();
    // A pair listed twice keeps its last rank, as the tokenizers crate's map (later entries
    // overwrite earlier ones) does.
    merges.reverse();
    merges.dedup_by_key(|m| m.0);
    merges.reverse();
    put(&mut out, merges.len() as u32);
    for (key, rank, merged) in merges {
        out.extend_from_slice(&key.to_le_bytes());
        put(&mut out, rank);
        put(&mut out, merged);
    }
    let mut added = raw.added_tokens;
    added.sort_by_key(|a| a.id);
    put(&mut out, added.len() as u32);
    for a in &added {
        put(&mut out, a.id);
        put(&mut out, a.content.len() as u32);
        out.extend_from_slice(a.content.as_bytes());
    }
    Some(out)
}

/// The special-token ids a `TemplateProcessing` post-processor puts before and after a single
/// sequence.
fn template(post: &serde_json::Value) -> Option<(Vec<u32>, Vec<u32>)> {
    if post["type"] != "TemplateProcessing" {
        return None;
    }
    let (mut prefix, mut suffix, mut seen) = (Vec::new(), Vec::new(), false);
    for part in post["single"].as_array()? {
        if part.get("Sequence").is_some() {
            seen = true;
            continue;
        }
        let name = part["SpecialToken"]["id"].as_str()?;
        let ids = post["special_tokens"][name]["ids"].as_array()?;
        let ids = ids.iter().map(|v| v.as_u64().map(|x| x as u32));
        let list = if seen { &mut suffix } else { &mut prefix };
        for id in ids {
            list.push(id?);
        }
    }
    seen.then_some((prefix, suffix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gemma_dir() -> Option<std::path::PathBuf> {
        let d = crate::paths::Paths::from_env()
            .cache
            .join("models")
            .join(crate::paths::EMBEDDINGGEMMA_MODEL_NAME);
        if !d.join("tokenizer.json").is_file() {
            eprintln!("skipped: {} is not installed", d.display());
            return None;
        }
        Some(d)
    }

    /// A folder with a copy of the model's tokenizer.json, so a test neither depends on nor
    /// changes the installed compact file.
    fn copy_of(dir: &Path) -> tempfile::TempDir {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::copy(
            dir.join("tokenizer.json"),
            tmp.path().join("tokenizer.json"),
        )
        .unwrap();
        tmp
    }

    #[test]
    fn the_compact_tokenizer_gives_the_ids_the_tokenizers_crate_gives() {
        let Some(dir) = gemma_dir() else { return };
        let tmp = copy_of(&dir);
        let compact = Compact::load(tmp.path()).expect("Gemma's shape");
        assert!(
            tmp.path().join(COMPACT_FILE).is_file(),
            "written for next time"
        );
        let again = Compact::load(tmp.path()).expect("read back");
        let reference = super::super::tokenizer::from_bytes(
            &std::fs::read(dir.join("tokenizer.json")).unwrap(),
        )
        .unwrap();
        let mut texts: Vec<String> =
            include_str!("../../scripts/models/embeddinggemma/calibration.txt")
                .lines()
                .map(str::to_string)
                .collect();
        // Our own fixtures: notes, questions, pairs (names, codes, dates, punctuation).
        for f in [
            include_str!("../../fixtures/notes-dev.json"),
            include_str!("../../fixtures/notes-holdout.json"),
            include_str!("../../fixtures/similarity-pairs.tsv"),
            include_str!("../../fixtures/questions.txt"),
        ] {
            texts.extend(f.lines().map(str::to_string));
        }
        texts.extend(
            [
                "",
                " ",
                "  two  spaces  ",
                "task: search result | query: Which database did we choose for analytics?",
                "<start_of_turn>user <unused12> tabs\tand\nnewlines ✓ 😀 <mask>[multimodal]",
                "naïve café Zürich — 東京 مرحبا 🚀🚀 \u{200b}\u{1F9EC}",
                "kubectl rollout restart deploy/api-v2 --namespace=prod && echo $?",
                "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                "\u{0}\u{7f}\u{10FFFF} <unk> <0x41> <pad><eos><bos>",
            ]
            .map(str::to_string),
        );
        // One long text (a memory counted for a budget, a document cut at 512 tokens).
        texts.push(texts.join(" \n "));
        for t in &texts {
            let want = reference
                .encode(t.as_str(), true)
                .unwrap()
                .get_ids()
                .to_vec();
            assert_eq!(compact.encode(t), want, "{t:?}");
            assert_eq!(again.encode(t), want, "{t:?}");
            assert_eq!(compact.count(t), want.len() - 2, "{t:?}");
        }
        // The reference vectors' own token ids (made by the model card's tokenizer in Python).
        for (text, want) in super::super::tokenizer::tests::reference_ids() {
            assert_eq!(compact.encode(&text), want, "{text:?}");
        }
    }

    #[test]
    fn a_stale_or_foreign_compact_file_is_rebuilt_and_other_shapes_are_refused() {
        let Some(dir) = gemma_dir() else { return };
        let tmp = copy_of(&dir);
        std::fs::write(tmp.path().join(COMPACT_FILE), b"SLMBPE1\0 not a table").unwrap();
        let c = Compact::load(tmp.path()).expect("rebuilt");
        assert_eq!(c.encode("hello").first(), Some(&2), "<bos> first");
        let wordpiece = br#"{"model": {"type": "WordPiece", "vocab": {"a": 0}, "merges": []}}"#;
        assert!(build(wordpiece, (0, 0)).is_none());
    }
}
