//! The one HTTP request loopdeck makes: `POST` a small JSON body to the
//! devloop server (`[devloop] api = "http://host:port"`), over plain
//! HTTP/1.1 with `Connection: close`.
//!
//! Hand-rolled rather than a crate: the server the seed describes is a
//! plain-HTTP Express app, so there is no TLS to carry, no redirect, no
//! keep-alive, no streaming; one request line, four headers and a status
//! line is all it takes, with a deadline on connect, write and read and a
//! bound on what is read back. It adds no dependency and no build time.
//! `https://` is refused with a message (put a local proxy in front).
//!
//! A bearer token for the seed's `requireAuth` comes from the environment
//! (`LOOPDECK_DEVLOOP_TOKEN`), never from a file loopdeck writes.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use thiserror::Error;

/// The environment variable holding a bearer token, if the server wants one.
pub const TOKEN_ENV: &str = "LOOPDECK_DEVLOOP_TOKEN";
/// At most this much of the answer is read.
const MAX_RESPONSE: usize = 64 * 1024;

#[derive(Debug, Error)]
pub enum HttpError {
    #[error("`{0}` is not an http://host:port address")]
    BadUrl(String),
    #[error("cannot reach {0}: {1}")]
    Connect(String, std::io::Error),
    #[error("no answer from {0} within {1} s")]
    Timeout(String, u64),
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    #[error("{0} answered something that is not HTTP")]
    NotHttp(String),
}

/// The server's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub reason: String,
    pub body: String,
}

/// An `http://host[:port][/prefix]` address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// `host:port` as written (the `Host` header).
    pub authority: String,
    host: String,
    port: u16,
    /// The path prefix, without a trailing slash (`""` or `/api/devloop`).
    pub prefix: String,
}

impl Base {
    pub fn parse(url: &str) -> Result<Base, HttpError> {
        let bad = || HttpError::BadUrl(url.to_owned());
        let trimmed = url.trim();
        let rest = trimmed
            .strip_prefix("http://")
            .or_else(|| trimmed.strip_prefix("HTTP://"))
            .ok_or_else(bad)?;
        let (authority, prefix) = match rest.find('/') {
            Some(i) => (&rest[..i], rest[i..].trim_end_matches('/')),
            None => (rest, ""),
        };
        if authority.is_empty() || authority.contains('@') || prefix.contains(['?', '#', ' ']) {
            return Err(bad());
        }
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (h, after) = v6.split_once(']').ok_or_else(bad)?;
            let port = match after.strip_prefix(':') {
                Some(p) => p.parse().map_err(|_| bad())?,
                None if after.is_empty() => 80,
                None => return Err(bad()),
            };
            (h.to_owned(), port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h.to_owned(), p.parse().map_err(|_| bad())?),
                None => (authority.to_owned(), 80),
            }
        };
        if host.is_empty() {
            return Err(bad());
        }
        Ok(Base {
            authority: authority.to_owned(),
            host,
            port,
            prefix: prefix.to_owned(),
        })
    }
}

/// `POST {base}{path}` with a JSON `body`, within `timeout` overall.
pub fn post_json(
    base: &Base,
    path: &str,
    body: &[u8],
    token: Option<&str>,
    timeout: Duration,
) -> Result<Response, HttpError> {
    let deadline = Instant::now() + timeout;
    let secs = timeout.as_secs().max(1);
    let who = format!("http://{}", base.authority);
    let addrs: Vec<_> = (base.host.as_str(), base.port)
        .to_socket_addrs()
        .map_err(|e| HttpError::Connect(who.clone(), e))?
        .collect();
    let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "no address");
    let mut stream = None;
    for a in addrs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(HttpError::Timeout(who, secs));
        }
        match TcpStream::connect_timeout(&a, left) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                return Err(HttpError::Timeout(who, secs));
            }
            Err(e) => last = e,
        }
    }
    let mut stream = stream.ok_or_else(|| HttpError::Connect(who.clone(), last))?;
    let mut head = format!(
        "POST {}{path} HTTP/1.1\r\nHost: {}\r\nUser-Agent: loopdeck/{}\r\nAccept: application/json\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        base.prefix,
        base.authority,
        env!("CARGO_PKG_VERSION"),
        body.len()
    );
    if let Some(t) = token.filter(|t| !t.contains(['\r', '\n'])) {
        head.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    head.push_str("\r\n");
    let mut request = head.into_bytes();
    request.extend_from_slice(body);
    let timed = |e: std::io::Error| {
        if matches!(
            e.kind(),
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
        ) {
            HttpError::Timeout(who.clone(), secs)
        } else {
            HttpError::Io(who.clone(), e)
        }
    };
    let left = |d: Instant| {
        let l = d.saturating_duration_since(Instant::now());
        (!l.is_zero()).then_some(l)
    };
    stream.set_write_timeout(left(deadline)).map_err(timed)?;
    stream.write_all(&request).map_err(timed)?;
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        let Some(l) = left(deadline) else {
            return Err(HttpError::Timeout(who, secs));
        };
        stream.set_read_timeout(Some(l)).map_err(timed)?;
        let n = stream.read(&mut buf).map_err(timed)?;
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
        if got.len() >= MAX_RESPONSE || complete(&got) {
            break;
        }
    }
    parse(&got).ok_or(HttpError::NotHttp(who))
}

/// Has the whole answer arrived (headers and `Content-Length` bytes)?
fn complete(got: &[u8]) -> bool {
    let Some(end) = find(got, b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&got[..end]);
    match header(&head, "content-length").and_then(|v| v.parse::<usize>().ok()) {
        Some(n) => got.len() >= end + 4 + n,
        None => false,
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().skip(1).find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

fn parse(got: &[u8]) -> Option<Response> {
    let end = find(got, b"\r\n\r\n");
    let head_bytes = &got[..end.unwrap_or(got.len())];
    let head = String::from_utf8_lossy(head_bytes);
    let status_line = head.lines().next()?;
    let mut parts = status_line.splitn(3, ' ');
    if !parts.next()?.starts_with("HTTP/1.") {
        return None;
    }
    let status: u16 = parts.next()?.parse().ok()?;
    let reason = parts.next().unwrap_or("").trim().to_owned();
    let mut body = end.map_or(&[][..], |e| &got[e + 4..]).to_vec();
    if header(&head, "transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        body = dechunk(&body);
    } else if let Some(n) = header(&head, "content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.truncate(n);
    }
    Some(Response {
        status,
        reason,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = find(b, b"\r\n") {
        let size = String::from_utf8_lossy(&b[..eol]);
        let size = size.split(';').next().unwrap_or("").trim();
        let Ok(n) = usize::from_str_radix(size, 16) else {
            break;
        };
        b = &b[eol + 2..];
        if n == 0 || b.len() < n {
            out.extend_from_slice(&b[..n.min(b.len())]);
            break;
        }
        out.extend_from_slice(&b[..n]);
        b = b.get(n + 2..).unwrap_or(&[]);
    }
    out
}

/// `p-x1` as one path segment (anything but unreserved characters escaped).
pub fn segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn addresses() {
        let b = Base::parse("http://127.0.0.1:8080/").unwrap();
        assert_eq!(
            (b.host.as_str(), b.port, b.prefix.as_str()),
            ("127.0.0.1", 8080, "")
        );
        let b = Base::parse("http://devloop.local/api/devloop/").unwrap();
        assert_eq!((b.port, b.prefix.as_str()), (80, "/api/devloop"));
        let b = Base::parse("http://[::1]:9").unwrap();
        assert_eq!((b.host.as_str(), b.port), ("::1", 9));
        for bad in [
            "https://x",
            "x:1",
            "http://",
            "http://u@h:1",
            "http://h:port",
        ] {
            assert!(Base::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(segment("p-x1/../é"), "p-x1%2F..%2F%C3%A9");
    }

    #[test]
    fn chunked_and_sized_answers() {
        let r = parse(b"HTTP/1.1 409 Conflict\r\nContent-Length: 5\r\n\r\nhelloEXTRA").unwrap();
        assert_eq!(
            (r.status, r.reason.as_str(), r.body.as_str()),
            (409, "Conflict", "hello")
        );
        let r = parse(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
            .unwrap();
        assert_eq!(r.body, "abcde");
        assert!(parse(b"SSH-2.0-OpenSSH\r\n").is_none());
    }

    #[test]
    fn a_server_that_never_answers_times_out() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let t = std::thread::spawn(move || {
            let (s, _) = l.accept().unwrap();
            std::thread::sleep(Duration::from_millis(800));
            drop(s);
        });
        let base = Base::parse(&format!("http://127.0.0.1:{port}")).unwrap();
        let started = Instant::now();
        let e = post_json(&base, "/x", b"{}", None, Duration::from_millis(200)).unwrap_err();
        assert!(matches!(e, HttpError::Timeout(..)), "{e}");
        assert!(started.elapsed() < Duration::from_millis(700));
        t.join().unwrap();
    }

    #[test]
    fn nobody_listening_is_a_connect_error() {
        let port = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let base = Base::parse(&format!("http://127.0.0.1:{port}")).unwrap();
        let e = post_json(&base, "/x", b"{}", None, Duration::from_secs(2)).unwrap_err();
        assert!(matches!(e, HttpError::Connect(..)), "{e}");
    }
}
