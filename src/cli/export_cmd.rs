//! `slm export`: every memory of a profile (or of all) as JSON Lines on standard output, in
//! the format `slm import` reads.
//!
//! Page by page through a [`Target`] (the worker when it runs, an engine here otherwise), so
//! memory use is one page whatever the store's size. Standard output gets the lines and
//! nothing else; the progress bar (on a terminal) and the summary (`--json`: the envelope)
//! go to standard error. An export is not a snapshot of one moment: memories written while
//! it runs may or may not be in it (`slm backup` is the snapshot).

use super::args::{ExportArgs, GlobalArgs};
use crate::engine::ModelMode;
use crate::output::Style;
use crate::paths::Paths;
use crate::service::{Op, Request};
use crate::transfer::export::{ExportQuery, Page};
use crate::worker::client::{Mode, Target};
use crate::{Error, Result};
use serde_json::json;
use std::io::Write;

pub fn export(a: ExportArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let paths = Paths::from_env();
    let target = Target::connect(&paths, Mode::resolve(g.no_worker)?, ModelMode::Skip)?;
    let mut query = ExportQuery {
        profile: (!a.all_profiles).then(|| g.profile.clone()),
        include_bookkeeping: a.include_bookkeeping,
        after_id: None,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut pb = None;
    let mut written = 0u64;
    let mut profiles = std::collections::BTreeSet::new();
    let started = std::time::Instant::now();
    loop {
        let reply = target.run(Request {
            op: Op::ExportPage {
                query: query.clone(),
            },
            human: None,
        })?;
        let page: Page = serde_json::from_value(reply.body)
            .map_err(|e| Error::Other(format!("an unreadable export page: {e}")))?;
        if let Some(total) = page.total {
            pb = Some(crate::progress::bar(total.max(0) as u64, "exporting"));
        }
        for line in &page.lines {
            serde_json::to_writer(&mut out, line)
                .map_err(|e| Error::io("writing to stdout", e.into()))?;
            out.write_all(b"\n")
                .map_err(|e| Error::io("writing to stdout", e))?;
            if let Some(p) = &line.profile
                && !profiles.contains(p)
            {
                profiles.insert(p.clone());
            }
        }
        written += page.lines.len() as u64;
        if let Some(pb) = &pb {
            pb.inc(page.lines.len() as u64);
        }
        if page.done {
            break;
        }
        query.after_id = page.last_id;
    }
    out.flush().map_err(|e| Error::io("writing to stdout", e))?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    let secs = started.elapsed().as_secs_f64();
    let body = json!({
        "exported": written,
        "profiles": profiles,
        "include_bookkeeping": a.include_bookkeeping,
        "seconds": secs,
        "served_by": target.served_by(),
    });
    // Standard output holds the lines alone: the summary goes to standard error.
    let text = if style.json {
        serde_json::to_string(&crate::output::envelope("export", body)).unwrap_or_default()
    } else {
        format!(
            "exported {written} memories from {} profile{} in {secs:.1} s",
            profiles.len(),
            if profiles.len() == 1 { "" } else { "s" }
        )
    };
    eprintln!("{text}");
    Ok(0)
}
