//! Per-project memory: a memory written from inside a git repository records its project,
//! and questions asked from inside one see that project's memories and those with no
//! project, never another project's.
//!
//! A project is named `<repository root's folder name>-<6 hex of the sha256 of its full
//! path>`: readable, and two checkouts called `api` in different places stay apart. The
//! repository root is the nearest folder upwards holding `.git` (a folder, or the file a
//! worktree or submodule has). `--project NAME` (or `SLM_PROJECT`) names it instead;
//! `--all-projects` reads every project.
//!
//! Outside any repository there is no current project: a write records none (the memory is
//! visible everywhere) and a question sees every project, since there is no project it could
//! leak into. Memories saved before projects existed have none, so they stay visible
//! everywhere.
//!
//! The project is always worked out by the process the person or agent started (its
//! working directory, or the one the agent's hook payload names), never by the worker,
//! whose working directory is its own.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The longest project name accepted (a name, not a text).
pub const MAX_PROJECT_BYTES: usize = 128;
/// Hex digits of the path's hash in a detected name: 16.7 million values, so two
/// repositories with the same folder name collide only by a very unlikely chance.
const HASH_HEX: usize = 6;

/// Which project a command works in, from its flags.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Choice {
    /// The repository the working directory (or the hook's `cwd`) is in, if any.
    #[default]
    Detect,
    /// `--project NAME`.
    Named(String),
    /// `--all-projects`: every project (a write records none).
    All,
}

impl Choice {
    /// From `--project` and `--all-projects` (clap keeps them apart).
    pub fn from_flags(project: Option<&str>, all: bool) -> Choice {
        match (project, all) {
            (_, true) => Choice::All,
            (Some(p), false) => Choice::Named(p.to_string()),
            (None, false) => Choice::Detect,
        }
    }
}

/// A project name as given on the command line or by an agent.
pub fn parse_name(s: &str) -> Result<String, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("a project name cannot be empty (--all-projects reads every project)".into());
    }
    if t.len() > MAX_PROJECT_BYTES || t.chars().any(char::is_control) {
        return Err(format!(
            "a project name is at most {MAX_PROJECT_BYTES} bytes without control characters"
        ));
    }
    Ok(t.to_string())
}

/// The root of the git repository `dir` is in: the nearest folder upwards holding `.git`.
pub fn repository_root(dir: &Path) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(dir).ok()?;
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// The project of a repository root.
pub fn name_of_root(root: &Path) -> String {
    let base = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "root".into());
    let hash = Sha256::digest(root.as_os_str().as_encoded_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("{base}-{}", &hex[..HASH_HEX])
}

/// The project of the repository `dir` is in, if it is in one.
pub fn detect(dir: &Path) -> Option<String> {
    repository_root(dir).map(|r| name_of_root(&r))
}

/// The project of a choice: the named one, the detected one (from `cwd`, else the working
/// directory), or none. A write records it; a question reads it (with the memories that have
/// none), and `None` reads every project.
pub fn resolve(choice: &Choice, cwd: Option<&Path>) -> Option<String> {
    match choice {
        Choice::Named(p) => Some(p.clone()),
        Choice::All => None,
        Choice::Detect => match cwd {
            Some(d) => detect(d),
            None => detect(&std::env::current_dir().ok()?),
        },
    }
}

/// May a question about `asked` (None: every project) see a memory of `project`?
pub fn visible(asked: Option<&str>, project: Option<&str>) -> bool {
    match (asked, project) {
        (None, _) | (_, None) => true,
        (Some(a), Some(p)) => a == p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_is_found_from_any_folder_inside_it() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("api");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        let name = detect(&repo.join("src/deep")).unwrap();
        assert!(name.starts_with("api-"), "{name}");
        assert_eq!(name.len(), "api-".len() + HASH_HEX);
        assert_eq!(detect(&repo), Some(name.clone()));
        // another checkout with the same folder name is another project
        let other = tmp.path().join("elsewhere/api");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join(".git"), "gitdir: /x/.git/worktrees/api\n").unwrap();
        let second = detect(&other).unwrap();
        assert!(second.starts_with("api-"));
        assert_ne!(second, name);
        // outside any repository: none
        let plain = tempfile::tempdir().unwrap();
        assert_eq!(detect(plain.path()), None);
    }

    #[test]
    fn flags_choose_and_visibility_keeps_projects_apart() {
        assert_eq!(Choice::from_flags(None, false), Choice::Detect);
        assert_eq!(
            Choice::from_flags(Some("web"), false),
            Choice::Named("web".into())
        );
        assert_eq!(Choice::from_flags(Some("web"), true), Choice::All);
        assert_eq!(
            resolve(&Choice::Named("web".into()), None).as_deref(),
            Some("web")
        );
        assert_eq!(resolve(&Choice::All, None), None);
        assert!(visible(Some("web"), Some("web")));
        assert!(visible(Some("web"), None));
        assert!(!visible(Some("web"), Some("api-123456")));
        assert!(visible(None, Some("api-123456")));
        assert!(parse_name("  ").is_err());
        assert!(parse_name(&"x".repeat(200)).is_err());
    }
}
