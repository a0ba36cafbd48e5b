//! The vector index: usearch HNSW over memory embeddings, cosine metric.
//!
//! Vectors are kept as f16 (`QUANTIZATION`): half the memory of f32. `slm bench vectors`
//! measures f32, f16 and i8 HNSW on real MiniLM embeddings of LoCoMo turns against exact
//! search; the figures behind this choice are in the README ("Measured"). The index file has
//! a JSON sidecar naming the model, dimension and the store generation it reflects; any
//! mismatch means rebuild.

use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

/// Storage precision of vectors in the index (see module doc for why f16).
pub const QUANTIZATION: ScalarKind = ScalarKind::F16;
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
const FORMAT: &str = "slm-vectors-1";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Sidecar {
    format: String,
    model: String,
    dimension: usize,
    applied_seq: i64,
    /// The identity of the store it was built from (`Store::store_id`).
    #[serde(default)]
    store_id: String,
}

pub struct Vectors {
    index: Index,
    model: String,
    dim: usize,
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
        store_id: &str,
        generation: i64,
    ) -> Result<(Vectors, Option<String>)> {
        let fresh = |why: String| -> Result<(Vectors, Option<String>)> {
            let index = Index::new(&options(dim)).map_err(verr)?;
            Ok((
                Vectors {
                    index,
                    model: model.to_string(),
                    dim,
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
            Err(_) => return fresh("it did not exist".into()),
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
        if sidecar.format != FORMAT || sidecar.model != model || sidecar.dimension != dim {
            return fresh(format!(
                "it was built for {} ({}-d)",
                sidecar.model, sidecar.dimension
            ));
        }
        let index = Index::new(&options(dim)).map_err(verr)?;
        let Some(p) = path.to_str() else {
            return fresh("its path is not UTF-8".into());
        };
        if let Err(e) = index.load(p) {
            return fresh(format!("it could not be loaded ({e})"));
        }
        if index.dimensions() != dim {
            return fresh("its dimension differs".into());
        }
        index.change_expansion_search(EXPANSION_SEARCH);
        Ok((
            Vectors {
                index,
                model: model.to_string(),
                dim,
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
        self.index.add(key, v).map_err(verr)?;
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
        self.index = Index::new(&options(self.dim)).map_err(verr)?;
        self.unsaved += 1;
        Ok(())
    }

    pub fn reserve(&mut self, n: usize) -> Result<()> {
        if n > self.index.capacity() {
            self.index.reserve(n).map_err(verr)?;
        }
        Ok(())
    }

    /// k nearest memories by cosine similarity, among those `allow` accepts: (id, cosine).
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
            .filtered_search(q, k, |key| allow(key as i64))
            .map_err(verr)?;
        Ok(m.keys
            .iter()
            .zip(m.distances.iter())
            .map(|(k, d)| (*k as i64, 1.0 - *d))
            .collect())
    }

    /// Exact (brute-force) search, used to measure the approximate one.
    pub fn exact_search(&self, q: &[f32], k: usize) -> Result<Vec<(i64, f32)>> {
        let m = self.index.exact_search(q, k).map_err(verr)?;
        Ok(m.keys
            .iter()
            .zip(m.distances.iter())
            .map(|(k, d)| (*k as i64, 1.0 - *d))
            .collect())
    }

    /// The stored (quantised) vector of a memory.
    pub fn get(&self, id: i64) -> Option<Vec<f32>> {
        let mut buf = vec![0f32; self.dim];
        match self.index.get(id as u64, &mut buf) {
            Ok(n) if n > 0 => Some(buf),
            _ => None,
        }
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
        self.index.save(tmp_s).map_err(verr)?;
        std::fs::rename(&tmp, &self.path).map_err(|e| Error::io("saving the vector index", e))?;
        let sidecar = Sidecar {
            format: FORMAT.into(),
            model: self.model.clone(),
            dimension: self.dim,
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
