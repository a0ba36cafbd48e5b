//! Which memories a recall may look at: profile, scope and project (visibility), then time
//! (window, as-of, known-as-of, valid-at), kind, bookkeeping and corrections.
//!
//! Every producer asks `Filters::admits` before it reports a memory, so no channel can
//! leak another profile's memories or bookkeeping noise into an answer.

use crate::index::bm25::Visibility;
use crate::memory::{Kind, Scope};
use crate::store::MetaRow;
use crate::timeparse::Interval;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Filters {
    pub profile: String,
    pub include_shared: bool,
    pub include_global: bool,
    /// Event time inside this window (ms, [start, end)).
    pub window: Option<(i64, i64)>,
    /// What was true then: happened by then and valid then.
    pub as_of: Option<i64>,
    /// What slm knew before then (system time).
    pub known_as_of: Option<i64>,
    /// Valid at this time.
    pub valid_at: Option<i64>,
    pub kind: Option<Kind>,
    /// This project's memories and those with none (None: every project; `crate::project`).
    #[serde(default)]
    pub project: Option<String>,
}

impl Filters {
    pub fn visibility(&self) -> Visibility {
        Visibility {
            profile: self.profile.clone(),
            shared: self.include_shared,
            global: self.include_global,
        }
    }

    /// Time travel asks about the past, where a later correction may not exist yet.
    pub fn time_travel(&self) -> bool {
        self.as_of.is_some() || self.known_as_of.is_some()
    }

    pub fn visible(&self, m: &MetaRow) -> bool {
        (m.profile == self.profile
            || (m.scope == Scope::Shared && self.include_shared)
            || (m.scope == Scope::Global && self.include_global))
            && crate::project::visible(self.project.as_deref(), m.project.as_deref())
    }

    /// May this memory appear in the answer at all?
    pub fn admits(&self, m: &MetaRow) -> bool {
        if !self.visible(m) || m.bookkeeping {
            return false;
        }
        if let Some(k) = self.kind {
            if m.kind != k {
                return false;
            }
        }
        if let Some((s, e)) = self.window {
            if m.event_at < s || m.event_at >= e {
                return false;
            }
        }
        if let Some(t) = self.as_of {
            if m.event_at > t
                || m.valid_from.is_some_and(|v| v > t)
                || m.valid_until.is_some_and(|v| v <= t)
            {
                return false;
            }
        }
        if let Some(t) = self.known_as_of {
            if m.known_at >= t {
                return false;
            }
        }
        if let Some(t) = self.valid_at {
            if m.valid_from.is_some_and(|v| v > t) || m.valid_until.is_some_and(|v| v <= t) {
                return false;
            }
        }
        // A corrected memory gives way to its correction, unless the question is about a
        // time before the correction could have been known.
        if m.superseded && !self.time_travel() {
            return false;
        }
        true
    }
}

pub fn interval_ms(i: &Interval) -> (i64, i64) {
    (i.start.timestamp_millis(), i.end.timestamp_millis())
}
