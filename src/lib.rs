//! slm: a local memory for people and AI agents.
//!
//! The library holds everything; `main.rs` only calls [`cli::run`].
//!
//! # Architecture
//!
//! Dependencies point down this table, never up: a folder may use its own row and the rows
//! below it (a test, `dependencies_point_down_the_layers`, fails when one points up).
//!
//! | layer | folders | owns |
//! |---|---|---|
//! | fronts | `cli/` (+ `eval/`, `bench/`), `mcp.rs`, `http/`, `dashboard/`, `agent/`, `connect/` | parsing flags or JSON arguments; printing |
//! | requests | `service/` (`resolve.rs`), `render/`, `worker/` | resolving what a front was asked; dispatching it; its human text; the warm worker and its client |
//! | stages | `recall/`, `session.rs`, `transfer/` | the recall pipeline; session context; import, export, backup |
//! | engine | `engine/` | the one API over the store, the indexes and the models (writes, reads, index sync) |
//! | storage and models | `store/`, `index/`, `embed/` | SQLite (the truth); BM25 and vectors (derived); loading the embedder and the cross-encoder |
//! | vocabulary | `memory.rs`, `text/`, `timeparse/`, `settings.rs`, `paths.rs`, `clock.rs`, `output.rs`, `error.rs`, `lock.rs`, `priority.rs` | the types and helpers everything shares |
//!
//! From a flag to a rendered line, for `slm recall "what db?" --limit 3`:
//!
//! 1. `cli::run` parses the flags into clap structs (`cli/args.rs`, no logic there).
//! 2. `cli/recall_cmd.rs` turns `RecallArgs` into a plain `service::resolve::RecallInput`;
//!    MCP and HTTP turn their JSON arguments into the same input (`agent/`).
//! 3. `service::resolve::recall` fills in every default (clock, profile, settings, gate) and
//!    checks the values: a `RecallRequest`, inside a `service::Request` with the caller's
//!    output style.
//! 4. `worker::client` sends that request over the socket to the warm worker, or runs it in
//!    this process while the worker starts; both call `service::execute` on an `engine::Engine`.
//! 5. `recall::budget::run` (the time budget) runs `recall::run`: the stages in order
//!    (classify → channels → fusion → boosts → floor → rerank → ranking mode → answer check
//!    → tiers → layers), each reading through the engine.
//! 6. `service::execute` renders the response with the caller's style (`render::recall`) and
//!    returns the JSON body and that text together.
//! 7. `output::emit` prints the text, or the JSON envelope with `--json`.
//!
//! Writes take the same path to `engine/writes.rs`: the SQLite commit is the acknowledgement,
//! and the indexes follow from the store's change log (`engine/sync.rs`).

pub mod agent;
pub mod bench;
pub mod cli;
pub mod clock;
pub mod connect;
pub mod dashboard;
pub mod embed;
pub mod engine;
pub mod error;
pub mod eval;
pub mod http;
pub mod index;
pub mod lock;
pub mod mcp;
pub mod media;
pub mod memory;
pub mod output;
pub mod paths;
pub mod priority;
pub mod progress;
pub mod project;
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
