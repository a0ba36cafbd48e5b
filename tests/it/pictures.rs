//! Pictures (issue 37): saved with `remember --image` and `import --format media`, read by
//! the real OCR models in the worker's background queue, and found by the words in them.
//! The fixtures are rendered from text we wrote (`scripts/fixtures/pictures.py`).

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn spec() -> Value {
    let p = fixture("pictures").join("questions.json");
    serde_json::from_slice(&std::fs::read(p).expect("questions.json")).expect("json")
}

/// Wait until no picture waits for OCR; returns doctor's `pictures`.
fn wait_read(env: &Env) -> Value {
    let start = Instant::now();
    loop {
        let d = env.json(&["doctor"]);
        let p = d["pictures"].clone();
        if p["pending"] == 0 && p["pictures"].as_i64().unwrap_or(0) > 0 {
            // Shown in the test log whatever happens next: in two loaded test runs (one full, one
            // of several modules) one picture ended failed, for a reason not captured then.
            eprintln!("pictures after OCR: {p}");
            return p;
        }
        if start.elapsed() > Duration::from_secs(900) {
            // About a second a picture on 2 idle cores; generous for a loaded test machine.
            // The worker's log says what its background work did (one CI run ended here with
            // one picture pending and no log to tell why).
            let log = std::fs::read_to_string(env.path("worker.log")).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(60).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            panic!(
                "pictures still waiting for OCR: {p}\nworker log (end):\n{}",
                tail.join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// The picture names of the top three results (weak matches included).
fn top3(env: &Env, q: &str) -> Vec<String> {
    let r = env.json(&["recall", q, "--show-weak"]);
    r["results"]
        .as_array()
        .expect("results")
        .iter()
        .take(3)
        .filter_map(|x| x["picture"]["name"].as_str().map(str::to_string))
        .collect()
}

fn ocr_installed() -> bool {
    let dir = cache_dir().join("models").join("pp-ocrv4");
    assert!(
        dir.join("rec.onnx").is_file(),
        "OCR models missing in {}: run scripts/setup.sh",
        dir.display()
    );
    true
}

#[test]
fn pictures_are_found_by_the_words_in_them_and_wordless_ones_by_their_note() {
    assert!(ocr_installed());
    let spec = spec();
    let env = worker_env();
    let _stop = StopWorker(&env);
    start_worker(&env, &[]);
    // The pictures with words, imported as a folder.
    let folder = env.dir.path().join("shots");
    std::fs::create_dir_all(&folder).unwrap();
    let pics = spec["pictures"].as_array().unwrap();
    let worded: Vec<&Value> = pics.iter().filter(|p| p["wordless"] == false).collect();
    for p in &worded {
        let f = p["file"].as_str().unwrap();
        std::fs::copy(fixture("pictures").join(f), folder.join(f)).unwrap();
    }
    let imp = env.json(&["import", "--format", "media", folder.to_str().unwrap()]);
    assert_eq!(imp["added"], worded.len(), "{imp}");
    // Wordless ones, each with its note when it has one.
    for p in pics.iter().filter(|p| p["wordless"] == true) {
        let f = fixture("pictures").join(p["file"].as_str().unwrap());
        let mut args = vec!["remember", "--image", f.to_str().unwrap()];
        if let Some(n) = p["note"].as_str() {
            args.push(n);
        }
        let out = env.run(&args);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let st = wait_read(&env);
    // Every picture read, or at most one that OCR could not read (its reason in the log and in
    // doctor); the questions below still hold to 90%.
    let failed = st["failed"].as_u64().unwrap();
    assert!(failed <= 1, "{st}");
    assert!(
        st["read"].as_u64().unwrap() + failed >= worded.len() as u64,
        "{st}"
    );
    assert!(
        st["wordless"].as_u64().unwrap() + failed >= (pics.len() - worded.len()) as u64,
        "{st}"
    );

    let qs = spec["questions"].as_array().unwrap();
    let mut missed = Vec::new();
    for q in qs {
        let got = top3(&env, q["q"].as_str().unwrap());
        if !got.iter().any(|n| n == q["file"].as_str().unwrap()) {
            missed.push(format!("{} -> {got:?}", q["q"]));
        }
    }
    let found = qs.len() - missed.len();
    // Issue 37: the right picture in the top 3 for at least 90% of the questions.
    assert!(
        found as f64 >= 0.9 * qs.len() as f64,
        "{found}/{} found; missed: {missed:#?}",
        qs.len()
    );
    for q in spec["note_questions"].as_array().unwrap() {
        let got = top3(&env, q["q"].as_str().unwrap());
        assert!(
            got.iter().any(|n| n == q["file"].as_str().unwrap()),
            "{} -> {got:?}",
            q["q"]
        );
    }
    // A wordless picture on top is not judged by a text judge (the spec's media_unjudged)...
    let r = env.json(&["recall", "the sunset from the ferry deck"]);
    assert_eq!(r["results"][0]["picture"]["name"], "sunset.png", "{r}");
    assert_eq!(r["answer_check_status"], "media_unjudged", "{r}");
    // ...and one without a note is not found by its file name alone (the spec's floor).
    let r = env.json(&["recall", "circles png picture", "--show-weak"]);
    let names: Vec<&str> = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|x| x["picture"]["name"].as_str())
        .collect();
    assert!(!names.contains(&"circles.png"), "{r}");
    // A result shows its file, kept in the data dir byte for byte, and a thumbnail.
    let r = env.json(&["recall", "when does the Marrow Street lease end"]);
    let pic = &r["results"][0]["picture"];
    assert_eq!(pic["name"], "lease.jpg", "{r}");
    assert_eq!(pic["ocr"], "read");
    let kept = std::fs::read(pic["path"].as_str().unwrap()).unwrap();
    assert_eq!(kept, std::fs::read(fixture("pictures/lease.jpg")).unwrap());
    assert!(
        Path::new(pic["thumbnail"].as_str().unwrap()).is_file(),
        "{pic}"
    );
    // Importing the folder again stores nothing new.
    let again = env.json(&["import", "--format", "media", folder.to_str().unwrap()]);
    assert_eq!(
        (again["added"].clone(), again["existed"].clone()),
        (0.into(), worded.len().into())
    );
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn a_bad_picture_is_refused_by_name_and_nothing_is_stored() {
    let env = Env::new();
    let dir = env.dir.path().join("in");
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read(fixture("pictures/q3-revenue.png")).unwrap();
    let cut = write(&dir, "cut.png", &good[..good.len() / 3]);
    let text = write(&dir, "notes.png", b"not a picture at all");
    for (f, says) in [(&cut, "damaged"), (&text, "not a PNG, JPEG, WebP or GIF")] {
        let out = env.run(&["remember", "--image", f.to_str().unwrap(), "a note"]);
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(f.to_str().unwrap()) && err.contains(says),
            "{err}"
        );
        assert!(err.contains("nothing was stored"), "{err}");
    }
    let missing = env.run(&["remember", "--image", "/nonexistent/x.png"]);
    assert_eq!(code(&missing), 2, "{}", stderr(&missing));
    // A folder with one bad picture imports nothing...
    write(&dir, "good.png", &good);
    let out = env.run(&["import", "--format", "media", dir.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("cut.png"), "{}", stderr(&out));
    assert_eq!(env.json(&["doctor"])["store"]["memories"], 0);
    assert!(!env.home().join("media").exists() || count_files(&env.home().join("media")) == 0);
    // ...and with --skip-bad the good one, naming the others, exit 1.
    let out = env.run(&[
        "import",
        "--format",
        "media",
        "--skip-bad",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        said.contains("imported 1 pictures") && said.contains("cut.png"),
        "{said}"
    );
    // The same picture with the same note is one memory.
    let g = dir.join("good.png");
    let a = env.json(&["remember", "--image", g.to_str().unwrap(), "the slide"]);
    let b = env.json(&["remember", "--image", g.to_str().unwrap(), "the slide"]);
    assert_eq!(a["id"], b["id"], "{a} {b}");
}

#[test]
fn a_pdf_is_one_memory_a_page_and_a_scan_is_reported_without_text() {
    let env = Env::new();
    let spec = spec();
    let book = fixture("pictures/handbook.pdf");
    let imp = env.json(&["import", "--format", "media", book.to_str().unwrap()]);
    assert_eq!(
        imp["added"], spec["documents"]["handbook.pdf"]["pages"],
        "{imp}"
    );
    for q in spec["document_questions"].as_array().unwrap() {
        let r = env.json(&["recall", q["q"].as_str().unwrap()]);
        let top = &r["results"][0]["picture"];
        assert_eq!(top["name"], q["file"], "{} -> {r}", q["q"]);
        assert_eq!(top["page"], q["page"], "{} -> {r}", q["q"]);
    }
    let scan = fixture("pictures/scan.pdf");
    let imp = env.json(&["import", "--format", "media", scan.to_str().unwrap()]);
    assert_eq!(
        imp["documents_without_text"],
        serde_json::json!(["scan.pdf"]),
        "{imp}"
    );
    assert_eq!(env.json(&["doctor"])["pictures"]["wordless"], 1);
    // A PDF is not a picture; a damaged one is refused by name.
    let out = env.run(&["remember", "--image", book.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("import --format media"),
        "{}",
        stderr(&out)
    );
    let bytes = std::fs::read(&book).unwrap();
    let bad = write(env.dir.path(), "cut.pdf", &bytes[..bytes.len() / 2]);
    let out = env.run(&["import", "--format", "media", bad.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("cut.pdf"), "{}", stderr(&out));
}

fn count_files(dir: &Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        n += if p.is_dir() { count_files(&p) } else { 1 };
    }
    n
}

#[test]
fn a_backup_keeps_the_pictures_files_and_a_restore_puts_them_back() {
    let env = Env::new();
    let pic = fixture("pictures").join("sunset.png");
    let out = env.run(&[
        "remember",
        "--image",
        pic.to_str().unwrap(),
        "sunset over the bay",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let shown = |e: &Env| -> PathBuf {
        let r = e.json(&["recall", "sunset over the bay", "--show-weak"]);
        let all = r["results"]
            .as_array()
            .unwrap()
            .iter()
            .chain(r["weak"].as_array().unwrap());
        let p = all
            .filter_map(|x| x["picture"]["path"].as_str())
            .next()
            .unwrap_or_else(|| panic!("no picture in {r}"));
        PathBuf::from(p)
    };
    let original = shown(&env);
    let backup = env.dir.path().join("b.db");
    let b = env.json(&["backup", backup.to_str().unwrap()]);
    assert_eq!(b["media"]["files"], 1, "{b}");
    assert_eq!(b["media"]["copied"], 1, "{b}");

    // Restored into a new home that never had the file: it is put back, byte for byte.
    let other = Env::new();
    let r = other.json(&["restore", backup.to_str().unwrap()]);
    assert_eq!(r["media"]["copied"], 1, "{r}");
    assert_eq!(r["media"]["missing"], serde_json::json!([]), "{r}");
    let restored = shown(&other);
    assert_ne!(restored, original);
    assert_eq!(
        std::fs::read(&restored).unwrap(),
        std::fs::read(&pic).unwrap()
    );

    // A backup whose file is gone says so; a second restore adds nothing.
    let media = backup.with_extension("db.media");
    assert_eq!(count_files(&media), 1);
    let r = other.json(&["restore", backup.to_str().unwrap()]);
    assert_eq!(r["media"]["copied"], 0, "{r}");
    std::fs::remove_dir_all(&media).unwrap();
    std::fs::remove_file(&restored).unwrap();
    let r = other.json(&["restore", backup.to_str().unwrap()]);
    assert_eq!(r["media"]["missing"].as_array().unwrap().len(), 1, "{r}");
}

#[test]
fn deleting_a_pictures_last_memory_removes_its_file_and_thumbnail() {
    let env = Env::new();
    let pic = fixture("pictures").join("sunset.png");
    let mut ids = Vec::new();
    for note in ["sunset over the bay", "the evening ferry"] {
        let v = env.json(&["remember", "--image", pic.to_str().unwrap(), note]);
        ids.push(v["id"].as_i64().unwrap_or_else(|| panic!("{v}")));
    }
    let shown = env.json(&["recall", "sunset over the bay", "--show-weak"]);
    let first = shown["results"]
        .as_array()
        .unwrap()
        .iter()
        .chain(shown["weak"].as_array().unwrap())
        .find(|x| x["picture"].is_object())
        .unwrap_or_else(|| panic!("no picture in {shown}"))
        .clone();
    let file = PathBuf::from(first["picture"]["path"].as_str().unwrap());
    let thumb = PathBuf::from(first["picture"]["thumbnail"].as_str().unwrap());
    assert!(file.is_file() && thumb.is_file());
    // The other memory still keeps the same file.
    let out = env.run(&["delete", &ids[0].to_string()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(file.is_file() && thumb.is_file());
    let out = env.run(&["delete", &ids[1].to_string()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!file.exists(), "{} is still there", file.display());
    assert!(!thumb.exists(), "{} is still there", thumb.display());
    // Saved again, it is back.
    let v = env.json(&["remember", "--image", pic.to_str().unwrap()]);
    assert!(v["id"].is_i64(), "{v}");
    assert!(file.is_file());
}
