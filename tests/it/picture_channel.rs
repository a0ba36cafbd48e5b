//! The picture channel (issue 37, item 5): a bring-your-own image–text model in the immich
//! layout, loaded and scored for real. No such model ships in a registry package, so the
//! test writes a tiny two-tower graph itself (ONNX protobuf, encoded below), with weights
//! chosen so colours have words: the picture tower is the mean colour of the picture, the
//! text tower the mean of its words' vectors ("red" → the red corner of the cube).

use crate::common::*;
use serde_json::{Value, json};
use std::path::Path;

// --- a few lines of protobuf: enough for an ONNX ModelProto ---

fn varint(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn int(field: u64, v: i64, out: &mut Vec<u8>) {
    varint(field << 3, out);
    varint(v as u64, out);
}

fn bytes(field: u64, b: &[u8], out: &mut Vec<u8>) {
    varint((field << 3) | 2, out);
    varint(b.len() as u64, out);
    out.extend_from_slice(b);
}

/// ValueInfoProto: a tensor input or output of element type `elem` and fixed shape.
fn value_info(name: &str, elem: i64, dims: &[i64]) -> Vec<u8> {
    let mut shape = Vec::new();
    for d in dims {
        let mut dim = Vec::new();
        int(1, *d, &mut dim);
        bytes(1, &dim, &mut shape);
    }
    let mut tensor = Vec::new();
    int(1, elem, &mut tensor);
    bytes(2, &shape, &mut tensor);
    let mut ty = Vec::new();
    bytes(1, &tensor, &mut ty);
    let mut v = Vec::new();
    bytes(1, name.as_bytes(), &mut v);
    bytes(2, &ty, &mut v);
    v
}

/// TensorProto: a float initializer.
fn weights(name: &str, dims: &[i64], data: &[f32]) -> Vec<u8> {
    let mut t = Vec::new();
    for d in dims {
        int(1, *d, &mut t);
    }
    int(2, 1, &mut t);
    bytes(8, name.as_bytes(), &mut t);
    let raw: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
    bytes(9, &raw, &mut t);
    t
}

/// NodeProto, with an `axes` (ints) and a `keepdims` (int) attribute when given.
fn node(op: &str, inputs: &[&str], output: &str, axes: Option<&[i64]>) -> Vec<u8> {
    let mut n = Vec::new();
    for i in inputs {
        bytes(1, i.as_bytes(), &mut n);
    }
    bytes(2, output.as_bytes(), &mut n);
    bytes(3, format!("{op}_{output}").as_bytes(), &mut n);
    bytes(4, op.as_bytes(), &mut n);
    if let Some(axes) = axes {
        let mut a = Vec::new();
        bytes(1, b"axes", &mut a);
        for x in axes {
            int(8, *x, &mut a);
        }
        int(20, 7, &mut a); // INTS
        bytes(5, &a, &mut n);
        let mut k = Vec::new();
        bytes(1, b"keepdims", &mut k);
        int(3, 0, &mut k);
        int(20, 2, &mut k); // INT
        bytes(5, &k, &mut n);
    }
    n
}

/// ModelProto at opset 13 (ReduceMean still takes `axes` as an attribute there).
fn model(nodes: &[Vec<u8>], inits: &[Vec<u8>], input: Vec<u8>, output: Vec<u8>) -> Vec<u8> {
    let mut g = Vec::new();
    for n in nodes {
        bytes(1, n, &mut g);
    }
    bytes(2, b"tiny", &mut g);
    for i in inits {
        bytes(5, i, &mut g);
    }
    bytes(11, &input, &mut g);
    bytes(12, &output, &mut g);
    let mut m = Vec::new();
    int(1, 8, &mut m);
    bytes(2, b"slm-test", &mut m);
    bytes(7, &g, &mut m);
    let mut opset = Vec::new();
    bytes(1, b"", &mut opset);
    int(2, 13, &mut opset);
    bytes(8, &opset, &mut m);
    m
}

const FLOAT: i64 = 1;
const INT64: i64 = 7;
const SIZE: i64 = 16;
const CONTEXT: i64 = 8;
const WORDS: [&str; 5] = ["[PAD]", "[UNK]", "red", "blue", "green"];

/// The tiny model, in the immich layout, in `dir`.
fn write_tiny_model(dir: &Path) {
    std::fs::create_dir_all(dir.join("visual")).unwrap();
    std::fs::create_dir_all(dir.join("textual")).unwrap();
    // Picture tower: the mean of each normalised colour plane, times the identity.
    let identity = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    let visual = model(
        &[
            node("ReduceMean", &["image"], "mean", Some(&[2, 3])),
            node("MatMul", &["mean", "w"], "embedding", None),
        ],
        &[weights("w", &[3, 3], &identity)],
        value_info("image", FLOAT, &[1, 3, SIZE, SIZE]),
        value_info("embedding", FLOAT, &[1, 3]),
    );
    std::fs::write(dir.join("visual/model.onnx"), visual).unwrap();
    // With mean = std = 0.5 a pure colour is a corner of the cube: red (1, -1, -1).
    std::fs::write(
        dir.join("visual/preprocess_cfg.json"),
        json!({"size": [SIZE], "mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5],
               "interpolation": "bilinear", "resize_mode": "shortest"})
        .to_string(),
    )
    .unwrap();
    // Text tower: each word's vector (padding and unknown words are zero), averaged.
    let table: [f32; 15] = [
        0.0, 0.0, 0.0, // [PAD]
        0.0, 0.0, 0.0, // [UNK]
        1.0, -1.0, -1.0, // red
        -1.0, -1.0, 1.0, // blue
        -1.0, 1.0, -1.0, // green
    ];
    let textual = model(
        &[
            node("Gather", &["table", "text"], "words", None),
            node("ReduceMean", &["words"], "embedding", Some(&[1])),
        ],
        &[weights("table", &[WORDS.len() as i64, 3], &table)],
        value_info("text", INT64, &[1, CONTEXT]),
        value_info("embedding", FLOAT, &[1, 3]),
    );
    std::fs::write(dir.join("textual/model.onnx"), textual).unwrap();
    let vocab: serde_json::Map<String, Value> = WORDS
        .iter()
        .enumerate()
        .map(|(i, w)| (w.to_string(), json!(i)))
        .collect();
    let tokenizer = json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": null, "decoder": null,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}
    });
    std::fs::write(dir.join("textual/tokenizer.json"), tokenizer.to_string()).unwrap();
    std::fs::write(
        dir.join("textual/tokenizer_config.json"),
        json!({"pad_token": "[PAD]"}).to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.join("config.json"),
        json!({"embed_dim": 3, "text_cfg": {"context_length": CONTEXT}}).to_string(),
    )
    .unwrap();
}

/// A plain picture of one colour (no words for OCR to find).
fn colour_picture(path: &Path, rgb: [u8; 3]) {
    image::RgbImage::from_pixel(96, 64, image::Rgb(rgb))
        .save(path)
        .unwrap();
}

/// `slm ARGS --json` with the image–text model folder `dir`.
fn json_with(env: &Env, dir: &Path, args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let out = env
        .cmd(&a)
        .env("SLM_IMAGE_MODEL_DIR", dir)
        .output()
        .expect("slm runs");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}) from {args:?}: {}", stderr(&out)))
}

fn picture_names(r: &Value) -> Vec<String> {
    r["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|x| x["picture"]["name"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_bring_your_own_image_text_model_finds_wordless_pictures_by_what_they_show() {
    let env = Env::new();
    let model_dir = env.dir.path().join("clip");
    write_tiny_model(&model_dir);
    let env = env.with("SLM_IMAGE_MODEL_DIR", model_dir.to_str().unwrap());
    let empty = env.dir.path().join("no-model");
    std::fs::create_dir_all(&empty).unwrap();
    for (name, rgb) in [
        ("red.png", [255, 0, 0]),
        ("blue.png", [0, 0, 255]),
        ("green.png", [0, 255, 0]),
    ] {
        let f = env.dir.path().join(name);
        colour_picture(&f, rgb);
        let out = env.run(&["remember", "--image", f.to_str().unwrap()]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    env.remember("The quarterly report is due on Friday", &[]);
    let d = env.json(&["doctor"]);
    assert_eq!(d["pictures"]["wordless"], 3, "{}", d["pictures"]);
    assert_eq!(
        d["picture_channel"]["available"], true,
        "{}",
        d["picture_channel"]
    );

    for (q, want) in [
        ("the red one", "red.png"),
        ("which picture is blue", "blue.png"),
        ("GREEN", "green.png"),
    ] {
        let r = env.json(&["recall", q, "--explain"]);
        assert_eq!(
            r["channel_status"]["picture"]["status"], "ok",
            "{q}: {}",
            r["channel_status"]
        );
        let names = picture_names(&r);
        // Found by what it shows, and alone: the other colours are below the media floor.
        assert_eq!(names, vec![want.to_string()], "{q}: {r:#}");
        assert_eq!(r["answer_check_status"], "media_unjudged", "{q}");
        // Never "supported": no judge reads what a picture shows.
        assert_eq!(r["tier"], "related", "{q}");
    }
    // Without the worker (the cold path) the model is never loaded: the channel says it is
    // warming and the recall goes on without it.
    let out = env
        .cmd(&["recall", "the red one", "--json"])
        .env("SLM_WORKER", "off")
        .output()
        .unwrap();
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        r["channel_status"]["picture"]["status"], "warming",
        "{}",
        r["channel_status"]
    );
    // A question about nothing any picture shows keeps no picture.
    let r = env.json(&["recall", "quarterly report due", "--show-weak"]);
    assert!(picture_names(&r).is_empty(), "{r:#}");
    assert!(
        r["results"][0]["text"]
            .as_str()
            .unwrap()
            .contains("quarterly"),
        "{r:#}"
    );

    // Without the model, the channel says why and a wordless picture without a note stays
    // out (nothing else is evidence for it).
    let r = json_with(&env, &empty, &["recall", "the red one"]);
    assert_eq!(
        r["channel_status"]["picture"]["status"], "unavailable",
        "{}",
        r["channel_status"]
    );
    assert!(
        r["channel_status"]["picture"]["detail"]
            .as_str()
            .unwrap()
            .contains("found by their note"),
        "{}",
        r["channel_status"]
    );
    assert!(picture_names(&r).is_empty(), "{r:#}");
    let d = json_with(&env, &empty, &["doctor"]);
    assert_eq!(d["picture_channel"]["available"], false);
}

#[test]
fn a_store_without_pictures_recalls_the_same_with_or_without_a_picture_model() {
    let env = Env::new();
    let model_dir = env.dir.path().join("clip");
    write_tiny_model(&model_dir);
    for t in [
        "The staging database listens on port 5433",
        "We painted the meeting room red in March",
        "Maria owns the billing service",
    ] {
        env.remember(t, &[]);
    }
    for q in ["the red room", "show me the slide with the port number"] {
        let a = env.json(&["recall", q, "--show-weak"]);
        let b = json_with(&env, &model_dir, &["recall", q, "--show-weak"]);
        assert!(
            b["channel_status"].get("picture").is_none(),
            "{}",
            b["channel_status"]
        );
        for k in ["tier", "results", "weak", "abstained"] {
            assert_eq!(a[k], b[k], "{q}: {k} differs");
        }
    }
}
