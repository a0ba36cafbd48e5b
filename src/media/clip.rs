//! A bring-your-own image–text (CLIP-style) model: what a wordless picture shows, scored
//! against a question. No such model ships inside a registry package (issue 37), so slm
//! installs none; a user who has one puts it in a folder and names it
//! (`pictures.image_model_dir` in settings.json, or `SLM_IMAGE_MODEL_DIR`).
//!
//! The folder follows the layout immich's machine-learning service uses for its CLIP models
//! (`immich-app/immich`, `machine-learning/immich_ml/models/clip/{visual,textual}.py`):
//!
//! ```text
//! config.json                     text_cfg.context_length (default 77)
//! visual/model.onnx               input "image" [1, 3, S, S] float, first output the vector
//! visual/preprocess_cfg.json      size, mean, std, interpolation, resize_mode
//! textual/model.onnx              input "text" [1, context_length] int32 or int64
//! textual/tokenizer.json          a Hugging Face tokenizers file
//! textual/tokenizer_config.json   pad_token
//! ```
//!
//! A flat folder (`visual.onnx`, `textual.onnx`, `tokenizer.json`, … side by side) is taken
//! too. Every config file is optional; without one the OpenAI CLIP defaults apply
//! ([`CLIP_MEAN`], [`CLIP_STD`], [`DEFAULT_SIZE`], [`DEFAULT_CONTEXT`]).
//!
//! The two towers load separately: the worker's background queue needs only the visual one
//! (to give each picture its vector), a question only the textual one. Vectors are unit
//! length; a picture's score is the cosine of the two.

use image::DynamicImage;
use image::imageops::FilterType;
use ort::session::Session;
use ort::value::Tensor;
use ort::value::TensorElementType;
use std::ffi::CString;
use std::path::{Path, PathBuf};

/// OpenAI CLIP's image normalisation (used when `preprocess_cfg.json` gives none).
pub const CLIP_MEAN: [f32; 3] = [0.481_454_66, 0.457_827_5, 0.408_210_73];
pub const CLIP_STD: [f32; 3] = [0.268_629_54, 0.261_302_6, 0.275_777_1];
/// The edge of the square a picture is cut to, without a `size` in `preprocess_cfg.json`.
pub const DEFAULT_SIZE: u32 = 224;
/// Tokens a question is padded or cut to, without `text_cfg.context_length` in config.json.
pub const DEFAULT_CONTEXT: usize = 77;
/// Bytes read from each end of the visual model for its id ([`Layout::model_id`]).
pub const ID_SPAN: u64 = 1 << 20;
/// The environment variable naming the model folder (over settings).
pub const DIR_ENV: &str = "SLM_IMAGE_MODEL_DIR";

/// Where the files of a model folder are.
#[derive(Debug, Clone)]
pub struct Layout {
    pub dir: PathBuf,
    pub visual: PathBuf,
    pub textual: PathBuf,
    pub tokenizer: PathBuf,
    tokenizer_config: Option<PathBuf>,
    preprocess: Option<PathBuf>,
    config: Option<PathBuf>,
}

/// The first of `names` that exists in `dir`.
fn first(dir: &Path, names: &[&str]) -> Option<PathBuf> {
    names.iter().map(|n| dir.join(n)).find(|p| p.is_file())
}

impl Layout {
    /// The files of the model in `dir`, or which one is missing, in words for doctor and
    /// `channel_status`.
    pub fn find(dir: &Path) -> Result<Layout, String> {
        if !dir.is_dir() {
            return Err(format!(
                "no image–text model: {} is not a folder (put a CLIP-style model there in the \
                 immich layout; docs/pictures.md)",
                dir.display()
            ));
        }
        let need = |names: &[&str]| {
            first(dir, names).ok_or_else(|| {
                format!(
                    "the image–text model in {} has no {} (docs/pictures.md)",
                    dir.display(),
                    names.join(" or ")
                )
            })
        };
        Ok(Layout {
            dir: dir.to_path_buf(),
            visual: need(&["visual/model.onnx", "visual.onnx"])?,
            textual: need(&["textual/model.onnx", "textual.onnx"])?,
            tokenizer: need(&["textual/tokenizer.json", "tokenizer.json"])?,
            tokenizer_config: first(
                dir,
                &["textual/tokenizer_config.json", "tokenizer_config.json"],
            ),
            preprocess: first(dir, &["visual/preprocess_cfg.json", "preprocess_cfg.json"]),
            config: first(dir, &["config.json"]),
        })
    }

    /// What names the pictures' vectors, so a replaced model never scores against vectors
    /// another one made: a sha256 of the visual model's size and its first and last
    /// [`ID_SPAN`] bytes (first 16 digits). Not the whole file: a real visual model is
    /// hundreds of megabytes, and a recall may need this id.
    pub fn model_id(&self) -> Result<String, String> {
        use sha2::{Digest, Sha256};
        use std::io::{Read, Seek, SeekFrom};
        let err = |e: std::io::Error| format!("{}: {e}", self.visual.display());
        let mut f = std::fs::File::open(&self.visual).map_err(err)?;
        let len = f.metadata().map_err(err)?.len();
        let mut h = Sha256::new();
        h.update(len.to_le_bytes());
        let mut buf = vec![0u8; ID_SPAN.min(len) as usize];
        f.read_exact(&mut buf).map_err(err)?;
        h.update(&buf);
        f.seek(SeekFrom::Start(len - buf.len() as u64))
            .map_err(err)?;
        f.read_exact(&mut buf).map_err(err)?;
        h.update(&buf);
        let hex: String = h.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Ok(format!("clip:{hex}"))
    }
}

fn read_json(p: &Option<PathBuf>) -> Result<serde_json::Value, String> {
    match p {
        None => Ok(serde_json::Value::Null),
        Some(p) => std::fs::read(p)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
            .map_err(|e| format!("{}: {e}", p.display())),
    }
}

fn session(path: &Path, runtime: &Path) -> Result<Session, String> {
    let env = crate::embed::onnx::environment(runtime)?;
    crate::embed::onnx::cpu_session(&env, path)
        .map_err(|e| format!("{} could not be loaded: {e}", path.display()))
}

/// The name of a session's `i`-th input or output, as the C API wants it.
fn c_name(name: &str) -> Result<CString, String> {
    CString::new(name).map_err(|_| format!("the graph names a tensor {name:?}"))
}

fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
    v
}

/// The picture tower.
pub struct Visual {
    session: Session,
    input: CString,
    output: CString,
    size: u32,
    squash: bool,
    filter: FilterType,
    mean: [f32; 3],
    std: [f32; 3],
}

impl Visual {
    pub fn load(layout: &Layout, runtime: &Path) -> Result<Visual, String> {
        let cfg = read_json(&layout.preprocess)?;
        let size = match &cfg["size"] {
            serde_json::Value::Array(a) => a.first().and_then(|v| v.as_u64()),
            v => v.as_u64(),
        }
        .map(|s| s as u32)
        .unwrap_or(DEFAULT_SIZE);
        if !(16..=1024).contains(&size) {
            return Err(format!("preprocess size {size} is out of range 16..1024"));
        }
        let three = |k: &str, dflt: [f32; 3]| -> Result<[f32; 3], String> {
            match cfg[k].as_array() {
                None => Ok(dflt),
                Some(a) if a.len() == 3 => {
                    let v: Vec<f32> = a
                        .iter()
                        .filter_map(|x| x.as_f64())
                        .map(|x| x as f32)
                        .collect();
                    <[f32; 3]>::try_from(v).map_err(|_| format!("preprocess {k} is not 3 numbers"))
                }
                Some(_) => Err(format!("preprocess {k} is not 3 numbers")),
            }
        };
        let mean = three("mean", CLIP_MEAN)?;
        let std = three("std", CLIP_STD)?;
        if std.iter().any(|s| *s <= 0.0) {
            return Err("preprocess std must be positive".into());
        }
        let squash = match cfg["resize_mode"].as_str().unwrap_or("shortest") {
            "shortest" => false,
            "squash" => true,
            m => {
                return Err(format!(
                    "unsupported resize_mode {m:?} (shortest or squash)"
                ));
            }
        };
        let filter = match cfg["interpolation"].as_str().unwrap_or("bicubic") {
            "bicubic" => FilterType::CatmullRom,
            "bilinear" => FilterType::Triangle,
            "nearest" => FilterType::Nearest,
            "lanczos" => FilterType::Lanczos3,
            m => return Err(format!("unsupported interpolation {m:?}")),
        };
        let session = session(&layout.visual, runtime)?;
        let inp = session
            .inputs()
            .first()
            .ok_or("the visual model has no input")?;
        if inp.dtype().tensor_type() != Some(TensorElementType::Float32) {
            return Err(
                "the visual model's input is not a float tensor (an immich graph that \
                        takes raw bytes is not supported)"
                    .into(),
            );
        }
        let input = c_name(inp.name())?;
        let output = c_name(
            session
                .outputs()
                .first()
                .ok_or("the visual model has no output")?
                .name(),
        )?;
        Ok(Visual {
            session,
            input,
            output,
            size,
            squash,
            filter,
            mean,
            std,
        })
    }

    /// The unit vector of what `picture` shows.
    pub fn embed(&self, picture: &DynamicImage) -> Result<Vec<f32>, String> {
        let s = self.size;
        let rgb = if self.squash {
            image::imageops::resize(&picture.to_rgb8(), s, s, self.filter)
        } else {
            // The shorter side to `s`, then the centre square.
            let (w, h) = (picture.width().max(1), picture.height().max(1));
            let k = s as f64 / w.min(h) as f64;
            let (nw, nh) = (
                ((w as f64 * k).round() as u32).max(s),
                ((h as f64 * k).round() as u32).max(s),
            );
            let big = image::imageops::resize(&picture.to_rgb8(), nw, nh, self.filter);
            image::imageops::crop_imm(&big, (nw - s) / 2, (nh - s) / 2, s, s).to_image()
        };
        let plane = (s * s) as usize;
        let mut data = vec![0f32; 3 * plane];
        for (i, p) in rgb.pixels().enumerate() {
            for c in 0..3 {
                data[c * plane + i] = (p[c] as f32 / 255.0 - self.mean[c]) / self.std[c];
            }
        }
        let t = Tensor::from_array(([1usize, 3, s as usize, s as usize], data))
            .map_err(|e| e.to_string())?;
        let out =
            crate::embed::shared_run::run_f32(&self.session, &[(&*self.input, &t)], &self.output)?;
        first_row(out)
    }
}

/// The first row of a [1, D] (or [D]) output, as a unit vector.
fn first_row(out: crate::embed::shared_run::Output) -> Result<Vec<f32>, String> {
    let d = *out.shape.last().unwrap_or(&0) as usize;
    if d == 0 || out.data.len() < d {
        return Err(format!(
            "the model returned shape {:?}, not [1, D]",
            out.shape
        ));
    }
    let v = unit(out.data[..d].to_vec());
    if v.iter().any(|x| !x.is_finite()) {
        return Err("the model returned a vector that is not finite".into());
    }
    Ok(v)
}

/// The question tower.
pub struct Textual {
    session: Session,
    tokenizer: tokenizers::Tokenizer,
    ids: CString,
    mask: Option<CString>,
    output: CString,
    wide: bool,
}

impl Textual {
    pub fn load(layout: &Layout, runtime: &Path) -> Result<Textual, String> {
        let config = read_json(&layout.config)?;
        let context = config["text_cfg"]["context_length"]
            .as_u64()
            .map(|c| c as usize)
            .unwrap_or(DEFAULT_CONTEXT);
        let tcfg = read_json(&layout.tokenizer_config)?;
        let mut tokenizer = tokenizers::Tokenizer::from_file(&layout.tokenizer)
            .map_err(|e| format!("{}: {e}", layout.tokenizer.display()))?;
        // The pad token is a string, or an object with its `content`.
        let pad = tcfg["pad_token"]
            .as_str()
            .or_else(|| tcfg["pad_token"]["content"].as_str())
            .map(str::to_string);
        let pad_id = pad
            .as_deref()
            .and_then(|p| tokenizer.token_to_id(p))
            .unwrap_or(0);
        tokenizer.with_padding(Some(tokenizers::PaddingParams {
            strategy: tokenizers::PaddingStrategy::Fixed(context),
            pad_id,
            pad_token: pad.unwrap_or_default(),
            ..Default::default()
        }));
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: context,
                ..Default::default()
            }))
            .map_err(|e| e.to_string())?;
        let session = session(&layout.textual, runtime)?;
        let inputs = session.inputs();
        let ids = inputs
            .iter()
            .find(|i| i.name() != "attention_mask")
            .ok_or("the textual model has no input")?;
        let wide = match ids.dtype().tensor_type() {
            Some(TensorElementType::Int64) => true,
            Some(TensorElementType::Int32) => false,
            t => {
                return Err(format!(
                    "the textual model's input is {t:?}, not int32 or int64"
                ));
            }
        };
        let mask = inputs
            .iter()
            .find(|i| i.name() == "attention_mask")
            .map(|i| c_name(i.name()))
            .transpose()?;
        let ids = c_name(ids.name())?;
        let output = c_name(
            session
                .outputs()
                .first()
                .ok_or("the textual model has no output")?
                .name(),
        )?;
        Ok(Textual {
            session,
            tokenizer,
            ids,
            mask,
            output,
            wide,
        })
    }

    /// The unit vector of a question.
    pub fn embed(&self, text: &str) -> Result<Vec<f32>, String> {
        let enc = self
            .tokenizer
            .encode(text, true)
            .map_err(|e| e.to_string())?;
        let out = if self.wide {
            let (ids, mask) = ids_and_mask(&enc, i64::from)?;
            self.run(ids, mask)?
        } else {
            let (ids, mask) = ids_and_mask(&enc, |i| i as i32)?;
            self.run(ids, mask)?
        };
        first_row(out)
    }

    fn run<T: ort::value::PrimitiveTensorElementType + std::fmt::Debug>(
        &self,
        ids: Tensor<T>,
        mask: Tensor<T>,
    ) -> Result<crate::embed::shared_run::Output, String> {
        let mut inputs = vec![(&*self.ids, &ids)];
        if let Some(m) = &self.mask {
            inputs.push((&**m, &mask));
        }
        crate::embed::shared_run::run_f32(&self.session, &inputs, &self.output)
    }
}

/// A question's token ids and attention mask as [1, n] tensors of the graph's integer type.
fn ids_and_mask<T>(
    enc: &tokenizers::Encoding,
    cast: impl Fn(u32) -> T,
) -> Result<(Tensor<T>, Tensor<T>), String>
where
    T: ort::value::PrimitiveTensorElementType + std::fmt::Debug + Clone + 'static,
{
    let shape = [1usize, enc.get_ids().len()];
    let t = |v: &[u32]| {
        Tensor::from_array((shape, v.iter().map(|&i| cast(i)).collect::<Vec<T>>()))
            .map_err(|e| e.to_string())
    };
    Ok((t(enc.get_ids())?, t(enc.get_attention_mask())?))
}

/// The cosine of two unit vectors of the same model (0 when their lengths differ).
pub fn score(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_folder_or_file_is_named() {
        let d = tempfile::tempdir().unwrap();
        let e = Layout::find(&d.path().join("nope")).unwrap_err();
        assert!(e.contains("not a folder"), "{e}");
        std::fs::create_dir_all(d.path().join("visual")).unwrap();
        std::fs::write(d.path().join("visual/model.onnx"), b"x").unwrap();
        let e = Layout::find(d.path()).unwrap_err();
        assert!(e.contains("textual/model.onnx or textual.onnx"), "{e}");
    }

    #[test]
    fn scores_are_cosines() {
        let v = unit(vec![3.0, 4.0]);
        assert!((score(&v, &v) - 1.0).abs() < 1e-6);
        assert_eq!(score(&v, &[1.0]), 0.0);
    }
}
