//! Lock refusals through the binary say what the lock is: a garbage lock
//! dated in the future is no writer creating it (the decision goes
//! through); a breakers' turn that is a directory stops the write at once
//! with exit 3 naming its path; a fresh garbage lock names the file, its
//! body and its mtime.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::loopdeck;

const STATE_MD: &str = "---
gsd_state_version: '1.0'
status: executing
current_phase: \"4\"
last_updated: \"2026-05-30T08:00:00.000Z\"
---

# Project State

## Current Position

Phase: 4 of 17 (Observability)

## Accumulated Context

### Decisions

None yet.

### Blockers/Concerns

None yet.
";

fn gsd(tmp: &Path) -> PathBuf {
    let dir = tmp.join("p");
    fs::create_dir_all(dir.join(".planning")).unwrap();
    fs::write(dir.join(".planning/STATE.md"), STATE_MD).unwrap();
    dir
}

fn act(tmp: &Path, dir: &Path) -> (String, i32) {
    let out = loopdeck()
        .env("XDG_STATE_HOME", tmp.join("state"))
        .arg("act")
        .arg(dir)
        .args(["add-decision", "Use SQLite", "--by", "alice"])
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap(),
    )
}

fn set_mtime(path: &Path, when: SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

#[test]
fn a_garbage_lock_dated_in_the_future_does_not_block_the_write() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = gsd(tmp.path());
    let lock = dir.join(".planning/STATE.md.lock");
    fs::write(&lock, "not a pid").unwrap();
    set_mtime(&lock, SystemTime::now() + Duration::from_secs(86_400));
    let (err, code) = act(tmp.path(), &dir);
    assert_eq!(code, 0, "{err}");
    assert!(!lock.exists());
    let text = fs::read_to_string(dir.join(".planning/STATE.md")).unwrap();
    assert!(text.contains("Use SQLite"), "{text}");
}

#[test]
fn a_break_turn_that_is_a_directory_is_refused_at_once_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = gsd(tmp.path());
    let lock = dir.join(".planning/STATE.md.lock");
    // A pid no process has (above the kernel's pid_max).
    fs::write(&lock, "4194304").unwrap();
    let turn = dir.join(".planning/STATE.md.lock.break");
    fs::create_dir(&turn).unwrap();
    let before = fs::read(dir.join(".planning/STATE.md")).unwrap();
    let (err, code) = act(tmp.path(), &dir);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains(
            ".planning/STATE.md.lock.break is not a lock file loopdeck or GSD writes (a directory)"
        ) && err.contains(".planning/STATE.md.lock is stale (pid 4194304 is not running)")
            && !err.contains("waited"),
        "{err}"
    );
    assert_eq!(fs::read(dir.join(".planning/STATE.md")).unwrap(), before);
}
