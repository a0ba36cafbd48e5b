//! `slm serve --http [ADDR]`: `GET /recall` for agents that speak HTTP.
//!
//! Loopback only unless `--allow-remote` says otherwise, and every request must carry the
//! per-install token (`http.token` in the data dir, created 0600 on first start) as
//! `Authorization: Bearer <token>` or `X-SLM-Token: <token>`, so neither another local user
//! nor a web page in a browser can read memories. `GET /recall?q=…` takes the MCP recall
//! tool's parameters and runs the same request through the same worker; it is not a second
//! engine. Busy → `503` with `Retry-After` and `code: RECALL_BUSY`; bad parameters → `400`
//! naming the parameter; a missing or wrong token → `401` (the `Bearer` scheme in any case).
//! Nothing is buffered without bound before the token is checked: the request line and the
//! headers are capped while they are read (`414`, `431`; see `wire`).

use crate::agent::Front;
use crate::error::RemoteError;
use crate::{Error, Result};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

mod wire;

pub const DEFAULT_ADDR: &str = "127.0.0.1:7377";
/// Reading a token file another process is still writing: this many tries, this far apart
/// (a second in all, for a write of 64 bytes). Chosen, not measured.
const TOKEN_READ_TRIES: usize = 100;
const TOKEN_READ_PAUSE: std::time::Duration = std::time::Duration::from_millis(10);
/// Connections served at once (a thread each); past this the server answers 503 at once.
pub const MAX_IN_FLIGHT: usize = 32;
/// The parameters `GET /recall` accepts (the MCP recall tool's, with `q` for `query`).
pub const RECALL_PARAMS: &[&str] = &[
    "q",
    "query",
    "include_related",
    "show_weak",
    "depth",
    "max_tokens",
    "budget_s",
    "limit",
    "window",
    "as_of",
    "known_as_of",
    "valid_at",
    "include_shared",
    "include_global",
    "kind",
];

/// The per-install token, created on first use (0600). Two processes starting at once
/// agree on one token: the file is created exclusively, and a reader that finds it still
/// being written waits a moment.
pub fn token(front: &Front) -> Result<String> {
    use std::io::{Read, Write};
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let path = front.paths.data.join("http.token");
    std::fs::create_dir_all(&front.paths.data)
        .map_err(|e| Error::io(format!("creating {}", front.paths.data.display()), e))?;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| Error::io("reading /dev/urandom", e))?;
    let fresh: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
    {
        Ok(mut f) => {
            f.write_all(fresh.as_bytes())
                .and_then(|_| f.sync_all())
                .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
            return Ok(fresh);
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(Error::io(format!("creating {}", path.display()), e)),
    }
    let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
    // Another process made the file a moment ago and may still be writing it.
    for _ in 0..TOKEN_READ_TRIES {
        let t = std::fs::read_to_string(&path)
            .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
        if t.trim().len() >= 64 {
            return Ok(t.trim().to_string());
        }
        std::thread::sleep(TOKEN_READ_PAUSE);
    }
    Err(Error::Other(format!(
        "{} is not a token (shorter than 64 hex digits); delete it and a new one is made",
        path.display()
    )))
}

/// Serve until killed.
pub fn serve(front: Front, addr: &str, allow_remote: bool) -> Result<()> {
    let sock: SocketAddr = addr.parse().map_err(|_| {
        Error::Usage(format!(
            "--http {addr:?}: expected an address like {DEFAULT_ADDR}"
        ))
    })?;
    if !sock.ip().is_loopback() && !allow_remote {
        return Err(Error::Usage(format!(
            "--http {addr}: not a loopback address; memories would be reachable from other machines. Pass --allow-remote if that is what you want"
        )));
    }
    let token = Arc::new(token(&front)?);
    let listener = std::net::TcpListener::bind(sock)
        .map_err(|e| Error::io(format!("listening on {addr}"), e))?;
    eprintln!(
        "slm http: listening on http://{} (token in {})",
        listener
            .local_addr()
            .map(|a| a.to_string())
            .unwrap_or_else(|_| addr.to_string()),
        front.paths.data.join("http.token").display()
    );
    let front = Arc::new(front);
    let in_flight = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        let Ok(conn) = conn else { continue };
        if in_flight.fetch_add(1, Ordering::SeqCst) >= MAX_IN_FLIGHT {
            in_flight.fetch_sub(1, Ordering::SeqCst);
            let body = json!({ "error": { "code": "RECALL_BUSY", "message": "too many requests at once", "retryable": true } });
            wire::respond(&conn, 503, &to_bytes(&body), Some(1));
            continue;
        }
        let (front, token, in_flight) = (front.clone(), token.clone(), in_flight.clone());
        std::thread::spawn(move || {
            // Counted down even if answering panics, so the slots never leak.
            struct Done(Arc<AtomicUsize>);
            impl Drop for Done {
                fn drop(&mut self) {
                    self.0.fetch_sub(1, Ordering::SeqCst);
                }
            }
            let _done = Done(in_flight);
            match wire::read_head(&conn) {
                Ok(head) => {
                    let (status, body, retry) = answer(&front, &token, &head);
                    wire::respond(&conn, status, &to_bytes(&body), retry);
                }
                Err(wire::HeadError::Closed) => {}
                Err(e) => {
                    let body = json!({ "error": { "code": "BAD_REQUEST", "message": head_error_text(&e), "retryable": false } });
                    wire::respond(&conn, e.status(), &to_bytes(&body), None);
                    wire::drain(&conn);
                }
            }
        });
    }
    Ok(())
}

fn to_bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

fn head_error_text(e: &wire::HeadError) -> String {
    match e {
        wire::HeadError::UriTooLong => format!(
            "the request line is longer than {} bytes",
            wire::MAX_REQUEST_LINE
        ),
        wire::HeadError::HeadersTooLarge => format!(
            "the headers are larger than {} bytes or more than {} lines",
            wire::MAX_HEADER_BYTES,
            wire::MAX_HEADERS
        ),
        wire::HeadError::Timeout => format!(
            "the request head did not arrive within {} s",
            wire::HEAD_TIMEOUT.as_secs()
        ),
        wire::HeadError::Malformed(why) => format!("not an HTTP/1.1 request: {why}"),
        wire::HeadError::Closed => String::new(),
    }
}

/// The token of `Authorization: Bearer <token>` (the scheme in any case, RFC 9110 §11.1)
/// or of `X-SLM-Token: <token>`.
fn given_token(head: &wire::Head) -> Option<&str> {
    head.header("X-SLM-Token").or_else(|| {
        let v = head.header("Authorization")?.trim_start();
        let (scheme, rest) = v.split_once([' ', '\t'])?;
        scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
    })
}

/// Equal without an early exit, so the token cannot be guessed byte by byte by timing.
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

fn answer(front: &Front, token: &str, head: &wire::Head) -> (u16, Value, Option<u64>) {
    if !given_token(head).is_some_and(|g| same(g.trim(), token)) {
        return (
            401,
            json!({ "error": { "code": "UNAUTHORIZED", "message": "a valid token is required (Authorization: Bearer <token>; the token is in http.token in the data dir)", "retryable": false } }),
            None,
        );
    }
    let (path, query) = head.target.split_once('?').unwrap_or((&head.target, ""));
    if head.method != "GET" {
        return (
            405,
            json!({ "error": { "code": "METHOD", "message": "only GET is served" } }),
            None,
        );
    }
    match path {
        "/health" => (
            200,
            json!({ "ok": true, "version": env!("CARGO_PKG_VERSION") }),
            None,
        ),
        "/recall" => match recall_args(query) {
            Err(e) => error_response(&e),
            Ok(args) => match front.call("recall", &args) {
                Ok(v) => (200, v, None),
                Err(e) => error_response(&e),
            },
        },
        _ => (
            404,
            json!({ "error": { "code": "NOT_FOUND", "message": format!("no such endpoint: {path}") } }),
            None,
        ),
    }
}

/// The HTTP status of an error slm answers with (also the dashboard's).
pub(crate) fn status_of(e: &RemoteError) -> u16 {
    match e.code.as_str() {
        "USAGE" | "BAD_INPUT" => 400,
        "RECALL_BUSY" | "WRITE_BUSY" | "STORE_REPLACED" => 503,
        "NOT_FOUND" => 404,
        _ => 500,
    }
}

fn error_response(e: &Error) -> (u16, Value, Option<u64>) {
    let re = RemoteError::from(e);
    let status = status_of(&re);
    let retry = (status == 503).then(|| re.retry_after_s.unwrap_or(1));
    (status, json!({ "error": re }), retry)
}

/// `q=…&depth=…` into the recall tool's arguments; unknown or repeated parameters are errors.
fn recall_args(query: &str) -> Result<Value> {
    let mut args = serde_json::Map::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let k = decode(k)?;
        let v = decode(v)?;
        if !RECALL_PARAMS.contains(&k.as_str()) {
            return Err(Error::Usage(format!(
                "unknown parameter {k:?}; /recall takes {}",
                RECALL_PARAMS.join(", ")
            )));
        }
        let key = if k == "q" { "query".to_string() } else { k };
        if args.insert(key.clone(), Value::String(v)).is_some() {
            return Err(Error::Usage(format!("parameter {key:?} given twice")));
        }
    }
    if !args.contains_key("query") {
        return Err(Error::Usage("q (the question) is required".into()));
    }
    Ok(Value::Object(args))
}

/// Percent-decoding of a query component (`+` is a space).
pub(crate) fn decode(s: &str) -> Result<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("zz");
                let v = u8::from_str_radix(hex, 16)
                    .map_err(|_| Error::Usage(format!("bad percent-escape in {s:?}")))?;
                out.push(v);
                i += 2;
            }
            b'%' => return Err(Error::Usage(format!("bad percent-escape in {s:?}"))),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| Error::Usage(format!("{s:?} is not UTF-8 once decoded")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_strings_decode_and_are_validated() {
        let a = recall_args("q=which+db%3F&depth=0").unwrap();
        assert_eq!(a["query"], "which db?");
        assert_eq!(a["depth"], "0");
        assert!(recall_args("depth=1").is_err(), "q is required");
        assert!(recall_args("q=x&bogus=1").is_err());
        assert!(recall_args("q=x&q=y").is_err());
        assert!(recall_args("q=%zz").is_err());
        assert!(recall_args("q=%4").is_err());
        assert_eq!(decode("%C3%A9t%C3%A9").unwrap(), "été");
        assert!(same("abc", "abc") && !same("abc", "abd") && !same("abc", "ab"));
        let head = |v: &str| wire::Head {
            method: "GET".into(),
            target: "/".into(),
            headers: vec![("authorization".into(), v.into())],
        };
        for v in ["Bearer t0k", "bearer t0k", "BEARER   t0k "] {
            assert_eq!(given_token(&head(v)), Some("t0k"), "{v}");
        }
        assert_eq!(given_token(&head("Basic t0k")), None);
        assert_eq!(given_token(&head("Bearert0k")), None);
    }
}
