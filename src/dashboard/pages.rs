//! The dashboard's pages as [`maud`] templates: every interpolated string is escaped, so
//! memory text (user and agent content) always renders as text. No inline script or style
//! (the Content-Security-Policy forbids both): the look is `assets/dashboard.css`, the
//! little behaviour there is `assets/dashboard.js`.

use super::backend::PAGE;
use maud::{DOCTYPE, Markup, html};
use serde_json::Value;

/// The page frame: navigation, title, the page's own content.
pub fn layout(title: &str, nav: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · slm" }
                link rel="stylesheet" href="/assets/dashboard.css";
                script src="/assets/dashboard.js" defer {}
            }
            body {
                header {
                    a.brand href="/memories" { "slm" }
                    nav {
                        @for (href, name) in [("/memories", "Memories"), ("/lab", "Recall Lab"), ("/views", "Views"), ("/status", "Status")] {
                            a href=(href) class=[(name == nav).then_some("here")] { (name) }
                        }
                    }
                }
                main { (body) }
            }
        }
    }
}

/// The sign-in page (also what a wrong token gets).
pub fn login(error: Option<&str>) -> Markup {
    layout(
        "Sign in",
        "",
        html! {
            h1 { "Sign in" }
            @if let Some(e) = error { p.error { (e) } }
            p { "Paste the token from " code { "http.token" } " in slm's data directory, or open the address "
                code { "slm dashboard" } " printed." }
            form method="post" action="/login" {
                label { "Token " input type="password" name="token" autocomplete="off" autofocus; }
                button type="submit" { "Sign in" }
            }
        },
    )
}

/// A full error page: what went wrong, in slm's words.
pub fn error(status: u16, message: &str) -> Markup {
    layout(
        "Error",
        "",
        html! {
            h1 { "Something went wrong (" (status) ")" }
            p.error { (message) }
            p { a href="/memories" { "Back to Memories" } }
        },
    )
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or("")
}

/// What the search form and a saved view were given.
pub struct SearchForm<'a> {
    /// The profile the page shows (kept in a cookie once chosen).
    pub profile: &'a str,
    pub q: &'a str,
    pub weak: bool,
    pub kind: &'a str,
    pub tag: &'a str,
    pub scope: &'a str,
    pub window: &'a str,
    pub bookkeeping: bool,
}

fn search_form(f: &SearchForm, csrf: &str) -> Markup {
    html! {
        form.search method="get" action="/memories" {
            input type="search" name="q" value=(f.q) placeholder="Ask or search your memories" aria-label="Question";
            label.check { input type="checkbox" name="weak" value="1" checked[f.weak]; " Show closest matches" }
            details open[!f.kind.is_empty() || !f.tag.is_empty() || !f.scope.is_empty() || !f.window.is_empty() || f.bookkeeping] {
                summary { "Filters" }
                label { "Kind " select name="kind" {
                    option value="" { "any" }
                    @for k in crate::memory::Kind::ALL { option value=(k.as_str()) selected[f.kind == k.as_str()] { (k.as_str()) } }
                } }
                label { "Profile " input name="profile" value=(f.profile) size="12"; }
                label { "Tag " input name="tag" value=(f.tag); }
                label { "Scope " select name="scope" {
                    option value="" { "any" }
                    @for sc in crate::memory::Scope::ALL { option value=(sc.as_str()) selected[f.scope == sc.as_str()] { (sc.as_str()) } }
                } }
                label { "Time window " input name="window" value=(f.window) placeholder="7d, 2w, 3m"; }
                label.check { input type="checkbox" name="bookkeeping" value="1" checked[f.bookkeeping]; " Show bookkeeping" }
            }
            button type="submit" { "Search" }
        }
        @if !f.q.is_empty() {
            form.inline method="post" action="/views" {
                input type="hidden" name="csrf" value=(csrf);
                input type="hidden" name="q" value=(f.q);
                @if f.weak { input type="hidden" name="weak" value="1"; }
                input type="hidden" name="kind" value=(f.kind);
                input type="hidden" name="window" value=(f.window);
                label { "Save as view " input name="name" required maxlength=(crate::engine::MAX_VIEW_NAME) placeholder="name"; }
                button type="submit" { "Save view" }
            }
        }
    }
}

fn preview(text: &str) -> String {
    crate::text::preview(text, 160)
}

fn memory_row(m: &Value) -> Markup {
    let id = m["id"].as_i64().unwrap_or(0);
    html! {
        li.memory {
            a.id href={ "/memories/" (id) } { "#" (id) }
            span.kind { (s(m, "kind")) }
            @if m["pinned"].as_bool() == Some(true) { span.badge { "pinned" } }
            @if !m["bookkeeping"].is_null() { span.badge.dim { "bookkeeping" } }
            @if !m["superseded_by"].is_null() { span.badge.dim { "superseded" } }
            span.when { (s(m, "event_at").get(..10).unwrap_or("")) }
            span.text { (preview(s(m, "text"))) }
        }
    }
}

/// The Memories page without a question: newest first, a page at a time.
pub fn memories(f: &SearchForm, csrf: &str, list: &[Value], page: usize, query: &str) -> Markup {
    let more = list.len() > PAGE;
    layout(
        "Memories",
        "Memories",
        html! {
            h1 { "Memories" }
            (search_form(f, csrf))
            @if list.is_empty() {
                p.empty { "No memories match these filters." }
            } @else {
                ol.memories { @for m in list.iter().take(PAGE) { (memory_row(m)) } }
            }
            nav.pages {
                @if page > 0 { a href={ "/memories?" (query) "&page=" (page - 1) } { "← newer" } }
                @if more { a href={ "/memories?" (query) "&page=" (page + 1) } { "older →" } }
            }
        },
    )
}

/// A recall answer as a person reads it: the tier and its note as the CLI prints them,
/// each result with its scores, related ones labelled, weak matches labelled.
pub fn answer(r: &Value) -> Markup {
    let tier = s(r, "tier");
    let results = r["results"].as_array().cloned().unwrap_or_default();
    let weak = r["weak"].as_array().cloned().unwrap_or_default();
    html! {
        section.answer data-tier=(tier) {
            p.tier {
                span class={ "tier " (tier) } { (tier) }
                @if let Some(n) = r["note"].as_str() { ": " span.note { (n) } }
            }
            @if let Some(reason) = r["reason"].as_str() { p.reason { "Reason: " code { (reason) } } }
            @if let Some(w) = r["retry_after_s"].as_f64() { p.reason { "Ask again in " (w) " s." } }
            @if !results.is_empty() {
                ol.results { @for x in &results { (result(x, None)) } }
            }
            @if !weak.is_empty() {
                h3 { "Closest weak matches" }
                ol.results.weak { @for x in &weak { (result(x, Some("weak match"))) } }
            }
            p.meta { "answer check: " (s(r, "answer_check_status")) "; served by " (s(r, "served_by"))
                "; recall " (s(r, "recall_id")) }
        }
    }
}

fn result(x: &Value, label: Option<&str>) -> Markup {
    let id = x["id"].as_i64().unwrap_or(0);
    let tier = s(x, "tier");
    html! {
        li.result data-id=(id) {
            span class={ "tier " (tier) } { (label.unwrap_or(tier)) }
            a.id href={ "/memories/" (id) } { "#" (id) }
            span.score title="relevance / support" {
                (format!("{:.2}", x["relevance_score"].as_f64().unwrap_or(0.0)))
                " / " (format!("{:.2}", x["support_score"].as_f64().unwrap_or(0.0)))
            }
            span.when { (s(x, "event_at").get(..10).unwrap_or("")) }
            span.text { (s(x, "text")) }
            @if x["picture"].is_object() { (picture(&x["picture"])) }
        }
    }
}

/// A picture result: its thumbnail (served by `/thumbs/`), name, page, OCR state and file.
fn picture(p: &Value) -> Markup {
    let thumb = p["thumbnail"]
        .as_str()
        .and_then(|t| std::path::Path::new(t).file_name())
        .map(|f| f.to_string_lossy().into_owned());
    html! {
        div.picture {
            @if let Some(t) = thumb { img.thumb src={ "/thumbs/" (t) } alt=(s(p, "name")); }
            span.name { (s(p, "name")) }
            @if let Some(n) = p["page"].as_u64() { span.page { ", page " (n) } }
            span.badge.dim { "OCR: " (s(p, "ocr")) }
            code.path { (s(p, "path")) }
        }
    }
}

/// The Memories page with a question.
pub fn search(f: &SearchForm, csrf: &str, r: &Value) -> Markup {
    layout(
        "Search",
        "Memories",
        html! {
            h1 { "Memories" }
            (search_form(f, csrf))
            (answer(r))
            p { a href={ "/lab?q=" (urlencode(f.q)) } { "See how this was answered in the Recall Lab →" } }
        },
    )
}

/// One memory: its text, its context (depth 2), and what a person can do with it.
pub fn memory(body: &Value, csrf: &str, confirm_delete: bool, notice: Option<&str>) -> Markup {
    let m = &body["memory"];
    let id = m["id"].as_i64().unwrap_or(0);
    let ctx = body["context"]["items"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let pinned = m["pinned"].as_bool() == Some(true);
    layout(
        &format!("Memory #{id}"),
        "Memories",
        html! {
            h1 { "Memory #" (id) }
            @if let Some(n) = notice { p.notice { (n) } }
            blockquote.fulltext { (s(m, "text")) }
            dl.facts {
                @for k in ["kind", "source", "scope", "profile", "session_id", "speaker", "event_at", "created_at", "bookkeeping"] {
                    @if let Some(v) = m[k].as_str() { dt { (k) } dd { (v) } }
                }
                @if let Some(t) = m["tags"].as_array() { @if !t.is_empty() { dt { "tags" } dd { (t.iter().filter_map(|x| x.as_str()).collect::<Vec<_>>().join(", ")) } } }
                @if let Some(by) = m["superseded_by"].as_i64() { dt { "replaced by" } dd { a href={ "/memories/" (by) } { "#" (by) } } }
                dt { "pinned" } dd { (if pinned { "yes" } else { "no" }) }
            }
            @if !ctx.is_empty() {
                h2 { "Context" }
                ul.context { @for c in &ctx {
                    li { span.relation { (s(c, "relation")) } " " a href={ "/memories/" (c["id"].as_i64().unwrap_or(0)) } { "#" (c["id"].as_i64().unwrap_or(0)) } " " span.text { (preview(s(c, "text"))) } }
                } }
            }
            h2 { "Edit" }
            form method="post" action={ "/memories/" (id) "/edit" } {
                input type="hidden" name="csrf" value=(csrf);
                textarea name="text" rows="5" maxlength=(crate::memory::MAX_TEXT_BYTES) { (s(m, "text")) }
                button type="submit" { "Save" }
            }
            form.inline method="post" action={ "/memories/" (id) "/pin" } {
                input type="hidden" name="csrf" value=(csrf);
                input type="hidden" name="pinned" value=(if pinned { "0" } else { "1" });
                button type="submit" { (if pinned { "Unpin" } else { "Pin" }) }
            }
            h2 { "Supersede" }
            p { "Save a correction: this memory is kept, marked as replaced, and left out of answers." }
            form method="post" action={ "/memories/" (id) "/supersede" } {
                input type="hidden" name="csrf" value=(csrf);
                textarea name="text" rows="3" required maxlength=(crate::memory::MAX_TEXT_BYTES) {}
                button type="submit" { "Save the correction" }
            }
            h2 { "Delete" }
            @if confirm_delete {
                form method="post" action={ "/memories/" (id) "/delete" } {
                    input type="hidden" name="csrf" value=(csrf);
                    p.error { "Delete memory #" (id) " for good?" }
                    button.danger type="submit" { "Yes, delete it" }
                    " " a href={ "/memories/" (id) } { "Keep it" }
                }
            } @else {
                p { a.danger href={ "/memories/" (id) "?confirm=delete" } { "Delete…" } }
            }
        },
    )
}

/// The saved views, and the answer of one when it was run.
pub fn views(
    views: &[crate::store::views::SavedView],
    csrf: &str,
    ran: Option<(&str, &Value)>,
    notice: Option<&str>,
) -> Markup {
    layout(
        "Views",
        "Views",
        html! {
            h1 { "Saved views" }
            @if let Some(n) = notice { p.notice { (n) } }
            @if views.is_empty() {
                p.empty { "No saved views yet. Search on the Memories page, then Save view." }
            } @else {
                table.views {
                    thead { tr { th { "name" } th { "question" } th { "filters" } th {} } }
                    tbody { @for v in views {
                        tr {
                            td { (v.name) }
                            td { (v.query) }
                            td { (filters_text(&v.filters)) }
                            td {
                                a href={ "/views/run?name=" (urlencode(&v.name)) } { "Run" }
                                form.inline method="post" action="/views/delete" {
                                    input type="hidden" name="csrf" value=(csrf);
                                    input type="hidden" name="name" value=(v.name);
                                    button type="submit" { "Delete" }
                                }
                            }
                        }
                    } }
                }
            }
            @if let Some((name, r)) = ran {
                h2 { "“" (name) "”" }
                (answer(r))
            }
        },
    )
}

fn filters_text(f: &crate::store::views::ViewFilters) -> String {
    let mut parts = Vec::new();
    if f.show_weak {
        parts.push("closest matches".to_string());
    }
    if let Some(k) = &f.kind {
        parts.push(format!("kind {k}"));
    }
    if let Some(w) = &f.window {
        parts.push(format!("window {w}"));
    }
    parts.join(", ")
}

/// The status page: the worker, the store, and (when asked) doctor's findings.
pub fn status(
    worker: Option<&Value>,
    store_bytes: u64,
    doctor: Option<Result<&Value, String>>,
) -> Markup {
    layout(
        "Status",
        "Status",
        html! {
            h1 { "Status" }
            h2 { "Worker" }
            @match worker {
                None => p { "Not running: commands answer cold (keyword search) until one starts; any " code { "slm recall" } " starts it." },
                Some(w) => dl.facts {
                    dt { "pid" } dd { (w["pid"]) }
                    dt { "version" } dd { (s(w, "version")) }
                    dt { "up" } dd { (format!("{:.0} s", w["uptime_s"].as_f64().unwrap_or(0.0))) }
                    dt { "model loaded" } dd { (w["model_loaded"]) }
                    dt { "memories" } dd { (w["memories"]) }
                    dt { "waiting for embeddings" } dd { (w["pending_embeddings"]) }
                    dt { "waiting for passages" } dd { (w["pending_passages"]) }
                    dt { "data" } dd { (s(w, "data_dir")) }
                },
            }
            h2 { "Store" }
            p { (format!("{:.1} MB on disk", store_bytes as f64 / 1e6)) }
            h2 { "Doctor" }
            @match doctor {
                None => p { a href="/status?doctor=1" { "Run slm doctor" } " (loads the models: a second or two)." },
                Some(Err(e)) => p.error { (e) },
                Some(Ok(d)) => (super::lab::tree(d)),
            }
        },
    )
}

/// Percent-encoding for a query string value.
pub fn urlencode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
