//! The temporal producer: memories close to the times the question names (read from the
//! time index), or the newest ones for questions about the present.

use super::{CHANNEL_DEPTH, Hits, Produced};
use crate::engine::Engine;
use crate::index::meta::MetaMap;
use crate::memory::Kind;
use crate::recall::classify::Classified;
use crate::recall::filters::{Filters, interval_ms};
use crate::timeparse;
use std::collections::HashMap;

/// Newest memories considered for questions about the present.
pub const RECENCY_DEPTH: usize = 50;
/// Below this closeness to a named time a memory is not a temporal hit (the proximity
/// halves every interval length outside it, so 0.05 is about 4.3 lengths away). Chosen,
/// not measured.
pub const TEMPORAL_MIN_PROXIMITY: f64 = 0.05;

/// The newest admitted memories up to `now_ms` ("what am I working on").
fn newest(meta: &MetaMap, filters: &Filters, now_ms: i64) -> Vec<(i64, i64)> {
    meta.newest_in(i64::MIN, now_ms.saturating_add(1))
        .filter(|m| {
            filters.admits(m)
                && m.kind != Kind::Prompt
                && m.source != crate::memory::Source::CapturedPrompt
        })
        .take(RECENCY_DEPTH)
        .map(|m| (m.id, m.event_at))
        .collect()
}

/// The [`CHANNEL_DEPTH`] admitted memories closest to one interval, read from the time
/// index: inside it newest first (all at proximity 1), then outward from both ends, the
/// closer side first, until the proximity falls below [`TEMPORAL_MIN_PROXIMITY`]. What it
/// reads is bounded by the depth plus the memories the filters turn away, not by the store.
fn closest_to(
    meta: &MetaMap,
    filters: &Filters,
    interval: &timeparse::Interval,
    into: &mut HashMap<i64, (f64, i64)>,
) {
    let (s, e) = interval_ms(interval);
    let mut keep = |m: &crate::store::MetaRow, p: f64| {
        let slot = into.entry(m.id).or_insert((0.0, m.event_at));
        slot.0 = slot.0.max(p);
    };
    let mut taken = 0;
    for m in meta.newest_in(s, e).filter(|m| filters.admits(m)) {
        keep(m, 1.0);
        taken += 1;
        if taken >= CHANNEL_DEPTH {
            return;
        }
    }
    let p_of = |m: &crate::store::MetaRow| {
        timeparse::proximity(crate::clock::from_ms(m.event_at), interval)
    };
    let mut before = meta
        .newest_in(i64::MIN, s)
        .filter(|m| filters.admits(m))
        .peekable();
    let mut after = meta.oldest_from(e).filter(|m| filters.admits(m)).peekable();
    while taken < CHANNEL_DEPTH {
        let pb = before.peek().map(|m| p_of(m)).unwrap_or(0.0);
        let pa = after.peek().map(|m| p_of(m)).unwrap_or(0.0);
        if pb.max(pa) <= TEMPORAL_MIN_PROXIMITY {
            return;
        }
        let m = if pb >= pa {
            before.next()
        } else {
            after.next()
        };
        if let Some(m) = m {
            keep(m, pb.max(pa));
            taken += 1;
        }
    }
}

pub(super) fn temporal(
    engine: &Engine,
    q: &Classified,
    filters: &Filters,
    now_ms: i64,
) -> Produced {
    if q.present_tense {
        // Newest first; captured prompts and bookkeeping are not what "I am working on" means.
        let rows = engine.with_meta(|meta| newest(meta, filters, now_ms))?;
        let n = rows.len().max(1) as f64;
        return Ok(Some(Hits(
            rows.iter()
                .enumerate()
                .map(|(i, (id, _))| (*id, 1.0 - i as f64 / n))
                .collect(),
        )));
    }
    if q.time.refs.is_empty() {
        return Ok(None);
    }
    let best = engine.with_meta(|meta| {
        let mut best = HashMap::new();
        for r in &q.time.refs {
            closest_to(meta, filters, &r.interval, &mut best);
        }
        best
    })?;
    let mut rows: Vec<(i64, f64, i64)> =
        best.into_iter().map(|(id, (p, at))| (id, p, at)).collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.2.cmp(&a.2)).then(b.0.cmp(&a.0)));
    rows.truncate(CHANNEL_DEPTH);
    Ok(Some(Hits(
        rows.into_iter().map(|(id, p, _)| (id, p)).collect(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MetaRow;

    fn row(id: i64, at: i64) -> MetaRow {
        MetaRow {
            bookkeeping: id % 7 == 0, // some rows the filters turn away
            ..crate::index::meta::test_row(id, at)
        }
    }

    /// The time index gives exactly what scanning every memory gave.
    #[test]
    fn the_time_index_finds_what_a_full_scan_finds() {
        let mut seed: u64 = 42;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        let day = 86_400_000i64;
        let mut meta = MetaMap::default();
        for id in 1..=3000 {
            meta.insert(id, row(id, (next() as i64 % (400 * day)) + 1));
        }
        let filters = Filters {
            profile: crate::DEFAULT_PROFILE.into(),
            ..Default::default()
        };
        for _ in 0..40 {
            let start = next() as i64 % (420 * day) - 10 * day;
            let len = [day / 24, day, 7 * day, 30 * day][next() as usize % 4];
            let iv = timeparse::Interval {
                start: crate::clock::from_ms(start),
                end: crate::clock::from_ms(start + len),
            };
            let mut best = HashMap::new();
            closest_to(&meta, &filters, &iv, &mut best);
            let mut got: Vec<(i64, f64, i64)> =
                best.into_iter().map(|(id, (p, at))| (id, p, at)).collect();
            let mut want: Vec<(i64, f64, i64)> = meta
                .values()
                .filter(|m| filters.admits(m))
                .map(|m| {
                    let p = timeparse::proximity(crate::clock::from_ms(m.event_at), &iv);
                    (m.id, p, m.event_at)
                })
                .filter(|r| r.1 > TEMPORAL_MIN_PROXIMITY)
                .collect();
            for v in [&mut got, &mut want] {
                v.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.2.cmp(&a.2)).then(b.0.cmp(&a.0)));
                v.truncate(CHANNEL_DEPTH);
            }
            assert_eq!(got, want, "interval {iv:?}");
        }
    }
}
