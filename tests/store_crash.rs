//! Writers killed at random instants, and many writers at once.
//!
//! The test binary re-executes itself as a child writer (the environment
//! variable `LOOPDECK_STORE_CRASH_ROLE` selects the role): the child runs
//! `transact` with loopdeck's own lock in a loop, replacing a JSON counter
//! and appending an NDJSON line. The parent SIGKILLs it at random instants,
//! hundreds of times, and between kills checks that every file parses, that
//! the next writer is never blocked by the dead writer's lock, and that
//! temp files do not pile up.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::Utc;
use loopdeck_core::decide::{ActError, Outcome, Refusal, WriteOptions};
use loopdeck_core::store::transact;
use loopdeck_core::store::txn::{Edit, LockKind, Txn};

const ROLE: &str = "LOOPDECK_STORE_CRASH_ROLE";
const DIR: &str = "LOOPDECK_STORE_CRASH_DIR";

/// One decision: the counter `n` plus one, and a line in `log.ndjson`.
/// The counter's file grows and shrinks so writes take varying time.
fn increment(project: &Path, wait: Duration) -> Result<Outcome, ActError> {
    let opts = WriteOptions {
        audit_dir: Some(project.parent().unwrap().join("audit")),
        wait,
        ..WriteOptions::default()
    };
    let txn = Txn::new(
        project,
        "state.json",
        LockKind::Owner,
        &opts,
        "crash-test",
        Utc::now(),
        serde_json::json!({"verb": "increment"}),
    );
    transact(&txn, |snap| {
        let n = match snap.read("state.json")? {
            None => 0,
            Some(b) => {
                let v: serde_json::Value = serde_json::from_slice(b)
                    .map_err(|e| ActError::Refused(Refusal::new(format!("corrupt: {e}"))))?;
                v["n"].as_u64().unwrap()
            }
        };
        let state =
            serde_json::json!({"n": n + 1, "pad": "x".repeat(((n * 7919) % 8_000) as usize)});
        let mut bytes = serde_json::to_vec_pretty(&state).unwrap();
        bytes.push(b'\n');
        Ok(vec![
            Edit::AppendLine {
                file: "log.ndjson".into(),
                line: serde_json::to_vec(&serde_json::json!({"n": n + 1})).unwrap(),
            },
            Edit::Replace {
                file: "state.json".into(),
                bytes,
            },
        ])
    })
}

/// The child writer's entry point: does nothing unless run as a child.
#[test]
fn child_writer() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let project = PathBuf::from(std::env::var(DIR).unwrap());
    match role.as_str() {
        "loop" => loop {
            let _ = increment(&project, Duration::from_secs(10));
        },
        "once" => {
            let code = match increment(&project, Duration::from_secs(60)) {
                Ok(_) => 0,
                Err(e) => {
                    eprintln!("{e}");
                    loopdeck::exit::of_decision(&e)
                }
            };
            std::process::exit(code);
        }
        _ => {}
    }
}

fn spawn(role: &str, project: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["child_writer", "--exact", "--nocapture", "--test-threads=1"])
        .env(ROLE, role)
        .env(DIR, project)
        .stdout(Stdio::null())
        .stderr(if role == "once" {
            Stdio::inherit()
        } else {
            Stdio::null()
        })
        .spawn()
        .unwrap()
}

/// A project in a fresh directory; on tmpfs when there is one (a SIGKILL,
/// unlike a power cut, does not depend on fsync, and tmpfs keeps the
/// hundreds of rounds within seconds on a busy machine).
fn project() -> (tempfile::TempDir, PathBuf) {
    let shm = Path::new("/dev/shm");
    let tmp = if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap_or_else(|_| tempfile::tempdir().unwrap())
    } else {
        tempfile::tempdir().unwrap()
    };
    let project = tmp.path().join("project");
    fs::create_dir(&project).unwrap();
    (tmp, project)
}

fn temps(dir: &Path) -> Vec<String> {
    loopdeck_core::store::list_names(dir)
        .into_iter()
        .filter(|n| n.contains(".loopdeck-") && n.ends_with(".tmp"))
        .collect()
}

/// A small xorshift for the kill instants (seeded by the clock; the seed
/// is printed so a failure can be replayed).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Every file parses: the JSON whole, the NDJSON files line by line from
/// where the last check stopped. `seen`: per log, the bytes already checked
/// and whether a killed writer left a torn tail there (a line cut in its
/// `write`). That tail is the one line allowed not to parse: the next
/// append starts with a newline, so it ends the fragment and never joins
/// it (ARCHITECTURE.md, rule 5 of every write); every line after it parses.
fn assert_all_parse(project: &Path, round: usize, seen: &mut [(usize, bool); 2]) {
    if let Ok(b) = fs::read(project.join("state.json")) {
        serde_json::from_slice::<serde_json::Value>(&b)
            .unwrap_or_else(|e| panic!("round {round}: state.json does not parse: {e}"));
    }
    let logs = [
        project.join("log.ndjson"),
        project.parent().unwrap().join("audit/audit.ndjson"),
    ];
    for (log, (from, torn)) in logs.iter().zip(seen.iter_mut()) {
        let Ok(bytes) = fs::read(log) else { continue };
        // Only whole lines: a check never races a line being appended (the
        // writer of this round is dead, so bytes after the last newline are
        // a torn tail).
        let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let mut lines = bytes[*from..end].split(|&b| b == b'\n');
        if *torn && end > *from {
            // The fragment a killed writer left, ended by the next append.
            lines.next();
            *torn = false;
        }
        for line in lines.filter(|l| !l.is_empty()) {
            serde_json::from_slice::<serde_json::Value>(line).unwrap_or_else(|e| {
                panic!(
                    "round {round}: {}: {:?}: {e}",
                    log.display(),
                    String::from_utf8_lossy(line)
                )
            });
        }
        *from = end;
        *torn |= end < bytes.len();
    }
}

#[cfg(unix)]
#[test]
fn a_writer_killed_at_any_instant_leaves_every_file_whole_and_no_lock_behind() {
    const ROUNDS: usize = 300;
    let (_tmp, project) = project();
    let seed = Utc::now().timestamp_nanos_opt().unwrap_or(1) as u64 | 1;
    eprintln!("seed {seed}");
    let mut rng = Rng(seed);
    let mut mine = 0u64;
    let (mut locks_left, mut temps_left) = (0, 0);
    let started = Instant::now();
    let (mut spawn_time, mut write_time) = (Duration::ZERO, Duration::ZERO);
    let mut seen = [(0usize, false); 2];
    for round in 0..ROUNDS {
        let t0 = Instant::now();
        let mut child = spawn("loop", &project);
        spawn_time += t0.elapsed();
        // A child needs a few ms to start; kill it anywhere from before its
        // first write to deep in its loop.
        std::thread::sleep(Duration::from_micros(1_000 + rng.next() % 25_000));
        child.kill().unwrap();
        child.wait().unwrap();
        assert_all_parse(&project, round, &mut seen);
        if project.join("state.json.loopdeck-lock").exists() {
            locks_left += 1;
        }
        temps_left += temps(&project).len();
        let t = Instant::now();
        increment(&project, Duration::from_secs(5))
            .unwrap_or_else(|e| panic!("round {round}: the next writer failed: {e}"));
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "round {round}: the next writer waited {:?}",
            t.elapsed()
        );
        mine += 1;
        write_time += t.elapsed();
        assert_eq!(
            temps(&project),
            Vec::<String>::new(),
            "round {round}: swept"
        );
        assert!(!project.join("state.json.loopdeck-lock").exists());
        assert!(!project.join("state.json.loopdeck-lock.break").exists());
        assert_all_parse(&project, round, &mut seen);
    }
    let state: serde_json::Value =
        serde_json::from_slice(&fs::read(project.join("state.json")).unwrap()).unwrap();
    let n = state["n"].as_u64().unwrap();
    assert!(n >= mine, "n {n} < the parent's own {mine} increments");
    // Each line is appended before its counter is replaced: a writer killed
    // in between leaves one line more, never one fewer.
    let lines = fs::read_to_string(project.join("log.ndjson"))
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .count() as u64;
    assert!(lines >= n, "{lines} lines for n = {n}");
    eprintln!(
        "{ROUNDS} kills in {:?} (spawning {spawn_time:?}, the next writers {write_time:?}): n = {n}, {lines} lines, {locks_left} locks and {temps_left} temp files left by killed writers",
        started.elapsed()
    );
    assert!(
        locks_left > 0,
        "no kill landed while the lock was held: the test did not test"
    );
}

#[cfg(unix)]
#[test]
fn fifty_writers_at_once_lose_no_update() {
    const N: u64 = 50;
    let (_tmp, project) = project();
    let children: Vec<Child> = (0..N).map(|_| spawn("once", &project)).collect();
    for mut c in children {
        let status = c.wait().unwrap();
        assert!(status.success(), "every writer lands: {status}");
    }
    let state: serde_json::Value =
        serde_json::from_slice(&fs::read(project.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["n"], N);
    let lines = fs::read_to_string(project.join("log.ndjson")).unwrap();
    let mut seen: Vec<u64> = lines
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["n"]
                .as_u64()
                .unwrap()
        })
        .collect();
    seen.sort_unstable();
    assert_eq!(seen, (1..=N).collect::<Vec<_>>());
    assert_eq!(
        loopdeck_core::store::list_names(&project),
        ["log.ndjson", "state.json"]
    );
}

#[test]
fn fifty_threads_at_once_lose_no_update() {
    let (_tmp, project) = project();
    let threads: Vec<_> = (0..50)
        .map(|_| {
            let p = project.clone();
            std::thread::spawn(move || increment(&p, Duration::from_secs(60)).map(|_| ()))
        })
        .collect();
    for t in threads {
        t.join().unwrap().unwrap();
    }
    let state: serde_json::Value =
        serde_json::from_slice(&fs::read(project.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["n"], 50);
}
