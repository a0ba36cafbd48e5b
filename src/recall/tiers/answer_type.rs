//! The kind of answer a question asks for, when its words say so plainly, and whether a
//! memory holds anything of that kind (the expected answer type of classic question
//! answering). "How much does Grafana Cloud cost us?" is not answered by "We chose Grafana
//! Cloud over Datadog, mainly because of price": the memory is on the topic and shares the
//! rare words, but it states no amount. Only three kinds are told, those a memory either
//! holds in plain sight or does not:
//!
//! * **money** — a price, cost, budget, fee, salary or refund: the memory needs a currency
//!   sign or word ("$40", "1,200 EUR", "30 dollars");
//! * **version** — "which version…": a version number ("2.11", "v3");
//! * **quantity** — "how many…", "how much…" (not money), "what port…": a number other than a
//!   date or a clock time ("7 days", "port 8443", "three nodes", "twice").
//!
//! Counting questions are left alone: "How many times…" and "How many X has Y…" ask for a
//! count of events, which no single memory states (the memories that are the events are the
//! answer). Every other question expects nothing, and every memory passes.

use crate::text;

/// What a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Expected {
    Money,
    Version,
    Quantity,
}

/// Nouns that make a "what"/"which"/"how much" question one about money ("What is the
/// budget…", "what price…").
const MONEY_NOUNS: &[&str] = &[
    "cost", "costs", "price", "prices", "budget", "budgets", "salary", "fee", "fees",
];
/// Verbs that do so only after "how much" ("How much did we spend…"): after "what" they are
/// about anything ("What does she spend her weekends on?").
const MONEY_VERBS: &[&str] = &[
    "pay", "paid", "spend", "spent", "charge", "charged", "refund", "refunded", "priced", "worth",
];
/// Words after "how much" that ask for an amount of something other than money ("How much
/// time do we spend…").
const NOT_MONEY: &[&str] = &["time", "longer", "later", "earlier", "more", "less"];
/// Currency words a memory can state an amount in (signs are checked separately).
const CURRENCY_WORDS: &[&str] = &[
    "dollar", "dollars", "euro", "euros", "pound", "pounds", "usd", "eur", "gbp", "chf", "cent",
    "cents", "bucks", "yen",
];
const CURRENCY_SIGNS: &[char] = &['$', '€', '£', '¥'];
/// Number words a memory can state a quantity in.
const NUMBER_WORDS: &[&str] = &[
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
    "ninety",
    "hundred",
    "thousand",
    "million",
    "billion",
    "dozen",
    "dozens",
    "half",
    "once",
    "twice",
    "thrice",
    "couple",
    "single",
    "double",
    "triple",
    "none",
    "zero",
];
const MONTHS: &[&str] = &[
    "jan",
    "january",
    "feb",
    "february",
    "mar",
    "march",
    "apr",
    "april",
    "may",
    "jun",
    "june",
    "jul",
    "july",
    "aug",
    "august",
    "sep",
    "sept",
    "september",
    "oct",
    "october",
    "nov",
    "november",
    "dec",
    "december",
];
/// Verbs of feeling: "How much does she like painting?" asks for a degree, not a number.
const DEGREE_VERBS: &[&str] = &[
    "like",
    "likes",
    "love",
    "loves",
    "enjoy",
    "enjoys",
    "care",
    "cares",
    "hate",
    "hates",
    "miss",
    "misses",
    "mean",
    "means",
    "matter",
    "matters",
    "appreciate",
    "want",
    "wants",
    "trust",
    "prefer",
    "help",
    "helped",
    "helps",
];
/// Auxiliaries after "how many <noun>" that make it a count of events ("How many hikes has
/// Joanna been on?") rather than a stated number ("How many nodes do we run?").
const EVENT_COUNT_AUX: &[&str] = &["has", "have", "had"];

/// What the question asks for, if its words say so plainly.
pub fn expected(question: &str) -> Option<Expected> {
    let w = text::words(question);
    let w: Vec<&str> = w.iter().map(String::as_str).collect();
    let has = |set: &[&str]| w.iter().any(|x| set.contains(x));
    let starts = |a: &str, b: &str| w.len() >= 2 && w[0] == a && w[1] == b;
    if w.windows(2)
        .any(|p| matches!(p[0], "which" | "what") && p[1] == "version")
    {
        return Some(Expected::Version);
    }
    let how_much = starts("how", "much");
    let what = matches!(w.first(), Some(&("what" | "which" | "what's")));
    let money_noun = has(MONEY_NOUNS) || question.to_lowercase().contains("dollar value");
    if (what && money_noun)
        || (how_much
            && !w.get(2).is_some_and(|x| NOT_MONEY.contains(x))
            && (money_noun || has(MONEY_VERBS)))
    {
        return Some(Expected::Money);
    }
    if (how_much && !has(DEGREE_VERBS)) || w.windows(2).any(|p| p[0] == "what" && p[1] == "port") {
        return Some(Expected::Quantity);
    }
    if starts("how", "many") {
        // "how many times…", or "how many <noun…> has/have/had…": a count of events.
        let rest = &w[2..];
        if rest.first() == Some(&"times") {
            return None;
        }
        let aux = rest.iter().find(|x| {
            EVENT_COUNT_AUX.contains(x) || matches!(**x, "do" | "does" | "did" | "are" | "is")
        });
        if aux.is_some_and(|a| EVENT_COUNT_AUX.contains(a)) {
            return None;
        }
        return Some(Expected::Quantity);
    }
    None
}

/// Whether `memory` holds an answer of the `expected` kind.
pub fn carries(expected: Expected, memory: &str) -> bool {
    let tokens: Vec<String> = memory
        .split(|c: char| c.is_whitespace())
        .map(|t| {
            t.trim_matches(|c: char| !c.is_alphanumeric() && !CURRENCY_SIGNS.contains(&c))
                .to_lowercase()
        })
        .filter(|t| !t.is_empty())
        .collect();
    match expected {
        Expected::Money => {
            memory.contains(CURRENCY_SIGNS)
                || tokens.iter().any(|t| CURRENCY_WORDS.contains(&t.as_str()))
        }
        Expected::Version => tokens.iter().any(|t| is_version(t)),
        Expected::Quantity => tokens.iter().enumerate().any(|(i, t)| {
            if NUMBER_WORDS.contains(&t.as_str()) {
                return true;
            }
            if !t.chars().any(|c| c.is_ascii_digit()) {
                return false;
            }
            let near_month = |j: Option<usize>| {
                j.and_then(|j| tokens.get(j))
                    .is_some_and(|n| MONTHS.contains(&n.as_str()))
            };
            !(is_year(t)
                || is_clock_or_iso_date(t)
                || is_quarter(t)
                || (is_day(t) && (near_month(i.checked_sub(1)) || near_month(Some(i + 1)))))
        }),
    }
}

/// "2.11", "0.76", "v3", "v1.2.0".
fn is_version(t: &str) -> bool {
    let digits = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit());
    match t.strip_prefix('v') {
        Some(rest) => rest.split('.').all(digits),
        None => t.contains('.') && t.split('.').all(digits),
    }
}

fn is_year(t: &str) -> bool {
    t.len() == 4
        && t.chars().all(|c| c.is_ascii_digit())
        && (t.starts_with("19") || t.starts_with("20"))
}

fn is_clock_or_iso_date(t: &str) -> bool {
    let digits_and =
        |sep: char| t.contains(sep) && t.chars().all(|c| c.is_ascii_digit() || c == sep);
    digits_and(':') || (digits_and('-') && t.len() == 10)
}

fn is_quarter(t: &str) -> bool {
    t.len() == 2 && t.starts_with('q') && matches!(t.as_bytes()[1], b'1'..=b'4')
}

/// 1–31, or 1st … 31st.
fn is_day(t: &str) -> bool {
    let n = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &t[n.len()..];
    matches!(suffix, "" | "st" | "nd" | "rd" | "th")
        && n.parse::<u32>().is_ok_and(|d| (1..=31).contains(&d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_that_ask_for_an_amount_a_version_or_a_number() {
        let cases = [
            (
                "how much does Grafana Cloud cost us per month?",
                Some(Expected::Money),
            ),
            (
                "What price per robot did they agree to?",
                Some(Expected::Money),
            ),
            (
                "what's the budget for the Lisbon offsite",
                Some(Expected::Money),
            ),
            (
                "What is the dollar value of the Acme contract?",
                Some(Expected::Money),
            ),
            (
                "Which version of Redis are we running?",
                Some(Expected::Version),
            ),
            (
                "How much power does a charging dock draw?",
                Some(Expected::Quantity),
            ),
            (
                "What port does the API gateway listen on?",
                Some(Expected::Quantity),
            ),
            (
                "How many ClickHouse nodes do we run?",
                Some(Expected::Quantity),
            ),
            (
                "how many engineers are on the mobile team?",
                Some(Expected::Quantity),
            ),
            // Counts of events: the memories that are the events answer them.
            ("How many times has Joanna found new hiking trails?", None),
            ("How many hikes has Joanna been on?", None),
            ("How many letters has Joanna received?", None),
            // Nothing of a kind asked for.
            ("what database holds user sessions now?", None),
            ("Why did the cloud bill jump in February?", None),
            ("What did Melanie paint?", None),
            ("What does Caroline spend her weekends on?", None),
            ("What was worth the wait?", None),
            ("How much does Melanie like painting?", None),
            (
                "How much time do we spend in meetings?",
                Some(Expected::Quantity),
            ),
            (
                "How much did we spend on the offsite?",
                Some(Expected::Money),
            ),
            ("when do we deploy?", None),
        ];
        for (q, want) in cases {
            assert_eq!(expected(q), want, "{q}");
        }
    }

    #[test]
    fn a_memory_holds_an_answer_of_the_kind_or_not() {
        let money = Expected::Money;
        assert!(carries(money, "The offsite budget is $40k."));
        assert!(carries(money, "Opsgenie costs us 1,200 EUR a year."));
        assert!(carries(money, "Kestrel's Series B closed at €38M."));
        assert!(!carries(
            money,
            "We chose Grafana Cloud over Datadog, mainly because of price. Decided on 3 March."
        ));
        let version = Expected::Version;
        assert!(carries(
            version,
            "The search service runs OpenSearch 2.11 on three nodes."
        ));
        assert!(carries(version, "We pinned the client to v3."));
        assert!(!carries(
            version,
            "Redis is still used for rate-limit counters."
        ));
        let qty = Expected::Quantity;
        assert!(carries(
            qty,
            "Kafka retention for the events topic is 7 days."
        ));
        assert!(carries(qty, "The API gateway listens on port 8443."));
        assert!(carries(qty, "The rotation has four people."));
        // Dates, years, clock times and quarters are not quantities.
        assert!(!carries(qty, "The change shipped on 12 February 2026."));
        assert!(!carries(
            qty,
            "Deploys go out on Tuesdays after 10:00, starting March 3rd."
        ));
        assert!(!carries(qty, "Planned for Q3; see 2026-02-12."));
        assert!(!carries(
            qty,
            "We plan to migrate CI from Jenkins to GitHub Actions."
        ));
    }
}
