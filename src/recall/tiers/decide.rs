//! The decision: which tier the answer is, and which memories it shows.

use super::answer_type;
use super::score::{
    RARE_MAX_DOCS, RARE_SHARE, SupportSignals, TIME_WORDS, Words, question_baseline, score_one,
    stems,
};
use super::why::{self, Rule};
use super::{
    AnswerTier, Context, Decision, NOTE_RELATED, NOTE_RELATED_AGENT, Tier, gibberish, note_none,
    note_warming,
};
use crate::recall::View;
use crate::recall::channels::Channel;
use crate::recall::fusion::Candidate;
use crate::recall::voice;
use crate::{Result, text};
use std::collections::HashSet;

/// Support score below which a memory is not even related.
pub const RELATED_AT: f64 = 0.20;
/// Candidates the support check scores (the head of the ranked pool).
pub const SUPPORT_DEPTH: usize = 30;
/// Related answers show at most this many memories (the spec: up to three).
pub const RELATED_MAX: usize = 3;
/// Warming answers show at most this many keyword results (the spec: up to five).
pub const WARMING_MAX: usize = 5;
/// Shown weak matches (with show_weak).
pub const WEAK_MAX: usize = 5;
/// After a fall-back to keyword search (warming), a memory shown must carry at least this
/// share of the question's content words (and every rare word): the spec's "at least half
/// of its content words" (how-recall-works.md, "Support tiers"), taken as written, not
/// measured here.
pub const KEYWORD_FALLBACK_COVERAGE: f64 = 0.5;

/// A memory shown: the candidate, its tier, its support score when it was scored.
type Shown = (Candidate, Tier, Option<f64>);

impl Decision {
    /// An answer of `tier` with `note`, showing `results`: measured (not warming), not
    /// gibberish, no weak list (see [`Decision::with_weak`]).
    fn answer(
        rule: Rule,
        tier: AnswerTier,
        note: Option<String>,
        results: Vec<Shown>,
        signals: Vec<SupportSignals>,
    ) -> Decision {
        Decision {
            gibberish: None,
            rule,
            left: Vec::new(),
            tier,
            note,
            warming: false,
            results,
            weak: Vec::new(),
            signals,
        }
    }

    /// The closest weak matches of `pool` too, when the request asked for them.
    fn with_weak<'a>(mut self, asked: bool, pool: impl Iterator<Item = &'a Candidate>) -> Decision {
        if asked {
            self.weak = pool
                .take(WEAK_MAX)
                .map(|c| shown(c, Tier::Weak, &self.signals))
                .collect();
        }
        self
    }
}

/// `c` shown as `tier`, with its support score when it was scored.
fn shown(c: &Candidate, tier: Tier, signals: &[SupportSignals]) -> Shown {
    let score = signals.iter().find(|s| s.id == c.id).map(|s| s.score);
    (c.clone(), tier, score)
}

/// The head of the ranked pool scored (see `score`), and whether the question is strict (no
/// question word: only a memory carrying its words answers it).
fn score_head(ctx: &Context<'_>, ranked: &[Candidate]) -> Result<(Vec<SupportSignals>, bool)> {
    let n_docs = ctx.engine.num_docs().max(1);
    // Words of a time phrase ("last Friday") are matched by the temporal producer, not by
    // the memory's words, so the word tests leave them out.
    let time_words: HashSet<String> = ctx
        .q
        .time
        .refs
        .iter()
        .flat_map(|r| text::words(&r.matched))
        .chain(TIME_WORDS.iter().map(|w| w.to_string()))
        .collect();
    let words: Vec<String> = ctx
        .q
        .content_words
        .iter()
        .filter(|w| !time_words.contains(*w))
        .cloned()
        .collect();
    let q_stems = stems(&words);
    let rare: Vec<String> = words
        .iter()
        .filter(|w| {
            // A word in no memory is the rarest of all: no memory carries it.
            let df = ctx.engine.doc_freq(w);
            df <= RARE_MAX_DOCS || (df as f64) / (n_docs as f64) <= RARE_SHARE
        })
        .map(|w| text::stem(w))
        .collect();
    let q_base = question_baseline(ctx);
    let strict = !ctx.q.has_question_word;

    // Who each memory speaks as, to and about; a name of the question is a person of the
    // store when some scored memory is spoken by or to it.
    let head: Vec<&Candidate> = ranked.iter().take(SUPPORT_DEPTH).collect();
    let mut voices = Vec::with_capacity(head.len());
    // What the question asks for, and which memories hold something of that kind.
    let expected = answer_type::expected(&ctx.req.query);
    let mut of_type = Vec::with_capacity(head.len());
    for c in &head {
        let m = ctx.engine.get(c.id)?;
        of_type.push(match (&m, expected) {
            (Some(m), Some(e)) => answer_type::carries(e, &m.text),
            (None, Some(_)) => false,
            (_, None) => true,
        });
        voices.push(match m {
            Some(m) => voice::read(&m.text, m.speaker.as_deref()),
            None => voice::read("", None),
        });
    }
    let people: Vec<Vec<String>> = ctx
        .q
        .names
        .iter()
        .filter(|n| {
            voices
                .iter()
                .any(|v| v.people().any(|p| voice::same_person(&p, n)))
        })
        .cloned()
        .collect();
    let words = Words {
        q_stems: &q_stems,
        rare: &rare,
        people: &people,
    };
    let signals = head
        .iter()
        .zip(&voices)
        .zip(&of_type)
        .map(|((c, v), t)| score_one(ctx, c, v, &words, q_base, strict, *t))
        .collect();
    Ok((signals, strict))
}

/// Which tier the answer is and which memories it shows, tried in this order: ungated (on
/// request), present tense (the newest), warming (keyword results, related), gibberish
/// (none), supported, related (the closest by support), pinned, none.
pub fn decide(ctx: &Context<'_>, ranked: &[Candidate]) -> Result<Decision> {
    let mut d = decide_tier(ctx, ranked)?;
    if ctx.req.explain {
        d.left = why::left_the_list(&d, ranked, ctx.req.limit.max(1));
    }
    Ok(d)
}

fn decide_tier(ctx: &Context<'_>, ranked: &[Candidate]) -> Result<Decision> {
    let req = ctx.req;
    let limit = req.limit.max(1);
    // An agent that did not ask for related memories is told they exist, not shown them.
    let hide_related = matches!(
        req.view,
        View::Agent {
            include_related: false
        }
    );

    // The ungated behaviour, on request: the ranked list as it is.
    if !req.support_gate {
        let results: Vec<_> = ranked
            .iter()
            .take(limit)
            .map(|c| (c.clone(), Tier::Supported, None))
            .collect();
        let tier = if results.is_empty() {
            AnswerTier::None
        } else {
            AnswerTier::Supported
        };
        return Ok(Decision::answer(
            Rule::Ungated,
            tier,
            None,
            results,
            Vec::new(),
        ));
    }

    let (signals, strict) = score_head(ctx, ranked)?;

    // Present tense: no word-match test; answered from the newest memories.
    if ctx.q.present_tense && !ctx.warming {
        let mut newest: Vec<&Candidate> = ranked
            .iter()
            .filter(|c| c.channels.contains_key(&Channel::Temporal))
            .collect();
        newest.sort_by_key(|c| {
            c.channels
                .get(&Channel::Temporal)
                .map(|h| h.rank)
                .unwrap_or(usize::MAX)
        });
        let results: Vec<_> = newest
            .into_iter()
            .take(limit)
            .map(|c| (c.clone(), Tier::Supported, None))
            .collect();
        if !results.is_empty() {
            return Ok(Decision::answer(
                Rule::PresentTense,
                AnswerTier::Supported,
                None,
                results,
                signals,
            ));
        }
    }

    let best_cosine = signals
        .iter()
        .filter_map(|s| s.cosine)
        .fold(f64::MIN, f64::max);
    let media_floor = ctx.engine.media_floor() as f64;
    let pictured = ranked.iter().any(|c| {
        c.channel_score(Channel::Picture)
            .is_some_and(|s| s >= media_floor)
    });
    let junk = gibberish(ctx, best_cosine, pictured);

    if ctx.warming {
        // Nothing was measured, so never "isn't in memory": keyword results, labelled related.
        // After a fall-back to keyword search a memory must carry every rare word and at least
        // half of the content words.
        let keep: Vec<_> = ranked
            .iter()
            .filter(|c| c.channels.contains_key(&Channel::Bm25))
            .filter(|c| {
                signals.iter().find(|s| s.id == c.id).is_some_and(|s| {
                    s.text_rare_all && s.text_coverage >= KEYWORD_FALLBACK_COVERAGE
                })
            })
            .take(WARMING_MAX)
            .map(|c| shown(c, Tier::Related, &signals))
            .collect();
        let mut note = note_warming(ctx.req.warming_estimate_ms);
        if let Some(r) = &ctx.degraded_reason {
            note.push_str(&format!(" ({r})"));
        }
        let results = if hide_related { Vec::new() } else { keep };
        let mut d = Decision::answer(
            Rule::Warming,
            AnswerTier::Related,
            Some(note),
            results,
            signals,
        );
        d.warming = true;
        return Ok(d);
    }

    if let Some(why) = junk {
        let mut d = Decision::answer(
            Rule::Gibberish(why),
            AnswerTier::None,
            Some(note_none()),
            Vec::new(),
            signals,
        );
        d.gibberish = junk;
        return Ok(d.with_weak(req.show_weak, ranked.iter()));
    }

    // A wordless picture is never "supported": its text is a label and a file name, and no
    // judge reads what it shows (the answer check says media_unjudged).
    let supported: HashSet<i64> = signals
        .iter()
        .filter(|s| s.supported && !ctx.wordless.contains(&s.id))
        .map(|s| s.id)
        .collect();
    if !supported.is_empty() {
        let results: Vec<_> = ranked
            .iter()
            .filter(|c| supported.contains(&c.id))
            .take(limit)
            .map(|c| shown(c, Tier::Supported, &signals))
            .collect();
        let rest = ranked.iter().filter(|c| !supported.contains(&c.id));
        return Ok(Decision::answer(
            Rule::Supported,
            AnswerTier::Supported,
            None,
            results,
            signals,
        )
        .with_weak(req.show_weak, rest));
    }

    // Pinned memories are still returned when nothing else is.
    let pinned: Vec<_> = ctx.engine.with_meta(|m| {
        ranked
            .iter()
            .filter(|c| m.get(&c.id).is_some_and(|r| r.pinned))
            .take(limit)
            .cloned()
            .collect::<Vec<_>>()
    })?;

    // A wordless picture the floor kept (its note has the question's words, or the picture
    // channel reached the media floor) is related whatever its text scored.
    let mut related: Vec<(&Candidate, f64)> = ranked
        .iter()
        .filter_map(|c| signals.iter().find(|s| s.id == c.id).map(|s| (c, s)))
        .filter_map(|(c, s)| {
            if ctx.wordless.contains(&c.id) {
                Some((c, s.score.max(RELATED_AT)))
            } else if s.score >= RELATED_AT && (!strict || s.text_coverage > 0.0) {
                Some((c, s.score))
            } else {
                None
            }
        })
        .collect();
    related.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.id.cmp(&b.0.id)));
    related.truncate(RELATED_MAX);
    // The closest by support, shown in ranking order.
    related.sort_by_key(|(c, _)| ranked.iter().position(|r| r.id == c.id));
    if !related.is_empty() {
        let (results, note) = if hide_related {
            (Vec::new(), NOTE_RELATED_AGENT)
        } else {
            let shown = related
                .iter()
                .map(|(c, s)| ((*c).clone(), Tier::Related, Some(*s)))
                .collect();
            (shown, NOTE_RELATED)
        };
        // The weak matches are the ones not already shown as related.
        let shown_ids: HashSet<i64> = results.iter().map(|(c, _, _)| c.id).collect();
        return Ok(Decision::answer(
            Rule::Related {
                hidden: hide_related,
            },
            AnswerTier::Related,
            Some(note.into()),
            results,
            signals,
        )
        .with_weak(
            req.show_weak,
            ranked.iter().filter(move |c| !shown_ids.contains(&c.id)),
        ));
    }
    if !pinned.is_empty() {
        let results = pinned
            .into_iter()
            .map(|c| (c, Tier::Related, None))
            .collect();
        return Ok(Decision::answer(
            Rule::Pinned,
            AnswerTier::Related,
            Some(NOTE_RELATED.into()),
            results,
            signals,
        ));
    }
    Ok(Decision::answer(
        Rule::Nothing,
        AnswerTier::None,
        Some(note_none()),
        Vec::new(),
        signals,
    )
    .with_weak(req.show_weak, ranked.iter()))
}
