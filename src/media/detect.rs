//! Text detection's post-processing: PP-OCR's DB head gives a map of "this pixel is text"
//! probabilities; this turns it into boxes in reading order.
//!
//! As PaddleOCR's `DBPostProcess` does it, with one simplification: a region's box is its
//! axis-aligned bounding box, not its minimum-area rotated rectangle. Screenshots, slides and
//! scanned pages hold level text; a tilted photo of a whiteboard reads less well (said in
//! `docs/pictures.md`). The constants are rapidocr-onnxruntime 1.4.4's `config.yaml` (`Det`).

/// A pixel is text above this probability (`Det.thresh`).
pub const BINARY_THRESHOLD: f32 = 0.3;
/// A region is kept when its mean probability reaches this (`Det.box_thresh`).
pub const BOX_THRESHOLD: f32 = 0.5;
/// How far a region grows back out (`Det.unclip_ratio`): DB shrinks text regions in training,
/// so each box is pushed out by area × ratio / perimeter.
pub const UNCLIP_RATIO: f32 = 1.6;
/// Regions read at most (`Det.max_candidates`).
pub const MAX_CANDIDATES: usize = 1000;
/// A region thinner than this many map pixels is noise (PaddleOCR's `min_size`).
pub const MIN_SIDE: f32 = 3.0;
/// Boxes whose tops are closer than this (map pixels) are on one line when sorting (PaddleOCR's
/// `sorted_boxes`).
pub const SAME_LINE_PX: f32 = 10.0;

/// One text box, in the coordinates of the probability map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextBox {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
    /// The region's mean probability.
    pub score: f32,
}

impl TextBox {
    pub fn width(&self) -> f32 {
        self.x1 - self.x0
    }
    pub fn height(&self) -> f32 {
        self.y1 - self.y0
    }
}

/// The boxes of a `w` × `h` probability map (row-major), in reading order.
pub fn boxes(prob: &[f32], w: usize, h: usize) -> Vec<TextBox> {
    assert_eq!(prob.len(), w * h, "the map is w × h");
    // The bitmap, dilated by a 2 × 2 kernel (`use_dilation`): a pixel is on when it or the
    // pixel left of, above, or above-left of it is above the threshold.
    let on = |x: usize, y: usize| prob[y * w + x] > BINARY_THRESHOLD;
    let mut bitmap = vec![false; w * h];
    for y in 0..h {
        for x in 0..w {
            bitmap[y * w + x] = on(x, y)
                || (x > 0 && on(x - 1, y))
                || (y > 0 && on(x, y - 1))
                || (x > 0 && y > 0 && on(x - 1, y - 1));
        }
    }
    let mut seen = vec![false; w * h];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for start in 0..w * h {
        if !bitmap[start] || seen[start] {
            continue;
        }
        if out.len() >= MAX_CANDIDATES {
            break;
        }
        // One region, 8-connected.
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0usize, 0usize);
        let (mut sum, mut n) = (0f64, 0usize);
        seen[start] = true;
        stack.push(start);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % w, i / w);
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
            sum += prob[i] as f64;
            n += 1;
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                    if nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                        continue;
                    }
                    let j = ny as usize * w + nx as usize;
                    if bitmap[j] && !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        let (bw, bh) = ((x1 - x0 + 1) as f32, (y1 - y0 + 1) as f32);
        if bw.min(bh) < MIN_SIDE {
            continue;
        }
        let score = (sum / n as f64) as f32;
        if score < BOX_THRESHOLD {
            continue;
        }
        let d = bw * bh * UNCLIP_RATIO / (2.0 * (bw + bh));
        let b = TextBox {
            x0: (x0 as f32 - d).max(0.0),
            y0: (y0 as f32 - d).max(0.0),
            x1: (x1 as f32 + 1.0 + d).min(w as f32),
            y1: (y1 as f32 + 1.0 + d).min(h as f32),
            score,
        };
        if b.width().min(b.height()) < MIN_SIDE + 2.0 {
            continue;
        }
        out.push(b);
    }
    reading_order(&mut out);
    out
}

/// Top to bottom, and left to right among boxes whose tops are within [`SAME_LINE_PX`].
pub fn reading_order(boxes: &mut [TextBox]) {
    boxes.sort_by(|a, b| a.y0.total_cmp(&b.y0).then(a.x0.total_cmp(&b.x0)));
    // PaddleOCR's `sorted_boxes`: one bubbling pass per box.
    for i in 0..boxes.len() {
        let mut j = i;
        while j > 0
            && (boxes[j].y0 - boxes[j - 1].y0).abs() < SAME_LINE_PX
            && boxes[j].x0 < boxes[j - 1].x0
        {
            boxes.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// Lines of text from boxes in reading order: a box whose vertical centre lies inside the
/// previous box's height continues its line.
pub fn same_line(prev: &TextBox, next: &TextBox) -> bool {
    let c = (next.y0 + next.y1) / 2.0;
    c > prev.y0 && c < prev.y1 && next.x0 >= prev.x0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(w: usize, h: usize, rects: &[(usize, usize, usize, usize)]) -> Vec<f32> {
        let mut m = vec![0.0; w * h];
        for &(x0, y0, x1, y1) in rects {
            for y in y0..y1 {
                for x in x0..x1 {
                    m[y * w + x] = 0.9;
                }
            }
        }
        m
    }

    #[test]
    fn two_lines_come_back_in_reading_order_grown_by_the_unclip_distance() {
        // A second line first in memory order, and two words on the first line right to left.
        let m = map(
            100,
            60,
            &[(10, 40, 60, 48), (60, 10, 90, 18), (10, 11, 50, 19)],
        );
        let b = boxes(&m, 100, 60);
        assert_eq!(b.len(), 3, "{b:?}");
        assert!(b[0].x0 < b[1].x0 && b[1].y0 < b[2].y0, "{b:?}");
        // 40 × 8 (dilated: 41 × 9): d = 41·9·1.6 / (2·50) = 5.9
        assert!((b[0].x0 - (10.0 - 5.904)).abs() < 0.01, "{:?}", b[0]);
        assert!(same_line(&b[0], &b[1]) && !same_line(&b[1], &b[2]));
    }

    #[test]
    fn faint_and_thin_regions_are_not_text() {
        let mut m = map(50, 50, &[(5, 5, 45, 6)]); // one pixel high (two dilated)
        for y in 20..30 {
            for x in 5..45 {
                m[y * 50 + x] = 0.35; // above the pixel threshold, below the box threshold
            }
        }
        assert!(boxes(&m, 50, 50).is_empty());
    }
}
