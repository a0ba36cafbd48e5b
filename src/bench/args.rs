//! The `slm bench` command line: plain clap structs (help text in their doc comments), owned
//! by the benchmarks that read them; `cli::args` names them under `Command::Bench`.

use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Import N memories and report memories/s, time to findable, size, RSS.
    Ingest(BenchIngestArgs),
    /// Recall latency on a synthetic store built from LoCoMo turns.
    Recall(BenchRecallArgs),
    /// Vector index precision: recall@10 of f32, f16 and i8 HNSW against exact search.
    Vectors(BenchRecallArgs),
    /// End to end through the CLI against the warm worker (process start included), at each
    /// concurrency, and the cold path with the worker down.
    Worker(BenchRecallArgs),
    /// Export, import and backup speed on the bench store (memories/s, MB/s).
    Export(BenchExportArgs),
    /// `slm hook capture` timed end to end with the worker idle and while it imports.
    Hooks(BenchHooksArgs),
    /// The dashboard's pages timed over HTTP on the bench store (searches excluded).
    Dashboard(BenchExportArgs),
    /// OCR per picture (the models alone), then a folder imported through the worker: time
    /// until every picture is read, and, with a questions.json beside the pictures, how many
    /// questions find their picture in the top 3.
    Pictures(BenchPicturesArgs),
}

#[derive(Debug, Args)]
pub struct BenchPicturesArgs {
    /// A folder of pictures (the fixtures: fixtures/pictures).
    #[arg(default_value = "fixtures/pictures")]
    pub dir: PathBuf,
    /// Times each picture is read by OCR alone.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
}

#[derive(Debug, Args)]
pub struct BenchHooksArgs {
    /// Memories the background import writes (the hooks fire until it ends).
    #[arg(long, default_value_t = 3000)]
    pub memories: usize,
    /// Hooks fired with the worker idle (the baseline).
    #[arg(long, default_value_t = 50)]
    pub captures: usize,
    /// Milliseconds between one hook's exit and the next one's start (0: back to back).
    /// The default, ten hooks a second, is far above what an agent fires; 0 measures a
    /// storm of hooks that competes with the import for the cores.
    #[arg(long, default_value_t = 100)]
    pub interval_ms: u64,
    /// LoCoMo file to take turn text from.
    #[arg(long, default_value = "../shared/data/locomo-dev.json")]
    pub data: PathBuf,
}

#[derive(Debug, Args)]
pub struct BenchExportArgs {
    #[arg(long, default_value_t = 27000)]
    pub memories: usize,
    #[arg(long, default_value = "../shared/data/locomo-dev.json")]
    pub data: PathBuf,
}

#[derive(Debug, Args)]
pub struct BenchIngestArgs {
    #[arg(long, default_value_t = 1000)]
    pub memories: usize,
    /// LoCoMo file to take turn text from.
    #[arg(long, default_value = "../shared/data/locomo-dev.json")]
    pub data: PathBuf,
}

#[derive(Debug, Args)]
pub struct BenchRecallArgs {
    #[arg(long, default_value_t = 27000)]
    pub memories: usize,
    #[arg(long, default_value_t = 200)]
    pub questions: usize,
    #[arg(long, value_delimiter = ',', default_values_t = vec![1])]
    pub concurrency: Vec<usize>,
    #[arg(long, default_value = "../shared/data/locomo-dev.json")]
    pub data: PathBuf,
    /// Add this many picture memories (as OCR leaves them) to a copy of the store.
    #[arg(long, default_value_t = 0)]
    pub pictures: usize,
}
