use super::*;

fn keys(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn headings_stay_with_their_paragraphs_and_front_matter_is_read() {
    let md = "---\ndate: 2024-03-01\ntags: [work, db]\n---\n# Project\n\n## Database\n\nWe chose Postgres for the analytics warehouse because it is what the team knows.\n\nThe staging database listens on port 6543 and is rebuilt every night at two.\n\n# Other\nNo heading trail leaks across sections, even without a blank line here.\n";
    let (fm, chunks) = split(md);
    assert_eq!(fm.date.as_deref(), Some("2024-03-01"));
    assert_eq!(fm.tags, vec!["work", "db"]);
    assert_eq!(chunks.len(), 3, "{chunks:?}");
    assert!(
        chunks[0]
            .text
            .starts_with("Project > Database\nWe chose Postgres")
    );
    assert_eq!(chunks[0].line, 9);
    assert_eq!(chunks[1].line, 11);
    assert!(chunks[2].text.starts_with("Other\nNo heading"));
}

#[test]
fn short_paragraphs_join_the_next_and_long_ones_are_cut_at_sentences() {
    let long = "This sentence is about forty characters. ".repeat(60);
    let md = format!(
        "Decisions:\n\n- use Postgres for analytics and keep MySQL for billing\n\n{long}\n"
    );
    let (_, chunks) = split(&md);
    assert!(chunks[0].text.starts_with("Decisions:\n\n- use Postgres"));
    assert!(chunks.len() >= 3, "{}", chunks.len());
    for c in &chunks[1..] {
        assert!(
            c.text.chars().count() <= MAX_CHUNK_CHARS,
            "{}",
            c.text.len()
        );
        assert!(c.text.ends_with('.'), "{:?}", &c.text[c.text.len() - 10..]);
    }
}

#[test]
fn a_fenced_block_is_one_chunk_with_its_blank_lines() {
    let md = "Setup steps for the staging box, in the order they must run:\n\n```sh\nmake build\n\nmake deploy\n```\n";
    let (_, chunks) = split(md);
    assert_eq!(chunks.len(), 2, "{chunks:?}");
    assert!(chunks[1].text.contains("make build\n\nmake deploy"));
}

#[test]
fn an_edited_paragraph_replaces_its_old_memory_and_nothing_else() {
    let old = keys(&["a", "b", "c", "d"]);
    let (steps, gone) = plan(&old, &keys(&["a", "b2", "c", "d"]));
    assert_eq!(
        steps,
        vec![
            Step::Unchanged(0),
            Step::Replaces(1),
            Step::Unchanged(2),
            Step::Unchanged(3)
        ]
    );
    assert!(gone.is_empty());
    // An inserted paragraph is created; a removed one is reported gone.
    let (steps, gone) = plan(&old, &keys(&["x", "a", "b", "d"]));
    assert_eq!(steps[0], Step::Created);
    assert_eq!(gone, vec![2]);
    // The same text again changes nothing.
    let (steps, gone) = plan(&old, &old);
    assert!(steps.iter().all(|s| matches!(s, Step::Unchanged(_))) && gone.is_empty());
    // A moved paragraph is still unchanged.
    let (steps, _) = plan(&old, &keys(&["d", "a", "b", "c"]));
    assert!(
        steps.iter().all(|s| matches!(s, Step::Unchanged(_))),
        "{steps:?}"
    );
}
