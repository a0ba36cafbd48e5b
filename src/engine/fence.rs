//! The writer lease, fenced against a restore.
//!
//! Every write an engine makes (to SQLite or to the indexes) happens under the writer lease
//! (`lock.rs`). Taking the lease here also checks that the store's path still names the
//! file this engine opened: `slm restore` swaps the store while it holds the lease, so a
//! process that opened the old store (a worker that was still loading, an import that
//! started before the restore) learns of the swap the next time it would write, before it
//! writes anything, and gets [`Error::StoreReplaced`] instead of writing into the file kept
//! aside (issue 38). The worker also asks [`Engine::store_replaced`] before each request
//! and leaves when it is true, so it never answers from the old store either.

use super::Engine;
use crate::lock::WriteLock;
use crate::{Error, Result};
use std::time::Duration;

impl Engine {
    /// Take the writer lease (waiting up to `wait`) for writing to this engine's store.
    pub(crate) fn lease(&self, wait: Duration) -> Result<WriteLock> {
        let lease = WriteLock::acquire(&self.paths.write_lock(), wait)?;
        self.fence()?;
        Ok(lease)
    }

    /// Take the writer lease only if it is free now (background work).
    pub(crate) fn try_lease(&self) -> Result<Option<WriteLock>> {
        match WriteLock::try_acquire(&self.paths.write_lock())? {
            Some(lease) => {
                self.fence()?;
                Ok(Some(lease))
            }
            None => Ok(None),
        }
    }

    fn fence(&self) -> Result<()> {
        if self.store_replaced() {
            return Err(Error::StoreReplaced);
        }
        Ok(())
    }

    /// Whether the store on disk is no longer the file this engine opened (a restore put
    /// another one in place). An engine that takes no writes has nothing to fence.
    /// Read without the store's lock (the worker asks before every request, and a write
    /// in progress holds that lock).
    pub fn store_replaced(&self) -> bool {
        match self.store_file {
            Some(f) => crate::store::FileId::of(&self.paths.store()) != Some(f),
            None => false,
        }
    }
}
