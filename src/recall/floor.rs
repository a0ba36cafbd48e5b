//! Stage 5: the evidence floor, before the result limit.
//!
//! A candidate stays only if it earned real evidence: semantic cosine ≥ the floor, or a
//! non-zero BM25, entity-graph or temporal score, or it is pinned. Spreading activation and
//! Hopfield alone are not evidence: they find related material, not matching material.
//!
//! A wordless picture (`media`: OCR found no words in it) is judged differently, as the spec
//! says: its text channels only matched its file name or a label, so it stays only when the
//! words of the user's own note matched the question, or its picture-channel score (an
//! image–text model's cosine, `channels::pictures`) reaches the media floor (0.30 unless
//! settings say otherwise). Without such a model (none is installed: `docs/pictures.md`) its
//! note is what keeps it. Any picture whose picture-channel score reaches the media floor has
//! that as evidence too.
//!
//! The 0.60 floor is on **raw cosine similarity** of unit-length embeddings (−1..1), the
//! scale all-MiniLM-L6-v2 produces (measured here: paraphrases ≈ 0.72–0.76, unrelated
//! ≈ 0). It is not a rescaled (cos+1)/2 value. A model that declares `similarity_floor` in
//! its `slm-model.json` uses its own, because similarity scales differ between models.

use super::channels::Channel;
use super::fusion::Candidate;
use serde::Serialize;

/// The spec's default semantic evidence floor (raw cosine).
pub const DEFAULT_COSINE_FLOOR: f32 = 0.60;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FloorVerdict {
    pub id: i64,
    pub kept: bool,
    /// The evidence that kept it, or why it was dropped.
    pub because: Vec<&'static str>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Abstain {
    /// Candidates existed but none had real evidence.
    EvidenceFloor,
    /// No producer found anything.
    NoCandidates,
}

/// `wordless(id)`: for a wordless picture, whether the question's words are in its note
/// (None: not a wordless picture).
pub fn apply(
    cands: Vec<Candidate>,
    floor: f32,
    media_floor: f32,
    pinned: impl Fn(i64) -> bool,
    wordless: impl Fn(i64) -> Option<bool>,
) -> (Vec<Candidate>, Vec<FloorVerdict>) {
    let mut kept = Vec::new();
    let mut verdicts = Vec::new();
    for c in cands {
        let seen = c
            .channel_score(Channel::Picture)
            .is_some_and(|s| s as f32 >= media_floor);
        let (ok, because) = match wordless(c.id) {
            Some(note_matched) => wordless_verdict(note_matched, seen, pinned(c.id)),
            None => text_verdict(&c, floor, seen, pinned(c.id)),
        };
        verdicts.push(FloorVerdict {
            id: c.id,
            kept: ok,
            because,
        });
        if ok {
            kept.push(c);
        }
    }
    (kept, verdicts)
}

/// A wordless picture: kept when its note has the question's words, its picture-channel
/// score reaches the media floor (`seen`), or it is pinned.
fn wordless_verdict(note_matched: bool, seen: bool, pinned: bool) -> (bool, Vec<&'static str>) {
    let mut because = Vec::new();
    if note_matched {
        because.push("wordless picture: its note has the question's words");
    }
    if seen {
        because.push("wordless picture: picture channel at the media floor");
    }
    if pinned {
        because.push("pinned");
    }
    let ok = !because.is_empty();
    if !ok {
        because.push(
            "wordless picture: its note does not have the question's words and the picture \
             channel did not reach the media floor",
        );
    }
    (ok, because)
}

/// Any other memory: the evidence that keeps it, or why it goes.
fn text_verdict(c: &Candidate, floor: f32, seen: bool, pinned: bool) -> (bool, Vec<&'static str>) {
    let mut because = Vec::new();
    if c.channel_score(Channel::Semantic)
        .is_some_and(|s| s as f32 >= floor)
    {
        because.push("semantic");
    }
    if c.channel_score(Channel::Bm25).is_some_and(|s| s > 0.0) {
        because.push("bm25");
    }
    if c.entity_score > 0.0 {
        because.push("entity_graph");
    }
    if c.channel_score(Channel::Temporal).is_some_and(|s| s > 0.0) {
        because.push("temporal");
    }
    if seen {
        because.push("picture");
    }
    if pinned {
        because.push("pinned");
    }
    let ok = !because.is_empty();
    if !ok {
        because.push(if c.channels.contains_key(&Channel::Semantic) {
            "semantic below floor, no other evidence"
        } else {
            "associative only (spreading/hopfield)"
        });
    }
    (ok, because)
}
