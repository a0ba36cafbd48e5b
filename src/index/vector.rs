//! The vector index: usearch HNSW over memory embeddings, cosine metric. It finds
//! candidates; it is not where cosines are read.
//!
//! The index keeps a compact copy of each vector: int8 (`QUANTIZATION`), and for a model
//! trained to be cut (Matryoshka; EmbeddingGemma) only its first `index_dimension`
//! dimensions, renormalised. The full-precision vectors stay in the store, and the semantic
//! producer reads the candidates' cosines from them (`Engine::stored_embeddings`), so every
//! cosine recall compares with a threshold is exact. Per memory of EmbeddingGemma that is
//! 256 bytes of vector in memory instead of 1,536 (f16, 768 dimensions); at a million
//! memories the f16 index alone would be 1.9 GB (issue "Recall at a million memories").
//! `slm bench vectors` measures recall@10 of this candidate-then-exact search against exact
//! search beside plain f32, f16 and i8 indexes; the figures are in the README ("Measured").
//! The index file has a JSON sidecar naming the model, dimensions and the store generation
//! it reflects; any mismatch means rebuild.

use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

/// Storage precision of vectors in the index (see the module doc: candidates only).
pub const QUANTIZATION: ScalarKind = ScalarKind::I8;
/// HNSW search breadth (usearch's default is 64); see `slm bench vectors` for its recall.
pub const EXPANSION_SEARCH: usize = 64;
/// Save the index to disk when this many changes are unsaved; in between, a cold process
/// replays the change log (cheap) instead of rewriting tens of megabytes per memory.
pub const SAVE_EVERY_CHANGES: usize = 512;
/// …or, in a large index, this fraction of its size: a save rewrites the whole file (0.9 GB
/// at 540,000 memories of 768 dimensions), so a fixed 512 made an import quadratic
/// (measured: 60 memories/s at 540,000 stored, `slm bench recall --memories 1000000`).
/// Growing with the index keeps saving at a constant cost per memory; what is unsaved is
/// replayed from the change log's stored embeddings on open, never re-embedded.
pub const SAVE_FRACTION: f64 = 0.1;
const FORMAT: &str = "slm-vectors-2";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Sidecar {
    format: String,
    model: String,
    dimension: usize,
    /// The dimensions the index keeps (the first ones of each vector).
    #[serde(default)]
    index_dimension: usize,
    applied_seq: i64,
    /// The identity of the store it was built from (`Store::store_id`).
    #[serde(default)]
    store_id: String,
}

pub struct Vectors {
    index: Index,
    model: String,
    /// The model's dimension (what `upsert` and `search` take).
    dim: usize,
    /// What the index keeps of each vector: its first `index_dim` dimensions.
    index_dim: usize,
    applied_seq: i64,
    unsaved: usize,
    path: PathBuf,
    meta_path: PathBuf,
    store_id: String,
}

fn options(dim: usize) -> IndexOptions {
    IndexOptions {
        dimensions: dim,
        metric: MetricKind::Cos,
        quantization: QUANTIZATION,
        connectivity: 0,
        expansion_add: 0,
        expansion_search: EXPANSION_SEARCH,
        multi: false,
    }
}

fn verr(e: impl std::fmt::Display) -> Error {
    Error::Vector(e.to_string())
}

impl Vectors {
    /// Open the saved index for `model`, or an empty one with the reason it had to be
    /// made anew (so the caller rebuilds it from the stored embeddings). An index stamped
    /// with another store's identity, or reflecting more changes than the store has
    /// (`generation`), is foreign: its ids would name other memories.
    pub fn open(
        path: &Path,
        meta_path: &Path,
        model: &str,
        dim: usize,
        index_dim: usize,
        store_id: &str,
        generation: i64,
    ) -> Result<(Vectors, Option<String>)> {
        let index_dim = if index_dim == 0 || index_dim > dim {
            dim
        } else {
            index_dim
        };
        let fresh = |why: String| -> Result<(Vectors, Option<String>)> {
            let index = Index::new(&options(index_dim)).map_err(verr)?;
            Ok((
                Vectors {
                    index,
                    model: model.to_string(),
                    dim,
                    index_dim,
                    applied_seq: 0,
                    unsaved: 0,
                    path: path.to_path_buf(),
                    meta_path: meta_path.to_path_buf(),
                    store_id: store_id.to_string(),
                },
                Some(why),
            ))
        };
        let sidecar: Sidecar = match std::fs::read(meta_path) {
            Ok(b) => match serde_json::from_slice(&b) {
                Ok(s) => s,
                Err(_) => return fresh("its sidecar is unreadable".into()),
            },
            Err(_) => return fresh("there was none".into()),
        };
        if sidecar.store_id != store_id {
            return fresh("it was built for another store".into());
        }
        if sidecar.applied_seq > generation {
            return fresh(format!(
                "it reflects change {} but the store has only {generation}",
                sidecar.applied_seq
            ));
        }
        if sidecar.format != FORMAT {
            return fresh(format!("it has the older layout {}", sidecar.format));
        }
        if sidecar.model != model
            || sidecar.dimension != dim
            || sidecar.index_dimension != index_dim
        {
            return fresh(format!(
                "it was built for {} ({}-d, {} kept)",
                sidecar.model, sidecar.dimension, sidecar.index_dimension
            ));
        }
        let index = Index::new(&options(index_dim)).map_err(verr)?;
        let Some(p) = path.to_str() else {
            return fresh("its path is not UTF-8".into());
        };
        if let Err(e) = index.load(p) {
            return fresh(format!("it could not be loaded ({e})"));
        }
        if index.dimensions() != index_dim {
            return fresh("its dimension differs".into());
        }
        index.change_expansion_search(EXPANSION_SEARCH);
        Ok((
            Vectors {
                index,
                model: model.to_string(),
                dim,
                index_dim,
                applied_seq: sidecar.applied_seq,
                unsaved: 0,
                path: path.to_path_buf(),
                meta_path: meta_path.to_path_buf(),
                store_id: store_id.to_string(),
            },
            None,
        ))
    }

    pub fn applied_seq(&self) -> i64 {
        self.applied_seq
    }

    pub fn set_applied_seq(&mut self, seq: i64) {
        self.applied_seq = seq;
    }

    pub fn len(&self) -> usize {
        self.index.size()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The dimensions the index keeps of each vector.
    pub fn index_dim(&self) -> usize {
        self.index_dim
    }

    /// What the index keeps of a full vector: its first `index_dim` dimensions, unit length.
    fn compact(&self, v: &[f32]) -> Vec<f32> {
        crate::embed::truncated(v, self.index_dim)
    }

    pub fn upsert(&mut self, id: i64, v: &[f32]) -> Result<()> {
        if v.len() != self.dim {
            return Err(Error::Vector(format!(
                "embedding has {} dimensions, index has {}",
                v.len(),
                self.dim
            )));
        }
        let key = id as u64;
        if self.index.contains(key) {
            self.index.remove(key).map_err(verr)?;
        }
        if self.index.size() + 1 > self.index.capacity() {
            let cap = (self.index.capacity() * 2).max(1024);
            self.index.reserve(cap).map_err(verr)?;
        }
        self.index.add(key, &self.compact(v)).map_err(verr)?;
        self.unsaved += 1;
        Ok(())
    }

    pub fn remove(&mut self, id: i64) -> Result<()> {
        if self.index.contains(id as u64) {
            self.index.remove(id as u64).map_err(verr)?;
            self.unsaved += 1;
        }
        Ok(())
    }

    pub fn clear(&mut self) -> Result<()> {
        self.index = Index::new(&options(self.index_dim)).map_err(verr)?;
        self.unsaved += 1;
        Ok(())
    }

    pub fn reserve(&mut self, n: usize) -> Result<()> {
        if n > self.index.capacity() {
            self.index.reserve(n).map_err(verr)?;
        }
        Ok(())
    }

    /// k nearest memories among those `allow` accepts, by the index's compact vectors:
    /// (id, approximate cosine). The exact cosine is the stored vector's.
    pub fn search(
        &self,
        q: &[f32],
        k: usize,
        allow: impl Fn(i64) -> bool,
    ) -> Result<Vec<(i64, f32)>> {
        if self.index.size() == 0 || k == 0 {
            return Ok(Vec::new());
        }
        let m = self
            .index
            .filtered_search(&self.compact(q), k, |key| allow(key as i64))
            .map_err(verr)?;
        Ok(m.keys
            .iter()
            .zip(m.distances.iter())
            .map(|(k, d)| (*k as i64, 1.0 - *d))
            .collect())
    }

    /// Exact (brute-force) search, used to measure the approximate one.
    pub fn exact_search(&self, q: &[f32], k: usize) -> Result<Vec<(i64, f32)>> {
        let m = self.index.exact_search(&self.compact(q), k).map_err(verr)?;
        Ok(m.keys
            .iter()
            .zip(m.distances.iter())
            .map(|(k, d)| (*k as i64, 1.0 - *d))
            .collect())
    }

    /// The index's compact copy of a memory's vector (`index_dim` dimensions, quantised):
    /// for comparing with other compact vectors (`compact_query`), never for a threshold.
    pub fn get(&self, id: i64) -> Option<Vec<f32>> {
        let mut buf = vec![0f32; self.index_dim];
        match self.index.get(id as u64, &mut buf) {
            Ok(n) if n > 0 => Some(buf),
            _ => None,
        }
    }

    /// A query vector in the index's compact space (to compare with `get`).
    pub fn compact_query(&self, q: &[f32]) -> Vec<f32> {
        self.compact(q)
    }

    pub fn needs_save(&self) -> bool {
        self.unsaved >= save_threshold(self.len())
    }

    pub fn has_unsaved(&self) -> bool {
        self.unsaved > 0
    }

    /// Write the index and its sidecar (temporary name, then rename).
    pub fn save(&mut self) -> Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::io("creating the index directory", e))?;
        }
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        let tmp_s = tmp
            .to_str()
            .ok_or_else(|| Error::Vector("index path is not UTF-8".into()))?;
        if let Err(e) = self.index.save(tmp_s) {
            let _ = std::fs::remove_file(&tmp);
            return Err(verr(e));
        }
        if let Err(e) = std::fs::rename(&tmp, &self.path) {
            let _ = std::fs::remove_file(&tmp);
            return Err(Error::io("saving the vector index", e));
        }
        let sidecar = Sidecar {
            format: FORMAT.into(),
            model: self.model.clone(),
            dimension: self.dim,
            index_dimension: self.index_dim,
            applied_seq: self.applied_seq,
            store_id: self.store_id.clone(),
        };
        crate::paths::write_atomic(
            &self.meta_path,
            &serde_json::to_vec_pretty(&sidecar).expect("plain struct"),
        )
        .map_err(|e| Error::io("saving the vector index sidecar", e))?;
        self.unsaved = 0;
        Ok(())
    }
}

/// Unsaved changes that make a save due, for an index of `len` vectors.
pub fn save_threshold(len: usize) -> usize {
    SAVE_EVERY_CHANGES.max((len as f64 * SAVE_FRACTION) as usize)
}

#[cfg(test)]
mod save_tests {
    use super::*;

    #[test]
    fn saves_grow_with_the_index_so_an_import_rewrites_it_a_bounded_number_of_times() {
        assert_eq!(save_threshold(0), SAVE_EVERY_CHANGES);
        assert_eq!(save_threshold(5_000), SAVE_EVERY_CHANGES);
        assert_eq!(save_threshold(1_000_000), 100_000);
        // Importing a million memories into an empty index: count the saves.
        let (mut len, mut unsaved, mut saves) = (0usize, 0usize, 0);
        for _ in 0..1_000_000 / 256 {
            len += 256;
            unsaved += 256;
            if unsaved >= save_threshold(len) {
                saves += 1;
                unsaved = 0;
            }
        }
        assert!(saves < 120, "{saves} saves");
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;

    #[test]
    fn the_index_keeps_the_first_dimensions_and_is_rebuilt_when_that_changes() {
        let dir = tempfile::tempdir().unwrap();
        let (p, m) = (dir.path().join("v.usearch"), dir.path().join("v.json"));
        let (mut v, why) = Vectors::open(&p, &m, "model", 4, 2, "store", 0).unwrap();
        assert!(why.is_some());
        assert_eq!((v.dim(), v.index_dim()), (4, 2));
        v.upsert(1, &[1.0, 0.0, 0.0, 0.0]).unwrap();
        v.upsert(2, &[0.0, 1.0, 0.0, 0.0]).unwrap();
        // Differs from 1 only past the kept dimensions: the same in the index.
        v.upsert(3, &[0.6, 0.0, 0.8, 0.0]).unwrap();
        assert_eq!(v.get(3).map(|c| c.len()), Some(2));
        let hits = v.search(&[1.0, 0.0, 0.0, 0.0], 3, |_| true).unwrap();
        assert_eq!(hits.len(), 3);
        assert_eq!(hits[2].0, 2, "{hits:?}");
        assert!(hits[0].1 > 0.95 && hits[1].1 > 0.95, "{hits:?}");
        // A vector of the wrong size is refused, not cut.
        assert!(v.upsert(4, &[1.0, 0.0]).is_err());
        v.set_applied_seq(3);
        v.save().unwrap();
        let (again, why) = Vectors::open(&p, &m, "model", 4, 2, "store", 3).unwrap();
        assert!(why.is_none(), "{why:?}");
        assert_eq!(again.len(), 3);
        // Another number of kept dimensions: built anew from the stored vectors.
        let (_, why) = Vectors::open(&p, &m, "model", 4, 4, "store", 3).unwrap();
        assert!(why.unwrap().contains("kept"));
        // Zero, or more than the model has, keeps them all.
        for d in [0, 9] {
            let (all, _) = Vectors::open(&p, &m, "model", 4, d, "store", 3).unwrap();
            assert_eq!(all.index_dim(), 4);
        }
    }

    #[test]
    fn an_index_of_the_older_layout_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let (p, m) = (dir.path().join("v.usearch"), dir.path().join("v.json"));
        let (mut v, _) = Vectors::open(&p, &m, "model", 2, 2, "store", 0).unwrap();
        v.upsert(1, &[1.0, 0.0]).unwrap();
        v.save().unwrap();
        let old = std::fs::read_to_string(&m)
            .unwrap()
            .replace(FORMAT, "slm-vectors-1");
        std::fs::write(&m, old).unwrap();
        let (_, why) = Vectors::open(&p, &m, "model", 2, 2, "store", 0).unwrap();
        assert!(why.unwrap().contains("older layout"));
    }
}
