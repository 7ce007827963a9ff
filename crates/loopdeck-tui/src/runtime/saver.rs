//! The "since you looked" memory, written off the loop's thread.

use std::path::PathBuf;
use std::sync::mpsc::{self, Sender};
use std::thread;

use super::Msg;
use crate::app::{Event, Model};

/// What the memory saver is sent: every project's look, and "now" (what
/// no console holds and no one looked at lately is forgotten by then).
type Memory = (
    std::collections::BTreeMap<String, crate::model::seen::Seen>,
    chrono::DateTime<chrono::Utc>,
);

/// Writes the "since you looked" memory off the loop's thread, the
/// latest one when several wait. A failed write is said once in the
/// console (and after it closes, if the last one failed); the next write
/// tries again: the memory is a convenience, never a reason to stop.
pub(super) struct SeenSaver {
    tx: Option<Sender<Memory>>,
    handle: Option<thread::JoinHandle<Option<String>>>,
}

impl SeenSaver {
    pub(super) fn start(dir: Option<PathBuf>, say: Sender<Msg>) -> Self {
        let Some(dir) = dir else {
            return SeenSaver {
                tx: None,
                handle: None,
            };
        };
        let (tx, rx) = mpsc::channel::<Memory>();
        let handle = thread::Builder::new()
            .name("loopdeck-seen".to_owned())
            .spawn(move || {
                let mut said = false;
                let mut last = None;
                while let Ok(mut memory) = rx.recv() {
                    for newer in rx.try_iter() {
                        memory = newer;
                    }
                    let (projects, now) = &memory;
                    last = loopdeck_core::memory::seen::save(&dir, projects, *now)
                        .err()
                        .map(|e| crate::t!("runtime.seen.not_saved", dir = dir.display(), why = e));
                    if let Some(why) = &last
                        && !std::mem::replace(&mut said, true)
                    {
                        let _ = say.send(Msg::App(Event::Notice(why.clone())));
                    }
                }
                last
            })
            .ok();
        SeenSaver {
            tx: handle.as_ref().map(|_| tx),
            handle,
        }
    }

    pub(super) fn save(&self, model: &mut Model) {
        model.seen.dirty = false;
        if let Some(tx) = &self.tx {
            let _ = tx.send((model.seen.projects.clone(), model.now));
        }
    }

    /// Write what is pending and wait for it; why the last write failed.
    pub(super) fn finish(mut self) -> Option<String> {
        self.tx = None;
        self.handle.take().and_then(|h| h.join().ok().flatten())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::runtime::next_event;
    use chrono::Utc;

    /// The "since you looked" memory that cannot be saved is said once in
    /// the console, and again after it closes: never silently lost.
    #[test]
    fn a_memory_that_cannot_be_saved_is_said() {
        let tmp = tempfile::tempdir().unwrap();
        // A file where the state directory should be: no directory can be made.
        let blocked = tmp.path().join("state");
        std::fs::write(&blocked, "not a directory").unwrap();
        let (tx, rx) = mpsc::channel::<Msg>();
        let saver = SeenSaver::start(Some(blocked.join("loopdeck")), tx);
        let mut model = Model::new(vec![], false, Utc::now());
        saver.save(&mut model);
        match next_event(&rx) {
            Event::Notice(why) => assert!(why.contains("could not be saved"), "{why}"),
            other => panic!("not said: {other:?}"),
        }
        saver.save(&mut model);
        let last = saver.finish();
        assert!(last.is_some_and(|w| w.contains("could not be saved")));
        // Said once, not at every save.
        assert!(
            rx.try_iter()
                .all(|m| !matches!(m, Msg::App(Event::Notice(_))))
        );
    }
}
