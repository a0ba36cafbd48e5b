//! The wire format between a client and the worker.
//!
//! One connection carries one exchange: the client writes one frame, the worker answers with
//! one frame, and the connection closes. A frame is one JSON object on one line (`\n`
//! terminated), at most [`MAX_FRAME`] bytes. Every frame carries the program version and the
//! protocol number; a worker that gets a frame from a different version refuses to run it
//! (so a write is never run by the wrong program), answers `version_mismatch` and exits, and
//! the client starts a new worker. A malformed or oversized frame gets an error answer and
//! never takes the worker down.

use crate::error::RemoteError;
use crate::service::{Reply, Request};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Read, Write};

/// Bumped whenever a frame's shape changes incompatibly.
pub const PROTOCOL: u32 = 1;
/// The largest frame either side accepts. A memory is at most `MAX_TEXT_BYTES` (32 KiB) and
/// JSON escaping can grow text up to 6×; 8 MiB covers a depth-2 recall or a long listing with
/// room to spare. A reply that would be larger is sent as an error saying so.
pub const MAX_FRAME: usize = 8 << 20;

pub fn version() -> String {
    // Tests fake an older worker with this (see tests/it/worker.rs).
    std::env::var("SLM_TEST_FAKE_VERSION").unwrap_or_else(|_| env!("CARGO_PKG_VERSION").into())
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ClientFrame {
    pub protocol: u32,
    pub version: String,
    pub body: ClientBody,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ClientBody {
    Request { request: Request },
    Ping,
    Shutdown,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct WorkerFrame {
    pub protocol: u32,
    pub version: String,
    pub pid: u32,
    pub body: WorkerBody,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkerBody {
    Reply {
        reply: Reply,
    },
    Error {
        error: RemoteError,
    },
    Status {
        status: super::server::Status,
    },
    /// The frame came from another version: nothing was run; the worker is exiting.
    VersionMismatch,
    ShuttingDown,
}

impl WorkerFrame {
    pub fn new(body: WorkerBody) -> WorkerFrame {
        WorkerFrame {
            protocol: PROTOCOL,
            version: version(),
            pid: std::process::id(),
            body,
        }
    }
}

/// Why a frame could not be read.
#[derive(Debug)]
pub enum FrameError {
    /// The peer closed before a whole frame arrived.
    Closed,
    TooLarge,
    Malformed(String),
    Io(std::io::Error),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Closed => write!(f, "the connection closed before a whole frame arrived"),
            FrameError::TooLarge => write!(f, "the frame is larger than {MAX_FRAME} bytes"),
            FrameError::Malformed(e) => write!(f, "malformed frame: {e}"),
            FrameError::Io(e) => write!(f, "{e}"),
        }
    }
}

pub fn write_frame<T: Serialize>(w: &mut impl Write, frame: &T) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(frame).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    w.write_all(&bytes)?;
    w.flush()
}

/// Read one `\n`-terminated frame of at most [`MAX_FRAME`] bytes.
pub fn read_frame<T: for<'de> Deserialize<'de>>(r: &mut impl BufRead) -> Result<T, FrameError> {
    let mut buf = Vec::new();
    let n = r
        .take(MAX_FRAME as u64 + 1)
        .read_until(b'\n', &mut buf)
        .map_err(FrameError::Io)?;
    if n == 0 {
        return Err(FrameError::Closed);
    }
    if buf.last() != Some(&b'\n') {
        return Err(if buf.len() > MAX_FRAME {
            FrameError::TooLarge
        } else {
            FrameError::Closed
        });
    }
    serde_json::from_slice(&buf).map_err(|e| FrameError::Malformed(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_bad_ones_are_named() {
        let mut out = Vec::new();
        write_frame(
            &mut out,
            &ClientFrame {
                protocol: PROTOCOL,
                version: "x".into(),
                body: ClientBody::Ping,
            },
        )
        .unwrap();
        let f: ClientFrame = read_frame(&mut &out[..]).unwrap();
        assert!(matches!(f.body, ClientBody::Ping));
        let bad: Result<ClientFrame, _> = read_frame(&mut &b"{nope\n"[..]);
        assert!(matches!(bad, Err(FrameError::Malformed(_))));
        let half: Result<ClientFrame, _> = read_frame(&mut &b"{\"protocol\":1"[..]);
        assert!(matches!(half, Err(FrameError::Closed)));
        let big = vec![b'x'; MAX_FRAME + 10];
        let r: Result<ClientFrame, _> = read_frame(&mut &big[..]);
        assert!(matches!(r, Err(FrameError::TooLarge)));
    }
}
