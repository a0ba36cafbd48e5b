//! What the dashboard's pages ask: the same requests the CLI sends, built here and run
//! through the warm worker or the cold path (`worker::client`), never a second engine.

use crate::agent::Front;
use crate::memory::{Kind, MemoryPatch, NewMemory, Scope, Source};
use crate::recall::filters::Filters;
use crate::service::Op;
use crate::service::resolve::{self, RecallInput};
use crate::store::ListFilter;
use crate::store::views::SavedView;
use crate::worker::client;
use crate::{Error, Result};
use serde_json::{Value, json};

/// Memories on one page of the Memories list. Chosen: a screenful of previews.
pub const PAGE: usize = 50;
/// Results a search shows: the CLI's default `--limit`, so both answer alike.
pub const SEARCH_LIMIT: usize = 10;

/// A search as the Memories page and a saved view run it.
#[derive(Debug, Clone, Default)]
pub struct Search {
    pub query: String,
    pub show_weak: bool,
    pub kind: Option<String>,
    pub window: Option<String>,
    pub explain: bool,
}

pub struct Backend {
    pub front: Front,
}

impl Backend {
    pub fn new(front: Front) -> Backend {
        Backend { front }
    }

    pub fn profile(&self) -> &str {
        &self.front.profile
    }

    /// The same front for another profile (`None`: this one).
    pub fn for_profile(&self, profile: Option<&str>) -> Backend {
        let mut front = self.front.clone();
        if let Some(p) = profile {
            front.profile = p.to_string();
        }
        Backend { front }
    }

    /// A picture's thumbnail (`<sha256>.png`, as results name it), read from the data dir;
    /// `None` for any other name or a missing file.
    pub fn thumbnail(&self, name: &str) -> Option<Vec<u8>> {
        let sha = name.strip_suffix(".png")?;
        if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        std::fs::read(crate::media::thumbnail_path(&self.front.paths, sha)).ok()
    }

    /// Run `op` as the CLI would: a question waits for a loading worker within its bound and
    /// is then answered cold, labelled warming (a person reads the label).
    fn run(&self, op: Op) -> Result<Value> {
        let timeout = match &op {
            Op::Recall { req } => client::reply_timeout(req.budget_s),
            _ => None,
        };
        self.front.run_for(op, timeout, false)
    }

    /// The recall `slm recall QUESTION` runs (person view, the CLI's defaults).
    pub fn search(&self, s: &Search) -> Result<Value> {
        let input = RecallInput {
            query: s.query.clone(),
            limit: SEARCH_LIMIT,
            depth: 1,
            show_weak: s.show_weak,
            explain: s.explain,
            window: s.window.clone(),
            kind: s.kind.clone(),
            project: self.front.project.clone(),
            ..Default::default()
        };
        let req = resolve::recall(&input, &self.front.profile)?;
        self.run(Op::Recall { req })
    }

    pub fn list(&self, mut filter: ListFilter, page: usize) -> Result<Vec<Value>> {
        filter
            .profile
            .get_or_insert_with(|| self.front.profile.clone());
        filter.project.clone_from(&self.front.project);
        filter.newest_first = true;
        // One more than a page: whether there is a next one.
        filter.limit = Some(PAGE + 1);
        filter.offset = Some(page * PAGE);
        let body = self.run(Op::List { filter })?;
        Ok(body["memories"].as_array().cloned().unwrap_or_default())
    }

    /// A memory with its depth-2 context (session, entities, the correction that replaced it).
    pub fn memory(&self, id: i64) -> Result<Value> {
        let filters = Filters {
            profile: self.front.profile.clone(),
            project: self.front.project.clone(),
            ..Default::default()
        };
        self.run(Op::Expand { id, filters })
    }

    pub fn update(&self, id: i64, patch: MemoryPatch) -> Result<Value> {
        self.run(Op::Update {
            id,
            profile: self.front.profile.clone(),
            patch,
        })
    }

    pub fn delete(&self, id: i64) -> Result<Value> {
        self.run(Op::Delete {
            ids: vec![id],
            profile: self.front.profile.clone(),
        })
    }

    /// Save `text` as the correction of memory `id` (`slm remember --supersedes ID`).
    pub fn supersede(&self, id: i64, text: String) -> Result<Value> {
        crate::memory::validate_text(&text)?;
        let memory = NewMemory {
            text,
            source: Some(Source::User),
            profile: Some(self.front.profile.clone()),
            supersedes: Some(id),
            project: self.front.project.clone(),
            ..Default::default()
        };
        self.run(Op::Remember { memory })
    }

    pub fn views(&self) -> Result<Vec<SavedView>> {
        let body = self.run(Op::Views {
            profile: self.front.profile.clone(),
        })?;
        serde_json::from_value(body["views"].clone())
            .map_err(|e| Error::Other(format!("reading the saved views: {e}")))
    }

    pub fn save_view(&self, view: SavedView) -> Result<()> {
        self.run(Op::ViewSave { view }).map(|_| ())
    }

    pub fn delete_view(&self, name: &str) -> Result<()> {
        self.run(Op::ViewDelete {
            profile: self.front.profile.clone(),
            name: name.to_string(),
        })
        .map(|_| ())
    }

    /// The worker's own status (None: not running) and the store's size on disk.
    pub fn status(&self) -> Result<(Option<Value>, u64)> {
        let worker = client::status(&self.front.paths)?.map(|s| json!(s));
        let size = std::fs::metadata(self.front.paths.store()).map_or(0, |m| m.len());
        Ok((worker, size))
    }

    /// `slm doctor --json`, run as the CLI runs it (it loads the models, ~1-2 s: the status
    /// page runs it only when asked).
    pub fn doctor(&self) -> Result<Value> {
        let exe = std::env::current_exe().map_err(|e| Error::io("finding the slm binary", e))?;
        let out = std::process::Command::new(exe)
            .args(["doctor", "--json", "--profile", &self.front.profile])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| Error::io("running slm doctor", e))?;
        serde_json::from_slice(&out.stdout).map_err(|_| {
            Error::Other(format!(
                "slm doctor gave no report: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        })
    }
}

/// A kind or scope name from a form, checked with the CLI's own parsers.
pub fn kind_of(s: &str) -> Result<Option<Kind>> {
    if s.is_empty() {
        return Ok(None);
    }
    Kind::parse_flag("kind", Some(s))
}

pub fn scope_of(s: &str) -> Result<Option<Scope>> {
    if s.is_empty() {
        return Ok(None);
    }
    Scope::parse_flag("scope", Some(s))
}
