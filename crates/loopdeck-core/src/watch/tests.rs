#![allow(clippy::unwrap_used, clippy::expect_used)]
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::*;

fn cache() -> Arc<ReadCache> {
    Arc::new(ReadCache::new())
}

fn state(dir: &std::path::Path, name: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("state.json"),
        format!(
            r#"{{"workflow_version":"0.6","current_stage":"2","project_name":"{name}","last_updated_at_utc":"2026-06-01T11:59:00Z"}}"#
        ),
    )
    .unwrap();
}

/// The next reading sent (other messages skipped).
fn next_reading(rx: &mpsc::Receiver<Msg>) -> Reading {
    loop {
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(Msg::Read { reading, .. }) => return reading,
            Ok(_) => continue,
            Err(e) => panic!("no reading: {e}"),
        }
    }
}

/// The console's load keeps strings as the file holds them: a decision
/// made from them would write them back unchanged (the view makes
/// them safe when it draws them).
#[test]
fn a_console_load_keeps_the_escape_in_the_model() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("state.json"),
        r#"{"workflow_version":"0.6","current_stage":"2","project_name":"osc\u001b]2;T\u0007name","last_updated_at_utc":"2026-06-01T11:59:00Z"}"#,
    )
    .unwrap();
    let (tx, rx) = mpsc::channel::<Msg>();
    loader::load(vec![dir.path().to_path_buf()], cache(), Sink::new(tx), 1);
    match next_reading(&rx) {
        Reading::All(projects) => {
            assert_eq!(projects.len(), 1);
            assert_eq!(projects[0].name, "osc\u{1b}]2;T\u{7}name");
            assert_eq!(projects[0].files[0].file, "state.json");
        }
        other => panic!("not loaded: {other:?}"),
    }
}

/// With the watcher on a root of two projects, editing one asks to read
/// that one again, never the other, and never everything.
#[test]
fn editing_one_project_asks_to_read_only_that_one() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let (a, b) = (root.join("a"), root.join("b"));
    state(&a, "A");
    state(&b, "B");
    let (tx, rx) = mpsc::channel::<Msg>();
    let _w = watcher::spawn(vec![root.clone()], Sink::new(tx), Options::default());
    // The watches are in place (and the catch-up read asked for) first.
    loop {
        match rx.recv_timeout(Duration::from_secs(20)).expect("live") {
            Msg::Liveness(Liveness::Live { .. }) => break,
            Msg::Liveness(l @ Liveness::Polling { .. }) => panic!("{l:?}"),
            _ => {}
        }
    }
    let known: BTreeSet<PathBuf> = [a.clone(), b.clone()].into_iter().collect();
    state(&a, "A2");
    let mut asked: BTreeSet<Target> = BTreeSet::new();
    let until = Instant::now() + Duration::from_millis(500);
    while let Ok(msg) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
        if let Msg::Changed(paths) = msg {
            let roots = std::slice::from_ref(&root);
            let t = loader::targets(&paths, &loader::spellings(roots), roots, &known)
                .unwrap_or_else(|| panic!("everything asked for: {paths:?}"));
            asked.extend(t);
        }
    }
    assert!(asked.contains(&Target::Dir(a.clone())), "{asked:?}");
    assert!(
        asked
            .iter()
            .all(|t| matches!(t, Target::Dir(d) | Target::Tree(d) if d.starts_with(&a))),
        "{asked:?}"
    );
}

/// notify reports absolute paths under a relative root: they are
/// spelled as the root is, so they find their project.
#[test]
fn a_relative_root_finds_its_projects() {
    let roots = [PathBuf::from(".")];
    let known: BTreeSet<PathBuf> = [PathBuf::from("./a")].into_iter().collect();
    let cwd = std::env::current_dir().unwrap();
    let changed = [cwd.join(".").join("a").join("state.json")];
    let t = loader::targets(&changed, &loader::spellings(&roots), &roots, &known)
        .expect("not everything");
    assert!(t.contains(&Target::Dir(PathBuf::from("./a"))), "{t:?}");
}

/// A partial read reads only its targets, with ids relative to the
/// root; a vanished directory gives nothing; a tree finds a new project.
#[test]
fn a_partial_read_reads_only_its_targets() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let (a, b) = (root.join("g").join("a"), root.join("b"));
    state(&a, "A");
    state(&b, "B");
    let (tx, rx) = mpsc::channel::<Msg>();
    loader::read_some(
        vec![root.clone()],
        vec![Target::Dir(a.clone())],
        cache(),
        Sink::new(tx.clone()),
        3,
    );
    let (dirs, trees, projects) = reread(&rx);
    assert_eq!((dirs, trees), (vec![a.clone()], vec![]));
    let got: Vec<(&str, &str)> = projects
        .iter()
        .map(|p| (p.id.as_str(), p.name.as_str()))
        .collect();
    assert_eq!(got, [("g/a", "A")]);

    std::fs::remove_dir_all(&b).unwrap();
    state(&root.join("g").join("new"), "N");
    loader::read_some(
        vec![root.clone()],
        vec![Target::Dir(b.clone()), Target::Tree(root.join("g"))],
        cache(),
        Sink::new(tx),
        4,
    );
    let (dirs, trees, projects) = reread(&rx);
    assert_eq!((dirs, trees), (vec![b], vec![root.join("g")]));
    let mut got: Vec<&str> = projects.iter().map(|p| p.id.as_str()).collect();
    got.sort_unstable();
    assert_eq!(got, ["g/a", "g/new"]);
}

fn reread(rx: &mpsc::Receiver<Msg>) -> (Vec<PathBuf>, Vec<PathBuf>, Vec<crate::model::Project>) {
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(Msg::Read {
            reading:
                Reading::Part {
                    dirs,
                    trees,
                    projects,
                },
            escalate: false,
            ..
        }) => (dirs, trees, projects),
        Ok(Msg::Read {
            reading, escalate, ..
        }) => panic!("not a reread: {reading:?} {escalate}"),
        Ok(_) => panic!("not a read"),
        Err(e) => panic!("no read: {e}"),
    }
}

/// Polling, a poll's reading waits out nine times the last full
/// reading's cost after it ended (a reading of 100,000 projects polled
/// every 10 s never stopped), and the period said is the one it gives.
#[test]
fn polls_are_spaced_by_what_a_full_reading_costs_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    state(&dir.path().join("p"), "p");
    let (tx, rx) = mpsc::channel::<Msg>();
    let opts = Options {
        poll_every: Duration::from_secs(30),
        mode: Mode::Poll,
        ..Options::default()
    };
    let t0 = Instant::now();
    let mut engine = Engine::start(vec![dir.path().to_path_buf()], Sink::new(tx), &opts);
    // The watcher says it polls, every 30 s as configured.
    let mut said = None;
    let mut first = None;
    while said.is_none() || first.is_none() {
        match rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the start's messages")
        {
            m @ Msg::Read { .. } => first = Some(m),
            Msg::Liveness(l) => said = Some(engine.handle(Msg::Liveness(l), t0)),
            _ => {}
        }
    }
    assert!(matches!(
        said,
        Some(Some(Update::Liveness(Liveness::Polling {
            every_secs: 30,
            ..
        })))
    ));
    // The first full reading is taken to have cost 10 s on its worker:
    // polls are then 90 s apart after its end. (Taken an hour late by the
    // front end, as a console in $PAGER would: the delay is not its cost.)
    let Some(Msg::Read {
        id,
        reading,
        escalate,
        ..
    }) = first
    else {
        unreachable!()
    };
    let ended = t0 + Duration::from_secs(3600);
    let first = Msg::Read {
        id,
        reading,
        escalate,
        took: Duration::from_secs(10),
    };
    assert!(engine.handle(first, ended).is_some());
    // A poll now starts nothing; the period is said again, longer when
    // the cost asks for more than the configuration's.
    let inside = ended + Duration::from_secs(89);
    assert!(engine.handle(Msg::Poll, inside).is_none());
    assert_eq!(
        engine.wake_at(),
        None,
        "a poll inside the spacing asked for nothing"
    );
    engine.tick(inside + Duration::from_secs(5));
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(m @ Msg::Restate) => assert!(matches!(
            engine.handle(m, ended),
            Some(Update::Liveness(Liveness::Polling { every_secs: 90, .. }))
        )),
        other => panic!("the period said again: {other:?}"),
    }
    // Restated when taken: a newer word taken before it is not undone.
    let live = Liveness::Live { watches: 3 };
    assert!(engine.handle(Msg::Liveness(live), ended).is_some());
    assert!(engine.handle(Msg::Restate, ended).is_none());
    let polling = Liveness::Polling {
        every_secs: 30,
        reason: "r".into(),
    };
    assert!(matches!(
        engine.handle(Msg::Liveness(polling), ended),
        Some(Update::Liveness(Liveness::Polling { every_secs: 90, .. }))
    ));
    assert!(
        rx.recv_timeout(Duration::from_millis(500)).is_err(),
        "a poll inside the spacing read nothing"
    );
    // After the spacing, a poll reads everything (after the settle).
    let later = ended + Duration::from_secs(91);
    assert!(engine.handle(Msg::Poll, later).is_none());
    engine.tick(later + Duration::from_secs(5));
    assert!(matches!(next_reading(&rx), Reading::All(_)));
}

/// A partial reading forgets the projects known in its directories and
/// under its trees, and only those: a sibling whose name shares the
/// tree's bytes (`a` and `ab`) stays.
#[test]
fn a_partial_reading_forgets_only_what_it_covered() {
    let dir = tempfile::tempdir().unwrap();
    let (tx, _rx) = mpsc::channel::<Msg>();
    let opts = Options {
        mode: Mode::Poll,
        poll_every: Duration::from_secs(3600),
        ..Options::default()
    };
    let mut engine = Engine::start(vec![dir.path().to_path_buf()], Sink::new(tx), &opts);
    let ws = PathBuf::from("/ws");
    let all = ["a", "a/x", "a/x/y", "ab", "ab/x", "b", "b/x", "c"];
    engine.known = all.iter().map(|p| ws.join(p)).collect();
    let reading = Reading::Part {
        dirs: vec![ws.join("b"), ws.join("zz")],
        trees: vec![ws.join("a")],
        projects: vec![],
    };
    let _ = engine.handle(
        Msg::Read {
            id: 999,
            reading,
            escalate: false,
            took: Duration::ZERO,
        },
        Instant::now(),
    );
    let left: Vec<PathBuf> = engine.known.iter().cloned().collect();
    let want: Vec<PathBuf> = ["ab", "ab/x", "b/x", "c"]
        .iter()
        .map(|p| ws.join(p))
        .collect();
    assert_eq!(left, want);
}
