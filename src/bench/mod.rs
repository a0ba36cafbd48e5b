//! Benchmarks.

use crate::cli::args::{BenchCommand, GlobalArgs};
use crate::output::Style;

pub fn run(_c: BenchCommand, _g: &GlobalArgs, _s: Style) -> crate::Result<i32> {
    Err(crate::Error::Other("bench is being built".into()))
}
