//! An append-only log of records by key (one whole record per line, the
//! latest line of a key is its state), kept between readings and read on
//! from the last offset.
//!
//! Kept per file: its identity, the offset after its last newline, the
//! pending bytes after it, how many lines were skipped without a key, and
//! per key the lines a reading from the end could still take as the key's
//! state — from its newest line back to the newest one `accepts` takes
//! (one line, nearly always) — plus the values of `chain_field` of its
//! older lines, with repeats dropped (what a key's history is rebuilt
//! from). Memory grows with the number of keys, never with the file: a
//! log keeping more than [`MAX_EXCESS`] bytes beyond one line per key (lines
//! that never parse) is not kept.
//!
//! The first reading of a file folds it forward in chunks. No reading
//! keeps such a log any more (devloop's bugs are folded to a compact
//! record per bug instead); the workspace's tests still measure what it
//! holds.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::SystemTime;

use super::{MAX_LINE, ReverseLines, check, is_blank, top_level_str};
use crate::store::StoreError;
use crate::store::cache::{FileId, current, plain_path};

/// The read step of a first reading.
const FOLD_CHUNK: usize = 1024 * 1024;

/// The most bytes a log may keep beyond one line per key (lines no
/// reading takes as their key's state, e.g. from a writer whose lines never
/// parse): past it the file is not kept, and each reading scans it.
pub(crate) const MAX_EXCESS: usize = MAX_LINE;

testing_pub!(
    /// The lines of one key a reading still needs.
    #[derive(Debug, Clone, Default)]
    pub struct KeyLines {
        /// Offset and bytes, oldest first: the newest line `accepts` takes,
        /// and the lines after it.
        pub lines: Vec<(u64, Vec<u8>)>,
        /// `chain_field` of the lines before those, oldest first, repeats
        /// dropped.
        pub(crate) chain: Vec<String>,
    }
);

testing_pub!(
    /// A keyed log as read so far (see the module documentation).
    #[derive(Debug)]
    pub struct KeyedLog {
        id: FileId,
        settled: bool,
        key: &'static str,
        chain_field: &'static str,
        accepts: fn(&[u8]) -> bool,
        end: u64,
        pending: Option<Vec<u8>>,
        /// The last bytes read (checked before going on from them): the
        /// pending bytes and the [`check::CHECK`] before them.
        check: Vec<u8>,
        /// Lines without the key, or too long to hold.
        pub(crate) keyless: usize,
        /// What is kept of each key, by key.
        pub keys: HashMap<String, KeyLines>,
        /// Keys whose lines grew since they were last collapsed.
        touched: HashSet<String>,
        /// Bytes of the kept lines beyond each key's oldest one.
        excess: usize,
    }
);

impl KeyedLog {
    fn new(
        id: FileId,
        key: &'static str,
        chain_field: &'static str,
        accepts: fn(&[u8]) -> bool,
    ) -> Self {
        KeyedLog {
            id,
            settled: false,
            key,
            chain_field,
            accepts,
            end: 0,
            pending: Some(Vec::new()),
            check: Vec::new(),
            keyless: 0,
            keys: HashMap::new(),
            touched: HashSet::new(),
            excess: 0,
        }
    }

    /// Fold bytes that start at the file offset `base`.
    fn fold(&mut self, base: u64, new: &[u8]) {
        let mut at = 0;
        while let Some(i) = new[at..].iter().position(|&b| b == b'\n') {
            let piece = &new[at..at + i];
            let start = self.end;
            match self.pending.take() {
                Some(mut line) if line.len() + piece.len() <= MAX_LINE => {
                    if line.is_empty() {
                        self.line(start, piece);
                    } else {
                        line.extend_from_slice(piece);
                        self.line(start, &line);
                    }
                }
                _ => self.keyless += 1,
            }
            at += i + 1;
            self.end = base + at as u64;
            self.pending = Some(Vec::new());
        }
        let rest = &new[at..];
        if let Some(p) = self.pending.as_mut() {
            if p.len() + rest.len() <= MAX_LINE {
                p.extend_from_slice(rest);
            } else {
                self.pending = None;
            }
        }
    }

    fn line(&mut self, offset: u64, line: &[u8]) {
        if is_blank(line) {
            return;
        }
        let Some(k) = top_level_str(line, self.key) else {
            self.keyless += 1;
            return;
        };
        let kl = self.keys.entry(k.to_owned()).or_default();
        if !kl.lines.is_empty() {
            self.excess += line.len();
            if !self.touched.contains(k) {
                self.touched.insert(k.to_owned());
            }
        }
        kl.lines.push((offset, line.to_vec()));
    }

    /// For each key whose lines grew: keep from its newest line `accepts`
    /// takes; the older lines go to its chain.
    fn collapse(&mut self) {
        for k in std::mem::take(&mut self.touched) {
            let Some(kl) = self.keys.get_mut(&k) else {
                continue;
            };
            let Some(newest) = kl.lines.iter().rposition(|(_, l)| (self.accepts)(l)) else {
                continue;
            };
            // The lines dropped go from the excess; the newest taken
            // becomes the key's oldest kept line.
            let dropped: usize = kl.lines[1..=newest].iter().map(|(_, l)| l.len()).sum();
            self.excess -= dropped;
            for (_, l) in kl.lines.drain(..newest) {
                if let Some(v) = top_level_str(&l, self.chain_field)
                    && kl.chain.last().map(String::as_str) != Some(v)
                {
                    kl.chain.push(v.to_owned());
                }
            }
        }
    }
}

testing_pub!(
    /// `answer` of the keyed log `relative` in `project`, read on from the
    /// last offset inside a cached reading; `None` outside one, or when the
    /// log would keep more than [`MAX_EXCESS`] (the caller scans the file
    /// itself).
    pub fn keyed_in<T>(
        project: &Path,
        relative: &str,
        key: &'static str,
        chain_field: &'static str,
        accepts: fn(&[u8]) -> bool,
        answer: impl FnOnce(&KeyedLog) -> T,
    ) -> Option<Result<T, StoreError>> {
        let (cache, pass) = current()?;
        let path = plain_path(project, relative)?;
        let kept = cache.take::<KeyedLog>(&path);
        let now = SystemTime::now();
        let read = || -> Result<Option<KeyedLog>, StoreError> {
            let mut file = ReverseLines::open_in(project, relative, 0)?.file;
            let id = FileId::of(&file.metadata()?);
            let reuse = kept.filter(|k| {
                k.key == key
                    && k.chain_field == chain_field
                    && k.id.dev == id.dev
                    && k.id.ino == id.ino
                    && id.len >= k.id.len
                    && (id.len > k.id.len || (id == k.id && k.settled))
            });
            let (mut log, mut from) = match reuse {
                Some(log) => {
                    let from = log.id.len;
                    (log, from)
                }
                None => (KeyedLog::new(id, key, chain_field, accepts), 0),
            };
            if from > 0 {
                // A pending line too long to keep cannot be checked: read it
                // all again.
                let checked = match log.pending {
                    Some(_) => check::read_on(&mut file, &log.check, from, id.len)?,
                    None => None,
                };
                match checked {
                    Some(buf) => {
                        cache.count_read(buf.len() as u64);
                        let start = from - log.check.len() as u64;
                        log.fold(from, &buf[log.check.len()..]);
                        log.collapse();
                        if log.excess > MAX_EXCESS {
                            return Ok(None);
                        }
                        log.check = match log.pending {
                            Some(_) => check::since_end_of(&buf, start, log.end),
                            None => check::tail_of(&buf),
                        };
                    }
                    // Not an append: read it all again.
                    None => {
                        log = KeyedLog::new(id, key, chain_field, accepts);
                        from = 0;
                    }
                }
            }
            if from == 0 {
                let mut at = 0;
                while at < id.len {
                    let n = ((id.len - at) as usize).min(FOLD_CHUNK);
                    let mut buf = vec![0u8; n];
                    check::read_at(&mut file, &mut buf, at)?;
                    cache.count_read(n as u64);
                    log.fold(at, &buf);
                    log.collapse();
                    if log.excess > MAX_EXCESS {
                        return Ok(None);
                    }
                    at += n as u64;
                }
                log.check = match log.pending {
                    Some(_) => check::since_end(&mut file, log.end, id.len)?,
                    None => check::last_bytes(&mut file, id.len)?,
                };
            }
            log.id = id;
            log.settled = cache.settled(&id, now);
            Ok(Some(log))
        };
        match read() {
            Ok(Some(log)) => {
                let out = answer(&log);
                cache.put(pass, &path, log);
                Some(Ok(out))
            }
            // Not kept (nor its memory): the caller scans the file.
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }
);
