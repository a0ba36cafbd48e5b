//! Reading, backing up, writing and diffing an agent's config file.
//!
//! A config file reached through a symlink (a dotfiles repository) is written at the
//! link's target, so the link stays a link. Writes go through a temporary sibling and a
//! rename, keeping the file's permissions.

use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// The file's text, None when it does not exist.
pub fn read(path: &Path) -> Result<Option<String>> {
    match std::fs::read(path) {
        Ok(b) => String::from_utf8(b).map(Some).map_err(|e| {
            Error::Input(format!(
                "{} is not UTF-8 text (first bad byte at offset {}); slm changed nothing",
                path.display(),
                e.utf8_error().valid_up_to()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(format!("reading {}", path.display()), e)),
    }
}

/// The path a write lands on: a symlink's target, else the path itself.
fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

const BACKUP: &str = ".slm-backup-";

/// The backups of `path` slm made, newest first.
pub fn backups(path: &Path) -> Vec<PathBuf> {
    let real = real(path);
    let (Some(dir), Some(name)) = (real.parent(), real.file_name().and_then(|n| n.to_str())) else {
        return Vec::new();
    };
    let prefix = format!("{name}{BACKUP}");
    let mut found: Vec<((String, u32), PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_str()?.to_string();
            let stamp = n.strip_prefix(&prefix)?;
            let (t, k) = match stamp.split_once('-') {
                Some((t, k)) => (t.to_string(), k.parse().ok()?),
                None => (stamp.to_string(), 1),
            };
            Some(((t, k), e.path()))
        })
        .collect();
    found.sort();
    found.into_iter().rev().map(|(_, p)| p).collect()
}

/// Copy `path` to `<path>.slm-backup-<YYYYmmddTHHMMSS>` (a `-2`, `-3`… when that name is
/// taken), beside the file it backs up.
pub fn backup(path: &Path, now: chrono::DateTime<chrono::Utc>) -> Result<PathBuf> {
    let real = real(path);
    let stamp = now.format("%Y%m%dT%H%M%S");
    let mut k = 1;
    loop {
        let suffix = if k == 1 {
            format!("{BACKUP}{stamp}")
        } else {
            format!("{BACKUP}{stamp}-{k}")
        };
        let mut name = real.as_os_str().to_owned();
        name.push(suffix);
        let b = PathBuf::from(name);
        if !b.exists() {
            std::fs::copy(&real, &b)
                .map_err(|e| Error::io(format!("backing up {}", path.display()), e))?;
            return Ok(b);
        }
        k += 1;
    }
}

/// Write `text` as the whole file, creating its directory when needed.
pub fn write(path: &Path, text: &str) -> Result<()> {
    let real = real(path);
    let err = |e| Error::io(format!("writing {}", path.display()), e);
    if let Some(dir) = real.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    let perms = std::fs::metadata(&real).ok().map(|m| m.permissions());
    let mut tmp = real.as_os_str().to_owned();
    tmp.push(format!(".slm-tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let r = std::fs::write(&tmp, text)
        .and_then(|_| match perms {
            Some(p) => std::fs::set_permissions(&tmp, p),
            None => Ok(()),
        })
        .and_then(|_| std::fs::rename(&tmp, &real));
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r.map_err(err)
}

pub fn delete(path: &Path) -> Result<()> {
    std::fs::remove_file(real(path))
        .map_err(|e| Error::io(format!("removing {}", path.display()), e))
}

/// A short unified-style diff of `before` and `after`: the changed lines with two lines of
/// context, `@@ -a +b @@` giving where they start.
pub fn diff(before: &str, after: &str) -> String {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    let pre = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    // Within the changed middle, match lines (a longest common subsequence) when it is
    // small enough; a large one is shown whole.
    let mut ops: Vec<(char, &str)> = Vec::new();
    if am.len() * bm.len() <= 1_000_000 {
        let (n, m) = (am.len(), bm.len());
        let mut l = vec![vec![0u32; m + 1]; n + 1];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                l[i][j] = if am[i] == bm[j] {
                    l[i + 1][j + 1] + 1
                } else {
                    l[i + 1][j].max(l[i][j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && am[i] == bm[j] {
                ops.push((' ', am[i]));
                (i, j) = (i + 1, j + 1);
            } else if i < n && (j == m || l[i + 1][j] >= l[i][j + 1]) {
                ops.push(('-', am[i]));
                i += 1;
            } else {
                ops.push(('+', bm[j]));
                j += 1;
            }
        }
    } else {
        ops.extend(am.iter().map(|l| ('-', *l)));
        ops.extend(bm.iter().map(|l| ('+', *l)));
    }
    let ctx = 2;
    let head: Vec<(char, &str)> = a[pre.saturating_sub(ctx)..pre]
        .iter()
        .map(|l| (' ', *l))
        .collect();
    let tail: Vec<(char, &str)> = a[a.len() - suf..]
        .iter()
        .take(ctx)
        .map(|l| (' ', *l))
        .collect();
    let all: Vec<(char, &str)> = head.into_iter().chain(ops).chain(tail).collect();
    // Keep the changed lines and `ctx` lines around each; mark the gaps.
    let near = |k: usize| {
        all[k.saturating_sub(ctx)..(k + ctx + 1).min(all.len())]
            .iter()
            .any(|(c, _)| *c != ' ')
    };
    let mut out = format!(
        "@@ -{} +{} @@\n",
        pre.saturating_sub(ctx) + 1,
        pre.saturating_sub(ctx) + 1
    );
    let mut gap = false;
    for (k, (c, l)) in all.iter().enumerate() {
        if near(k) {
            if gap {
                out.push_str("@@ … @@\n");
                gap = false;
            }
            out.push_str(&format!("{c}{l}\n"));
        } else {
            gap = true;
        }
    }
    out
}
