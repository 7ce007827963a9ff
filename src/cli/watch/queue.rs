//! The queue between the engine and the feed's writer, bounded whatever
//! the reader does.
//!
//! The feed's loop writes each line before it takes the next message, so
//! a reader that stops reading (a full pipe, a stalled SSH session) stops
//! the loop in a write. The file watcher does not stop: an agent appending
//! 3,000 events a second sends 3,000 "changed" messages a second, and an
//! unbounded channel kept every one (+43 MB in 80 s, never given back).
//! Here the changed paths are merged as they arrive (a path already
//! waiting is not kept twice; past [`MAX_PATHS`] distinct paths they
//! become "anything may have changed", one full reading), and how changes
//! are noticed keeps only its latest state. When the reader reads again
//! the loop takes one merged change, reads once, and the feed says what
//! differs from what it last wrote: the projects' rows, and a
//! `timeline_gap` before the events a reading still holds when more were
//! appended than it holds.
//!
//! What else arrives is bounded by the engine itself: one reading in
//! flight at a time (and its problems), a stop.

use std::collections::{BTreeSet, VecDeque};
use std::path::PathBuf;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

use loopdeck_core::fleet::HostEvent;
use loopdeck_core::follow::{self as watch, Liveness};
use loopdeck_core::model::HostName;

/// Distinct changed paths kept while the loop is busy; past this, the
/// next reading reads everything (which is what so many changes cost
/// anyway).
pub const MAX_PATHS: usize = 1024;

/// What the feed's loop takes from the queue.
#[derive(Debug)]
pub enum Msg {
    Feed(watch::Msg),
    /// A line or a state change of another host (`watch --host`).
    Host(Box<HostEvent>),
    /// That many of a host's lines were dropped: the reader fell behind.
    HostGap(HostName, usize),
    /// A signal asked the run to end, or the reader went away.
    Stop,
}

/// Changed paths waiting for the loop.
#[derive(Debug)]
enum Changed {
    Paths(BTreeSet<PathBuf>),
    /// Anything may have changed: read everything.
    All,
}

#[derive(Default)]
struct State {
    stop: bool,
    changed: Option<Changed>,
    /// A poll's time came (merged: one is as good as many).
    poll: bool,
    liveness: Option<Liveness>,
    /// The engine asked to say how changes are noticed again (merged).
    restate: bool,
    /// Readings and root problems, in the order they came.
    rest: VecDeque<watch::Msg>,
    /// Other hosts' lines, in the order they came; at most
    /// [`MAX_HOST_LINES`], the oldest dropped (and counted) beyond.
    hosts: VecDeque<HostEvent>,
    dropped: Vec<(HostName, usize)>,
}

/// Other hosts' lines kept for a reader that falls behind.
const MAX_HOST_LINES: usize = 10_000;

/// A queue that merges what can be merged; see the module's doc.
#[derive(Default)]
pub struct Queue {
    state: Mutex<State>,
    ready: Condvar,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Add `msg`, merged with what waits.
    pub fn push(&self, msg: Msg) {
        let mut s = self.lock();
        match msg {
            Msg::Stop => s.stop = true,
            Msg::Feed(watch::Msg::Changed(paths)) => {
                s.changed = Some(match s.changed.take() {
                    Some(Changed::All) => Changed::All,
                    _ if paths.is_empty() => Changed::All,
                    None => Changed::Paths(paths.into_iter().collect()),
                    Some(Changed::Paths(mut set)) => {
                        set.extend(paths);
                        Changed::Paths(set)
                    }
                });
                if let Some(Changed::Paths(set)) = &s.changed
                    && set.len() > MAX_PATHS
                {
                    s.changed = Some(Changed::All);
                }
            }
            Msg::Feed(watch::Msg::Liveness(l)) => s.liveness = Some(l),
            Msg::Feed(watch::Msg::Poll) => s.poll = true,
            Msg::Feed(watch::Msg::Restate) => s.restate = true,
            Msg::Feed(other) => s.rest.push_back(other),
            Msg::Host(e) => {
                s.hosts.push_back(*e);
                if s.hosts.len() > MAX_HOST_LINES
                    && let Some(lost) = s.hosts.pop_front()
                {
                    match s.dropped.iter_mut().find(|(h, _)| *h == lost.host) {
                        Some((_, n)) => *n += 1,
                        None => s.dropped.push((lost.host, 1)),
                    }
                }
            }
            Msg::HostGap(..) => {}
        }
        drop(s);
        self.ready.notify_one();
    }

    /// The next message, waiting for one until `deadline` (`None`:
    /// forever); `None` when the deadline passed first. A stop comes
    /// first, then the merged changes (a change taken before the reading
    /// in flight ends only makes the engine read again after it).
    pub fn pop(&self, deadline: Option<Instant>) -> Option<Msg> {
        let mut s = self.lock();
        loop {
            if s.stop {
                return Some(Msg::Stop);
            }
            if let Some(c) = s.changed.take() {
                let paths = match c {
                    Changed::All => Vec::new(),
                    Changed::Paths(set) => set.into_iter().collect(),
                };
                return Some(Msg::Feed(watch::Msg::Changed(paths)));
            }
            if std::mem::take(&mut s.poll) {
                return Some(Msg::Feed(watch::Msg::Poll));
            }
            if let Some(l) = s.liveness.take() {
                return Some(Msg::Feed(watch::Msg::Liveness(l)));
            }
            if std::mem::take(&mut s.restate) {
                return Some(Msg::Feed(watch::Msg::Restate));
            }
            if let Some(m) = s.rest.pop_front() {
                return Some(Msg::Feed(m));
            }
            if !s.dropped.is_empty() {
                let (host, n) = s.dropped.remove(0);
                return Some(Msg::HostGap(host, n));
            }
            if let Some(e) = s.hosts.pop_front() {
                return Some(Msg::Host(Box::new(e)));
            }
            s = match deadline {
                None => self.ready.wait(s).unwrap_or_else(|e| e.into_inner()),
                Some(at) => {
                    let left = at.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return None;
                    }
                    self.ready
                        .wait_timeout(s, left)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use std::path::Path;
    use std::time::Duration;

    fn changed(q: &Queue, p: &str) {
        q.push(Msg::Feed(watch::Msg::Changed(vec![PathBuf::from(p)])));
    }

    fn paths(m: Option<Msg>) -> Vec<PathBuf> {
        match m {
            Some(Msg::Feed(watch::Msg::Changed(p))) => p,
            other => panic!("not a change: {other:?}"),
        }
    }

    #[test]
    fn polls_and_restatements_merge_while_the_loop_is_busy() {
        let q = Queue::default();
        for _ in 0..10_000 {
            q.push(Msg::Feed(watch::Msg::Poll));
            q.push(Msg::Feed(watch::Msg::Restate));
        }
        assert!(matches!(q.pop(None), Some(Msg::Feed(watch::Msg::Poll))));
        assert!(matches!(q.pop(None), Some(Msg::Feed(watch::Msg::Restate))));
        let soon = Some(Instant::now() + Duration::from_millis(50));
        assert!(q.pop(soon).is_none(), "one of each, however many came");
    }

    #[test]
    fn changes_merge_while_the_loop_is_busy() {
        let q = Queue::default();
        for _ in 0..10_000 {
            changed(&q, "/w/a/timeline.ndjson");
            changed(&q, "/w/b/STATE.md");
        }
        assert_eq!(
            paths(q.pop(None)),
            [
                Path::new("/w/a/timeline.ndjson"),
                Path::new("/w/b/STATE.md")
            ]
        );
        let soon = Instant::now() + Duration::from_millis(1);
        assert!(q.pop(Some(soon)).is_none(), "nothing else was waiting");
    }

    #[test]
    fn too_many_paths_become_read_everything() {
        let q = Queue::default();
        for i in 0..=MAX_PATHS {
            changed(&q, &format!("/w/p{i}/state.json"));
        }
        assert!(paths(q.pop(None)).is_empty(), "read everything");
        changed(&q, "/w/a");
        q.push(Msg::Feed(watch::Msg::Changed(Vec::new())));
        changed(&q, "/w/b");
        assert!(paths(q.pop(None)).is_empty(), "everything stays everything");
    }

    #[test]
    fn stop_comes_first_and_liveness_keeps_its_latest() {
        let q = Queue::default();
        q.push(Msg::Feed(watch::Msg::Liveness(Liveness::Starting)));
        q.push(Msg::Feed(watch::Msg::RootProblems(vec!["x".into()])));
        q.push(Msg::Feed(watch::Msg::Liveness(Liveness::Live {
            watches: 3,
        })));
        assert!(matches!(
            q.pop(None),
            Some(Msg::Feed(watch::Msg::Liveness(Liveness::Live {
                watches: 3
            })))
        ));
        q.push(Msg::Stop);
        assert!(matches!(q.pop(None), Some(Msg::Stop)));
        assert!(matches!(q.pop(None), Some(Msg::Stop)), "a stop stays");
    }
}
