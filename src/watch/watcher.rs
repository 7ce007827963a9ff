//! Telling the engine that files changed: a notify watcher on each root,
//! or, when the platform refuses one, a poll.
//!
//! Events are filtered here (reads, and churn in build or VCS directories,
//! never change a project) and debounced by the schedule, which waits a
//! short settle time after the first change before reading again. The
//! debouncer crates run a ticking thread; this way an idle console does
//! not wake.
//!
//! The watches are set up on their own thread, so the first reading (and
//! the first frame) never waits for them; `Msg::Liveness` says when they
//! are in place, or why changes are polled for instead.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread;

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::{Liveness, Msg, Options, Sink};

/// Directories whose churn never changes a project (build output, VCS):
/// the same list the walk skips (`store::NOISE_DIRS`).
fn noise(path: &Path) -> bool {
    path.components().any(|c| {
        c.as_os_str()
            .to_str()
            .is_some_and(crate::store::is_noise_dir)
    })
}

/// Does this event change what a project shows?
fn relevant(e: &Event) -> bool {
    // Opening and reading a file (which loopdeck itself does) is not a change.
    !matches!(e.kind, EventKind::Access(_)) && e.paths.iter().any(|p| !noise(p))
}

/// What the loop is told of a watcher's report: the changed paths (build
/// and VCS churn left out), or no paths when anything may have changed (an
/// overflow: notify's `Rescan` carries no paths; an error; an event
/// without paths). `None`: nothing a project shows changed.
fn message(res: notify::Result<Event>) -> Option<Msg> {
    let Ok(e) = res else {
        return Some(Msg::Changed(Vec::new()));
    };
    if e.need_rescan() || e.paths.is_empty() {
        return Some(Msg::Changed(Vec::new()));
    }
    if !relevant(&e) {
        return None;
    }
    Some(Msg::Changed(
        e.paths.into_iter().filter(|p| !noise(p)).collect(),
    ))
}

/// A watcher on `roots`; each relevant change sends `Msg::Changed` with
/// its paths. `Err`: why the platform refuses (then poll).
pub(super) fn start(roots: &[PathBuf], sink: Sink) -> Result<RecommendedWatcher, String> {
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<Event>| {
        if let Some(msg) = message(res) {
            let _ = sink.send(msg);
        }
    })
    .map_err(|e| format!("no watcher: {e}"))?;
    // A root that does not exist is a problem in the header (the loader
    // says so); it must not send every other root to polling.
    for root in roots.iter().filter(|r| r.is_dir()) {
        watcher
            .watch(root, RecursiveMode::Recursive)
            .map_err(|e| format!("cannot watch {}: {e}", root.display()))?;
    }
    Ok(watcher)
}

/// The watching thread; dropping the handle stops it.
pub struct Handle {
    _stop: Sender<()>,
}

/// Set up the watches on `roots` on a thread of their own, say how changes
/// will be noticed, and poll when they cannot be watched.
pub fn spawn(roots: Vec<PathBuf>, sink: Sink, opts: Options) -> Handle {
    let (stop, stopped) = mpsc::channel::<()>();
    let _ = sink.send(Msg::Liveness(Liveness::Starting));
    let fail = sink.clone();
    let spawned = thread::Builder::new()
        .name("loopdeck-watcher".to_owned())
        .spawn(move || {
            let _watcher = match start(&roots, sink.clone()) {
                Ok(w) => {
                    let _ = sink.send(Msg::Liveness(Liveness::Live { watches: 0 }));
                    Some(w)
                }
                Err(reason) => {
                    let _ = sink.send(Msg::Liveness(Liveness::Polling {
                        every_secs: opts.poll_every.as_secs(),
                        reason,
                    }));
                    None
                }
            };
            loop {
                match stopped.recv_timeout(opts.poll_every) {
                    Err(RecvTimeoutError::Timeout) => {
                        if _watcher.is_none() && !sink.send(Msg::Changed(Vec::new())) {
                            return;
                        }
                    }
                    _ => return,
                }
            }
        });
    if let Err(e) = spawned {
        let _ = fail.send(Msg::Liveness(Liveness::Polling {
            every_secs: 0,
            reason: format!("the watcher thread did not start: {e}"),
        }));
    }
    Handle { _stop: stop }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{AccessKind, ModifyKind};

    #[test]
    fn reads_and_build_churn_are_not_changes() {
        let at = |kind, p: &str| Event::new(kind).add_path(PathBuf::from(p));
        assert!(!relevant(&at(
            EventKind::Access(AccessKind::Any),
            "/w/p/state.json"
        )));
        assert!(!relevant(&at(
            EventKind::Modify(ModifyKind::Any),
            "/w/p/target/debug/x"
        )));
        assert!(!relevant(&at(
            EventKind::Modify(ModifyKind::Any),
            "/w/p/.git/index"
        )));
        assert!(relevant(&at(
            EventKind::Modify(ModifyKind::Any),
            "/w/p/state.json"
        )));
    }

    fn paths(msg: Option<Msg>) -> Option<Vec<PathBuf>> {
        match msg {
            Some(Msg::Changed(p)) => Some(p),
            Some(_) => panic!("not a change"),
            None => None,
        }
    }

    #[test]
    fn a_change_carries_its_paths_and_an_overflow_none() {
        let e = Event::new(EventKind::Modify(ModifyKind::Any))
            .add_path(PathBuf::from("/w/p/state.json"))
            .add_path(PathBuf::from("/w/p/target/x"));
        assert_eq!(
            paths(message(Ok(e))),
            Some(vec![PathBuf::from("/w/p/state.json")])
        );
        let rescan = Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan);
        assert_eq!(paths(message(Ok(rescan))), Some(Vec::new()));
        let bare = Event::new(EventKind::Modify(ModifyKind::Any));
        assert_eq!(paths(message(Ok(bare))), Some(Vec::new()));
        let err = notify::Error::generic("queue overflow");
        assert_eq!(paths(message(Err(err))), Some(Vec::new()));
        let read = Event::new(EventKind::Access(AccessKind::Any))
            .add_path(PathBuf::from("/w/p/state.json"));
        assert_eq!(paths(message(Ok(read))), None);
    }
}
