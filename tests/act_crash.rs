//! Real `loopdeck act` processes SIGKILLed at random instants, on a GSD
//! project (its O_EXCL pid-file lock) and a PRD-master project (loopdeck's
//! owner lock). Between kills every file still reads as the project it was;
//! after the kills the next decision is never blocked by a dead writer's
//! lock; temp files do not pile up.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use common::repo;

const KILLS: usize = 120;

fn bin() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("loopdeck")
}

/// A cheap pseudo-random number of microseconds below `range` from the
/// clock (no crate needed).
fn jitter(i: usize, range: u64) -> u64 {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    (nanos ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) % range.max(1)
}

fn act(project: &Path, state: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.arg("act")
        .arg(project)
        .args(args)
        .args(["--by", "crash"])
        .env("XDG_STATE_HOME", state)
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// The project reads with no problem, as the same format.
fn reads(project: &Path, format: &str) {
    let found = loopdeck_core::read::load_dir(project);
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    assert_eq!(found.projects.len(), 1);
    let p = &found.projects[0];
    assert_eq!(p.format.as_str(), format);
    assert!(p.problems.is_empty(), "{:?}", p.problems);
}

fn temp_files(dir: &Path) -> usize {
    fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            let n = e.as_ref().unwrap().file_name();
            let n = n.to_string_lossy();
            n.contains(".loopdeck-") && n.ends_with(".tmp")
        })
        .count()
}

fn kill_writers(project: &Path, state: &Path, format: &str, args: &dyn Fn(usize) -> Vec<String>) {
    let watched = match format {
        "gsd" => project.join(".planning"),
        _ => project.to_path_buf(),
    };
    // Kills are spread over the time a whole decision takes on this
    // machine (a dry run, which writes nothing, plus room for the writes),
    // so some land and some die at every stage, however loaded it is.
    let dry = {
        let a = args(0);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let t = Instant::now();
        assert!(
            act(project, state, &a)
                .arg("--dry-run")
                .status()
                .unwrap()
                .success()
        );
        t.elapsed()
    };
    let range = (dry.as_micros() as u64) * 2 + 10_000;
    for i in 0..KILLS {
        let a = args(i);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let mut child = act(project, state, &a).spawn().unwrap();
        std::thread::sleep(Duration::from_micros(jitter(i, range)));
        let _ = child.kill();
        let _ = child.wait();
        reads(project, format);
    }
    // The next writer is not blocked by whatever lock a dead writer left.
    let started = Instant::now();
    let a = args(KILLS);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let out = act(project, state, &a)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // Done, or refused by the rules because a killed writer's decision had
    // already landed: either way the lock let it through (exit 3 would not).
    assert!(
        out.status.success() || (out.status.code() == Some(1) && err.contains("already")),
        "after the kills: {err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(9),
        "a dead writer's lock held the next one for {:?}",
        started.elapsed()
    );
    reads(project, format);
    // No temp file of a dead writer is left: the last writer that wrote
    // (this one, or, for an answer refused as already given, the one that
    // gave it) swept them before writing, and a refused writer creates none.
    assert_eq!(temp_files(&watched), 0, "temp files left in {watched:?}");
}

#[test]
fn gsd_writers_killed_at_random_instants() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("repo");
    fs::create_dir_all(project.join(".planning")).unwrap();
    let src = repo().join("examples/workspace/gsd/paused-waiting/.planning/STATE.md");
    fs::copy(src, project.join(".planning/STATE.md")).unwrap();
    let state = tmp.path().join("state");
    kill_writers(&project, &state, "gsd", &|i| {
        vec![
            "add-decision".into(),
            format!("killed writer {i} — {}", "x".repeat(i * 37 % 900)),
            "--phase".into(),
            "1".into(),
        ]
    });
    // Some writers were killed before landing and some landed (else the
    // kills never hit a write), and none landed twice.
    let text = fs::read_to_string(project.join(".planning/STATE.md")).unwrap();
    let landed = (0..=KILLS)
        .filter(|i| {
            let n = text.matches(&format!("killed writer {i} —")).count();
            assert!(n <= 1, "writer {i} landed {n} times");
            n == 1
        })
        .count();
    eprintln!("{landed} of {KILLS} killed writers landed");
    assert!(landed > 1 && landed <= KILLS, "{landed} of {KILLS} landed");
}

#[test]
fn prd_writers_killed_at_random_instants() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("prd");
    common::copy_dir(
        &repo().join("examples/workspace/prd-master/fba-smart-restock"),
        &project,
    );
    let state = tmp.path().join("state");
    // Each writer answers the same question: refused once one landed, so
    // both the write path and the refusal path get killed mid-way.
    let shown = common::json(&["show", project.to_str().unwrap()]);
    let q = shown["frontier"]["questions"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    kill_writers(&project, &state, "prd-master", &move |i| {
        vec!["answer".into(), q.clone(), format!("killed answer {i}")]
    });
    // The question was answered exactly once.
    let after: serde_json::Value =
        serde_json::from_slice(&fs::read(project.join("state.json")).unwrap()).unwrap();
    let answers = after["user_inputs_log"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            e["answer"]
                .as_str()
                .is_some_and(|a| a.starts_with("killed answer"))
        })
        .count();
    assert_eq!(answers, 1);
}
