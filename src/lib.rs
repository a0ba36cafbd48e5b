//! slm: a local memory for people and AI agents.
//!
//! The library holds everything; `main.rs` only calls [`cli::run`]. Modules, in the order
//! data flows through them: `store` (SQLite, the truth) → `index` (BM25 and vectors,
//! derived) and `embed` (the models) → `engine` (the one API every front calls) →
//! `recall` (the pipeline) → `cli` (the command line) and `eval`/`bench` (measurement).

pub mod agent;
pub mod bench;
pub mod cli;
pub mod clock;
pub mod embed;
pub mod engine;
pub mod error;
pub mod eval;
pub mod http;
pub mod index;
pub mod lock;
pub mod mcp;
pub mod memory;
pub mod output;
pub mod paths;
pub mod progress;
pub mod recall;
pub mod render;
pub mod service;
pub mod session;
pub mod settings;
pub mod store;
pub mod text;
pub mod timeparse;
pub mod transfer;
pub mod worker;

pub use clock::Clock;
pub use error::{Error, Result};

/// The name slm shows users where the spec prints "SuperLocalMemory".
pub const PRODUCT_NAME: &str = "slm";
/// The profile used when none is given.
pub const DEFAULT_PROFILE: &str = "default";
