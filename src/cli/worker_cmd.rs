//! `slm worker start|stop|status|restart` (and the hidden `run` that a start spawns).

use super::args::{GlobalArgs, WorkerCommand};
use crate::Result;
use crate::output::Style;
use crate::output::emit;
use crate::paths::Paths;
use crate::worker::{client, server};
use serde_json::json;

pub fn run(c: WorkerCommand, _g: &GlobalArgs, style: Style) -> Result<i32> {
    let paths = Paths::from_env();
    match c {
        WorkerCommand::Run => {
            server::run(paths)?;
            Ok(0)
        }
        WorkerCommand::Start => {
            let s = client::start_and_wait(&paths)?;
            show(style, "worker", Some(&s), "running")
        }
        WorkerCommand::Restart => {
            client::stop(&paths)?;
            let s = client::start_and_wait(&paths)?;
            show(style, "worker", Some(&s), "restarted")
        }
        WorkerCommand::Stop => {
            let pid = client::stop(&paths)?;
            emit(
                style,
                "worker",
                json!({ "running": false, "stopped_pid": pid }),
                || match pid {
                    Some(p) => format!("worker (pid {p}) stopped"),
                    None => "no worker was running".into(),
                },
            )?;
            Ok(0)
        }
        WorkerCommand::Status => {
            let s = client::status(&paths)?;
            show(style, "worker", s.as_ref(), "running")
        }
    }
}

fn show(style: Style, command: &str, s: Option<&server::Status>, word: &str) -> Result<i32> {
    let body = match s {
        Some(s) => json!({ "running": true, "status": s }),
        None => json!({ "running": false,
            "socket": client::socket_path(&Paths::from_env()).ok().map(|p| p.display().to_string()) }),
    };
    emit(style, command, body, || match s {
        None => "worker: not running (the next command starts it)".into(),
        Some(s) => format!(
            "worker: {word} (pid {}, version {}, protocol {})\n  data      {}\n  socket    {}\n  model     {}\n  memories  {} ({} waiting for an embedding)\n  questions {} slots, {} running, {} waiting; {} ran, {} joined a run, {} reused, {} busy; {} answers held for reuse\n  idle      {:.0} s of {} s, up {:.0} s",
            s.pid,
            s.version,
            s.protocol,
            s.data_dir,
            s.socket,
            if s.model_loaded {
                "loaded"
            } else {
                "missing (keyword-only)"
            },
            s.memories,
            s.pending_embeddings,
            s.questions.slots,
            s.questions.running,
            s.questions.waiting,
            s.questions.ran,
            s.questions.joined,
            s.questions.reused,
            s.questions.busy,
            s.questions.cached_answers,
            s.idle_s,
            s.idle_timeout_s,
            s.uptime_s
        ),
    })?;
    Ok(0)
}
