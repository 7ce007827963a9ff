//! `bugs.ndjson` folded forward into one compact record per bug, the same
//! way for every reading (console, `watch`, `list`, `show`): a fresh
//! reading folds the file from its start in chunks; a cached reading keeps
//! the fold and folds on from the last offset (after checking that the
//! bytes it ended with are still there).
//!
//! A bug's state is its latest line that parses as a bug ([`BugLine`]); a
//! newer line of it that does not parse is counted as skipped, and its
//! older lines give the statuses its history is rebuilt from when the
//! latest line has no `status_history`.
//!
//! What is kept never holds a line: per bug its status and severity (as
//! small numbers into one table of names), where its latest line starts,
//! and, for bugs that moved, the statuses of its older lines (at most
//! [`MAX_CHAIN`]); only the [`MAX_BUGS_LISTED`] most recently updated bugs
//! keep their title, unit and history, each text cut to [`MAX_TEXT`] bytes
//! and the history to its newest [`MAX_HISTORY`] steps. A 1 GB log of a
//! thousand bugs with megabyte titles costs a few megabytes; a log of
//! millions of one-line bugs about 100 bytes per bug.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io;
use std::path::Path;
use std::time::SystemTime;

use super::schema::BugLine;
use crate::model::{Bug, BugStats, BugTransition};
use crate::store::cache::{self, FileId};
use crate::store::ndjson::{MAX_LINE, is_blank, top_level_str};
use crate::store::{StoreError, atomic};

testing_pub!(
    /// Bugs listed in full (the most recently updated); all are counted.
    pub const MAX_BUGS_LISTED: usize = 1000;
);
/// The most bytes of one text a bug keeps (title, unit, a history entry's
/// fields, a status or severity); longer texts end in `…`.
pub(crate) const MAX_TEXT: usize = 512;
/// The most `status_history` entries a listed bug keeps (the newest).
pub(crate) const MAX_HISTORY: usize = 64;
/// The most older statuses kept per bug to rebuild its history from.
pub(crate) const MAX_CHAIN: usize = 64;
/// The read step of a fold.
const FOLD_CHUNK: usize = 1024 * 1024;
/// The most lines a fold holds parsed while their views wait (see
/// [`Later`]).
const LATER: usize = 256;
/// How many of its last bytes a kept fold checks before reading on.
const CHECK: usize = 32;

type Sym = u32;

/// Every status and severity met, once.
#[derive(Debug, Default, Clone)]
struct Names {
    ids: HashMap<Box<str>, Sym>,
    names: Vec<Box<str>>,
    /// Accepted bugs per status and per severity, by name.
    status_count: Vec<usize>,
    severity_count: Vec<usize>,
}

impl Names {
    fn sym(&mut self, name: &str) -> Sym {
        // A name within the bound is its own bounded text: looked up as
        // it is, not copied first.
        if name.len() <= MAX_TEXT
            && let Some(&s) = self.ids.get(name)
        {
            return s;
        }
        let name = bounded(name);
        if let Some(&s) = self.ids.get(name.as_str()) {
            return s;
        }
        let s = self.names.len() as Sym;
        self.names.push(name.clone().into_boxed_str());
        self.ids.insert(name.into_boxed_str(), s);
        self.status_count.push(0);
        self.severity_count.push(0);
        s
    }

    fn name(&self, s: Sym) -> &str {
        self.names.get(s as usize).map_or("", |n| n)
    }
}

/// A bug as kept: 24 bytes, its id in the table's arena.
#[derive(Debug, Clone, Copy)]
struct Rec {
    /// Offset of its id in [`Table::arena`].
    key: u64,
    /// The status of its latest line that parses; [`NONE`] while none.
    status: Sym,
    severity: Sym,
    /// Index into [`Fold::sides`], or [`NONE`].
    side: u32,
}

const NONE: u32 = u32::MAX;

/// What a few bugs keep beyond their status: where their latest line is
/// (listed bugs), older statuses, lines that did not parse, their view.
#[derive(Debug, Clone, Default)]
struct Side {
    /// The bug's index in the table.
    owner: usize,
    at: u64,
    extra: Extra,
    listed: Option<Box<Listed>>,
    /// Listed, its view still to be made from its line at `at` (when the
    /// bytes folded so far are done with: see [`Later`]).
    pending: bool,
}

/// A line whose view waits for the end of the bytes it is in: only a
/// bug's latest line is viewed, so the lines a later one replaces in the
/// same bytes cost a parse that borrows, never a view of owned texts.
struct Later<'a> {
    bug: usize,
    offset: u64,
    line: BugLine<'a>,
}

/// Bugs by id: every id's bytes in one arena (a length and the bytes),
/// an open-addressing table of indices into `recs` (about 48 bytes a bug
/// with its id, where a map of boxed ids cost about 100).
#[derive(Debug, Clone, Default)]
struct Table {
    hash: std::collections::hash_map::RandomState,
    arena: Vec<u8>,
    /// 0 empty, else an index into `recs` plus one.
    slots: Vec<u32>,
    recs: Vec<Rec>,
}

impl Table {
    fn key_at(&self, offset: u64) -> &[u8] {
        let o = offset as usize;
        let Some(len) = self.arena.get(o..o + 4) else {
            return &[];
        };
        let mut n = [0u8; 4];
        n.copy_from_slice(len);
        let n = u32::from_le_bytes(n) as usize;
        self.arena.get(o + 4..o + 4 + n).unwrap_or(&[])
    }

    /// The index of `key`, added when new.
    fn index(&mut self, key: &[u8]) -> usize {
        use std::hash::BuildHasher;
        if self.slots.len() < 2 * (self.recs.len() + 1) {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = (self.hash.hash_one(key) as usize) & mask;
        loop {
            match self.slots[i] {
                0 => break,
                n => {
                    let r = (n - 1) as usize;
                    if self.key_at(self.recs[r].key) == key {
                        return r;
                    }
                }
            }
            i = (i + 1) & mask;
        }
        let offset = self.arena.len() as u64;
        self.arena
            .extend_from_slice(&(key.len() as u32).to_le_bytes());
        self.arena.extend_from_slice(key);
        self.recs.push(Rec {
            key: offset,
            status: NONE,
            severity: NONE,
            side: NONE,
        });
        self.slots[i] = self.recs.len() as u32;
        self.recs.len() - 1
    }

    fn grow(&mut self) {
        use std::hash::BuildHasher;
        let size = (self.slots.len() * 2).max(16);
        let mut slots = vec![0u32; size];
        let mask = size - 1;
        for (r, rec) in self.recs.iter().enumerate() {
            let mut i = (self.hash.hash_one(self.key_at(rec.key)) as usize) & mask;
            while slots[i] != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = r as u32 + 1;
        }
        self.slots = slots;
    }
}

/// What few bugs need: older statuses, lines that did not parse.
#[derive(Debug, Clone, Default)]
struct Extra {
    /// Statuses of the lines before the accepted one, oldest first,
    /// repeats dropped, the newest [`MAX_CHAIN`] + 1.
    older: Vec<Sym>,
    /// Statuses of the lines after it that do not parse (they become
    /// older lines when a newer line parses).
    after: Vec<Sym>,
    /// Those lines (all of the bug's lines while none parses).
    rejected: usize,
}

/// A listed bug: its view, and whether its history is rebuilt from its
/// older lines (a moved bug whose latest line has no history).
#[derive(Debug, Clone)]
struct Listed {
    bug: Bug,
    rebuild: bool,
}

/// The fold of one file's complete lines.
#[derive(Debug, Default, Clone)]
pub(crate) struct Fold {
    names: Names,
    table: Table,
    sides: Vec<Side>,
    /// The listed bugs (indices into the table) by the offset of their
    /// latest line.
    order: BTreeMap<u64, usize>,
    accepted: usize,
    keyless: usize,
    rejected: usize,
}

/// What a reading of `bugs.ndjson` gives.
#[derive(Debug, Clone)]
pub(crate) struct Reading {
    /// The listed bugs, by id.
    pub bugs: Vec<Bug>,
    pub stats: BugStats,
    /// Lines without an id, too long, or not a bug (and not followed by
    /// a line of the same bug that is).
    pub skipped: usize,
    /// The file ends in a line without its newline (not read yet).
    pub torn: bool,
}

impl Fold {
    /// Fold one complete line that starts at `offset`.
    pub(crate) fn line(&mut self, offset: u64, line: &[u8]) {
        let mut later = Vec::new();
        self.line_later(offset, line, &mut later);
        self.view(later);
    }

    /// [`Self::line`], its view (when it is listed) left in `later` for
    /// [`Self::view`].
    fn line_later<'a>(&mut self, offset: u64, line: &'a [u8], later: &mut Vec<Later<'a>>) {
        if is_blank(line) {
            return;
        }
        let Some(key) = top_level_str(line, "id") else {
            self.keyless += 1;
            return;
        };
        let parsed = crate::formats::json::from_slice::<BugLine<'a>>(line).ok();
        let r = self.table.index(key.as_bytes());
        let Some(b) = parsed else {
            let side = self.side(r);
            side.extra.rejected += 1;
            self.rejected += 1;
            if let Some(s) = top_level_str(line, "status") {
                let s = self.names.sym(s);
                push_chain(
                    &mut self.sides[self.table.recs[r].side as usize].extra.after,
                    s,
                );
            }
            return;
        };
        let rec = self.table.recs[r];
        let accepted = rec.status != NONE;
        // Everything before this line is now older.
        if rec.side != NONE || accepted {
            let side = self.side(r);
            let extra = &mut side.extra;
            if accepted {
                push_chain(&mut extra.older, rec.status);
            }
            for s in std::mem::take(&mut extra.after) {
                push_chain(&mut extra.older, s);
            }
            self.rejected -= std::mem::take(&mut extra.rejected);
        }
        if accepted {
            self.names.status_count[rec.status as usize] -= 1;
            self.names.severity_count[rec.severity as usize] -= 1;
        } else {
            self.accepted += 1;
        }
        let severity = b
            .severity
            .as_deref()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or("unknown");
        let status = self.names.sym(&b.status);
        let severity = self.names.sym(severity);
        self.names.status_count[status as usize] += 1;
        self.names.severity_count[severity as usize] += 1;
        self.table.recs[r].status = status;
        self.table.recs[r].severity = severity;
        let side = self.side(r);
        let before = (side.listed.is_some() || side.pending).then_some(side.at);
        side.at = offset;
        side.listed = None;
        side.pending = true;
        later.push(Later {
            bug: r,
            offset,
            line: b,
        });
        if let Some(at) = before {
            self.order.remove(&at);
        }
        self.order.insert(offset, r);
        if self.order.len() > MAX_BUGS_LISTED
            && let Some((_, oldest)) = self.order.pop_first()
        {
            self.unlist(oldest);
        }
    }

    /// The views of the lines in `later` that are still their bug's latest
    /// listed line.
    fn view(&mut self, later: Vec<Later<'_>>) {
        for Later { bug, offset, line } in later {
            let Some(rec) = self.table.recs.get(bug).copied() else {
                continue;
            };
            let Some(side) = self.sides.get(rec.side as usize) else {
                continue;
            };
            if !side.pending || side.at != offset {
                continue;
            }
            let view = listed(line, self.names.name(rec.severity));
            if let Some(side) = self.sides.get_mut(rec.side as usize) {
                side.listed = Some(Box::new(view));
                side.pending = false;
            }
        }
    }

    /// The side record of bug `r`, made when it has none.
    fn side(&mut self, r: usize) -> &mut Side {
        if self.table.recs[r].side == NONE {
            self.table.recs[r].side = self.sides.len() as u32;
            self.sides.push(Side {
                owner: r,
                ..Side::default()
            });
        }
        let i = self.table.recs[r].side as usize;
        &mut self.sides[i]
    }

    /// Bug `r` leaves the listing: its view goes (and its side record,
    /// when nothing else is kept there).
    fn unlist(&mut self, r: usize) {
        let i = self.table.recs[r].side;
        let Some(side) = self.sides.get_mut(i as usize) else {
            return;
        };
        side.listed = None;
        side.pending = false;
        let e = &side.extra;
        if e.older.is_empty() && e.after.is_empty() && e.rejected == 0 {
            // Swap the last side record into its place.
            let last = self.sides.len() - 1;
            self.sides.swap_remove(i as usize);
            self.table.recs[r].side = NONE;
            if (i as usize) < last
                && let Some(moved) = self.sides.get(i as usize)
                && let Some(owner) = self.table.recs.get_mut(moved.owner)
            {
                owner.side = i;
            }
        }
    }

    /// The bugs, their counts and the lines skipped.
    pub(crate) fn reading(&self, torn: bool) -> Reading {
        let mut bugs: Vec<Bug> = Vec::with_capacity(self.order.len());
        for &r in self.order.values() {
            let Some(side) = self
                .table
                .recs
                .get(r)
                .and_then(|rec| self.sides.get(rec.side as usize))
            else {
                continue;
            };
            let Some(l) = side.listed.as_deref() else {
                continue;
            };
            let mut bug = l.bug.clone();
            if l.rebuild {
                bug.history = rebuilt(&bug.status, &side.extra.older, &self.names);
            }
            bugs.push(bug);
        }
        bugs.sort_by(|a, b| a.id.cmp(&b.id));
        let counts = |c: &[usize]| -> BTreeMap<String, usize> {
            c.iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(s, n)| (self.names.name(s as Sym).to_owned(), *n))
                .collect()
        };
        Reading {
            bugs,
            stats: BugStats {
                total: self.accepted,
                by_status: counts(&self.names.status_count),
                by_severity: counts(&self.names.severity_count),
            },
            skipped: self.keyless + self.rejected,
            torn,
        }
    }
}

/// Add `s` to a chain (oldest first) unless it repeats the last one; keep
/// the newest `MAX_CHAIN + 1` (what [`MAX_CHAIN`] steps are rebuilt from).
fn push_chain(chain: &mut Vec<Sym>, s: Sym) {
    if chain.last() != Some(&s) {
        chain.push(s);
        if chain.len() > MAX_CHAIN + 1 {
            chain.remove(0);
        }
    }
}

/// The steps a bug at `status` took, from its older statuses (oldest
/// first): at most [`MAX_CHAIN`], oldest first, without times or authors
/// (those lines say none).
fn rebuilt(status: &str, older: &[Sym], names: &Names) -> Vec<BugTransition> {
    let mut later = status;
    let mut steps = Vec::new();
    for &s in older.iter().rev() {
        let s = names.name(s);
        if s != later {
            steps.push(BugTransition {
                from: Some(s.to_owned()),
                to: later.to_owned(),
                at: None,
                by: None,
                note: None,
            });
            later = s;
            if steps.len() == MAX_CHAIN {
                break;
            }
        }
    }
    steps.reverse();
    steps
}

/// A listed bug's view of its line, its texts bounded.
fn listed(b: BugLine<'_>, severity: &str) -> Listed {
    let skip = b.status_history.len().saturating_sub(MAX_HISTORY);
    let history: Vec<BugTransition> = b
        .status_history
        .into_iter()
        .skip(skip)
        .filter_map(|h| {
            Some(BugTransition {
                from: h.from.as_deref().map(bounded),
                to: bounded(h.to.as_deref()?),
                at: h.ts.as_ref().map(|t| bounded(&t.text())),
                by: h.by.as_deref().map(bounded),
                note: h.note.as_deref().map(bounded),
            })
        })
        .collect();
    let status = bounded(&b.status);
    let rebuild = history.is_empty() && status != "open";
    let unit = b.unit_id.or_else(|| match b.affected_units.as_slice() {
        [only] => Some(only.clone()),
        _ => None,
    });
    Listed {
        bug: Bug {
            status_kind: super::kinds::bug(&status),
            act: super::lifecycle::address(&b.id, &status),
            id: b.id.0.into_owned(),
            status,
            severity: severity.to_owned(),
            title: b.title.as_deref().map(bounded).unwrap_or_default(),
            unit: unit.as_deref().map(bounded),
            history,
        },
        rebuild,
    }
}

/// `text` cut to at most [`MAX_TEXT`] bytes on a character boundary,
/// ending in `…` when cut.
pub(crate) fn bounded(text: &str) -> String {
    if text.len() <= MAX_TEXT {
        return text.to_owned();
    }
    let mut end = MAX_TEXT - '…'.len_utf8();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut s = text[..end].to_owned();
    s.push('…');
    s
}

/// A fold and where it stands in its file.
#[derive(Debug)]
struct Kept {
    id: FileId,
    settled: bool,
    fold: Fold,
    /// The offset after the last newline folded.
    end: u64,
    /// The bytes after it (`None`: more than a line may hold).
    pending: Option<Vec<u8>>,
    /// The bytes the fold ended with: the [`CHECK`] before `end` and the
    /// pending ones.
    check: Vec<u8>,
}

impl Kept {
    fn new(id: FileId) -> Self {
        Kept {
            id,
            settled: false,
            fold: Fold::default(),
            end: 0,
            pending: Some(Vec::new()),
            check: Vec::new(),
        }
    }

    /// Fold bytes that start at the file offset `base`.
    fn feed(&mut self, base: u64, new: &[u8]) {
        let mut at = 0;
        let mut later = Vec::new();
        while let Some(i) = newline(&new[at..]) {
            let piece = &new[at..at + i];
            let start = self.end;
            let piece = piece.strip_suffix(b"\r").unwrap_or(piece);
            match self.pending.take() {
                Some(line) if line.is_empty() => {
                    self.fold.line_later(start, piece, &mut later);
                    // Bounded: a chunk of a million one-line bugs never
                    // holds a parsed line per bug.
                    if later.len() >= LATER {
                        self.fold.view(std::mem::take(&mut later));
                    }
                }
                Some(mut line) if line.len() + piece.len() <= MAX_LINE => {
                    line.extend_from_slice(piece);
                    let line = line.strip_suffix(b"\r").unwrap_or(&line);
                    self.fold.line(start, line);
                }
                _ => self.fold.keyless += 1,
            }
            at += i + 1;
            self.end = base + at as u64;
            self.pending = Some(Vec::new());
        }
        self.fold.view(later);
        let rest = &new[at..];
        if let Some(p) = self.pending.as_mut() {
            if p.len() + rest.len() <= MAX_LINE {
                p.extend_from_slice(rest);
            } else {
                self.pending = None;
            }
        }
    }

    fn torn(&self) -> bool {
        self.id.len > self.end
    }

    /// Fold the file from `from` to its length at `id`, checking first
    /// that it still holds `self.check` just before `from`. False when it
    /// does not (not an append).
    fn read_on(&mut self, file: &File, from: u64, counted: &dyn Fn(u64)) -> io::Result<bool> {
        let start = from - self.check.len() as u64;
        let mut buf = vec![0u8; (self.id.len - start) as usize];
        read_at(file, &mut buf, start)?;
        if !buf.starts_with(&self.check) {
            return Ok(false);
        }
        counted(buf.len() as u64);
        self.feed(from, &buf[self.check.len()..]);
        self.check = self.ending(&buf, start);
        Ok(true)
    }

    /// Fold the whole file (its length at `id`) from its start.
    fn read_all(&mut self, file: &File, counted: &dyn Fn(u64)) -> io::Result<()> {
        let mut at = 0;
        let mut buf = vec![0u8; (self.id.len.min(FOLD_CHUNK as u64)) as usize];
        while at < self.id.len {
            let n = ((self.id.len - at) as usize).min(FOLD_CHUNK);
            read_at(file, &mut buf[..n], at)?;
            counted(n as u64);
            self.feed(at, &buf[..n]);
            at += n as u64;
        }
        // The last bytes again (at most a line and 32 bytes): what the
        // next reading checks.
        let start = self.end.saturating_sub(CHECK as u64).min(self.id.len);
        let start = if self.pending.is_some() {
            start
        } else {
            self.id.len.saturating_sub(CHECK as u64)
        };
        let mut tail = vec![0u8; (self.id.len - start) as usize];
        read_at(file, &mut tail, start)?;
        self.check = tail;
        Ok(())
    }

    /// The check kept after folding `buf` (the file from `start` on).
    fn ending(&self, buf: &[u8], start: u64) -> Vec<u8> {
        let from = match self.pending {
            Some(_) => self.end.saturating_sub(CHECK as u64).max(start) - start,
            None => (buf.len().saturating_sub(CHECK)) as u64,
        };
        buf[(from as usize).min(buf.len())..].to_vec()
    }
}

/// The position of the first `\n` in `hay`, 8 bytes at a time (a byte at
/// a time cost as much as folding the line's status).
fn newline(hay: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const NEWLINES: u64 = ONES * b'\n' as u64;
    let mut at = 0;
    while let Some(word) = hay.get(at..at + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w) ^ NEWLINES;
        if x.wrapping_sub(ONES) & !x & HIGH != 0 {
            break;
        }
        at += 8;
    }
    hay[at..].iter().position(|&b| b == b'\n').map(|i| at + i)
}

fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, at)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = file;
        f.seek(SeekFrom::Start(at))?;
        f.read_exact(buf)
    }
}

fn vanished(e: io::Error) -> StoreError {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        StoreError::Vanished
    } else {
        StoreError::from(e)
    }
}

/// The reading of `relative` in `dir`: inside a cached reading, folded on
/// from the last offset; else folded whole.
pub(crate) fn read(dir: &Path, relative: &str) -> Result<Reading, StoreError> {
    // A name that is a link (or a path through one) is read whole through
    // the store's contained read, bounded as any state file.
    let Some(path) = cache::plain_path(dir, relative) else {
        return whole(dir, relative);
    };
    let file = match atomic::open_regular(&path) {
        Ok(Some(f)) => f,
        Ok(None) => return Err(StoreError::Vanished),
        Err(StoreError::NotRegular)
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) =>
        {
            return whole(dir, relative);
        }
        Err(e) => return Err(e),
    };
    let now = SystemTime::now();
    let id = FileId::of(&file.metadata()?);
    let Some((cache, pass)) = cache::current() else {
        let mut kept = Kept::new(id);
        kept.read_all(&file, &|_| {}).map_err(vanished)?;
        return Ok(kept.fold.reading(kept.torn()));
    };
    let counted = |n: u64| cache.count_read(n);
    let reuse = cache.take::<Kept>(&path).filter(|k| {
        k.id.dev == id.dev
            && k.id.ino == id.ino
            && id.len >= k.id.len
            && (id.len > k.id.len || (id == k.id && k.settled))
    });
    let mut kept = match reuse {
        Some(mut k) => {
            let from = k.id.len;
            k.id = id;
            // A pending line too long to keep cannot be checked: fold the
            // file again.
            let appended = from == id.len
                || (k.pending.is_some() && k.read_on(&file, from, &counted).map_err(vanished)?);
            if appended {
                k
            } else {
                let mut k = Kept::new(id);
                k.read_all(&file, &counted).map_err(vanished)?;
                k
            }
        }
        None => {
            let mut k = Kept::new(id);
            k.read_all(&file, &counted).map_err(vanished)?;
            k
        }
    };
    kept.settled = cache.settled(&id, now);
    let reading = kept.fold.reading(kept.torn());
    cache.put_weighed(pass, &path, kept, id.len.max(1));
    Ok(reading)
}

/// The fold of the file read whole (bounded by the store's state-file
/// limit).
fn whole(dir: &Path, relative: &str) -> Result<Reading, StoreError> {
    let bytes = crate::store::read_in(dir, relative, crate::store::STATE_FILE_LIMIT)?;
    let mut kept = Kept::new(FileId {
        dev: 0,
        ino: 0,
        len: bytes.len() as u64,
        mtime: 0,
        ctime: 0,
    });
    kept.feed(0, &bytes);
    Ok(kept.fold.reading(kept.torn()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::devloop::schema::Stamp;
    use serde::Deserialize;
    use std::borrow::Cow;

    /// A log with every case a fold meets: bugs moving through statuses,
    /// lines that do not parse (and later ones that do), escaped texts,
    /// histories, and more bugs than are listed (the oldest leave).
    fn log() -> Vec<u8> {
        let mut text = String::new();
        for i in 0..MAX_BUGS_LISTED + 150 {
            text.push_str(&format!(
                "{{\"id\":\"bug-{i}\",\"status\":\"open\",\"severity\":\"high\",\"title\":\"t\\\"{i}\\u00e9\",\"affected_units\":[\"u{i}\"]}}\n"
            ));
            if i % 7 == 0 {
                text.push_str(&format!("{{\"id\":\"bug-{i}\",\"status\":\"fixing\",\"severity\":[}}\n"));
            }
            if i % 3 == 0 {
                let j = i / 2;
                text.push_str(&format!(
                    "{{\"id\":\"bug-{j}\",\"status\":\"fixed\",\"severity\":null,\"unit_id\":\"a-be\",\"status_history\":[{{\"ts\":17000{j},\"from\":\"open\",\"to\":\"fixed\",\"by\":\"c\\nd\",\"note\":\"n\"}},{{\"ts\":\"2026-06-01T10:00:00Z\",\"to\":\"fixed\"}},{{\"from\":\"x\"}}]}}\n"
                ));
            }
            if i % 11 == 0 {
                text.push_str("not json\n\n{\"status\":\"open\"}\r\n");
            }
        }
        text.push_str("{\"id\":\"bug-5\",\"status\":\"verified\"}");
        text.into_bytes()
    }

    fn reading_of(kept: &Kept) -> String {
        format!("{:?}", kept.fold.reading(kept.torn()))
    }

    /// Views made once a chunk's lines are folded give what a view made
    /// at every line gives, however the bytes arrive.
    #[test]
    fn views_made_per_chunk_are_those_made_per_line() {
        let bytes = log();
        let id = |len: usize| FileId {
            dev: 0,
            ino: 0,
            len: len as u64,
            mtime: 0,
            ctime: 0,
        };
        let mut by_line = Fold::default();
        let mut offset = 0u64;
        let mut lines = bytes.split(|&b| b == b'\n').peekable();
        while let Some(line) = lines.next() {
            if lines.peek().is_none() {
                break; // the torn last line
            }
            by_line.line(offset, line.strip_suffix(b"\r").unwrap_or(line));
            offset += line.len() as u64 + 1;
        }
        let want = format!("{:?}", by_line.reading(true));

        let mut whole = Kept::new(id(bytes.len()));
        whole.feed(0, &bytes);
        assert_eq!(reading_of(&whole), want);
        for step in [1, 7, 100, 4096] {
            let mut kept = Kept::new(id(bytes.len()));
            for (i, piece) in bytes.chunks(step).enumerate() {
                kept.feed((i * step) as u64, piece);
            }
            assert_eq!(reading_of(&kept), want, "fed {step} bytes at a time");
        }
        assert!(whole.fold.reading(true).bugs.len() == MAX_BUGS_LISTED);
    }

    #[test]
    fn the_first_newline_is_found_at_any_offset() {
        for len in 0..40 {
            for nl in 0..=len {
                let mut hay = vec![b'x'; len];
                if nl < len {
                    hay[nl] = b'\n';
                    if nl + 3 < len {
                        hay[nl + 3] = b'\n';
                    }
                }
                let want = hay.iter().position(|&b| b == b'\n');
                assert_eq!(newline(&hay), want, "{len} {nl}");
            }
        }
        assert_eq!(newline("é\n".as_bytes()), Some(2));
    }

    /// The line as it was read before its texts were borrowed.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct OwnedLine {
        id: String,
        status: String,
        #[serde(default)]
        severity: Option<String>,
        #[serde(default)]
        title: Option<String>,
        #[serde(default)]
        unit_id: Option<String>,
        #[serde(default, deserialize_with = "crate::formats::json::nullable")]
        affected_units: Vec<String>,
        #[serde(default, deserialize_with = "crate::formats::json::nullable")]
        status_history: Vec<OwnedEntry>,
    }

    #[derive(Debug, Default, Deserialize)]
    #[serde(default)]
    #[allow(dead_code)]
    struct OwnedEntry {
        ts: Option<Stamp>,
        from: Option<String>,
        to: Option<String>,
        by: Option<String>,
        note: Option<String>,
    }

    /// A borrowed line accepts exactly the lines an owned one did, and
    /// borrows every text without an escape.
    #[test]
    fn a_borrowed_line_accepts_what_an_owned_line_did() {
        let lines: Vec<&[u8]> = vec![
            br#"{"id":"b","status":"open"}"#,
            br#"{"id":"b\"q","status":"op\u00e9n","title":"\ud83d\ude00"}"#,
            br#"{"id":"b","status":"open","title":"\ud800"}"#,
            br#"{"id":"b","status":"open","severity":null,"affected_units":null,"status_history":null}"#,
            br#"{"id":"b","status":"open","affected_units":[null]}"#,
            br#"{"id":"b","status":"open","affected_units":["a",1]}"#,
            br#"{"id":7,"status":"open"}"#,
            br#"{"id":"b"}"#,
            br#"{"id":"b","status":"open","id":"c"}"#,
            br#"{"id":"b","status":"open","status_history":[{"ts":1.5e9},{"ts":"x"},{}]}"#,
            br#"{"id":"b","status":"open","status_history":[{"ts":true}]}"#,
            br#"{"id":"b","status":"open","status_history":[{"ts":null,"to":null}]}"#,
            br#"{"id":"b","status":"open","status_history":[{"to":["x"]}]}"#,
            br#"{"id":"b","status":"open","status_history":[5]}"#,
            br#"{"id":"b","status":"open","status_history":{}}"#,
            br#"{"id":"b","status":"open","extra":{"deep":[1,2,{"x":"\n"}]}}"#,
            br#"{"id":"b","status":"open"} trailing"#,
            br#"["b","open"]"#,
            b"{\"id\":\"b\",\"status\":\"\xff\"}",
            b"{\"id\":\"b\",\"status\":\"open\",\"note\":\"\xff\"}",
        ];
        for line in lines {
            let owned = serde_json::from_slice::<OwnedLine>(line).is_ok();
            let borrowed = serde_json::from_slice::<BugLine<'_>>(line);
            assert_eq!(
                borrowed.is_ok(),
                owned,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        let b: BugLine<'_> = serde_json::from_slice(
            br#"{"id":"b","status":"o\"pen","title":"t","status_history":[{"ts":"x","by":"y"}]}"#,
        )
        .unwrap();
        assert!(matches!(b.id.0, Cow::Borrowed("b")));
        assert!(matches!(b.status.0, Cow::Owned(ref s) if s == "o\"pen"));
        assert!(matches!(b.title.map(|t| t.0), Some(Cow::Borrowed("t"))));
        let h = &b.status_history[0];
        assert!(matches!(h.by.as_ref().map(|t| &t.0), Some(Cow::Borrowed("y"))));
        assert_eq!(h.ts.as_ref().map(|t| t.text()).as_deref(), Some("x"));
    }
}
