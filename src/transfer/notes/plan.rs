//! Planning a re-import: a file's paragraphs now aligned with the memories an earlier import
//! made of it (unchanged anchors, replaced paragraphs between them, created and gone).

use std::collections::HashMap;

/// How a paragraph of the file now relates to the memories of an earlier import.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Same text: the memory at this index of the old list.
    Unchanged(usize),
    /// New text in the place of the old memory at this index: it supersedes it.
    Replaces(usize),
    /// New text with nothing in its place.
    Created,
}

/// Align the old memories' text hashes (in file order then) with the chunks' hashes now (see
/// the module doc: the place decides which memory a paragraph is, the text only whether it
/// changed). Returns a step per new chunk and the old indices left over.
pub fn plan(old: &[String], new: &[String]) -> (Vec<Step>, Vec<usize>) {
    let at_old: HashMap<&str, usize> = old
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let common: Vec<(usize, usize)> = new
        .iter()
        .enumerate()
        .filter_map(|(i, k)| at_old.get(k.as_str()).map(|&j| (i, j)))
        .collect();
    let anchors = longest_increasing(&common);
    let mut steps = vec![Step::Created; new.len()];
    let mut old_used = vec![false; old.len()];
    for &(i, j) in &common {
        steps[i] = Step::Unchanged(j);
        old_used[j] = true;
    }
    let mut bounds: Vec<(isize, isize)> = vec![(-1, -1)];
    bounds.extend(anchors.iter().map(|&(i, j)| (i as isize, j as isize)));
    bounds.push((new.len() as isize, old.len() as isize));
    for w in bounds.windows(2) {
        let (ni0, oj0) = w[0];
        let (ni1, oj1) = w[1];
        let new_gap: Vec<usize> = ((ni0 + 1)..ni1)
            .map(|i| i as usize)
            .filter(|&i| steps[i] == Step::Created)
            .collect();
        let old_gap: Vec<usize> = ((oj0 + 1)..oj1)
            .map(|j| j as usize)
            .filter(|&j| !old_used[j])
            .collect();
        for (&i, &j) in new_gap.iter().zip(&old_gap) {
            steps[i] = Step::Replaces(j);
            old_used[j] = true;
        }
    }
    let gone = (0..old.len()).filter(|&j| !old_used[j]).collect();
    (steps, gone)
}

/// The longest subsequence of (new, old) pairs, in new order, whose old indices increase.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // Patience sorting: tails[k] = index into pairs of the smallest tail of a run of k+1.
    let mut tails: Vec<usize> = Vec::new();
    let mut prev: Vec<Option<usize>> = vec![None; pairs.len()];
    for (p, &(_, j)) in pairs.iter().enumerate() {
        let k = tails.partition_point(|&t| pairs[t].1 < j);
        prev[p] = k.checked_sub(1).map(|k| tails[k]);
        if k == tails.len() {
            tails.push(p);
        } else {
            tails[k] = p;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied();
    while let Some(p) = at {
        out.push(pairs[p]);
        at = prev[p];
    }
    out.reverse();
    out
}
