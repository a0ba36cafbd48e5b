//! `slm dashboard`: the Memories search, the Recall Lab, saved views and status, in the
//! browser, served by this binary (issue 36).
//!
//! * **Server**: [`tiny_http`] (a small, synchronous HTTP/1.1 server: the dashboard is a few
//!   requests a second from one person, and a thread pool over blocking calls matches the
//!   worker client it calls), a fixed pool of [`THREADS`] threads. Pages are [`maud`]
//!   templates: compiled with the binary, and every interpolated string is HTML-escaped, so a
//!   stored `<script>` renders as text.
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
/// (up to three bytes each) and its other fields. Larger bodies get 413 unread.
pub const MAX_BODY: usize = 4 * crate::memory::MAX_TEXT_BYTES;

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
    let server = tiny_http::Server::http(sock)
        .map_err(|e| Error::Other(format!("listening on {}: {e}", opts.addr)))?;
    let bound = server
        .server_addr()
        .to_ip()
        .map(|a| a.to_string())
        .unwrap_or_else(|| opts.addr.clone());
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
    let server = Arc::new(server);
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            let (server, ctx) = (server.clone(), ctx.clone());
            std::thread::spawn(move || {
                while let Ok(req) = server.recv() {
                    routes::handle(&ctx, req);
                }
            })
        })
        .collect();
    for t in threads {
        let _ = t.join();
    }
    Ok(())
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
