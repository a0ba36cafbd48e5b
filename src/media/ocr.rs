//! Reading the words in a picture: PP-OCRv4 on ONNX Runtime, as rapidocr-onnxruntime 1.4.4
//! ships it (detection → direction → recognition), with no Python at run time.
//!
//! - **Detection** (`det.onnx`, DB): the picture, scaled so its short side is at least
//!   [`DET_MIN_SIDE`] and its long side at most [`DET_MAX_SIDE`], gives a text probability map;
//!   `detect` turns it into boxes in reading order.
//! - **Direction** (`cls.onnx`): each box's crop is turned 180° when the model is sure
//!   ([`CLS_THRESHOLD`]) that it is upside down.
//! - **Recognition** (`rec.onnx`, CRNN with CTC): each crop at height 48 gives one character
//!   distribution per step; the best path, repeats and blanks dropped, is the line. Its
//!   confidence is the mean probability of the characters kept. The character list is the
//!   model's own (its `character` metadata, PP-OCR's Chinese and English dictionary).
//!
//! Every file is checked against its pinned sha256 before it is loaded ([`FILES`]); setup
//! installs them from the wheel (`scripts/setup.sh`).

use super::detect::{self, TextBox};
use image::{DynamicImage, RgbImage, imageops};
use ort::session::Session;
use ort::value::Tensor;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The folder under `<cache>/models` that setup installs the OCR models into.
pub const MODEL_DIR: &str = "pp-ocrv4";
/// The files, their sha256 (as in rapidocr-onnxruntime 1.4.4's wheel,
/// `rapidocr_onnxruntime/models/`), and what each is.
pub const FILES: [(&str, &str, &str); 3] = [
    (
        "det.onnx",
        "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9",
        "ch_PP-OCRv4_det_infer.onnx",
    ),
    (
        "cls.onnx",
        "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c",
        "ch_ppocr_mobile_v2.0_cls_infer.onnx",
    ),
    (
        "rec.onnx",
        "48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b",
        "ch_PP-OCRv4_rec_infer.onnx",
    ),
];
/// Where the models are instead of the cache dir's [`MODEL_DIR`].
pub const OCR_DIR_ENV: &str = "SLM_OCR_DIR";

/// The OCR models' folder: `SLM_OCR_DIR`, else `<cache>/models/pp-ocrv4` as setup installs it.
pub fn model_dir(paths: &crate::paths::Paths) -> std::path::PathBuf {
    std::env::var_os(OCR_DIR_ENV)
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| paths.cache.join("models").join(MODEL_DIR))
}

/// What doctor says of them.
pub const LICENCE: &str =
    "PP-OCRv4 (PaddleOCR, Apache-2.0), from rapidocr-onnxruntime 1.4.4 (Apache-2.0)";

/// The detector sees the short side at least this long (`Det.limit_side_len`, type `min`)...
pub const DET_MIN_SIDE: u32 = 736;
/// ...and the long side at most this long (rapidocr's `max_side_len` is 2,000 before the
/// upscale; a long banner upscaled for its short side is capped here instead of growing
/// without bound).
pub const DET_MAX_SIDE: u32 = 2400;
/// Direction model input (`Cls.cls_image_shape`) and its certainty to turn a crop.
pub const CLS_HEIGHT: u32 = 48;
pub const CLS_WIDTH: u32 = 192;
pub const CLS_THRESHOLD: f32 = 0.9;
/// Recognition input height and the narrowest batch width (`Rec.rec_img_shape`).
pub const REC_HEIGHT: u32 = 48;
pub const REC_MIN_WIDTH: u32 = 320;
/// The widest crop read in one piece (a ratio of 40: a full line of a wide slide).
pub const REC_MAX_WIDTH: u32 = 48 * 40;
/// Crops per recognition run (`Rec.rec_batch_num`).
pub const REC_BATCH: usize = 6;
/// A line counts when its confidence reaches this (rapidocr's `text_score`); a picture with
/// no such line is wordless.
pub const LINE_CONFIDENCE: f32 = 0.5;
/// ...and holds at least this many letters or digits. A lone character is what OCR most
/// often finds in a picture without words (a circle read as "O" in the fixtures), and alone
/// it would make nothing findable.
pub const MIN_LINE_CHARS: usize = 2;

/// One line read, in reading order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub text: String,
    pub confidence: f32,
    /// Its box in the picture's pixels: left, top, right, bottom.
    pub bbox: [u32; 4],
}

/// The three models and the character list.
pub struct Ocr {
    det: Session,
    cls: Session,
    rec: Session,
    chars: Vec<String>,
}

/// Why the models are not usable, in words for doctor; `None` when they are all there and
/// match their pins.
pub fn check_files(dir: &Path) -> Option<String> {
    for (name, sha, _) in FILES {
        let p = dir.join(name);
        match crate::paths::sha256_file(&p) {
            Err(_) => return Some(format!("{} is missing", p.display())),
            Ok((got, _)) if got != sha => {
                return Some(format!(
                    "{} does not match its pinned sha256 (got {got})",
                    p.display()
                ));
            }
            Ok(_) => {}
        }
    }
    None
}

impl Ocr {
    /// Load the models from `dir` on the process's ONNX Runtime (`runtime`, the library).
    pub fn load(dir: &Path, runtime: &Path) -> Result<Ocr, String> {
        if let Some(why) = check_files(dir) {
            return Err(why);
        }
        let env = crate::embed::onnx::environment(runtime)?;
        let session = |name: &str| -> Result<Session, String> {
            crate::embed::onnx::cpu_session(&env, &dir.join(name))
                .map_err(|e| format!("{name} could not be loaded: {e}"))
        };
        let rec = session("rec.onnx")?;
        let dict = rec
            .metadata()
            .ok()
            .and_then(|m| m.custom("character"))
            .ok_or("rec.onnx has no character list in its metadata")?;
        // CTC: index 0 is the blank; the model's list; then the space (`use_space_char`).
        let mut chars = vec![String::new()];
        chars.extend(dict.split('\n').map(str::to_string));
        chars.push(" ".into());
        Ok(Ocr {
            det: session("det.onnx")?,
            cls: session("cls.onnx")?,
            rec,
            chars,
        })
    }

    /// The lines in a picture, in reading order; those below [`LINE_CONFIDENCE`] or shorter
    /// than [`MIN_LINE_CHARS`] are left out.
    pub fn read(&self, picture: &DynamicImage) -> Result<Vec<Line>, String> {
        let rgb = picture.to_rgb8();
        if rgb.width() < 4 || rgb.height() < 4 {
            return Ok(Vec::new());
        }
        let boxes = self.detect(&rgb)?;
        let mut crops: Vec<(RgbImage, [u32; 4])> = boxes
            .iter()
            .filter_map(|b| {
                let (x0, y0) = (b.x0.floor() as u32, b.y0.floor() as u32);
                let (x1, y1) = (
                    (b.x1.ceil() as u32).min(rgb.width()),
                    (b.y1.ceil() as u32).min(rgb.height()),
                );
                (x1 > x0 + 1 && y1 > y0 + 1).then(|| {
                    let c = imageops::crop_imm(&rgb, x0, y0, x1 - x0, y1 - y0).to_image();
                    // A tall crop is vertical text: read it turned (PaddleOCR's rule).
                    let c = if c.height() as f32 >= 1.5 * c.width() as f32 {
                        imageops::rotate270(&c)
                    } else {
                        c
                    };
                    (c, [x0, y0, x1, y1])
                })
            })
            .collect();
        self.turn_upside_down(&mut crops)?;
        let texts = self.recognise(&crops.iter().map(|c| &c.0).collect::<Vec<_>>())?;
        Ok(texts
            .into_iter()
            .zip(crops)
            .filter(|((t, conf), _)| {
                *conf >= LINE_CONFIDENCE
                    && t.chars().filter(|c| c.is_alphanumeric()).count() >= MIN_LINE_CHARS
            })
            .map(|((text, confidence), (_, bbox))| Line {
                text: text.trim().to_string(),
                confidence,
                bbox,
            })
            .collect())
    }

    /// Detection: the boxes, in the picture's pixels.
    fn detect(&self, rgb: &RgbImage) -> Result<Vec<TextBox>, String> {
        let (w, h) = (rgb.width() as f32, rgb.height() as f32);
        let mut ratio = 1f32;
        if w.min(h) < DET_MIN_SIDE as f32 {
            ratio = DET_MIN_SIDE as f32 / w.min(h);
        }
        if w.max(h) * ratio > DET_MAX_SIDE as f32 {
            ratio = DET_MAX_SIDE as f32 / w.max(h);
        }
        let round32 = |x: f32| ((x / 32.0).round() as u32).max(1) * 32;
        let (mw, mh) = (round32(w * ratio), round32(h * ratio));
        let resized = imageops::resize(rgb, mw, mh, imageops::FilterType::Triangle);
        let input = chw(&resized, mw)?;
        let out =
            crate::embed::shared_run::run_f32(&self.det, &[(c"x", &input)], c"sigmoid_0.tmp_0")?;
        if out.data.len() != (mw * mh) as usize {
            return Err(format!("detection returned shape {:?}", out.shape));
        }
        let (sx, sy) = (w / mw as f32, h / mh as f32);
        Ok(detect::boxes(&out.data, mw as usize, mh as usize)
            .into_iter()
            .map(|b| TextBox {
                x0: b.x0 * sx,
                y0: b.y0 * sy,
                x1: b.x1 * sx,
                y1: b.y1 * sy,
                score: b.score,
            })
            .collect())
    }

    /// Direction: turn the crops the model is sure are upside down.
    fn turn_upside_down(&self, crops: &mut [(RgbImage, [u32; 4])]) -> Result<(), String> {
        for chunk in crops.chunks_mut(REC_BATCH) {
            let imgs: Vec<&RgbImage> = chunk.iter().map(|c| &c.0).collect();
            let input = batch(&imgs, CLS_HEIGHT, CLS_WIDTH)?;
            let out = crate::embed::shared_run::run_f32(
                &self.cls,
                &[(c"x", &input)],
                c"save_infer_model/scale_0.tmp_1",
            )?;
            if out.data.len() != 2 * chunk.len() {
                return Err(format!("direction returned shape {:?}", out.shape));
            }
            for (c, p) in chunk.iter_mut().zip(out.data.chunks_exact(2)) {
                if p[1] > p[0] && p[1] >= CLS_THRESHOLD {
                    c.0 = imageops::rotate180(&c.0);
                }
            }
        }
        Ok(())
    }

    /// Recognition: each crop's text and confidence.
    fn recognise(&self, crops: &[&RgbImage]) -> Result<Vec<(String, f32)>, String> {
        // By aspect ratio, as PaddleOCR batches them: a batch pads little.
        let ratio = |c: &RgbImage| c.width() as f32 / c.height().max(1) as f32;
        let mut order: Vec<usize> = (0..crops.len()).collect();
        order.sort_by(|&a, &b| ratio(crops[a]).total_cmp(&ratio(crops[b])));
        let mut out = vec![(String::new(), 0f32); crops.len()];
        for idx in order.chunks(REC_BATCH) {
            let widest = idx.iter().map(|&i| ratio(crops[i])).fold(0f32, f32::max);
            let width =
                ((REC_HEIGHT as f32 * widest).ceil() as u32).clamp(REC_MIN_WIDTH, REC_MAX_WIDTH);
            let imgs: Vec<&RgbImage> = idx.iter().map(|&i| crops[i]).collect();
            let input = batch(&imgs, REC_HEIGHT, width)?;
            let res = crate::embed::shared_run::run_f32(
                &self.rec,
                &[(c"x", &input)],
                c"softmax_11.tmp_0",
            )?;
            let classes = *res.shape.last().unwrap_or(&0) as usize;
            if classes != self.chars.len() || res.shape.len() != 3 {
                return Err(format!(
                    "recognition returned shape {:?} for {} characters",
                    res.shape,
                    self.chars.len()
                ));
            }
            let steps = res.shape[1] as usize;
            for (k, &i) in idx.iter().enumerate() {
                let rows = &res.data[k * steps * classes..(k + 1) * steps * classes];
                out[i] = ctc_best_path(rows, classes, &self.chars);
            }
        }
        Ok(out)
    }
}

/// CTC best path: each step's most likely class; repeats merged, blanks dropped. The
/// confidence is the mean probability of the characters kept (0 when none are).
pub fn ctc_best_path(rows: &[f32], classes: usize, chars: &[String]) -> (String, f32) {
    let mut text = String::new();
    let (mut sum, mut n, mut prev) = (0f32, 0usize, 0usize);
    for step in rows.chunks_exact(classes) {
        let (best, p) = step
            .iter()
            .enumerate()
            .fold((0, f32::MIN), |a, (i, &p)| if p > a.1 { (i, p) } else { a });
        if best != 0
            && best != prev
            && let Some(c) = chars.get(best)
        {
            text.push_str(c);
            sum += p;
            n += 1;
        }
        prev = best;
    }
    (text, if n == 0 { 0.0 } else { sum / n as f32 })
}

/// `x/255` normalised to [-1, 1] (mean 0.5, std 0.5), BGR planes, as PaddleOCR reads images.
fn norm(v: u8) -> f32 {
    (v as f32 / 255.0 - 0.5) / 0.5
}

/// One picture as a [1, 3, h, w] tensor.
fn chw(img: &RgbImage, w: u32) -> Result<Tensor<f32>, String> {
    let h = img.height();
    let plane = (w * h) as usize;
    let mut data = vec![0f32; 3 * plane];
    for (x, y, p) in img.enumerate_pixels() {
        let i = (y * w + x) as usize;
        data[i] = norm(p[2]);
        data[plane + i] = norm(p[1]);
        data[2 * plane + i] = norm(p[0]);
    }
    Tensor::from_array(([1usize, 3, h as usize, w as usize], data)).map_err(|e| e.to_string())
}

/// Crops resized to height `h` (keeping their ratio, at most `w` wide) and padded on the
/// right to `w` with zeros, as one [n, 3, h, w] tensor.
fn batch(imgs: &[&RgbImage], h: u32, w: u32) -> Result<Tensor<f32>, String> {
    let plane = (w * h) as usize;
    let mut data = vec![0f32; imgs.len() * 3 * plane];
    for (k, img) in imgs.iter().enumerate() {
        let rw = ((h as f32 * img.width() as f32 / img.height().max(1) as f32).ceil() as u32)
            .clamp(1, w);
        let r = imageops::resize(*img, rw, h, imageops::FilterType::Triangle);
        let base = k * 3 * plane;
        for (x, y, p) in r.enumerate_pixels() {
            let i = (y * w + x) as usize;
            data[base + i] = norm(p[2]);
            data[base + plane + i] = norm(p[1]);
            data[base + 2 * plane + i] = norm(p[0]);
        }
    }
    Tensor::from_array(([imgs.len(), 3, h as usize, w as usize], data)).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_path_merges_repeats_and_drops_blanks() {
        let chars: Vec<String> = ["", "a", "b"].iter().map(|s| s.to_string()).collect();
        // a a _ a b b _  -> "aab"
        let steps = [1, 1, 0, 1, 2, 2, 0];
        let mut rows = Vec::new();
        for s in steps {
            let mut r = [0.1f32; 3];
            r[s] = 0.8;
            rows.extend_from_slice(&r);
        }
        let (t, c) = ctc_best_path(&rows, 3, &chars);
        assert_eq!(t, "aab");
        assert!((c - 0.8).abs() < 1e-6);
        assert_eq!(
            ctc_best_path(&[0.9, 0.05, 0.05], 3, &chars),
            (String::new(), 0.0)
        );
    }
}
