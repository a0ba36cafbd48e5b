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

#[test]
fn a_revert_takes_the_place_of_the_edit_under_a_new_key() {
    // The file held A, then B (which superseded A); now A again: A takes B's place.
    let (steps, gone) = plan(&keys(&["b"]), &keys(&["a"]));
    assert_eq!(steps, vec![Step::Replaces(0)]);
    assert!(gone.is_empty());
    // Its key is not the key of the memory that first held A.
    let first = chunk_key("/n/db.md", "A", None);
    let revert = chunk_key("/n/db.md", "A", Some(4));
    assert_ne!(first, revert);
    let prefix = key_prefix("/n/db.md");
    assert_eq!(
        key_text_hash(&first, &prefix),
        key_text_hash(&revert, &prefix)
    );
    assert_eq!(
        key_text_hash(&revert, &prefix),
        Some(text_hash("A").as_str())
    );
    assert_eq!(key_path(&revert), Some("/n/db.md"));
    assert_eq!(
        key_path(&chunk_key("/n/a#b.md", "x", None)),
        Some("/n/a#b.md")
    );
}

/// Walk `root`, returning (files read, skipped name → reason).
fn walked(root: &std::path::Path, follow: bool) -> (Vec<String>, Vec<(String, String)>) {
    let root = open_root(root).unwrap();
    let (mut files, mut skipped) = (Vec::new(), Vec::new());
    root.walk(follow, &mut |e| {
        match e {
            Entry::File(f) => files.push(f.path.display().to_string()),
            Entry::Skipped(s) => {
                skipped.push((s.path.rsplit('/').next().unwrap().to_string(), s.reason))
            }
        }
        Ok(())
    })
    .unwrap();
    (files, skipped)
}

#[test]
fn the_walk_never_leaves_its_folder_and_never_opens_a_fifo() {
    use std::os::unix::fs::symlink;
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("notes");
    let out = t.path().join("outside");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(dir.join("a.md"), "a note").unwrap();
    std::fs::write(out.join("secret.md"), "a secret").unwrap();
    symlink(out.join("secret.md"), dir.join("abs.md")).unwrap();
    symlink("../../outside/secret.md", dir.join("sub").join("rel.md")).unwrap();
    symlink("../outside", dir.join("out")).unwrap();
    symlink("a.md", dir.join("same.md")).unwrap();
    symlink("..", dir.join("sub").join("up")).unwrap();
    symlink("nothing.md", dir.join("dangling.md")).unwrap();
    let fifo = dir.join("pipe.md");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);

    let (files, skipped) = walked(&dir, false);
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].ends_with("/notes/a.md"));
    let reason = |n: &str| {
        skipped
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, r)| r.clone())
            .unwrap_or_else(|| panic!("{n} not skipped: {skipped:?}"))
    };
    for n in ["abs.md", "rel.md", "out", "same.md", "up", "dangling.md"] {
        assert!(reason(n).contains("--follow-links"), "{n}: {}", reason(n));
    }
    assert!(reason("dangling.md").contains("nothing"));
    assert!(reason("pipe.md").contains("FIFO"));

    let (files, skipped) = walked(&dir, true);
    assert_eq!(
        files.len(),
        1,
        "one note, however many links lead to it: {files:?}"
    );
    for n in ["abs.md", "rel.md", "out"] {
        let r = &skipped.iter().find(|(k, _)| k == n).unwrap().1;
        assert!(r.contains("outside the folder"), "{n}: {r}");
    }
    assert!(
        skipped
            .iter()
            .any(|(k, r)| k == "same.md" && r.contains("same file"))
    );
    assert!(skipped.iter().any(|(k, r)| k == "up" && r.contains("loop")));

    // Reading refuses a FIFO without waiting for a writer, and a link.
    let e = read(&fifo).unwrap_err();
    assert!(e.contains("FIFO"), "{e}");
    let e = read(&dir.join("same.md")).unwrap_err();
    assert!(e.contains("link"), "{e}");
    assert_eq!(read(&dir.join("a.md")).unwrap().0, "a note");
    // Named on its own, a FIFO is an error that names it.
    let e = open_root(&fifo).unwrap_err().to_string();
    assert!(
        e.contains("FIFO") && e.contains("nothing was imported"),
        "{e}"
    );
}
