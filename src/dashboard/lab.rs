//! The Recall Lab: one question's `--explain` trace drawn for a person, stage by stage in
//! the spec's order (classification, channels, fusion and boosts, the evidence floor,
//! support and the answer check, the tiers), with the stage timings as bars. Below the
//! drawn stages the whole trace is shown as it came, so nothing the trace has is hidden and
//! nothing is drawn that it does not have.

use super::pages::{answer, layout, urlencode};
use maud::{Markup, html};
use serde_json::Value;

fn num(v: &Value) -> String {
    match v.as_f64() {
        Some(x) if x.fract() == 0.0 && x.abs() < 1e12 => format!("{x:.0}"),
        Some(x) => format!("{x:.3}"),
        None if v.is_null() => "–".into(),
        None => scalar(v),
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "–".into(),
        other => other.to_string(),
    }
}

/// Any JSON value as nested lists: objects as term/definition lists, arrays as ordered
/// lists (short arrays of plain values on one line).
pub fn tree(v: &Value) -> Markup {
    match v {
        Value::Object(m) => html! {
            dl.tree { @for (k, x) in m { dt { (k) } dd { (tree(x)) } } }
        },
        Value::Array(a) if a.is_empty() => html! { span.dim { "none" } },
        Value::Array(a) if a.iter().all(|x| !x.is_object() && !x.is_array()) => html! {
            span { (a.iter().map(scalar).collect::<Vec<_>>().join(", ")) }
        },
        Value::Array(a) => html! { ol.tree { @for x in a { li { (tree(x)) } } } },
        other => html! { span { (scalar(other)) } },
    }
}

fn timings(t: &Value) -> Markup {
    let Some(m) = t.as_object() else {
        return html! {};
    };
    let total = t["total"].as_f64().unwrap_or(0.0).max(1e-9);
    html! {
        table.timings {
            @for (stage, ms) in m {
                tr {
                    th { (stage) }
                    td { meter min="0" max=(total) value=(ms.as_f64().unwrap_or(0.0)) {} }
                    td.num { (format!("{:.2} ms", ms.as_f64().unwrap_or(0.0))) }
                }
            }
        }
    }
}

fn channels(r: &Value, e: &Value) -> Markup {
    let status = r["channel_status"].as_object().cloned().unwrap_or_default();
    html! {
        table {
            thead { tr { th { "channel" } th { "weight" } th { "status" } th { "hits: #id score (rank order)" } } }
            tbody { @for (c, st) in &status {
                tr {
                    th { (c) }
                    td.num { (num(&r["channel_weights"][c])) }
                    td { (scalar(&st["status"])) @if let Some(d) = st["detail"].as_str() { br; span.dim { (d) } } }
                    td { @if let Some(h) = e["channels"][c].as_array() {
                        (h.iter().map(|p| format!("#{} {}", num(&p[0]), num(&p[1]))).collect::<Vec<_>>().join("  "))
                    } }
                }
            } }
        }
    }
}

fn fused(e: &Value) -> Markup {
    let rows = e["fused"].as_array().cloned().unwrap_or_default();
    let floor = e["floor"].as_array().cloned().unwrap_or_default();
    html! {
        table {
            thead { tr { th { "#id" } th { "channels (rank, score)" } th { "fused" } th { "boost" } th { "entity" } th { "score" } th { "rerank" } th { "evidence floor" } } }
            tbody { @for c in &rows {
                @let id = c["id"].as_i64().unwrap_or(0);
                @let verdict = floor.iter().find(|v| v["id"].as_i64() == Some(id));
                tr {
                    td { a href={ "/memories/" (id) } { "#" (id) } }
                    td { @if let Some(ch) = c["channels"].as_object() {
                        (ch.iter().map(|(k, v)| format!("{k} {} {}", num(&v["rank"]), num(&v["score"]))).collect::<Vec<_>>().join("; "))
                    } }
                    td.num { (num(&c["fused"])) }
                    td.num { (num(&c["boost"])) }
                    td.num { (num(&c["entity_score"])) }
                    td.num { (num(&c["score"])) }
                    td.num { (num(&c["rerank_score"])) }
                    td { @if let Some(v) = verdict {
                        (if v["kept"].as_bool() == Some(true) { "kept" } else { "dropped" })
                        ": " (v["because"].as_array().map(|b| b.iter().map(scalar).collect::<Vec<_>>().join(", ")).unwrap_or_default())
                    } }
                }
            } }
        }
    }
}

fn support(e: &Value) -> Markup {
    let rows = e["support"].as_array().cloned().unwrap_or_default();
    html! {
        table {
            thead { tr { th { "#id" } th { "support vs threshold" } th { "score" } th { "threshold" } th { "lift" } th { "cosine" } th { "baseline" } th { "coverage" } th { "rare all" } th { "entity" } th { "names" } th { "type" } th { "reader" } th { "rerank" } th { "supported" } } }
            tbody { @for x in &rows {
                @let id = x["id"].as_i64().unwrap_or(0);
                tr {
                    td { a href={ "/memories/" (id) } { "#" (id) } }
                    td { meter min="0" max="1" low=(x["threshold"].as_f64().unwrap_or(0.0)) optimum="1" value=(x["score"].as_f64().unwrap_or(0.0)) {} }
                    td.num { (num(&x["score"])) }
                    td.num { (num(&x["threshold"])) }
                    td.num { (num(&x["lift"])) }
                    td.num { (num(&x["cosine"])) }
                    td.num { (num(&x["baseline"])) }
                    td.num { (num(&x["coverage"])) }
                    td { (scalar(&x["rare_all"])) }
                    td { (scalar(&x["entity"])) }
                    td { (scalar(&x["names_ok"])) }
                    td { (scalar(&x["of_type"])) }
                    td { (tree(&x["reader"])) }
                    td.num { (num(&x["rerank"])) }
                    td { (scalar(&x["supported"])) }
                }
            } }
        }
    }
}

/// The Lab page: the question form, and for a question every stage of its trace.
pub fn page(q: &str, r: Option<&Value>, error: Option<&str>) -> Markup {
    layout(
        "Recall Lab",
        "Recall Lab",
        html! {
            h1 { "Recall Lab" }
            form.search method="get" action="/lab" {
                input type="search" name="q" value=(q) placeholder="A question to trace" aria-label="Question";
                button type="submit" { "Trace" }
            }
            @if let Some(e) = error { p.error { (e) } }
            @if let Some(r) = r {
                @let e = &r["explain"];
                h2 { "Answer" }
                (answer(r))
                p { a href={ "/memories?q=" (urlencode(q)) } { "Open in Memories →" } }
                h2 { "1. The question" }
                (tree(&e["classified"]))
                @if !e["gibberish"].is_null() { p { "Gibberish check: " (tree(&e["gibberish"])) } }
                h2 { "2. Channels" }
                (channels(r, e))
                h2 { "3. Fusion, boosts and the evidence floor" }
                p { "Boosts: " (tree(&e["boosts"])) }
                (fused(e))
                h2 { "4. Support and the answer check" }
                (support(e))
                h3 { "Answer check" }
                (tree(&e["answer_check"]))
                h2 { "5. Tiers" }
                p { "Decision: " strong { (scalar(&e["decision"])) } }
                p { "Final order: " (tree(&e["final_order"])) }
                h3 { "Left out" }
                (tree(&e["left"]))
                h2 { "Stage timings" }
                (timings(&r["timing_ms"]))
                h2 { "The whole trace" }
                details { summary { "Every field of the answer, as it came" } (tree(r)) }
            }
        },
    )
}
