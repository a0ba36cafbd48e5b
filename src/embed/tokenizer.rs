//! Reading a `tokenizer.json` without the detour its generic reader takes.
//!
//! `tokenizers::Tokenizer::from_bytes` reads the `model` section through an untagged serde
//! enum, which buffers the whole section and converts it to a `serde_json::Value` before the
//! real types see it. For EmbeddingGemma's tokenizer (262,144 tokens, 514,906 merges) that
//! detour is most of the load: about 3 s and 350 MB at the peak, for a tokenizer that needs
//! well under 100 MB once built. A BPE model whose merges are written as pairs is read here
//! straight into its vocabulary and merge list and built with `BPE::builder`; the other
//! sections (normalizer, pre-tokenizer, post-processor, decoder, added tokens) are small and
//! go through the library's own types. Anything else falls back to `from_bytes`.

use serde::Deserialize;
use tokenizers::models::bpe::BPE;
use tokenizers::{
    AddedToken, DecoderWrapper, NormalizerWrapper, PostProcessorWrapper, PreTokenizerWrapper,
    Tokenizer,
};

#[derive(Deserialize)]
struct Raw {
    #[serde(default)]
    added_tokens: Vec<RawAdded>,
    normalizer: Option<NormalizerWrapper>,
    pre_tokenizer: Option<PreTokenizerWrapper>,
    post_processor: Option<PostProcessorWrapper>,
    decoder: Option<DecoderWrapper>,
    model: RawBpe,
}

/// An added token as tokenizer.json writes it (also read by `bpe`).
#[derive(Deserialize)]
pub(super) struct RawAdded {
    pub id: u32,
    pub content: String,
    #[serde(default)]
    pub single_word: bool,
    #[serde(default)]
    pub lstrip: bool,
    #[serde(default)]
    pub rstrip: bool,
    #[serde(default)]
    pub normalized: bool,
    #[serde(default)]
    pub special: bool,
}

/// A BPE model section as tokenizer.json writes it (also read by `bpe`).
#[derive(Deserialize)]
pub(super) struct RawBpe {
    #[serde(rename = "type")]
    pub kind: String,
    pub vocab: tokenizers::models::bpe::Vocab,
    pub merges: Vec<(String, String)>,
    pub unk_token: Option<String>,
    #[serde(default)]
    pub fuse_unk: bool,
    #[serde(default)]
    pub byte_fallback: bool,
    #[serde(default)]
    pub ignore_merges: bool,
    pub dropout: Option<f32>,
    pub continuing_subword_prefix: Option<String>,
    pub end_of_word_suffix: Option<String>,
}

/// Read a tokenizer.json: the direct path for pair-merge BPE models, else the library's.
pub fn from_bytes(json: &[u8]) -> Result<Tokenizer, String> {
    match lean(json) {
        Some(t) => t,
        None => Tokenizer::from_bytes(json).map_err(|e| e.to_string()),
    }
}

/// None: not a shape this reader knows (the caller uses the generic reader).
fn lean(json: &[u8]) -> Option<Result<Tokenizer, String>> {
    let raw: Raw = serde_json::from_slice(json).ok()?;
    if raw.model.kind != "BPE" || raw.model.dropout.is_some() {
        return None;
    }
    let m = raw.model;
    let mut b = BPE::builder()
        .vocab_and_merges(m.vocab, m.merges)
        .fuse_unk(m.fuse_unk)
        .byte_fallback(m.byte_fallback)
        .ignore_merges(m.ignore_merges);
    if let Some(u) = m.unk_token {
        b = b.unk_token(u);
    }
    if let Some(p) = m.continuing_subword_prefix {
        b = b.continuing_subword_prefix(p);
    }
    if let Some(s) = m.end_of_word_suffix {
        b = b.end_of_word_suffix(s);
    }
    let bpe = match b.build() {
        Ok(bpe) => bpe,
        Err(e) => return Some(Err(e.to_string())),
    };
    let mut t = Tokenizer::new(bpe);
    if let Err(e) = t.with_normalizer(raw.normalizer) {
        return Some(Err(e.to_string()));
    }
    t.with_pre_tokenizer(raw.pre_tokenizer);
    t.with_post_processor(raw.post_processor);
    t.with_decoder(raw.decoder);
    let mut added = raw.added_tokens;
    added.sort_by_key(|a| a.id);
    let ids: Vec<(String, u32)> = added.iter().map(|a| (a.content.clone(), a.id)).collect();
    let tokens = added.into_iter().map(|a| AddedToken {
        content: a.content,
        single_word: a.single_word,
        lstrip: a.lstrip,
        rstrip: a.rstrip,
        normalized: a.normalized,
        special: a.special,
    });
    if let Err(e) = t.add_tokens(tokens) {
        return Some(Err(e.to_string()));
    }
    // The ids must come out as the file says; if not, the generic reader decides.
    if ids.iter().any(|(c, id)| t.token_to_id(c) != Some(*id)) {
        return None;
    }
    Some(Ok(t))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The installed EmbeddingGemma tokenizer, when setup built it (skipped otherwise).
    fn gemma_json() -> Option<Vec<u8>> {
        let p = crate::paths::Paths::from_env()
            .cache
            .join("models")
            .join(crate::paths::EMBEDDINGGEMMA_MODEL_NAME)
            .join("tokenizer.json");
        let b = std::fs::read(&p).ok();
        if b.is_none() {
            eprintln!("skipped: {} is not installed", p.display());
        }
        b
    }

    /// The reference fixture's texts and their token ids (made by the model card's tokenizer
    /// in Python): what both tokenizer readers must reproduce.
    pub(in crate::embed) fn reference_ids() -> Vec<(String, Vec<u32>)> {
        let fx: serde_json::Value =
            serde_json::from_str(include_str!("../../fixtures/embeddinggemma-reference.json"))
                .unwrap();
        fx["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let ids = r["input_ids"].as_array().unwrap();
                (
                    r["text"].as_str().unwrap().to_string(),
                    ids.iter().map(|v| v.as_u64().unwrap() as u32).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn the_direct_reader_tokenizes_as_the_generic_one_and_as_the_reference() {
        let Some(json) = gemma_json() else { return };
        let lean = lean(&json).expect("a pair-merge BPE").expect("builds");
        let generic = Tokenizer::from_bytes(&json).unwrap();
        let mut texts: Vec<String> = Vec::new();
        for (text, want) in reference_ids() {
            assert_eq!(
                lean.encode(text.as_str(), true).unwrap().get_ids(),
                want.as_slice(),
                "{text}"
            );
            texts.push(text);
        }
        texts.extend(
            include_str!("../../scripts/models/embeddinggemma/calibration.txt")
                .lines()
                .map(str::to_string),
        );
        texts.extend(["<start_of_turn>user <unused12> tabs\tand\nnewlines ✓ 😀".to_string()]);
        for t in &texts {
            assert_eq!(
                lean.encode(t.as_str(), true).unwrap().get_ids(),
                generic.encode(t.as_str(), true).unwrap().get_ids(),
                "{t}"
            );
        }
        assert_eq!(lean.get_vocab_size(true), generic.get_vocab_size(true));
    }

    #[test]
    fn other_shapes_are_left_to_the_generic_reader() {
        let wordpiece = br#"{"model": {"type": "WordPiece", "vocab": {"a": 0}}}"#;
        assert!(lean(wordpiece).is_none());
        assert!(lean(b"not json").is_none());
    }
}
