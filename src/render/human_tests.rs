//! Every public status enum's `Display` reads as written for people (issue 33): each variant
//! is made, its text checked by [`debug_look`], and its text must not name the variant the
//! way Debug does (`Ready`, `Loading`). The `match`es below stop compiling when a variant is
//! added, so a new one is walked too.

use super::human_check::debug_look;
use crate::embed::reranker::State;
use crate::index::IndexHealth;
use crate::recall::answer_check::AnswerCheckStatus;
use crate::recall::channels::ChannelStatus;
use crate::recall::rerank::RerankerStatus;
use crate::store::NoWrites;

const WHY: &str = "there was none";

/// Checks one variant's text: no debug look, not its Debug variant name, not empty.
fn check(variant: &str, text: &str) {
    assert!(!text.trim().is_empty(), "{variant}: no text");
    if let Some(why) = debug_look(text) {
        panic!("{variant} reads {text:?}: {why}");
    }
    let name = variant.split('(').next().unwrap_or(variant);
    assert!(
        !text
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == name),
        "{variant} reads {text:?}: its debug name"
    );
}

fn check_all<T: std::fmt::Debug + std::fmt::Display>(all: &[T]) {
    for v in all {
        check(&format!("{v:?}"), &v.to_string());
    }
}

#[test]
fn index_health_reads_for_people() {
    let all = [
        IndexHealth::Ready,
        IndexHealth::CaughtUp(1),
        IndexHealth::CaughtUp(3),
        IndexHealth::Rebuilt(WHY.into()),
        IndexHealth::Stale("3 changes behind while another process writes".into()),
        IndexHealth::Unavailable("no embedding model loaded".into()),
    ];
    for v in &all {
        match v {
            IndexHealth::Ready
            | IndexHealth::CaughtUp(_)
            | IndexHealth::Rebuilt(_)
            | IndexHealth::Stale(_)
            | IndexHealth::Unavailable(_) => {}
        }
    }
    check_all(&all);
    assert_eq!(IndexHealth::Ready.to_string(), "up to date");
    assert_eq!(
        IndexHealth::CaughtUp(1).to_string(),
        "caught up with 1 change"
    );
    assert_eq!(
        IndexHealth::Rebuilt(WHY.into()).to_string(),
        "rebuilt (there was none)"
    );
}

#[test]
fn channel_status_reads_for_people() {
    let all = [
        ChannelStatus::Ok,
        ChannelStatus::Idle,
        ChannelStatus::Unavailable(format!(
            "the vector index is {}",
            IndexHealth::Unavailable("no embedding model loaded".into())
        )),
        ChannelStatus::Failed(
            crate::Error::Bm25(IndexHealth::Unavailable(WHY.into()).to_string()).to_string(),
        ),
        ChannelStatus::TimedOut,
        ChannelStatus::Warming("the image–text model is loading".into()),
    ];
    for v in &all {
        match v {
            ChannelStatus::Ok
            | ChannelStatus::Idle
            | ChannelStatus::Unavailable(_)
            | ChannelStatus::Failed(_)
            | ChannelStatus::TimedOut
            | ChannelStatus::Warming(_) => {}
        }
    }
    check_all(&all);
}

#[test]
fn reranker_status_reads_for_people() {
    let all = [
        RerankerStatus::NotConfigured,
        RerankerStatus::Loading,
        RerankerStatus::Applied,
        RerankerStatus::Unavailable(WHY.into()),
        RerankerStatus::Failed("the reranker lock was poisoned".into()),
    ];
    for v in &all {
        match v {
            RerankerStatus::NotConfigured
            | RerankerStatus::Loading
            | RerankerStatus::Applied
            | RerankerStatus::Unavailable(_)
            | RerankerStatus::Failed(_) => {}
        }
    }
    check_all(&all);
}

#[test]
fn answer_check_status_reads_for_people() {
    let all = [
        AnswerCheckStatus::Judged,
        AnswerCheckStatus::Off,
        AnswerCheckStatus::Skipped,
        AnswerCheckStatus::Busy,
        AnswerCheckStatus::Warming,
        AnswerCheckStatus::Unavailable,
        AnswerCheckStatus::MediaUnjudged,
    ];
    for v in &all {
        match v {
            AnswerCheckStatus::Judged
            | AnswerCheckStatus::Off
            | AnswerCheckStatus::Skipped
            | AnswerCheckStatus::Busy
            | AnswerCheckStatus::Warming
            | AnswerCheckStatus::Unavailable
            | AnswerCheckStatus::MediaUnjudged => {}
        }
    }
    check_all(&all);
}

#[test]
fn no_writes_reads_for_people() {
    let all = [NoWrites::ReadOnly, NoWrites::DiskFull];
    for v in &all {
        match v {
            NoWrites::ReadOnly | NoWrites::DiskFull => {}
        }
    }
    check_all(&all);
}

/// The cross-encoder's and the reader's load state. It has no Debug, and `Ready` holds a
/// loaded model, which a unit test cannot make: its text is checked on its own.
#[test]
fn model_load_state_reads_for_people() {
    let all = [
        ("NotConfigured", State::NotConfigured),
        ("Loading", State::Loading),
        ("Unavailable", State::Unavailable(WHY.into())),
    ];
    for (name, v) in &all {
        match v {
            State::NotConfigured | State::Loading | State::Ready(_) | State::Unavailable(_) => {}
        }
        check(name, &v.to_string());
    }
    check("Ready", "ready");
}
