//! `slm dashboard` (issue 36) over real HTTP: the sign-in and its cookie, every page behind
//! it, escaping of stored text, the CSRF and origin checks on writes, loopback only, and a
//! search that answers exactly as `slm recall` does.

use crate::common::{Env, code, stderr};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

/// A running dashboard, stopped when dropped.
pub struct Dash {
    child: std::process::Child,
    pub addr: String,
    /// What it printed on standard error when it started (its first two lines).
    pub printed: String,
    /// Everything it printed on standard error, read as it comes.
    all: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Drop for Dash {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn env() -> Env {
    Env::new()
        .with("SLM_EMBEDDER", "hash")
        .with("SLM_WORKER", "off")
}

/// Start `slm dashboard` of `env` on a free port (also the browser test's).
pub fn start(env: &Env) -> Dash {
    let mut child = env
        .cmd(&["dashboard", "--addr", "127.0.0.1:0", "--no-open"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("slm dashboard starts");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut printed = String::new();
    for _ in 0..2 {
        err.read_line(&mut printed).unwrap();
    }
    let all = std::sync::Arc::new(std::sync::Mutex::new(printed.clone()));
    {
        let all = all.clone();
        std::thread::spawn(move || {
            for line in err.lines().map_while(|l| l.ok()) {
                all.lock().unwrap().push_str(&line);
            }
        });
    }
    let addr = printed
        .split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .expect("the address is printed")
        .to_string();
    Dash {
        child,
        addr,
        printed,
        all,
    }
}

/// One request: (status, headers lowercased, body).
fn http(
    d: &Dash,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let mut s = TcpStream::connect(&d.addr).unwrap();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
        d.addr
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if method == "POST" {
        req.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let out = String::from_utf8_lossy(&out).to_string();
    let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_string())
}

fn token(env: &Env) -> String {
    std::fs::read_to_string(env.home().join("http.token"))
        .unwrap()
        .trim()
        .to_string()
}

/// Sign in with the token in the address; returns the Cookie header to send.
fn sign_in(env: &Env, d: &Dash) -> String {
    let (status, head, _) = http(d, "GET", &format!("/?token={}", token(env)), &[], "");
    assert_eq!(status, 303, "{head}");
    let line = head
        .lines()
        .find(|l| l.starts_with("set-cookie:"))
        .expect("a cookie is set");
    assert!(
        line.contains("httponly") && line.contains("samesite=strict"),
        "{line}"
    );
    assert!(
        !line.contains(&token(env)),
        "the cookie never holds the token"
    );
    let v = line.trim_start_matches("set-cookie:").trim();
    v.split(';').next().unwrap().to_string()
}

fn csrf(page: &str) -> String {
    page.split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("the form carries a csrf value")
        .to_string()
}

#[test]
fn without_the_token_every_page_is_a_redirect_or_401_and_the_token_is_never_printed() {
    let env = env();
    env.run(&["remember", "The staging database listens on port 5433"]);
    let d = start(&env);
    assert!(!d.printed.contains(&token(&env)), "{}", d.printed);
    for path in [
        "/memories",
        "/memories/1",
        "/lab?q=port",
        "/views",
        "/status",
    ] {
        let (status, head, body) = http(&d, "GET", path, &[], "");
        assert_eq!(status, 303, "{path}: {head}");
        assert!(head.contains("location: /login"), "{path}: {head}");
        assert!(!body.contains("5433"), "{path}");
    }
    let (status, _, body) = http(&d, "POST", "/memories/1/delete", &[], "csrf=x");
    assert_eq!(status, 401);
    assert!(!body.contains("5433"));
    let (status, _, _) = http(&d, "GET", "/?token=wrong", &[], "");
    assert_eq!(status, 401);
    let (status, _, _) = http(
        &d,
        "GET",
        "/memories",
        &[("Cookie", "slm_session=forged")],
        "",
    );
    assert_eq!(status, 303);
    // The token as a bearer works, as for GET /recall.
    let auth = format!("Bearer {}", token(&env));
    let (status, head, body) = http(&d, "GET", "/memories", &[("Authorization", &auth)], "");
    assert_eq!(status, 200);
    assert!(body.contains("5433"));
    assert!(
        head.contains("content-security-policy: default-src 'none'"),
        "{head}"
    );
    // The one-time code it printed signs in once.
    let code = d
        .printed
        .split("login=")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    assert_eq!(http(&d, "GET", &format!("/?login={code}"), &[], "").0, 303);
    assert_eq!(http(&d, "GET", &format!("/?login={code}"), &[], "").0, 401);
    let said = d.all.lock().unwrap().clone();
    assert!(
        !said.contains(&token(&env)),
        "the token is never logged: {said}"
    );
}

#[test]
fn stored_markup_renders_as_text_on_every_page() {
    let env = env();
    let evil = "<script>alert('x')</script><img src=x onerror=alert(1)> billing owner";
    env.run(&["remember", evil]);
    let d = start(&env);
    let cookie = sign_in(&env, &d);
    let h = [("Cookie", cookie.as_str())];
    for path in [
        "/memories",
        "/memories/1",
        "/memories?q=billing+owner&weak=1",
        "/lab?q=billing+owner",
    ] {
        let (status, _, body) = http(&d, "GET", path, &h, "");
        assert_eq!(status, 200, "{path}");
        assert!(
            !body.contains("<script>alert"),
            "{path}: raw script in the page"
        );
        assert!(!body.contains("<img src=x"), "{path}: raw img in the page");
        assert!(
            body.contains("&lt;script&gt;alert"),
            "{path}: the text is shown, escaped"
        );
    }
}

#[test]
fn writes_need_the_pages_csrf_value_and_the_same_origin() {
    let env = env();
    env.run(&["remember", "Maria owns the billing service"]);
    let d = start(&env);
    let cookie = sign_in(&env, &d);
    let h = [("Cookie", cookie.as_str())];
    let (_, _, page) = http(&d, "GET", "/memories/1", &h, "");
    let good = csrf(&page);
    // Without the value, or with another, nothing changes.
    for body in ["text=changed", "text=changed&csrf=0123"] {
        let (status, _, _) = http(&d, "POST", "/memories/1/edit", &h, body);
        assert_eq!(status, 403, "{body}");
    }
    // From another site, even with the value (a page that read it somehow), refused.
    let cross = [
        ("Cookie", cookie.as_str()),
        ("Origin", "http://evil.example"),
    ];
    let (status, _, _) = http(
        &d,
        "POST",
        "/memories/1/edit",
        &cross,
        &format!("text=changed&csrf={good}"),
    );
    assert_eq!(status, 403);
    let shown = env.json(&["show", "1"]);
    assert_eq!(shown["memory"]["text"], "Maria owns the billing service");
    // The page's own form: saved.
    let (status, _, body) = http(
        &d,
        "POST",
        "/memories/1/edit",
        &h,
        &format!("text=Maria+owns+billing+and+invoicing&csrf={good}"),
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("Saved memory #1"));
    assert_eq!(
        env.json(&["show", "1"])["memory"]["text"],
        "Maria owns billing and invoicing"
    );
    // Pin, supersede, delete (the delete asks first).
    let (status, _, _) = http(
        &d,
        "POST",
        "/memories/1/pin",
        &h,
        &format!("pinned=1&csrf={good}"),
    );
    assert_eq!(status, 200);
    assert_eq!(env.json(&["show", "1"])["memory"]["pinned"], true);
    let (_, _, ask) = http(&d, "GET", "/memories/1?confirm=delete", &h, "");
    assert!(ask.contains("Yes, delete it"));
    let (status, head, _) = http(
        &d,
        "POST",
        "/memories/1/delete",
        &h,
        &format!("csrf={good}"),
    );
    assert_eq!(status, 303, "{head}");
    assert_ne!(code(&env.run(&["show", "1"])), 0, "deleted");
}

#[test]
fn a_non_loopback_address_is_refused_without_allow_remote() {
    let env = env();
    let out = env.run(&["dashboard", "--addr", "0.0.0.0:0", "--no-open"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("--allow-remote"), "{}", stderr(&out));
}

/// The tier and the result ids in order, as a dashboard page shows them.
fn shown(page: &str) -> (String, Vec<i64>) {
    let tier = page
        .split("data-tier=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or("")
        .to_string();
    let results = page.split("<ol class=\"results\">").nth(1).unwrap_or("");
    let results = results.split("</ol>").next().unwrap_or("");
    let ids = results
        .split("data-id=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next()?.parse().ok())
        .collect();
    (tier, ids)
}

#[test]
fn a_dashboard_search_answers_as_slm_recall_does_and_a_saved_view_reruns_it() {
    let env = env();
    for t in [
        "The staging database listens on port 5433",
        "The production database listens on port 5432",
        "Maria owns the billing service",
        "We chose Postgres for the analytics warehouse",
    ] {
        env.run(&["remember", t]);
    }
    let d = start(&env);
    let cookie = sign_in(&env, &d);
    let h = [("Cookie", cookie.as_str())];
    for (q, weak) in [
        ("staging database port", false),
        ("which database for analytics", false),
        ("volcano eruptions", true),
    ] {
        let mut args = vec!["recall", q];
        if weak {
            args.push("--show-weak");
        }
        let cli = env.json(&args);
        let ids: Vec<i64> = cli["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect();
        let path = format!(
            "/memories?q={}{}",
            q.replace(' ', "+"),
            if weak { "&weak=1" } else { "" }
        );
        let (status, _, page) = http(&d, "GET", &path, &h, "");
        assert_eq!(status, 200);
        assert_eq!(
            shown(&page),
            (cli["tier"].as_str().unwrap().to_string(), ids),
            "{q}"
        );
        if let Some(n) = cli["note"].as_str() {
            assert!(
                page.contains(&n.replace('\'', "&#39;").replace('"', "&quot;")) || page.contains(n),
                "{q}: the note as the CLI says it"
            );
        }
    }
    // Save the first question as a view, list it, run it.
    let (_, _, page) = http(&d, "GET", "/memories?q=staging+database+port", &h, "");
    let body = format!(
        "name=Staging+port&q=staging+database+port&kind=&window=&csrf={}",
        csrf(&page)
    );
    let (status, _, views) = http(&d, "POST", "/views", &h, &body);
    assert_eq!(status, 200);
    assert!(views.contains("Staging port") && views.contains("staging database port"));
    let (status, _, ran) = http(&d, "GET", "/views/run?name=Staging+port", &h, "");
    assert_eq!(status, 200);
    let cli = env.json(&["recall", "staging database port"]);
    let ids: Vec<i64> = cli["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(
        shown(&ran),
        (cli["tier"].as_str().unwrap().to_string(), ids)
    );
    // The Lab draws the trace's stages.
    let (_, _, lab) = http(&d, "GET", "/lab?q=staging+database+port", &h, "");
    for stage in [
        "1. The question",
        "2. Channels",
        "3. Fusion",
        "4. Support",
        "5. Tiers",
        "Stage timings",
        "The whole trace",
    ] {
        assert!(lab.contains(stage), "{stage}");
    }
    // Status answers without a worker.
    let (status, _, st) = http(&d, "GET", "/status", &h, "");
    assert_eq!(status, 200);
    assert!(st.contains("Not running"));
}

#[test]
fn an_oversized_head_or_body_is_refused_unread() {
    let env = env();
    env.run(&["remember", "Maria owns the billing service"]);
    let d = start(&env);
    // A head of a megabyte: 431, and the server is not left holding it.
    let mut s = TcpStream::connect(&d.addr).unwrap();
    let _ = s.write_all(b"GET /memories HTTP/1.1\r\nHost: x\r\nX-Big: ");
    let _ = s.write_all(&vec![b'a'; 1 << 20]);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let head = String::from_utf8_lossy(&out);
    assert!(head.starts_with("HTTP/1.1 431"), "{head}");
    // A body over the cap: 413, nothing changed.
    let cookie = sign_in(&env, &d);
    let h = [("Cookie", cookie.as_str())];
    let big = format!("text={}", "a".repeat(300_000));
    let (status, _, _) = http(&d, "POST", "/memories/1/edit", &h, &big);
    assert_eq!(status, 413);
    assert_eq!(
        env.json(&["show", "1"])["memory"]["text"],
        "Maria owns the billing service"
    );
    // And it still answers.
    assert_eq!(http(&d, "GET", "/memories", &h, "").0, 200);
}

#[test]
fn the_profile_filter_shows_another_profile_and_is_kept_for_the_next_pages() {
    let env = env();
    env.run(&["remember", "Default profile: the office closes at six"]);
    env.run(&[
        "remember",
        "Work profile: the release train leaves on Thursdays",
        "--profile",
        "work",
    ]);
    let d = start(&env);
    let cookie = sign_in(&env, &d);
    let (_, _, mine) = http(&d, "GET", "/memories", &[("Cookie", cookie.as_str())], "");
    assert!(mine.contains("office closes") && !mine.contains("release train"));
    let (status, head, work) = http(
        &d,
        "GET",
        "/memories?profile=work",
        &[("Cookie", cookie.as_str())],
        "",
    );
    assert_eq!(status, 200);
    assert!(work.contains("release train") && !work.contains("office closes"));
    let kept = head
        .lines()
        .find(|l| l.starts_with("set-cookie: slm_profile="))
        .expect("the choice is kept")
        .trim_start_matches("set-cookie: ")
        .split(';')
        .next()
        .unwrap()
        .to_string();
    // The next page (a search, here) is asked in the chosen profile.
    let both = format!("{cookie}; {kept}");
    let (_, _, found) = http(
        &d,
        "GET",
        "/memories?q=when+does+the+release+train+leave",
        &[("Cookie", both.as_str())],
        "",
    );
    assert!(found.contains("release train"), "{found}");
    assert_eq!(
        http(
            &d,
            "GET",
            "/memories?profile=%01",
            &[("Cookie", cookie.as_str())],
            ""
        )
        .0,
        400
    );
}

#[test]
fn a_picture_result_shows_its_thumbnail_name_and_file_and_only_to_a_signed_in_reader() {
    // Inline with the real models: the picture is read by OCR and its thumbnail written
    // before `remember` returns.
    let env = Env::new();
    let pic = crate::common::fixture("pictures").join("q3-revenue.png");
    let out = env.run(&["remember", "--image", pic.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let q = "third quarter revenue by region";
    let cli = env.json(&["recall", q, "--show-weak"]);
    let all: Vec<&serde_json::Value> = cli["results"]
        .as_array()
        .unwrap()
        .iter()
        .chain(cli["weak"].as_array().unwrap())
        .collect();
    let thumb = all
        .iter()
        .find_map(|x| x["picture"]["thumbnail"].as_str())
        .unwrap_or_else(|| panic!("no thumbnail in {cli}"));
    let name = std::path::Path::new(thumb)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let d = start(&env);
    let path = format!("/thumbs/{name}");
    let (status, _, _) = http(&d, "GET", &path, &[], "");
    assert_eq!(status, 303, "a thumbnail is not shown before signing in");
    let cookie = sign_in(&env, &d);
    let h = [("Cookie", cookie.as_str())];
    let (status, _, page) = http(
        &d,
        "GET",
        &format!("/memories?q={}&weak=1", q.replace(' ', "+")),
        &h,
        "",
    );
    assert_eq!(status, 200);
    assert!(page.contains(&path), "{page}");
    assert!(page.contains("q3-revenue.png"), "{page}");
    let (status, head, body) = http(&d, "GET", &path, &h, "");
    assert_eq!(status, 200, "{head}");
    assert!(head.contains("content-type: image/png"), "{head}");
    assert!(
        body.as_bytes().starts_with(b"\x89PNG") || body.contains("PNG"),
        "not a PNG"
    );
    for bad in ["/thumbs/../store.db", "/thumbs/abc.png", "/thumbs/"] {
        let (status, _, _) = http(&d, "GET", bad, &h, "");
        assert_eq!(status, 404, "{bad}");
    }
}
