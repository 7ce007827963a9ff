//! Shared helpers for the integration tests: real files in temp dirs, and the
//! real binary run as a user runs it.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use assert_cmd::Command;

pub mod feed;
pub mod sshd;
pub mod tmux;

/// The reference "now" every timestamp of the example workspace is chosen against.
pub const NOW: &str = "2026-06-01T12:00:00Z";

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn loopdeck() -> Command {
    let mut c = Command::cargo_bin("loopdeck").expect("binary");
    c.env("NO_COLOR", "1");
    // English whatever the machine speaks (a test of Chinese says so).
    c.env("LC_ALL", "C.UTF-8");
    // The user's own config file (its roots) never leaks into a test.
    c.env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config");
    // Nor does a test write the user's state (a test sets its own).
    c.env("XDG_STATE_HOME", state_home());
    c
}

/// The state directory a test that sets none runs with: this test
/// process's own, never the user's (readings remember when items were
/// first seen there).
pub fn state_home() -> PathBuf {
    std::env::temp_dir().join(format!("loopdeck-test-state-{}", std::process::id()))
}

/// stdout, stderr and exit code of `loopdeck ARGS --now NOW`, with `env`
/// added to its environment (e.g. `LC_ALL=zh_CN.UTF-8`).
pub fn run_with(args: &[&str], env: &[(&str, &str)]) -> (String, String, i32) {
    let mut c = loopdeck();
    c.args(args).args(["--now", NOW]);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// A state directory of its own under `tmp` (what the console remembers,
/// the audit log), and the `XDG_STATE_HOME=…` that points the console at it.
pub fn state_dir(tmp: &Path) -> (PathBuf, String) {
    let state = tmp.join("state");
    fs::create_dir_all(&state).unwrap();
    let env = format!("XDG_STATE_HOME={}", state.display());
    (state, env)
}

/// Run `loopdeck ARGS --now NOW --json` and parse stdout.
pub fn json(args: &[&str]) -> serde_json::Value {
    let out = loopdeck()
        .args(args)
        .args(["--now", NOW, "--json"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

/// `LOOPDECK_FAULTS_SCALE=N`: the fault suites (`tests/faults*.rs`) run
/// N times as many kills, swaps and seconds (15 gives issue 18's sizes).
pub fn faults_scale() -> u32 {
    std::env::var("LOOPDECK_FAULTS_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1)
}

pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("mkdir");
    for e in fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            fs::copy(e.path(), &target).expect("copy");
        }
    }
}

pub fn set_mtime(path: &Path, rfc3339: &str) {
    let t: SystemTime = chrono::DateTime::parse_from_rfc3339(rfc3339)
        .expect("time")
        .into();
    let f = fs::File::options().append(true).open(path).expect("open");
    f.set_modified(t).expect("set mtime");
}

/// Set the mtime of every file under `dir`.
pub fn set_mtimes(dir: &Path, rfc3339: &str) {
    for e in fs::read_dir(dir).expect("read_dir") {
        let e = e.expect("entry");
        if e.file_type().expect("type").is_dir() {
            set_mtimes(&e.path(), rfc3339);
        } else {
            set_mtime(&e.path(), rfc3339);
        }
    }
}

/// The example workspace in a temp dir. Every file's mtime is the moment
/// of the copy, as a `git clone` leaves it (git keeps no mtimes): every
/// project is dated by what its files record (see examples_clone.rs).
pub fn workspace() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let ws = tmp.path().join("workspace");
    copy_dir(&repo().join("examples/workspace"), &ws);
    (tmp, ws)
}

pub fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, bytes).expect("write");
}

/// Every file under `dir` with its bytes and mtime, to prove nothing was written.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>, SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).expect("read_dir") {
            let e = e.expect("entry");
            let ft = e.file_type().expect("type");
            if ft.is_dir() {
                stack.push(e.path());
            } else if ft.is_file() {
                let m = e.metadata().expect("meta").modified().expect("mtime");
                out.push((e.path(), fs::read(e.path()).expect("read"), m));
            } else {
                out.push((e.path(), Vec::new(), SystemTime::UNIX_EPOCH));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The items of an `inbox --json` answer, checked to be oldest first.
pub fn assert_oldest_first(items: &[serde_json::Value]) {
    let ages: Vec<i64> = items
        .iter()
        .map(|i| i["age_seconds"].as_i64().expect("age"))
        .collect();
    let mut desc = ages.clone();
    desc.sort_by(|a, b| b.cmp(a));
    assert_eq!(ages, desc, "oldest first");
}

/// `cmd` run as the unprivileged user 65534 (root ignores permission
/// bits, so permission tests need another user). `None` (with a message)
/// when `setpriv` is missing and `CI` is not set; in CI a missing
/// `setpriv` fails the test. A user who is not root runs it directly.
pub fn as_nobody(args: &[&str]) -> Option<std::process::Output> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        let mut c = loopdeck();
        return Some(c.args(args).output().expect("run"));
    }
    let have = std::process::Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        assert!(
            std::env::var_os("CI").is_none(),
            "setpriv is needed for the permission tests"
        );
        eprintln!("skipped: setpriv is missing (set CI to make this a failure)");
        return None;
    }
    let bin = env!("CARGO_BIN_EXE_loopdeck");
    Some(
        std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(bin)
            .args(args)
            .env("NO_COLOR", "1")
            .env("LC_ALL", "C.UTF-8")
            .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
            .output()
            .expect("run setpriv"),
    )
}

/// Set the permission bits of `path`.
#[cfg(unix)]
pub fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Make `dir` and everything under it readable by every user.
#[cfg(unix)]
pub fn world_readable(dir: &Path) {
    chmod(dir, 0o755);
    for e in fs::read_dir(dir).expect("read_dir") {
        let e = e.expect("entry");
        if e.file_type().expect("type").is_dir() {
            world_readable(&e.path());
        } else {
            chmod(&e.path(), 0o644);
        }
    }
}

/// `setpriv`, to run the binary as nobody (root ignores file modes);
/// without it a test is skipped, saying so, except in CI, where its
/// absence is a failure.
pub fn setpriv() -> Option<PathBuf> {
    let found = ["/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "setpriv is required in CI"
        );
        eprintln!("skipped: setpriv is missing");
    }
    found
}

/// Wait until the file system's clock has moved on, so the next write
/// gets times different from every stat taken so far (a poll on the
/// file system itself, not a timing).
pub fn tick(dir: &Path) {
    let probe = dir.join(".tick");
    fs::write(&probe, "a").unwrap();
    let first = fs::metadata(&probe).unwrap().modified().unwrap();
    for _ in 0..100_000 {
        fs::write(&probe, "a").unwrap();
        if fs::metadata(&probe).unwrap().modified().unwrap() != first {
            break;
        }
        std::thread::yield_now();
    }
    fs::remove_file(&probe).unwrap();
}

/// Every file under `dir` (its subdirectories too), with its bytes, in
/// path order: equal before and after a refused decision.
pub fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path().display().to_string(), fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A devloop project's PRD conflict settled: its `<aside data-conflict>`
/// lines removed from `prd.html`, as the PM agent removes them once a
/// requirement settles the conflict. While one is there the whole project
/// pauses (seed 003) and sign-off is refused; the example's `p-shipped`
/// has one.
pub fn settle_prd_conflict(dir: &Path) {
    let path = dir.join("prd.html");
    let html = fs::read_to_string(&path).unwrap();
    let kept: Vec<&str> = html
        .lines()
        .filter(|l| !l.contains("<aside data-conflict>"))
        .collect();
    assert_ne!(
        kept.len(),
        html.lines().count(),
        "no conflict aside to settle"
    );
    fs::write(&path, kept.join("\n") + "\n").unwrap();
}
