//! Unit tests of the answer-check stage and its resolution from settings.
use super::*;
use crate::settings::AnswerCheckSettings;

struct Fixed(JudgeOutcome, Duration);
impl Judge for Fixed {
    fn name(&self) -> String {
        "test".into()
    }
    fn judge(&self, _: &str, _: &[Evidence], _: Instant) -> JudgeOutcome {
        std::thread::sleep(self.1);
        self.0.clone()
    }
}

fn ev(n: i64) -> Vec<Evidence> {
    (1..=n)
        .map(|id| Evidence {
            id,
            text: format!("memory {id}"),
            vector: None,
        })
        .collect()
}

fn verdict(memory_id: Option<i64>) -> JudgeOutcome {
    JudgeOutcome::Verdict(Verdict {
        answers: true,
        memory_id,
        answer: Some("x".into()),
        confidence: 1.5,
        judge: "test".into(),
        per_memory: Vec::new(),
    })
}

#[test]
fn no_judge_or_skip_is_off_and_empty_evidence_is_skipped() {
    let j = Fixed(verdict(Some(1)), Duration::ZERO);
    let b = Duration::from_secs(1);
    let off = apply(None, "q", &ev(3), b, false);
    assert_eq!(off.status, AnswerCheckStatus::Off);
    assert_eq!(off.reason, None);
    let skip = apply(Some(&j), "q", &ev(3), b, true);
    assert_eq!(skip.status, AnswerCheckStatus::Off);
    assert!(skip.input.is_empty());
    let empty = apply(Some(&j), "q", &[], b, false);
    assert_eq!(empty.status, AnswerCheckStatus::Skipped);
    assert!(empty.reason.is_some());
    assert_eq!(empty.confidence(), None);
}

#[test]
fn a_verdict_is_bounded_to_what_the_judge_was_shown() {
    let j = Fixed(verdict(Some(9)), Duration::ZERO);
    let c = apply(Some(&j), "q", &ev(5), Duration::from_secs(1), false);
    assert_eq!(c.status, AnswerCheckStatus::Judged);
    assert_eq!(c.input, vec![1, 2, 3]);
    let v = c.verdict.as_ref().unwrap();
    assert_eq!(v.memory_id, None, "9 was never shown");
    assert_eq!(c.confidence(), Some(1.0));
    assert_eq!(c.report().unwrap().judge, "test");
}

#[test]
fn a_verdict_past_the_budget_is_skipped() {
    let j = Fixed(verdict(Some(1)), Duration::from_millis(120));
    let c = apply(Some(&j), "q", &ev(3), Duration::from_millis(10), false);
    assert_eq!(c.status, AnswerCheckStatus::Skipped);
    assert_eq!(c.verdict, None);
    assert_eq!(c.report(), None);
}

#[test]
fn outcomes_map_to_statuses() {
    for (o, s) in [
        (JudgeOutcome::Busy, AnswerCheckStatus::Busy),
        (JudgeOutcome::Warming, AnswerCheckStatus::Warming),
        (
            JudgeOutcome::Unavailable("x".into()),
            AnswerCheckStatus::Unavailable,
        ),
        (
            JudgeOutcome::Skipped("y".into()),
            AnswerCheckStatus::Skipped,
        ),
    ] {
        let c = apply(
            Some(&Fixed(o, Duration::ZERO)),
            "q",
            &ev(1),
            Duration::from_secs(1),
            false,
        );
        assert_eq!(c.status, s);
        assert_eq!(c.confidence(), None);
    }
    assert_eq!(
        serde_json::to_value(AnswerCheckStatus::Unavailable).unwrap(),
        "unavailable"
    );
}

fn settings(mode: &str) -> AnswerCheckSettings {
    let mut s = AnswerCheckSettings {
        mode: mode.into(),
        ..Default::default()
    };
    s.hosted.endpoint = Some("http://127.0.0.1:9/v1".into());
    s.hosted.model = Some("m".into());
    s.hosted.key_env = Some("SLM_TEST_NO_SUCH_KEY".into());
    s
}

#[test]
fn auto_never_resolves_to_hosted() {
    let mut s = settings("auto");
    s.hosted.consent_at = Some("2026-01-01T00:00:00Z".into());
    assert!(resolve(&s, None).unwrap().is_none());
    let local: Arc<dyn Judge> = Arc::new(Fixed(JudgeOutcome::Busy, Duration::ZERO));
    assert_eq!(resolve(&s, Some(local)).unwrap().unwrap().name(), "test");
}

#[test]
fn modes_resolve_as_documented() {
    assert!(resolve(&settings("off"), None).unwrap().is_none());
    let local = resolve(&settings("local"), None).unwrap().unwrap();
    assert_eq!(
        local.judge("q", &ev(1), Instant::now()),
        JudgeOutcome::Unavailable(NO_LOCAL_JUDGE.into())
    );
    // hosted without consent: a judge that only says why, and sends nothing.
    let hosted = resolve(&settings("hosted"), None).unwrap().unwrap();
    match hosted.judge("q", &ev(1), Instant::now()) {
        JudgeOutcome::Unavailable(why) => assert!(why.contains("consent"), "{why}"),
        o => panic!("expected unavailable, got {o:?}"),
    }
    assert_eq!(
        resolve(&settings("sometimes"), None).err(),
        Some(AnswerCheckError::UnknownMode("sometimes".into()))
    );
    let mut zero = settings("auto");
    zero.budget_ms = Some(0);
    assert_eq!(
        resolve(&zero, None).err(),
        Some(AnswerCheckError::ZeroBudget)
    );
}

#[test]
fn an_unset_budget_is_the_default_of_the_judge_the_mode_uses() {
    use crate::settings::{HOSTED_JUDGE_BUDGET_MS, LOCAL_JUDGE_BUDGET_MS};
    let ms = |s: &AnswerCheckSettings| mode_and_budget(s).unwrap().1.as_millis() as u64;
    for mode in ["auto", "local", "off"] {
        assert_eq!(ms(&settings(mode)), LOCAL_JUDGE_BUDGET_MS, "{mode}");
    }
    assert_eq!(ms(&settings("hosted")), HOSTED_JUDGE_BUDGET_MS);
    let mut set = settings("hosted");
    set.budget_ms = Some(250);
    assert_eq!(ms(&set), 250);
}
