//! Unit tests of time parsing against a pinned clock (Wednesday 2023-05-10 12:00 UTC).

use super::calendar::{far_future, far_past};
use super::*;
use chrono::{TimeDelta, TimeZone};

/// Wednesday 2023-05-10 12:00 UTC.
fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2023, 5, 10, 12, 0, 0).unwrap()
}
fn at(y: i32, m: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, m, d, h, mi, 0).unwrap()
}
fn d(y: i32, m: u32, dd: u32) -> DateTime<Utc> {
    at(y, m, dd, 0, 0)
}
fn span(a: DateTime<Utc>, b: DateTime<Utc>) -> Interval {
    Interval { start: a, end: b }
}
fn days(y: i32, m: u32, dd: u32, n: i64) -> Interval {
    span(d(y, m, dd), d(y, m, dd) + TimeDelta::days(n))
}
fn refs(q: &str) -> Vec<Interval> {
    parse_query(q, now())
        .refs
        .iter()
        .map(|r| r.interval)
        .collect()
}
fn one(q: &str) -> Interval {
    let r = refs(q);
    assert_eq!(r.len(), 1, "{q:?} gave {r:?}");
    r[0]
}
fn upto_now(start: DateTime<Utc>) -> Interval {
    span(start, now() + TimeDelta::milliseconds(1))
}

#[test]
fn day_words() {
    assert_eq!(one("what did I do today?"), days(2023, 5, 10, 1));
    assert_eq!(one("Tonight's plan"), days(2023, 5, 10, 1));
    assert_eq!(one("notes from this morning"), days(2023, 5, 10, 1));
    assert_eq!(one("YESTERDAY."), days(2023, 5, 9, 1));
    assert_eq!(one("what did we eat last night"), days(2023, 5, 9, 1));
    assert_eq!(one("the day before yesterday"), days(2023, 5, 8, 1));
    assert_eq!(one("tomorrow"), days(2023, 5, 11, 1));
}

#[test]
fn weekdays() {
    let q = parse_query("What did we decide last Friday?", now());
    assert_eq!(q.refs.len(), 1);
    assert_eq!(q.refs[0].interval, days(2023, 5, 5, 1));
    assert_eq!(q.refs[0].matched, "last friday");
    assert_eq!(q.order, None);
    assert_eq!(one("what happened on Friday"), days(2023, 5, 5, 1));
    assert_eq!(
        one("on Wednesday"),
        days(2023, 5, 10, 1),
        "today counts for a bare weekday"
    );
    assert_eq!(
        one("last Wednesday"),
        days(2023, 5, 3, 1),
        "last is strictly before today"
    );
    assert_eq!(one("last Tuesday"), days(2023, 5, 9, 1));
    assert_eq!(one("this Friday"), days(2023, 5, 12, 1));
    assert_eq!(one("this Monday"), days(2023, 5, 8, 1));
    assert_eq!(
        one("next Friday"),
        days(2023, 5, 19, 1),
        "next means next week's"
    );
    assert_eq!(one("this past Sunday"), days(2023, 5, 7, 1));
}

#[test]
fn calendar_units() {
    assert_eq!(one("last week"), days(2023, 5, 1, 7));
    assert_eq!(one("this week"), days(2023, 5, 8, 7));
    assert_eq!(one("next week"), days(2023, 5, 15, 7));
    assert_eq!(one("last month"), span(d(2023, 4, 1), d(2023, 5, 1)));
    assert_eq!(one("this month"), span(d(2023, 5, 1), d(2023, 6, 1)));
    assert_eq!(one("last year"), span(d(2022, 1, 1), d(2023, 1, 1)));
    assert_eq!(one("this year"), span(d(2023, 1, 1), d(2024, 1, 1)));
    assert_eq!(one("last weekend"), days(2023, 5, 6, 2));
    assert_eq!(one("this weekend"), days(2023, 5, 13, 2));
    assert_eq!(one("over the weekend"), days(2023, 5, 6, 2));
    let jan = at(2023, 1, 15, 9, 0);
    assert_eq!(
        parse_query("last month", jan).refs[0].interval,
        span(d(2022, 12, 1), d(2023, 1, 1))
    );
}

#[test]
fn ago() {
    assert_eq!(one("3 days ago"), days(2023, 5, 7, 1));
    assert_eq!(one("three days ago"), days(2023, 5, 7, 1));
    assert_eq!(one("a week ago"), days(2023, 5, 1, 7));
    assert_eq!(one("two weeks ago"), days(2023, 4, 24, 7));
    assert_eq!(one("a month ago"), span(d(2023, 4, 1), d(2023, 5, 1)));
    assert_eq!(one("twelve months ago"), span(d(2022, 5, 1), d(2022, 6, 1)));
    assert_eq!(one("2 years ago"), span(d(2021, 1, 1), d(2022, 1, 1)));
    assert_eq!(one("a couple of days ago"), days(2023, 5, 7, 3));
    assert_eq!(one("a few weeks ago"), span(d(2023, 4, 10), d(2023, 5, 1)));
    assert_eq!(one("a fortnight ago"), days(2023, 4, 24, 7));
    let q = parse_query("what happened 99999999 days ago", now());
    assert!(q.refs.is_empty(), "absurd counts are not durations");
}

#[test]
fn rolling_spans() {
    assert_eq!(
        one("in the past 3 days"),
        upto_now(now() - TimeDelta::days(3))
    );
    assert_eq!(
        one("over the last two weeks"),
        upto_now(now() - TimeDelta::days(14))
    );
    assert_eq!(one("the past week"), upto_now(now() - TimeDelta::days(7)));
    assert_eq!(one("the last few months"), upto_now(at(2023, 2, 10, 12, 0)));
    assert_eq!(
        one("what have I been doing recently"),
        upto_now(now() - TimeDelta::days(RECENT_DAYS))
    );
    assert_eq!(
        one("lately"),
        upto_now(now() - TimeDelta::days(RECENT_DAYS))
    );
    assert_eq!(
        one("in the next 2 days"),
        span(now(), now() + TimeDelta::days(2))
    );
}

#[test]
fn months() {
    let may = span(d(2023, 5, 1), d(2023, 6, 1));
    assert_eq!(one("in May 2023"), may);
    assert_eq!(one("May 2023"), may);
    assert_eq!(one("may of 2023"), may);
    assert_eq!(
        one("what did we do in May"),
        may,
        "the current month has begun"
    );
    assert_eq!(
        one("in June"),
        span(d(2022, 6, 1), d(2022, 7, 1)),
        "not in the future"
    );
    assert_eq!(one("since January"), upto_now(d(2023, 1, 1)));
    assert_eq!(one("early May 2023"), days(2023, 5, 1, 10));
    assert_eq!(one("mid-May 2023"), days(2023, 5, 11, 10));
    assert_eq!(one("late May 2023"), days(2023, 5, 21, 11));
    assert_eq!(one("late february 2023"), days(2023, 2, 21, 8));
    assert_eq!(one("the end of April"), days(2023, 4, 21, 10));
    assert_eq!(one("early 2022"), span(d(2022, 1, 1), d(2022, 5, 1)));
    assert_eq!(one("last May"), span(d(2022, 5, 1), d(2022, 6, 1)));
    assert_eq!(one("next March"), span(d(2024, 3, 1), d(2024, 4, 1)));
    assert_eq!(one("sept 2021"), span(d(2021, 9, 1), d(2021, 10, 1)));
    assert!(refs("You may go now").is_empty());
    assert!(refs("Did June call?").is_empty());
    assert!(refs("we march on").is_empty());
}

#[test]
fn years() {
    let y22 = span(d(2022, 1, 1), d(2023, 1, 1));
    assert_eq!(one("what happened in 2022"), y22);
    assert_eq!(one("during 2022?"), y22);
    assert_eq!(one("the year 2022"), y22);
    assert_eq!(one("since 2022"), upto_now(d(2022, 1, 1)));
    assert!(refs("I have 2022 apples").is_empty());
    assert!(refs("room 1999").is_empty());
    assert!(
        refs("in 1850").is_empty(),
        "outside {YEAR_MIN}..={YEAR_MAX}"
    );
    assert!(refs("in 99999999").is_empty());
}

#[test]
fn explicit_dates() {
    let day = days(2023, 5, 8, 1);
    for q in [
        "on 2023-05-08",
        "8 May 2023",
        "8 May, 2023",
        "May 8, 2023",
        "May 8th",
        "the 8th of May",
        "05/08/2023",
        "5/8/2023",
        "2023/05/08",
        "8th of May 2023",
    ] {
        assert_eq!(one(q), day, "{q}");
    }
    assert_eq!(one("May 12"), days(2023, 5, 12, 1), "nearest occurrence");
    assert_eq!(one("Dec 25"), days(2022, 12, 25, 1));
    assert_eq!(one("in 2023-04"), span(d(2023, 4, 1), d(2023, 5, 1)));
    assert!(refs("on 2023-02-30").is_empty());
    assert!(refs("13/45/2023").is_empty());
}

#[test]
fn since_before_after_between() {
    let q = parse_query("what happened before May 2023?", now());
    assert_eq!(q.order, Some(EventOrder::Before));
    assert_eq!(q.refs.len(), 1);
    assert_eq!(q.refs[0].interval, span(far_past(), d(2023, 5, 1)));
    assert_eq!(q.refs[0].matched, "before may 2023");
    let q = parse_query("what did we do after last Friday", now());
    assert_eq!(q.order, Some(EventOrder::After));
    assert_eq!(q.refs[0].interval, upto_now(d(2023, 5, 6)));
    assert_eq!(
        parse_query("after next week", now()).refs[0].interval,
        span(d(2023, 5, 22), far_future())
    );
    assert_eq!(one("since yesterday"), upto_now(d(2023, 5, 9)));
    assert_eq!(one("since 2023-05-01"), upto_now(d(2023, 5, 1)));
    assert_eq!(
        one("since tomorrow"),
        days(2023, 5, 11, 1),
        "an empty side falls back to X"
    );
    assert_eq!(one("until 2022"), span(far_past(), d(2023, 1, 1)));
    assert_eq!(
        one("between March and April 2023"),
        span(d(2023, 3, 1), d(2023, 5, 1))
    );
    assert_eq!(
        parse_query("what did she do before the wedding", now()).order,
        Some(EventOrder::Before)
    );
    assert_eq!(parse_query("the day before yesterday", now()).order, None);
}

#[test]
fn spans_beside_an_anchor() {
    assert_eq!(one("the week before 9 June 2023"), days(2023, 6, 2, 7));
    assert_eq!(one("two days after 2023-05-01"), days(2023, 5, 2, 2));
    assert_eq!(one("a couple of days before May 8th"), days(2023, 5, 6, 2));
    let q = parse_query("what did she visit after the summer of 2022?", now());
    assert_eq!(q.refs[0].interval, upto_now(d(2022, 9, 1)));
    assert_eq!(q.refs[0].matched, "after the summer of 2022");
    assert_eq!(refs("In 2021 or 2022?").len(), 2);
    let o = |s: &str| parse_query(s, now()).order;
    assert_eq!(
        o("What did John say in his last message?"),
        Some(EventOrder::Latest)
    );
}

#[test]
fn seasons() {
    assert_eq!(one("last summer"), span(d(2022, 6, 1), d(2022, 9, 1)));
    assert_eq!(one("this summer"), span(d(2023, 6, 1), d(2023, 9, 1)));
    assert_eq!(one("this spring"), span(d(2023, 3, 1), d(2023, 6, 1)));
    assert_eq!(one("last winter"), span(d(2022, 12, 1), d(2023, 3, 1)));
    assert_eq!(one("next winter"), span(d(2023, 12, 1), d(2024, 3, 1)));
    assert_eq!(
        one("the summer of 2021"),
        span(d(2021, 6, 1), d(2021, 9, 1))
    );
    assert_eq!(one("in the fall"), span(d(2022, 9, 1), d(2022, 12, 1)));
    assert!(refs("did she fall?").is_empty());
    let oct = at(2023, 10, 2, 0, 0);
    assert_eq!(
        parse_query("last summer", oct).refs[0].interval,
        span(d(2023, 6, 1), d(2023, 9, 1))
    );
}

#[test]
fn asks_when_and_order() {
    let q = parse_query("When did Caroline go to the LGBTQ support group?", now());
    assert!(q.asks_when && q.refs.is_empty() && q.order.is_none());
    for s in [
        "What date was the party?",
        "what year did she move",
        "How long ago did he quit?",
        "How long has she lived there",
        "in which month was it",
        "how many years ago did we meet",
    ] {
        assert!(parse_query(s, now()).asks_when, "{s}");
    }
    for s in [
        "What did she say when she arrived",
        "what did we decide",
        "How long did the trip last",
    ] {
        assert!(!parse_query(s, now()).asks_when, "{s}");
    }
    let o = |s: &str| parse_query(s, now()).order;
    assert_eq!(
        o("What was the first book she read?"),
        Some(EventOrder::Earliest)
    );
    assert_eq!(
        o("earliest memory of the beach"),
        Some(EventOrder::Earliest)
    );
    assert_eq!(
        o("When was the last time we met?"),
        Some(EventOrder::Latest)
    );
    assert_eq!(o("her latest project"), Some(EventOrder::Latest));
    assert_eq!(o("the most recent deploy"), Some(EventOrder::Latest));
    assert_eq!(o("the last book he mentioned"), Some(EventOrder::Latest));
    assert_eq!(o("after the move, what changed"), Some(EventOrder::After));
    assert_eq!(
        o("In what order did they visit the cities?"),
        Some(EventOrder::Sequence)
    );
    assert_eq!(o("the sequence of events"), Some(EventOrder::Sequence));
    assert_eq!(o("last week"), None);
}

#[test]
fn several_refs_in_one_query() {
    let q = parse_query(
        "Did we talk yesterday or on 2023-05-01, or in May 2022?",
        now(),
    );
    let m: Vec<&str> = q.refs.iter().map(|r| r.matched.as_str()).collect();
    assert_eq!(m, ["yesterday", "2023-05-01", "may 2022"]);
    assert_eq!(
        refs("yesterday and yesterday again").len(),
        1,
        "duplicates collapse"
    );
}

#[test]
fn points() {
    let p = |s: &str| parse_point(s, now());
    assert_eq!(p("2023-05-08T13:56:00Z").unwrap(), at(2023, 5, 8, 13, 56));
    assert_eq!(
        p("2023-05-08T15:56:00+02:00").unwrap(),
        at(2023, 5, 8, 13, 56)
    );
    assert_eq!(p("2023-05-08T13:56Z").unwrap(), at(2023, 5, 8, 13, 56));
    assert_eq!(p("2023-05-08T08:56-05:00").unwrap(), at(2023, 5, 8, 13, 56));
    assert_eq!(p("2023-05-08 13:56").unwrap(), at(2023, 5, 8, 13, 56));
    assert_eq!(p("2023-05-08T13:56").unwrap(), at(2023, 5, 8, 13, 56));
    assert_eq!(
        p("2023-05-08 13:56:30.250").unwrap(),
        at(2023, 5, 8, 13, 56) + TimeDelta::milliseconds(30_250)
    );
    assert_eq!(p("2023-05-08").unwrap(), d(2023, 5, 8));
    assert_eq!(p("2023-05").unwrap(), d(2023, 5, 1));
    assert_eq!(p("2023").unwrap(), d(2023, 1, 1));
    assert_eq!(p("1:56 pm on 8 May, 2023").unwrap(), at(2023, 5, 8, 13, 56));
    assert_eq!(
        p("10:00 am on 3 March, 2024").unwrap(),
        at(2024, 3, 3, 10, 0)
    );
    assert_eq!(
        p("12:30 am on 1 June, 2023").unwrap(),
        at(2023, 6, 1, 0, 30)
    );
    assert_eq!(p("May 8, 2023 at 13:56").unwrap(), at(2023, 5, 8, 13, 56));
    assert_eq!(p("8 May, 2023").unwrap(), d(2023, 5, 8));
    assert_eq!(p("May 8, 2023").unwrap(), d(2023, 5, 8));
    assert_eq!(p("8 May 2023").unwrap(), d(2023, 5, 8));
    assert_eq!(p("May 2023").unwrap(), d(2023, 5, 1));
    assert_eq!(p(" now ").unwrap(), now());
    assert_eq!(p("Today").unwrap(), d(2023, 5, 10));
    assert_eq!(p("yesterday").unwrap(), d(2023, 5, 9));
    assert_eq!(p("last friday").unwrap(), d(2023, 5, 5));
    assert_eq!(p("3d ago").unwrap(), now() - TimeDelta::days(3));
    assert_eq!(p("2 weeks ago").unwrap(), now() - TimeDelta::days(14));
    assert_eq!(p("a month ago").unwrap(), at(2023, 4, 10, 12, 0));
}

#[test]
fn point_errors() {
    for s in [
        "",
        "   ",
        "blursday",
        "x",
        "13:00 pm on 8 May, 2023",
        "1:56 pm on May 2023",
        "ago",
        "🐙 ago",
        "2023-13",
        "in 99999999",
    ] {
        let e = parse_point(s, now()).unwrap_err().to_string();
        assert!(
            e.contains("expected a date like 2024-01-31 or 2024-01-31T09:00Z"),
            "{s:?}: {e}"
        );
    }
    let e = parse_point("32/13/2020", now()).unwrap_err().to_string();
    assert!(
        e.starts_with("\"32/13/2020\" is not a calendar date"),
        "{e}"
    );
    assert!(parse_point("2023-02-29", now()).is_err());
    assert!(parse_point("2024-02-29", now()).is_ok());
}

#[test]
fn periods() {
    let p = |s: &str| parse_period(s, now()).unwrap();
    assert_eq!(p("2023-05"), span(d(2023, 5, 1), d(2023, 6, 1)));
    assert_eq!(p("2023-05-08"), days(2023, 5, 8, 1));
    assert_eq!(p("2023"), span(d(2023, 1, 1), d(2024, 1, 1)));
    assert_eq!(p("8 May, 2023"), days(2023, 5, 8, 1));
    assert_eq!(p("May 2023"), span(d(2023, 5, 1), d(2023, 6, 1)));
    assert_eq!(p("last week"), days(2023, 5, 1, 7));
    assert_eq!(
        p("2023-05-08T13:56Z"),
        span(at(2023, 5, 8, 13, 56), at(2023, 5, 8, 13, 57))
    );
}

#[test]
fn windows() {
    let w = |s: &str| parse_window(s, now());
    assert_eq!(w("7d").unwrap(), upto_now(now() - TimeDelta::days(7)));
    assert_eq!(w("12h").unwrap(), upto_now(now() - TimeDelta::hours(12)));
    assert_eq!(w("2w").unwrap(), upto_now(now() - TimeDelta::days(14)));
    assert_eq!(w("3m").unwrap(), upto_now(at(2023, 2, 10, 12, 0)));
    assert_eq!(w("1y").unwrap(), upto_now(at(2022, 5, 10, 12, 0)));
    assert_eq!(
        w("30min").unwrap(),
        upto_now(now() - TimeDelta::minutes(30))
    );
    assert_eq!(w("2 weeks").unwrap(), upto_now(now() - TimeDelta::days(14)));
    assert_eq!(
        w("2024-01-01..2024-02-01").unwrap(),
        span(d(2024, 1, 1), d(2024, 2, 1))
    );
    assert_eq!(w("..2024-02-01").unwrap(), span(far_past(), d(2024, 2, 1)));
    assert_eq!(
        w("2024-01-01..").unwrap(),
        span(d(2024, 1, 1), far_future())
    );
    assert_eq!(w("2023-05-01..now").unwrap(), span(d(2023, 5, 1), now()));
    assert_eq!(w("2024-03").unwrap(), span(d(2024, 3, 1), d(2024, 4, 1)));
    assert_eq!(w("yesterday").unwrap(), days(2023, 5, 9, 1));
    assert_eq!(w("2023").unwrap(), span(d(2023, 1, 1), d(2024, 1, 1)));
    for s in ["", "fortnight-ish", "soon", "7", "-7d", "..", "🐙"] {
        let e = w(s).unwrap_err().to_string();
        assert!(e.contains("expected a window like 7d"), "{s:?}: {e}");
    }
    let e = w("2024-02-01..2024-01-01").unwrap_err().to_string();
    assert!(e.contains("ends before it starts"), "{e}");
    let e = w("2024-01-01..soon").unwrap_err().to_string();
    assert!(e.starts_with("range end \"soon\": expected a date"), "{e}");
    assert!(w("999999y").is_err(), "counts above MAX_COUNT are refused");
    assert!(w("99999y").is_ok(), "still inside the calendar");
}

#[test]
fn proximity_decays_with_distance_relative_to_length() {
    let day = days(2023, 5, 5, 1);
    assert_eq!(proximity(at(2023, 5, 5, 15, 0), &day), 1.0);
    assert_eq!(proximity(d(2023, 5, 5), &day), 1.0);
    assert!(
        (proximity(d(2023, 5, 7), &day) - 0.5).abs() < 1e-9,
        "one day past the end halves it"
    );
    let mut last = 1.0;
    for k in 1..60 {
        let p = proximity(day.end + TimeDelta::hours(k * 6), &day);
        assert!(p < last && p > 0.0, "{k}: {p}");
        last = p;
    }
    let before = proximity(day.start - TimeDelta::days(1), &day);
    assert!((before - 0.5).abs() < 1e-9);
    let month = span(d(2023, 4, 1), d(2023, 5, 1));
    let two_weeks = proximity(d(2023, 5, 15), &month);
    assert!(two_weeks > 0.6 && two_weeks < 0.8, "{two_weeks}");
    assert!(proximity(d(2023, 5, 15), &day) < 0.01);
    let hour = span(at(2023, 5, 5, 9, 0), at(2023, 5, 5, 10, 0));
    assert!(
        proximity(at(2023, 5, 5, 15, 0), &hour) > 0.8,
        "short intervals keep a one-day half-life"
    );
    let empty = span(d(2023, 5, 5), d(2023, 5, 5));
    assert!((0.0..=1.0).contains(&proximity(d(2023, 5, 5), &empty)));
    let inverted = span(d(2023, 5, 6), d(2023, 5, 5));
    assert!((0.0..=1.0).contains(&proximity(d(2023, 5, 1), &inverted)));
    let far = proximity(DateTime::<Utc>::MAX_UTC, &day);
    assert!((0.0..=1.0).contains(&far));
}

#[test]
fn odd_inputs_never_panic() {
    let long = "last ".repeat(5000);
    let words = "since before after between and the last this next past a few couple of 3 99999999 days weeks months ago in may 2023 8th friday summer fall early mid late end 🐙 ago 05/08/2023 2023-05-08 0/0/0 --- :: // .. yesterday today 12:99 pm on 31 february 2023";
    let mut odd: Vec<String> = [
        "",
        "   ",
        "in 99999999",
        "last",
        "🐙 ago",
        "ago",
        "of may",
        "31 february 2023",
        "9999-99-99",
        "0000-00-00T00:00Z",
        "1:1:1:1 on 1 may 2023",
        "-",
        "..",
        "...",
        "a..b..c",
        "99999999999999999999d",
        "\u{0}",
        "İİİ",
        "ß",
        "2023-05-08T13:56:00+99:99",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    odd.push(long);
    odd.push("🐙".repeat(10_000));
    let vocab: Vec<&str> = words.split(' ').collect();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..3000 {
        let len = (seed % 7) as usize + 1;
        let mut s = Vec::new();
        for _ in 0..len {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            s.push(vocab[(seed >> 33) as usize % vocab.len()]);
        }
        odd.push(s.join(" "));
    }
    let clocks = [
        now(),
        DateTime::<Utc>::MIN_UTC,
        DateTime::<Utc>::MAX_UTC,
        d(1, 1, 1),
        at(2024, 2, 29, 23, 59),
    ];
    for c in clocks {
        for s in &odd {
            let q = parse_query(s, c);
            for r in &q.refs {
                assert!(r.interval.start < r.interval.end, "{s:?}");
                let p = proximity(c, &r.interval);
                assert!((0.0..=1.0).contains(&p));
            }
            let _ = parse_point(s, c);
            let _ = parse_window(s, c);
            if let Ok(i) = parse_period(s, c) {
                assert!(i.start < i.end, "{s:?}");
            }
        }
    }
}
