//! The vocabulary of time phrases: splitting text into words, and reading numbers,
//! weekdays, months, days, years and seasons, with which occurrence ("last", "this",
//! "next") of a named weekday, month or season a phrase means.

use chrono::{Datelike, NaiveDate};

use super::calendar::{add_days, day_start, months_iv};
use super::{COUPLE, FEW, Interval, MAX_COUNT, YEAR_MAX, YEAR_MIN};

/// Lower-cased words; '-', '/' and ':' stay inside dates and times ("2023-05-08",
/// "05/08/2023") but split ordinary hyphenated words ("mid-May" → "mid", "may").
pub(super) fn tokens(s: &str) -> Vec<String> {
    let keep = |c: char| matches!(c, '-' | '/' | ':');
    let mut out = Vec::new();
    for raw in s
        .to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || keep(c)))
    {
        let w = raw.trim_matches(keep);
        if w.is_empty() {
            continue;
        }
        if w.contains('-') && !w.bytes().any(|b| b.is_ascii_digit()) {
            out.extend(w.split('-').filter(|p| !p.is_empty()).map(str::to_string));
        } else {
            out.push(w.to_string());
        }
    }
    out
}

pub(super) fn tok(t: &[String], i: usize) -> &str {
    t.get(i).map_or("", String::as_str)
}

pub(super) fn prev(t: &[String], i: usize) -> &str {
    i.checked_sub(1).map_or("", |j| tok(t, j))
}

/// Whether the words of `phrase` occur consecutively in `t`.
pub(super) fn has_phrase(t: &[String], phrase: &str) -> bool {
    let p: Vec<&str> = phrase.split_whitespace().collect();
    !p.is_empty()
        && t.windows(p.len())
            .any(|w| w.iter().zip(&p).all(|(a, b)| a == b))
}

pub(super) fn number_word(w: &str) -> Option<i64> {
    #[rustfmt::skip]
    const WORDS: [&str; 21] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
        "nineteen", "twenty",
    ];
    if let Some(n) = WORDS.iter().position(|x| *x == w) {
        return i64::try_from(n).ok();
    }
    if w == "thirty" {
        return Some(30);
    }
    if w.is_empty() || w.len() > 6 || !w.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    w.parse::<i64>().ok().filter(|n| *n <= MAX_COUNT)
}

/// A count at `t[i..]`: (value, whether it is vague, words used). "a week", "two weeks",
/// "a couple of days", "a few weeks", "several months".
pub(super) fn count_at(t: &[String], i: usize) -> Option<(i64, bool, usize)> {
    let a = usize::from(matches!(tok(t, i), "a" | "an"));
    let w = tok(t, i + a);
    let (n, fuzzy) = match w {
        "couple" => (COUPLE, true),
        "few" | "several" => (FEW, true),
        _ if a == 1 => return Some((1, false, 1)),
        _ => (number_word(w)?, false),
    };
    let of = usize::from(w == "couple" && tok(t, i + a + 1) == "of");
    Some((n, fuzzy, a + 1 + of))
}

/// Days from Monday.
pub(super) fn weekday_word(w: &str) -> Option<i64> {
    #[rustfmt::skip]
    const NAMES: [&str; 7] = [
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    ];
    NAMES
        .iter()
        .position(|d| *d == w)
        .and_then(|i| i64::try_from(i).ok())
}

/// Full names, and the usual abbreviations ("jan", "sept").
pub(super) fn month_word(w: &str) -> Option<u32> {
    #[rustfmt::skip]
    const NAMES: [&str; 12] = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september",
        "october", "november", "december",
    ];
    let abbrev = |m: &str| (w.len() == 3 || w == "sept") && m.starts_with(w);
    let i = NAMES.iter().position(|m| *m == w || abbrev(m))?;
    u32::try_from(i + 1).ok()
}

/// Words before a month name that show it is a month: "may", "march" and "june" are also
/// a verb, a verb and a name, so a bare month word with no day or year beside it needs one.
pub(super) const MONTH_CUES: &[&str] = &[
    "in", "of", "during", "since", "before", "after", "until", "till", "by", "from", "between",
    "and", "to", "through", "around", "on", "early", "mid", "late", "or",
];
/// Words before a bare 4-digit number that make it a year ("in 2022", "since 2019").
pub(super) const YEAR_CUES: &[&str] = &[
    "in", "during", "since", "of", "from", "by", "before", "after", "until", "till", "year",
    "between", "and", "to", "through", "around", "or",
];

pub(super) fn day_word(w: &str) -> Option<u32> {
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| w.strip_suffix(s))
        .unwrap_or(w);
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u32>().ok().filter(|d| (1..=31).contains(d))
}

pub(super) fn year_word(w: &str) -> Option<i32> {
    if w.len() != 4 || !w.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    w.parse::<i32>()
        .ok()
        .filter(|y| (YEAR_MIN..=YEAR_MAX).contains(y))
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Season {
    Spring,
    Summer,
    Autumn,
    Winter,
}

pub(super) fn season_word(w: &str) -> Option<Season> {
    Some(match w {
        "spring" => Season::Spring,
        "summer" => Season::Summer,
        "autumn" | "fall" => Season::Autumn,
        "winter" => Season::Winter,
        _ => return None,
    })
}

pub(super) fn season_iv(s: Season, y: i32) -> Option<Interval> {
    let m = match s {
        Season::Spring => 3,
        Season::Summer => 6,
        Season::Autumn => 9,
        Season::Winter => 12,
    };
    months_iv(y, m, 3)
}

/// Which occurrence of a weekday, month or season a phrase means.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Rel {
    /// Bare ("on Friday", "in May"): the latest one that has begun by today.
    Recent,
    /// "last": the latest one that is wholly before today (for months: before this month).
    Last,
    /// "this": the one in the current week or year.
    This,
    /// "next": the one in the next week; for months and seasons, the first one to begin after today.
    Next,
}

pub(super) fn weekday_rel(today: NaiveDate, want: i64, rel: Rel) -> Option<NaiveDate> {
    let cur = i64::from(today.weekday().num_days_from_monday());
    add_days(
        today,
        match rel {
            Rel::Recent => -(cur - want).rem_euclid(7),
            Rel::Last => -((cur - want - 1).rem_euclid(7) + 1),
            Rel::This => want - cur,
            Rel::Next => 7 + want - cur,
        },
    )
}

pub(super) fn month_rel(today: NaiveDate, m: u32, rel: Rel) -> Option<Interval> {
    let (y, cur) = (today.year(), today.month());
    let y = match rel {
        Rel::Recent if m > cur => y - 1,
        Rel::Last if m >= cur => y - 1,
        Rel::Next if m <= cur => y + 1,
        _ => y,
    };
    months_iv(y, m, 1)
}

pub(super) fn season_rel(today: NaiveDate, s: Season, rel: Rel) -> Option<Interval> {
    let t = day_start(today);
    let all: Vec<Interval> = (-2..=1)
        .filter_map(|k| season_iv(s, today.year() + k))
        .collect();
    match rel {
        Rel::Recent => all.iter().rev().find(|i| i.start <= t).copied(),
        Rel::Last => all.iter().rev().find(|i| i.end <= t).copied(),
        Rel::This => all
            .iter()
            .find(|i| i.contains(t))
            .copied()
            .or_else(|| season_iv(s, today.year())),
        Rel::Next => all.iter().find(|i| i.start > t).copied(),
    }
}
