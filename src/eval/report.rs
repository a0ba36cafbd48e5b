//! The evaluation report: metrics per category, tiers, latency, quirks, baselines, and the
//! support threshold's trade-off table. Printed as a table (Markdown) and as JSON.

use crate::recall::tiers::{AnswerTier, SUPPORTED_AT};
use locomo_names::category_name;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

mod locomo_names {
    pub fn category_name(c: u8) -> &'static str {
        match c {
            1 => "multi-hop",
            2 => "temporal",
            3 => "open-domain",
            4 => "single-hop",
            5 => "adversarial",
            _ => "other",
        }
    }
}

#[derive(Debug, Clone)]
pub struct QuestionOutcome {
    pub conversation: String,
    pub question: String,
    pub category: u8,
    pub gold: Vec<i64>,
    pub gold_audited: Vec<i64>,
    pub ranked: Vec<i64>,
    /// The sessions of the gold turns, and of each ranked turn (same order as `ranked`).
    pub gold_sessions: Vec<usize>,
    pub ranked_sessions: Vec<usize>,
    pub tier: AnswerTier,
    /// Best support score of a memory passing the word-match test (−1: gibberish).
    pub support_max: f64,
    pub timing: BTreeMap<String, f64>,
    /// When the answer check judged this question: the tier and support maximum of the same
    /// recall with the check off (the support check alone), for the side-by-side figures.
    pub unjudged: Option<(AnswerTier, f64)>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct CategoryStats {
    pub questions: usize,
    pub with_evidence: usize,
    pub recall_at: BTreeMap<usize, f64>,
    pub hit_at: BTreeMap<usize, f64>,
    /// Session level: a gold session is found when any of its turns is in the top k; the
    /// share of gold sessions found (the figure session-granular memory tools publish).
    pub session_recall_at: BTreeMap<usize, f64>,
    pub mrr: f64,
    pub supported: f64,
    pub related: f64,
    pub none: f64,
    /// Share supported among questions whose evidence is in the top 3.
    pub supported_when_top3: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub questions: usize,
    pub ks: Vec<usize>,
    pub by_category: BTreeMap<String, CategoryStats>,
    /// Categories 1–4 together.
    pub answerable: CategoryStats,
    pub answerable_audited: Option<CategoryStats>,
    /// Category 5: share not supported.
    pub adversarial_not_supported: Option<f64>,
    pub latency_ms: BTreeMap<String, (f64, f64)>,
    pub baselines: BTreeMap<String, CategoryStats>,
    pub threshold_tradeoff: Vec<TradeoffRow>,
    /// The support threshold the run used (the model's own, else SUPPORTED_AT).
    pub supported_at: f64,
    pub quirks: super::locomo::Quirks,
    /// The same questions with the answer check off, when it judged: answerable with evidence
    /// in the top 3 → supported, adversarial → not supported (side by side with the tiers
    /// above, which are the check's).
    pub answer_check_off: Option<(f64, f64)>,
}

/// Support thresholds the trade-off table shows (0.30 to 0.65 in steps of 0.025).
pub const TRADEOFF_THRESHOLDS: [f64; 15] = [
    0.30, 0.325, 0.35, 0.375, 0.40, 0.425, 0.45, 0.475, 0.50, 0.525, 0.55, 0.575, 0.60, 0.625, 0.65,
];

#[derive(Debug, Clone, Serialize)]
pub struct TradeoffRow {
    pub supported_at: f64,
    pub answerable_top3_supported: f64,
    pub adversarial_not_supported: f64,
    /// The same two with the answer check off, when it judged.
    pub unjudged: Option<(f64, f64)>,
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i.min(v.len() - 1)]
}

pub(crate) fn stats(ks: &[usize], qs: &[&QuestionOutcome], audited: bool) -> CategoryStats {
    let mut s = CategoryStats {
        questions: qs.len(),
        ..Default::default()
    };
    let gold = |q: &QuestionOutcome| {
        if audited {
            q.gold_audited.clone()
        } else {
            q.gold.clone()
        }
    };
    let with: Vec<&&QuestionOutcome> = qs.iter().filter(|q| !gold(q).is_empty()).collect();
    s.with_evidence = with.len();
    for &k in ks {
        let (mut r, mut h) = (0.0, 0.0);
        for q in &with {
            let g = gold(q);
            let top: Vec<i64> = q.ranked.iter().take(k).copied().collect();
            let found = g.iter().filter(|id| top.contains(id)).count();
            r += found as f64 / g.len() as f64;
            if found > 0 {
                h += 1.0;
            }
        }
        let n = with.len().max(1) as f64;
        s.recall_at.insert(k, r / n);
        s.hit_at.insert(k, h / n);
        let mut sr = 0.0;
        let mut sn = 0usize;
        for q in &with {
            let mut gs = q.gold_sessions.clone();
            gs.sort_unstable();
            gs.dedup();
            if gs.is_empty() {
                continue;
            }
            let top: Vec<usize> = q.ranked_sessions.iter().take(k).copied().collect();
            sr += gs.iter().filter(|g| top.contains(g)).count() as f64 / gs.len() as f64;
            sn += 1;
        }
        s.session_recall_at.insert(k, sr / sn.max(1) as f64);
    }
    let mut mrr = 0.0;
    for q in &with {
        let g = gold(q);
        if let Some(pos) = q.ranked.iter().position(|id| g.contains(id)) {
            mrr += 1.0 / (pos as f64 + 1.0);
        }
    }
    s.mrr = mrr / with.len().max(1) as f64;
    let n = qs.len().max(1) as f64;
    s.supported = qs
        .iter()
        .filter(|q| q.tier == AnswerTier::Supported)
        .count() as f64
        / n;
    s.related = qs.iter().filter(|q| q.tier == AnswerTier::Related).count() as f64 / n;
    s.none = qs.iter().filter(|q| q.tier == AnswerTier::None).count() as f64 / n;
    let top3: Vec<&&QuestionOutcome> = with
        .iter()
        .filter(|q| q.ranked.iter().take(3).any(|id| gold(q).contains(id)))
        .copied()
        .collect();
    if !top3.is_empty() {
        s.supported_when_top3 = Some(
            top3.iter()
                .filter(|q| q.tier == AnswerTier::Supported)
                .count() as f64
                / top3.len() as f64,
        );
    }
    s
}

impl Report {
    pub fn build(
        ks: &[usize],
        outcomes: &[QuestionOutcome],
        baselines: &HashMap<String, Vec<QuestionOutcome>>,
        quirks: super::locomo::Quirks,
        total: usize,
        audited: bool,
    ) -> Report {
        let mut by_category = BTreeMap::new();
        for c in 1..=5u8 {
            let qs: Vec<&QuestionOutcome> = outcomes.iter().filter(|q| q.category == c).collect();
            if !qs.is_empty() {
                by_category.insert(format!("{c} {}", category_name(c)), stats(ks, &qs, false));
            }
        }
        let ans: Vec<&QuestionOutcome> = outcomes
            .iter()
            .filter(|q| (1..=4).contains(&q.category))
            .collect();
        let adv: Vec<&QuestionOutcome> = outcomes.iter().filter(|q| q.category == 5).collect();
        let mut latency = BTreeMap::new();
        let keys: std::collections::BTreeSet<String> = outcomes
            .iter()
            .flat_map(|q| q.timing.keys().cloned())
            .collect();
        for k in keys {
            let mut v: Vec<f64> = outcomes
                .iter()
                .filter_map(|q| q.timing.get(&k).copied())
                .collect();
            let p50 = pct(&mut v, 0.5);
            let p90 = pct(&mut v, 0.9);
            latency.insert(k, (p50, p90));
        }
        let mut bl = BTreeMap::new();
        for (name, outs) in baselines {
            let a: Vec<&QuestionOutcome> = outs
                .iter()
                .filter(|q| (1..=4).contains(&q.category))
                .collect();
            bl.insert(name.clone(), stats(ks, &a, false));
        }
        // Trade-off of the support threshold, on the same runs (support_max per question).
        let mut trade = Vec::new();
        for t in TRADEOFF_THRESHOLDS {
            let top3: Vec<&&QuestionOutcome> = ans
                .iter()
                .filter(|q| q.ranked.iter().take(3).any(|id| q.gold.contains(id)))
                .collect();
            let sup = top3.iter().filter(|q| q.support_max >= t).count() as f64
                / top3.len().max(1) as f64;
            let adv_ns =
                adv.iter().filter(|q| q.support_max < t).count() as f64 / adv.len().max(1) as f64;
            let off = |q: &QuestionOutcome| q.unjudged.map(|u| u.1).unwrap_or(q.support_max);
            let judged = outcomes.iter().any(|q| q.unjudged.is_some());
            let unjudged = judged.then(|| {
                (
                    top3.iter().filter(|q| off(q) >= t).count() as f64 / top3.len().max(1) as f64,
                    adv.iter().filter(|q| off(q) < t).count() as f64 / adv.len().max(1) as f64,
                )
            });
            trade.push(TradeoffRow {
                supported_at: t,
                answerable_top3_supported: sup,
                adversarial_not_supported: adv_ns,
                unjudged,
            });
        }
        let judged_any = outcomes.iter().any(|q| q.unjudged.is_some());
        let off_tier = |q: &QuestionOutcome| q.unjudged.map(|u| u.0).unwrap_or(q.tier);
        let answer_check_off = judged_any.then(|| {
            let top3: Vec<&&QuestionOutcome> = ans
                .iter()
                .filter(|q| q.ranked.iter().take(3).any(|id| q.gold.contains(id)))
                .collect();
            (
                top3.iter()
                    .filter(|q| off_tier(q) == AnswerTier::Supported)
                    .count() as f64
                    / top3.len().max(1) as f64,
                adv.iter()
                    .filter(|q| off_tier(q) != AnswerTier::Supported)
                    .count() as f64
                    / adv.len().max(1) as f64,
            )
        });
        Report {
            answer_check_off,
            questions: total,
            ks: ks.to_vec(),
            by_category,
            answerable: stats(ks, &ans, false),
            answerable_audited: audited.then(|| stats(ks, &ans, true)),
            adversarial_not_supported: (!adv.is_empty()).then(|| {
                adv.iter()
                    .filter(|q| q.tier != AnswerTier::Supported)
                    .count() as f64
                    / adv.len() as f64
            }),
            latency_ms: latency,
            baselines: bl,
            threshold_tradeoff: trade,
            supported_at: SUPPORTED_AT,
            quirks,
        }
    }

    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let ks = &self.ks;
        s.push_str(&format!(
            "# slm eval locomo ({} questions)\n\n",
            self.questions
        ));
        let head: String = ks.iter().map(|k| format!(" R@{k} |")).collect::<String>()
            + &ks.iter().map(|k| format!(" hit@{k} |")).collect::<String>();
        s.push_str(&format!(
            "| category | n |{head} MRR | supported | related | none | sup. if top-3 |\n"
        ));
        s.push_str(&format!(
            "|---|---|{}---|---|---|---|---|\n",
            "---|".repeat(ks.len() * 2)
        ));
        let row = |name: &str, c: &CategoryStats| {
            let r: String = ks
                .iter()
                .map(|k| format!(" {:.3} |", c.recall_at.get(k).unwrap_or(&0.0)))
                .collect();
            let h: String = ks
                .iter()
                .map(|k| format!(" {:.3} |", c.hit_at.get(k).unwrap_or(&0.0)))
                .collect();
            format!(
                "| {name} | {} |{r}{h} {:.3} | {:.3} | {:.3} | {:.3} | {} |\n",
                c.questions,
                c.mrr,
                c.supported,
                c.related,
                c.none,
                c.supported_when_top3
                    .map(|v| format!("{v:.3}"))
                    .unwrap_or("-".into())
            )
        };
        for (name, c) in &self.by_category {
            s.push_str(&row(name, c));
        }
        s.push_str(&row("**1–4**", &self.answerable));
        if let Some(a) = &self.answerable_audited {
            s.push_str(&row("**1–4 audited**", a));
        }
        for (name, b) in &self.baselines {
            s.push_str(&row(&format!("baseline {name} (1–4)"), b));
        }
        s.push_str(
            "\nsession level (1–4; a session is found when any of its turns is in the top k):",
        );
        for k in ks {
            s.push_str(&format!(
                " R@{k} {:.3}",
                self.answerable.session_recall_at.get(k).unwrap_or(&0.0)
            ));
        }
        s.push('\n');
        if let Some(adv) = self.adversarial_not_supported {
            s.push_str(&format!("\nadversarial (cat. 5) not supported: {adv:.3}\n"));
        }
        if let Some((sup, adv)) = self.answer_check_off {
            s.push_str(&format!(
                "with the answer check off (the support check alone): evidence in top 3 → supported {sup:.3}, adversarial not supported {adv:.3}\n"
            ));
        }
        for (name, b) in &self.baselines {
            for k in ks {
                let ours = self.answerable.recall_at.get(k).copied().unwrap_or(0.0);
                let theirs = b.recall_at.get(k).copied().unwrap_or(0.0);
                if theirs > 0.0 {
                    s.push_str(&format!("R@{k} ratio vs {name}: {:.2}\n", ours / theirs));
                }
            }
        }
        let judged = self.threshold_tradeoff.iter().any(|t| t.unjudged.is_some());
        if judged {
            s.push_str(&format!("\nsupport threshold trade-off (current threshold = {}), with the answer check and with it off (the support check alone):\n\n| threshold | answerable, evidence in top 3 → supported | adversarial → not supported | check off: supported | check off: not supported |\n|---|---|---|---|---|\n", self.supported_at));
        } else {
            s.push_str(&format!("\nsupport threshold trade-off (current threshold = {}):\n\n| threshold | answerable, evidence in top 3 → supported | adversarial → not supported |\n|---|---|---|\n", self.supported_at));
        }
        for t in &self.threshold_tradeoff {
            s.push_str(&format!(
                "| {:.3} | {:.3} | {:.3} |",
                t.supported_at, t.answerable_top3_supported, t.adversarial_not_supported
            ));
            if let Some((a, b)) = t.unjudged {
                s.push_str(&format!(" {a:.3} | {b:.3} |"));
            }
            s.push('\n');
        }
        s.push_str("\nlatency ms (p50 / p90):\n");
        for (k, (p50, p90)) in &self.latency_ms {
            s.push_str(&format!("  {k:<20} {p50:>8.2} / {p90:>8.2}\n"));
        }
        s.push_str(&format!(
            "\ndata quirks: {}\n",
            serde_json::to_string(&self.quirks).unwrap_or_default()
        ));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(category: u8, gold: Vec<i64>, ranked: Vec<i64>, tier: AnswerTier) -> QuestionOutcome {
        QuestionOutcome {
            conversation: "c".into(),
            question: "q".into(),
            category,
            gold_audited: gold.clone(),
            gold,
            gold_sessions: Vec::new(),
            ranked_sessions: Vec::new(),
            ranked,
            tier,
            support_max: 0.5,
            timing: BTreeMap::new(),
            unjudged: None,
        }
    }

    #[test]
    fn exact_recall_hit_and_mrr_for_a_known_ranking() {
        let a = q(4, vec![1, 2], vec![3, 1, 4, 2], AnswerTier::Supported);
        let b = q(2, vec![5], vec![5, 6], AnswerTier::Related);
        let c = q(3, vec![], vec![7], AnswerTier::None); // no evidence: counted, not scored
        let s = stats(&[1, 2, 4], &[&a, &b, &c], false);
        assert_eq!(s.questions, 3);
        assert_eq!(s.with_evidence, 2);
        assert_eq!(s.recall_at[&1], 0.5); // (0 + 1) / 2
        assert_eq!(s.recall_at[&2], 0.75); // (0.5 + 1) / 2
        assert_eq!(s.recall_at[&4], 1.0);
        assert_eq!(s.hit_at[&1], 0.5);
        assert_eq!(s.hit_at[&2], 1.0);
        assert_eq!(s.mrr, 0.75); // (1/2 + 1) / 2
        assert!((s.supported - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(s.supported_when_top3, Some(0.5));
    }

    #[test]
    fn session_recall_counts_a_session_found_by_any_of_its_turns() {
        // gold turns 1 and 2 are in session 7; turn 3 (ranked first) is in session 7 too, so
        // the session is found at k = 1 although no gold turn is.
        let mut a = q(4, vec![1, 2], vec![3, 4], AnswerTier::Supported);
        a.gold_sessions = vec![7, 7];
        a.ranked_sessions = vec![7, 8];
        let mut b = q(4, vec![5], vec![6, 5], AnswerTier::Supported);
        b.gold_sessions = vec![9];
        b.ranked_sessions = vec![1, 9];
        let s = stats(&[1, 2], &[&a, &b], false);
        assert_eq!(s.recall_at[&1], 0.0);
        assert_eq!(s.session_recall_at[&1], 0.5);
        assert_eq!(s.session_recall_at[&2], 1.0);
    }

    #[test]
    fn categories_are_split_and_adversarial_counts_not_supported() {
        let outs = vec![
            q(1, vec![1], vec![1], AnswerTier::Supported),
            q(5, vec![2], vec![2], AnswerTier::Supported),
            q(5, vec![3], vec![], AnswerTier::None),
        ];
        let r = Report::build(&[1], &outs, &HashMap::new(), Default::default(), 3, false);
        assert_eq!(r.answerable.questions, 1);
        assert_eq!(r.adversarial_not_supported, Some(0.5));
        assert!(r.by_category.contains_key("5 adversarial"));
    }
}
