//! How the worker answers questions when many callers ask at once.
//!
//! * **Slots.** At most `slots` questions run the full pipeline at a time. A question waits
//!   for a free slot up to [`SLOT_WAIT`]; when every slot is still busy it is answered with
//!   the spec's busy sentence (`RECALL_BUSY`, retryable, exit 75), never a keyword guess.
//! * **Single flight.** Two identical questions at the same moment share one run.
//! * **Answer reuse.** A complete answer is reused for [`CACHE_TTL`], only while nothing is
//!   written: every write through the worker clears the cache at once, and an entry also
//!   carries the store generation it was computed at, so a write by another process (an
//!   import, a cold-path remember) makes it stale too.
//! * **Stepping aside.** [`Questions::running`] tells background work that a question runs.

use crate::error::{RemoteError, poisoned};
use crate::service::Reply;
use crate::{Error, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long a question waits for a free slot (the spec: "up to about twelve seconds").
pub const SLOT_WAIT: Duration = Duration::from_secs(12);
/// How long a complete answer is reused while nothing is written (the spec: 8 seconds).
pub const CACHE_TTL: Duration = Duration::from_secs(8);
/// How often background work looks whether the questions it steps aside for have finished.
/// Chosen, not measured: one atomic load, short next to any question.
const STEP_ASIDE_POLL: Duration = Duration::from_millis(5);
/// Cached answers kept at most (oldest dropped first).
const CACHE_MAX: usize = 256;
/// Environment overrides (tests and operators): slot count and slot wait in milliseconds.
pub const SLOTS_ENV: &str = "SLM_RECALL_SLOTS";
pub const SLOT_WAIT_ENV: &str = "SLM_RECALL_SLOT_WAIT_MS";

/// The default slot count: one question per core (a question's producers already run in
/// parallel, so more slots than cores only makes every answer slower).
pub fn default_slots() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .max(1)
}

type Outcome = std::result::Result<Reply, RemoteError>;

struct Flight {
    done: Mutex<Option<Outcome>>,
    cv: Condvar,
}

struct Cached {
    at: Instant,
    generation: i64,
    reply: Reply,
}

pub struct Questions {
    slots: usize,
    slot_wait: Duration,
    free: Mutex<usize>,
    freed: Condvar,
    flights: Mutex<HashMap<String, Arc<Flight>>>,
    cache: Mutex<HashMap<String, Cached>>,
    running: AtomicUsize,
    waiting: AtomicUsize,
    ran: AtomicUsize,
    joined: AtomicUsize,
    reused: AtomicUsize,
    busy: AtomicUsize,
    /// Mean seconds a question took recently (for the "ask again in N seconds" estimate).
    mean_s: Mutex<f64>,
}

/// What [`Questions::stats`] reports.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct QuestionStats {
    pub slots: usize,
    pub running: usize,
    pub waiting: usize,
    pub cached_answers: usize,
    pub slot_wait_ms: u64,
    /// Questions that ran the pipeline since the worker started.
    pub ran: usize,
    /// Questions that joined an identical run in flight.
    pub joined: usize,
    /// Questions answered from a reused answer.
    pub reused: usize,
    /// Questions answered busy.
    pub busy: usize,
}

impl Questions {
    pub fn new(slots: usize, slot_wait: Duration) -> Questions {
        Questions {
            slots: slots.max(1),
            slot_wait,
            free: Mutex::new(slots.max(1)),
            freed: Condvar::new(),
            flights: Mutex::new(HashMap::new()),
            cache: Mutex::new(HashMap::new()),
            running: AtomicUsize::new(0),
            waiting: AtomicUsize::new(0),
            ran: AtomicUsize::new(0),
            joined: AtomicUsize::new(0),
            reused: AtomicUsize::new(0),
            busy: AtomicUsize::new(0),
            mean_s: Mutex::new(0.5),
        }
    }

    /// Questions running the pipeline right now.
    pub fn running(&self) -> usize {
        self.running.load(Ordering::SeqCst)
    }

    /// Background work steps aside: wait while a question runs, but never longer than `max`
    /// (the spec: twenty seconds). Returns how long it waited.
    pub fn step_aside(&self, max: Duration) -> Duration {
        let t = Instant::now();
        while self.running() > 0 && t.elapsed() < max {
            std::thread::sleep(STEP_ASIDE_POLL);
        }
        t.elapsed()
    }

    pub fn stats(&self) -> QuestionStats {
        QuestionStats {
            slots: self.slots,
            running: self.running(),
            waiting: self.waiting.load(Ordering::SeqCst),
            cached_answers: self.cache.lock().map(|c| c.len()).unwrap_or(0),
            slot_wait_ms: self.slot_wait.as_millis() as u64,
            ran: self.ran.load(Ordering::SeqCst),
            joined: self.joined.load(Ordering::SeqCst),
            reused: self.reused.load(Ordering::SeqCst),
            busy: self.busy.load(Ordering::SeqCst),
        }
    }

    /// A write happened: no answer from before it may be reused.
    pub fn invalidate(&self) {
        if let Ok(mut c) = self.cache.lock() {
            c.clear();
        }
    }

    /// Answer the question `key` (its resolved request, clock left out): from a fresh cached
    /// answer, by joining an identical run in flight, or by running `run` in a free slot.
    /// `generation` reads what the engine can see (the change-log seq it has applied).
    pub fn ask(
        &self,
        key: String,
        generation: impl Fn() -> i64,
        run: impl FnOnce() -> Result<Reply>,
    ) -> Result<Reply> {
        let gen_now = generation();
        if let Some(r) = self.cached(&key, gen_now) {
            self.reused.fetch_add(1, Ordering::SeqCst);
            return Ok(r);
        }
        // Join an identical question in flight, or lead one. Only a run that started at this
        // generation may be joined: one from before a write would answer from before it.
        let flight_key = format!("{gen_now}\u{1f}{key}");
        let (flight, leader) = {
            let mut fl = self.flights.lock().map_err(poisoned(WORKER_LOCK))?;
            match fl.get(&flight_key) {
                Some(f) => (f.clone(), false),
                None => {
                    let f = Arc::new(Flight {
                        done: Mutex::new(None),
                        cv: Condvar::new(),
                    });
                    fl.insert(flight_key.clone(), f.clone());
                    (f, true)
                }
            }
        };
        if !leader {
            self.joined.fetch_add(1, Ordering::SeqCst);
            let mut done = flight.done.lock().map_err(poisoned(WORKER_LOCK))?;
            while done.is_none() {
                done = flight.cv.wait(done).map_err(poisoned(WORKER_LOCK))?;
            }
            return done.clone().expect("checked").map_err(Error::Remote);
        }
        let outcome = self.run_in_slot(&key, gen_now, run);
        if let Ok(mut fl) = self.flights.lock() {
            fl.remove(&flight_key);
        }
        let shared: Outcome = match &outcome {
            Ok(r) => Ok(r.clone()),
            Err(e) => Err(RemoteError::from(e)),
        };
        if let Ok(mut d) = flight.done.lock() {
            *d = Some(shared);
        }
        flight.cv.notify_all();
        outcome
    }

    fn cached(&self, key: &str, gen_now: i64) -> Option<Reply> {
        let c = self.cache.lock().ok()?;
        let e = c.get(key)?;
        (e.at.elapsed() < CACHE_TTL && e.generation == gen_now).then(|| e.reply.clone())
    }

    fn run_in_slot(
        &self,
        key: &str,
        gen_before: i64,
        run: impl FnOnce() -> Result<Reply>,
    ) -> Result<Reply> {
        self.acquire()?;
        self.ran.fetch_add(1, Ordering::SeqCst);
        self.running.fetch_add(1, Ordering::SeqCst);
        let t = Instant::now();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
            .unwrap_or_else(|_| Err(Error::Other("the question panicked in the worker".into())));
        self.running.fetch_sub(1, Ordering::SeqCst);
        self.release();
        if let Ok(mut m) = self.mean_s.lock() {
            *m = 0.8 * *m + 0.2 * t.elapsed().as_secs_f64();
        }
        if let Ok(reply) = &r {
            if let Ok(mut c) = self.cache.lock() {
                if c.len() >= CACHE_MAX {
                    c.retain(|_, e| e.at.elapsed() < CACHE_TTL);
                    if c.len() >= CACHE_MAX {
                        c.clear();
                    }
                }
                // The generation from before the run: a write during it makes this stale.
                c.insert(
                    key.to_string(),
                    Cached {
                        at: Instant::now(),
                        generation: gen_before,
                        reply: reply.clone(),
                    },
                );
            }
        }
        r
    }

    fn acquire(&self) -> Result<()> {
        let deadline = Instant::now() + self.slot_wait;
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let mut free = self.free.lock().map_err(poisoned(WORKER_LOCK))?;
        while *free == 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                self.waiting.fetch_sub(1, Ordering::SeqCst);
                self.busy.fetch_add(1, Ordering::SeqCst);
                return Err(self.busy_error());
            }
            free = self
                .freed
                .wait_timeout(free, left)
                .map_err(poisoned(WORKER_LOCK))?
                .0;
        }
        *free -= 1;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        Ok(())
    }

    fn release(&self) {
        if let Ok(mut f) = self.free.lock() {
            *f += 1;
        }
        self.freed.notify_one();
    }

    /// The spec's busy answer, with an honest estimate of when a slot frees up.
    fn busy_error(&self) -> Error {
        let mean = self.mean_s.lock().map(|m| *m).unwrap_or(1.0);
        let queue = self.running() + self.waiting.load(Ordering::SeqCst);
        let n = ((mean * queue as f64 / self.slots as f64).ceil() as u64).clamp(1, 60);
        Error::Busy {
            message: format!(
                "{} is answering other questions right now. Ask again in about {n} seconds; nothing was lost.",
                crate::PRODUCT_NAME
            ),
            retry_after_s: n,
        }
    }
}

/// What a poisoned worker lock is called in the error.
const WORKER_LOCK: &str = "a worker lock";

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    fn reply(n: usize) -> Reply {
        Reply {
            command: "recall".into(),
            body: serde_json::json!({ "n": n }),
            human: None,
            exit: 0,
        }
    }

    #[test]
    fn identical_questions_share_one_run() {
        let q = Arc::new(Questions::new(2, Duration::from_secs(5)));
        let runs = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let (q, runs) = (q.clone(), runs.clone());
                std::thread::spawn(move || {
                    q.ask(
                        "same".into(),
                        || 1,
                        || {
                            std::thread::sleep(Duration::from_millis(300));
                            Ok(reply(runs.fetch_add(1, Ordering::SeqCst)))
                        },
                    )
                    .unwrap()
                })
            })
            .collect();
        let bodies: Vec<_> = hs.into_iter().map(|h| h.join().unwrap().body).collect();
        assert_eq!(runs.load(Ordering::SeqCst), 1, "one run for four callers");
        assert!(bodies.iter().all(|b| b == &bodies[0]));
    }

    #[test]
    fn answers_are_reused_only_while_nothing_is_written() {
        let q = Questions::new(1, Duration::from_secs(1));
        let runs = AtomicUsize::new(0);
        let ask = |generation: i64| {
            q.ask(
                "k".into(),
                || generation,
                || Ok(reply(runs.fetch_add(1, Ordering::SeqCst))),
            )
            .unwrap()
        };
        ask(7);
        ask(7);
        assert_eq!(runs.load(Ordering::SeqCst), 1, "reused");
        ask(8);
        assert_eq!(runs.load(Ordering::SeqCst), 2, "another process wrote");
        q.invalidate();
        ask(8);
        assert_eq!(runs.load(Ordering::SeqCst), 3, "a write through the worker");
    }

    #[test]
    fn a_question_after_a_write_never_joins_a_run_from_before_it() {
        let q = Arc::new(Questions::new(2, Duration::from_secs(5)));
        let runs = Arc::new(AtomicUsize::new(0));
        let (q2, runs2) = (q.clone(), runs.clone());
        let before = std::thread::spawn(move || {
            q2.ask(
                "same".into(),
                || 1,
                || {
                    std::thread::sleep(Duration::from_millis(400));
                    Ok(reply(runs2.fetch_add(1, Ordering::SeqCst)))
                },
            )
        });
        std::thread::sleep(Duration::from_millis(100));
        // A write moved the generation on while the first run was in flight.
        let after = q.ask(
            "same".into(),
            || 2,
            || Ok(reply(runs.fetch_add(1, Ordering::SeqCst))),
        );
        before.join().unwrap().unwrap();
        assert!(after.is_ok());
        assert_eq!(
            runs.load(Ordering::SeqCst),
            2,
            "the later question ran on its own"
        );
    }

    #[test]
    fn background_work_steps_aside_for_a_question_but_not_forever() {
        let q = Arc::new(Questions::new(1, Duration::from_secs(1)));
        assert!(
            q.step_aside(Duration::from_secs(5)) < Duration::from_millis(100),
            "no question: no wait"
        );
        let q2 = q.clone();
        let asked = std::thread::spawn(move || {
            q2.ask(
                "slow".into(),
                || 1,
                || {
                    std::thread::sleep(Duration::from_millis(800));
                    Ok(reply(0))
                },
            )
        });
        std::thread::sleep(Duration::from_millis(100));
        // Bounded: it gives up waiting at its limit even though the question still runs.
        let waited = q.step_aside(Duration::from_millis(200));
        assert!(
            waited >= Duration::from_millis(200) && q.running() == 1,
            "{waited:?}"
        );
        // Unbounded enough: it waits for the question to finish.
        q.step_aside(Duration::from_secs(10));
        assert_eq!(q.running(), 0);
        asked.join().unwrap().unwrap();
    }

    #[test]
    fn a_full_house_answers_busy() {
        let q = Arc::new(Questions::new(1, Duration::from_millis(100)));
        let q2 = q.clone();
        let slow = std::thread::spawn(move || {
            q2.ask(
                "slow".into(),
                || 1,
                || {
                    std::thread::sleep(Duration::from_millis(600));
                    Ok(reply(0))
                },
            )
        });
        std::thread::sleep(Duration::from_millis(100));
        let e = q.ask("other".into(), || 1, || Ok(reply(1))).unwrap_err();
        assert_eq!(e.exit_code(), crate::error::EXIT_BUSY);
        assert_eq!(e.code(), "RECALL_BUSY");
        assert!(
            e.to_string()
                .contains("is answering other questions right now. Ask again in about")
        );
        assert!(e.to_string().ends_with("nothing was lost."));
        slow.join().unwrap().unwrap();
        // The slot is free again.
        q.ask("other".into(), || 1, || Ok(reply(2))).unwrap();
    }
}
