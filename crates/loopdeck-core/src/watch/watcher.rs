//! Telling the engine that files changed: non-recursive watches on the
//! directories discovery walks (and on each root's parent, so a root
//! deleted and recreated is noticed), a slow reconciliation scan that
//! catches what the events missed, and polling when events cannot be
//! trusted (the watch limit, a lost-event overflow, missed changes).
//!
//! Events are filtered here (reads, and churn in build or VCS directories,
//! never change a project) and debounced by the schedule, which waits a
//! short settle time after the first change before reading again. Changed
//! paths go to the front end straight from notify's thread; the watcher's
//! own thread keeps the watches matching the tree (a new directory gets
//! its watches at once, a removed one drops them) and runs the scan.
//!
//! The watches are set up on that thread, so the first reading (and the
//! first frame) never waits for them; `Msg::Liveness` says when they are
//! in place, or why changes are polled for instead.
//!
//! Testing knob: the environment variable `LOOPDECK_MAX_WATCHES=N` (or
//! `Options::max_watches`) makes adding watch N+1 fail as the inotify
//! limit does, so the fallback can be tested without exhausting the
//! machine's watches.

mod events;
mod run;
mod scan;
mod set;
mod status;
mod watching;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::thread;

use super::{Liveness, Msg, Options, Sink};

/// How changes are noticed (`[watch] mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// File system events when the platform gives them, else polling.
    #[default]
    Auto,
    /// Never use file system events: look every `poll_every`.
    Poll,
}

/// The environment variable of the testing knob (see the module's doc).
pub(crate) const MAX_WATCHES_ENV: &str = "LOOPDECK_MAX_WATCHES";

/// What the watcher thread hears.
enum In {
    Event(notify::Result<notify::Event>),
    Stop,
}

testing_pub!(
/// The watching thread; dropping the handle stops it.
pub struct Handle {
    stop: Arc<AtomicBool>,
    tx: Sender<In>,
}
);

impl Drop for Handle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.tx.send(In::Stop);
    }
}

testing_pub!(
/// Set up the watches on `roots` on a thread of their own, say how changes
/// will be noticed, and poll when they cannot be watched.
pub fn spawn(roots: Vec<PathBuf>, sink: Sink, opts: Options) -> Handle {
    let _ = sink.send(Msg::Liveness(Liveness::Starting));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<In>();
    let fail = sink.clone();
    let stopping = stop.clone();
    let to_thread = tx.clone();
    let spawned = thread::Builder::new()
        .name("loopdeck-watcher".to_owned())
        .spawn(move || {
            let outcome = crate::guard::guarded("the file watcher failed", || {
                run::run(roots, sink.clone(), opts.clone(), to_thread, &rx, &stopping);
            });
            // A failure is reported, never silent: the header polls and says why.
            if let Err(why) = outcome {
                let _ = sink.send(Msg::Changed(Vec::new()));
                run::poll_only(&sink, &opts, &rx, &why);
            }
        });
    if let Err(e) = spawned {
        let _ = fail.send(Msg::Liveness(Liveness::Polling {
            every_secs: 0,
            reason: format!("the watcher thread did not start: {e}"),
        }));
    }
    Handle { stop, tx }
}
);
