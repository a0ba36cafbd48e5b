//! Writes inside one transaction: inserting a memory with its tags, entities and session
//! link, corrections (supersede), patches and deletes. Every write appends to the change log.

use rusqlite::{OptionalExtension, params};

use super::{LinkKind, Writer};
use crate::memory::{Kind, MemoryPatch, NewMemory, Scope, Source};
use crate::text::Entity;
use crate::{Error, Result};

/// What an insert did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inserted {
    pub id: i64,
    /// The idempotency key was already stored, or the same text was (`duplicate`):
    /// nothing new was written.
    pub existed: bool,
    /// The same text already stands as this memory (see [`Writer::same_text`]); it was
    /// marked seen again.
    pub duplicate: bool,
}

impl Writer<'_> {
    /// Insert one memory with its tags, entities and session link.
    pub fn insert(
        &self,
        m: &NewMemory,
        now: i64,
        entities: &[Entity],
        bookkeeping: Option<&str>,
    ) -> Result<Inserted> {
        let profile = m
            .profile
            .clone()
            .unwrap_or_else(|| crate::DEFAULT_PROFILE.to_string());
        // Keys are per profile: another profile's key never answers for this write.
        if let Some(key) = &m.idempotency_key {
            let existing: Option<i64> = self
                .tx
                .prepare_cached(
                    "SELECT memory_id FROM idempotency_keys WHERE profile = ?1 AND key = ?2",
                )?
                .query_row(params![profile, key], |r| r.get(0))
                .optional()?;
            if let Some(id) = existing {
                return Ok(Inserted {
                    id,
                    existed: true,
                    duplicate: false,
                });
            }
        }
        let hash = crate::text::dedup_hash(&m.text);
        // A picture's text grows when OCR reads it: the same picture with the same note is
        // found by its file instead.
        let same = match &m.picture {
            Some(p) => {
                self.same_picture(p, &profile, m.scope.unwrap_or(Scope::Personal).as_str())?
            }
            None => self.same_text(m, &profile, hash)?,
        };
        if let Some(id) = same {
            self.tx
                .prepare_cached(
                    "UPDATE memories SET seen_count = seen_count + 1, last_seen_at = ?2 WHERE id = ?1",
                )?
                .execute(params![id, now])?;
            return Ok(Inserted {
                id,
                existed: true,
                duplicate: true,
            });
        }
        let kind = if bookkeeping.is_some() {
            Kind::Bookkeeping
        } else {
            m.kind.unwrap_or(Kind::Note)
        };
        self.tx
            .prepare_cached(
                "INSERT INTO memories (text, kind, source, profile, scope, session_id, speaker, created_at, event_at, \
                 valid_from, valid_until, known_at, updated_at, pinned, bookkeeping, origin, dedup_hash, project) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?8, ?13, ?14, ?15, ?16, ?17)",
            )?
            .execute(params![
                m.text,
                kind.as_str(),
                m.source.unwrap_or(Source::User).as_str(),
                profile,
                m.scope.unwrap_or(Scope::Personal).as_str(),
                m.session_id,
                m.speaker,
                m.created_at.unwrap_or(now),
                m.event_at.unwrap_or(now),
                m.valid_from,
                m.valid_until,
                m.known_at.unwrap_or(now),
                m.pinned as i64,
                bookkeeping,
                m.origin,
                hash,
                m.project,
            ])?;
        let id = self.tx.last_insert_rowid();
        if let Some(key) = &m.idempotency_key {
            self.tx
                .prepare_cached(
                    "INSERT INTO idempotency_keys(profile, key, memory_id) VALUES (?1, ?2, ?3)",
                )?
                .execute(params![profile, key, id])?;
        }
        if let Some(p) = &m.picture {
            self.insert_picture(id, p)?;
        }
        self.set_tags(id, &m.tags)?;
        self.set_entities(id, entities)?;
        if let Some(session) = &m.session_id {
            let prev: Option<i64> = self
                .tx
                .prepare_cached("SELECT MAX(id) FROM memories WHERE session_id = ?1 AND profile = ?2 AND id < ?3")?
                .query_row(params![session, profile, id], |r| r.get(0))?;
            if let Some(prev) = prev {
                self.link(prev, id, LinkKind::Next, 1.0)?;
            }
        }
        if let Some(old) = m.supersedes {
            self.supersede(old, id, now)?;
        }
        self.changed(id, false)?;
        Ok(Inserted {
            id,
            existed: false,
            duplicate: false,
        })
    }

    /// The memory that already holds this text (`text::dedup_form`: whitespace collapsed,
    /// case folded) in the same profile, scope and session, and visible wherever the new one
    /// would be (its project, or none when the new one has a project), and still stands (a correction
    /// took the place of a superseded one: saving its words again is a revert, a new memory).
    /// A write that corrects another memory, and a turn of a conversation (a speaker: the
    /// same words said twice are two turns), are always new.
    fn same_text(&self, m: &NewMemory, profile: &str, hash: i64) -> Result<Option<i64>> {
        if m.supersedes.is_some() || m.speaker.is_some() {
            return Ok(None);
        }
        let scope = m.scope.unwrap_or(Scope::Personal);
        let form = crate::text::dedup_form(&m.text);
        let mut st = self.tx.prepare_cached(
            "SELECT id, text FROM memories WHERE profile = ?1 AND dedup_hash = ?2 AND scope = ?3 \
             AND session_id IS ?4 AND (project IS ?5 OR (?5 IS NOT NULL AND project IS NULL)) AND speaker IS NULL AND superseded_by IS NULL ORDER BY id",
        )?;
        let rows = st.query_map(
            params![profile, hash, scope.as_str(), m.session_id, m.project],
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)),
        )?;
        for row in rows {
            let (id, text) = row?;
            if crate::text::dedup_form(&text) == form {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    /// The memory stored under an idempotency key of a profile.
    pub fn id_for_key(&self, profile: &str, key: &str) -> Result<Option<i64>> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT memory_id FROM idempotency_keys WHERE profile = ?1 AND key = ?2",
            )?
            .query_row(params![profile, key], |r| r.get(0))
            .optional()?)
    }

    /// Mark `old` corrected by `new` unless it already is (an import run twice changes
    /// nothing). Returns whether anything changed.
    pub fn supersede_once(&self, old: i64, new: i64, now: i64) -> Result<bool> {
        let current: Option<Option<i64>> = self
            .tx
            .prepare_cached("SELECT superseded_by FROM memories WHERE id = ?1")?
            .query_row([old], |r| r.get(0))
            .optional()?;
        if current == Some(Some(new)) {
            return Ok(false);
        }
        self.supersede(old, new, now)?;
        Ok(true)
    }

    /// Set where a memory came from (a re-imported file whose paragraphs moved).
    pub fn set_origin(&self, id: i64, origin: Option<&str>) -> Result<()> {
        self.tx
            .prepare_cached("UPDATE memories SET origin = ?2 WHERE id = ?1")?
            .execute(params![id, origin])?;
        Ok(())
    }

    /// `new` corrects `old`. Both must be of one profile: a write may only refer to memories
    /// its own profile can see, so another profile's memory is "not found" (no existence leak).
    fn supersede(&self, old: i64, new: i64, now: i64) -> Result<()> {
        let profile_of = |id: i64| -> Result<Option<String>> {
            Ok(self
                .tx
                .prepare_cached("SELECT profile FROM memories WHERE id = ?1")?
                .query_row([id], |r| r.get(0))
                .optional()?)
        };
        let new_profile = profile_of(new)?.ok_or(Error::NotFound(new))?;
        match profile_of(old)? {
            Some(p) if p == new_profile => {}
            _ => return Err(Error::NotFound(old)),
        }
        if old == new {
            return Err(Error::Usage(format!("memory {old} cannot correct itself")));
        }
        let n = self.tx.execute(
            "UPDATE memories SET superseded_by = ?2, updated_at = ?3 WHERE id = ?1",
            params![old, new, now],
        )?;
        if n == 0 {
            return Err(Error::NotFound(old));
        }
        self.link(new, old, LinkKind::Supersedes, 1.0)?;
        self.changed(old, false)
    }

    fn set_tags(&self, id: i64, tags: &[String]) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM tags WHERE memory_id = ?1")?
            .execute([id])?;
        let mut st = self
            .tx
            .prepare_cached("INSERT OR IGNORE INTO tags(memory_id, tag) VALUES (?1, ?2)")?;
        for t in tags {
            let t = t.trim();
            if !t.is_empty() {
                st.execute(params![id, t])?;
            }
        }
        Ok(())
    }

    /// Apply a patch; text changes re-extract entities and drop the old embedding.
    pub fn update(
        &self,
        id: i64,
        p: &MemoryPatch,
        now: i64,
        entities: Option<&[Entity]>,
        bookkeeping: Option<Option<&str>>,
    ) -> Result<()> {
        let exists: Option<i64> = self
            .tx
            .prepare_cached("SELECT id FROM memories WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?;
        if exists.is_none() {
            return Err(Error::NotFound(id));
        }
        if let Some(t) = &p.text {
            self.tx.execute(
                "UPDATE memories SET text = ?2, dedup_hash = ?3, embedding = NULL, embedding_model = NULL, baseline_sim = NULL, baseline_n = NULL WHERE id = ?1",
                params![id, t, crate::text::dedup_hash(t)],
            )?;
            super::passages::drop_passages(self.tx, id)?;
        }
        if let Some(k) = p.kind {
            self.tx.execute(
                "UPDATE memories SET kind = ?2 WHERE id = ?1",
                params![id, k.as_str()],
            )?;
        }
        if let Some(b) = bookkeeping {
            self.tx.execute(
                "UPDATE memories SET bookkeeping = ?2 WHERE id = ?1",
                params![id, b],
            )?;
        }
        if let Some(pin) = p.pinned {
            self.tx.execute(
                "UPDATE memories SET pinned = ?2 WHERE id = ?1",
                params![id, pin as i64],
            )?;
        }
        if let Some(s) = p.scope {
            self.tx.execute(
                "UPDATE memories SET scope = ?2 WHERE id = ?1",
                params![id, s.as_str()],
            )?;
        }
        if let Some(e) = p.event_at {
            self.tx.execute(
                "UPDATE memories SET event_at = ?2 WHERE id = ?1",
                params![id, e],
            )?;
        }
        if let Some(v) = p.valid_from {
            self.tx.execute(
                "UPDATE memories SET valid_from = ?2 WHERE id = ?1",
                params![id, v],
            )?;
        }
        if let Some(v) = p.valid_until {
            self.tx.execute(
                "UPDATE memories SET valid_until = ?2 WHERE id = ?1",
                params![id, v],
            )?;
        }
        if let Some(s) = p.superseded_by {
            if let Some(new) = s {
                self.supersede(id, new, now)?;
            } else {
                self.tx.execute(
                    "UPDATE memories SET superseded_by = NULL WHERE id = ?1",
                    [id],
                )?;
            }
        }
        if let Some(tags) = &p.tags {
            self.set_tags(id, tags)?;
        }
        if let Some(ents) = entities {
            self.set_entities(id, ents)?;
        }
        self.tx.execute(
            "UPDATE memories SET updated_at = ?2 WHERE id = ?1",
            params![id, now],
        )?;
        self.changed(id, false)
    }

    pub fn delete(&self, id: i64) -> Result<()> {
        let n = self
            .tx
            .execute("DELETE FROM memories WHERE id = ?1", [id])?;
        if n == 0 {
            return Err(Error::NotFound(id));
        }
        self.changed(id, true)
    }
}
