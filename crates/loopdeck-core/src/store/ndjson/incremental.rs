//! An NDJSON tail read again from where the last reading stopped.
//!
//! Kept per file: its device, inode, size and times, the offset after its
//! last newline, the pending bytes after it (a line without its newline is
//! never parsed), and the lines a fresh [`super::collect_tail`] would have
//! walked — each with its start offset, parsed or counted as skipped. The
//! next reading of the same file (same device and inode) that grew reads
//! only the new bytes, folds the new complete lines in, and drops the lines
//! a fresh walk would no longer reach (past `max_items` items, or out of
//! the byte budget), so the result equals a fresh reading. A file that
//! shrank, was replaced (new inode) or rewritten at the same size is read
//! afresh. Memory: the kept lines' parsed items (16 bytes per skipped
//! line), plus a pending line of at most the byte budget (held twice: to
//! parse, and to check that it is still there before going on).

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::path::Path;
use std::time::SystemTime;

use super::{MAX_LINE, RevLine, ReverseLines, Tail, check, is_blank};
use crate::store::StoreError;
use crate::store::cache::{FileId, ReadCache, current, plain_path};

/// The parse function's type is part of the key: two readers of one file
/// never take each other's state.
struct State<T, F> {
    id: FileId,
    settled: bool,
    max_items: usize,
    max_bytes: u64,
    /// The offset after the last newline read.
    end: u64,
    /// The bytes from `end` to the size read (`None`: longer than the
    /// budget, dropped; such a line can never be in the window).
    pending: Option<Vec<u8>>,
    /// The last bytes read (checked before going on from them): the
    /// pending bytes and the [`check::CHECK`] before them.
    check: Vec<u8>,
    /// The window: start offset and item (`None`: a skipped line). The
    /// item is boxed so a skipped line costs 16 bytes, not an item's
    /// size: a window of short garbage lines (pretty-printed JSON in a
    /// log) holds hundreds of thousands of them.
    lines: VecDeque<(u64, Option<Box<T>>)>,
    by: PhantomData<fn() -> F>,
}

/// [`super::tail_in`], read from the last offset inside a cached reading
/// (see the module documentation); `chunk` is the fresh walk's step.
pub(crate) fn tail_in<T, F>(
    project: &Path,
    relative: &str,
    max_items: usize,
    max_bytes: u64,
    chunk: usize,
    mut parse: F,
) -> Result<Tail<T>, StoreError>
where
    T: Clone + Send + Sync + 'static,
    F: FnMut(&[u8]) -> Option<T> + 'static,
{
    let fresh_only = |parse: &mut dyn FnMut(&[u8]) -> Option<T>| {
        super::collect_tail(
            ReverseLines::open_in(project, relative, max_bytes)?.with_chunk(chunk),
            max_items,
            parse,
        )
    };
    let cached = current().filter(|_| max_bytes <= MAX_LINE as u64);
    let (Some((cache, pass)), Some(path)) = (cached, plain_path(project, relative)) else {
        return fresh_only(&mut parse);
    };
    let kept = cache.take::<State<T, F>>(&path);
    let now = SystemTime::now();
    // Unchanged since a reading that trusted its times: not even opened.
    if let Some(state) = kept.as_ref().filter(|s| {
        s.settled
            && s.max_items == max_items
            && s.max_bytes == max_bytes
            && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && FileId::of(&m) == s.id)
    }) {
        cache.count_reuse();
        let tail = state.tail();
        if let Some(state) = kept {
            let weight = state.weight();
            cache.put_weighed(pass, &path, state, weight);
        }
        return Ok(tail);
    }
    let lines = ReverseLines::open_in(project, relative, max_bytes)?.with_chunk(chunk);
    let id = FileId::of(&lines.file.metadata()?);
    let mut state = match kept {
        Some(s) if s.max_items == max_items && s.max_bytes == max_bytes => s,
        _ => return fresh(&cache, pass, &path, lines, id, now, max_items, &mut parse),
    };
    let same_file = state.id.dev == id.dev && state.id.ino == id.ino;
    if !same_file || id.len < state.id.len {
        // Replaced, or truncated.
        return fresh(&cache, pass, &path, lines, id, now, max_items, &mut parse);
    }
    if id.len == state.id.len {
        if id != state.id || !state.settled {
            // Rewritten at the same size, or too recent to tell.
            return fresh(&cache, pass, &path, lines, id, now, max_items, &mut parse);
        }
    } else {
        // Grown: read on from the end last read, once the bytes it ended
        // with (a pending line too long to keep cannot be checked: read
        // afresh) are checked to be still there.
        let mut file = lines.file;
        let checked = match state.pending {
            Some(_) => check::read_on(&mut file, &state.check, state.id.len, id.len)?,
            None => None,
        };
        let Some(buf) = checked else {
            let lines = ReverseLines::open_in(project, relative, max_bytes)?.with_chunk(chunk);
            let id = FileId::of(&lines.file.metadata()?);
            return fresh(&cache, pass, &path, lines, id, now, max_items, &mut parse);
        };
        cache.count_read(buf.len() as u64);
        let new = &buf[state.check.len()..];
        let start = state.id.len - state.check.len() as u64;
        state.fold(state.id.len, new, &mut parse);
        state.check = match state.pending {
            Some(_) => check::since_end_of(&buf, start, state.end),
            None => check::tail_of(&buf),
        };
        state.id = id;
        state.settled = cache.settled(&id, now);
        state.trim();
    }
    let tail = state.tail();
    let weight = state.weight();
    cache.put_weighed(pass, &path, state, weight);
    Ok(tail)
}

/// Read the window afresh (walking back from the end, as
/// [`super::collect_tail`] does), keep it, and answer from it.
#[allow(clippy::too_many_arguments)]
fn fresh<T, F>(
    cache: &ReadCache,
    pass: u64,
    path: &Path,
    mut lines: ReverseLines,
    id: FileId,
    now: SystemTime,
    max_items: usize,
    parse: &mut F,
) -> Result<Tail<T>, StoreError>
where
    T: Clone + Send + Sync + 'static,
    F: FnMut(&[u8]) -> Option<T> + 'static,
{
    let mut window = VecDeque::new();
    let mut items = 0;
    while items < max_items {
        let entry = match lines.next_line()? {
            None => break,
            Some(RevLine::TooLong(_)) => Some(None),
            Some(RevLine::Line(l)) if is_blank(l) => None,
            Some(RevLine::Line(l)) => Some(parse(l)),
        };
        let start = if lines.done {
            0
        } else {
            lines.start + lines.end as u64 + 1
        };
        if let Some(item) = entry {
            items += usize::from(item.is_some());
            window.push_front((start, item.map(Box::new)));
        }
    }
    cache.count_read(lines.bytes_read());
    let max_bytes = lines.budget + lines.bytes_read;
    let (end, pending, read) = pending_tail(&mut lines, id.len, max_bytes)?;
    let check = match pending {
        Some(_) => check::since_end(&mut lines.file, end, id.len)?,
        None => check::last_bytes(&mut lines.file, id.len)?,
    };
    cache.count_read(read + check.len() as u64);
    let state = State {
        id,
        settled: cache.settled(&id, now),
        max_items,
        max_bytes,
        end,
        pending,
        check,
        lines: window,
        by: PhantomData::<fn() -> F>,
    };
    let tail = state.tail();
    let weight = state.weight();
    cache.put_weighed(pass, path, state, weight);
    Ok(tail)
}

/// The offset after the last newline of a file of `len` bytes (when the
/// bytes after it are more than `max_bytes`, an offset before them: out of
/// any window), the bytes after it (`None` when more than `max_bytes`),
/// and the bytes read to know.
type Pending = (u64, Option<Vec<u8>>, u64);

fn pending_tail(lines: &mut ReverseLines, len: u64, max_bytes: u64) -> Result<Pending, StoreError> {
    if len == 0 {
        return Ok((0, Some(Vec::new()), 0));
    }
    if !lines.torn() && lines.started {
        return Ok((len, Some(Vec::new()), 0));
    }
    let want = len.min(max_bytes.saturating_add(1));
    let mut buf = vec![0u8; want as usize];
    check::read_at(&mut lines.file, &mut buf, len - want)?;
    Ok(match super::memrchr_newline(&buf) {
        Some(i) => {
            let end = len - want + i as u64 + 1;
            (end, Some(buf[i + 1..].to_vec()), want)
        }
        // No newline in the file: the pending line starts at 0.
        None if want == len => (0, Some(buf), want),
        None => (len - want, None, want),
    })
}

impl<T: Clone, F> State<T, F> {
    /// What it weighs against the cache's budget: the bytes of the file
    /// its window covers (its items cost about that much again, once
    /// parsed). Dropped, it costs one fresh read of the tail.
    fn weight(&self) -> u64 {
        self.id.len.min(self.max_bytes).max(1)
    }

    /// Fold the bytes appended after the last reading (`new` starts at
    /// the file offset `base`).
    fn fold(&mut self, base: u64, new: &[u8], parse: &mut dyn FnMut(&[u8]) -> Option<T>) {
        let cap = self.max_bytes as usize;
        let mut at = 0;
        while let Some(i) = new[at..].iter().position(|&b| b == b'\n') {
            let piece = &new[at..at + i];
            let start = self.end;
            let entry = match self.pending.take() {
                Some(mut line) if line.len() + piece.len() <= MAX_LINE => {
                    line.extend_from_slice(piece);
                    (!is_blank(&line)).then(|| parse(&line))
                }
                // Too long to hold: skipped, as the fresh walk skips it
                // (and out of the window anyway when past the budget).
                _ => Some(None),
            };
            if let Some(item) = entry {
                self.lines.push_back((start, item.map(Box::new)));
            }
            at += i + 1;
            self.end = base + at as u64;
            self.pending = Some(Vec::with_capacity(0));
        }
        let rest = &new[at..];
        if let Some(p) = self.pending.as_mut() {
            if p.len() + rest.len() <= cap {
                p.extend_from_slice(rest);
            } else {
                self.pending = None;
            }
        }
    }

    /// Drop what a fresh walk from the new end would not reach.
    fn trim(&mut self) {
        let len = self.id.len;
        let reached = |start: u64| {
            if start == 0 {
                len <= self.max_bytes
            } else {
                start > len.saturating_sub(self.max_bytes)
            }
        };
        while self.lines.front().is_some_and(|(s, _)| !reached(*s)) {
            self.lines.pop_front();
        }
        let mut items = self.lines.iter().filter(|(_, i)| i.is_some()).count();
        while let Some((_, front)) = self.lines.front() {
            let drop = items > self.max_items || (items == self.max_items && front.is_none());
            if !drop {
                break;
            }
            items -= usize::from(front.is_some());
            self.lines.pop_front();
        }
    }

    fn tail(&self) -> Tail<T> {
        let items: Vec<T> = self
            .lines
            .iter()
            .filter_map(|(_, i)| i.as_deref().cloned())
            .collect();
        let skipped = self.lines.iter().filter(|(_, i)| i.is_none()).count();
        let torn = self.id.len > 0 && self.check.last() != Some(&b'\n');
        Tail {
            items,
            skipped,
            torn,
        }
    }
}

#[cfg(test)]
mod tests;
