//! The warm worker and its clients.
//!
//! `slm` forwards each command to a worker process that keeps the engine warm, over a local
//! socket in a directory that is ours alone (`runtime_dir`). The request is the fully
//! resolved command (`service::Request`), so the worker and the in-process path run the same
//! engine code on the same input. The pieces:
//!
//! * `protocol` — length-limited JSON-line frames carrying version and protocol number;
//! * `client` — send, start on demand, answer cold while the worker starts, never replay a
//!   write;
//! * `server` — the worker: connections, catch-up with other writers, background work,
//!   idle exit;
//! * `questions` — slots, single flight, answer reuse, the busy answer.

pub mod client;
pub mod protocol;
pub mod questions;
pub mod runtime_dir;
pub mod server;
mod wire;
