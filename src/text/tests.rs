//! Unit tests of text analysis.

use super::*;

#[test]
fn words_keep_codes_and_drop_possessives() {
    assert_eq!(
        words("Did Caroline's v0.3.4 build (conv-26) pass?"),
        vec!["did", "caroline", "v0.3.4", "build", "conv-26", "pass"]
    );
    assert_eq!(
        words("snake_case foo.rs user@host 10:30 don't"),
        vec!["snake_case", "foo.rs", "user@host", "10:30", "dont"]
    );
    assert!(words("🐙🐙 ¯\\_(ツ)_/¯ ??!!").iter().all(|w| w == "ツ"));
}

#[test]
fn entities_find_names_versions_codes_quotes() {
    let e = entities(
        "Caroline went to the LGBTQ support group in New York with Melanie. Version 12.4.9 of `slm` uses d41d8cd98f00b204e9800998ecf8427e.",
    );
    let names: Vec<&str> = e
        .iter()
        .filter(|e| e.kind == EntityKind::Name)
        .map(|e| e.surface.as_str())
        .collect();
    assert_eq!(names, vec!["Caroline", "LGBTQ", "New York", "Melanie"]);
    assert!(
        e.iter()
            .any(|e| e.kind == EntityKind::Version && e.norm == "12.4.9")
    );
    assert!(
        e.iter()
            .any(|e| e.kind == EntityKind::Quoted && e.norm == "slm")
    );
    assert!(
        e.iter()
            .any(|e| e.kind == EntityKind::Code && e.norm.starts_with("d41d8"))
    );
    assert!(
        entities("Yeah, I painted that lake sunrise last year!")
            .iter()
            .all(|e| e.kind != EntityKind::Name)
    );
}

#[test]
fn stemmer_relates_forms_and_leaves_codes() {
    assert_eq!(stem("painted"), stem("paint"));
    assert_eq!(stem("sunrises"), stem("sunrise"));
    assert_eq!(stem("decided"), stem("decide"));
    assert_eq!(stem("deciding"), stem("decide"));
    assert_eq!(stem("running"), "run");
    assert_eq!(stem("researching"), stem("research"));
    assert_eq!(stem("v0.3.4"), "v0.3.4");
    assert_eq!(stem("agencies"), "agency");
}

#[test]
fn bookkeeping_is_short_and_leading() {
    assert_eq!(bookkeeping_reason("session ended"), Some("session_event"));
    assert_eq!(
        bookkeeping_reason("File changed: src/main.rs"),
        Some("file_event")
    );
    assert_eq!(
        bookkeeping_reason("[hook] PostToolUse Read"),
        Some("hook_noise")
    );
    assert_eq!(
        bookkeeping_reason("I ended the session with my therapist early"),
        None
    );
    assert_eq!(
        bookkeeping_reason("We decided the session ended too late for the demo"),
        None
    );
}

#[test]
fn sanitize_strips_control_sequences() {
    assert_eq!(sanitize_for_terminal("\x1b[31mred\x1b[0m"), "red");
    assert_eq!(sanitize_for_terminal("a\x1b]0;title\x07b"), "ab");
    assert_eq!(sanitize_for_terminal("x\u{9b}y\x07z\nok"), "xyz\nok");
}

#[test]
fn gibberish_signs_separate_nonsense_from_questions() {
    let g = gibberish_signs("zorp flanngle quizzit?", |_| false);
    assert!(g.wordlike < g.content_words, "{g:?}");
    let g = gibberish_signs("What did Caroline research?", |_| false);
    assert_eq!(g.wordlike, g.content_words);
    let g = gibberish_signs("hjkl hjkl hjkl", |_| false);
    assert!(g.repeated && g.keyboard_runs > 0);
    assert!(gibberish_signs("poiuytrewq", |_| false).keyboard_runs > 0);
    let g = gibberish_signs("asdkj qwlek zmxnc", |_| false);
    assert!(g.wordlike * 2 < g.content_words, "{g:?}");
    assert!(gibberish_signs("gnarp gnarp", |_| false).repeated);
    assert!(gibberish_signs("xkcd xkcd xkcd", |_| false).repeated);
    assert!(gibberish_signs("aaaa", |_| false).keyboard_runs > 0);
}

/// A word the store holds is the user's word, whatever its letters: "postgres" (four
/// consonants in a row), "nginx", a saved commit hash, a word said twice.
#[test]
fn a_word_the_store_holds_is_never_gibberish() {
    let known = |w: &str| ["postgres", "nginx", "tcpdump", "deadbeef42", "xkcd"].contains(&w);
    for q in [
        "Postgres",
        "nginx tcpdump",
        "deadbeef42",
        "xkcd xkcd",
        "postgres?",
    ] {
        let g = gibberish_signs(q, known);
        assert_eq!(g.wordlike, g.content_words, "{q}: {g:?}");
        assert!(
            !g.repeated && g.keyboard_runs == 0 && g.hex_like == 0,
            "{q}: {g:?}"
        );
    }
    // The same words judged by their letters alone (no memory holds them).
    assert!(gibberish_signs("Postgres", |_| false).wordlike == 0);
    assert!(gibberish_signs("deadbeef42", |_| false).hex_like == 1);
}

/// Real questions that once read as nonsense: a word said twice, a two-letter name.
#[test]
fn real_questions_are_not_gibberish() {
    for q in [
        "What game did Nate play at the game convention?",
        "When did Maria get Coco?",
        "Did mama call papa about the tutu?",
        "When did Nate make vegan ice cream and share it with a vegan diet group?",
    ] {
        let g = gibberish_signs(q, |_| false);
        assert!(!g.repeated, "{q}: {g:?}");
        assert_eq!(g.keyboard_runs, 0, "{q}: {g:?}");
        assert_eq!(g.wordlike, g.content_words, "{q}: {g:?}");
    }
}

#[test]
fn preview_cuts_at_words() {
    assert_eq!(preview("a  b\n c", 10), "a b c");
    let p = preview("the quick brown fox jumps over the lazy dog", 20);
    assert!(p.ends_with('…') && p.chars().count() <= 20);
}

#[test]
fn no_panics_on_odd_input() {
    for s in [
        "",
        "   ",
        "\u{301}\u{301}",
        "'''",
        "a'",
        "'s",
        "x.",
        ".x",
        "🐙 ago",
        &"é".repeat(50_000),
    ] {
        let _ = words(s);
        let _ = entities(s);
        let _ = content_words(s);
        let _ = gibberish_signs(s, |_| false);
        let _ = preview(s, 5);
        let _ = bookkeeping_reason(s);
    }
}
