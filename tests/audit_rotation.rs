//! Issue 18 §5, §6, §2: the audit log is set aside by size and `undo`
//! finds a decision in the set-aside logs by its id; a log past the old
//! 256 MiB read limit no longer breaks every undo; a FIFO where the log
//! goes is named as one (the real cause), without hanging. Through the
//! binary, on real files.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{loopdeck, repo};

struct Env {
    tmp: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Env {
            tmp: tempfile::tempdir().unwrap(),
        }
    }
    fn state_home(&self) -> PathBuf {
        self.tmp.path().join("state")
    }
    fn dir(&self) -> PathBuf {
        self.state_home().join("loopdeck")
    }
    fn gsd(&self, name: &str) -> PathBuf {
        let p = self.tmp.path().join(name);
        if !p.exists() {
            common::copy_dir(&repo().join("examples/workspace/gsd/paused-waiting"), &p);
        }
        p
    }
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = loopdeck()
            .env("XDG_STATE_HOME", self.state_home())
            .args(args)
            // A guard against a hang, not a timing: the FIFO case.
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
    /// `act … add-decision` on `project` with `--json`: its audit id.
    fn decide(&self, project: &Path) -> String {
        let (code, out, err) = self.run(&[
            "act",
            project.to_str().unwrap(),
            "add-decision",
            "keep it",
            "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["audit_id"].as_str().unwrap().to_owned()
    }
}

fn state_md(project: &Path) -> Vec<u8> {
    fs::read(project.join(".planning/STATE.md")).unwrap()
}

/// A decision whose record is in a set-aside log (`audit.ndjson.<id>`) is
/// undone by its id; `undo --last` and `redo` walk the stack across the
/// logs.
#[test]
fn undo_finds_a_decision_in_a_set_aside_log() {
    let e = Env::new();
    let a = e.gsd("a");
    let b = e.gsd("b");
    let a_before = state_md(&a);
    let id_a = e.decide(&a);
    // The log set aside as a rotation leaves it: named by the time it
    // was set aside, after the decision.
    fs::rename(
        e.dir().join("audit.ndjson"),
        e.dir().join(format!(
            "audit.ndjson.{}",
            loopdeck_core::decide::audit::new_id()
        )),
    )
    .unwrap();
    let b_before = state_md(&b);
    e.decide(&b);
    let (code, _, err) = e.run(&["undo", &id_a]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(state_md(&a), a_before);
    // The stack walks across logs: `undo --last` undoes b's decision (a's,
    // in the set-aside log, is undone already), then there is none left.
    let b_after = state_md(&b);
    let (code, _, err) = e.run(&["undo", "--last"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(state_md(&b), b_before);
    assert_eq!(state_md(&a), a_before);
    let (code, _, err) = e.run(&["undo", "--last"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("undone already"), "{err}");
    // Redo puts back b's, then a's (whose record is in the old log).
    let (code, _, err) = e.run(&["redo"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(state_md(&b), b_after);
    assert_eq!(state_md(&a), a_before);
    let (code, _, err) = e.run(&["redo"]);
    assert_eq!(code, 0, "{err}");
    assert_ne!(state_md(&a), a_before);
}

/// A log of 300 MiB (sparse, left by a version that never rotated) with
/// the decision at its end: `undo --last` reads it from the end and
/// succeeds; the next decision sets the big log aside.
#[test]
fn a_log_past_256_mib_still_undoes_and_is_set_aside() {
    let e = Env::new();
    let a = e.gsd("a");
    let before = state_md(&a);
    e.decide(&a);
    let log = e.dir().join("audit.ndjson");
    let record = fs::read(&log).unwrap();
    let f = fs::OpenOptions::new().write(true).open(&log).unwrap();
    f.set_len(300 * 1024 * 1024).unwrap();
    drop(f);
    let mut f = fs::OpenOptions::new().append(true).open(&log).unwrap();
    std::io::Write::write_all(&mut f, b"\n").unwrap();
    std::io::Write::write_all(&mut f, &record).unwrap();
    drop(f);
    let (code, _, err) = e.run(&["undo", "--last"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(state_md(&a), before);
    // The undo's own record went to a new log; the big one is set aside.
    let names: Vec<String> = fs::read_dir(e.dir())
        .unwrap()
        .map(|d| d.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("audit.ndjson"))
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(fs::metadata(&log).unwrap().len() < 1024 * 1024);
    // And that undo is redone from the new log.
    let (code, _, err) = e.run(&["redo"]);
    assert_eq!(code, 0, "{err}");
    assert_ne!(state_md(&a), before);
}

/// A FIFO where the audit log goes: `act` says what it is and names it,
/// writes nothing, and does not hang.
#[test]
fn a_fifo_audit_log_is_named_as_one() {
    let e = Env::new();
    let p = e.gsd("a");
    fs::create_dir_all(e.dir()).unwrap();
    common::chmod(&e.dir(), 0o700);
    let fifo = e.dir().join("audit.ndjson");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let before = common::snapshot(&p);
    let (code, _, err) = e.run(&["act", p.to_str().unwrap(), "add-decision", "x"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "{} is not a regular file but a FIFO",
            fifo.display()
        )),
        "{err}"
    );
    assert!(!err.contains("No such device"), "{err}");
    assert!(err.contains("remove it"), "{err}");
    assert_eq!(common::snapshot(&p), before, "nothing written");
}
