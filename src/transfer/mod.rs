//! Memories in and out of slm: the JSON Lines format `slm import` reads and `slm export`
//! writes ([`line`]), paging a store out in id order ([`export`]), copies of the store file
//! and putting one back ([`backup`]), and plain notes split into memories ([`notes`]).
//!
//! Import and export are requests like any other (see `service`): the warm worker answers
//! them when it runs, an engine opened in this process otherwise, with the same code and the
//! same profile rules. Backup and restore work on the SQLite file itself, beside the worker
//! (backup) or with it stopped (restore); the indexes are never copied, they are rebuilt.

pub mod backup;
pub mod export;
pub mod history;
pub mod line;
pub mod media;
pub mod notes;
