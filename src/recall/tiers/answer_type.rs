//! The kind of answer a question asks for, when its words say so plainly, and whether a
//! memory holds anything of that kind (the expected answer type of classic question
//! answering). "How much does Grafana Cloud cost us?" is not answered by "We chose Grafana
//! Cloud over Datadog, mainly because of price": the memory is on the topic and shares the
//! rare words, but it states no amount. Only three kinds are told, those a memory either
//! holds in plain sight or does not:
//!
//! * **money** — "how much does it cost / did we pay", "what is the budget / price / fee":
//!   the memory needs an amount ("$40", "1,200 EUR", "40k", "€38M") or says it is free;
//! * **version** — "which version of…": a version number ("2.11", "v3", "Redis 7");
//! * **quantity** — "how many…", "how much <something>…", "what port…": a number that is not
//!   a date, a year, a clock time or a quarter ("7 days", "port 8443", "three nodes").
//!
//! Counts of events are left alone: "How many times…", "How many hikes has she been on?",
//! "How many concerts did she attend?" ask for a count no single memory states (the
//! memories that are the events are the answer). So are degrees ("How much does she like
//! it?"). Every other question expects nothing, and every memory passes. The rules lean
//! towards passing: a memory wrongly taken to hold a number is only as before.

use crate::text;

/// What a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Expected {
    Money,
    Version,
    Quantity,
}

/// Nouns that make a question one about money when they are what it asks for, within the
/// first words after "what"/"which"/"how much" ("What is the budget…", "what price…").
const MONEY_NOUNS: &str = "cost price prices budget budgets salary fee fees refund money";
/// How far after "what"/"which" a money noun is still what is asked for ("what is the
/// monthly cost", not "which provider has the lowest cost").
const MONEY_NOUN_WITHIN: usize = 4;
/// Verbs that ask for money after "how much … <aux>" ("How much did we spend…"); after
/// "what" they are about anything ("What does she spend her weekends on?").
const MONEY_VERBS: &str = "cost costs pay paid spend spent charge charged refund refunded priced";
/// Auxiliaries right after "how much": "how much did we pay" asks for money or a quantity;
/// "how much downtime did…" names the quantity itself.
const AUX: &str = "do does did is was were are will would should can could";
/// Verbs of feeling or knowing: "How much does she like painting?" asks for a degree.
const DEGREE_VERBS: &str = "like likes love loves enjoy enjoys care cares hate hates miss misses \
    mean means matter matters appreciate want wants trust prefer help helped helps know knows";
/// Auxiliaries after "how many <noun>" that make it a count of events ("How many hikes has
/// she been on?", "How many concerts did she attend?"), not a stated number ("How many
/// nodes do we run?", "how many engineers are on the team?").
const EVENT_COUNT_AUX: &str = "has have had did";

/// Currency words and codes a memory states an amount in (signs are checked separately).
const CURRENCY_WORDS: &str = "dollar dollars euro euros pound pounds usd eur gbp chf cad aud jpy \
    inr sek nok dkk cent cents bucks yen quid free";
const CURRENCY_SIGNS: &[char] = &['$', '€', '£', '¥', '₹'];
/// Number words a memory states a quantity in.
const NUMBER_WORDS: &str = "one two three four five six seven eight nine ten eleven twelve \
    thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty \
    sixty seventy eighty ninety hundred thousand million billion dozen dozens half once twice \
    thrice couple none zero";
const MONTHS: &str = "jan january feb february mar march apr april may jun june jul july aug \
    august sep sept september oct october nov november dec december";
/// Words before a year ("in 2025", "since 2019").
const YEAR_BEFORE: &str = "in since from until till by of before after during";

fn is_in(set: &str, w: &str) -> bool {
    set.split_whitespace().any(|s| s == w)
}

/// What the question asks for, if its words say so plainly.
pub fn expected(question: &str) -> Option<Expected> {
    let w = text::words(question);
    let w: Vec<&str> = w.iter().map(String::as_str).collect();
    let has = |set: &str| w.iter().any(|x| is_in(set, x));
    let starts = |a: &str, b: &str| w.len() >= 2 && w[0] == a && w[1] == b;
    // "which version of…", "what version…", but not "what version control…".
    let version_asked = (1..w.len()).any(|i| {
        matches!(w[i - 1], "which" | "what")
            && w[i] == "version"
            && !w.get(i + 1).is_some_and(|x| x.starts_with("control"))
    });
    if version_asked {
        return Some(Expected::Version);
    }
    let what = matches!(w.first(), Some(&("what" | "which")));
    let noun_asked = |from: usize| {
        w.iter()
            .skip(from)
            .take(MONEY_NOUN_WITHIN)
            .any(|x| is_in(MONEY_NOUNS, x))
            || question.to_lowercase().contains("dollar value")
    };
    if what && noun_asked(1) {
        return Some(Expected::Money);
    }
    if starts("how", "much") {
        if has(DEGREE_VERBS) {
            return None;
        }
        let next = w.get(2).copied().unwrap_or("");
        if is_in(MONEY_NOUNS, next) || (is_in(AUX, next) && (has(MONEY_VERBS) || noun_asked(2))) {
            return Some(Expected::Money);
        }
        return Some(Expected::Quantity);
    }
    if w.windows(2).any(|p| p[0] == "what" && p[1] == "port") {
        return Some(Expected::Quantity);
    }
    if starts("how", "many") {
        // "how many times…", or "how many <noun…> has/had/did…": a count of events.
        if w.get(2) == Some(&"times") {
            return None;
        }
        let aux = w[2..]
            .iter()
            .find(|x| is_in(EVENT_COUNT_AUX, x) || is_in(AUX, x));
        if aux.is_some_and(|a| is_in(EVENT_COUNT_AUX, a)) {
            return None;
        }
        return Some(Expected::Quantity);
    }
    None
}

/// One token of a memory: its text lowercased, trimmed of punctuation (currency signs kept),
/// and whether it was written with a capital.
struct Token {
    text: String,
    capital: bool,
}

/// Whether `memory` holds an answer of the `expected` kind.
pub fn carries(expected: Expected, memory: &str) -> bool {
    let tokens: Vec<Token> = memory
        .split(char::is_whitespace)
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric() && !CURRENCY_SIGNS.contains(&c)))
        .filter(|t| !t.is_empty())
        .map(|t| Token {
            text: t.to_lowercase(),
            capital: t.starts_with(|c: char| c.is_uppercase()),
        })
        .collect();
    let digit = |t: &str| t.chars().any(|c| c.is_ascii_digit());
    match expected {
        Expected::Money => tokens.iter().enumerate().any(|(i, t)| {
            let t = t.text.as_str();
            let next_digit = tokens.get(i + 1).is_some_and(|n| digit(&n.text));
            (t.contains(CURRENCY_SIGNS) && (digit(t) || next_digit))
                || is_in(CURRENCY_WORDS, t)
                || amount_with_suffix(t)
        }),
        Expected::Version => tokens.iter().enumerate().any(|(i, t)| {
            has_version(&t.text)
                // "Redis 7", "Xcode 16": a small number right after a name.
                || (t.text.len() <= 3
                    && t.text.chars().all(|c| c.is_ascii_digit())
                    && i > 0
                    && tokens[i - 1].capital
                    && !is_in(MONTHS, &tokens[i - 1].text))
        }),
        Expected::Quantity => tokens.iter().enumerate().any(|(i, t)| {
            let t = t.text.as_str();
            if t.split('-').any(|p| is_in(NUMBER_WORDS, p)) {
                return true;
            }
            // A number, not a word with a digit in it ("k8s", "sha256").
            if !t.starts_with(|c: char| c.is_ascii_digit()) {
                return false;
            }
            let at = |j: Option<usize>| j.and_then(|j| tokens.get(j)).map(|n| n.text.as_str());
            let month = |j: Option<usize>| at(j).is_some_and(|n| is_in(MONTHS, n));
            let year = is_year(t)
                && (month(i.checked_sub(1))
                    || at(i.checked_sub(1)).is_some_and(|p| is_in(YEAR_BEFORE, p)));
            let day = is_day(t) && (month(i.checked_sub(1)) || month(Some(i + 1)));
            !(year || day || is_clock_or_date(t))
        }),
    }
}

/// "40k", "1.2k", "3m", "2bn", "40usd": an amount with a thousands suffix or a code.
fn amount_with_suffix(t: &str) -> bool {
    let n = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &t[n.len()..];
    !n.is_empty()
        && n.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
        && n.starts_with(|c: char| c.is_ascii_digit())
        && (matches!(suffix, "k" | "m" | "bn") || is_in(CURRENCY_WORDS, suffix))
}

/// A version inside a token: "2.11", "postgres:16.2", "1.2.0-rc1", "python3.12", "v3".
fn has_version(t: &str) -> bool {
    let b = t.as_bytes();
    (1..b.len().saturating_sub(1))
        .any(|i| b[i] == b'.' && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit())
        || (t.starts_with('v') && t.len() > 1 && t[1..].chars().all(|c| c.is_ascii_digit()))
}

fn is_year(t: &str) -> bool {
    t.len() == 4
        && t.chars().all(|c| c.is_ascii_digit())
        && (t.starts_with("19") || t.starts_with("20"))
}

/// "10:00", "10:00-11:00", "5pm", "2026-02-12", "2026-02".
fn is_clock_or_date(t: &str) -> bool {
    let only = |extra: char| {
        t.chars()
            .all(|c| c.is_ascii_digit() || c == extra || c == '-')
    };
    let digits_pm = t.strip_suffix("am").or_else(|| t.strip_suffix("pm"));
    (t.contains(':') && only(':'))
        || digits_pm
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == ':'))
        || (t.contains('-')
            && only('-')
            && t.len() >= 7
            && t[..4].chars().all(|c| c.is_ascii_digit()))
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
            ("How much do we know about the outage?", None),
            ("Which cloud provider has the lowest cost?", None),
            ("What did we decide about the fee structure?", None),
            ("What version control system do we use?", None),
            ("How many concerts did Caroline attend?", None),
            ("What refund did we get?", Some(Expected::Money)),
            ("What is the monthly cost of Sentry?", Some(Expected::Money)),
            (
                "How much downtime did the outage cost us?",
                Some(Expected::Quantity),
            ),
            (
                "How much effort did we spend on it?",
                Some(Expected::Quantity),
            ),
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
        assert!(carries(money, "The offsite budget is 40k."));
        assert!(carries(
            money,
            "It costs 1.2k a month, paid as 40USD a seat."
        ));
        assert!(carries(money, "Grafana Cloud is free for us."));
        assert!(!carries(money, "Export $DATABASE_URL before running it."));
        let version = Expected::Version;
        assert!(carries(version, "We run Redis 7 in production."));
        assert!(carries(version, "The image is postgres:16.2."));
        assert!(carries(version, "We pinned 1.2.0-rc1."));
        assert!(!carries(version, "The freeze starts on March 3."));
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
        assert!(carries(qty, "NFS listens on 2049."));
        assert!(carries(qty, "We have twenty-five engineers."));
        assert!(!carries(qty, "Run it on k8s and check the sha256."));
        // Dates, years, clock times and quarters are not quantities.
        assert!(!carries(qty, "The change shipped on 12 February 2026."));
        assert!(!carries(
            qty,
            "Deploys go out on Tuesdays after 10:00, starting March 3rd."
        ));
        assert!(!carries(qty, "Planned for Q3; see 2026-02-12."));
        assert!(!carries(
            qty,
            "The window is 10:00-11:00, or 5pm, since 2019."
        ));
        assert!(!carries(
            qty,
            "We plan to migrate CI from Jenkins to GitHub Actions."
        ));
    }
}
