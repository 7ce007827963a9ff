//! Torn records in the middle of an NDJSON log, anywhere in the file: the
//! whole file is read forward in fixed-size chunks (never held whole, so a
//! 1 GB log costs one chunk and at most one line of memory), and every
//! complete line is checked to parse as JSON.
//!
//! A line is *torn mid-file* when it is not blank, does not parse as JSON
//! (a record cut short by a full disk or a killed writer, then buried by
//! the next append, which starts on a line of its own), and at least one
//! more non-blank line follows it: that record is lost for good, and the
//! readers, which read a log's tail, stop seeing it once it leaves their
//! window. Only JSON syntax is judged here: a line that parses but lacks a
//! format's fields is the readers' business ("skipped").
//!
//! The file's last line without its newline is *not* torn mid-file: an
//! agent may be appending it right now. The readers treat it the same
//! way (skipped, and reported as a torn tail, see [`super::ReverseLines`]);
//! it still counts as a line that follows an earlier broken one.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

use super::{MAX_LINE, is_blank};
use crate::store::{StoreError, open_in};

/// The read step.
pub(crate) const CHUNK: usize = 1024 * 1024;
/// How many torn lines a scan lists by number (all are counted).
pub(crate) const MAX_LISTED: usize = 8;
/// The deepest nesting a line too long to hold is followed to; a deeper one
/// is not judged (the parser would keep a byte per level).
const MAX_DEPTH: usize = 64 * 1024;

/// What a scan of one log found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Torn {
    /// Line numbers (from 1) of the first torn lines, at most
    /// [`MAX_LISTED`].
    pub lines: Vec<u64>,
    /// Every torn line mid-file.
    pub count: u64,
    /// The file ends in a line without its newline (not judged).
    pub unterminated: bool,
    /// The bytes read (the file's length when it was opened).
    pub bytes: u64,
}

/// Scan `relative` inside `project` (a path that leaves the project is
/// refused, as [`crate::store::read_in`] does).
pub(crate) fn scan_in(project: &Path, relative: &str) -> Result<Torn, StoreError> {
    let file = open_in(project, relative)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(StoreError::NotRegular);
    }
    scan(&file, meta.len(), CHUNK, MAX_LINE)
}

/// Scan the first `len` bytes of `file`, `chunk` bytes per read, holding
/// lines of at most `max_line` bytes (a longer one is parsed streaming from
/// the file, in a second read of its bytes).
pub(crate) fn scan(
    file: &File,
    len: u64,
    chunk: usize,
    max_line: usize,
) -> Result<Torn, StoreError> {
    let mut s = Scanner {
        file,
        out: Torn {
            bytes: len,
            ..Torn::default()
        },
        line: Vec::new(),
        long: false,
        start: 0,
        number: 1,
        pending: None,
        max_line,
    };
    let mut buf = vec![0u8; chunk.max(1).min(len as usize)];
    let mut at = 0u64;
    while at < len {
        let n = ((len - at) as usize).min(buf.len());
        read_exact_at(file, &mut buf[..n], at)?;
        s.feed(at, &buf[..n])?;
        at += n as u64;
    }
    // The last bytes, without a newline: a line an agent may be writing.
    if s.long || !s.line.is_empty() {
        s.out.unterminated = true;
        if s.long || !is_blank(&s.line) {
            s.confirm();
        }
    }
    Ok(s.out)
}

struct Scanner<'a> {
    file: &'a File,
    out: Torn,
    /// The bytes of the current line read so far (unless `long`).
    line: Vec<u8>,
    /// The current line is longer than `max_line`: not held.
    long: bool,
    /// The file offset where the current line starts.
    start: u64,
    /// The current line's number.
    number: u64,
    /// The last broken line, torn mid-file once a non-blank line follows.
    pending: Option<u64>,
    max_line: usize,
}

impl Scanner<'_> {
    /// `bytes`, the file's bytes from offset `base` on.
    fn feed(&mut self, base: u64, bytes: &[u8]) -> Result<(), StoreError> {
        let mut at = 0;
        while let Some(i) = bytes[at..].iter().position(|&b| b == b'\n') {
            let piece = &bytes[at..at + i];
            let end = base + (at + i) as u64;
            if self.long {
                self.judge_long(end)?;
            } else if self.line.is_empty() {
                if piece.len() > self.max_line {
                    self.judge_long(end)?;
                } else {
                    self.judge(piece);
                }
            } else if self.line.len() + piece.len() > self.max_line {
                self.judge_long(end)?;
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(piece);
                self.judge(&line);
                line.clear();
                self.line = line;
            }
            at += i + 1;
            self.start = base + at as u64;
            self.number += 1;
            self.long = false;
        }
        let rest = &bytes[at..];
        if !self.long {
            if self.line.len() + rest.len() > self.max_line {
                self.long = true;
                self.line = Vec::new();
            } else {
                self.line.extend_from_slice(rest);
            }
        }
        Ok(())
    }

    fn judge(&mut self, line: &[u8]) {
        if is_blank(line) {
            return;
        }
        self.confirm();
        if serde_json::from_slice::<serde::de::IgnoredAny>(line).is_err() {
            self.pending = Some(self.number);
        }
    }

    /// The current line, too long to hold, ends at `end`: parse it
    /// streaming from the file.
    fn judge_long(&mut self, end: u64) -> Result<(), StoreError> {
        self.confirm();
        let mut guard = Guard::new(BufReader::with_capacity(
            64 * 1024,
            Range {
                file: self.file,
                at: self.start,
                end,
            },
        ));
        let parsed = serde_json::from_reader::<_, serde::de::IgnoredAny>(&mut guard);
        if let Some(e) = guard.failed.take() {
            return Err(StoreError::from(e));
        }
        if parsed.is_err() && !guard.too_deep {
            self.pending = Some(self.number);
        }
        Ok(())
    }

    /// A non-blank line follows: the broken line before it is torn
    /// mid-file.
    fn confirm(&mut self) {
        if let Some(n) = self.pending.take() {
            self.out.count += 1;
            if self.out.lines.len() < MAX_LISTED {
                self.out.lines.push(n);
            }
        }
    }
}

/// The bytes of `file` from `at` to `end`.
struct Range<'a> {
    file: &'a File,
    at: u64,
    end: u64,
}

impl Read for Range<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = ((self.end - self.at) as usize).min(buf.len());
        if n == 0 {
            return Ok(0);
        }
        let got = read_some_at(self.file, &mut buf[..n], self.at)?;
        if got == 0 {
            // The file shrank under us.
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        self.at += got as u64;
        Ok(got)
    }
}

/// `buf.len()` bytes at `at`; a file that shrank under us has vanished
/// (as [`super::ReverseLines`] says).
fn read_exact_at(file: &File, mut buf: &mut [u8], mut at: u64) -> Result<(), StoreError> {
    while !buf.is_empty() {
        match read_some_at(file, buf, at) {
            Ok(0) => return Err(StoreError::Vanished),
            Ok(n) => {
                buf = &mut buf[n..];
                at += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(StoreError::from(e)),
        }
    }
    Ok(())
}

#[cfg(unix)]
fn read_some_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

#[cfg(not(unix))]
fn read_some_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    use std::io::{Seek, SeekFrom};
    let mut f = file;
    f.seek(SeekFrom::Start(at))?;
    f.read(buf)
}

/// A reader that follows the nesting of the JSON it passes on (outside
/// strings) and stops past [`MAX_DEPTH`], so the parser's stack of open
/// brackets stays bounded; an I/O error is kept apart from a parse error.
struct Guard<R> {
    inner: R,
    depth: usize,
    in_string: bool,
    escaped: bool,
    too_deep: bool,
    failed: Option<io::Error>,
}

impl<R: Read> Guard<R> {
    fn new(inner: R) -> Self {
        Guard {
            inner,
            depth: 0,
            in_string: false,
            escaped: false,
            too_deep: false,
            failed: None,
        }
    }
}

impl<R: Read> Read for Guard<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.too_deep {
            return Err(io::Error::other("nested too deep to follow"));
        }
        let n = match self.inner.read(buf) {
            Ok(n) => n,
            Err(e) => {
                let kind = e.kind();
                self.failed = Some(e);
                return Err(kind.into());
            }
        };
        for &b in &buf[..n] {
            if self.in_string {
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'[' | b'{' => self.depth += 1,
                b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
            if self.depth > MAX_DEPTH {
                self.too_deep = true;
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn scan_bytes(bytes: &[u8], chunk: usize, max_line: usize) -> Torn {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log.ndjson");
        fs::write(&p, bytes).unwrap();
        let f = File::open(&p).unwrap();
        scan(&f, bytes.len() as u64, chunk, max_line).unwrap()
    }

    fn torn(lines: &[u64], unterminated: bool, bytes: &[u8]) -> Torn {
        Torn {
            lines: lines.to_vec(),
            count: lines.len() as u64,
            unterminated,
            bytes: bytes.len() as u64,
        }
    }

    #[test]
    fn a_broken_line_followed_by_more_is_torn_at_any_chunk_size() {
        let text = b"{\"a\":1}\n{\"a\":\n{\"a\":2}\n\nnot json\n{\"a\":3}\n";
        for chunk in [1, 2, 3, 7, 64, 1 << 20] {
            assert_eq!(
                scan_bytes(text, chunk, 100),
                torn(&[2, 5], false, text),
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn the_last_line_is_not_torn_mid_file() {
        // A broken last line with its newline: nothing follows it.
        let text = b"{\"a\":1}\n{\"a\":\n";
        assert_eq!(scan_bytes(text, 4, 100), torn(&[], false, text));
        // Followed by blank lines only: still the last record.
        let text = b"{\"a\":1}\n{\"a\":\n\n  \n";
        assert_eq!(scan_bytes(text, 4, 100), torn(&[], false, text));
        // An unterminated last line (a write in progress) is not judged,
        // but it is a line after the broken one.
        let text = b"{\"a\":1}\n{\"a\":\n{\"a\":2";
        assert_eq!(scan_bytes(text, 4, 100), torn(&[2], true, text));
        let text = b"{\"a\":1}\n{\"a\":2";
        assert_eq!(scan_bytes(text, 4, 100), torn(&[], true, text));
        assert_eq!(scan_bytes(b"", 4, 100), torn(&[], false, b""));
    }

    #[test]
    fn crlf_lines_parse() {
        let text = b"{\"a\":1}\r\n{\"a\":2}\r\n";
        assert_eq!(scan_bytes(text, 3, 100), torn(&[], false, text));
    }

    #[test]
    fn lines_too_long_to_hold_are_parsed_streaming() {
        let long = format!("{{\"a\":\"{}\",\"b\":[[1],{{}}]}}", "x\\\"]".repeat(50));
        let cut = &long[..long.len() - 3];
        let text = format!("{long}\n{cut}\n{long}\n{cut}\n{{}}\n");
        for chunk in [1, 5, 64, 4096] {
            assert_eq!(
                scan_bytes(text.as_bytes(), chunk, 16),
                torn(&[2, 4], false, text.as_bytes()),
                "chunk {chunk}"
            );
        }
        // A long unterminated tail is not judged.
        let text = format!("{cut}\n{cut}");
        assert_eq!(
            scan_bytes(text.as_bytes(), 7, 16),
            torn(&[1], true, text.as_bytes())
        );
    }

    #[test]
    fn nesting_too_deep_to_follow_is_not_called_torn() {
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 2), "]".repeat(MAX_DEPTH + 2));
        let text = format!("{deep}\n{{}}\n");
        assert_eq!(
            scan_bytes(text.as_bytes(), 4096, 1024),
            torn(&[], false, text.as_bytes())
        );
    }

    #[test]
    fn many_torn_lines_are_counted_and_the_first_listed() {
        let mut text = Vec::new();
        for _ in 0..20 {
            text.extend_from_slice(b"{\"a\":\n{\"a\":1}\n");
        }
        let t = scan_bytes(&text, 1 << 20, 100);
        assert_eq!(t.count, 20);
        assert_eq!(
            t.lines,
            (0..MAX_LISTED as u64)
                .map(|i| 2 * i + 1)
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn scan_in_stays_in_the_project() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("t.ndjson"), "x\n{}\n").unwrap();
        assert_eq!(scan_in(dir.path(), "t.ndjson").unwrap().lines, vec![1]);
        assert!(matches!(
            scan_in(dir.path(), "../t.ndjson"),
            Err(StoreError::OutsideProject)
        ));
        assert!(matches!(
            scan_in(dir.path(), "missing.ndjson"),
            Err(StoreError::Vanished)
        ));
    }
}
