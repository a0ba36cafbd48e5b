//! `slm dashboard`: the Memories search, the Recall Lab, saved views and status, in the
//! browser, served by this binary (issue 36).
//!
//! * **Server**: [`hyper`]'s HTTP/1.1 server on a small tokio runtime. hyper bounds what it
//!   buffers of a request head ([`MAX_HEAD`]; 431 past it) and how long the head may take
//!   ([`HEAD_TIMEOUT`]); the body is read up to [`MAX_BODY`]. (tiny_http was tried first: it
//!   buffers a request head without bound, 200 MB of one header line took 203 MB, its issue
//!   #56 open since 2015.) Each page runs on a blocking thread (at most [`THREADS`]), as the
//!   worker client it calls blocks. Pages are [`maud`] templates: compiled with the binary,
//!   and every interpolated string is HTML-escaped, so a stored `<script>` renders as text.
//! * **One engine**: every page runs the same requests the CLI sends (`backend`), through the
//!   warm worker or the cold path; there is no second engine.
//! * **Security** (`auth`): loopback only unless `--allow-remote`; the per-install token
//!   (`http.token`, as `slm serve --http` uses) as `Authorization: Bearer`, or a sign-in (the
//!   token in `/?token=…` or the form, or the one-time code the command prints) that sets an
//!   HttpOnly, SameSite=Strict cookie holding a value derived from the token, never the token.
//!   Without it, pages redirect to the sign-in and everything else is 401. Writes are POST
//!   only, each form carrying a CSRF value the server checks (and a cross-site `Origin` is
//!   refused). No external assets: a Content-Security-Policy allows only this server's own
//!   script and style. Request bodies are capped ([`MAX_BODY`]); the token is never logged.

mod auth;
mod backend;
mod lab;
mod pages;
mod routes;

use crate::agent::Front;
use crate::{Error, Result};
use std::net::SocketAddr;
use std::sync::Arc;

/// Where the dashboard listens unless `--addr` says otherwise.
pub const DEFAULT_ADDR: &str = "127.0.0.1:7378";
/// Requests served at once. Chosen, not measured: one person's browser opens a few
/// connections; a search holds its thread for a recall (tens of milliseconds warm).
pub const THREADS: usize = 8;
/// The largest request body read: a form with one memory text (32 KiB) percent-encoded
/// (up to three bytes each) and its other fields. Larger bodies get 413, not read past this.
pub const MAX_BODY: usize = 4 * crate::memory::MAX_TEXT_BYTES;
/// What hyper buffers of a request head at most (a longer head gets 431): room for a long
/// question in the address and the cookie. Chosen; hyper's own floor is 8 KiB.
pub const MAX_HEAD: usize = 64 * 1024;
/// How long a request head may take to arrive (as for `slm serve --http`).
pub const HEAD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// What `slm dashboard` was asked for.
pub struct Options {
    pub addr: String,
    pub allow_remote: bool,
    pub open: bool,
}

/// What every request handler shares.
pub(crate) struct Ctx {
    pub backend: backend::Backend,
    pub keys: auth::Keys,
    pub allow_remote: bool,
}

/// Serve until killed.
pub fn serve(front: Front, opts: Options) -> Result<()> {
    let sock: SocketAddr = opts.addr.parse().map_err(|_| {
        Error::Usage(format!(
            "--addr {:?}: expected an address like {DEFAULT_ADDR}",
            opts.addr
        ))
    })?;
    if !sock.ip().is_loopback() && !opts.allow_remote {
        return Err(Error::Usage(format!(
            "--addr {}: not a loopback address; your memories would be reachable from other machines. Pass --allow-remote if that is what you want",
            opts.addr
        )));
    }
    let token = crate::http::token(&front)?;
    let token_file = front.paths.data.join("http.token");
    let listener = std::net::TcpListener::bind(sock)
        .map_err(|e| Error::io(format!("listening on {}", opts.addr), e))?;
    let bound = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_else(|_| opts.addr.clone());
    let keys = auth::Keys::new(token);
    let code = keys.one_time_code();
    let url = format!("http://{bound}/?login={code}");
    eprintln!(
        "slm dashboard: listening on http://{bound}/\n  open {url} to sign in (the code works once, for {} s), or sign in with the token in {}",
        auth::ONE_TIME_CODE_LIFE.as_secs(),
        token_file.display()
    );
    if opts.open {
        open_browser(&url);
    }
    let ctx = Arc::new(Ctx {
        backend: backend::Backend::new(front),
        keys,
        allow_remote: opts.allow_remote,
    });
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(THREADS)
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| Error::io("starting the dashboard's server", e))?;
    rt.block_on(accept(listener, ctx))
}

/// Serve each connection with hyper, each request's page on a blocking thread.
async fn accept(listener: std::net::TcpListener, ctx: Arc<Ctx>) -> Result<()> {
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::io("listening", e))?;
    let listener =
        tokio::net::TcpListener::from_std(listener).map_err(|e| Error::io("listening", e))?;
    loop {
        let Ok((stream, remote)) = listener.accept().await else {
            continue;
        };
        let ctx = ctx.clone();
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |req| answer(ctx.clone(), remote, req));
            let _ = hyper::server::conn::http1::Builder::new()
                .max_buf_size(MAX_HEAD)
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                .await;
        });
    }
}

async fn answer(
    ctx: Arc<Ctx>,
    remote: std::net::SocketAddr,
    req: hyper::Request<hyper::body::Incoming>,
) -> std::result::Result<
    hyper::Response<http_body_util::Full<bytes::Bytes>>,
    std::convert::Infallible,
> {
    use http_body_util::BodyExt;
    let (parts, body) = req.into_parts();
    let body = http_body_util::Limited::new(body, MAX_BODY)
        .collect()
        .await
        .ok()
        .map(|b| b.to_bytes().to_vec());
    let input = routes::In {
        method: parts.method.as_str().to_string(),
        target: parts
            .uri
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_string(),
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
            .collect(),
        remote,
        body,
    };
    let out = tokio::task::spawn_blocking(move || routes::route(&ctx, &input))
        .await
        .unwrap_or_else(|_| routes::Out {
            status: 500,
            content_type: "text/plain; charset=utf-8",
            body: b"the page failed; see slm dashboard's standard error".to_vec(),
            headers: Vec::new(),
        });
    let mut resp = hyper::Response::builder().status(out.status);
    for (k, v) in out.all_headers() {
        resp = resp.header(k, v);
    }
    Ok(resp
        .body(http_body_util::Full::new(bytes::Bytes::from(out.body)))
        .unwrap_or_default())
}

/// Ask the desktop to open `url` (`xdg-open`, or `open` on macOS); a failure only means the
/// person opens the printed address themselves.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let spawned = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if spawned.is_err() {
        eprintln!("slm dashboard: could not start {opener}; open the address above yourself");
    }
}
