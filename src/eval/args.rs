//! The `slm eval` command line: plain clap structs (help text in their doc comments), owned
//! by the measurement that reads them; `cli::args` names them under `Command::Eval`.

use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Evidence recall and tiers on a LoCoMo-format file.
    Locomo(EvalLocomoArgs),
    /// Run a question list and count how many met the expectation.
    Questions(EvalQuestionsArgs),
    /// The model's cosine scale: question/answer pairs against mismatched pairings.
    Pairs(EvalPairsArgs),
    /// Plain workplace notes and questions in other words (fixtures/notes-dev.json format):
    /// supported with the right note first, and unanswerable questions not supported.
    Notes(EvalNotesArgs),
}

#[derive(Debug, Args)]
pub struct EvalNotesArgs {
    /// A notes set: {"notes": [{"id", "text", "date"}], "questions": [{"q", "answers", "kind"}]}
    /// (default: fixtures/notes-dev.json).
    #[arg(default_value = "fixtures/notes-dev.json")]
    pub file: PathBuf,
    /// The answer check for this run (answer_check.mode of the temporary store).
    #[arg(long, value_name = "MODE", value_parser = ["auto", "local", "off"], default_value = "auto")]
    pub answer_check: String,
    /// Which encoder embeds the questions: fast (the small query encoder) or full (the memory
    /// model); the default is what settings say.
    #[arg(long, value_name = "ENCODER", value_parser = ["full", "fast"])]
    pub query_encoder: Option<String>,
}

#[derive(Debug, Args)]
pub struct EvalPairsArgs {
    /// Tab-separated "question<TAB>note that answers it" lines ('#' starts a comment);
    /// default: fixtures/similarity-pairs.tsv.
    pub file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct EvalLocomoArgs {
    pub path: PathBuf,
    /// Only these conversations (comma separated sample ids).
    #[arg(long, value_delimiter = ',')]
    pub conversations: Vec<String>,
    /// Audit corrections (locomo-dev-audit.json format).
    #[arg(long)]
    pub audit: Option<PathBuf>,
    /// Cut-offs for R@k and hit@k.
    #[arg(long, value_delimiter = ',', default_values_t = vec![1, 5, 10])]
    pub k: Vec<usize>,
    /// Also run a simple baseline on the same data: bm25 or dense.
    #[arg(long, value_delimiter = ',')]
    pub baseline: Vec<String>,
    /// Write a Markdown report here too.
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    /// Write the support check's misses here as JSON Lines (answerable questions with evidence
    /// in the top 3 that were not supported; adversarial ones that were), with every scored
    /// memory's signals, for studying the check by kind of question.
    #[arg(long)]
    pub misses: Option<PathBuf>,
    /// Write every judged question's signals here as JSON Lines (answerable questions with
    /// evidence in the top 3, and adversarial ones), missed or not: what a support rule is
    /// fitted on (scripts/models/reader/fit_rule.py).
    #[arg(long)]
    pub signals: Option<PathBuf>,
    /// Also run every question with each channel switched off in turn and print the table.
    #[arg(long)]
    pub ablate: bool,
    /// Tune channel weight multipliers over a grid such as "semantic=1,2,3;bm25=0.5,1",
    /// leave-one-conversation-out: each conversation is scored with the grid point that did
    /// best on the others.
    #[arg(long, value_name = "GRID")]
    pub tune: Option<String>,
    /// Channel weight multipliers for the main run, on top of the model's, such as
    /// "semantic=2,bm25=0.5".
    #[arg(long, value_name = "SCALE")]
    pub scale: Option<String>,
    /// The answer check for this run (answer_check.mode of the temporary stores); with a judge,
    /// the report puts the support check alone beside it.
    #[arg(long, value_name = "MODE", value_parser = ["auto", "local", "off"], default_value = "auto")]
    pub answer_check: String,
    /// Also measure learned ranking modes (v1, v2, v2-ensemble or all) with simulated
    /// feedback: per conversation, gold evidence of half the questions trains, the other
    /// half is scored against off.
    #[arg(long, value_delimiter = ',', value_name = "MODES")]
    pub ranking: Vec<String>,
    /// Which encoder embeds the questions, one run each on the same stores, side by side:
    /// "full,fast" (the memory model; the small query encoder). Default: what settings say.
    #[arg(long, value_delimiter = ',', value_name = "ENCODERS", value_parser = ["full", "fast"])]
    pub query_encoder: Vec<String>,
}

#[derive(Debug, Args)]
pub struct EvalQuestionsArgs {
    pub file: PathBuf,
    /// none: the tier must be none; not-supported: anything but supported.
    #[arg(long)]
    pub expect: String,
    /// A LoCoMo file whose conversations form the store (default: ../shared/data/locomo-dev.json).
    #[arg(long)]
    pub store: Option<PathBuf>,
}
