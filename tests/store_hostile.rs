//! The write path against hostile files, through the real binary on real
//! files in temp dirs: what sits at a lock path is not a lock file, a FIFO
//! at an append target, an audit log that cannot be appended to, appends
//! that must reach the disk, and files whose owner or mode a replacement
//! must keep. Each refusal writes nothing and never hangs (every run has a
//! generous timeout so a hang is a failure, not a stuck suite).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use common::{copy_dir, loopdeck, repo};
use loopdeck_core::store::sha256_hex;

const NOW: &str = "2026-06-01T12:00:00Z";
const OPEN_BUG: &str = "bug-20260601-0902-d4e8";
/// A hang is a failure: far above what any of these runs takes.
const HANG: Duration = Duration::from_secs(60);

struct Env {
    tmp: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Env {
            tmp: tempfile::tempdir().unwrap(),
        }
    }
    fn state(&self) -> PathBuf {
        self.tmp.path().join("state")
    }
    fn audit_log(&self) -> PathBuf {
        self.state().join("loopdeck/audit.ndjson")
    }
    /// A copy of the devloop example project p-restock.
    fn devloop(&self) -> PathBuf {
        let dir = self.tmp.path().join("p-restock");
        copy_dir(
            &repo().join("examples/workspace/devloop/data/companies/acme/projects/p-restock"),
            &dir,
        );
        dir
    }
    /// A copy of the GSD example project block-list-phases.
    fn gsd(&self) -> PathBuf {
        let dir = self.tmp.path().join("gsd");
        copy_dir(
            &repo().join("examples/workspace/gsd/block-list-phases"),
            &dir,
        );
        dir
    }
    fn act(&self, dir: &Path, args: &[&str]) -> Output {
        self.cmd(dir, args).output().unwrap()
    }
    fn cmd(&self, dir: &Path, args: &[&str]) -> assert_cmd::Command {
        let mut c = loopdeck();
        c.env("XDG_STATE_HOME", self.state())
            .timeout(HANG)
            .arg("act")
            .arg(dir)
            .args(args)
            .args(["--now", NOW, "--by", "tester"]);
        c
    }
}

fn code(o: &Output) -> i32 {
    o.status
        .code()
        .unwrap_or_else(|| panic!("killed (a hang?): {}", stderr(o)))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every file under `dir`, with the sha256 of its bytes (FIFOs and
/// directories by kind).
fn tree(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let t = e.file_type().unwrap();
            if t.is_dir() {
                out.push((e.path(), "<dir>".to_owned()));
                stack.push(e.path());
            } else if t.is_file() {
                out.push((e.path(), sha256_hex(&fs::read(e.path()).unwrap())));
            } else {
                out.push((e.path(), "<other>".to_owned()));
            }
        }
    }
    out.sort();
    out
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

#[test]
fn a_directory_where_the_gsd_lock_file_goes_is_a_held_lock_not_a_spin() {
    let env = Env::new();
    let p = env.gsd();
    fs::create_dir(p.join(".planning/STATE.md.lock")).unwrap();
    let before = tree(&p);
    let o = env.act(&p, &["add-decision", "x"]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    let msg = stderr(&o);
    assert!(
        msg.contains("STATE.md.lock is not a lock file loopdeck or GSD writes")
            && msg.contains("inspect it"),
        "{msg}"
    );
    assert_eq!(tree(&p), before, "nothing written");
}

#[test]
fn a_fifo_at_an_append_target_is_refused_before_anything_is_written() {
    let env = Env::new();
    let p = env.devloop();
    fs::remove_file(p.join("timeline.ndjson")).unwrap();
    mkfifo(&p.join("timeline.ndjson"));
    let before = tree(&p);
    for extra in [&["--dry-run"][..], &[]] {
        let mut args = vec!["bug", OPEN_BUG, "fixing"];
        args.extend_from_slice(extra);
        let o = env.act(&p, &args);
        assert_eq!(code(&o), 1, "{extra:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("timeline.ndjson: not a regular file"),
            "{extra:?}: {}",
            stderr(&o)
        );
        assert_eq!(tree(&p), before, "{extra:?}: nothing written");
    }
    assert!(!env.audit_log().exists());
    // No lock left behind.
    let o = env.act(&p, &["bug", OPEN_BUG, "fixing", "--dry-run"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
}

#[test]
fn an_audit_log_that_cannot_be_appended_to_refuses_before_the_write() {
    let env = Env::new();
    let p = env.devloop();
    // A directory where the log goes: the append would fail after the write.
    fs::create_dir_all(env.audit_log()).unwrap();
    let before = tree(&p);
    let o = env.act(&p, &["bug", OPEN_BUG, "fixing"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("audit.ndjson"), "{}", stderr(&o));
    assert_eq!(tree(&p), before, "nothing written");
    // A blob directory that cannot be made: the same.
    let env = Env::new();
    let p = env.gsd();
    fs::create_dir_all(env.state().join("loopdeck")).unwrap();
    fs::write(env.state().join("loopdeck/blobs"), "not a directory").unwrap();
    let before = tree(&p);
    let o = env.act(&p, &["add-decision", "x"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("audit blobs"), "{}", stderr(&o));
    assert_eq!(tree(&p), before, "nothing written");
}

/// `strace` shows the appends (the project's NDJSON file and the audit
/// log) followed by `fdatasync`; skipped where strace cannot run.
#[test]
fn appends_reach_the_disk_before_the_decision_is_reported() {
    let strace = ["/usr/bin/strace", "/bin/strace"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file());
    let Some(strace) = strace else {
        eprintln!("skipped: strace is missing");
        return;
    };
    let env = Env::new();
    let p = env.devloop();
    let trace = env.tmp.path().join("trace");
    let o = std::process::Command::new(strace)
        .args(["-f", "-qq", "-e", "trace=fdatasync", "-o"])
        .arg(&trace)
        .arg(assert_cmd::cargo::cargo_bin("loopdeck"))
        .env("NO_COLOR", "1")
        .env("LC_ALL", "C.UTF-8")
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .env("XDG_STATE_HOME", env.state())
        .arg("act")
        .arg(&p)
        .args(["bug", OPEN_BUG, "fixing", "--now", NOW, "--by", "tester"])
        .output()
        .unwrap();
    let Ok(text) = fs::read_to_string(&trace) else {
        eprintln!("skipped: strace did not run: {}", stderr(&o));
        return;
    };
    if text.trim().is_empty() && code(&o) != 0 {
        eprintln!("skipped: strace cannot trace here: {}", stderr(&o));
        return;
    }
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // bugs.ndjson, timeline.ndjson and the audit log.
    let synced = text
        .lines()
        .filter(|l| l.contains("fdatasync(") && l.contains("= 0"))
        .count();
    assert!(synced >= 3, "{text}");
}

fn is_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

fn chown(path: &Path, uid: u32) {
    std::os::unix::fs::chown(path, Some(uid), Some(uid)).unwrap();
}

/// `path` and everything under it to `uid`.
fn chown_all(path: &Path, uid: u32) {
    chown(path, uid);
    if path.is_dir() {
        for e in fs::read_dir(path).unwrap() {
            chown_all(&e.unwrap().path(), uid);
        }
    }
}

fn as_nobody(setpriv: &Path, env: &Env, dir: &Path, args: &[&str]) -> Output {
    std::process::Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(assert_cmd::cargo::cargo_bin("loopdeck"))
        .env("NO_COLOR", "1")
        .env("LC_ALL", "C.UTF-8")
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .env("XDG_STATE_HOME", env.state())
        .arg("act")
        .arg(dir)
        .args(args)
        .args(["--now", NOW, "--by", "tester"])
        .output()
        .unwrap()
}

#[test]
fn a_replaced_file_keeps_its_owner() {
    if !is_root() {
        eprintln!("skipped: needs root to give files away");
        return;
    }
    let env = Env::new();
    let p = env.gsd();
    let state = p.join(".planning/STATE.md");
    chown(&state, 65534);
    let o = env.act(&p, &["add-decision", "Keep the owner"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        fs::read_to_string(&state)
            .unwrap()
            .contains("Keep the owner")
    );
    let m = fs::metadata(&state).unwrap();
    assert_eq!((m.uid(), m.gid()), (65534, 65534));
}

#[test]
fn a_file_whose_owner_cannot_be_kept_or_that_is_read_only_is_refused() {
    if !is_root() {
        eprintln!("skipped: needs root to set up owners");
        return;
    }
    let Some(setpriv) = common::setpriv() else {
        return;
    };
    let env = Env::new();
    let p = env.gsd();
    fs::set_permissions(env.tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    chown_all(&p, 65534);
    fs::create_dir_all(env.state()).unwrap();
    chown(&env.state(), 65534);
    let state = p.join(".planning/STATE.md");

    // Root's file, writable by all, in nobody's directory: nobody could
    // rename a replacement over it, but it would then be nobody's.
    chown(&state, 0);
    fs::set_permissions(&state, fs::Permissions::from_mode(0o666)).unwrap();
    let before = tree(&p);
    let o = as_nobody(&setpriv, &env, &p, &["add-decision", "x"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("owned by uid 0; replacing it would change its owner"),
        "{}",
        stderr(&o)
    );
    assert_eq!(tree(&p), before, "nothing written");
    assert_eq!(fs::metadata(&state).unwrap().uid(), 0);

    // nobody's own file, mode 0444: read-only, not silently replaced.
    chown(&state, 65534);
    fs::set_permissions(&state, fs::Permissions::from_mode(0o444)).unwrap();
    let before = tree(&p);
    let o = as_nobody(&setpriv, &env, &p, &["add-decision", "x"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("read-only file"), "{}", stderr(&o));
    assert_eq!(tree(&p), before, "nothing written");
    assert_eq!(
        fs::metadata(&state).unwrap().permissions().mode() & 0o7777,
        0o444
    );
}
