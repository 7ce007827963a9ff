#![allow(clippy::unwrap_used, clippy::expect_used)]
use super::*;

const SETTLE: Duration = Duration::from_millis(30);

fn dir(p: &str) -> Target {
    Target::Dir(PathBuf::from(p))
}

fn ms(base: Instant, n: u64) -> Instant {
    base + Duration::from_millis(n)
}

/// The read an answer starts, if any.
fn started(actions: &[Action]) -> Option<&Action> {
    actions
        .iter()
        .find(|a| matches!(a, Action::ReadSome { .. } | Action::ReadAll { .. }))
}

fn id_of(a: &Action) -> u64 {
    match a {
        Action::ReadSome { id, .. } | Action::ReadAll { id } => *id,
        Action::WakeAt(_) => panic!("not a read"),
    }
}

#[test]
fn a_change_waits_the_settle_then_is_read() {
    let t0 = Instant::now();
    let mut s = Schedule::new(SETTLE);
    assert_eq!(s.changed([dir("/w/a")], t0), [Action::WakeAt(ms(t0, 30))]);
    // More of the burst: still one wake, at the first change's settle.
    assert_eq!(
        s.changed([dir("/w/a")], ms(t0, 10)),
        [Action::WakeAt(ms(t0, 30))]
    );
    assert!(s.tick(ms(t0, 20)) == [Action::WakeAt(ms(t0, 30))]);
    assert_eq!(
        s.tick(ms(t0, 30)),
        [Action::ReadSome {
            id: 1,
            targets: vec![dir("/w/a")]
        }]
    );
    assert!(s.reading());
}

#[test]
fn a_burst_of_changes_during_a_read_yields_exactly_one_more_read_of_the_affected_project() {
    let t0 = Instant::now();
    let mut s = Schedule::new(SETTLE);
    let first = s.full_reload(t0);
    let id = id_of(started(&first).unwrap());
    // 50 rewrites of project a while everything is read.
    for i in 0..50 {
        assert_eq!(s.changed([dir("/w/a")], ms(t0, i)), []);
    }
    let next = s.read_done(id, ms(t0, 100));
    assert_eq!(
        next,
        [Action::ReadSome {
            id: id + 1,
            targets: vec![dir("/w/a")]
        }]
    );
    // And nothing more once that one is done.
    assert_eq!(s.read_done(id + 1, ms(t0, 120)), []);
    assert_eq!(s.tick(ms(t0, 10_000)), []);
}

#[test]
fn a_burst_during_a_read_waits_out_its_settle_after_the_read() {
    let t0 = Instant::now();
    let mut s = Schedule::new(SETTLE);
    let id = id_of(started(&s.full_reload(t0)).unwrap());
    s.changed([dir("/w/a")], ms(t0, 90));
    assert_eq!(s.read_done(id, ms(t0, 100)), [Action::WakeAt(ms(t0, 120))]);
    assert_eq!(
        s.tick(ms(t0, 120)),
        [Action::ReadSome {
            id: id + 1,
            targets: vec![dir("/w/a")]
        }]
    );
}

#[test]
fn never_two_reads_in_flight() {
    let t0 = Instant::now();
    let mut s = Schedule::new(SETTLE);
    let mut in_flight: Option<u64> = None;
    let mut reads = 0;
    // Changes, full reloads and ticks in every order, reads finishing late.
    for step in 0..2_000u64 {
        let now = ms(t0, step);
        let actions = match step % 7 {
            0 => s.changed([dir(&format!("/w/{}", step % 5))], now),
            1 => s.tick(now),
            2 if step % 3 == 0 => s.full_reload(now),
            3 => s.changed_all(now),
            4 if step % 11 == 0 => match in_flight.take() {
                Some(id) => s.read_done(id, now),
                None => Vec::new(),
            },
            _ => s.tick(now),
        };
        for a in &actions {
            if let Action::ReadSome { id, .. } | Action::ReadAll { id } = a {
                assert!(in_flight.is_none(), "a second read started at step {step}");
                in_flight = Some(*id);
                reads += 1;
            }
        }
        assert_eq!(s.reading(), in_flight.is_some());
    }
    assert!(reads > 10, "reads ran: {reads}");
}

#[test]
fn a_full_reload_during_a_read_runs_once_after_it() {
    let t0 = Instant::now();
    let mut s = Schedule::new(SETTLE);
    assert_eq!(s.changed([dir("/w/a")], t0), [Action::WakeAt(ms(t0, 30))]);
    let id = id_of(started(&s.tick(ms(t0, 30))).unwrap());
    assert_eq!(s.full_reload(ms(t0, 40)), []);
    assert_eq!(s.full_reload(ms(t0, 41)), []);
    // A change meanwhile is covered by the full read.
    assert_eq!(s.changed([dir("/w/b")], ms(t0, 42)), []);
    assert_eq!(
        s.read_done(id, ms(t0, 50)),
        [Action::ReadAll { id: id + 1 }]
    );
    assert_eq!(s.read_done(id + 1, ms(t0, 60)), []);
    assert_eq!(s.tick(ms(t0, 10_000)), []);
}

#[test]
fn a_full_reload_when_idle_starts_at_once() {
    let t0 = Instant::now();
    let mut s = Schedule::new(SETTLE);
    s.changed([dir("/w/a")], t0);
    assert_eq!(s.full_reload(ms(t0, 1)), [Action::ReadAll { id: 1 }]);
}

#[test]
fn changes_to_several_projects_are_read_together_and_nothing_is_lost() {
    let t0 = Instant::now();
    let mut s = Schedule::new(SETTLE);
    s.changed([dir("/w/b")], t0);
    s.changed([dir("/w/a"), dir("/w/b")], ms(t0, 5));
    let a = s.tick(ms(t0, 30));
    assert_eq!(
        a,
        [Action::ReadSome {
            id: 1,
            targets: vec![dir("/w/a"), dir("/w/b")]
        }]
    );
    // A stale answer (an id not in flight) changes nothing.
    s.changed([dir("/w/c")], ms(t0, 31));
    assert_eq!(s.read_done(7, ms(t0, 100)), []);
    assert!(s.reading());
    assert_eq!(
        s.read_done(1, ms(t0, 100)),
        [Action::ReadSome {
            id: 2,
            targets: vec![dir("/w/c")]
        }]
    );
}

#[test]
fn a_change_without_paths_reads_everything_after_the_settle() {
    let t0 = Instant::now();
    let mut s = Schedule::new(SETTLE);
    assert_eq!(s.changed_all(t0), [Action::WakeAt(ms(t0, 30))]);
    assert_eq!(s.tick(ms(t0, 30)), [Action::ReadAll { id: 1 }]);
}

fn set(paths: &[&str]) -> BTreeSet<PathBuf> {
    paths.iter().map(PathBuf::from).collect()
}

fn tree(p: &str) -> Target {
    Target::Tree(PathBuf::from(p))
}

#[test]
fn a_path_belongs_to_the_deepest_project_holding_it() {
    let roots = [PathBuf::from("/w")];
    let known = set(&["/w/a", "/w/a/sub", "/w/b"]);
    let own = [".planning"];
    let of = |p: &str| targets_of(Path::new(p), &roots, &known, &own);
    // A file in a project: that project (and a stat of the file).
    assert_eq!(
        of("/w/a/state.json"),
        Some(vec![dir("/w/a"), tree("/w/a/state.json")])
    );
    assert_eq!(
        of("/w/a/sub/timeline.ndjson"),
        Some(vec![dir("/w/a/sub"), tree("/w/a/sub/timeline.ndjson")])
    );
    // In the format's own directory: the project only.
    assert_eq!(of("/w/b/.planning/phases/1.md"), Some(vec![dir("/w/b")]));
    // Deeper in a project: the project, and the directory that may hold a
    // new one.
    assert_eq!(
        of("/w/b/x/y/state.json"),
        Some(vec![dir("/w/b"), tree("/w/b/x")])
    );
    // A project directory removed: that project.
    assert_eq!(of("/w/b"), Some(vec![dir("/w/b")]));
    // In no project: its top directory under the root is discovered again.
    assert_eq!(of("/w/new/deep/state.json"), Some(vec![tree("/w/new")]));
    assert_eq!(
        of("/w/state.json"),
        Some(vec![dir("/w"), tree("/w/state.json")])
    );
    // The root itself: everything.
    assert_eq!(of("/w"), None);
    // Outside every root: read everything.
    assert_eq!(of("/elsewhere/x"), None);
}

use std::path::Path;

#[test]
fn reads_start_a_minimum_gap_apart_but_a_quiet_change_waits_only_the_settle() {
    let t0 = Instant::now();
    let gap = Duration::from_millis(100);
    let mut s = Schedule::new(SETTLE).with_min_gap(gap);
    // After a quiet spell: the settle alone.
    s.changed([dir("/w/a")], t0);
    let first = s.tick(ms(t0, 30));
    let id = id_of(started(&first).unwrap());
    // A writer that never stops: the next read waits for the gap from the
    // first read's start (t0+30), not only for its settle.
    assert_eq!(s.read_done(id, ms(t0, 35)), []);
    assert_eq!(
        s.changed([dir("/w/a")], ms(t0, 40)),
        [Action::WakeAt(ms(t0, 130))]
    );
    assert_eq!(s.tick(ms(t0, 70)), [Action::WakeAt(ms(t0, 130))]);
    let second = s.tick(ms(t0, 130));
    assert_eq!(id_of(started(&second).unwrap()), id + 1);
    assert_eq!(s.read_done(id + 1, ms(t0, 135)), []);
    // Quiet again, long after: the settle alone.
    assert_eq!(
        s.changed([dir("/w/a")], ms(t0, 1_000)),
        [Action::WakeAt(ms(t0, 1_030))]
    );
}

/// A decision the front end wrote is read after the settle (the watcher's
/// events for the same write join it) but is not held back by the gap;
/// after a read in flight, as soon as it is done.
#[test]
fn a_write_of_the_front_end_is_read_after_the_settle_without_the_gap() {
    let t0 = Instant::now();
    let mut s = Schedule::new(SETTLE).with_min_gap(Duration::from_millis(100));
    s.changed([dir("/w/a")], t0);
    let first = s.tick(ms(t0, 30));
    let id = id_of(started(&first).unwrap());
    assert_eq!(s.read_done(id, ms(t0, 35)), []);
    // The decision came back; the gap would hold a change until t0+130.
    assert_eq!(
        s.written([dir("/w/b")], ms(t0, 40)),
        [Action::WakeAt(ms(t0, 70))]
    );
    // The watcher's events for the write arrive within the settle.
    assert_eq!(
        s.changed([dir("/w/b"), dir("/w/c")], ms(t0, 42)),
        [Action::WakeAt(ms(t0, 70))]
    );
    match started(&s.tick(ms(t0, 70))) {
        Some(Action::ReadSome { id, targets }) => {
            assert_eq!(targets, &vec![dir("/w/b"), dir("/w/c")]);
            assert_eq!(s.read_done(*id, ms(t0, 75)), []);
        }
        other => panic!("not read after the settle: {other:?}"),
    }
    // Only once: the next change waits for the gap again.
    assert_eq!(
        s.changed([dir("/w/b")], ms(t0, 80)),
        [Action::WakeAt(ms(t0, 170))]
    );
    // Written during a read: read right after it.
    let reading = s.tick(ms(t0, 170));
    let id = id_of(started(&reading).unwrap());
    assert_eq!(s.written([dir("/w/d")], ms(t0, 171)), []);
    assert_eq!(s.read_done(id, ms(t0, 172)), [Action::WakeAt(ms(t0, 201))]);
    assert!(matches!(
        started(&s.tick(ms(t0, 201))),
        Some(Action::ReadSome { targets, .. }) if targets == &vec![dir("/w/d")]
    ));
}
