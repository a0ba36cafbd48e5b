//! The keyword index: tantivy BM25 over memory text.
//!
//! Its tokenizer is `text::word_spans`, so names, codes, versions and ids ("v0.3.4",
//! "conv-26", "d41d8cd9…") stay one token, and it also emits each word's stem at the same
//! position so "painted" finds "paint". Visibility (profile and scope) is indexed too,
//! so one profile's top hits are never crowded out by another's.

use crate::index::IndexHealth;
use crate::memory::Scope;
use crate::{Error, Result, text};
use std::path::Path;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};
use tantivy::{DocAddress, Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

/// Name of our tokenizer inside tantivy.
const TOKENIZER: &str = "slm_words";
/// Writer heap. tantivy's minimum is 15 MB per thread; one thread is enough for our
/// write sizes and leaves the second core to the embedder.
const WRITER_HEAP_BYTES: usize = 32 * 1024 * 1024;
/// Bumped when the schema or tokenizer changes: an index of another version is rebuilt.
const FORMAT: &str = "slm-bm25-2";

#[derive(Clone, Default)]
struct SlmTokenizer;

struct SlmTokenStream {
    tokens: Vec<Token>,
    at: usize,
}

impl Tokenizer for SlmTokenizer {
    type TokenStream<'a> = SlmTokenStream;
    fn token_stream<'a>(&'a mut self, text_in: &'a str) -> SlmTokenStream {
        let mut tokens = Vec::new();
        for (position, (from, to, word)) in text::word_spans(text_in).into_iter().enumerate() {
            let mut forms = vec![word.clone()];
            for part in text::index_words(&word) {
                if !forms.contains(&part) {
                    forms.push(part);
                }
            }
            for f in forms.clone() {
                let st = text::stem(&f);
                if !forms.contains(&st) {
                    forms.push(st);
                }
            }
            for f in forms {
                tokens.push(Token {
                    offset_from: from,
                    offset_to: to,
                    position,
                    text: f,
                    position_length: 1,
                });
            }
        }
        SlmTokenStream { tokens, at: 0 }
    }
}

impl TokenStream for SlmTokenStream {
    fn advance(&mut self) -> bool {
        self.at += 1;
        self.at <= self.tokens.len()
    }
    fn token(&self) -> &Token {
        &self.tokens[self.at - 1]
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.at - 1]
    }
}

#[derive(Clone, Copy)]
struct Fields {
    id: Field,
    text: Field,
    vis: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let id = b.add_u64_field(
        "id",
        NumericOptions::default()
            .set_indexed()
            .set_stored()
            .set_fast(),
    );
    let text = b.add_text_field(
        "text",
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        ),
    );
    let vis = b.add_text_field("vis", STRING);
    (b.build(), Fields { id, text, vis })
}

/// Who may see a memory, as index terms: its own profile, plus `shared`/`global`.
pub fn visibility_terms(profile: &str, scope: Scope) -> Vec<String> {
    let mut v = vec![format!("p:{profile}")];
    match scope {
        Scope::Personal => {}
        Scope::Shared => v.push("shared".into()),
        Scope::Global => v.push("global".into()),
    }
    v
}

/// The visibility a reader has: its profile, and shared/global when allowed.
#[derive(Debug, Clone)]
pub struct Visibility {
    pub profile: String,
    pub shared: bool,
    pub global: bool,
}

pub struct Bm25 {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    writer: Option<IndexWriter>,
}

impl Bm25 {
    /// Open the index in `dir`, or create an empty one. Returns whether it had to be made
    /// anew (and why), so the caller rebuilds it from the store. An index that cannot be
    /// opened whole (segment files missing or garbled), that another store made (its
    /// `STORE` stamp differs from `store_id`), or that claims changes the store never had
    /// (`applied_seq` past `generation`) is thrown away and made anew: it is derived data.
    pub fn open(dir: &Path, store_id: &str, generation: i64) -> Result<(Bm25, Option<String>)> {
        let format_file = dir.join("FORMAT");
        let store_file = dir.join("STORE");
        let existing = match std::fs::read_to_string(&format_file) {
            Ok(f) if f.trim() == FORMAT => match std::fs::read_to_string(&store_file) {
                Ok(id) if id.trim() == store_id => match Self::open_existing(dir) {
                    Ok(b) if b.applied_seq() <= generation => Ok(b),
                    Ok(b) => Err(format!(
                        "it reflects change {} but the store has only {generation}",
                        b.applied_seq()
                    )),
                    Err(e) => Err(format!("it could not be opened ({e})")),
                },
                Ok(_) => Err("it was built for another store".to_string()),
                Err(_) => Err("its store stamp is missing".to_string()),
            },
            Ok(_) => Err("it was made by another slm version".to_string()),
            Err(_) if !dir.exists() => Err("there was none".to_string()),
            Err(_) => Err("its format marker is missing".to_string()),
        };
        match existing {
            Ok(b) => Ok((b, None)),
            Err(why) => {
                if dir.exists() {
                    std::fs::remove_dir_all(dir)
                        .map_err(|e| Error::io(format!("removing {}", dir.display()), e))?;
                }
                std::fs::create_dir_all(dir)
                    .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
                let (schema, _) = schema();
                Index::create_in_dir(dir, schema)?;
                crate::paths::write_atomic(&format_file, FORMAT.as_bytes())
                    .map_err(|e| Error::io("writing the index format marker", e))?;
                crate::paths::write_atomic(&store_file, store_id.as_bytes())
                    .map_err(|e| Error::io("writing the index store stamp", e))?;
                Ok((Self::open_existing(dir)?, Some(why)))
            }
        }
    }

    /// Open what is in `dir` with its reader: every segment it lists must be readable.
    fn open_existing(dir: &Path) -> Result<Bm25> {
        let (schema, fields) = schema();
        let index = Index::open_in_dir(dir)?;
        if index.schema() != schema {
            return Err(Error::Bm25("its schema differs from this slm's".into()));
        }
        Self::with_reader(index, fields)
    }

    fn with_reader(index: Index, fields: Fields) -> Result<Bm25> {
        index
            .tokenizers()
            .register(TOKENIZER, TextAnalyzer::from(SlmTokenizer));
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let b = Bm25 {
            index,
            reader,
            fields,
            writer: None,
        };
        // Reading every segment's stored documents and postings opens their files now, so
        // a missing file is found here and not in the middle of a recall.
        b.reader.searcher().num_docs();
        for seg in b.reader.searcher().segment_readers() {
            seg.inverted_index(fields.text)?;
            seg.get_store_reader(1)
                .map_err(|e| Error::Bm25(format!("its stored documents cannot be read ({e})")))?;
        }
        Ok(b)
    }

    /// Open an index for reading only (another process holds the writer lease); a broken
    /// or foreign one is reported, never repaired, and never used.
    pub fn open_reader(dir: &Path, store_id: &str) -> Result<Bm25> {
        match std::fs::read_to_string(dir.join("STORE")) {
            Ok(id) if id.trim() == store_id => {}
            _ => return Err(Error::Bm25("it was built for another store".into())),
        }
        Self::open_existing(dir)
    }

    /// An empty index in memory: what a reader uses while the real one cannot be opened
    /// (another process is rebuilding it). Nothing is written anywhere.
    pub fn in_memory() -> Result<Bm25> {
        let (schema, fields) = schema();
        Self::with_reader(Index::create_in_ram(schema), fields)
    }

    /// The store generation this index reflects (its last commit's payload).
    pub fn applied_seq(&self) -> i64 {
        self.index
            .load_metas()
            .ok()
            .and_then(|m| m.payload)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0)
    }

    fn writer(&mut self) -> Result<&mut IndexWriter> {
        if self.writer.is_none() {
            self.writer = Some(self.index.writer_with_num_threads(1, WRITER_HEAP_BYTES)?);
        }
        Ok(self.writer.as_mut().expect("just set"))
    }

    pub fn upsert(&mut self, id: i64, body: &str, profile: &str, scope: Scope) -> Result<()> {
        let f = self.fields;
        let w = self.writer()?;
        w.delete_term(Term::from_field_u64(f.id, id as u64));
        let mut doc = TantivyDocument::default();
        doc.add_u64(f.id, id as u64);
        doc.add_text(f.text, body);
        for v in visibility_terms(profile, scope) {
            doc.add_text(f.vis, &v);
        }
        w.add_document(doc)?;
        Ok(())
    }

    pub fn delete(&mut self, id: i64) -> Result<()> {
        let f = self.fields;
        self.writer()?
            .delete_term(Term::from_field_u64(f.id, id as u64));
        Ok(())
    }

    pub fn delete_all(&mut self) -> Result<()> {
        self.writer()?.delete_all_documents()?;
        Ok(())
    }

    /// Make everything written so far durable and visible, stamped with the store generation.
    pub fn commit(&mut self, seq: i64) -> Result<()> {
        if let Some(w) = self.writer.as_mut() {
            let mut prepared = w.prepare_commit()?;
            prepared.set_payload(&seq.to_string());
            prepared.commit()?;
        }
        self.reader.reload()?;
        Ok(())
    }

    /// Release the tantivy writer (and its lock) so another process may write.
    pub fn close_writer(&mut self) {
        if let Some(w) = self.writer.take() {
            let _ = w.wait_merging_threads();
        }
    }

    pub fn reload(&self) -> Result<()> {
        self.reader.reload()?;
        Ok(())
    }

    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// The terms a query word matches: the word and its stem.
    fn query_terms(&self, words: &[String]) -> Vec<Term> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for w in words {
            for t in [w.clone(), text::stem(w)] {
                if seen.insert(t.clone()) {
                    out.push(Term::from_field_text(self.fields.text, &t));
                }
            }
        }
        out
    }

    /// BM25 top-`k` for the query's words within what `vis` may see: (memory id, score).
    pub fn search(&self, words: &[String], vis: &Visibility, k: usize) -> Result<Vec<(i64, f32)>> {
        let terms = self.query_terms(words);
        if terms.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let text_q: Vec<(Occur, Box<dyn Query>)> = terms
            .into_iter()
            .map(|t| {
                (
                    Occur::Should,
                    Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs)) as Box<dyn Query>,
                )
            })
            .collect();
        let mut vis_terms = vec![format!("p:{}", vis.profile)];
        if vis.shared {
            vis_terms.push("shared".into());
        }
        if vis.global {
            vis_terms.push("global".into());
        }
        let vis_q: Vec<(Occur, Box<dyn Query>)> = vis_terms
            .iter()
            .map(|v| {
                (
                    Occur::Should,
                    Box::new(TermQuery::new(
                        Term::from_field_text(self.fields.vis, v),
                        IndexRecordOption::Basic,
                    )) as Box<dyn Query>,
                )
            })
            .collect();
        let q = BooleanQuery::new(vec![
            (
                Occur::Must,
                Box::new(BooleanQuery::new(text_q)) as Box<dyn Query>,
            ),
            (
                Occur::Must,
                Box::new(BooleanQuery::new(vis_q)) as Box<dyn Query>,
            ),
        ]);
        let searcher = self.reader.searcher();
        let top: Vec<(f32, DocAddress)> = searcher.search(&q, &TopDocs::with_limit(k))?;
        let mut out = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let doc: TantivyDocument = searcher.doc(addr)?;
            if let Some(id) = doc.get_first(self.fields.id).and_then(|v| v.as_u64()) {
                out.push((id as i64, score));
            }
        }
        Ok(out)
    }

    /// How many indexed memories contain `word` (or its stem), for rare-word tests.
    pub fn doc_freq(&self, word: &str) -> u64 {
        let searcher = self.reader.searcher();
        let mut best = 0;
        for t in [word.to_string(), text::stem(word)] {
            let term = Term::from_field_text(self.fields.text, &t);
            if let Ok(n) = searcher.doc_freq(&term) {
                best = best.max(n);
            }
        }
        best
    }

    pub fn health_of(rebuilt: &Option<String>, behind: usize) -> IndexHealth {
        match (rebuilt, behind) {
            (Some(why), _) => IndexHealth::Rebuilt(why.clone()),
            (None, 0) => IndexHealth::Ready,
            (None, n) => IndexHealth::CaughtUp(n),
        }
    }
}
