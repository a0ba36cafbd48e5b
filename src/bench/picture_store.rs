//! The bench store with pictures (`--pictures N`, issue 37: "warm recall unchanged with 1,000
//! pictures in a 27,000-memory store"): a copy of the plain bench store of the same size, plus
//! N picture memories as OCR would have left them (state `read`, their text three LoCoMo turns
//! under the picture's label). No picture file is written: a recall reads the picture rows,
//! never the files. Kept beside the plain store, keyed by N, and re-used like it.

use super::{bench_store, synthetic};
use crate::engine::{Engine, ModelMode, OpenOptions};
use crate::memory::{NewMemory, PictureRef};
use crate::paths::Paths;
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// OCR lines given each synthetic picture (turns of the data set, in order).
const LINES_PER_PICTURE: usize = 3;

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type()?.is_dir() {
            copy_dir(&src, &dst)?;
        } else if e.file_name() != "COMPLETE" {
            std::fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

/// N picture memories as OCR leaves them.
fn picture_memories(data: &Path, n: usize) -> Result<Vec<NewMemory>> {
    let turns = synthetic(data, n * LINES_PER_PICTURE)?;
    Ok(turns
        .chunks(LINES_PER_PICTURE)
        .enumerate()
        .map(|(i, lines)| {
            let picture = PictureRef {
                sha256: crate::media::sha256_hex(format!("slm bench picture {i}").as_bytes()),
                ext: "png".into(),
                name: format!("screenshot-{i:04}.png"),
                note: None,
                bytes: 120_000,
                width: 1280,
                height: 800,
                page: None,
                text_layer: Some(true),
            };
            let lines: Vec<String> = lines.iter().map(|m| m.text.clone()).collect();
            NewMemory {
                text: crate::media::memory_text(&picture, &lines),
                picture: Some(picture),
                ..Default::default()
            }
        })
        .collect())
}

/// The bench store of `n` memories plus `pictures` pictures (see the module doc).
pub(crate) fn pictured_store(data: &Path, n: usize, pictures: usize) -> Result<(Engine, PathBuf)> {
    let (base, base_dir) = bench_store(data, n, 0)?;
    drop(base);
    let name = format!(
        "{}-pictures{pictures}",
        base_dir
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    let dir = base_dir.with_file_name(name);
    let base_paths = Paths::from_env();
    let paths = Paths::at(&dir, &base_paths.cache);
    if !dir.join("COMPLETE").exists() {
        let _ = std::fs::remove_dir_all(&dir);
        copy_dir(&base_dir, &dir).map_err(|e| Error::io("copying the bench store", e))?;
        let engine = Engine::open(paths.clone(), OpenOptions::model(ModelMode::Load))?;
        let items = picture_memories(data, pictures)?;
        let pb = crate::progress::bar(items.len() as u64, "adding pictures");
        for chunk in items.chunks(256) {
            engine.remember_batch(chunk.to_vec(), &mut |_| {})?;
            pb.inc(chunk.len() as u64);
        }
        pb.finish_and_clear();
        drop(engine);
        std::fs::write(dir.join("COMPLETE"), b"ok")
            .map_err(|e| Error::io("marking the bench store", e))?;
    }
    let engine = Engine::open(paths, OpenOptions::model(ModelMode::Load))?;
    Ok((engine, dir))
}
