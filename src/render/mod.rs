//! Answers as a person reads them: the human text of each command whose answer comes from
//! the service (the worker or the in-process path renders it with the caller's style, so a
//! worker never learns about terminals and no front renders twice). Data in, `String` out;
//! nothing here reads the store or prints. One file a kind of output.

pub mod feedback;
mod memories;
mod recall;
mod writes;

#[cfg(test)]
mod human_check;
#[cfg(test)]
mod human_tests;

pub use memories::{list, show};
pub use recall::{expand, recall};
pub use writes::{deleted, remembered, updated};
