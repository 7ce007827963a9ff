//! The one HTTP request loopdeck makes: `POST` a small JSON body to the
//! devloop server (`[devloop] api = "http://host:port"`), over HTTP/1.1
//! with `Connection: close`.
//!
//! The exchange is `ureq`'s (no default features: no TLS, no compression,
//! no cookies); this module says what loopdeck asks of it: one deadline for
//! the whole request (resolve, connect, write, read), no redirect followed
//! (a 3xx is an answer like any other), no proxy from the environment, 4xx
//! and 5xx returned as answers, and at most `MAX_RESPONSE` (64 KiB) of the
//! body read. The server the seed describes is a plain-HTTP Express app:
//! `https://` is refused with a message (put a local proxy in front), unless
//! loopdeck was built with the `tls` feature (ureq's rustls, off by default).
//!
//! A bearer token for the seed's `requireAuth` comes from the environment
//! (`LOOPDECK_DEVLOOP_TOKEN`), never from a file loopdeck writes.

use std::io::{ErrorKind, Read};
use std::time::Duration;

use thiserror::Error;

/// The environment variable holding a bearer token, if the server wants one.
pub(crate) const TOKEN_ENV: &str = "LOOPDECK_DEVLOOP_TOKEN";
/// At most this much of the answer's body is read.
const MAX_RESPONSE: u64 = 64 * 1024;

#[derive(Debug, Error)]
pub(crate) enum HttpError {
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
pub(crate) struct Response {
    pub status: u16,
    /// The status code's standard reason phrase (`Conflict` for 409).
    pub reason: String,
    pub body: String,
}

/// An `http://host[:port][/prefix]` address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Base {
    /// `host:port` as written (the `Host` header).
    pub authority: String,
    host: String,
    port: u16,
    /// The path prefix, without a trailing slash (`""` or `/api/devloop`).
    pub prefix: String,
    /// `http` (or, built with the `tls` feature, `https`).
    scheme: &'static str,
}

impl Base {
    pub(crate) fn parse(url: &str) -> Result<Base, HttpError> {
        let bad = || HttpError::BadUrl(url.to_owned());
        let trimmed = url.trim();
        let after = |scheme: &str| {
            let n = scheme.len();
            (trimmed.get(..n)?.eq_ignore_ascii_case(scheme)).then(|| &trimmed[n..])
        };
        let (scheme, default_port, rest) = match after("http://") {
            Some(rest) => ("http", 80, rest),
            // TLS only when asked for at build time (`--features tls`).
            None if cfg!(feature = "tls") => ("https", 443, after("https://").ok_or_else(bad)?),
            None => return Err(bad()),
        };
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
                None if after.is_empty() => default_port,
                None => return Err(bad()),
            };
            (h.to_owned(), port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h.to_owned(), p.parse().map_err(|_| bad())?),
                None => (authority.to_owned(), default_port),
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
            scheme,
        })
    }
}

/// `POST {base}{path}` with a JSON `body`, within `timeout` overall.
pub(crate) fn post_json(
    base: &Base,
    path: &str,
    body: &[u8],
    token: Option<&str>,
    timeout: Duration,
) -> Result<Response, HttpError> {
    let who = format!("{}://{}", base.scheme, base.authority);
    let secs = timeout.as_secs().max(1);
    let host = if base.host.contains(':') {
        format!("[{}]", base.host)
    } else {
        base.host.clone()
    };
    let url = format!(
        "{}://{host}:{}{}{path}",
        base.scheme, base.port, base.prefix
    );
    if url.parse::<ureq::http::Uri>().is_err() {
        return Err(HttpError::BadUrl(format!("{who}{}", base.prefix)));
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_redirects(0)
        .max_redirects_will_error(false)
        .proxy(None)
        .build()
        .into();
    // The headers as loopdeck has always written them, names cased as
    // here (ureq adds none of its own when these are set).
    let user_agent = format!("loopdeck/{}", env!("CARGO_PKG_VERSION"));
    let mut request = agent
        .post(&url)
        .header_raw("Host", base.authority.as_bytes())
        .header_raw("User-Agent", user_agent.as_bytes())
        .header_raw("Accept", b"application/json")
        .header_raw("Content-Type", b"application/json")
        .header_raw("Content-Length", body.len().to_string().as_bytes())
        .header_raw("Connection", b"close");
    if let Some(t) = token.filter(|t| !t.contains(['\r', '\n'])) {
        request = request.header_raw("Authorization", format!("Bearer {t}").as_bytes());
    }
    let mut answer = request.send(body).map_err(|e| failed(e, &who, secs))?;
    let status = answer.status();
    let mut got = Vec::new();
    let read = answer
        .body_mut()
        .as_reader()
        .take(MAX_RESPONSE)
        .read_to_end(&mut got);
    // A body cut short: the status stands, with what did arrive; only a
    // deadline that passed while reading it is an error.
    if let Err(e) = read
        && let timeout @ HttpError::Timeout(..) = failed(ureq::Error::from(e), &who, secs)
    {
        return Err(timeout);
    }
    Ok(Response {
        status: status.as_u16(),
        reason: status.canonical_reason().unwrap_or_default().to_owned(),
        body: String::from_utf8_lossy(&got).into_owned(),
    })
}

/// What went wrong, in loopdeck's words: the deadline passed; the server
/// could not be reached (resolving or connecting); the exchange broke
/// after it began; or what came back was not HTTP.
fn failed(e: ureq::Error, who: &str, secs: u64) -> HttpError {
    let who = who.to_owned();
    match e {
        ureq::Error::Timeout(_) => HttpError::Timeout(who, secs),
        ureq::Error::Io(e) if matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock) => {
            HttpError::Timeout(who, secs)
        }
        ureq::Error::Io(e)
            if matches!(
                e.kind(),
                ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
                    | ErrorKind::BrokenPipe
                    | ErrorKind::UnexpectedEof
                    | ErrorKind::WriteZero
                    | ErrorKind::Interrupted
            ) =>
        {
            HttpError::Io(who, e)
        }
        // Refused, unreachable, a name that does not resolve.
        ureq::Error::Io(e) => HttpError::Connect(who, e),
        ureq::Error::HostNotFound => HttpError::Connect(
            who,
            std::io::Error::new(ErrorKind::NotFound, "no address for this host"),
        ),
        ureq::Error::ConnectionFailed => HttpError::Connect(who, std::io::Error::other(e)),
        ureq::Error::Protocol(_) | ureq::Error::LargeResponseHeader(..) => HttpError::NotHttp(who),
        other => HttpError::Io(who, std::io::Error::other(other)),
    }
}

/// `p-x1` as one path segment (anything but unreserved characters escaped).
pub(crate) fn segment(s: &str) -> String {
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
    use std::io::Write;
    use std::net::TcpListener;
    use std::time::Instant;

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
        #[cfg(not(feature = "tls"))]
        assert!(Base::parse("https://x").is_err());
        #[cfg(feature = "tls")]
        assert_eq!(Base::parse("https://x").unwrap().port, 443);
        for bad in ["x:1", "http://", "http://u@h:1", "http://h:port"] {
            assert!(Base::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(segment("p-x1/../é"), "p-x1%2F..%2F%C3%A9");
    }

    /// A one-connection server that reads the request and answers `raw`.
    fn answering(raw: &'static [u8]) -> (Base, std::thread::JoinHandle<()>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let t = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            // The request ends with its 2-byte body `{}`.
            while !got.ends_with(b"\r\n\r\n{}") {
                let n = s.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
            }
            s.write_all(raw).unwrap();
        });
        let base = Base::parse(&format!("http://127.0.0.1:{port}")).unwrap();
        (base, t)
    }

    #[test]
    fn chunked_and_sized_answers() {
        let post = |raw: &'static [u8]| {
            let (base, t) = answering(raw);
            let r = post_json(&base, "/x", b"{}", None, Duration::from_secs(5));
            t.join().unwrap();
            r
        };
        let r = post(b"HTTP/1.1 409 Conflict\r\nContent-Length: 5\r\n\r\nhelloEXTRA").unwrap();
        assert_eq!(
            (r.status, r.reason.as_str(), r.body.as_str()),
            (409, "Conflict", "hello")
        );
        let r = post(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
            .unwrap();
        assert_eq!(r.body, "abcde");
        let e = post(b"SSH-2.0-OpenSSH\r\n").unwrap_err();
        assert!(matches!(e, HttpError::NotHttp(..)), "{e}");
    }

    #[test]
    fn the_body_read_is_bounded() {
        // A body without a length, never ending: at most MAX_RESPONSE bytes.
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let t = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
            let chunk = [b'x'; 8192];
            // Until the client hangs up.
            while s.write_all(&chunk).is_ok() {}
        });
        let base = Base::parse(&format!("http://127.0.0.1:{port}")).unwrap();
        let r = post_json(&base, "/x", b"{}", None, Duration::from_secs(5)).unwrap();
        assert_eq!(r.body.len() as u64, MAX_RESPONSE);
        t.join().unwrap();
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
