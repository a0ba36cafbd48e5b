//! HTTP/1.1 on the wire, as much of it as `GET /recall` needs, with every size bounded
//! before it is read.
//!
//! A request head is read with a cap on the request line ([`MAX_REQUEST_LINE`], else `414`),
//! on the header section ([`MAX_HEADER_BYTES`] and [`MAX_HEADERS`], else `431`) and on the
//! time the whole head may take ([`HEAD_TIMEOUT`]), so nothing is buffered without limit
//! before the token is checked, and a client sending a byte now and then cannot hold a
//! connection. Bodies are never read (only GET is served). Every response closes the
//! connection; after an early refusal the rest of what the client sends is read and thrown
//! away for a moment ([`DRAIN_MAX`], [`DRAIN_TIME`]) so it sees the answer rather than a reset.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The longest request line (method, URL, version). A question is at most 2,048 bytes
/// (`recall::MAX_QUERY_BYTES`), 6,144 percent-encoded; 8 KiB holds that and every other
/// parameter, and is the common server default (nginx's header buffer, Apache's
/// LimitRequestLine).
pub const MAX_REQUEST_LINE: usize = 8 << 10;
/// The most header bytes after the request line: a request needs a token header (~90
/// bytes) and what curl or a client library adds (a few hundred); 16 KiB is Node's default.
pub const MAX_HEADER_BYTES: usize = 16 << 10;
/// The most header lines.
pub const MAX_HEADERS: usize = 64;
/// The whole request head must arrive within this (a client writes it at once).
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// After an early refusal, how much of the rest is read and discarded, and for how long.
pub const DRAIN_MAX: u64 = 4 << 20;
pub const DRAIN_TIME: Duration = Duration::from_secs(1);

/// A request head that was read whole.
#[derive(Debug)]
pub struct Head {
    pub method: String,
    /// The request target as sent: path and query.
    pub target: String,
    pub headers: Vec<(String, String)>,
}

impl Head {
    /// The first header of this name (names are case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Why a head was not read; each maps to the status answered (0: just close).
#[derive(Debug)]
pub enum HeadError {
    /// The request line is longer than [`MAX_REQUEST_LINE`]: 414.
    UriTooLong,
    /// The header section is larger than [`MAX_HEADER_BYTES`] or has more than
    /// [`MAX_HEADERS`] lines: 431.
    HeadersTooLarge,
    /// Not an HTTP/1.x request head: 400.
    Malformed(&'static str),
    /// The head did not arrive within [`HEAD_TIMEOUT`]: 408.
    Timeout,
    /// The client went away: nothing to answer.
    Closed,
}

impl HeadError {
    pub fn status(&self) -> u16 {
        match self {
            HeadError::UriTooLong => 414,
            HeadError::HeadersTooLarge => 431,
            HeadError::Malformed(_) => 400,
            HeadError::Timeout => 408,
            HeadError::Closed => 0,
        }
    }
}

/// A reader whose every read waits at most until one deadline for the whole head.
struct Deadline<'a> {
    conn: &'a TcpStream,
    until: Instant,
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.conn.set_read_timeout(Some(left))?;
        let mut c = self.conn;
        c.read(buf)
    }
}

/// One line of at most `max` bytes (without its end), or None when it is longer.
fn line(r: &mut impl BufRead, max: usize) -> Result<Option<Vec<u8>>, HeadError> {
    let mut buf = Vec::new();
    let n = r
        .take(max as u64 + 2)
        .read_until(b'\n', &mut buf)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => HeadError::Timeout,
            _ => HeadError::Closed,
        })?;
    if n == 0 {
        return Err(HeadError::Closed);
    }
    if buf.last() != Some(&b'\n') {
        return if buf.len() > max {
            Ok(None)
        } else {
            Err(HeadError::Closed)
        };
    }
    buf.pop();
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(buf))
}

/// Read one request head from `conn`, within the caps above.
pub fn read_head(conn: &TcpStream) -> Result<Head, HeadError> {
    let mut r = BufReader::with_capacity(
        4096,
        Deadline {
            conn,
            until: Instant::now() + HEAD_TIMEOUT,
        },
    );
    let first = line(&mut r, MAX_REQUEST_LINE)?.ok_or(HeadError::UriTooLong)?;
    let first = String::from_utf8(first)
        .map_err(|_| HeadError::Malformed("the request line is not UTF-8"))?;
    let mut parts = first.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(HeadError::Malformed(
            "the request line is not METHOD TARGET VERSION",
        ));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(HeadError::Malformed("only HTTP/1.x is served"));
    }
    let mut headers = Vec::new();
    let mut budget = MAX_HEADER_BYTES;
    loop {
        let l = line(&mut r, budget)?.ok_or(HeadError::HeadersTooLarge)?;
        if l.is_empty() {
            break;
        }
        budget = budget.saturating_sub(l.len() + 2);
        if headers.len() >= MAX_HEADERS || budget == 0 {
            return Err(HeadError::HeadersTooLarge);
        }
        let l = String::from_utf8_lossy(&l);
        let Some((k, v)) = l.split_once(':') else {
            return Err(HeadError::Malformed("a header line has no colon"));
        };
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok(Head {
        method: method.to_string(),
        target: target.to_string(),
        headers,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    }
}

/// Write a JSON response and close the connection.
pub fn respond(conn: &TcpStream, status: u16, body: &[u8], retry_after: Option<u64>) {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        reason(status),
        body.len()
    );
    if let Some(s) = retry_after {
        head.push_str(&format!("Retry-After: {s}\r\n"));
    }
    head.push_str("\r\n");
    let _ = conn.set_write_timeout(Some(HEAD_TIMEOUT));
    let mut w = conn;
    let _ = w.write_all(head.as_bytes()).and_then(|_| w.write_all(body));
    let _ = w.flush();
    let _ = conn.shutdown(std::net::Shutdown::Write);
}

/// After refusing a request early: read and discard what the client is still sending, for
/// a moment and up to a bound, so closing does not reset the connection under its answer.
pub fn drain(conn: &TcpStream) {
    let until = Instant::now() + DRAIN_TIME;
    let mut r = Deadline { conn, until }.take(DRAIN_MAX);
    let _ = std::io::copy(&mut r, &mut std::io::sink());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn head_of(bytes: Vec<u8>) -> Result<Head, HeadError> {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let t = std::thread::spawn(move || {
            let mut c = TcpStream::connect(addr).unwrap();
            let _ = c.write_all(&bytes);
            let _ = c.shutdown(std::net::Shutdown::Write);
            let mut sink = Vec::new();
            let _ = c.read_to_end(&mut sink);
        });
        let (c, _) = l.accept().unwrap();
        let h = read_head(&c);
        drop(c);
        t.join().unwrap();
        h
    }

    #[test]
    fn heads_are_read_within_their_caps() {
        let h = head_of(b"GET /recall?q=x HTTP/1.1\r\nauthorization: bearer abc\r\n\r\n".to_vec())
            .unwrap();
        assert_eq!(h.method, "GET");
        assert_eq!(h.target, "/recall?q=x");
        assert_eq!(h.header("Authorization"), Some("bearer abc"));
        let long = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(MAX_REQUEST_LINE));
        assert!(matches!(
            head_of(long.into_bytes()),
            Err(HeadError::UriTooLong)
        ));
        let big = format!(
            "GET / HTTP/1.1\r\nX-Big: {}\r\n\r\n",
            "b".repeat(MAX_HEADER_BYTES)
        );
        assert!(matches!(
            head_of(big.into_bytes()),
            Err(HeadError::HeadersTooLarge)
        ));
        let many = format!(
            "GET / HTTP/1.1\r\n{}\r\n",
            "X-A: 1\r\n".repeat(MAX_HEADERS + 1)
        );
        assert!(matches!(
            head_of(many.into_bytes()),
            Err(HeadError::HeadersTooLarge)
        ));
        assert!(matches!(
            head_of(b"hello\r\n\r\n".to_vec()),
            Err(HeadError::Malformed(_))
        ));
        assert!(matches!(
            head_of(b"GET / HTTP/1.1\r\nX".to_vec()),
            Err(HeadError::Closed)
        ));
    }
}
