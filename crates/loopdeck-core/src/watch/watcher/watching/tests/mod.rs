//! The watch set kept matching a real tree. The backend here records the
//! watches instead of asking the kernel (and can refuse as the limit
//! does); the directories are real.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::fs;
use std::sync::mpsc;

use notify::event::{CreateKind, DataChange, Flag, ModifyKind, RemoveKind};

use super::super::super::Liveness;
use super::*;

#[cfg(target_os = "linux")]
mod measure;

#[derive(Default)]
struct Fake {
    watched: BTreeSet<PathBuf>,
    limit: Option<usize>,
    /// Refused as a directory without permission is.
    refused: BTreeSet<PathBuf>,
}

impl Backend for Fake {
    fn add(&mut self, dir: &Path) -> Result<(), Refused> {
        if self.limit.is_some_and(|l| self.watched.len() >= l) {
            return Err(Refused::Limit);
        }
        if self.refused.contains(dir) {
            return Err(Refused::Other);
        }
        self.watched.insert(dir.to_path_buf());
        Ok(())
    }
    fn remove(&mut self, dir: &Path) {
        self.watched.remove(dir);
    }
}

struct Rig {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    w: Watching<Fake>,
    rx: mpsc::Receiver<Msg>,
}

fn rig(limit: Option<usize>) -> Rig {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    for d in [
        "prd",
        "gsd/.planning/phases/01-x",
        "dwp/.dwp/plans/PLAN_a",
        "co/projects/p/units/u1",
        "prd/node_modules/left-pad",
        "prd/.git/objects",
        "prd/target/debug",
    ] {
        fs::create_dir_all(root.join(d)).unwrap();
    }
    fs::write(root.join("prd/state.json"), "{}").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(tmp.path(), root.join("prd/outside")).unwrap();
    let (tx, rx) = mpsc::channel::<Msg>();
    let fake = Fake {
        limit,
        ..Fake::default()
    };
    let w = Watching::new(
        fake,
        vec![root.clone()],
        Sink::new(tx),
        None,
        10,
        Arc::new(AtomicBool::new(false)),
    );
    Rig {
        _tmp: tmp,
        root,
        w,
        rx,
    }
}

fn rel(r: &Rig) -> Vec<String> {
    r.w.backend
        .watched
        .iter()
        .map(|p| match p.strip_prefix(&r.root) {
            Ok(rel) => rel.to_string_lossy().into_owned(),
            Err(_) => "<parent>".to_owned(),
        })
        .collect()
}

fn msgs(rx: &mpsc::Receiver<Msg>) -> Vec<Msg> {
    rx.try_iter().collect()
}

fn changed(msgs: &[Msg]) -> Vec<Vec<PathBuf>> {
    msgs.iter()
        .filter_map(|m| match m {
            Msg::Changed(p) => Some(p.clone()),
            _ => None,
        })
        .collect()
}

fn event(kind: EventKind, p: &Path) -> notify::Result<Event> {
    Ok(Event::new(kind).add_path(p.to_path_buf()))
}

#[test]
fn the_walked_directories_and_the_formats_own_are_watched_noise_and_links_not() {
    let mut r = rig(None);
    r.w.setup();
    assert_eq!(
        rel(&r),
        [
            "<parent>",
            "",
            "co",
            "co/projects",
            "co/projects/p",
            "co/projects/p/units",
            "co/projects/p/units/u1",
            "dwp",
            "dwp/.dwp",
            "dwp/.dwp/plans",
            "dwp/.dwp/plans/PLAN_a",
            "gsd",
            "gsd/.planning",
            "gsd/.planning/phases",
            "gsd/.planning/phases/01-x",
            "prd",
        ]
    );
    assert_eq!(r.w.watches(), 16);
    assert_eq!(r.w.tell(true).then_some(()), Some(()));
    assert!(matches!(
        msgs(&r.rx).as_slice(),
        [Msg::Liveness(Liveness::Live { watches: 16 })]
    ));
}

#[test]
fn a_new_directory_gets_its_subtree_watched_and_read_and_a_removed_one_drops_it() {
    let mut r = rig(None);
    r.w.setup();
    let new = r.root.join("new");
    fs::create_dir_all(new.join(".planning/phases")).unwrap();
    fs::create_dir_all(new.join("node_modules/x")).unwrap();
    r.w.on_event(event(EventKind::Create(CreateKind::Folder), &new));
    assert!(r.w.backend.watched.contains(&new.join(".planning/phases")));
    assert!(!r.w.backend.watched.contains(&new.join("node_modules")));
    assert_eq!(changed(&msgs(&r.rx)), [vec![new.clone()]]);
    // Seen twice (a create, then the rename's "to"): no second read.
    let to = EventKind::Modify(ModifyKind::Name(RenameMode::To));
    r.w.on_event(event(to, &new));
    assert!(msgs(&r.rx).is_empty());
    // A file is never watched.
    r.w.on_event(event(
        EventKind::Create(CreateKind::File),
        &r.root.join("prd/state.json"),
    ));
    assert!(!r.w.backend.watched.contains(&r.root.join("prd/state.json")));

    let before = r.w.watches();
    fs::remove_dir_all(r.root.join("gsd")).unwrap();
    r.w.on_event(event(
        EventKind::Remove(RemoveKind::Folder),
        &r.root.join("gsd"),
    ));
    assert_eq!(r.w.watches(), before - 4);
    assert!(!rel(&r).iter().any(|d| d.starts_with("gsd")));
    assert!(
        r.w.listings
            .keys()
            .all(|d| !d.starts_with(r.root.join("gsd")))
    );
}

#[test]
fn a_root_deleted_and_recreated_is_watched_again() {
    let mut r = rig(None);
    r.w.setup();
    fs::remove_dir_all(&r.root).unwrap();
    r.w.on_event(event(EventKind::Remove(RemoveKind::Folder), &r.root));
    assert_eq!(rel(&r), ["<parent>"]);
    fs::create_dir_all(r.root.join("p")).unwrap();
    r.w.on_event(event(EventKind::Create(CreateKind::Folder), &r.root));
    assert_eq!(rel(&r), ["<parent>", "", "p"]);
    assert_eq!(changed(&msgs(&r.rx)), [vec![r.root.clone()]]);
}

#[test]
fn the_limit_polls_with_its_reason_and_the_scan_fills_in_when_there_is_room() {
    let mut r = rig(Some(3));
    r.w.setup();
    assert_eq!(r.w.watches(), 3);
    assert!(r.w.tell(false));
    let got = msgs(&r.rx);
    assert_eq!(changed(&got), [Vec::<PathBuf>::new()], "a full rescan");
    let Some(Msg::Liveness(Liveness::Polling { reason, every_secs })) = got.last() else {
        panic!("{got:?}")
    };
    assert!(
        reason.starts_with("inotify watch limit reached (fs.inotify.max_user_watches"),
        "{reason}"
    );
    assert_eq!(*every_secs, 10);
    // Still short: still polling.
    let p = r.w.scan();
    r.w.finish(p, true);
    assert!(r.w.status.polling());
    // Room now (the limit raised): the next scan watches the rest.
    r.w.backend.limit = None;
    let p = r.w.scan();
    r.w.finish(p, true);
    assert!(!r.w.status.polling());
    assert_eq!(r.w.watches(), 16);
}

#[test]
fn an_overflow_asks_for_a_full_rescan_and_polls_until_a_clean_scan() {
    let mut r = rig(None);
    r.w.setup();
    r.w.tell(true);
    let _ = msgs(&r.rx);
    let overflow: notify::Result<Event> = Ok(Event::new(EventKind::Other).set_flag(Flag::Rescan));
    // The front end is told at once, from notify's thread: read everything.
    assert!(matches!(
        super::super::events::message(&overflow, std::slice::from_ref(&r.root)),
        Some(Msg::Changed(p)) if p.is_empty()
    ));
    // A directory created while events were lost gets its watches.
    fs::create_dir_all(r.root.join("lost/.planning")).unwrap();
    r.w.on_event(overflow);
    assert!(r.w.backend.watched.contains(&r.root.join("lost/.planning")));
    r.w.tell(false);
    let got = msgs(&r.rx);
    assert!(
        got.iter().any(
            |m| matches!(m, Msg::Liveness(Liveness::Polling { reason, .. })
            if reason == "events were lost (queue overflow)")
        ),
        "{got:?}"
    );
    let p = r.w.scan();
    r.w.finish(p, true);
    assert!(!r.w.status.polling());
}

#[test]
fn the_scan_sends_what_events_missed_and_polls_until_events_are_seen_again() {
    let mut r = rig(None);
    r.w.setup();
    r.w.tell(true);
    let _ = msgs(&r.rx);
    let state = r.root.join("prd/state.json");
    let fresh = r.root.join("dwp/.dwp/plans/PLAN_a/PLAN.md");
    fs::write(&state, "{\"changed\": 1}").unwrap();
    fs::write(&fresh, "# plan").unwrap();
    fs::create_dir_all(r.root.join("co/projects/q/units")).unwrap();
    let p = r.w.scan();
    let scan = r.w.finish(p, true);
    assert_eq!((scan.missed, scan.confirmed), (3, 0));
    let mut got = changed(&msgs(&r.rx)).concat();
    got.sort();
    assert_eq!(
        got,
        [r.root.join("co/projects/q"), fresh.clone(), state.clone()]
    );
    // The new directory found by the scan is watched.
    assert!(
        r.w.backend
            .watched
            .contains(&r.root.join("co/projects/q/units"))
    );
    r.w.tell(false);
    assert!(matches!(
        msgs(&r.rx).as_slice(),
        [Msg::Liveness(Liveness::Polling { reason, .. })] if reason.contains("missed 3 changes")
    ));
    // Nothing changed: no news, still polling.
    let p = r.w.scan();
    assert_eq!(r.w.finish(p, true).missed, 0);
    assert!(r.w.status.polling());
    // A change its event reported: events flow again, live.
    fs::write(&state, "{\"changed\": 22}").unwrap();
    r.w.on_event(event(
        EventKind::Modify(ModifyKind::Data(DataChange::Any)),
        &state,
    ));
    let p = r.w.scan();
    let scan = r.w.finish(p, true);
    assert_eq!((scan.missed, scan.confirmed), (0, 1));
    assert!(!r.w.status.polling());
}

/// A directory whose watch was refused (no permission then) is tried again
/// by the scan, and read once watched, even when no event said so.
#[test]
fn a_refused_directory_is_watched_by_a_later_scan() {
    let mut r = rig(None);
    let gsd = r.root.join("gsd");
    r.w.backend.refused.insert(gsd.clone());
    r.w.setup();
    assert!(!rel(&r).contains(&"gsd".to_owned()), "{:?}", rel(&r));
    msgs(&r.rx);
    r.w.backend.refused.clear();
    let pending = r.w.scan();
    r.w.finish(pending, true);
    let watched = rel(&r);
    assert!(watched.contains(&"gsd/.planning".to_owned()), "{watched:?}");
    assert!(changed(&msgs(&r.rx)).contains(&vec![gsd]));
    assert!(!r.w.status.polling(), "nothing was missed");
}
