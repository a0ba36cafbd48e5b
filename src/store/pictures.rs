//! Pictures (migration 11, `media`): the file a picture memory keeps, its note, and what OCR
//! read; the pictures still waiting for OCR.

use super::{Store, Writer};
use crate::Result;
use crate::memory::PictureRef;
use rusqlite::{OptionalExtension, params};
use std::collections::HashMap;

/// Where a picture stands with OCR.
pub const PENDING: &str = "pending";
pub const READ: &str = "read";
pub const WORDLESS: &str = "wordless";
pub const FAILED: &str = "failed";

/// A picture as results show it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PictureInfo {
    pub sha256: String,
    pub ext: String,
    pub name: String,
    pub width: u32,
    pub height: u32,
    pub page: Option<u32>,
    /// pending, read, wordless or failed.
    pub ocr_state: String,
    /// The lines OCR read (`media::ocr::Line` as JSON), once read.
    pub ocr_lines: Option<String>,
}

/// A picture waiting for OCR, with what its memory needs to be written again.
#[derive(Debug, Clone)]
pub struct PendingPicture {
    pub memory_id: i64,
    pub picture: PictureRef,
}

impl Store {
    /// Pictures waiting for OCR, oldest first.
    pub fn pending_pictures(&self, limit: usize) -> Result<Vec<PendingPicture>> {
        let mut st = self.conn.prepare_cached(
            "SELECT memory_id, sha256, ext, name, note, bytes, width, height FROM pictures \
             WHERE ocr_state = 'pending' ORDER BY memory_id LIMIT ?1",
        )?;
        let rows = st.query_map([limit as i64], |r| {
            Ok(PendingPicture {
                memory_id: r.get(0)?,
                picture: PictureRef {
                    sha256: r.get(1)?,
                    ext: r.get(2)?,
                    name: r.get(3)?,
                    note: r.get(4)?,
                    bytes: r.get::<_, i64>(5)? as u64,
                    width: r.get(6)?,
                    height: r.get(7)?,
                    page: None,
                    text_layer: None,
                },
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Pictures without a vector from `model` (none yet, or another model's), oldest first:
    /// the memory id and the file's address.
    pub fn pictures_without_vector(
        &self,
        model: &str,
        limit: usize,
    ) -> Result<Vec<(i64, String, String)>> {
        let mut st = self.conn.prepare_cached(
            "SELECT memory_id, sha256, ext FROM pictures \
             WHERE vector_model IS NOT ?1 ORDER BY memory_id LIMIT ?2",
        )?;
        let rows = st.query_map(params![model, limit as i64], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Every picture vector `model` made, in `profile` (the picture channel scores them all:
    /// a profile holds hundreds or a few thousand pictures, not millions).
    pub fn picture_vectors(&self, model: &str, profile: &str) -> Result<Vec<(i64, Vec<f32>)>> {
        let mut st = self.conn.prepare_cached(
            "SELECT p.memory_id, p.vector FROM pictures p JOIN memories m ON m.id = p.memory_id \
             WHERE p.vector_model = ?1 AND m.profile = ?2 AND p.vector IS NOT NULL",
        )?;
        let rows = st.query_map(params![model, profile], |r| {
            Ok((
                r.get(0)?,
                super::embeddings::blob_to_f32s(&r.get::<_, Vec<u8>>(1)?),
            ))
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// How many pictures `profile` holds.
    pub fn profile_pictures(&self, profile: &str) -> Result<i64> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT COUNT(*) FROM pictures p JOIN memories m ON m.id = p.memory_id \
                 WHERE m.profile = ?1",
            )?
            .query_row([profile], |r| r.get(0))?)
    }

    /// The count and id sum of `profile`'s pictures with a vector from `model`: what a cache
    /// of those vectors checks before it is used again.
    pub fn picture_vector_key(&self, profile: &str, model: &str) -> Result<(i64, i64)> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT COUNT(*), COALESCE(SUM(p.memory_id), 0) FROM pictures p \
                 JOIN memories m ON m.id = p.memory_id \
                 WHERE m.profile = ?1 AND p.vector_model = ?2 AND p.vector IS NOT NULL",
            )?
            .query_row(params![profile, model], |r| Ok((r.get(0)?, r.get(1)?)))?)
    }

    /// The files (sha256, ext) the pictures among these memories keep.
    pub fn picture_files(&self, ids: &[i64]) -> Result<Vec<(String, String)>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT sha256, ext FROM pictures WHERE memory_id = ?1")?;
        let mut out = Vec::new();
        for id in ids {
            if let Some(f) = st
                .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?
            {
                out.push(f);
            }
        }
        Ok(out)
    }

    /// Whether any picture (of any profile) still keeps the file named `sha256`.
    pub fn picture_file_kept(&self, sha256: &str) -> Result<bool> {
        Ok(self
            .conn
            .prepare_cached("SELECT EXISTS(SELECT 1 FROM pictures WHERE sha256 = ?1)")?
            .query_row([sha256], |r| r.get(0))?)
    }

    /// How many pictures there are in each OCR state.
    pub fn picture_counts(&self) -> Result<HashMap<String, i64>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT ocr_state, COUNT(*) FROM pictures GROUP BY ocr_state")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Pictures OCR could not read, with why (at most `limit`).
    pub fn failed_pictures(&self, limit: usize) -> Result<Vec<(i64, String, String)>> {
        let mut st = self.conn.prepare_cached(
            "SELECT memory_id, name, COALESCE(ocr_note, '') FROM pictures \
             WHERE ocr_state = 'failed' ORDER BY memory_id LIMIT ?1",
        )?;
        let rows = st.query_map([limit as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// The wordless pictures among these memories, with their notes. One query for all (a
    /// recall's candidates), on the primary key.
    pub fn wordless_notes(&self, ids: &[i64]) -> Result<Vec<(i64, Option<String>)>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let list = ids
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let mut st = self.conn.prepare(&format!(
            "SELECT memory_id, note FROM pictures WHERE ocr_state = 'wordless' AND memory_id IN ({list})"
        ))?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// The pictures among these memories.
    pub fn pictures_for(&self, ids: &[i64]) -> Result<HashMap<i64, PictureInfo>> {
        let mut out = HashMap::new();
        if ids.is_empty() {
            return Ok(out);
        }
        let mut st = self.conn.prepare_cached(
            "SELECT sha256, ext, name, width, height, page, ocr_state, ocr_lines FROM pictures \
             WHERE memory_id = ?1",
        )?;
        for &id in ids {
            let p = st
                .query_row([id], |r| {
                    Ok(PictureInfo {
                        sha256: r.get(0)?,
                        ext: r.get(1)?,
                        name: r.get(2)?,
                        width: r.get(3)?,
                        height: r.get(4)?,
                        page: r.get(5)?,
                        ocr_state: r.get(6)?,
                        ocr_lines: r.get(7)?,
                    })
                })
                .optional()?;
            if let Some(p) = p {
                out.insert(id, p);
            }
        }
        Ok(out)
    }
}

impl Writer<'_> {
    /// The memory that already holds this picture with this note in this profile and scope
    /// (the same picture saved again is acknowledged, not stored twice).
    pub(super) fn same_picture(
        &self,
        p: &PictureRef,
        profile: &str,
        scope: &str,
    ) -> Result<Option<i64>> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT p.memory_id FROM pictures p JOIN memories m ON m.id = p.memory_id \
                 WHERE p.sha256 = ?1 AND p.note IS ?2 AND m.profile = ?3 AND m.scope = ?4 \
                 AND p.page IS ?5 AND m.superseded_by IS NULL ORDER BY p.memory_id LIMIT 1",
            )?
            .query_row(params![p.sha256, p.note, profile, scope, p.page], |r| {
                r.get(0)
            })
            .optional()?)
    }

    pub(super) fn insert_picture(&self, memory_id: i64, p: &PictureRef) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO pictures(memory_id, sha256, ext, name, note, bytes, width, height, page, ocr_state) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?
            .execute(params![
                memory_id,
                p.sha256,
                p.ext,
                p.name,
                p.note,
                p.bytes as i64,
                p.width,
                p.height,
                p.page,
                match p.text_layer {
                    None => PENDING,
                    Some(true) => READ,
                    Some(false) => WORDLESS,
                }
            ])?;
        Ok(())
    }

    /// Keep a picture's vector and the model that made it (`None`: the model could not read
    /// the picture; it is not tried again until the model changes).
    pub fn picture_vector(
        &self,
        memory_id: i64,
        model: &str,
        vector: Option<&[f32]>,
    ) -> Result<()> {
        self.tx
            .prepare_cached(
                "UPDATE pictures SET vector_model = ?2, vector = ?3 WHERE memory_id = ?1",
            )?
            .execute(params![
                memory_id,
                model,
                vector.map(super::embeddings::f32s_to_blob)
            ])?;
        Ok(())
    }

    /// Record what OCR made of a picture (`state`: read, wordless or failed).
    pub fn picture_read(
        &self,
        memory_id: i64,
        state: &str,
        lines_json: Option<&str>,
        note: Option<&str>,
    ) -> Result<()> {
        self.tx
            .prepare_cached(
                "UPDATE pictures SET ocr_state = ?2, ocr_lines = ?3, ocr_note = ?4 WHERE memory_id = ?1",
            )?
            .execute(params![memory_id, state, lines_json, note])?;
        Ok(())
    }
}
