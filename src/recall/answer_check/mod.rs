//! Stage 8 of recall: the answer check (spec: "The answer check").
//!
//! After ranking mode and before the support tiers, a judge looks at the question and the
//! top three results ([`EVIDENCE_COUNT`]) and says whether they answer it, which memory
//! does, and the answer itself where it can point at it. The stage only *adds* fields: it
//! never hides, reorders or rescores a result. Its [`AnswerCheck`] is handed on to the
//! support check (`tiers::Context::answer_check`) as one input among others.
//!
//! Where the judge comes from ([`resolve`], from settings `answer_check`):
//!
//! | mode | judge |
//! |---|---|
//! | `auto` (default) | the local judge when one is installed, otherwise none (`off`). **Never hosted.** |
//! | `local` | the local judge; none installed → `unavailable` ("no local judge is installed") |
//! | `hosted` | the hosted judge ([`hosted`]) — only with consent recorded in settings; without it `unavailable` and nothing is sent |
//! | `off` | none |
//!
//! Per recall `answer_check_status` is one of [`AnswerCheckStatus`]. A check that is
//! skipped (past its time budget) or unavailable costs only the verdict: results, their
//! order and their scores are those of a recall with the check off. `answer_confidence`
//! is set only when a judge gave a verdict; `calibration_status` stays "uncalibrated".
//!
//! Not judged: session context (loading context, not a question: it runs no recall, and
//! [`apply`]'s `skip` says so for any caller that does), and keyword-only answers (the cold
//! path while the model loads, and a time budget's keyword fallback), which are racing
//! the clock already.

pub mod hosted;
pub mod local;
pub mod reader;
pub mod support;

use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Results shown to the judge: the spec's "top three".
pub const EVIDENCE_COUNT: usize = 3;
/// A verdict that arrives this little past the deadline still counts: the time to parse it
/// and hand it back, not judging time. Anything later is `skipped`.
pub const DEADLINE_GRACE: Duration = Duration::from_millis(25);

/// What happened to the answer check on one recall (serialised snake_case).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AnswerCheckStatus {
    /// A judge gave a verdict.
    Judged,
    /// No judge configured or resolved (mode off, auto without a local judge), or a recall
    /// that is never judged (session context).
    Off,
    /// The judge ran past its time budget, or there was nothing to judge.
    Skipped,
    /// The judge was busy with other recalls.
    Busy,
    /// The judge is still loading.
    Warming,
    /// The judge cannot run (not installed, no consent, no key, the endpoint refused).
    Unavailable,
    /// The top result is a wordless picture: a text judge would read only its note and
    /// name, so it is not judged (the spec's `media_unjudged`).
    MediaUnjudged,
}

impl AnswerCheckStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerCheckStatus::Judged => "judged",
            AnswerCheckStatus::Off => "off",
            AnswerCheckStatus::Skipped => "skipped",
            AnswerCheckStatus::Busy => "busy",
            AnswerCheckStatus::Warming => "warming",
            AnswerCheckStatus::Unavailable => "unavailable",
            AnswerCheckStatus::MediaUnjudged => "media_unjudged",
        }
    }
}

impl std::fmt::Display for AnswerCheckStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One result shown to the judge: its id and full text, in ranked order.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    pub id: i64,
    pub text: String,
    /// The memory's stored vector from the active model, when it has one (a local judge
    /// on the same model reuses it instead of embedding the text again).
    pub vector: Option<Vec<f32>>,
}

/// A judge's verdict on the top results.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Verdict {
    /// Do the results answer the question?
    pub answers: bool,
    /// The memory that answers it, when the judge names one (always one of the evidence).
    pub memory_id: Option<i64>,
    /// The answer itself: a span of that memory or a short text, when the judge gives one.
    pub answer: Option<String>,
    /// The judge's confidence in `answers`, 0..1. Uncalibrated: a judge that gives only a
    /// yes/no (the hosted one) reports 1 or 0.
    pub confidence: f64,
    /// Which judge: `hosted:MODEL`, `local:…`.
    pub judge: String,
    /// Per memory shown, the judge's confidence that it answers (a judge that only names
    /// one memory leaves this empty). What the support check reads, beside the verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_memory: Vec<(i64, f64)>,
}

/// What one judge call came to.
#[derive(Debug, Clone, PartialEq)]
pub enum JudgeOutcome {
    Verdict(Verdict),
    /// Past its time budget (the reason says how far).
    Skipped(String),
    Busy,
    Warming,
    /// Cannot run; the reason never contains a secret.
    Unavailable(String),
}

/// A judge of "do these memories answer this question?". Implementations must return by
/// `deadline` (give up and say [`JudgeOutcome::Skipped`] past it) and must never put a
/// secret (an API key) into a reason.
pub trait Judge: Send + Sync {
    /// `hosted:MODEL`, `local:…`, as reported in `answer_check.judge`.
    fn name(&self) -> String;
    fn judge(&self, query: &str, evidence: &[Evidence], deadline: Instant) -> JudgeOutcome;
    /// Whether `auto` may use this local judge. A judge that did not improve the tiers on the
    /// dev data runs only when asked for by name (`mode = local`).
    fn used_by_auto(&self) -> bool {
        true
    }
}

/// A judge that was asked for but cannot run: every call is `unavailable` with the same
/// reason, and nothing is sent anywhere.
pub struct Unavailable {
    name: String,
    reason: String,
}

impl Unavailable {
    pub fn new(name: impl Into<String>, reason: impl Into<String>) -> Unavailable {
        Unavailable {
            name: name.into(),
            reason: reason.into(),
        }
    }
}

impl Judge for Unavailable {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn judge(&self, _: &str, _: &[Evidence], _: Instant) -> JudgeOutcome {
        JudgeOutcome::Unavailable(self.reason.clone())
    }
}

/// The answer check of one recall: what it showed the judge and what came back.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerCheck {
    pub status: AnswerCheckStatus,
    /// Only when `status` is `judged`.
    pub verdict: Option<Verdict>,
    pub time_ms: f64,
    /// The memory ids shown to the judge, in order (empty when nothing was shown).
    pub input: Vec<i64>,
    /// Why it did not judge (skipped, unavailable, off for a reason).
    pub reason: Option<String>,
}

impl AnswerCheck {
    /// No judge ran, for `reason` (None: simply not configured).
    pub fn not_run(status: AnswerCheckStatus, reason: Option<String>) -> AnswerCheck {
        AnswerCheck {
            status,
            verdict: None,
            time_ms: 0.0,
            input: Vec::new(),
            reason,
        }
    }

    /// The verdict's confidence, only when judged (`answer_confidence`).
    pub fn confidence(&self) -> Option<f64> {
        match (&self.status, &self.verdict) {
            (AnswerCheckStatus::Judged, Some(v)) => Some(v.confidence),
            _ => None,
        }
    }

    /// The response's `answer_check` object, only when judged.
    pub fn report(&self) -> Option<AnswerCheckReport> {
        match (&self.status, &self.verdict) {
            (AnswerCheckStatus::Judged, Some(v)) => Some(AnswerCheckReport {
                answers: v.answers,
                memory_id: v.memory_id,
                answer: v.answer.clone(),
                judge: v.judge.clone(),
                time_ms: self.time_ms,
            }),
            _ => None,
        }
    }

    /// What `--explain` shows: the judge's input, its verdict, its time, and why not.
    pub fn explain(&self) -> AnswerCheckExplain {
        AnswerCheckExplain {
            status: self.status,
            input: self.input.clone(),
            verdict: self.verdict.clone(),
            time_ms: self.time_ms,
            reason: self.reason.clone(),
        }
    }
}

/// `answer_check` in a recall response (present only when a judge gave a verdict).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AnswerCheckReport {
    pub answers: bool,
    pub memory_id: Option<i64>,
    pub answer: Option<String>,
    pub judge: String,
    pub time_ms: f64,
}

/// `explain.answer_check`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AnswerCheckExplain {
    pub status: AnswerCheckStatus,
    /// Memory ids shown to the judge, in order.
    pub input: Vec<i64>,
    pub verdict: Option<Verdict>,
    pub time_ms: f64,
    pub reason: Option<String>,
}

/// Why recall skips the check for a run that is never judged.
pub const SKIP_REASON: &str =
    "not a question (session context, or choosing what to forget): never judged";

/// Run the answer check: no judge → `off`; `skip` → `off` (session context); no evidence →
/// `skipped`; otherwise the judge, held to `budget`.
pub fn apply(
    judge: Option<&dyn Judge>,
    query: &str,
    evidence: &[Evidence],
    budget: Duration,
    skip: bool,
) -> AnswerCheck {
    if skip {
        return AnswerCheck::not_run(AnswerCheckStatus::Off, Some(SKIP_REASON.into()));
    }
    let Some(judge) = judge else {
        return AnswerCheck::not_run(AnswerCheckStatus::Off, None);
    };
    if evidence.is_empty() {
        return AnswerCheck::not_run(
            AnswerCheckStatus::Skipped,
            Some("nothing to judge: no result passed the evidence floor".into()),
        );
    }
    let evidence = &evidence[..evidence.len().min(EVIDENCE_COUNT)];
    let input: Vec<i64> = evidence.iter().map(|e| e.id).collect();
    let start = Instant::now();
    let deadline = start + budget;
    let outcome = judge.judge(query, evidence, deadline);
    let elapsed = start.elapsed();
    let time_ms = (elapsed.as_secs_f64() * 1e6).round() / 1e3;
    let (status, verdict, reason) = match outcome {
        JudgeOutcome::Verdict(_) if elapsed > budget + DEADLINE_GRACE => (
            AnswerCheckStatus::Skipped,
            None,
            Some(format!(
                "the verdict came after {time_ms:.0} ms, past the budget of {} ms",
                budget.as_millis()
            )),
        ),
        JudgeOutcome::Verdict(mut v) => {
            // A judge can only point at what it was shown.
            if v.memory_id.is_some_and(|id| !input.contains(&id)) {
                v.memory_id = None;
            }
            v.confidence = v.confidence.clamp(0.0, 1.0);
            (AnswerCheckStatus::Judged, Some(v), None)
        }
        JudgeOutcome::Skipped(why) => (AnswerCheckStatus::Skipped, None, Some(why)),
        JudgeOutcome::Busy => (AnswerCheckStatus::Busy, None, None),
        JudgeOutcome::Warming => (AnswerCheckStatus::Warming, None, None),
        JudgeOutcome::Unavailable(why) => (AnswerCheckStatus::Unavailable, None, Some(why)),
    };
    AnswerCheck {
        status,
        verdict,
        time_ms,
        input,
        reason,
    }
}

/// The stage as recall runs it: show the judge the first [`EVIDENCE_COUNT`] of `ranked`
/// (ids after ranking, best first). `judged: false` (a caller that wants no answer) is
/// `off`; keyword-only answers (the cold path, a budget's fallback) are `skipped`; a recall
/// with a time budget gives the judge no more than what is left of it (`started`).
pub fn stage(
    engine: &crate::engine::Engine,
    req: &super::RecallRequest,
    ranked: &[i64],
    started: Instant,
    judged: bool,
) -> crate::Result<AnswerCheck> {
    if !judged {
        return Ok(apply(None, &req.query, &[], Duration::ZERO, true));
    }
    if (req.keyword_only || engine.answer_reader().is_none()) && reader_expected(engine)? {
        // The cold path never loads the reader (it answers without waiting for a model):
        // the worker has it, and says so by answering `warming`, never slower.
        return Ok(AnswerCheck::not_run(
            AnswerCheckStatus::Warming,
            Some("the reader loads with the worker; an answer without it is not judged".into()),
        ));
    }
    let (judge, budget) = judge_for(engine)?;
    let Some(judge) = judge else {
        return Ok(AnswerCheck::not_run(AnswerCheckStatus::Off, None));
    };
    if req.keyword_only {
        return Ok(AnswerCheck::not_run(
            AnswerCheckStatus::Skipped,
            Some("a keyword-only answer (no model loaded, or out of time) is not judged".into()),
        ));
    }
    let budget = match req.budget_s {
        Some(b) => budget.min(Duration::from_secs_f64(b).saturating_sub(started.elapsed())),
        None => budget,
    };
    let mut evidence = Vec::new();
    let mut shown: Vec<i64> = ranked.iter().take(EVIDENCE_COUNT).copied().collect();
    // Wordless pictures are never judged by a text judge; one on top leaves the answer unjudged.
    let wordless: std::collections::HashSet<i64> = engine
        .wordless_notes(&shown)?
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    if shown.first().is_some_and(|id| wordless.contains(id)) {
        return Ok(AnswerCheck::not_run(
            AnswerCheckStatus::MediaUnjudged,
            Some("the top result is a picture with no words in it: it is found by its note, and no text judge can say what it shows".into()),
        ));
    }
    shown.retain(|id| !wordless.contains(id));
    let mut vectors = engine.stored_embeddings(&shown).unwrap_or_default();
    for id in shown {
        if let Some(m) = engine.get(id)? {
            evidence.push(Evidence {
                id,
                text: m.text,
                vector: vectors.remove(&id),
            });
        }
    }
    Ok(apply(
        Some(judge.as_ref()),
        &req.query,
        &evidence,
        budget,
        false,
    ))
}

/// `answer_check.mode` in settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Auto,
    Local,
    Hosted,
    Off,
}

impl Mode {
    pub const NAMES: &'static str = "auto, local, hosted, off";

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Local => "local",
            Mode::Hosted => "hosted",
            Mode::Off => "off",
        }
    }
}

/// The answer check's own failures.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AnswerCheckError {
    #[error(
        "settings answer_check.mode {0:?} is not a mode: expected one of {names}",
        names = Mode::NAMES
    )]
    UnknownMode(String),
    #[error("settings answer_check.budget_ms is 0: give the judge's time budget in milliseconds")]
    ZeroBudget,
}

impl From<AnswerCheckError> for crate::Error {
    fn from(e: AnswerCheckError) -> Self {
        crate::Error::Usage(e.to_string())
    }
}

impl std::str::FromStr for Mode {
    type Err = AnswerCheckError;
    fn from_str(s: &str) -> Result<Mode, AnswerCheckError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Mode::Auto),
            "local" => Ok(Mode::Local),
            "hosted" => Ok(Mode::Hosted),
            "off" => Ok(Mode::Off),
            _ => Err(AnswerCheckError::UnknownMode(s.to_string())),
        }
    }
}

/// The settings, checked: the mode parsed and the budget non-zero. An unset budget is the
/// default of the judge the mode uses: the hosted one's for `hosted`, the local one's
/// otherwise.
pub fn mode_and_budget(
    s: &crate::settings::AnswerCheckSettings,
) -> Result<(Mode, Duration), AnswerCheckError> {
    use crate::settings::{HOSTED_JUDGE_BUDGET_MS, LOCAL_JUDGE_BUDGET_MS};
    let mode: Mode = s.mode.parse()?;
    let ms = match (s.budget_ms, mode) {
        (Some(0), _) => return Err(AnswerCheckError::ZeroBudget),
        (Some(ms), _) => ms,
        (None, Mode::Hosted) => HOSTED_JUDGE_BUDGET_MS,
        (None, _) => LOCAL_JUDGE_BUDGET_MS,
    };
    Ok((mode, Duration::from_millis(ms)))
}

/// The reason a `local` mode gives when no local judge is installed.
pub const NO_LOCAL_JUDGE: &str = "no local judge is installed";

/// Which judge a recall uses, from settings and the local judge (if one is installed).
/// `auto` never resolves to the hosted judge; `hosted` resolves to it only with consent
/// recorded, and otherwise to an [`Unavailable`] judge that sends nothing.
pub fn resolve(
    s: &crate::settings::AnswerCheckSettings,
    local: Option<Arc<dyn Judge>>,
) -> Result<Option<Arc<dyn Judge>>, AnswerCheckError> {
    let (mode, _) = mode_and_budget(s)?;
    Ok(match mode {
        Mode::Off => None,
        Mode::Auto => local.filter(|j| j.used_by_auto()),
        Mode::Local => {
            Some(local.unwrap_or_else(|| Arc::new(Unavailable::new("local", NO_LOCAL_JUDGE))))
        }
        Mode::Hosted => Some(match hosted::HostedJudge::from_settings(&s.hosted) {
            Ok(j) => Arc::new(j),
            Err(why) => Arc::new(Unavailable::new("hosted", why.to_string())),
        }),
    })
}

/// The judge for the next recall on `engine`, and its time budget.
///
/// Resolved from `settings.json` as it is now, not as it was when the engine opened: a
/// long-lived worker must stop sending the moment `slm answer-check off` revokes consent,
/// and start judging once it is given (`settings::Live` reads the file again only when it
/// changed). The local judge is the engine's embedding model when it
/// has an answer prompt. An unknown mode is a usage error.
pub fn judge_for(
    engine: &crate::engine::Engine,
) -> crate::Result<(Option<Arc<dyn Judge>>, Duration)> {
    let live = engine.live_settings.current()?;
    let settings = &live.answer_check;
    let (_, budget) = mode_and_budget(settings)?;
    // The reader when one is configured (loading or not: it waits within the budget, then
    // `warming`; `unavailable` with the reason when it cannot load), else the embedding
    // model's own judge.
    let local = match engine.answer_reader() {
        Some(slot) => Some(Arc::new(reader::ReaderJudge::new(slot.clone())) as Arc<dyn Judge>),
        None => engine
            .embedder()
            .and_then(local::EmbeddingJudge::for_embedder)
            .map(|j| Arc::new(j) as Arc<dyn Judge>),
    };
    Ok((resolve(settings, local)?, budget))
}

/// Whether this recall would be judged by a reader once models are loaded: one is
/// configured and the mode is `auto` or `local`.
fn reader_expected(engine: &crate::engine::Engine) -> crate::Result<bool> {
    let settings = engine.live_settings.current()?;
    let (mode, _) = mode_and_budget(&settings.answer_check)?;
    Ok(matches!(mode, Mode::Auto | Mode::Local)
        && crate::embed::reader::configured(&engine.paths, &settings).is_some())
}

/// The answer check's settings as they are now, as text: part of the worker's key for
/// reusing an answer.
pub fn fingerprint(engine: &crate::engine::Engine) -> String {
    match engine.live_settings.current() {
        Ok(s) => serde_json::to_string(&s.answer_check).unwrap_or_default(),
        Err(e) => e.to_string(),
    }
}

#[cfg(test)]
mod tests;
