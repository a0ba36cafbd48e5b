//! One worker connection's frames: a reply written whole (or, when too large to carry, an
//! error that says so), a request read within its deadline, and a connection shut down from
//! another thread. The server (`server.rs`) decides what to answer; this file only moves it.

use super::protocol::{self, WorkerBody, WorkerFrame};
use super::server::FRAME_DEADLINE;
use crate::Error;
use crate::error::RemoteError;
use interprocess::local_socket::{Stream, prelude::*};
use std::time::Instant;

pub(super) fn send(conn: &Stream, body: WorkerBody) -> std::io::Result<()> {
    let mut w = conn;
    let frame = WorkerFrame::new(body);
    let bytes = serde_json::to_vec(&frame).map_err(std::io::Error::other)?;
    if bytes.len() >= protocol::MAX_FRAME {
        // The client would refuse it and think the worker died: say what happened instead.
        let e = Error::Usage(format!(
            "the answer is {} bytes, more than the {} a reply may carry; ask for less (--limit, --depth 0, --max-tokens)",
            bytes.len(),
            protocol::MAX_FRAME
        ));
        return protocol::write_frame(
            &mut w,
            &WorkerFrame::new(WorkerBody::Error {
                error: RemoteError::from(&e),
            }),
        );
    }
    protocol::write_frame(&mut w, &frame)
}

pub(super) fn reply_error(conn: &Stream, e: &Error) -> std::io::Result<()> {
    send(
        conn,
        WorkerBody::Error {
            error: RemoteError::from(e),
        },
    )
}

/// Shut a connection down from another thread: its blocked read returns at once.
pub(super) fn close(conn: &Stream) {
    use std::os::fd::{AsFd, AsRawFd};
    let Stream::UdSocket(s) = conn;
    // SAFETY: shutdown on a descriptor this handle owns; it stays open until the handle drops.
    unsafe {
        libc::shutdown(s.as_fd().as_raw_fd(), libc::SHUT_RDWR);
    }
}

/// Reads that all end by one deadline: the whole frame must arrive within it.
pub(super) struct Deadline<'a> {
    pub(super) conn: &'a Stream,
    pub(super) until: Instant,
}

impl std::io::Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "the request did not arrive whole within {} s",
                    FRAME_DEADLINE.as_secs()
                ),
            ));
        }
        self.conn.set_recv_timeout(Some(left))?;
        let mut c = self.conn;
        c.read(buf)
    }
}
