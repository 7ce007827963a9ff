//! NDJSON files: reading lines backwards from the end, so the cost of a tail
//! does not grow with the file; scanning a whole file from its end (the
//! latest line of a record first); appending one whole line.
//!
//! A last line without its newline is *torn*: a writer is in the middle of
//! it, or died there. Readers skip it. [`append_line`] starts its line with
//! a newline when the file does not end in one, so a torn tail never
//! swallows the next record (ARCHITECTURE.md, rule 5 of every write).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::beneath::Dir;
#[cfg(any(test, feature = "testing"))]
use super::open_nonblocking;
use super::{StoreError, open_in};

mod check;
pub(crate) mod incremental;
#[cfg(test)]
mod keyset;
mod scan;
pub(crate) mod torn;
#[cfg(test)]
use keyset::KeySet;
pub(crate) use scan::top_level_str;

/// How much is read per step when walking a file backwards.
pub(crate) const CHUNK: usize = 256 * 1024;

/// The longest line [`ReverseLines`] buffers; a longer one is reported as
/// [`RevLine::TooLong`] and never held in memory.
pub(crate) const MAX_LINE: usize = 4 * 1024 * 1024;

testing_pub!(
    /// One line met walking backwards.
    #[derive(Debug, PartialEq, Eq)]
    pub enum RevLine<'a> {
        /// A complete line, without its newline.
        Line(&'a [u8]),
        /// A line longer than the limit (its length in bytes); it was skipped.
        TooLong(u64),
    }
);

testing_pub!(
    /// The complete lines of a file, last line first, read in fixed-size chunks
    /// from the end. At most `max_bytes` are read, so a tail costs the same
    /// whatever the size of the file.
    pub struct ReverseLines {
        file: File,
        /// File offset of `buf[0]`.
        start: u64,
        buf: Vec<u8>,
        /// The other buffer, reused by the next step.
        spare: Vec<u8>,
        /// The bytes not yet returned are `buf[..end]`; the byte just after them
        /// in the file is a newline already accounted for (or the torn tail).
        end: usize,
        chunk: usize,
        max_line: usize,
        /// Bytes that may still be read.
        budget: u64,
        bytes_read: u64,
        len: u64,
        torn: bool,
        /// The budget ran out before the start of the file was reached.
        cut: bool,
        started: bool,
        done: bool,
    }
);

impl ReverseLines {
    testing_pub!(
        #[cfg(any(test, feature = "testing"))]
        /// Walk the regular file at `path` backwards (the caller has checked
        /// containment, as for [`super::read_bounded`]).
        pub fn open(path: &Path, max_bytes: u64) -> Result<Self, StoreError> {
            Self::new(open_nonblocking(path, false)?, max_bytes)
        }
    );

    /// Walk the file at `relative` inside `project` backwards; a path that
    /// leaves the project is refused, as [`super::read_in`] does.
    pub(crate) fn open_in(
        project: &Path,
        relative: &str,
        max_bytes: u64,
    ) -> Result<Self, StoreError> {
        Self::new(open_in(project, relative)?, max_bytes)
    }

    fn new(file: File, max_bytes: u64) -> Result<Self, StoreError> {
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(StoreError::NotRegular);
        }
        let len = meta.len();
        Ok(ReverseLines {
            file,
            start: len,
            buf: Vec::new(),
            spare: Vec::new(),
            end: 0,
            chunk: CHUNK,
            max_line: MAX_LINE,
            budget: max_bytes,
            bytes_read: 0,
            len,
            torn: false,
            cut: false,
            started: false,
            done: len == 0,
        })
    }

    testing_pub!(
        /// Read `chunk` bytes per step (tests use tiny chunks).
        pub fn with_chunk(mut self, chunk: usize) -> Self {
            self.chunk = chunk.max(1);
            self
        }
    );

    testing_pub!(
        #[cfg(any(test, feature = "testing"))]
        /// Skip lines longer than `max_line` bytes.
        pub fn with_max_line(mut self, max_line: usize) -> Self {
            self.max_line = max_line.max(1);
            self
        }
    );

    testing_pub!(
        /// Did the file end in a line without its newline (skipped)?
        pub fn torn(&self) -> bool {
            self.torn
        }
    );

    testing_pub!(
        #[cfg(any(test, feature = "testing"))]
        /// Did the byte budget run out before the start of the file?
        pub fn cut(&self) -> bool {
            self.cut
        }
    );

    pub(crate) fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// The size of the file when it was opened; bytes appended later are
    /// not read.
    pub(crate) fn file_len(&self) -> u64 {
        self.len
    }

    /// Prepend the previous chunk of the file to `buf[..end]`. Returns false
    /// at the start of the file or when the budget is spent.
    fn refill(&mut self, keep: bool) -> Result<bool, StoreError> {
        if self.start == 0 {
            return Ok(false);
        }
        if self.budget == 0 {
            self.cut = true;
            return Ok(false);
        }
        // Grow the step with the pending bytes, so a long line costs a
        // linear amount of copying, not a quadratic one.
        let kept = if keep { self.end } else { 0 };
        let want = (self.chunk.max(kept) as u64)
            .min(self.start)
            .min(self.budget);
        let n = want as usize;
        let from = self.start - want;
        // Two buffers, swapped on each step: after the first steps no
        // memory is allocated or zeroed again, however long the file.
        let mut fresh = std::mem::take(&mut self.spare);
        fresh.resize(n, 0);
        read_exact_at(&mut self.file, &mut fresh, from).map_err(|e| {
            if e.kind() == io::ErrorKind::UnexpectedEof {
                // The file shrank under us (truncated or replaced).
                StoreError::Vanished
            } else {
                StoreError::from(e)
            }
        })?;
        fresh.extend_from_slice(&self.buf[..kept]);
        self.spare = std::mem::replace(&mut self.buf, fresh);
        self.end = n + kept;
        self.start = from;
        self.budget -= want;
        self.bytes_read += want;
        Ok(true)
    }

    /// Find the end of the last complete line: skip the torn tail, if any.
    fn begin(&mut self) -> Result<(), StoreError> {
        self.started = true;
        if !self.refill(false)? {
            self.done = true;
            return Ok(());
        }
        if self.buf.last() == Some(&b'\n') {
            self.end -= 1;
            return Ok(());
        }
        self.torn = true;
        loop {
            if let Some(i) = memrchr_newline(&self.buf[..self.end]) {
                self.end = i;
                return Ok(());
            }
            // The torn line is never needed: drop what was read of it.
            self.end = 0;
            if !self.refill(false)? {
                self.done = true;
                return Ok(());
            }
        }
    }

    testing_pub!(
        /// The previous complete line, or `None` at the start of the file (or
        /// when the byte budget is spent).
        pub fn next_line(&mut self) -> Result<Option<RevLine<'_>>, StoreError> {
            if !self.started {
                self.begin()?;
            }
            if self.done {
                return Ok(None);
            }
            let mut skipped: Option<u64> = None;
            loop {
                if let Some(i) = memrchr_newline(&self.buf[..self.end]) {
                    let end = self.end;
                    self.end = i;
                    let len = (end - i - 1) as u64;
                    return Ok(Some(match skipped {
                        Some(n) => RevLine::TooLong(n + len),
                        None if len > self.max_line as u64 => RevLine::TooLong(len),
                        None => RevLine::Line(&self.buf[i + 1..end]),
                    }));
                }
                if skipped.is_none() && self.end > self.max_line {
                    skipped = Some(0);
                }
                if let Some(n) = skipped.as_mut() {
                    *n += self.end as u64;
                    self.end = 0;
                }
                let keep = skipped.is_none();
                if !self.refill(keep)? {
                    self.done = true;
                    if self.start == 0 && !self.cut {
                        // The first line of the file.
                        let end = self.end;
                        return Ok(Some(match skipped {
                            Some(n) => RevLine::TooLong(n + end as u64),
                            None if end > self.max_line => RevLine::TooLong(end as u64),
                            None => RevLine::Line(&self.buf[..end]),
                        }));
                    }
                    // Cut by the budget: the line's start was never read.
                    return Ok(None);
                }
            }
        }
    );
}

/// The last `max_items` lines that `parse` accepts, oldest first, reading at
/// most `max_bytes` from the end. Blank lines are ignored; lines `parse`
/// refuses (and lines too long to hold) are counted in `skipped`.
pub(crate) struct Tail<T> {
    pub items: Vec<T>,
    pub skipped: usize,
    /// The file ended in a line without its newline; it was ignored.
    pub torn: bool,
}

/// A [`Tail`] with what the walk that read it saw, for the tests of the
/// bounds (read through to the tail's own fields).
#[cfg(test)]
pub(crate) struct Walked<T> {
    tail: Tail<T>,
    /// Every line of the file was seen (false when `max_items` or the byte
    /// budget stopped the walk first).
    pub complete: bool,
    /// Bytes read from the file's end.
    pub bytes_read: u64,
}

#[cfg(test)]
impl<T> std::ops::Deref for Walked<T> {
    type Target = Tail<T>;

    fn deref(&self) -> &Tail<T> {
        &self.tail
    }
}

#[cfg(test)]
/// [`collect_tail`], and what the walk saw.
fn walked<T>(
    mut lines: ReverseLines,
    max_items: usize,
    parse: impl FnMut(&[u8]) -> Option<T>,
) -> Result<Walked<T>, StoreError> {
    let tail = collect_from(&mut lines, max_items, parse)?;
    Ok(Walked {
        tail,
        complete: lines.done && !lines.cut(),
        bytes_read: lines.bytes_read(),
    })
}

#[cfg(unix)]
fn read_exact_at(file: &mut File, buf: &mut [u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(not(unix))]
fn read_exact_at(file: &mut File, buf: &mut [u8], at: u64) -> io::Result<()> {
    file.seek(SeekFrom::Start(at))?;
    file.read_exact(buf)
}

#[cfg(test)]
/// [`Tail`] of the file at `relative` inside `project`.
pub(crate) fn tail_in<T>(
    project: &Path,
    relative: &str,
    max_items: usize,
    max_bytes: u64,
    parse: impl FnMut(&[u8]) -> Option<T>,
) -> Result<Walked<T>, StoreError> {
    walked(
        ReverseLines::open_in(project, relative, max_bytes)?,
        max_items,
        parse,
    )
}

#[cfg(test)]
/// The last `max_lines` non-blank lines of the file at `path` (oldest
/// first), reading at most `max_bytes` from its end.
pub(crate) fn tail(path: &Path, max_lines: usize, max_bytes: u64) -> Result<Walked<Vec<u8>>, StoreError> {
    walked(ReverseLines::open(path, max_bytes)?, max_lines, |l| {
        Some(l.to_vec())
    })
}

/// Collect from an open [`ReverseLines`].
pub(crate) fn collect_tail<T>(
    mut lines: ReverseLines,
    max_items: usize,
    parse: impl FnMut(&[u8]) -> Option<T>,
) -> Result<Tail<T>, StoreError> {
    collect_from(&mut lines, max_items, parse)
}

fn collect_from<T>(
    lines: &mut ReverseLines,
    max_items: usize,
    mut parse: impl FnMut(&[u8]) -> Option<T>,
) -> Result<Tail<T>, StoreError> {
    let mut items = Vec::new();
    let mut skipped = 0;
    while items.len() < max_items {
        match lines.next_line()? {
            None => break,
            Some(RevLine::TooLong(_)) => skipped += 1,
            Some(RevLine::Line(l)) if is_blank(l) => {}
            Some(RevLine::Line(l)) => match parse(l) {
                Some(t) => items.push(t),
                None => skipped += 1,
            },
        }
    }
    items.reverse();
    Ok(Tail {
        items,
        skipped,
        torn: lines.torn(),
    })
}

#[cfg(test)]
/// What a scan by key does with the newest line of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Latest {
    /// The line is unusable: count it, and try the key's next older line.
    Reject,
    /// The line is the key's state; older lines of the key are skipped.
    Accept,
    /// The line is the key's state, and the older lines of the key are
    /// wanted too (passed to `older`, newest first).
    AcceptWithHistory,
}

#[cfg(test)]
/// How a scan by key went.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Scan {
    pub lines: u64,
    /// Lines without the key, too long to hold, or rejected.
    pub skipped: usize,
    pub torn: bool,
    /// Distinct keys accepted.
    pub keys: usize,
}

#[cfg(test)]
/// What a scan by key does with the lines it meets.
pub(crate) trait KeyVisitor {
    /// The newest line of `key` (and, after a [`Latest::Reject`], the next
    /// older one): parse it fully and say what it is.
    fn latest(&mut self, key: &str, line: &[u8]) -> Latest;
    /// An older line of a key whose newest line asked for its history,
    /// newest first.
    fn older(&mut self, _key: &str, _line: &[u8]) {}
}

#[cfg(test)]
/// Walk every line of `lines` from the end and give each key's newest line
/// to the visitor (fully parsed there, once per key), and, for keys that
/// ask for it, their older lines. Only a cheap top-level string lookup of
/// `key` runs on every line, so the scan costs little more than reading the
/// file; memory grows with the number of distinct keys, never with the size
/// of the file. Older lines of a key already accepted are not parsed, so
/// garbage among them is not counted.
pub(crate) fn scan_by_key(
    mut lines: ReverseLines,
    key: &str,
    visitor: &mut impl KeyVisitor,
) -> Result<Scan, StoreError> {
    let mut seen = KeySet::new();
    let mut scan = Scan::default();
    while let Some(line) = lines.next_line()? {
        scan.lines += 1;
        let RevLine::Line(line) = line else {
            scan.skipped += 1;
            continue;
        };
        let Some(k) = top_level_str(line, key) else {
            if !is_blank(line) {
                scan.skipped += 1;
            }
            continue;
        };
        match seen.get(k.as_bytes()) {
            Some(false) => {}
            Some(true) => visitor.older(k, line),
            None => match visitor.latest(k, line) {
                Latest::Reject => scan.skipped += 1,
                verdict => {
                    seen.insert(k.as_bytes(), verdict == Latest::AcceptWithHistory);
                }
            },
        }
    }
    scan.torn = lines.torn();
    scan.keys = seen.len();
    Ok(scan)
}

/// Only spaces, tabs and carriage returns.
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

/// The position of the last `\n` in `hay`: 32 bytes per step, as four
/// words tested at once (the test is exact: a found block is searched
/// byte by byte). About 25 GB/s in cache, so a full scan of a large file is
/// bound by reading it, not by looking for its lines.
pub(crate) fn memrchr_newline(hay: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const NEWLINES: u64 = ONES * b'\n' as u64;
    // Non-zero exactly when some byte of `w` is a newline.
    fn has_newline(w: &[u8]) -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        let x = u64::from_le_bytes(b) ^ NEWLINES;
        x.wrapping_sub(ONES) & !x & HIGH
    }
    let mut end = hay.len();
    while end >= 32 {
        let block = &hay[end - 32..end];
        let found = has_newline(&block[..8])
            | has_newline(&block[8..16])
            | has_newline(&block[16..24])
            | has_newline(&block[24..]);
        if found != 0 {
            return block
                .iter()
                .rposition(|&b| b == b'\n')
                .map(|i| end - 32 + i);
        }
        end -= 32;
    }
    hay[..end].iter().rposition(|&b| b == b'\n')
}

/// Append `line` to the NDJSON file at `path` as ONE `write` with
/// `O_APPEND`, creating the file if needed. The line gets its newline; if
/// the file does not end in one (a torn last line), the written bytes start
/// with a newline so the torn line cannot swallow this one. A line holding
/// a newline of its own is refused: it would be two records.
///
/// Concurrent appenders never split or merge each other's records. One may
/// read the last byte while another's write is half copied and add a
/// newline it did not need: a blank line, which every reader here ignores.
/// Containment is the caller's job (the path is the format's own file).
pub(crate) fn append_line(path: &Path, line: &[u8]) -> Result<(), StoreError> {
    let (dir, name) = Dir::open_parent(path)?;
    append_line_in(&dir, &name, line).map(|_| ())
}

/// [`append_line`] to `name` in the directory `dir` (never through a
/// link). Returns the file's length before and the bytes added. A write
/// that fails part way (a full disk) is cut off again: the file is
/// truncated back to its length before, so no torn record is left in the
/// middle of the log for a later append to bury.
pub(crate) fn append_line_in(
    dir: &Dir,
    name: &str,
    line: &[u8],
) -> Result<(u64, Vec<u8>), StoreError> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    if line.contains(&b'\n') {
        return Err(StoreError::Io(io::Error::new(
            io::ErrorKind::InvalidInput,
            "an NDJSON record cannot hold a newline",
        )));
    }
    let mut file = dir.open_append(name, 0o644)?;
    let meta = file.metadata()?;
    let mut bytes = Vec::with_capacity(line.len() + 2);
    if meta.len() > 0 {
        let mut last = [0u8; 1];
        file.seek(SeekFrom::Start(meta.len() - 1))?;
        file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            bytes.push(b'\n');
        }
    }
    bytes.extend_from_slice(line);
    bytes.push(b'\n');
    // O_APPEND puts the whole buffer at the end in one write; a short write
    // (a full disk) is an error.
    let written = file.write(&bytes);
    // Where this write's bytes landed: O_APPEND moved to the end first (an
    // agent may have appended since the length above was taken).
    let end = file.stream_position();
    let failure = match written {
        Ok(n) if n == bytes.len() => None,
        Ok(n) => Some((
            n,
            io::Error::new(
                io::ErrorKind::WriteZero,
                format!("short append: {n} of {} bytes written", bytes.len()),
            ),
        )),
        Err(e) => Some((0, e)),
    };
    if let Some((n, e)) = failure {
        // Only what this write added is cut, and only while nothing was
        // appended after it: another writer's line is never cut.
        if n > 0
            && let Ok(end) = end
            && file.metadata().is_ok_and(|m| m.len() == end)
        {
            let _ = file.set_len(end - n as u64);
            let _ = file.sync_data();
        }
        return Err(StoreError::Io(e));
    }
    let at = end.map_or(meta.len(), |end| end - bytes.len() as u64);
    // The record is on disk before the decision is reported made (the
    // audit log appends through here too); a file this append created is
    // in its directory too.
    file.sync_data()?;
    if meta.len() == 0 {
        dir.sync();
    }
    Ok((at, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn lines_back(bytes: &[u8], chunk: usize, max_line: usize, budget: u64) -> (Vec<String>, bool) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.ndjson");
        fs::write(&p, bytes).unwrap();
        let mut r = ReverseLines::open(&p, budget)
            .unwrap()
            .with_chunk(chunk)
            .with_max_line(max_line);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push(match l {
                RevLine::Line(l) => String::from_utf8(l.to_vec()).unwrap(),
                RevLine::TooLong(n) => format!("<{n}>"),
            });
        }
        (out, r.torn())
    }

    #[test]
    fn reads_lines_backwards_with_any_chunk_size() {
        let text = b"one\ntwo\n\nthree3\nfour\n";
        for chunk in [1, 2, 3, 5, 8, 64] {
            let (lines, torn) = lines_back(text, chunk, 100, u64::MAX);
            assert_eq!(
                lines,
                vec!["four", "three3", "", "two", "one"],
                "chunk {chunk}"
            );
            assert!(!torn);
        }
    }

    #[test]
    fn a_torn_last_line_is_skipped() {
        for chunk in [1, 3, 64] {
            let (lines, torn) = lines_back(b"a\nbb\n{\"half", chunk, 100, u64::MAX);
            assert_eq!(lines, vec!["bb", "a"], "chunk {chunk}");
            assert!(torn);
            let (lines, torn) = lines_back(b"no newline at all", chunk, 100, u64::MAX);
            assert!(lines.is_empty());
            assert!(torn);
        }
        let (lines, torn) = lines_back(b"", 4, 100, u64::MAX);
        assert!(lines.is_empty() && !torn);
        let (lines, _) = lines_back(b"\n", 4, 100, u64::MAX);
        assert_eq!(lines, vec![""]);
    }

    #[test]
    fn long_lines_are_skipped_not_held() {
        let mut text = b"first\n".to_vec();
        text.extend(vec![b'x'; 100]);
        text.extend_from_slice(b"\nlast\n");
        for chunk in [1, 7, 16, 1000] {
            let (lines, _) = lines_back(&text, chunk, 10, u64::MAX);
            assert_eq!(lines, vec!["last", "<100>", "first"], "chunk {chunk}");
        }
        // The first line of the file too.
        let (lines, _) = lines_back(b"xxxxxxxxxxxxxxxxxxxx\nok\n", 4, 10, u64::MAX);
        assert_eq!(lines, vec!["ok", "<20>"]);
    }

    #[test]
    fn the_budget_bounds_what_is_read() {
        let mut text = Vec::new();
        for i in 0..1000 {
            text.extend_from_slice(format!("line {i:04}\n").as_bytes());
        }
        // 10 bytes per line: 35 bytes hold 3 whole lines and half of one.
        let (lines, _) = lines_back(&text, 8, 100, 35);
        assert_eq!(lines, vec!["line 0999", "line 0998", "line 0997"]);
    }

    #[test]
    fn tail_keeps_the_last_lines_oldest_first_and_counts_garbage() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.ndjson");
        fs::write(&p, "{\"n\":1}\nnot json\n{\"n\":2}\n\n{\"n\":3}\n{\"n\":4").unwrap();
        let t = tail_in(dir.path(), "t.ndjson", 10, 1 << 20, |l| {
            serde_json::from_slice::<serde_json::Value>(l)
                .ok()
                .and_then(|v| v["n"].as_u64())
        })
        .unwrap();
        assert_eq!(t.items, vec![1, 2, 3]);
        assert_eq!(t.skipped, 1);
        assert!(t.torn);
        assert!(t.complete);
        let t = tail(&p, 2, 1 << 20).unwrap();
        assert_eq!(t.items, vec![b"{\"n\":2}".to_vec(), b"{\"n\":3}".to_vec()]);
        assert!(!t.complete);
        assert!(matches!(
            tail_in(dir.path(), "../t.ndjson", 1, 10, |_| Some(())),
            Err(StoreError::OutsideProject)
        ));
        assert!(matches!(
            tail_in(dir.path(), "missing.ndjson", 1, 10, |_| Some(())),
            Err(StoreError::Vanished)
        ));
    }

    #[test]
    fn scan_by_key_meets_each_key_at_its_latest_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bugs.ndjson");
        fs::write(
            &p,
            concat!(
                "{\"id\":\"a\",\"s\":1}\n",
                "{\"id\":\"b\",\"s\":1}\n",
                "garbage\n",
                "{\"id\":\"a\",\"s\":2}\n",
                "{\"id\":\"b\",\"s\":\n",
                "\n",
                "{\"id\":\"c\",\"s\":1}\n",
                "{\"id\":\"a\",\"s\":3",
            ),
        )
        .unwrap();
        #[derive(Default)]
        struct V {
            latest: Vec<(String, u64)>,
            older: Vec<(String, String)>,
        }
        impl KeyVisitor for V {
            fn latest(&mut self, k: &str, line: &[u8]) -> Latest {
                match serde_json::from_slice::<serde_json::Value>(line) {
                    Ok(v) => {
                        self.latest.push((k.to_owned(), v["s"].as_u64().unwrap()));
                        if k == "a" {
                            Latest::AcceptWithHistory
                        } else {
                            Latest::Accept
                        }
                    }
                    Err(_) => Latest::Reject,
                }
            }
            fn older(&mut self, k: &str, line: &[u8]) {
                self.older
                    .push((k.to_owned(), String::from_utf8(line.to_vec()).unwrap()));
            }
        }
        let mut v = V::default();
        let scan = scan_by_key(
            ReverseLines::open(&p, u64::MAX).unwrap().with_chunk(7),
            "id",
            &mut v,
        )
        .unwrap();
        let (latest, older) = (v.latest, v.older);
        assert_eq!(
            latest,
            vec![("c".into(), 1), ("a".into(), 2), ("b".into(), 1)]
        );
        assert_eq!(
            older,
            vec![("a".to_owned(), "{\"id\":\"a\",\"s\":1}".to_owned())]
        );
        assert_eq!(scan.skipped, 2, "garbage and the broken b line");
        assert!(scan.torn);
        assert_eq!(scan.keys, 3);
    }

    #[test]
    fn newline_search_agrees_with_a_plain_scan() {
        let mut hay = vec![b'a'; 100];
        assert_eq!(memrchr_newline(&hay), None);
        for pos in [0, 1, 7, 8, 9, 31, 63, 64, 98, 99] {
            hay.fill(b'a');
            hay[pos] = b'\n';
            assert_eq!(memrchr_newline(&hay), Some(pos), "{pos}");
            if pos > 3 {
                hay[pos - 3] = b'\n';
                assert_eq!(memrchr_newline(&hay), Some(pos), "{pos}");
            }
        }
        assert_eq!(memrchr_newline(b""), None);
        assert_eq!(memrchr_newline(b"\n"), Some(0));
    }

    #[test]
    fn append_writes_whole_lines_and_heals_a_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log.ndjson");
        append_line(&p, b"{\"a\":1}").unwrap();
        append_line(&p, b"{\"a\":2}\n").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"{\"a\":1}\n{\"a\":2}\n");
        // A writer died mid-line: the next record starts on a line of its own.
        let mut f = fs::OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"{\"a\":").unwrap();
        drop(f);
        append_line(&p, b"{\"a\":3}").unwrap();
        assert_eq!(
            fs::read(&p).unwrap(),
            b"{\"a\":1}\n{\"a\":2}\n{\"a\":\n{\"a\":3}\n"
        );
        let t = tail(&p, 10, 1 << 20).unwrap();
        assert_eq!(t.items.last().unwrap(), b"{\"a\":3}");
        assert!(!t.torn);
        assert!(append_line(&p, b"two\nrecords").is_err());
        assert!(matches!(
            append_line(dir.path(), b"x"),
            Err(StoreError::NotRegular)
                | Err(StoreError::Io(_))
                | Err(StoreError::PermissionDenied)
        ));
    }

    /// Every pair of newlines in every length up to three 32-byte blocks,
    /// among bytes next to `\n` in value (`\t`, `\x0b`, `\x8a`, `\x09`
    /// borrowed into): the word test agrees with a plain scan. Kills
    /// `memrchr_newline`'s `|` → `^` (two newlines at the same place of
    /// two words cancel), `has_newline`'s `&` → `|`/`^`, and its block
    /// arithmetic (`end >= 32`, `end - 32 + i`, `end -= 32`).
    #[test]
    fn newline_search_agrees_with_a_plain_scan_for_every_pair() {
        let plain = |hay: &[u8]| hay.iter().rposition(|&b| b == b'\n');
        for len in 0..100usize {
            for fill in [b'a', b'\t', 0x0b, 0x8a, 0x00, 0xff] {
                let mut hay = vec![fill; len];
                assert_eq!(memrchr_newline(&hay), plain(&hay), "{len} {fill}");
                for i in 0..len {
                    hay[i] = b'\n';
                    assert_eq!(memrchr_newline(&hay), Some(i), "{len} {fill} {i}");
                    for j in 0..i {
                        hay[j] = b'\n';
                        assert_eq!(memrchr_newline(&hay), Some(i), "{len} {fill} {j} {i}");
                        hay[j] = fill;
                    }
                    hay[i] = fill;
                }
            }
        }
    }

    /// A line exactly `max_line` long is kept, one byte longer is skipped,
    /// in the middle of the file and as its first line, with any chunk;
    /// what was read is counted. Kills `len > max_line` → `>=`,
    /// `end > max_line` → `>=` (both places), `bytes_read` → `0`/`1`,
    /// `bytes_read += want` → `*=`, and `file_len` → `0`/`1`.
    #[test]
    fn a_line_of_exactly_the_limit_is_kept() {
        for chunk in [1, 3, 4, 5, 64] {
            let (lines, _) = lines_back(b"abcd\nefgh\nijklm\n", chunk, 4, u64::MAX);
            assert_eq!(lines, vec!["<5>", "efgh", "abcd"], "chunk {chunk}");
            let (lines, _) = lines_back(b"abcde\nefgh\n", chunk, 4, u64::MAX);
            assert_eq!(lines, vec!["efgh", "<5>"], "chunk {chunk}");
            let (lines, _) = lines_back(b"abcd\nefghi\nxy\n", chunk, 4, u64::MAX);
            assert_eq!(lines, vec!["xy", "<5>", "abcd"], "chunk {chunk}");
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.ndjson");
        fs::write(&p, "one\ntwo\nthree\n").unwrap();
        let mut r = ReverseLines::open(&p, u64::MAX).unwrap().with_chunk(4);
        assert_eq!(r.file_len(), 14);
        assert_eq!(r.bytes_read(), 0);
        while r.next_line().unwrap().is_some() {}
        assert_eq!(r.bytes_read(), 14);
        assert!(!r.cut());
        let mut r = ReverseLines::open(&p, 9).unwrap().with_chunk(4);
        while r.next_line().unwrap().is_some() {}
        assert_eq!(r.bytes_read(), 9);
        assert!(r.cut());
        let t = tail(&p, 10, u64::MAX).unwrap();
        assert_eq!((t.bytes_read, t.complete), (14, true));
    }

    /// An append says where its bytes landed and which bytes it wrote (a
    /// newline first after a torn line). Kills `append_line_in`'s `at`
    /// arithmetic (`end - len` → `+`), the `meta.len() > 0` test and the
    /// `last[0] != b'\n'` test.
    #[test]
    fn an_append_says_where_it_landed() {
        let dir = tempfile::tempdir().unwrap();
        let d = Dir::open(dir.path()).unwrap();
        assert_eq!(
            append_line_in(&d, "log", b"a").unwrap(),
            (0, b"a\n".to_vec())
        );
        assert_eq!(
            append_line_in(&d, "log", b"bc\n").unwrap(),
            (2, b"bc\n".to_vec())
        );
        fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join("log"))
            .unwrap()
            .write_all(b"torn")
            .unwrap();
        assert_eq!(
            append_line_in(&d, "log", b"d").unwrap(),
            (9, b"\nd\n".to_vec())
        );
        assert_eq!(
            fs::read(dir.path().join("log")).unwrap(),
            b"a\nbc\ntorn\nd\n"
        );
    }

    /// A write cut short (a full disk; here `RLIMIT_FSIZE`, set in a
    /// child process running this very test so no other test is limited)
    /// leaves no part of its line: the file is cut back to its length
    /// before and the append fails. Kills the mutants of the cut
    /// (`n > 0` → `==`/`<`, `m.len() == end` → `!=`, `end - n` → `+`/`/`).
    #[test]
    fn a_short_append_is_cut_back() {
        const CHILD: &str = "LOOPDECK_TEST_SHORT_APPEND";
        if let Some(path) = std::env::var_os(CHILD) {
            use rustix::process::{Resource, Rlimit, setrlimit};
            // rustix sets no signal disposition: libc (a dev-dependency)
            // ignores SIGXFSZ, so the write fails instead of killing us.
            // SAFETY: SIG_IGN installs no handler; this (child) process
            // runs nothing else.
            unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
            let limit = Rlimit {
                current: Some(10),
                maximum: Some(10),
            };
            setrlimit(Resource::Fsize, limit).unwrap();
            let err = append_line(Path::new(&path), b"0123456789abcdef").unwrap_err();
            assert!(err.to_string().contains("short append: 6 of 17"), "{err}");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log.ndjson");
        fs::write(&p, "abc\n").unwrap();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "store::ndjson::tests::a_short_append_is_cut_back",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, &p)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && said.contains("1 passed"),
            "{said}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(fs::read(&p).unwrap(), b"abc\n");
    }

    #[test]
    fn concurrent_appends_all_land_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log.ndjson");
        std::thread::scope(|s| {
            for t in 0..8 {
                let p = &p;
                s.spawn(move || {
                    for i in 0..50 {
                        let line =
                            format!("{{\"t\":{t},\"i\":{i},\"pad\":\"{}\"}}", "x".repeat(200));
                        append_line(p, line.as_bytes()).unwrap();
                    }
                });
            }
        });
        let text = fs::read_to_string(&p).unwrap();
        // An appender may read the last byte while another's write is half
        // copied and add a newline it did not need: a blank line, which
        // readers ignore. Records are never split or merged.
        let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), 400);
        for l in lines {
            serde_json::from_str::<serde_json::Value>(l).unwrap();
        }
    }
}
