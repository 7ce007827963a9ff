//! The watcher on real temporary directories, through the library's
//! engine and a channel (no terminal): what a writer does is seen, and
//! when events cannot be had the watcher polls, says why, and still sees.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use loopdeck_core::follow::{
    Engine, Liveness, Mode, Msg, Options, Reading, Sink, Target, Update, watcher,
};

mod common;

const DEADLINE: Duration = Duration::from_secs(30);

fn state(dir: &Path, name: &str) {
    fs::create_dir_all(dir).unwrap();
    let tmp = dir.join(".state.json.tmp");
    fs::write(
        &tmp,
        format!(
            r#"{{"workflow_version":"0.6","current_stage":"2","project_name":"{name}","last_updated_at_utc":"2026-06-01T11:59:00Z"}}"#
        ),
    )
    .unwrap();
    // As editors and agents save: a new file renamed over the old one.
    fs::rename(&tmp, dir.join("state.json")).unwrap();
}

/// Wait for the watcher to say how it notices changes.
fn liveness(rx: &Receiver<Msg>) -> Liveness {
    let until = Instant::now() + DEADLINE;
    loop {
        match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(Msg::Liveness(Liveness::Starting)) => {}
            Ok(Msg::Liveness(l)) => return l,
            Ok(_) => {}
            Err(e) => panic!("no liveness: {e}"),
        }
    }
}

fn live(rx: &Receiver<Msg>) -> usize {
    match liveness(rx) {
        Liveness::Live { watches } => watches,
        other => panic!("not live: {other:?}"),
    }
}

/// Do `act` until a change of `path` is reported (each try waits a
/// second: a new directory's watches are set up a moment after it
/// appears).
fn seen_after(rx: &Receiver<Msg>, path: &Path, mut act: impl FnMut(usize)) {
    let until = Instant::now() + DEADLINE;
    let mut tries = 0;
    while Instant::now() < until {
        act(tries);
        tries += 1;
        let round = Instant::now() + Duration::from_secs(1);
        while let Ok(msg) = rx.recv_timeout(round.saturating_duration_since(Instant::now())) {
            if let Msg::Changed(paths) = msg
                && paths.iter().any(|p| p == path)
            {
                return;
            }
        }
    }
    panic!("no change of {} reported", path.display());
}

fn spawn(root: &Path, opts: Options) -> (watcher::Handle, Receiver<Msg>) {
    let (tx, rx) = mpsc::channel::<Msg>();
    (
        watcher::spawn(vec![root.to_path_buf()], Sink::new(tx), opts),
        rx,
    )
}

fn append(path: &Path, line: &str) {
    use std::io::Write;
    let mut f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    writeln!(f, "{line}").unwrap();
}

#[test]
fn a_rename_over_save_is_seen_every_time() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    state(&root.join("p"), "A");
    let (_h, rx) = spawn(&root, Options::default());
    assert!(live(&rx) >= 2);
    for name in ["B", "C", "D"] {
        let mut once = true;
        seen_after(&rx, &root.join("p/state.json"), |_| {
            if std::mem::take(&mut once) {
                state(&root.join("p"), name);
            }
        });
    }
}

#[test]
fn a_new_project_directory_is_watched_and_later_edits_inside_are_seen() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    fs::create_dir(root.join("old")).unwrap();
    let (_h, rx) = spawn(&root, Options::default());
    live(&rx);
    let planning = root.join("new/.planning");
    fs::create_dir_all(&planning).unwrap();
    let file = planning.join("STATE.md");
    seen_after(&rx, &file, |i| append(&file, &format!("line {i}")));
    // And deeper still: a phase directory made later.
    let phase = planning.join("phases/01-x");
    fs::create_dir_all(&phase).unwrap();
    let plan = phase.join("01-01-PLAN.md");
    seen_after(&rx, &plan, |i| append(&plan, &format!("task {i}")));
}

#[test]
fn a_root_deleted_and_recreated_is_followed_again() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap().join("ws");
    state(&root.join("p"), "A");
    let (_h, rx) = spawn(&root, Options::default());
    live(&rx);
    fs::remove_dir_all(&root).unwrap();
    fs::create_dir_all(root.join("p")).unwrap();
    let log = root.join("p/log.ndjson");
    seen_after(&rx, &log, |i| append(&log, &format!("{{\"n\":{i}}}")));
    // The recreated root's new directories are watched too.
    fs::create_dir_all(root.join("q")).unwrap();
    let q = root.join("q/state.json");
    seen_after(&rx, &q, |i| state(&root.join("q"), &format!("Q{i}")));
}

/// An engine driven as a front end drives it, remembering what the
/// watcher last said.
struct Driver {
    engine: Engine,
    rx: Receiver<Msg>,
    said: Option<Liveness>,
}

impl Driver {
    fn start(root: &Path, opts: &Options) -> Self {
        let (tx, rx) = mpsc::channel::<Msg>();
        let engine = Engine::start(vec![root.to_path_buf()], Sink::new(tx), opts);
        Driver {
            engine,
            rx,
            said: None,
        }
    }

    /// Handle messages until `done` says so (given each reading's
    /// project names).
    fn until(&mut self, what: &str, mut done: impl FnMut(&Self, &[String]) -> bool) {
        let until = Instant::now() + DEADLINE;
        while Instant::now() < until {
            let wait = self
                .engine
                .wake_at()
                .map_or(Duration::from_millis(200), |at| {
                    at.saturating_duration_since(Instant::now())
                })
                .min(Duration::from_millis(200));
            let mut names = Vec::new();
            let update = match self.rx.recv_timeout(wait) {
                Ok(m) => self.engine.handle(m, Instant::now()),
                Err(_) => None,
            };
            match update {
                Some(Update::Reading(reading)) => {
                    names = match &reading {
                        Reading::All(p) => p.iter().map(|p| p.name.clone()).collect(),
                        Reading::Part { projects, .. } => {
                            projects.iter().map(|p| p.name.clone()).collect()
                        }
                        Reading::Failed(why) => panic!("{why}"),
                    };
                }
                Some(Update::Liveness(l)) => self.said = Some(l),
                Some(Update::RootProblems(_)) | None => {}
            }
            self.engine.tick(Instant::now());
            if done(self, &names) {
                return;
            }
        }
        panic!("never: {what} (the watcher said {:?})", self.said);
    }

    fn sees(&mut self, name: &str) {
        self.until(name, |_, names| names.iter().any(|n| n == name));
    }

    fn polling(&mut self) -> (u64, String) {
        self.until("polling", |d, _| {
            matches!(d.said, Some(Liveness::Polling { .. }))
        });
        match self.said.clone() {
            Some(Liveness::Polling { every_secs, reason }) => (every_secs, reason),
            _ => unreachable!(),
        }
    }
}

#[test]
fn polling_when_configured_says_so_and_still_sees_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    state(&root.join("p"), "A");
    let opts = Options {
        mode: Mode::Poll,
        poll_every: Duration::from_secs(1),
        ..Options::default()
    };
    let mut d = Driver::start(&root, &opts);
    assert_eq!(
        d.polling(),
        (
            1,
            "polling is configured ([watch] mode = \"poll\")".to_owned()
        )
    );
    d.sees("A");
    state(&root.join("p"), "A2");
    state(&root.join("deep/er/new"), "NEW");
    d.sees("A2");
    d.sees("NEW");
}

#[test]
fn the_watch_limit_polls_with_its_reason_and_still_sees_new_projects() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    state(&root.join("p"), "A");
    let opts = Options {
        max_watches: Some(2),
        poll_every: Duration::from_secs(1),
        ..Options::default()
    };
    let mut d = Driver::start(&root, &opts);
    assert_eq!(
        d.polling(),
        (
            1,
            "inotify watch limit reached (LOOPDECK_MAX_WATCHES = 2, a testing limit)".to_owned()
        )
    );
    // The project's directory holds no watch (the root's parent and the
    // root took both): polling sees its edits, and new projects.
    state(&root.join("p"), "A2");
    state(&root.join("deep/er/new"), "NEW");
    d.sees("A2");
    d.sees("NEW");
}

#[test]
fn a_root_that_does_not_exist_yet_is_watched_once_it_appears() {
    let tmp = tempfile::tempdir().unwrap();
    let root: PathBuf = tmp.path().canonicalize().unwrap().join("later");
    let (_h, rx) = spawn(&root, Options::default());
    // Only its parent is watched.
    assert_eq!(live(&rx), 1);
    fs::create_dir_all(root.join("p")).unwrap();
    let f = root.join("p/state.json");
    seen_after(&rx, &f, |i| state(&root.join("p"), &format!("P{i}")));
}

/// A decision the console makes (`formats::act`, then the front end's
/// `reread` of the project, as the runtime does) is read as one change of
/// that project: never everything, never another project, and the
/// watcher's own events for the write join the same read (at most one
/// more when they arrive after it started, on a loaded machine).
#[test]
fn a_decision_written_is_read_again_as_one_change_of_its_project() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap().join("ws");
    common::copy_dir(&common::repo().join("examples/workspace/prd-master"), &root);
    let audit = tmp.path().join("state");
    let mut d = Driver::start(&root, &Options::default());
    // Live, and every reading of the start (the first one and the
    // catch-up once the watches are set) done: 700 ms without one.
    let mut first: Vec<loopdeck_core::model::Project> = Vec::new();
    let until = Instant::now() + DEADLINE;
    let mut last_read = Instant::now();
    while first.is_empty()
        || !matches!(d.said, Some(Liveness::Live { .. }))
        || last_read.elapsed() < Duration::from_millis(700)
    {
        assert!(Instant::now() < until, "no first reading, or not live");
        if let Ok(m) = d.rx.recv_timeout(Duration::from_millis(50)) {
            match d.engine.handle(m, Instant::now()) {
                Some(Update::Reading(Reading::All(p))) => {
                    first = p;
                    last_read = Instant::now();
                }
                Some(Update::Reading(_)) => last_read = Instant::now(),
                Some(Update::Liveness(l)) => d.said = Some(l),
                _ => {}
            }
        }
        d.engine.tick(Instant::now());
    }
    // The first question that can be answered now.
    let opts = loopdeck_core::decide::WriteOptions {
        audit_dir: Some(audit),
        ..Default::default()
    };
    let written = first
        .iter()
        .flat_map(|p| p.inbox.iter().map(move |i| (p, i)))
        .find_map(|(p, i)| {
            let a = i.act.as_ref().filter(|a| a.verb == "answer")?;
            let verb = a.build(None, &["by the console".to_owned()]).ok()?;
            let req = loopdeck_core::model::Request {
                verb,
                by: "tester".into(),
                now: chrono::Utc::now(),
                devloop_api: None,
                config_file: None,
            };
            loopdeck_core::decide::act(p, &req, &opts)
                .ok()
                .map(|_| p.path.clone())
        })
        .expect("a question answered");
    d.engine
        .written(vec![Target::Dir(written.clone())], Instant::now());
    let mut reads: Vec<(Vec<PathBuf>, Vec<PathBuf>)> = Vec::new();
    let quiet = Instant::now() + Duration::from_millis(1500);
    while Instant::now() < quiet {
        let wait = d
            .engine
            .wake_at()
            .map_or(Duration::from_millis(50), |at| {
                at.saturating_duration_since(Instant::now())
            })
            .min(Duration::from_millis(50));
        if let Ok(m) = d.rx.recv_timeout(wait) {
            match d.engine.handle(m, Instant::now()) {
                Some(Update::Reading(Reading::Part { dirs, trees, .. })) => {
                    reads.push((dirs, trees));
                }
                Some(Update::Reading(other)) => panic!("not a partial read: {other:?}"),
                _ => {}
            }
        }
        d.engine.tick(Instant::now());
    }
    assert!(!reads.is_empty() && reads.len() <= 2, "{reads:?}");
    for (dirs, trees) in &reads {
        assert_eq!(dirs, &vec![written.clone()], "{reads:?}");
        // The files written inside it are looked at (one stat each: a
        // new entry there might be a nested project), nothing outside.
        assert!(trees.iter().all(|t| t.starts_with(&written)), "{reads:?}");
    }
    eprintln!("reads after the decision: {}", reads.len());
}
