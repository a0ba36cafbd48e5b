//! Time words in queries and time values on the command line, turned into concrete UTC
//! intervals relative to a pinned clock.
//!
//! This module owns every reading of time text in slm: the phrases in a recall query
//! ("last Friday", "two weeks ago", "in May 2023", "since 2022"), the values of `--at`,
//! `--as-of`, `--known-as-of`, `--valid-at` and import fields ("2023-05-08T13:56Z",
//! LoCoMo's "1:56 pm on 8 May, 2023", "3d ago"), and `--window` ("7d", "a..b", "2024-03").
//! `now` is always passed in, never read from the system, so a pinned clock (`SLM_NOW`)
//! gives the same answer on every run.
//!
//! Conventions: all arithmetic is in UTC; weeks start on Monday; "05/08/2023" is read
//! month/day/year (the US order of the English chat logs and benchmarks slm is measured
//! on; ISO "2023-05-08" is the unambiguous spelling); seasons are meteorological and
//! northern-hemisphere, with "winter 2022" running from December 2022 to February 2023.
//! Nothing here panics: all calendar arithmetic is checked and a phrase that would leave
//! chrono's range is simply not recognised.

mod calendar;
mod error;
mod phrases;
mod query;
mod values;
mod words;

#[cfg(test)]
mod tests;

use chrono::{DateTime, Utc};
use serde::Serialize;

pub use error::TimeError;
pub use query::parse_query;
pub use values::{parse_period, parse_point, parse_window};

/// How far back "recently" and "lately" reach, in days. Two weeks is the horizon people
/// usually mean in conversation, and it spans the gap between typical LoCoMo sessions.
pub const RECENT_DAYS: i64 = 14;
/// What "a few" and "several" count as: the usual reading of "few" in English.
pub const FEW: i64 = 3;
/// What "a couple (of)" counts as.
pub const COUPLE: i64 = 2;
/// Largest count read as a duration ("in 99999999 days" is noise, not a time); about
/// 270 years of days, which also keeps every shift inside chrono's range.
pub const MAX_COUNT: i64 = 100_000;
/// Earliest year a bare 4-digit number in a query may name (brief: 1900..=2100), so
/// "2022 apples" or "room 1234" are not years.
pub const YEAR_MIN: i32 = 1900;
/// Latest year a bare 4-digit number in a query may name.
pub const YEAR_MAX: i32 = 2100;
/// Outside an interval, proximity halves every this many interval lengths: one length
/// means a day tolerates a day or two and a month a few weeks, as the brief asks.
pub const HALF_LIFE_LENGTHS: f64 = 1.0;
/// Shortest proximity half-life, in seconds (one day): event times are often known only
/// to the day (a date-only `--at` lands at midnight), so an hour-long interval must not
/// punish an event that happened that afternoon.
pub const MIN_HALF_LIFE_SECS: f64 = 86_400.0;
/// Added to an interval that ends "now" so it includes now: events are stored in Unix
/// milliseconds, and one millisecond turns the closed "[x, now]" into closed-open form.
pub const NOW_INCLUSIVE_MS: i64 = 1;
/// Start of open-ended ranges ("..2024-02-01", "before X"): 0001-01-01T00:00:00Z, the
/// earliest instant RFC 3339 can write, so such intervals still serialise plainly.
pub const FAR_PAST_SECS: i64 = -62_135_596_800;
/// End of open-ended ranges ("2024-01-01.."): 9999-12-31T23:59:59Z, RFC 3339's latest.
pub const FAR_FUTURE_SECS: i64 = 253_402_300_799;

/// A closed-open interval [start, end).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Interval {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

impl Interval {
    pub fn contains(&self, t: DateTime<Utc>) -> bool {
        self.start <= t && t < self.end
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimeRef {
    pub interval: Interval,
    /// The words that matched, lower-cased and space-joined.
    pub matched: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventOrder {
    Earliest,
    Latest,
    Before,
    After,
    Sequence,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct QueryTime {
    /// Every time reference found in the query, in order of appearance.
    pub refs: Vec<TimeRef>,
    /// The question asks for a time ("when did…", "what year", "how long ago").
    pub asks_when: bool,
    pub order: Option<EventOrder>,
}

/// How close an event time is to an interval, in 0..=1: 1.0 inside; outside, halving
/// every [`HALF_LIFE_LENGTHS`] interval lengths (at least [`MIN_HALF_LIFE_SECS`]) of
/// distance, so a day tolerates a day or two and a month a few weeks.
pub fn proximity(event: DateTime<Utc>, interval: &Interval) -> f64 {
    if interval.contains(event) {
        return 1.0;
    }
    let secs = |a: DateTime<Utc>, b: DateTime<Utc>| {
        a.signed_duration_since(b).num_milliseconds() as f64 / 1000.0
    };
    let dist = if event < interval.start {
        secs(interval.start, event)
    } else {
        secs(event, interval.end)
    }
    .max(0.0);
    let half = (secs(interval.end, interval.start) * HALF_LIFE_LENGTHS).max(MIN_HALF_LIFE_SECS);
    (-dist / half).exp2().clamp(0.0, 1.0)
}
