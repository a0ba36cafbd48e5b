//! Bulk work yields the cores to the person and their agent.
//!
//! An import or the background queue embeds memories on every core for minutes; a capture
//! hook, a recall or the user's own programs that start meanwhile must not queue behind it.
//! The threads that do bulk work lower their own scheduling priority (raise their nice
//! value). They still take every idle cycle, so an import on an otherwise idle machine runs
//! as before; only when something else wants a core does a bulk thread give way.
//!
//! Only bulk threads are lowered, never the worker as a whole: a recall's own thread and the
//! ONNX Runtime pool threads it shares keep their priority. An unprivileged thread cannot
//! take back a priority it gave up, so only threads that do nothing else are lowered: the
//! scoped threads `embed::graph` runs a text list's batches on when the caller said the work
//! is bulk ([`bulk_scope`]: the memory side of writes, i.e. imports, and of the backlogs).
//! They hold no lock while the model runs. A thread that takes the writer lease or the store
//! (the worker's background thread) is not lowered: on a busy machine a request waiting for
//! that lock would wait for the lowered thread too (priority inversion).

use std::cell::Cell;

thread_local! {
    /// Whether this thread's embedding work is bulk (see [`bulk_scope`]).
    static BULK: Cell<bool> = const { Cell::new(false) };
}

/// Marks the embedding work this thread does until the guard drops as bulk: the threads it
/// hands batches to lower themselves. The calling thread itself keeps its priority (it may
/// serve a request next).
pub fn bulk_scope() -> BulkScope {
    BulkScope(BULK.with(|b| b.replace(true)))
}

/// Guard of [`bulk_scope`]; dropping it restores what the thread was doing before.
pub struct BulkScope(bool);

impl Drop for BulkScope {
    fn drop(&mut self) {
        BULK.with(|b| b.set(self.0));
    }
}

/// Whether the calling thread is doing bulk work ([`bulk_scope`], or a thread lowered by
/// [`lower_this_thread`]).
pub fn in_bulk() -> bool {
    BULK.with(Cell::get)
}

/// The nice value bulk threads take (0 is normal, 19 the lowest).
///
/// Origin: `slm bench hooks --memories 1500` on 2 cores (a capture hook every 100 ms while
/// the worker imports), `docs/measurements.md`: the hook's p99 fell from 68 ms to 34 ms in
/// one window (32 ms at 3,000 memories).
/// At 10 a nice-0 thread gets about nine tenths of a core it shares with a bulk thread (the
/// kernel's weights 1024 against 110); 19 measured no better (a 300-memory import in a
/// scratch harness: p99 34.8 ms at 19, 29.6–36.9 ms in three runs at 10).
pub const BULK_NICE: i32 = 10;

/// Environment variable that replaces [`BULK_NICE`] (0 measures the old behaviour in the
/// same window, for `slm bench hooks`).
pub const BULK_NICE_ENV: &str = "SLM_BULK_NICE";

/// The nice value bulk threads take here: [`BULK_NICE_ENV`] if set to a number from 0 to 19.
pub fn bulk_nice() -> i32 {
    nice_from(std::env::var(BULK_NICE_ENV).ok().as_deref())
}

fn nice_from(v: Option<&str>) -> i32 {
    v.and_then(|v| v.trim().parse::<i32>().ok())
        .filter(|n| (0..=19).contains(n))
        .unwrap_or(BULK_NICE)
}

/// Lower the calling thread (only it, not the process) to [`bulk_nice`]. Never raises a
/// priority: a thread already nicer stays as it is. Best effort: on other systems, or if
/// the kernel refuses, the thread keeps its priority.
pub fn lower_this_thread() {
    BULK.with(|b| b.set(true));
    #[cfg(target_os = "linux")]
    {
        let want = bulk_nice();
        if this_thread_nice().is_some_and(|now| now < want) {
            // SAFETY: a plain syscall on the calling thread's own id; no memory is shared.
            unsafe {
                let _ = libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, want);
            }
        }
    }
}

/// The calling thread's nice value (Linux; `None` elsewhere or on error).
pub fn this_thread_nice() -> Option<i32> {
    #[cfg(target_os = "linux")]
    {
        // getpriority returns -1 both for nice -1 and for an error: errno tells them apart.
        // SAFETY: plain syscalls on the calling thread's own id and its errno.
        unsafe {
            *libc::__errno_location() = 0;
            let n = libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t);
            if n == -1 && *libc::__errno_location() != 0 {
                return None;
            }
            Some(n)
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn only_the_calling_thread_is_lowered_and_never_raised() {
        let before = this_thread_nice().expect("getpriority");
        let lowered = std::thread::spawn(|| {
            let start = this_thread_nice().expect("getpriority");
            lower_this_thread();
            let once = this_thread_nice().expect("getpriority");
            // A second call changes nothing (never raises back, never lowers further).
            lower_this_thread();
            (start, once, this_thread_nice().expect("getpriority"))
        })
        .join()
        .unwrap();
        let (start, once, twice) = lowered;
        assert_eq!(once, start.max(bulk_nice()));
        assert_eq!(twice, once);
        // The process's other threads keep their priority.
        assert_eq!(this_thread_nice(), Some(before));
        let sibling = std::thread::spawn(this_thread_nice).join().unwrap();
        assert_eq!(sibling, Some(before));
    }

    #[test]
    fn a_bulk_scope_marks_only_its_thread_and_only_while_it_lasts() {
        assert!(!in_bulk());
        {
            let _outer = bulk_scope();
            assert!(in_bulk());
            {
                let _inner = bulk_scope();
                assert!(in_bulk());
            }
            // The inner guard gives back the outer one's state, not "not bulk".
            assert!(in_bulk());
            assert!(!std::thread::spawn(in_bulk).join().unwrap());
        }
        assert!(!in_bulk());
    }

    #[test]
    fn the_override_takes_only_nice_values() {
        assert_eq!(nice_from(None), BULK_NICE);
        assert_eq!(nice_from(Some(" 0 ")), 0);
        assert_eq!(nice_from(Some("19")), 19);
        for bad in ["-5", "20", "ten", ""] {
            assert_eq!(nice_from(Some(bad)), BULK_NICE, "{bad:?}");
        }
    }
}
