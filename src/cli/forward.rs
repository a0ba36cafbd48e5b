//! Send a resolved operation to the worker (or run it in-process) and print the answer.

use super::args::GlobalArgs;
use crate::Result;
use crate::output::Style;
use crate::output::emit;
use crate::paths::Paths;
use crate::service::{Op, Request};
use crate::worker::client::{self, Mode, question_wait};
use std::time::Duration;

/// Run `op` where the worker mode says, print it, and return the exit code.
pub fn forward(op: Op, g: &GlobalArgs, style: Style, timeout: Option<Duration>) -> Result<i32> {
    let mode = Mode::resolve(g.no_worker)?;
    let request = Request {
        op,
        human: (!style.json).then_some(style),
    };
    let paths = Paths::from_env();
    let explain = matches!(&request.op, Op::Recall { req } if req.explain);
    let wait = if g.no_wait {
        None
    } else {
        question_wait(&request.op, &paths)
    };
    let answer = client::execute_with(&paths, request, mode, timeout, wait)?;
    let mut body = answer.reply.body;
    if let Some(o) = body.as_object_mut() {
        o.insert("served_by".into(), serde_json::json!(answer.served_by));
        if let Some(w) = answer.waited_ms {
            o.insert(
                "waited_ms".into(),
                serde_json::json!((w * 10.0).round() / 10.0),
            );
        }
    }
    let mut human = answer.reply.human.unwrap_or_default();
    if let (true, Some(w)) = (explain, answer.waited_ms) {
        human.push_str(&format!(
            "\nwaited {w:.0} ms for the worker to load its model; {}",
            if answer.served_by == client::ServedBy::Worker {
                "the worker answered"
            } else {
                "it was not ready in time, so this process answered from keyword search"
            }
        ));
    }
    if !style.json && human.is_empty() {
        // Nothing to say (a hook with nothing to add): print nothing at all.
        return Ok(answer.reply.exit);
    }
    emit(style, &answer.reply.command, body, || human)?;
    Ok(answer.reply.exit)
}
