//! `recall` and `expand`: flags into a resolved request (`service::resolve`), forwarded; the
//! answer comes back rendered (`render::recall`).

use super::args::{ExpandArgs, GlobalArgs, RecallArgs};
use crate::Result;
use crate::output::Style;
use crate::recall::filters::Filters;
use crate::service::Op;
use crate::service::resolve::{self, RecallInput};
use crate::worker::client::reply_timeout;

/// The flags as plain values: what `service::resolve::recall` resolves.
impl From<&RecallArgs> for RecallInput {
    fn from(a: &RecallArgs) -> RecallInput {
        RecallInput {
            query: a.query.clone(),
            limit: a.limit,
            depth: a.depth,
            max_tokens: a.max_tokens,
            show_weak: a.show_weak,
            agent: a.agent,
            include_related: a.include_related,
            explain: a.explain,
            window: a.window.clone(),
            as_of: a.as_of.clone(),
            known_as_of: a.known_as_of.clone(),
            valid_at: a.valid_at.clone(),
            include_shared: a.include_shared,
            include_global: a.include_global,
            kind: a.kind.clone(),
            budget_s: a.budget_s,
            project: None,
        }
    }
}

pub fn recall(a: RecallArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let input = RecallInput {
        project: super::current_project(g),
        ..RecallInput::from(&a)
    };
    let req = resolve::recall(&input, &g.profile)?;
    let timeout = reply_timeout(req.budget_s);
    super::forward::forward(Op::Recall { req }, g, style, timeout)
}

pub fn expand(a: ExpandArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let filters = Filters {
        profile: g.profile.clone(),
        project: super::current_project(g),
        ..Default::default()
    };
    super::forward::forward(Op::Expand { id: a.id, filters }, g, style, None)
}
