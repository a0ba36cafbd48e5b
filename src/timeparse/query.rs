//! Reading a recall query: every time reference in it ("since May", "the week before
//! Christmas"), whether it asks for a time ("when did…"), and the event order it asks
//! for ("first", "most recent", "what order").

use chrono::{DateTime, Utc};

use super::calendar::{Unit, far_future, far_past, iv, shift, through, unit_word};
use super::phrases::{Ctx, match_at};
use super::words::{count_at, has_phrase, prev, tok, tokens};
use super::{EventOrder, Interval, QueryTime, TimeRef};

/// Phrases that ask for a time, matched as whole words anywhere in the query.
#[rustfmt::skip]
pub(super) const WHEN_PHRASES: &[&str] = &[
    "when did", "when was", "when were", "when is", "when are", "when will", "when do",
    "when does", "when had", "when has", "when have", "when would", "since when", "what date",
    "what year", "what month", "what day", "what time", "what week", "which date", "which year",
    "which month", "which day", "which week", "how long ago", "how long has", "how long have",
    "how long had", "date of",
];

/// The unit (and count) just before a "before"/"after" at `i`: "the week before" gives
/// (Week, 1), "two days after" gives (Day, 2); with the index where those words start.
pub(super) fn unit_before(t: &[String], i: usize, used: &[bool]) -> Option<(Unit, i64, usize)> {
    let u = i.checked_sub(1)?;
    let (unit, mult) = unit_word(tok(t, u)).filter(|_| !used.get(u).copied().unwrap_or(true))?;
    let counted = (u.saturating_sub(3)..u).find_map(|j| {
        count_at(t, j)
            .filter(|(_, _, k)| j + k == u)
            .map(|(n, _, _)| (n, j))
    });
    let (n, from) = counted.unwrap_or((1, u));
    Some((unit, n.checked_mul(mult)?, from))
}

/// Find time references in a natural-language query, relative to `now`.
pub fn parse_query(query: &str, now: DateTime<Utc>) -> QueryTime {
    let t = tokens(query);
    let c = Ctx {
        now,
        today: now.date_naive(),
    };
    let mut refs: Vec<TimeRef> = Vec::new();
    let mut used = vec![false; t.len()];
    let mut push = |ivl: Option<Interval>, matched: String| {
        if let Some(interval) =
            ivl.filter(|x| x.start < x.end && !refs.iter().any(|r| r.interval == *x))
        {
            refs.push(TimeRef { interval, matched });
        }
    };
    let words = |a: usize, b: usize| t.get(a..b).map_or(String::new(), |s| s.join(" "));
    let mut i = 0;
    while i < t.len() {
        let side = tok(&t, i);
        let wraps = matches!(
            side,
            "since" | "before" | "after" | "until" | "till" | "between"
        );
        // "before the 8th of May": the article is not part of X.
        let x_at = i + 1 + usize::from(tok(&t, i + 1) == "the");
        if let Some((n, x)) = wraps.then(|| match_at(&t, x_at, &c)).flatten() {
            let mut end_i = x_at + n;
            used[x_at..end_i].iter_mut().for_each(|u| *u = true);
            // "the week before X", "two days after X": a span of that size beside X.
            let lead = matches!(side, "before" | "after")
                .then(|| unit_before(&t, i, &used))
                .flatten();
            let mut from = i;
            let sided = match (side, lead) {
                ("before", Some((unit, k, j))) => {
                    from = j;
                    shift(x.start, unit, -k).and_then(|s| iv(s, x.start))
                }
                ("after", Some((unit, k, j))) => {
                    from = j;
                    shift(x.end, unit, k).and_then(|e| iv(x.end, e))
                }
                ("since", _) => iv(x.start, through(now)),
                ("before", _) => iv(far_past(), x.start),
                // After something in the future there is no "now" to stop at.
                ("after", _) if x.end < now => iv(x.end, through(now)),
                ("after", _) => iv(x.end, far_future()),
                ("between", _) => match (tok(&t, end_i), match_at(&t, end_i + 1, &c)) {
                    ("and", Some((m, y))) => {
                        used[end_i + 1..end_i + 1 + m]
                            .iter_mut()
                            .for_each(|u| *u = true);
                        end_i += 1 + m;
                        iv(x.start, y.end)
                    }
                    _ => None,
                },
                _ => iv(far_past(), x.end),
            };
            // A side that would be empty ("since tomorrow") still tells us X itself.
            match sided {
                Some(s) => {
                    used[from..i].iter_mut().for_each(|u| *u = true);
                    push(Some(s), words(from, end_i));
                }
                None => push(Some(x), words(x_at, x_at + n)),
            }
            i = end_i;
        } else if let Some((n, x)) = match_at(&t, i, &c) {
            used[i..i + n].iter_mut().for_each(|u| *u = true);
            push(Some(x), words(i, i + n));
            i += n;
        } else {
            i += 1;
        }
    }
    let free = |w: &str| t.iter().zip(&used).any(|(x, u)| x == w && !u);
    let free_last = t.iter().enumerate().any(|(k, x)| {
        let owner = matches!(
            prev(&t, k),
            "the" | "my" | "his" | "her" | "their" | "our" | "your"
        );
        x == "last" && !used[k] && (owner || tok(&t, k + 1) == "time")
    });
    let order = if has_phrase(&t, "what order")
        || has_phrase(&t, "which order")
        || ["sequence", "chronological", "chronologically", "timeline"]
            .iter()
            .any(|w| free(w))
    {
        Some(EventOrder::Sequence)
    } else if free("first") || free("earliest") {
        Some(EventOrder::Earliest)
    } else if free_last
        || free("latest")
        || has_phrase(&t, "most recent")
        || has_phrase(&t, "most recently")
    {
        Some(EventOrder::Latest)
    } else if free("before") || has_phrase(&t, "prior to") || has_phrase(&t, "earlier than") {
        Some(EventOrder::Before)
    } else if free("after") || has_phrase(&t, "later than") {
        Some(EventOrder::After)
    } else {
        None
    };
    let asks_when = tok(&t, 0) == "when"
        || WHEN_PHRASES.iter().any(|p| has_phrase(&t, p))
        || (has_phrase(&t, "how many") && t.iter().any(|w| w == "ago"));
    QueryTime {
        refs,
        asks_when,
        order,
    }
}
