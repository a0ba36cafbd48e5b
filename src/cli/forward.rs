//! Send a resolved operation to the worker (or run it in-process) and print the answer.

use super::args::GlobalArgs;
use super::emit;
use crate::Result;
use crate::output::Style;
use crate::paths::Paths;
use crate::service::{Op, Request};
use crate::worker::client::{self, Mode};
use std::time::Duration;

/// Slack over a recall's own budget for the socket round trip and process start.
pub const BUDGET_MARGIN: Duration = Duration::from_millis(300);

/// Run `op` where the worker mode says, print it, and return the exit code.
pub fn forward(op: Op, g: &GlobalArgs, style: Style, timeout: Option<Duration>) -> Result<i32> {
    let mode = Mode::resolve(g.no_worker)?;
    let request = Request {
        op,
        human: (!style.json).then_some(style),
    };
    let answer = client::execute(&Paths::from_env(), request, mode, timeout)?;
    let mut body = answer.reply.body;
    if let Some(o) = body.as_object_mut() {
        o.insert("served_by".into(), serde_json::json!(answer.served_by));
    }
    let human = answer.reply.human.unwrap_or_default();
    if !style.json && human.is_empty() {
        // Nothing to say (a hook with nothing to add): print nothing at all.
        return Ok(answer.reply.exit);
    }
    emit(style, &answer.reply.command, body, || human)?;
    Ok(answer.reply.exit)
}
