//! The integration tests, one module per area, in one test binary: slm's dependencies
//! (tantivy, ONNX Runtime, usearch) are linked once instead of once per file. Each module
//! runs the real `slm` against a temporary home (`common::Env`), or the library directly.
//! Run one area with `cargo test --test it recall::`.

mod common;

mod agents;
mod answer_check;
mod backfill;
mod capture;
mod connect;
mod consent;
mod dashboard;
mod dashboard_browser;
mod duplicates;
mod eval;
mod foundation;
mod human_text;
mod layers;
mod notes_import;
mod one_word;
mod picture_channel;
mod pictures;
mod projects;
mod query_encoder;
mod ranking;
mod reader;
mod readme;
mod recall;
mod reliability;
mod restore_fence;
mod secrets;
mod session;
mod transfer;
mod worker;
