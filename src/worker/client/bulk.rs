//! Many requests in a row (an import, an export): one target for all of them.

use super::transport::{Transport, exchange};
use super::{Mode, REPLY_TIMEOUT, ServedBy, Unanswered, answer_of};
use crate::engine::{Engine, ModelMode, OpenOptions};
use crate::paths::Paths;
use crate::service::{self, Reply, Request};
use crate::worker::protocol::{ClientBody, WorkerBody, WorkerFrame};
use crate::worker::runtime_dir::WorkerFiles;
use crate::{Error, Result};
use std::sync::Arc;

/// Where a command that sends many requests in a row (an import, an export) runs them: the
/// warm worker when one answers, else one engine opened here for all of them (not one per
/// request). Both run `service::execute`, so the lines are the same either way. Nothing is
/// started: a bulk command does not need a model loaded for later questions.
pub struct Target {
    paths: Paths,
    model: ModelMode,
    worker: std::sync::Mutex<Option<WorkerFiles>>,
    local: std::sync::OnceLock<Arc<Engine>>,
    served_by: std::sync::Mutex<ServedBy>,
}

impl Target {
    /// Find the worker (mode auto) or prepare to answer here. `model`: whether an engine
    /// opened here loads the model (an import embeds as it goes; an export needs none).
    pub fn connect(paths: &Paths, mode: Mode, model: ModelMode) -> Result<Target> {
        let worker = match mode {
            Mode::Auto => {
                let files = WorkerFiles::for_paths(paths)?;
                match exchange(&files, ClientBody::Ping, super::lifecycle::PING_TIMEOUT) {
                    Ok(WorkerFrame {
                        body: WorkerBody::Status { .. },
                        ..
                    }) => Some(files),
                    _ => None,
                }
            }
            Mode::Off | Mode::Inline => None,
        };
        let (model, served) = match (mode, &worker) {
            (_, Some(_)) => (model, ServedBy::Worker),
            (Mode::Off, None) => (ModelMode::Skip, ServedBy::Cold),
            (_, None) if model == ModelMode::Load => (model, ServedBy::Inline),
            (_, None) => (model, ServedBy::Cold),
        };
        Ok(Target {
            paths: paths.clone(),
            model,
            worker: std::sync::Mutex::new(worker),
            local: std::sync::OnceLock::new(),
            served_by: std::sync::Mutex::new(served),
        })
    }

    pub fn served_by(&self) -> ServedBy {
        self.served_by.lock().map(|s| *s).unwrap_or(ServedBy::Cold)
    }

    /// Why an engine opened here has no embedding model (None: it has one, or none was opened).
    pub fn model_missing(&self) -> Option<String> {
        let e = self.local.get()?;
        if self.model == ModelMode::Skip {
            return None;
        }
        e.model_status().map(|s| s.detail.clone())
    }

    /// Inline (models loaded here, no worker): read the pictures waiting for OCR now, since
    /// nothing will in the background. Returns how many, or None when a worker does it.
    pub fn read_pictures_here(&self) -> Result<Option<usize>> {
        if self.served_by() != ServedBy::Inline {
            return Ok(None);
        }
        self.engine()?.picture_work(usize::MAX).map(Some)
    }

    fn engine(&self) -> Result<Arc<Engine>> {
        if let Some(e) = self.local.get() {
            return Ok(e.clone());
        }
        let e = Arc::new(Engine::open(
            self.paths.clone(),
            OpenOptions {
                model: self.model,
                wait_for_lease: false,
                no_writes: false,
            },
        )?);
        Ok(self.local.get_or_init(|| e).clone())
    }

    /// Run one request. A worker that went away before taking it (nothing ran) hands over
    /// to an engine here; one that went away after a write was sent is reported, and the
    /// write is not sent again.
    pub fn run(&self, req: Request) -> Result<Reply> {
        let files = self.worker.lock().ok().and_then(|w| w.clone());
        if let Some(files) = files {
            let sent = exchange(
                &files,
                ClientBody::Request {
                    request: req.clone(),
                },
                REPLY_TIMEOUT,
            );
            match sent {
                Ok(frame) => match answer_of(frame.body, None) {
                    Ok(a) => return Ok(a.reply),
                    Err(Unanswered::Error(e)) => return Err(e),
                    Err(Unanswered::ShuttingDown) => {}
                },
                Err(Transport::Lost(why)) => {
                    return Err(Error::Other(format!(
                        "the worker stopped before confirming this {} ({why}); it may or may not have been saved, and it was not sent again. Run the command again: what was saved is recognised by its key",
                        req.op.name()
                    )));
                }
                Err(Transport::Refused(why)) => return Err(Error::Other(why)),
                Err(_) => {}
            }
            // It ran nothing (gone, leaving, another version): carry on here.
            if let Ok(mut w) = self.worker.lock() {
                *w = None;
            }
            if let Ok(mut s) = self.served_by.lock() {
                *s = if self.model == ModelMode::Load {
                    ServedBy::Inline
                } else {
                    ServedBy::Cold
                };
            }
        }
        service::execute(&self.engine()?, &req)
    }
}
