//! Saved views through the engine: read from the store, written under the writer lease.

use super::Engine;
use crate::lock::WRITE_WAIT;
use crate::store::views::SavedView;
use crate::{Error, Result};

/// The longest view name, in characters. Chosen: a name is a label in a list.
pub const MAX_VIEW_NAME: usize = 80;

impl Engine {
    pub fn views(&self, profile: &str) -> Result<Vec<SavedView>> {
        self.store()?.views(profile)
    }

    /// Save `v` (its name and question checked first; nothing is written when they are bad).
    pub fn save_view(&self, v: &SavedView) -> Result<()> {
        let name = v.name.trim();
        if name.is_empty() || name.chars().count() > MAX_VIEW_NAME {
            return Err(Error::Input(format!(
                "a view needs a name of 1 to {MAX_VIEW_NAME} characters; nothing was saved"
            )));
        }
        if v.query.trim().is_empty() {
            return Err(Error::Input(
                "a view needs a question; nothing was saved".into(),
            ));
        }
        crate::memory::validate_text(&v.query)?;
        self.writable()?;
        let _lease = self.lease(WRITE_WAIT)?;
        let v = SavedView {
            name: name.to_string(),
            ..v.clone()
        };
        self.store()?.write(|w| w.put_view(&v))
    }

    pub fn delete_view(&self, profile: &str, name: &str) -> Result<bool> {
        self.writable()?;
        let _lease = self.lease(WRITE_WAIT)?;
        self.store()?.write(|w| w.delete_view(profile, name))
    }
}
