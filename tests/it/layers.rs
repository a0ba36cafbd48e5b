//! Issue 4: `max_tokens` is never exceeded, for every N from 1 to 2,000, counted with the
//! embedding model's tokenizer. Uses the library directly (one store, many budgets).

use slm::engine::{Engine, ModelMode, OpenOptions};
use slm::memory::NewMemory;
use slm::paths::Paths;
use slm::recall::{self, RecallRequest, View, filters::Filters, layers};

fn engine(dir: &std::path::Path) -> Engine {
    let paths = Paths::at(dir, &Paths::from_env().cache);
    let e = Engine::open(paths, OpenOptions::model(ModelMode::Load)).expect("engine");
    let texts = [
        "Caroline adopted a rescue dog named Biscuit after months of looking at shelters in the city.",
        "Biscuit won first place at the agility show, and Caroline cried a little when the judges announced it.",
        "Caroline's sister Melanie painted a lake sunrise last year; it hangs in the hallway now.",
        "We decided the agility club would meet on Saturdays at nine, near the river park.",
        "Caroline started volunteering at the shelter where she found Biscuit, two afternoons a week.",
    ];
    let items = texts
        .iter()
        .map(|t| NewMemory {
            text: t.to_string(),
            session_id: Some("s1".into()),
            ..Default::default()
        })
        .collect();
    e.remember_batch(items, &mut |_| {}).expect("write");
    e
}

#[test]
fn max_tokens_is_never_exceeded_for_any_budget_from_1_to_2000() {
    let dir = tempfile::tempdir().unwrap();
    let e = engine(dir.path());
    assert!(
        e.embedder().is_some(),
        "this test needs the real model: run scripts/setup.sh --models-only"
    );
    let req = RecallRequest {
        query: "What did Caroline adopt and did the dog win anything?".into(),
        filters: Filters {
            profile: slm::DEFAULT_PROFILE.into(),
            ..Default::default()
        },
        limit: 10,
        depth: 2,
        max_tokens: None,
        show_weak: true,
        view: View::Person,
        explain: false,
        support_gate: false,
        now_ms: 1_683_720_000_000,
        budget_s: None,
        keyword_only: false,
        warming_estimate_ms: None,
        ranking: Default::default(),
    };
    let full = recall::run(&e, &req).expect("recall");
    assert!(!full.results.is_empty());
    let full_cost = layers::cost(&e, &full.results) + layers::cost(&e, &full.weak);
    assert!(
        full_cost > 100,
        "the fixture must be big enough to need trimming ({full_cost})"
    );
    let mut trimmed_any = false;
    for n in 1..=2000usize {
        let mut results = full.results.clone();
        let mut weak = full.weak.clone();
        let r = RecallRequest {
            max_tokens: Some(n),
            ..req.clone()
        };
        // Context is rebuilt by apply at depth 2, exactly as a real recall does.
        let rep = layers::apply(&e, &r, &mut results, &mut weak).expect("layers");
        let used = layers::cost(&e, &results) + layers::cost(&e, &weak);
        assert!(
            used <= n,
            "budget {n} exceeded: {used} tokens ({:?})",
            rep.trimmed
        );
        assert_eq!(rep.tokens_used, used);
        trimmed_any |= !rep.trimmed.is_empty();
        if n >= full_cost {
            assert!(
                rep.trimmed.is_empty(),
                "nothing to trim at {n} ≥ {full_cost}: {:?}",
                rep.trimmed
            );
        }
    }
    assert!(trimmed_any);
    // The order of trimming: context goes before any memory is shortened or left out.
    let mut results = full.results.clone();
    let mut weak = Vec::new();
    let with_ctx = layers::cost(&e, &results);
    let no_ctx: usize = {
        let mut r = results.clone();
        r.iter_mut().for_each(|x| x.context = None);
        layers::cost(&e, &r)
    };
    assert!(
        with_ctx > no_ctx,
        "at depth 2 the fixture's results carry context ({with_ctx} tokens with it, {no_ctx} without), or the trimming order goes untested"
    );
    let r = RecallRequest {
        max_tokens: Some(no_ctx),
        show_weak: false,
        ..req.clone()
    };
    let rep = layers::apply(&e, &r, &mut results, &mut weak).unwrap();
    assert!(
        !rep.trimmed.is_empty(),
        "a budget without room for context trims it"
    );
    assert!(
        rep.trimmed.iter().all(|t| t.starts_with("context:")),
        "{:?}",
        rep.trimmed
    );
    assert_eq!(results.len(), full.results.len());
}

/// Budgets count word pieces, not the tokenizer file's fixed padding or truncation (the
/// model's tokenizer.json pads and truncates to 128, which made every text "128 tokens").
#[test]
fn token_counts_are_word_pieces_without_padding_or_truncation() {
    let dir = tempfile::tempdir().unwrap();
    let e = engine(dir.path());
    assert!(e.embedder().is_some(), "the real model is loaded");
    assert_eq!(e.count_tokens(""), 0);
    let two = e.count_tokens("hello world");
    assert!((2..=4).contains(&two), "hello world: {two}");
    let long = "The agility club meets on Saturdays. ".repeat(60);
    let n = e.count_tokens(&long);
    assert!(n > 300, "a long text is not truncated at 128: {n}");
}

/// The cold path (no model loaded) does not load the tokenizer only to report a count: with
/// no budget `tokens_used` is estimated and says so; a budget is still counted exactly.
#[test]
fn the_cold_path_estimates_the_count_without_a_budget_and_counts_with_one() {
    let env = crate::common::Env::new().with("SLM_WORKER", "off");
    env.remember("We chose Postgres for the analytics warehouse", &[]);
    let v = env.recall("Postgres", &["--no-worker"]);
    assert_eq!(v["layers"]["tokens_estimated"], true, "{}", v["layers"]);
    assert!(
        v["layers"]["tokens_used"].as_u64().unwrap() > 0,
        "{}",
        v["layers"]
    );
    let v = env.recall("Postgres", &["--no-worker", "--max-tokens", "200"]);
    assert_eq!(v["layers"]["tokens_estimated"], false, "{}", v["layers"]);
    let inline = crate::common::Env::new();
    inline.remember("We chose Postgres for the analytics warehouse", &[]);
    let v = inline.recall("Postgres", &[]);
    assert_eq!(
        v["layers"]["tokens_estimated"], false,
        "the model is loaded: {}",
        v["layers"]
    );
}
