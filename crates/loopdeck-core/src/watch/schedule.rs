//! When to read projects again: a small pure state machine, in the style of
//! `app::update`. No threads, no clock (the time is passed in), no I/O: the
//! loop feeds it what happened and does what it answers.
//!
//! Rules: a change waits a short settle time (the rest of a burst: a
//! writer's temp file, then its rename) before it is read; at most one read
//! is in flight; changes arriving during a read are gathered into one
//! follow-up read of just what they touched; reads start at least a
//! minimum gap apart (under a writer that never stops, the screen is
//! brought up to date a few times a second, not after every line); a full reload asked for during
//! a read runs once after it, and covers the changes gathered meanwhile.
//! Nothing asked for is dropped.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What a change asks to read again.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// The project(s) in exactly this directory.
    Dir(PathBuf),
    /// Every project under this directory (discovered again: new ones
    /// appear, removed ones go).
    Tree(PathBuf),
}

/// What the loop must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    /// Read these targets; answer with `read_done(id, ..)`.
    ReadSome {
        /// The read's id.
        id: u64,
        /// What to read.
        targets: Vec<Target>,
    },
    /// Read every project of every root; answer with `read_done(id, ..)`.
    ReadAll {
        /// The read's id.
        id: u64,
    },
    /// Call `tick` at this time (nothing is due before).
    WakeAt(Instant),
}

/// When to read what: the engine's pure scheduler. Changes are gathered
/// until they settle, reads never overlap, and two reads start at least a
/// gap apart (unless a front end's own write asks for one at once).
#[derive(Debug)]
pub(crate) struct Schedule {
    settle: Duration,
    next_id: u64,
    /// The read in flight.
    reading: Option<u64>,
    /// Targets changed and not yet read.
    waiting: BTreeSet<Target>,
    /// A full read is wanted.
    all: bool,
    /// When what is wanted may be read.
    due: Option<Instant>,
    /// The least time between the starts of two reads.
    min_gap: Duration,
    /// When the last read started.
    last_start: Option<Instant>,
    /// What is wanted is read without the gap (a front end's own write).
    urgent: bool,
}

impl Schedule {
    /// A scheduler that waits `settle` after the last change before
    /// reading, with no gap between reads.
    pub(crate) fn new(settle: Duration) -> Self {
        Self {
            settle,
            next_id: 0,
            reading: None,
            waiting: BTreeSet::new(),
            all: false,
            due: None,
            min_gap: Duration::ZERO,
            last_start: None,
            urgent: false,
        }
    }

    /// Start reads at least `gap` apart (a change after a quiet spell is
    /// still read after the settle alone).
    pub(crate) fn with_min_gap(mut self, gap: Duration) -> Self {
        self.min_gap = gap;
        self
    }

    /// Is a read in flight?
    #[cfg(test)]
    pub(crate) fn reading(&self) -> bool {
        self.reading.is_some()
    }

    /// Files changed that belong to `targets`: read them after the settle.
    pub(crate) fn changed(
        &mut self,
        targets: impl IntoIterator<Item = Target>,
        now: Instant,
    ) -> Vec<Action> {
        let before = self.waiting.len();
        self.waiting.extend(targets);
        if self.waiting.len() == before && !self.all {
            // Nothing new (or nothing at all): what is due stays due.
            return self.tick(now);
        }
        self.due.get_or_insert(now + self.settle);
        self.tick(now)
    }

    /// `targets` were just written by the front end itself (a decision):
    /// read them after the settle (the watcher's events for the same write
    /// join the read) but without the gap (or as soon as the read in
    /// flight is done).
    pub(crate) fn written(
        &mut self,
        targets: impl IntoIterator<Item = Target>,
        now: Instant,
    ) -> Vec<Action> {
        self.waiting.extend(targets);
        self.urgent = true;
        let at = now + self.settle;
        self.due = Some(self.due.map_or(at, |d| d.min(at)));
        self.tick(now)
    }

    /// Something changed that no target names (an overflow, a poll): read
    /// everything after the settle.
    pub(crate) fn changed_all(&mut self, now: Instant) -> Vec<Action> {
        self.all = true;
        self.due.get_or_insert(now + self.settle);
        self.tick(now)
    }

    /// Read everything now (or as soon as the read in flight is done).
    pub(crate) fn full_reload(&mut self, now: Instant) -> Vec<Action> {
        self.all = true;
        self.due = Some(self.due.map_or(now, |d| d.min(now)));
        self.tick(now)
    }

    /// The read `id` finished (well or not).
    pub(crate) fn read_done(&mut self, id: u64, now: Instant) -> Vec<Action> {
        if self.reading == Some(id) {
            self.reading = None;
        }
        self.tick(now)
    }

    /// The time is `now`: start what is due.
    pub(crate) fn tick(&mut self, now: Instant) -> Vec<Action> {
        if self.reading.is_some() {
            // The follow-up is looked at when this read is done.
            return Vec::new();
        }
        let wanted = self.all || !self.waiting.is_empty();
        match self.due {
            Some(_) if !wanted => {
                self.due = None;
                Vec::new()
            }
            Some(at) => {
                let at = match self.last_start {
                    Some(s) if !self.urgent => at.max(s + self.min_gap),
                    _ => at,
                };
                if at <= now {
                    vec![self.start(now)]
                } else {
                    vec![Action::WakeAt(at)]
                }
            }
            None => Vec::new(),
        }
    }

    fn start(&mut self, now: Instant) -> Action {
        self.last_start = Some(now);
        self.urgent = false;
        self.next_id += 1;
        let id = self.next_id;
        self.reading = Some(id);
        self.due = None;
        if std::mem::take(&mut self.all) {
            // A full read covers every change gathered.
            self.waiting.clear();
            Action::ReadAll { id }
        } else {
            let targets = std::mem::take(&mut self.waiting).into_iter().collect();
            Action::ReadSome { id, targets }
        }
    }
}

/// Which targets a changed `path` asks to read again, given the roots and
/// the directories of the known projects (any order). `None`: read
/// everything (a path outside every root).
///
/// The owner is the deepest project directory holding the path: it is read
/// again. Below the owner (or the root, when no project holds the path),
/// the top directory the path is in is discovered again (it may be, or
/// hold, a new project; for a file, that costs one stat), unless it is a
/// format's own directory (`own`), which never holds another project.
pub(crate) fn targets_of(
    path: &std::path::Path,
    roots: &[PathBuf],
    projects: &BTreeSet<PathBuf>,
    own: &[&str],
) -> Option<Vec<Target>> {
    let root = roots.iter().find(|r| path.starts_with(r))?;
    let owner = path
        .ancestors()
        .take_while(|a| a.starts_with(root))
        .find(|a| projects.contains(*a));
    let base = owner.unwrap_or(root);
    let rel = path.strip_prefix(base).ok()?;
    let mut parts = rel.components();
    let first = parts.next();
    let deeper = parts.next().is_some();
    let mut out = Vec::new();
    if let Some(p) = owner {
        out.push(Target::Dir(p.to_path_buf()));
    }
    match first {
        // The root itself (removed, recreated): read everything, root
        // problems included.
        None if owner.is_none() => return None,
        None => {}
        Some(c) => {
            let own_dir = c.as_os_str().to_str().is_some_and(|c| own.contains(&c));
            // A file straight in a root (or in a format's own directory
            // there) may make the root a project.
            if owner.is_none() && (own_dir || !deeper) {
                out.push(Target::Dir(root.clone()));
            }
            // A directory below may be, or hold, a new project.
            if !own_dir {
                out.push(Target::Tree(base.join(c)));
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests;
