//! One exchange with the worker on its socket, and what can go wrong with the transport
//! (never an answer from the worker).

use crate::worker::protocol::{self, ClientBody, ClientFrame, WorkerBody, WorkerFrame};
use crate::worker::runtime_dir::WorkerFiles;
use interprocess::local_socket::{Stream, prelude::*};
use std::io::BufReader;
use std::time::Duration;

/// How long handing a request frame to the socket may take: the largest frame (8 MiB) takes
/// milliseconds on a local socket, and the worker reads it at once. Chosen, not measured.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// A transport failure (never an answer from the worker).
#[derive(Debug)]
pub(super) enum Transport {
    /// No socket, or nobody listening on it (stale).
    NotRunning { stale: bool },
    /// The request could not be handed over: the worker did not get it.
    NotSent(String),
    /// The worker is another version; it ran nothing and is leaving.
    Mismatch,
    /// The request was sent, then the connection broke or timed out: it may have run.
    Lost(String),
    /// Something that is not our worker listens on the socket: nothing was sent to it.
    Refused(String),
}

/// Hand `body` to a running worker without waiting for its answer: `Ok(false)` when none
/// listens. For a request whose effect is already safe on disk (a capture in the spool), so
/// the caller never waits for the worker's threads on a machine busy with its model.
pub(super) fn hand_over(
    files: &WorkerFiles,
    body: ClientBody,
) -> std::result::Result<bool, Transport> {
    let conn = match connect(files) {
        Ok(c) => c,
        Err(Transport::NotRunning { .. }) => return Ok(false),
        Err(t) => return Err(t),
    };
    send(&conn, body)?;
    Ok(true)
}

/// Connect to the worker's socket and check, before a byte leaves, that the listener is us.
fn connect(files: &WorkerFiles) -> std::result::Result<Stream, Transport> {
    let conn = Stream::connect(
        crate::worker::server::name(files).map_err(|e| Transport::NotSent(e.to_string()))?,
    )
    .map_err(|e| Transport::NotRunning {
        stale: e.kind() == std::io::ErrorKind::ConnectionRefused,
    })?;
    if let Err(e) = crate::worker::runtime_dir::check_peer(&conn) {
        return Err(Transport::Refused(e.to_string()));
    }
    let _ = conn.set_send_timeout(Some(SEND_TIMEOUT));
    Ok(conn)
}

/// Write one request frame. A frame that did not get out whole is never run (the worker
/// needs its newline).
fn send(conn: &Stream, body: ClientBody) -> std::result::Result<(), Transport> {
    let frame = ClientFrame {
        protocol: protocol::PROTOCOL,
        version: protocol::version(),
        body,
    };
    let mut w = conn;
    protocol::write_frame(&mut w, &frame).map_err(|e| Transport::NotSent(e.to_string()))
}

pub(super) fn exchange(
    files: &WorkerFiles,
    body: ClientBody,
    timeout: Duration,
) -> std::result::Result<WorkerFrame, Transport> {
    let conn = connect(files)?;
    let _ = conn.set_recv_timeout(Some(timeout));
    send(&conn, body)?;
    let reply: WorkerFrame = protocol::read_frame(&mut BufReader::new(&conn))
        .map_err(|e| Transport::Lost(e.to_string()))?;
    if reply.protocol != protocol::PROTOCOL
        || reply.version != protocol::version()
        || matches!(reply.body, WorkerBody::VersionMismatch)
    {
        return Err(Transport::Mismatch);
    }
    Ok(reply)
}
