//! The worker's own work between requests: the background queue (embedding backlog, pictures,
//! baselines, index saves, in small rounds that step aside for questions) and the idle watch
//! that stops a worker nobody uses.

use super::{Worker, left_for_restore, shutdown};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Background work waits at most this long for questions to finish (the spec: twenty seconds).
pub const STEP_ASIDE_MAX: Duration = Duration::from_secs(20);
/// Memories embedded per background batch: ~0.2–0.5 s of model time on 2 cores, so a
/// question that arrives mid-batch waits little.
pub const BACKGROUND_BATCH: usize = 32;
/// How often the idle watch looks (at most; a short idle timeout, as tests set, is checked
/// four times over). Chosen, not measured: the idle timeout is minutes.
pub const IDLE_CHECK: Duration = Duration::from_millis(500);
/// Pictures read by OCR per background round: each is about a second of both cores (`slm
/// bench pictures`), and questions are stepped aside for before each round, as for a batch of
/// embeddings.
pub const PICTURES_PER_ROUND: usize = 2;
/// The pause between background batches. Chosen, not measured: a batch is ~0.2–0.5 s, so
/// background work takes at most about half the model's time while there is a backlog.
pub const BACKGROUND_PAUSE: Duration = Duration::from_millis(500);

/// Stop the worker once it has had no connection and done no background work for its idle
/// time.
pub(super) fn watch_idle(w: &Arc<Worker>) {
    loop {
        std::thread::sleep(IDLE_CHECK.min(w.idle / 4 + Duration::from_millis(10)));
        if w.connections.load(Ordering::SeqCst) == 0
            && !w.background_busy.load(Ordering::SeqCst)
            && w.idle_for() >= w.idle
        {
            eprintln!("slm worker: idle for {} s; exiting", w.idle.as_secs());
            shutdown(w);
            return;
        }
    }
}

/// Embedding backlog, pictures, baselines, index saves: small batches that yield to questions.
/// A round that panics is reported and the next one runs: the background work must outlive
/// a bug in one of its parts, or pictures and embeddings would wait for ever unnoticed.
///
/// This thread keeps its priority although its work is bulk: it takes the writer lease and the
/// store, which a request may wait for, so a lowered thread holding them on a busy machine
/// would hold up that request too (priority inversion). Its model work yields instead: the
/// embedding batches run as bulk work (`crate::priority`).
pub(super) fn background(w: &Arc<Worker>) {
    loop {
        std::thread::sleep(BACKGROUND_PAUSE);
        if w.stopping.load(Ordering::SeqCst) {
            return;
        }
        if w.engine.store_replaced() {
            left_for_restore(w);
            return;
        }
        // A round in progress keeps the worker from its idle exit: one picture's OCR or one
        // batch of embeddings can take longer than the idle limit on a loaded machine (a test
        // run saw the worker leave mid-queue, pictures pending).
        w.background_busy.store(true, Ordering::SeqCst);
        let round = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| background_round(w)));
        w.background_busy.store(false, Ordering::SeqCst);
        if round.is_err() {
            // The panic's message is already in the log, just above.
            eprintln!("slm worker: background work panicked (a bug); it goes on");
        }
    }
}

/// One round of the background work.
fn background_round(w: &Arc<Worker>) {
    w.questions.step_aside(STEP_ASIDE_MAX);
    // Writes by other processes (an import) are applied here, so the next question
    // does not pay for them.
    let _ = w.engine.catch_up();
    // Pictures waiting for OCR: one at a time (about a second each on 2 idle cores), so a
    // question arriving meanwhile waits at most for that one, never for the queue.
    // Work done here keeps the worker from its idle exit, like a request: a worker that left
    // with pictures waiting for OCR left them pending until some later worker (a CI run saw
    // the worker exit idle mid-queue while a client polled `doctor`, which runs in-process).
    match w.engine.picture_work(PICTURES_PER_ROUND) {
        Ok(0) => {}
        Ok(_) => {
            w.touch();
            w.questions.invalidate();
        }
        Err(e) => eprintln!("slm worker: reading a picture failed: {e}"),
    }
    match w.engine.maintain(BACKGROUND_BATCH) {
        Ok(0) => {}
        Ok(n) => {
            w.touch();
            // Embeddings changed what a recall finds: reused answers are stale.
            w.questions.invalidate();
            eprintln!("slm worker: background embedded/refreshed {n} memories");
        }
        Err(e) => eprintln!("slm worker: background work failed: {e}"),
    }
}
