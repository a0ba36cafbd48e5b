//! The dashboard driven by a real browser (issue 36): headless Chromium through its
//! WebDriver (`chromedriver`, Debian's `chromium-driver`, which `scripts/test.sh` installs),
//! against the real worker and models. It signs in with the one-time code, searches, toggles
//! Show closest matches, opens a memory and edits it, runs the Recall Lab, saves a view and
//! runs it again, and checks what the page shows. With `SLM_SCREENSHOTS_DIR` set it writes a
//! 1280×800 screenshot of each page there (`scripts/screenshots.sh`).

use crate::common::{StopWorker, start_worker, worker_env};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";

/// A process killed when dropped.
struct Proc(std::process::Child);
impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct Browser {
    base: String,
    session: String,
    agent: ureq::Agent,
    _driver: Proc,
}

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

impl Browser {
    fn start() -> Browser {
        assert!(
            std::path::Path::new(CHROMEDRIVER).exists() && std::path::Path::new(CHROMIUM).exists(),
            "the browser test needs Debian's chromium and chromium-driver (scripts/test.sh installs them: apt-get install chromium chromium-driver)"
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let driver = Proc(
            std::process::Command::new(CHROMEDRIVER)
                .arg(format!("--port={port}"))
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("chromedriver starts"),
        );
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let base = format!("http://127.0.0.1:{port}");
        let t = Instant::now();
        while agent.get(&format!("{base}/status")).call().is_err() {
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut b = Browser {
            base,
            session: String::new(),
            agent,
            _driver: driver,
        };
        let caps = json!({ "capabilities": { "alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": { "binary": CHROMIUM,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,800"] } } } });
        let r = b.call("POST", "/session", Some(caps));
        b.session = r["value"]["sessionId"]
            .as_str()
            .expect("a session")
            .to_string();
        // The page itself 1280×800 (the window size counts the browser's own frame).
        b.call(
            "POST",
            &b.s("/goog/cdp/execute"),
            Some(json!({ "cmd": "Emulation.setDeviceMetricsOverride",
                "params": { "width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false } })),
        );
        b
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let resp = match method {
            "GET" => self.agent.get(&url).call(),
            "DELETE" => self.agent.delete(&url).call(),
            _ => self
                .agent
                .post(&url)
                .header("Content-Type", "application/json")
                .send(&body.unwrap_or(json!({})).to_string()),
        };
        let text = resp
            .expect("chromedriver answers")
            .body_mut()
            .read_to_string()
            .unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert!(
            v["value"]["error"].is_null(),
            "{method} {path}: {}",
            v["value"]
        );
        v
    }

    fn s(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    fn go(&self, url: &str) {
        self.call("POST", &self.s("/url"), Some(json!({ "url": url })));
    }

    fn url(&self) -> String {
        self.call("GET", &self.s("/url"), None)["value"]
            .as_str()
            .unwrap()
            .to_string()
    }

    fn find(&self, css: &str) -> String {
        let r = self.call(
            "POST",
            &self.s("/element"),
            Some(json!({ "using": "css selector", "value": css })),
        );
        r["value"][ELEMENT].as_str().unwrap().to_string()
    }

    /// Wait (up to 20 s) for an element to be on the page: a form's submission navigates
    /// after the click has returned.
    fn wait_for(&self, css: &str) {
        let t = Instant::now();
        loop {
            let r = self.call(
                "POST",
                &self.s("/elements"),
                Some(json!({ "using": "css selector", "value": css })),
            );
            if r["value"].as_array().is_some_and(|a| !a.is_empty()) {
                return;
            }
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "{css} never appeared"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn text(&self, css: &str) -> String {
        let e = self.find(css);
        self.call("GET", &self.s(&format!("/element/{e}/text")), None)["value"]
            .as_str()
            .unwrap()
            .to_string()
    }

    fn attr(&self, css: &str, name: &str) -> Value {
        let e = self.find(css);
        self.call(
            "GET",
            &self.s(&format!("/element/{e}/property/{name}")),
            None,
        )["value"]
            .clone()
    }

    fn click(&self, css: &str) {
        let e = self.find(css);
        self.call(
            "POST",
            &self.s(&format!("/element/{e}/click")),
            Some(json!({})),
        );
    }

    fn type_in(&self, css: &str, text: &str) {
        let e = self.find(css);
        self.call(
            "POST",
            &self.s(&format!("/element/{e}/clear")),
            Some(json!({})),
        );
        self.call(
            "POST",
            &self.s(&format!("/element/{e}/value")),
            Some(json!({ "text": text })),
        );
    }

    fn page(&self) -> String {
        self.call("GET", &self.s("/source"), None)["value"]
            .as_str()
            .unwrap()
            .to_string()
    }

    fn screenshot(&self, name: &str) {
        let Some(dir) = std::env::var_os("SLM_SCREENSHOTS_DIR") else {
            return;
        };
        let b64 = self.call("GET", &self.s("/screenshot"), None)["value"]
            .as_str()
            .unwrap()
            .to_string();
        let png = decode_base64(&b64);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(std::path::Path::new(&dir).join(format!("{name}.png")), png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self
                .agent
                .delete(&format!("{}/session/{}", self.base, self.session))
                .call();
        }
    }
}

fn decode_base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let bytes: Vec<u8> = s
        .bytes()
        .filter(|c| *c != b'=' && !c.is_ascii_whitespace())
        .collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, c)| {
            acc | (u32::from(val(*c)) << (18 - 6 * i))
        });
        out.push((n >> 16) as u8);
        if chunk.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if chunk.len() > 3 {
            out.push(n as u8);
        }
    }
    out
}

#[test]
fn a_browser_signs_in_searches_edits_traces_and_saves_a_view() {
    let env = worker_env();
    for t in [
        "We chose Postgres for the analytics warehouse",
        "The staging database listens on port 5433",
        "Maria owns the billing service",
        "Release notes go out every second Thursday",
        "The <b>deploy</b> key lives in the team vault, never in the repo",
    ] {
        env.run(&["remember", t]);
    }
    start_worker(&env, &[]);
    let _stop = StopWorker(&env);
    let dash = crate::dashboard::start(&env);
    let printed = dash.printed.clone();
    let login = printed
        .split_whitespace()
        .find(|w| w.contains("/?login="))
        .expect("a sign-in address")
        .to_string();
    let root = login.split("/?").next().unwrap().to_string();

    let b = Browser::start();
    // Signed out: the sign-in page.
    b.go(&format!("{root}/memories"));
    assert!(b.url().ends_with("/login"), "{}", b.url());
    b.go(&login);
    assert!(b.url().ends_with("/memories"), "{}", b.url());
    let list = b.text("ol.memories");
    assert!(list.contains("Maria owns the billing service"), "{list}");
    assert!(
        list.contains("The <b>deploy</b> key"),
        "markup shown as text: {list}"
    );
    b.screenshot("memories");

    // Search, as slm recall answers it.
    let q = "what port does the staging database use?";
    b.type_in("form.search input[name=q]", q);
    b.click("form.search button[type=submit]");
    b.wait_for("section.answer");
    let cli = env.json(&["recall", q]);
    let tier = b.attr("section.answer", "dataset")["tier"].clone();
    assert_eq!(tier, cli["tier"], "the same tier as slm recall");
    let first = b.text("ol.results li.result .text");
    assert_eq!(first, cli["results"][0]["text"].as_str().unwrap());
    b.screenshot("search");

    // Show closest matches: the box answers at once (the page's script submits the form).
    b.type_in("form.search input[name=q]", "When is Maria's birthday?");
    b.click("form.search button[type=submit]");
    b.wait_for("section.answer");
    let before = b.text("section.answer p.tier");
    b.click("form.search input[name=weak]");
    let t = Instant::now();
    while !b.url().contains("weak=1") {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the toggle did not search again"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        b.attr("form.search input[name=weak]", "checked"),
        json!(true)
    );
    let cli = env.json(&["recall", "When is Maria's birthday?", "--show-weak"]);
    assert_eq!(b.attr("section.answer", "dataset")["tier"], cli["tier"]);
    assert_ne!(cli["tier"], "supported", "{before}");
    // What is shown as related is not listed again among the weak matches.
    let shown: Vec<&Value> = cli["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert!(!shown.is_empty(), "{cli}");
    for w in cli["weak"].as_array().unwrap() {
        assert!(!shown.contains(&&w["id"]), "{cli}");
    }
    b.screenshot("closest-matches");

    // Open a memory and edit it.
    b.go(&format!("{root}/memories?q=Maria+billing"));
    b.click("ol.results li.result a.id");
    b.wait_for("blockquote.fulltext");
    assert!(b.url().contains("/memories/"), "{}", b.url());
    let id: i64 = b.url().rsplit('/').next().unwrap().parse().unwrap();
    b.type_in(
        "textarea[name=text]",
        "Maria owns the billing and invoicing services",
    );
    b.click("form[action$='/edit'] button[type=submit]");
    b.wait_for("p.notice");
    assert!(b.text("p.notice").contains(&format!("Saved memory #{id}")));
    let shown = env.json(&["show", &id.to_string()]);
    assert_eq!(
        shown["memory"]["text"],
        "Maria owns the billing and invoicing services"
    );
    b.screenshot("memory");

    // The Recall Lab.
    b.go(&format!("{root}/lab"));
    b.type_in(
        "form.search input[name=q]",
        "Which database did we choose for analytics?",
    );
    b.click("form.search button[type=submit]");
    b.wait_for("table.timings");
    let lab = b.page();
    for stage in ["2. Channels", "3. Fusion", "4. Support", "Stage timings"] {
        assert!(lab.contains(stage), "{stage}");
    }
    assert!(lab.contains("semantic"), "the vector channel ran");
    b.screenshot("lab");

    // Save a view from a search, then run it.
    b.go(&format!("{root}/memories?q=who+owns+billing%3F"));
    b.type_in("form.inline input[name=name]", "Billing owner");
    b.click("form.inline button[type=submit]");
    b.wait_for("table.views");
    assert!(b.url().ends_with("/views"), "{}", b.url());
    assert!(b.text("table.views").contains("Billing owner"));
    b.click("table.views a");
    b.wait_for("section.answer");
    let ran = b.text("section.answer");
    assert!(
        ran.contains("Maria owns the billing and invoicing services"),
        "{ran}"
    );
    b.screenshot("views");

    b.go(&format!("{root}/status"));
    assert!(b.text("main").contains("Worker"));
    b.screenshot("status");
}
