//! Requests to pages: the sign-in, the guard every other page sits behind (token or
//! cookie; CSRF and origin for writes), and one handler per page.

use super::auth::{COOKIE, cookie_value};
use super::backend::{Backend, Search, kind_of, scope_of};
use super::{Ctx, MAX_BODY, lab, pages};
use crate::memory::MemoryPatch;
use crate::store::ListFilter;
use crate::store::views::{SavedView, ViewFilters};
use crate::{Error, Result};
use maud::Markup;

/// Served with every response: nothing but this server's own script and style, no frames,
/// no referrer to other sites, nothing cached (pages hold memories).
const SECURITY_HEADERS: &[(&str, &str)] = &[
    (
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    // Not no-referrer: under it a browser sends `Origin: null` with a form POST, and the
    // origin check below could not tell the dashboard's own forms from anyone's.
    ("Referrer-Policy", "same-origin"),
    ("Cache-Control", "no-store"),
];

/// The cookie that keeps the profile chosen in the Memories filter.
const PROFILE_COOKIE: &str = "slm_profile";

const CSS: &str = include_str!("../../assets/dashboard.css");
const JS: &str = include_str!("../../assets/dashboard.js");

/// A request as the pages read it (the server, `super::serve`, fills it from HTTP).
pub struct In {
    pub method: String,
    /// Path and query, as sent.
    pub target: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub remote: std::net::SocketAddr,
    /// The body; `None` when it was larger than [`MAX_BODY`] (not read past that).
    pub body: Option<Vec<u8>>,
}

/// A response before it is sent.
pub struct Out {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    pub headers: Vec<(&'static str, String)>,
}

impl Out {
    /// Every header of the response: its own, its type, and [`SECURITY_HEADERS`].
    pub fn all_headers(&self) -> Vec<(&str, &str)> {
        let mut h = vec![("Content-Type", self.content_type)];
        h.extend(SECURITY_HEADERS.iter().copied());
        h.extend(self.headers.iter().map(|(k, v)| (*k, v.as_str())));
        h
    }
}

fn page(status: u16, m: Markup) -> Out {
    Out {
        status,
        content_type: "text/html; charset=utf-8",
        body: m.into_string().into_bytes(),
        headers: Vec::new(),
    }
}

fn redirect(to: &str) -> Out {
    Out {
        status: 303,
        content_type: "text/plain; charset=utf-8",
        body: Vec::new(),
        headers: vec![("Location", to.to_string())],
    }
}

fn error_page(e: &Error) -> Out {
    let re = crate::error::RemoteError::from(e);
    let status = crate::http::status_of(&re);
    let mut msg = re.message.clone();
    if let Some(s) = re.retry_after_s {
        msg.push_str(&format!(" Ask again in {s} s."));
    }
    page(status, pages::error(status, &msg))
}

/// Query or form parameters, decoded.
struct Params(Vec<(String, String)>);

impl Params {
    fn parse(s: &str) -> Result<Params> {
        let mut v = Vec::new();
        for pair in s.split('&').filter(|p| !p.is_empty()) {
            let (k, val) = pair.split_once('=').unwrap_or((pair, ""));
            v.push((crate::http::decode(k)?, crate::http::decode(val)?));
        }
        Ok(Params(v))
    }

    fn get(&self, k: &str) -> &str {
        self.0
            .iter()
            .find(|(n, _)| n == k)
            .map_or("", |(_, v)| v.as_str())
    }

    fn flag(&self, k: &str) -> bool {
        self.get(k) == "1"
    }
}

fn header<'a>(req: &'a In, name: &str) -> Option<&'a str> {
    req.headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn signed_in(ctx: &Ctx, req: &In) -> bool {
    let bearer = header(req, "X-SLM-Token").or_else(|| {
        let v = header(req, "Authorization")?.trim_start();
        let (scheme, rest) = v.split_once([' ', '\t'])?;
        scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
    });
    if bearer.is_some_and(|t| ctx.keys.token_ok(t)) {
        return true;
    }
    header(req, "Cookie")
        .and_then(|c| cookie_value(c, COOKIE))
        .is_some_and(|v| ctx.keys.session_ok(v))
}

fn signed_in_now(ctx: &Ctx) -> Out {
    let mut out = redirect("/memories");
    out.headers.push(("Set-Cookie", ctx.keys.cookie()));
    out
}

/// A write must come from the dashboard's own page: a cross-site `Origin` is refused, and
/// the form must carry the CSRF value.
fn same_origin(req: &In) -> bool {
    match (header(req, "Origin"), header(req, "Host")) {
        (None, _) => true,
        (Some(o), Some(host)) => {
            o.strip_prefix("http://")
                .or_else(|| o.strip_prefix("https://"))
                == Some(host)
        }
        (Some(_), None) => false,
    }
}

/// The form a POST carries, decoded; a body over [`MAX_BODY`] or not UTF-8 is answered here.
fn form(req: &In) -> std::result::Result<Params, Out> {
    let Some(body) = &req.body else {
        return Err(page(
            413,
            pages::error(413, &format!("the request is larger than {MAX_BODY} bytes")),
        ));
    };
    let body = std::str::from_utf8(body)
        .map_err(|_| page(400, pages::error(400, "the form is not UTF-8")))?;
    Params::parse(body).map_err(|e| error_page(&e))
}

/// One of the compiled-in assets.
fn asset(content_type: &'static str, body: &'static str) -> Out {
    Out {
        status: 200,
        content_type,
        body: body.as_bytes().to_vec(),
        headers: Vec::new(),
    }
}

pub fn route(ctx: &Ctx, req: &In) -> Out {
    if !ctx.allow_remote && !req.remote.ip().is_loopback() {
        return page(
            403,
            pages::error(403, "the dashboard answers this machine only"),
        );
    }
    let url = req.target.as_str();
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let params = match Params::parse(query) {
        Ok(p) => p,
        Err(e) => return error_page(&e),
    };
    let method = req.method.as_str();
    match (method, path) {
        ("GET", "/assets/dashboard.css") => return asset("text/css; charset=utf-8", CSS),
        ("GET", "/assets/dashboard.js") => return asset("text/javascript; charset=utf-8", JS),
        ("GET", "/") => {
            let token = params.get("token");
            let code = params.get("login");
            if (!token.is_empty() && ctx.keys.token_ok(token))
                || (!code.is_empty() && ctx.keys.redeem(code))
            {
                return signed_in_now(ctx);
            }
            if !token.is_empty() || !code.is_empty() {
                return page(
                    401,
                    pages::login(Some(
                        "That token or sign-in code is not valid (a code works once).",
                    )),
                );
            }
            return redirect(if signed_in(ctx, req) {
                "/memories"
            } else {
                "/login"
            });
        }
        ("GET", "/login") => return page(200, pages::login(None)),
        ("POST", "/login") => {
            let form = match form(req) {
                Ok(f) => f,
                Err(out) => return out,
            };
            if ctx.keys.token_ok(form.get("token")) {
                return signed_in_now(ctx);
            }
            return page(401, pages::login(Some("That token is not valid.")));
        }
        _ => {}
    }
    if !signed_in(ctx, req) {
        return if method == "GET" {
            redirect("/login")
        } else {
            page(401, pages::login(Some("Sign in first.")))
        };
    }
    let csrf = ctx.keys.csrf().to_string();
    // The profile: `profile=` in the address (the Memories filter) chooses it and a cookie
    // keeps it for the next pages; without either, the one `slm dashboard` runs for.
    let chosen = match params.get("profile") {
        "" => None,
        p => match crate::memory::parse_profile(p) {
            Ok(p) => Some(p),
            Err(why) => return page(400, pages::error(400, &why)),
        },
    };
    let kept = header(req, "Cookie")
        .and_then(|c| cookie_value(c, PROFILE_COOKIE))
        .and_then(|v| crate::http::decode(v).ok())
        .and_then(|v| crate::memory::parse_profile(&v).ok());
    let backend = ctx.backend.for_profile(chosen.clone().or(kept).as_deref());
    let mut out = match method {
        "GET" => get(&backend, path, &params, &csrf),
        "POST" => {
            let form = match form(req) {
                Ok(f) => f,
                Err(out) => return out,
            };
            if !same_origin(req) || !ctx.keys.csrf_ok(form.get("csrf")) {
                return page(
                    403,
                    pages::error(
                        403,
                        "this form did not come from the dashboard's own page (CSRF check); nothing was changed",
                    ),
                );
            }
            post(&backend, path, &form, &csrf)
        }
        _ => page(405, pages::error(405, "only GET and POST are served")),
    };
    if let Some(p) = chosen {
        out.headers.push((
            "Set-Cookie",
            format!(
                "{PROFILE_COOKIE}={}; Path=/; HttpOnly; SameSite=Strict",
                pages::urlencode(&p)
            ),
        ));
    }
    out
}

fn opt(s: &str) -> Option<String> {
    (!s.trim().is_empty()).then(|| s.trim().to_string())
}

fn memory_id(path: &str) -> Option<(i64, &str)> {
    let rest = path.strip_prefix("/memories/")?;
    let (id, action) = rest.split_once('/').unwrap_or((rest, ""));
    Some((id.parse().ok()?, action))
}

fn get(b: &Backend, path: &str, p: &Params, csrf: &str) -> Out {
    if let Some(name) = path.strip_prefix("/thumbs/") {
        return match b.thumbnail(name) {
            Some(body) => Out {
                status: 200,
                content_type: "image/png",
                body,
                headers: Vec::new(),
            },
            None => page(404, pages::error(404, "no such thumbnail")),
        };
    }
    match path {
        "/memories" => {
            let f = pages::SearchForm {
                profile: b.profile(),
                q: p.get("q"),
                weak: p.flag("weak"),
                kind: p.get("kind"),
                tag: p.get("tag"),
                scope: p.get("scope"),
                window: p.get("window"),
                bookkeeping: p.flag("bookkeeping"),
            };
            if !f.q.trim().is_empty() {
                let s = Search {
                    query: f.q.to_string(),
                    show_weak: f.weak,
                    kind: opt(f.kind),
                    window: opt(f.window),
                    explain: false,
                };
                return match b.search(&s) {
                    Ok(r) => page(200, pages::search(&f, csrf, &r)),
                    Err(e) => error_page(&e),
                };
            }
            match list_filter(&f) {
                Ok(filter) => {
                    let page_no = p.get("page").parse().unwrap_or(0);
                    let query: String = p
                        .0
                        .iter()
                        .filter(|(k, _)| k != "page")
                        .map(|(k, v)| format!("{}={}", pages::urlencode(k), pages::urlencode(v)))
                        .collect::<Vec<_>>()
                        .join("&");
                    match b.list(filter, page_no) {
                        Ok(list) => page(200, pages::memories(&f, csrf, &list, page_no, &query)),
                        Err(e) => error_page(&e),
                    }
                }
                Err(e) => error_page(&e),
            }
        }
        "/lab" => {
            let q = p.get("q");
            if q.trim().is_empty() {
                return page(200, lab::page(q, None, None));
            }
            let s = Search {
                query: q.to_string(),
                explain: true,
                ..Default::default()
            };
            match b.search(&s) {
                Ok(r) => page(200, lab::page(q, Some(&r), None)),
                Err(e) => page(200, lab::page(q, None, Some(&e.to_string()))),
            }
        }
        "/views" => match b.views() {
            Ok(v) => page(200, pages::views(&v, csrf, None, None)),
            Err(e) => error_page(&e),
        },
        "/views/run" => {
            let views = match b.views() {
                Ok(v) => v,
                Err(e) => return error_page(&e),
            };
            let Some(v) = views.iter().find(|v| v.name == p.get("name")) else {
                return page(
                    404,
                    pages::error(404, "there is no saved view of that name"),
                );
            };
            let s = Search {
                query: v.query.clone(),
                show_weak: v.filters.show_weak,
                kind: v.filters.kind.clone(),
                window: v.filters.window.clone(),
                explain: false,
            };
            match b.search(&s) {
                Ok(r) => page(200, pages::views(&views, csrf, Some((&v.name, &r)), None)),
                Err(e) => error_page(&e),
            }
        }
        "/status" => match b.status() {
            Ok((worker, size)) => {
                let doctor = p
                    .flag("doctor")
                    .then(|| b.doctor().map_err(|e| e.to_string()));
                let doctor = doctor.as_ref().map(|d| d.as_ref().map_err(Clone::clone));
                page(200, pages::status(worker.as_ref(), size, doctor))
            }
            Err(e) => error_page(&e),
        },
        _ => match memory_id(path) {
            Some((id, "")) => match b.memory(id) {
                Ok(body) => page(
                    200,
                    pages::memory(&body, csrf, p.get("confirm") == "delete", None),
                ),
                Err(e) => error_page(&e),
            },
            _ => page(404, pages::error(404, "no such page")),
        },
    }
}

fn list_filter(f: &pages::SearchForm) -> Result<ListFilter> {
    let (since, until) = match opt(f.window) {
        None => (None, None),
        Some(w) => {
            let now = crate::Clock::from_env()?.now();
            let i = crate::timeparse::parse_window(&w, now)
                .map_err(|e| Error::Usage(format!("time window {w:?}: {e}")))?;
            (
                Some(i.start.timestamp_millis()),
                Some(i.end.timestamp_millis()),
            )
        }
    };
    Ok(ListFilter {
        kind: kind_of(f.kind)?,
        tag: opt(f.tag),
        scope: scope_of(f.scope)?,
        since,
        until,
        include_bookkeeping: f.bookkeeping,
        ..Default::default()
    })
}

fn post(b: &Backend, path: &str, f: &Params, csrf: &str) -> Out {
    match path {
        "/views" => {
            let view = SavedView {
                profile: b.profile().to_string(),
                name: f.get("name").to_string(),
                query: f.get("q").to_string(),
                filters: ViewFilters {
                    show_weak: f.flag("weak"),
                    kind: opt(f.get("kind")),
                    window: opt(f.get("window")),
                },
                created_at: crate::Clock::from_env().map_or(0, |c| c.now_ms()),
            };
            let name = view.name.trim().to_string();
            match b.save_view(view).and_then(|_| b.views()) {
                Ok(v) => page(
                    200,
                    pages::views(&v, csrf, None, Some(&format!("Saved the view “{name}”."))),
                ),
                Err(e) => error_page(&e),
            }
        }
        "/views/delete" => match b.delete_view(f.get("name")).and_then(|_| b.views()) {
            Ok(v) => page(200, pages::views(&v, csrf, None, Some("Deleted the view."))),
            Err(e) => error_page(&e),
        },
        _ => {
            let Some((id, action)) = memory_id(path) else {
                return page(404, pages::error(404, "no such page"));
            };
            let done = match action {
                "edit" => b
                    .update(
                        id,
                        MemoryPatch {
                            text: Some(f.get("text").replace("\r\n", "\n")),
                            ..Default::default()
                        },
                    )
                    .map(|_| format!("Saved memory #{id}.")),
                "pin" => b
                    .update(
                        id,
                        MemoryPatch {
                            pinned: Some(f.flag("pinned")),
                            ..Default::default()
                        },
                    )
                    .map(|_| {
                        if f.flag("pinned") {
                            format!("Pinned memory #{id}.")
                        } else {
                            format!("Unpinned memory #{id}.")
                        }
                    }),
                "supersede" => b
                    .supersede(id, f.get("text").replace("\r\n", "\n"))
                    .map(|r| format!("Saved the correction as #{}.", r["id"])),
                "delete" => {
                    return match b.delete(id) {
                        Ok(_) => redirect("/memories"),
                        Err(e) => error_page(&e),
                    };
                }
                _ => return page(404, pages::error(404, "no such page")),
            };
            match done.and_then(|n| b.memory(id).map(|body| (n, body))) {
                Ok((notice, body)) => page(200, pages::memory(&body, csrf, false, Some(&notice))),
                Err(e) => error_page(&e),
            }
        }
    }
}
