//! The write path: redact secrets → validate → take the writer lease → SQLite commit
//! (durable, the id acknowledged) → the indexes follow (`after_commit`). A failure after the
//! commit is reported, never returned: the write stands.
//!
//! Every write of a memory's text comes through here (`remember`, every import, the MCP and
//! agent tools, the worker and the cold path alike), so this is where secrets are redacted
//! (`text::redact_secrets`, unless the write says `allow_secrets`) and where a text already
//! stored is recognised (`store::Writer::insert`).

use super::{Embed, Engine, Remembered};
use crate::lock::WRITE_WAIT;
use crate::memory::{self, Kind, Memory, MemoryPatch, NewMemory};
use crate::{Error, Result, text};

impl Engine {
    /// Save one memory. Returns once it is committed to SQLite and findable by keyword.
    pub fn remember(&self, m: NewMemory) -> Result<Remembered> {
        let mut out = self.remember_batch(vec![m], &mut |_| {})?;
        Ok(out.pop().expect("one in, one out"))
    }

    /// Save many memories in one transaction (an import batch): all or none.
    /// `acked` is called with the ids once they are durable, before indexing finishes.
    pub fn remember_batch(
        &self,
        items: Vec<NewMemory>,
        acked: &mut dyn FnMut(&[Remembered]),
    ) -> Result<Vec<Remembered>> {
        self.remember_batch_with(items, acked, Embed::Now)
    }

    /// [`Engine::remember_batch`], saying when the new memories get their vectors.
    pub fn remember_batch_with(
        &self,
        mut items: Vec<NewMemory>,
        acked: &mut dyn FnMut(&[Remembered]),
        embed: Embed,
    ) -> Result<Vec<Remembered>> {
        let redacted: Vec<Vec<&'static str>> = items.iter_mut().map(redact).collect();
        for m in &items {
            memory::validate_text(&m.text)?;
        }
        self.writable()?;
        let now = self.clock.now_ms();
        let prepared: Vec<_> = items
            .iter()
            .map(|m| {
                let bk = if m.kind == Some(Kind::Bookkeeping) {
                    Some("saved as bookkeeping")
                } else {
                    text::bookkeeping_reason(&m.text)
                };
                (text::entities(&m.text), bk)
            })
            .collect();
        let lease = self.lease(WRITE_WAIT)?;
        let mut results = {
            let mut store = self.store()?;
            store.write(|w| {
                items
                    .iter()
                    .zip(&prepared)
                    .zip(&redacted)
                    .map(|((m, (ents, bk)), kinds)| {
                        let ins = w.insert(m, now, ents, *bk)?;
                        Ok(Remembered {
                            id: ins.id,
                            existed: ins.existed,
                            duplicate_of: ins.duplicate.then_some(ins.id),
                            redacted: kinds.len(),
                            redacted_kinds: kinds.iter().map(|k| k.to_string()).collect(),
                            embedded: false,
                            bookkeeping: if ins.existed {
                                None
                            } else {
                                bk.map(str::to_string)
                            },
                            keyword_ms: 0.0,
                            note: None,
                        })
                    })
                    .collect::<Result<Vec<_>>>()
            })?
        };
        let committed = std::time::Instant::now();
        acked(&results);
        // From here on the write is durable: a failure to update the indexes (a full disk)
        // must not be reported as a failed write, or a caller would retry a saved memory.
        // The indexes catch up from the change log on the next write or start.
        let failed = self.after_commit(
            || self.index_after_write(&mut results, committed, lease, embed),
            |e| {
                format!(
                    "saved, but updating the indexes failed ({e}); they catch up on the next write or start"
                )
            },
        );
        if let Some(why) = failed {
            for r in &mut results {
                r.note = Some(why.clone());
            }
        }
        Ok(results)
    }

    pub fn update(&self, id: i64, mut patch: MemoryPatch) -> Result<Memory> {
        // A new text is a write like any other: its secrets are never stored.
        if let Some(t) = &mut patch.text {
            let text::Redaction { text: r, .. } = text::redact_secrets(t);
            if let std::borrow::Cow::Owned(r) = r {
                *t = r;
            }
        }
        if let Some(t) = &patch.text {
            memory::validate_text(t)?;
        }
        let now = self.clock.now_ms();
        self.writable()?;
        let ents = patch.text.as_deref().map(text::entities);
        let bk = patch.text.as_deref().map(text::bookkeeping_reason);
        let _lease = self.lease(WRITE_WAIT)?;
        {
            let mut store = self.store()?;
            store.write(|w| w.update(id, &patch, now, ents.as_deref(), bk))?;
        }
        // Committed: an index failure from here on is reported, not returned (see remember).
        self.after_commit(
            || {
                self.apply_changes()?;
                if patch.text.is_some() && self.memory_model().is_some() {
                    self.embed_ids(&[id])?;
                    self.save_vectors_if_due(false)?;
                }
                Ok(())
            },
            |e| format!("memory {id} was updated, but updating the indexes failed ({e})"),
        );
        self.get(id)?.ok_or(Error::NotFound(id))
    }

    pub fn delete(&self, ids: &[i64]) -> Result<usize> {
        self.writable()?;
        let _lease = self.lease(WRITE_WAIT)?;
        let files = self.store()?.picture_files(ids)?;
        let n = {
            let mut store = self.store()?;
            store.write(|w| {
                for id in ids {
                    w.delete(*id)?;
                }
                Ok(ids.len())
            })?
        };
        // Still under the lease, so no picture row naming them can be written meanwhile.
        self.remove_unkept_files(&files);
        self.after_commit(
            || {
                self.apply_changes()?;
                self.save_vectors_if_due(false)
            },
            |e| format!("deleted, but updating the indexes failed ({e})"),
        );
        Ok(n)
    }
}

/// Replace the secrets in a write's text (unless it says `allow_secrets`); their kinds.
fn redact(m: &mut NewMemory) -> Vec<&'static str> {
    if m.allow_secrets {
        return Vec::new();
    }
    let text::Redaction { text: t, kinds } = text::redact_secrets(&m.text);
    if let std::borrow::Cow::Owned(t) = t {
        m.text = t;
    }
    kinds
}
