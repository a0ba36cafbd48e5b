//! `feedback`: a mark on one memory of one recall, or the list / removal of the marks.

use super::args::{FeedbackArgs, GlobalArgs};
use crate::output::Style;
use crate::recall::ranking_mode::learn::Label;
use crate::service::Op;
use crate::{Error, Result};

pub fn feedback(a: FeedbackArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let everyone = || (!a.all_profiles).then(|| g.profile.clone());
    let op = if a.list {
        Op::FeedbackList {
            profile: everyone(),
            limit: a.limit.max(1),
        }
    } else if a.forget {
        Op::FeedbackForget {
            profile: everyone(),
        }
    } else {
        let (Some(recall_id), Some(memory_id), Some(verdict)) =
            (a.recall_id.clone(), a.memory_id, a.verdict.as_deref())
        else {
            return Err(Error::Usage(
                "expected RECALL_ID MEMORY_ID good|bad, --list or --forget".into(),
            ));
        };
        if a.all_profiles {
            return Err(Error::Usage(
                "--all-profiles goes with --list or --forget; a mark belongs to the recall's profile".into(),
            ));
        }
        let label = Label::parse(verdict)
            .ok_or_else(|| Error::Usage(format!("{verdict:?}: expected good or bad")))?;
        Op::Feedback {
            profile: g.profile.clone(),
            recall_id,
            memory_id,
            label,
        }
    };
    super::forward::forward(op, g, style, None)
}
