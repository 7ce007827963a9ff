//! Following projects on disk as they change, for any front end (the
//! console, `loopdeck watch --json`). A watcher (or a poll) reports changed
//! paths; [`schedule`] decides what to read and when (one read at a time,
//! a change re-reads only the projects its paths belong to); readings run
//! on worker threads through one [`ReadCache`]. Every answer reaches the
//! front end's one channel as a [`Msg`]; the front end hands it back to its
//! [`Engine`] and applies the reading to its own model. No terminal here.

mod loader;
pub(crate) mod schedule;
testing_pub!(
    pub mod watcher;
);

use std::collections::BTreeSet;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::model::Project;
use crate::store::cache::ReadCache;
pub use loader::job_worker;
pub use schedule::Target;
use schedule::{Action, Schedule};
pub use watcher::Mode;

/// After a file changes, wait this long for the rest of a burst (a writer's
/// temp file, then its rename) before reading again.
pub(crate) const SETTLE: Duration = Duration::from_millis(30);

/// Reads start at least this far apart: a writer that never stops (an
/// agent appending a thousand lines a second) costs a few readings and
/// frames a second, not one per settle; a change after a quiet spell is
/// still read after the settle alone.
pub(crate) const MIN_GAP: Duration = Duration::from_millis(100);

/// Without a watcher, look again this often unless configured otherwise
/// (a full read costs ~35 ms per 1,000 projects, so this keeps an idle
/// console well under 1% of a core).
pub(crate) const POLL_EVERY: Duration = Duration::from_secs(10);

/// A poll's full reading takes at most a tenth of the time: the next one
/// starts no sooner than this many times as long as the last full reading
/// took after it ended. At 100,000 projects a reading takes ~10 s: polled
/// every 10 s the console read without a pause (1.5 cores, idle); the
/// period said (`Liveness::Polling`'s `every_secs`) is the longer one.
pub(crate) const POLL_SPACING: u32 = 9;

/// How changes are noticed: what the header (and the `watch` feed) says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Liveness {
    /// Watches are being set up (the first reading does not wait for them).
    Starting,
    /// Every directory the walk reads is watched.
    Live {
        /// How many directories are watched.
        watches: usize,
    },
    /// Changes are looked for every `every_secs` seconds, because of
    /// `reason` (the watcher could not start, the watch limit was reached,
    /// events were lost).
    Polling {
        /// Seconds between two looks.
        every_secs: u64,
        /// Why it polls, in one sentence.
        reason: String,
    },
}

/// One reading's answer.
#[derive(Debug)]
pub enum Reading {
    /// Every project of every root (strings as the files hold them).
    All(Vec<Project>),
    /// The projects in exactly `dirs`, and every one under `trees`. A
    /// project known there and missing from `projects` is missing on disk.
    Part {
        /// Directories read alone (not what is below them).
        dirs: Vec<PathBuf>,
        /// Directories read with everything below them.
        trees: Vec<PathBuf>,
        /// The projects found there.
        projects: Vec<Project>,
    },
    /// The reading failed (a panic in a reader): say so, never stall.
    Failed(String),
}

/// What reaches the front end's channel from the engine; every one is
/// handed back to [`Engine::handle`].
#[derive(Debug)]
pub enum Msg {
    /// Files changed at these paths; none: anything may have changed (an
    /// overflow, the watches just set up): read everything.
    Changed(Vec<PathBuf>),
    /// The poll's time came (no events to trust): read everything, unless
    /// the last full reading ended too recently for its cost (see
    /// `POLL_SPACING`).
    Poll,
    /// The read `id` is done. `escalate`: a partial read met problems only
    /// a full read reports: the engine reads everything next.
    Read {
        /// The read's id, as the engine asked for it.
        id: u64,
        /// What it found.
        reading: Reading,
        /// Read everything next.
        escalate: bool,
        /// How long the reading took on its worker (a front end's delay
        /// in taking this message not counted).
        took: Duration,
    },
    /// What a full reading could not read at the level of roots and
    /// directories ("path: reason"), sent before its `Read`.
    RootProblems(Vec<String>),
    /// How changes are noticed now.
    Liveness(Liveness),
    /// The engine's own: say again how changes are noticed (the period a
    /// poll's reading is spaced by changed). Restates the latest
    /// `Liveness` taken when it is taken, so a newer one queued before it
    /// is never undone.
    Restate,
}

/// What a front end applies of an engine message ([`Engine::handle`]
/// keeps the rest).
#[derive(Debug)]
pub enum Update {
    /// A reading to apply to the front end's projects.
    Reading(Reading),
    /// What a full reading could not read at the level of roots.
    RootProblems(Vec<String>),
    /// How changes are noticed now.
    Liveness(Liveness),
}

/// Where the engine's messages go: the front end's channel, whatever its
/// message type.
#[derive(Clone)]
pub struct Sink(Arc<dyn Fn(Msg) -> bool + Send + Sync>);

impl Sink {
    /// Send every message down `tx`, turned into the front end's own
    /// message type.
    pub fn new<T: From<Msg> + Send + 'static>(tx: Sender<T>) -> Self {
        Self(Arc::new(move |m| tx.send(T::from(m)).is_ok()))
    }

    /// Hand every message to `f` (a front end's own queue); `f` answers
    /// false when the front end is gone.
    pub fn from_fn(f: impl Fn(Msg) -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// Send `msg`; false when the front end is gone.
    pub fn send(&self, msg: Msg) -> bool {
        (self.0)(msg)
    }
}

/// Settings of a run.
#[derive(Debug, Clone)]
pub struct Options {
    /// How often to look when events cannot be had.
    pub poll_every: Duration,
    /// How often the reconciliation scan stats the watched directories
    /// (stretched when one scan costs more than 1/400 of that time).
    pub reconcile_every: Duration,
    /// Events when possible, or polling only.
    pub mode: Mode,
    /// Testing knob: adding watch N+1 fails as the inotify limit does
    /// (also `LOOPDECK_MAX_WATCHES=N`).
    pub max_watches: Option<usize>,
}

/// The reconciliation scan's period unless configured otherwise.
pub(crate) const RECONCILE_EVERY: Duration = Duration::from_secs(45);

impl Default for Options {
    fn default() -> Self {
        Self {
            poll_every: POLL_EVERY,
            reconcile_every: RECONCILE_EVERY,
            mode: Mode::Auto,
            max_watches: None,
        }
    }
}

/// One run's following of `roots`.
pub struct Engine {
    roots: Vec<PathBuf>,
    /// Each root as the watcher spells it, with the root as given.
    spelled: Vec<(PathBuf, PathBuf)>,
    sched: Schedule,
    /// The directories of the projects last read, to map changed paths to
    /// projects.
    known: BTreeSet<PathBuf>,
    wake: Option<Instant>,
    sink: Sink,
    cache: Arc<ReadCache>,
    /// The full reading in flight: its id.
    all_reading: Option<u64>,
    /// The last full reading: when it ended, and how long it took.
    all_last: Option<(Instant, Duration)>,
    /// How changes are noticed, as the watcher last said it.
    liveness: Option<Liveness>,
    _watcher: watcher::Handle,
}

impl Engine {
    /// Start following `roots`: the first full reading starts at once; the
    /// watches are set up beside it (`Msg::Liveness` says when they are).
    pub fn start(roots: Vec<PathBuf>, sink: Sink, opts: &Options) -> Self {
        let watcher = watcher::spawn(roots.clone(), sink.clone(), opts.clone());
        let mut engine = Self {
            spelled: loader::spellings(&roots),
            roots,
            sched: Schedule::new(SETTLE).with_min_gap(MIN_GAP),
            known: BTreeSet::new(),
            wake: None,
            sink,
            cache: Arc::new(ReadCache::new()),
            all_reading: None,
            all_last: None,
            liveness: None,
            _watcher: watcher,
        };
        engine.reload(Instant::now());
        engine
    }

    /// Take one of the engine's messages: follow a change, learn from a
    /// reading and start what is due; answer what the front end applies.
    pub fn handle(&mut self, msg: Msg, now: Instant) -> Option<Update> {
        match msg {
            Msg::Changed(paths) => {
                self.changed(&paths, now);
                None
            }
            Msg::Poll => {
                if self.poll_due(now) {
                    let actions = self.sched.changed_all(now);
                    self.perform(actions);
                }
                None
            }
            Msg::Read {
                id,
                reading,
                escalate,
                took,
            } => {
                self.read_done(id, &reading, escalate, took, now);
                Some(Update::Reading(reading))
            }
            Msg::RootProblems(p) => Some(Update::RootProblems(p)),
            Msg::Liveness(l) => {
                self.liveness = Some(l.clone());
                Some(Update::Liveness(self.said(l)))
            }
            Msg::Restate => match &self.liveness {
                Some(l @ Liveness::Polling { .. }) => Some(Update::Liveness(self.said(l.clone()))),
                _ => None,
            },
        }
    }

    /// Seconds between two polls' readings, as the last full reading's
    /// cost spaces them (0: no full reading yet).
    fn spacing_secs(&self) -> u64 {
        self.all_last.map_or(0, |(_, took)| {
            took.saturating_mul(POLL_SPACING).as_secs_f64().ceil() as u64
        })
    }

    /// How changes are noticed, with the period polls really have.
    fn said(&self, l: Liveness) -> Liveness {
        match l {
            // 0: nothing polls (the watcher thread did not start).
            Liveness::Polling { every_secs, reason } if every_secs > 0 => Liveness::Polling {
                every_secs: every_secs.max(self.spacing_secs()),
                reason,
            },
            other => other,
        }
    }

    /// May a poll read everything now? Not while a full reading is in
    /// flight, nor before the spacing after the last one has passed.
    fn poll_due(&self, now: Instant) -> bool {
        if self.all_reading.is_some() {
            return false;
        }
        self.all_last.is_none_or(|(ended, took)| {
            now.saturating_duration_since(ended) >= took.saturating_mul(POLL_SPACING)
        })
    }

    /// Files changed at `paths` (`Msg::Changed`).
    fn changed(&mut self, paths: &[PathBuf], now: Instant) {
        let actions = match loader::targets(paths, &self.spelled, &self.roots, &self.known) {
            Some(t) => self.sched.changed(t, now),
            None => self.sched.changed_all(now),
        };
        self.perform(actions);
    }

    /// Read these targets again after the settle (a front end's own
    /// reason: a broken reading held, a decision written).
    pub fn reread(&mut self, targets: Vec<Target>, now: Instant) {
        let actions = self.sched.changed(targets, now);
        self.perform(actions);
    }

    /// `targets` were just written by the front end (a decision): read
    /// them after the settle, without the read gap; changes the watcher
    /// reports for the same write join this read.
    pub fn written(&mut self, targets: Vec<Target>, now: Instant) {
        let actions = self.sched.written(targets, now);
        self.perform(actions);
    }

    /// Read everything now (or right after the read in flight).
    pub fn reload(&mut self, now: Instant) {
        let actions = self.sched.full_reload(now);
        self.perform(actions);
    }

    /// The read `id` is done with `reading` (`Msg::Read`): learn the
    /// projects it found, and start what is due next.
    fn read_done(
        &mut self,
        id: u64,
        reading: &Reading,
        escalate: bool,
        took: Duration,
        now: Instant,
    ) {
        if self.all_reading == Some(id) {
            self.all_reading = None;
            let before = self.spacing_secs();
            self.all_last = Some((now, took));
            // Polling: say the period the cost now gives (through `handle`,
            // after what the front end has queued meanwhile).
            if matches!(self.liveness, Some(Liveness::Polling { .. }))
                && self.spacing_secs() != before
            {
                let _ = self.sink.send(Msg::Restate);
            }
        }
        match reading {
            Reading::All(projects) => {
                self.known = projects.iter().map(|p| p.path.clone()).collect();
            }
            Reading::Part {
                dirs,
                trees,
                projects,
            } => {
                // Each directory, and the run of paths under each tree
                // (the set's order keeps a tree's paths together), not a
                // look at every project known for each reading.
                for d in dirs {
                    self.known.remove(d);
                }
                for t in trees {
                    let under: Vec<PathBuf> = self
                        .known
                        .range::<Path, _>((Bound::Included(t.as_path()), Bound::Unbounded))
                        .take_while(|k| k.starts_with(t))
                        .cloned()
                        .collect();
                    for k in under {
                        self.known.remove(&k);
                    }
                }
                self.known.extend(projects.iter().map(|p| p.path.clone()));
            }
            Reading::Failed(_) => {}
        }
        if escalate {
            let actions = self.sched.full_reload(now);
            self.perform(actions);
        }
        let actions = self.sched.read_done(id, now);
        self.perform(actions);
    }

    /// When [`Engine::tick`] is next due, if ever.
    pub fn wake_at(&self) -> Option<Instant> {
        self.wake
    }

    /// The time is `now`: start what is due.
    pub fn tick(&mut self, now: Instant) {
        if self.wake.is_some_and(|at| at <= now) {
            self.wake = None;
            let actions = self.sched.tick(now);
            self.perform(actions);
        }
    }

    fn perform(&mut self, actions: Vec<Action>) {
        for a in actions {
            match a {
                Action::ReadAll { id } => {
                    self.all_reading = Some(id);
                    loader::load(
                        self.roots.clone(),
                        self.cache.clone(),
                        self.sink.clone(),
                        id,
                    );
                }
                Action::ReadSome { id, targets } => loader::read_some(
                    self.roots.clone(),
                    targets,
                    self.cache.clone(),
                    self.sink.clone(),
                    id,
                ),
                Action::WakeAt(at) => self.wake = Some(at),
            }
        }
    }
}

#[cfg(test)]
mod tests;
