//! Feedback for the learned ranking modes (migration 4): logged recalls, good/bad marks
//! and the learned models, all keyed by profile. Nothing here leaves the machine, and
//! `forget_feedback` removes all three for a profile (or every profile).

use rusqlite::{Connection, OptionalExtension, params};

use super::recall_log::{Label, LoggedRecall};
use super::{Store, Writer};
use crate::Result;

/// One stored mark, as `slm feedback --list` shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FeedbackRow {
    pub at: i64,
    pub profile: String,
    pub recall_id: String,
    pub query: String,
    pub memory_id: i64,
    pub label: Label,
    /// "explicit" (`slm feedback`, the MCP tool) or "implicit" (expanded or shown soon after).
    pub source: String,
}

/// A stored model row.
#[derive(Debug, Clone)]
pub struct ModelRow {
    pub version: i64,
    pub feature_version: i64,
    pub trained_on: i64,
    pub body: String,
}

/// What `forget_feedback` removed.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct ForgetCounts {
    pub feedback: usize,
    pub recalls: usize,
    pub models: usize,
}

fn label_of(s: &str) -> Label {
    if s == "bad" { Label::Bad } else { Label::Good }
}

impl Store {
    pub fn recall_log(&self, recall_id: &str) -> Result<Option<LoggedRecall>> {
        let body: Option<String> = self
            .conn
            .prepare_cached("SELECT body FROM recall_log WHERE recall_id = ?1")?
            .query_row([recall_id], |r| r.get(0))
            .optional()?;
        Ok(body.and_then(|b| serde_json::from_str(&b).ok()))
    }

    /// Stored recalls of a profile since `since_ms`, newest first.
    pub fn recall_logs_since(&self, profile: &str, since_ms: i64) -> Result<Vec<LoggedRecall>> {
        let mut st = self.conn.prepare_cached(
            "SELECT body FROM recall_log WHERE profile = ?1 AND at >= ?2 ORDER BY at DESC",
        )?;
        let rows = st.query_map(params![profile, since_ms], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for b in rows {
            if let Ok(r) = serde_json::from_str(&b?) {
                out.push(r);
            }
        }
        Ok(out)
    }

    /// Marks of a profile (all profiles when None), newest first.
    pub fn feedback_rows(&self, profile: Option<&str>, limit: usize) -> Result<Vec<FeedbackRow>> {
        let mut st = self.conn.prepare_cached(
            "SELECT f.at, f.profile, f.recall_id, r.query, f.memory_id, f.label, f.source \
             FROM feedback f JOIN recall_log r ON r.recall_id = f.recall_id \
             WHERE ?1 IS NULL OR f.profile = ?1 ORDER BY f.at DESC, f.id DESC LIMIT ?2",
        )?;
        let rows = st.query_map(params![profile, limit as i64], |r| {
            Ok(FeedbackRow {
                at: r.get(0)?,
                profile: r.get(1)?,
                recall_id: r.get(2)?,
                query: r.get(3)?,
                memory_id: r.get(4)?,
                label: label_of(&r.get::<_, String>(5)?),
                source: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }
}

impl Writer<'_> {
    /// Keep a recall (no-op when it is already stored).
    pub fn put_recall_log(&self, r: &LoggedRecall) -> Result<()> {
        let body = serde_json::to_string(r).map_err(|e| crate::Error::Other(e.to_string()))?;
        self.tx
            .prepare_cached(
                "INSERT OR IGNORE INTO recall_log(recall_id, profile, at, query, query_class, body) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                r.recall_id,
                r.profile,
                r.at_ms,
                r.query,
                r.query_class,
                body
            ])?;
        Ok(())
    }

    /// Record a mark; a second mark of the same kind on the same memory of the same recall
    /// replaces the first (a person changing their mind). True when it changed anything.
    pub fn put_feedback(
        &self,
        profile: &str,
        recall_id: &str,
        memory_id: i64,
        label: Label,
        explicit: bool,
        at: i64,
    ) -> Result<bool> {
        let n = self
            .tx
            .prepare_cached(
                "INSERT INTO feedback(profile, recall_id, memory_id, label, source, at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
                 ON CONFLICT(recall_id, memory_id, source) DO UPDATE SET label = excluded.label, at = excluded.at \
                 WHERE label <> excluded.label",
            )?
            .execute(params![
                profile,
                recall_id,
                memory_id,
                label.as_str(),
                if explicit { "explicit" } else { "implicit" },
                at
            ])?;
        Ok(n > 0)
    }

    /// Has this memory of this recall any mark already (of either kind)?
    pub fn has_feedback(&self, recall_id: &str, memory_id: i64) -> Result<bool> {
        Ok(self
            .tx
            .prepare_cached("SELECT 1 FROM feedback WHERE recall_id = ?1 AND memory_id = ?2")?
            .query_row(params![recall_id, memory_id], |_| Ok(()))
            .optional()?
            .is_some())
    }

    pub fn put_ranking_model(
        &self,
        profile: &str,
        mode: &str,
        feature_version: i64,
        trained_on: i64,
        body: &str,
        now: i64,
    ) -> Result<i64> {
        Ok(self
            .tx
            .prepare_cached(
                "INSERT INTO ranking_models(profile, mode, version, feature_version, trained_on, body, updated_at) \
                 VALUES (?1, ?2, 1, ?3, ?4, ?5, ?6) \
                 ON CONFLICT(profile, mode) DO UPDATE SET version = version + 1, \
                 feature_version = excluded.feature_version, trained_on = excluded.trained_on, \
                 body = excluded.body, updated_at = excluded.updated_at \
                 RETURNING version",
            )?
            .query_row(
                params![profile, mode, feature_version, trained_on, body, now],
                |r| r.get(0),
            )?)
    }

    /// Remove a profile's feedback, its logged recalls and its models (every profile's when
    /// None).
    pub fn forget_feedback(&self, profile: Option<&str>) -> Result<ForgetCounts> {
        let fb = self.tx.execute(
            "DELETE FROM feedback WHERE ?1 IS NULL OR profile = ?1",
            [profile],
        )?;
        let rl = self.tx.execute(
            "DELETE FROM recall_log WHERE ?1 IS NULL OR profile = ?1",
            [profile],
        )?;
        let md = self.tx.execute(
            "DELETE FROM ranking_models WHERE ?1 IS NULL OR profile = ?1",
            [profile],
        )?;
        Ok(ForgetCounts {
            feedback: fb,
            recalls: rl,
            models: md,
        })
    }

    /// Delete stored recalls older than `before_ms` that no mark refers to.
    pub fn prune_recall_log(&self, before_ms: i64) -> Result<usize> {
        Ok(self.tx.execute(
            "DELETE FROM recall_log WHERE at < ?1 \
             AND NOT EXISTS (SELECT 1 FROM feedback f WHERE f.recall_id = recall_log.recall_id)",
            [before_ms],
        )?)
    }
}

/// Reads the learners need, on the store's connection or inside a write.
macro_rules! feedback_reads {
    ($t:ty, $conn:ident) => {
        impl $t {
            /// Every mark of a profile, oldest first, with its recall (what the learners replay).
            pub fn feedback_events(
                &self,
                profile: &str,
            ) -> Result<Vec<(FeedbackRow, LoggedRecall)>> {
                events_on(&self.$conn, profile)
            }
            /// How much feedback a profile has: (explicit marks, implicit marks).
            pub fn feedback_counts(&self, profile: &str) -> Result<(usize, usize)> {
                counts_on(&self.$conn, profile)
            }
            pub fn ranking_model(&self, profile: &str, mode: &str) -> Result<Option<ModelRow>> {
                model_on(&self.$conn, profile, mode)
            }
        }
    };
}
feedback_reads!(Store, conn);
feedback_reads!(Writer<'_>, tx);

/// Every mark of a profile, oldest first, with its recall (what the learners replay).
fn events_on(conn: &Connection, profile: &str) -> Result<Vec<(FeedbackRow, LoggedRecall)>> {
    let mut st = conn.prepare_cached(
        "SELECT f.at, f.recall_id, r.query, f.memory_id, f.label, f.source, r.body \
         FROM feedback f JOIN recall_log r ON r.recall_id = f.recall_id \
         WHERE f.profile = ?1 ORDER BY f.at, f.id",
    )?;
    let rows = st.query_map([profile], |r| {
        Ok((
            FeedbackRow {
                at: r.get(0)?,
                profile: profile.to_string(),
                recall_id: r.get(1)?,
                query: r.get(2)?,
                memory_id: r.get(3)?,
                label: label_of(&r.get::<_, String>(4)?),
                source: r.get(5)?,
            },
            r.get::<_, String>(6)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (f, body) = row?;
        if let Ok(rec) = serde_json::from_str(&body) {
            out.push((f, rec));
        }
    }
    Ok(out)
}

/// How much feedback a profile has: (explicit marks, implicit marks).
fn counts_on(conn: &Connection, profile: &str) -> Result<(usize, usize)> {
    Ok(conn
        .prepare_cached(
            "SELECT COALESCE(SUM(source = 'explicit'), 0), COALESCE(SUM(source = 'implicit'), 0) \
         FROM feedback WHERE profile = ?1",
        )?
        .query_row([profile], |r| {
            Ok((r.get::<_, i64>(0)? as usize, r.get::<_, i64>(1)? as usize))
        })?)
}

fn model_on(conn: &Connection, profile: &str, mode: &str) -> Result<Option<ModelRow>> {
    Ok(conn
        .prepare_cached(
            "SELECT version, feature_version, trained_on, body FROM ranking_models \
             WHERE profile = ?1 AND mode = ?2",
        )?
        .query_row(params![profile, mode], |r| {
            Ok(ModelRow {
                version: r.get(0)?,
                feature_version: r.get(1)?,
                trained_on: r.get(2)?,
                body: r.get(3)?,
            })
        })
        .optional()?)
}
