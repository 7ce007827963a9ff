//! What a notify event tells the front end (on notify's own thread: a
//! change reaches the schedule without waiting for the watcher's thread).

use std::path::{Path, PathBuf};

use notify::{Event, EventKind};

use super::super::Msg;

/// Is `path` a path whose change may change a project: under a root (the
/// root itself included), and not inside a build or VCS directory below
/// it? Paths in a root's parent other than the root are not.
pub(super) fn counts(path: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|r| {
        path.strip_prefix(r).is_ok_and(|rel| {
            !rel.components().any(|c| {
                c.as_os_str()
                    .to_str()
                    .is_some_and(crate::store::is_noise_dir)
            })
        })
    })
}

/// Reading a file (which loopdeck itself does) is not a change.
pub(super) fn is_read(e: &Event) -> bool {
    matches!(e.kind, EventKind::Access(_))
}

/// Does the watcher's thread need this report (to keep the watches
/// matching the tree, or to fall back to polling)? Not reads, not paths
/// outside the roots (a root's parent's other entries) or in noise.
pub(super) fn for_the_watcher(res: &notify::Result<Event>, roots: &[PathBuf]) -> bool {
    match res {
        Err(_) => true,
        Ok(e) if e.need_rescan() => true,
        Ok(e) => {
            !is_read(e)
                && e.paths
                    .iter()
                    .any(|p| counts(p, roots) || on_the_way(p, roots))
        }
    }
}

/// Is `path` above a root (the root's parent, or the parent's own parent
/// when that went away too)? Its coming and going moves the watch that
/// notices the root's return.
pub(super) fn on_the_way(path: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|r| r.starts_with(path) && r != path)
}

/// What the loop is told of a watcher's report: the changed paths (build
/// and VCS churn, and the roots' parents' other entries, left out), or no
/// paths when anything may have changed (an overflow: notify's `Rescan`
/// carries no paths; an error; an event without paths). `None`: nothing a
/// project shows changed.
pub(super) fn message(res: &notify::Result<Event>, roots: &[PathBuf]) -> Option<Msg> {
    let Ok(e) = res else {
        return Some(Msg::Changed(Vec::new()));
    };
    if e.need_rescan() || e.paths.is_empty() {
        return Some(Msg::Changed(Vec::new()));
    }
    if is_read(e) {
        return None;
    }
    let paths: Vec<PathBuf> = e
        .paths
        .iter()
        .filter(|p| counts(p, roots))
        .cloned()
        .collect();
    (!paths.is_empty()).then_some(Msg::Changed(paths))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use notify::event::{AccessKind, ModifyKind};

    fn roots() -> Vec<PathBuf> {
        vec![PathBuf::from("/w")]
    }

    fn paths(msg: Option<Msg>) -> Option<Vec<PathBuf>> {
        match msg {
            Some(Msg::Changed(p)) => Some(p),
            Some(_) => panic!("not a change"),
            None => None,
        }
    }

    fn at(kind: EventKind, p: &str) -> notify::Result<Event> {
        Ok(Event::new(kind).add_path(PathBuf::from(p)))
    }

    #[test]
    fn reads_build_churn_and_the_parents_other_entries_are_not_changes() {
        let m = |kind, p| paths(message(&at(kind, p), &roots()));
        let modify = EventKind::Modify(ModifyKind::Any);
        assert_eq!(
            m(EventKind::Access(AccessKind::Any), "/w/p/state.json"),
            None
        );
        assert_eq!(m(modify, "/w/p/target/debug/x"), None);
        assert_eq!(m(modify, "/w/p/.git/index"), None);
        assert_eq!(m(modify, "/other"), None);
        assert_eq!(m(modify, "/wx"), None);
        assert_eq!(m(modify, "/w"), Some(vec![PathBuf::from("/w")]));
        assert_eq!(
            m(modify, "/w/p/state.json"),
            Some(vec![PathBuf::from("/w/p/state.json")])
        );
        // A root under a directory named like a noise one is still watched.
        let nested = [PathBuf::from("/home/u/.cache/ws")];
        assert!(counts(Path::new("/home/u/.cache/ws/p/state.json"), &nested));
    }

    #[test]
    fn the_watcher_thread_hears_of_changes_under_the_roots_only() {
        let modify = EventKind::Modify(ModifyKind::Any);
        let create = EventKind::Create(notify::event::CreateKind::Folder);
        assert!(for_the_watcher(&at(create, "/w"), &roots()));
        assert!(for_the_watcher(&at(modify, "/w/p/state.json"), &roots()));
        assert!(!for_the_watcher(
            &at(create, "/other-dir-beside-the-root"),
            &roots()
        ));
        // The root's parent going or coming back.
        assert!(for_the_watcher(&at(create, "/"), &roots()));
        assert!(message(&at(create, "/"), &roots()).is_none());
        assert!(!for_the_watcher(
            &at(modify, "/w/p/node_modules/x"),
            &roots()
        ));
        assert!(!for_the_watcher(
            &at(EventKind::Access(AccessKind::Any), "/w/p/state.json"),
            &roots()
        ));
        let rescan = Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan);
        assert!(for_the_watcher(&Ok(rescan), &roots()));
        assert!(for_the_watcher(&Err(notify::Error::generic("x")), &roots()));
    }

    #[test]
    fn a_change_carries_its_paths_and_an_overflow_none() {
        let e = Event::new(EventKind::Modify(ModifyKind::Any))
            .add_path(PathBuf::from("/w/p/state.json"))
            .add_path(PathBuf::from("/w/p/target/x"));
        assert_eq!(
            paths(message(&Ok(e), &roots())),
            Some(vec![PathBuf::from("/w/p/state.json")])
        );
        let rescan = Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan);
        assert_eq!(paths(message(&Ok(rescan), &roots())), Some(Vec::new()));
        let bare = Event::new(EventKind::Modify(ModifyKind::Any));
        assert_eq!(paths(message(&Ok(bare), &roots())), Some(Vec::new()));
        let err = notify::Error::generic("queue overflow");
        assert_eq!(paths(message(&Err(err), &roots())), Some(Vec::new()));
    }
}
