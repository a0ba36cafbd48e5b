//! `slm eval locomo` under other channel weights: `--ablate` (each channel off in turn) and
//! `--tune` (a grid of multipliers, chosen leave-one-conversation-out so the figure says how
//! the weights do on a conversation they were not chosen on).

use super::report::{QuestionOutcome, stats};
use crate::embed::manifest::FusionScale;
use crate::embed::query::QueryMode;
use crate::engine::Engine;
use crate::recall::tiers::AnswerTier;
use crate::{Error, Result};
use serde::Serialize;
use std::collections::BTreeSet;

/// The channels a scale can name, in `FusionScale`'s order.
pub const CHANNELS: [&str; 6] = [
    "semantic",
    "bm25",
    "entity_graph",
    "temporal",
    "spreading",
    "hopfield",
];

/// The k the tuning optimises (R@5, the first figure) and the tables print.
pub const TUNE_K: usize = 5;

#[derive(Debug, Clone)]
pub struct Variant {
    pub name: String,
    /// On top of the model's own scale.
    pub scale: FusionScale,
    /// The questions' encoder for this run (None: as configured).
    pub query: Option<QueryMode>,
}

/// Embed this run's questions with `mode` (None: as configured); an error when the fast
/// encoder is asked for and not loaded, rather than a run that silently measures the other.
pub fn set_query_mode(engine: &Engine, mode: Option<QueryMode>) -> Result<()> {
    let Some(mode) = mode else {
        // As configured: the engine loaded what the settings ask for, if it could.
        engine.set_query_mode(QueryMode::configured(&engine.settings)?);
        return Ok(());
    };
    if engine.set_query_mode(mode) {
        return Ok(());
    }
    Err(Error::Input(format!(
        "--query-encoder fast: the fast query encoder is not loaded ({})",
        engine
            .query_status()
            .map(|w| w.detail.clone())
            .unwrap_or_else(|| "no model".into())
    )))
}

/// "semantic=2,bm25=0.5" → those multipliers, 1 for the rest.
pub fn parse_scale(spec: &str) -> Result<FusionScale> {
    let mut s = FusionScale::ONE;
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| Error::Usage(format!("--scale {part:?}: expected channel=number")))?;
        let v: f64 = v
            .trim()
            .parse()
            .map_err(|_| Error::Usage(format!("--scale {part:?}: {v:?} is not a number")))?;
        if !(v >= 0.0 && v.is_finite()) || !s.set(k.trim(), v) {
            return Err(Error::Usage(format!(
                "--scale {part:?}: expected one of {} = a number ≥ 0",
                CHANNELS.join(", ")
            )));
        }
    }
    Ok(s)
}

/// Each channel off in turn (on top of `base`).
pub fn ablations(base: &FusionScale) -> Vec<Variant> {
    CHANNELS
        .iter()
        .map(|c| {
            let mut s = *base;
            s.set(c, 0.0);
            Variant {
                name: format!("without {c}"),
                scale: s,
                query: None,
            }
        })
        .collect()
}

/// "semantic=1,2;bm25=0.5,1" → the four combinations (on top of `base`).
pub fn grid(spec: &str, base: &FusionScale) -> Result<Vec<Variant>> {
    let mut points = vec![(String::new(), *base)];
    for axis in spec.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, vs) = axis
            .split_once('=')
            .ok_or_else(|| Error::Usage(format!("--tune {axis:?}: expected channel=a,b,c")))?;
        let k = k.trim();
        let mut next = Vec::new();
        for v in vs.split(',').map(str::trim).filter(|v| !v.is_empty()) {
            let mult = parse_scale(&format!("{k}={v}"))?;
            for (name, s) in &points {
                let sep = if name.is_empty() { "" } else { " " };
                next.push((format!("{name}{sep}{k}={v}"), s.times(&mult)));
            }
        }
        if next.is_empty() {
            return Err(Error::Usage(format!("--tune {axis:?}: no values")));
        }
        points = next;
    }
    if points.len() > MAX_GRID {
        return Err(Error::Usage(format!(
            "--tune: {} grid points; at most {MAX_GRID} (each one asks every question again)",
            points.len()
        )));
    }
    Ok(points
        .into_iter()
        .map(|(name, scale)| Variant {
            name,
            scale,
            query: None,
        })
        .collect())
}

/// Enough for a three-axis grid of four values; more is hours on two cores.
pub const MAX_GRID: usize = 64;

#[derive(Debug, Clone, Serialize)]
pub struct VariantRow {
    pub name: String,
    pub recall_at_5: f64,
    pub recall_at_10: f64,
    pub session_recall_at_5: f64,
    pub supported_when_top3: Option<f64>,
    pub adversarial_not_supported: Option<f64>,
}

/// The figures of one variant's run, categories 1–4 (and 5 for the adversarial share).
pub fn row(name: &str, outs: &[QuestionOutcome]) -> VariantRow {
    let ans: Vec<&QuestionOutcome> = outs
        .iter()
        .filter(|q| (1..=4).contains(&q.category))
        .collect();
    let s = stats(&[5, 10], &ans, false);
    let adv: Vec<&QuestionOutcome> = outs.iter().filter(|q| q.category == 5).collect();
    VariantRow {
        name: name.to_string(),
        recall_at_5: s.recall_at[&5],
        recall_at_10: s.recall_at[&10],
        session_recall_at_5: s.session_recall_at[&5],
        supported_when_top3: s.supported_when_top3,
        adversarial_not_supported: (!adv.is_empty()).then(|| {
            adv.iter()
                .filter(|q| q.tier != AnswerTier::Supported)
                .count() as f64
                / adv.len() as f64
        }),
    }
}

pub fn markdown_rows(title: &str, rows: &[VariantRow]) -> String {
    let mut s = format!(
        "\n{title}:\n\n| run | R@5 | R@10 | session R@5 | top-3 → supported | adversarial → not supported |\n|---|---|---|---|---|---|\n"
    );
    let f = |v: Option<f64>| v.map(|v| format!("{v:.3}")).unwrap_or("-".into());
    for r in rows {
        s.push_str(&format!(
            "| {} | {:.3} | {:.3} | {:.3} | {} | {} |\n",
            r.name,
            r.recall_at_5,
            r.recall_at_10,
            r.session_recall_at_5,
            f(r.supported_when_top3),
            f(r.adversarial_not_supported)
        ));
    }
    s
}

#[derive(Debug, Clone, Serialize)]
pub struct LocoRow {
    /// The held-out conversation.
    pub conversation: String,
    /// The grid point that did best on the other conversations.
    pub chosen: String,
    /// R@5 on the held-out conversation with `chosen`.
    pub held_out_recall_at_5: f64,
    /// R@5 on it with the point chosen on all conversations.
    pub tuned_recall_at_5: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Loco {
    pub k: usize,
    /// Best on all conversations together.
    pub tuned: String,
    pub tuned_recall_at_5: f64,
    /// Every conversation scored with the point chosen without it (pooled over questions).
    pub loco_recall_at_5: f64,
    pub rows: Vec<LocoRow>,
    pub grid: Vec<VariantRow>,
}

/// (sum of per-question R@k, questions) of one variant on the conversations `keep` accepts.
fn pooled(outs: &[QuestionOutcome], keep: impl Fn(&str) -> bool) -> (f64, usize) {
    let mut sum = 0.0;
    let mut n = 0;
    for q in outs {
        if !(1..=4).contains(&q.category) || q.gold.is_empty() || !keep(&q.conversation) {
            continue;
        }
        let top: Vec<i64> = q.ranked.iter().take(TUNE_K).copied().collect();
        sum += q.gold.iter().filter(|g| top.contains(g)).count() as f64 / q.gold.len() as f64;
        n += 1;
    }
    (sum, n)
}

fn best(per_variant: &[Vec<QuestionOutcome>], keep: impl Fn(&str) -> bool + Copy) -> usize {
    let mut best = (0, f64::MIN);
    for (i, outs) in per_variant.iter().enumerate() {
        let (s, n) = pooled(outs, keep);
        let r = s / n.max(1) as f64;
        // ties go to the earlier (simpler) point
        if r > best.1 + 1e-12 {
            best = (i, r);
        }
    }
    best.0
}

/// Leave-one-conversation-out selection over the grid.
pub fn loco(variants: &[Variant], per_variant: &[Vec<QuestionOutcome>]) -> Loco {
    let convs: BTreeSet<String> = per_variant
        .iter()
        .flatten()
        .map(|q| q.conversation.clone())
        .collect();
    let tuned = best(per_variant, |_| true);
    let (ts, tn) = pooled(&per_variant[tuned], |_| true);
    let mut rows = Vec::new();
    let (mut ls, mut ln) = (0.0, 0);
    for c in &convs {
        let chosen = best(per_variant, |x| x != c);
        let (s, n) = pooled(&per_variant[chosen], |x| x == c);
        let (t, tn1) = pooled(&per_variant[tuned], |x| x == c);
        ls += s;
        ln += n;
        rows.push(LocoRow {
            conversation: c.clone(),
            chosen: variants[chosen].name.clone(),
            held_out_recall_at_5: s / n.max(1) as f64,
            tuned_recall_at_5: t / tn1.max(1) as f64,
        });
    }
    Loco {
        k: TUNE_K,
        tuned: variants[tuned].name.clone(),
        tuned_recall_at_5: ts / tn.max(1) as f64,
        loco_recall_at_5: ls / ln.max(1) as f64,
        rows,
        grid: variants
            .iter()
            .zip(per_variant)
            .map(|(v, o)| row(&v.name, o))
            .collect(),
    }
}

impl Loco {
    pub fn markdown(&self) -> String {
        let mut s = markdown_rows(
            "tuning grid (multipliers on the model's channel scale)",
            &self.grid,
        );
        s.push_str(&format!(
            "\nleave-one-conversation-out (R@{}): tuned on all = {:.3} with {}; each conversation scored with the point chosen on the others = {:.3}\n\n| held out | chosen on the others | R@{k} held out | R@{k} tuned on all |\n|---|---|---|---|\n",
            self.k,
            self.tuned_recall_at_5,
            self.tuned,
            self.loco_recall_at_5,
            k = self.k
        ));
        for r in &self.rows {
            s.push_str(&format!(
                "| {} | {} | {:.3} | {:.3} |\n",
                r.conversation, r.chosen, r.held_out_recall_at_5, r.tuned_recall_at_5
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(conv: &str, gold: i64, ranked: Vec<i64>) -> QuestionOutcome {
        QuestionOutcome {
            conversation: conv.into(),
            question: "q".into(),
            category: 4,
            gold: vec![gold],
            gold_audited: vec![gold],
            ranked,
            gold_sessions: vec![],
            ranked_sessions: vec![],
            tier: AnswerTier::Related,
            support_max: 0.0,
            timing: Default::default(),
            unjudged: None,
        }
    }

    #[test]
    fn grids_multiply_out_and_bad_specs_are_usage_errors() {
        let g = grid("semantic=1,2;bm25=0.5,1,2", &FusionScale::ONE).unwrap();
        assert_eq!(g.len(), 6);
        assert_eq!(g[5].name, "semantic=2 bm25=2");
        assert_eq!((g[5].scale.semantic, g[5].scale.bm25), (2.0, 2.0));
        assert!(grid("semantics=1", &FusionScale::ONE).is_err());
        assert!(grid("bm25=x", &FusionScale::ONE).is_err());
        assert!(parse_scale("bm25=-1").is_err());
        let base = FusionScale::MINILM;
        assert_eq!(grid("semantic=2", &base).unwrap()[0].scale.bm25, base.bm25);
    }

    #[test]
    fn loco_scores_each_conversation_with_the_point_chosen_on_the_others() {
        // Point 0 is right on conversation a only, point 1 on b, c and d. Held out, a gets
        // point 1 (chosen on b, c, d) and scores 0; b, c and d get point 1 (2/3 vs 1/3 on
        // the others) and score 1.
        let v = vec![
            Variant {
                name: "p0".into(),
                scale: FusionScale::ONE,
                query: None,
            },
            Variant {
                name: "p1".into(),
                scale: FusionScale::ONE,
                query: None,
            },
        ];
        let convs = ["a", "b", "c", "d"];
        let p0: Vec<_> = convs
            .iter()
            .enumerate()
            .map(|(i, c)| {
                out(
                    c,
                    i as i64,
                    if *c == "a" { vec![i as i64] } else { vec![99] },
                )
            })
            .collect();
        let p1: Vec<_> = convs
            .iter()
            .enumerate()
            .map(|(i, c)| {
                out(
                    c,
                    i as i64,
                    if *c == "a" { vec![99] } else { vec![i as i64] },
                )
            })
            .collect();
        let l = loco(&v, &[p0, p1]);
        assert_eq!(l.tuned, "p1");
        assert!((l.tuned_recall_at_5 - 0.75).abs() < 1e-12);
        assert_eq!(l.rows[0].conversation, "a");
        assert_eq!(l.rows[0].chosen, "p1");
        assert_eq!(l.rows[0].held_out_recall_at_5, 0.0);
        assert_eq!(l.rows[1].held_out_recall_at_5, 1.0);
        assert!((l.loco_recall_at_5 - 0.75).abs() < 1e-12);
    }
}
