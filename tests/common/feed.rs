//! `loopdeck watch --json` run as a user runs it: the real binary with
//! its stdout read line by line on a thread, every line checked for the
//! envelope (one JSON object, `schema_version` 1, `type`, an RFC 3339 `at`).

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long any one expected line may take (generous: a loaded machine).
pub const DEADLINE: Duration = Duration::from_secs(30);

pub const RESTOCK: &str = "devloop/data/companies/acme/projects/p-restock";

/// `loopdeck watch --json ROOT`, stdout and stderr piped, no stdin, the
/// user's own config kept out.
pub fn command(root: &Path) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("loopdeck"));
    cmd.args(["watch", "--json"])
        .arg(root)
        .env("NO_COLOR", "1")
        .env("LC_ALL", "C.UTF-8")
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .env("XDG_STATE_HOME", super::state_home())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

pub struct Feed {
    pub child: Child,
    lines: Receiver<String>,
    /// Every line seen, in order.
    pub seen: Vec<Value>,
}

impl Feed {
    /// `loopdeck watch --json ROOT` as a user runs it.
    pub fn start(root: &Path) -> Feed {
        Feed::start_with(root, &[])
    }

    /// [`Feed::start`] with `env` added to its environment.
    pub fn start_with(root: &Path, env: &[(&str, &str)]) -> Feed {
        let mut cmd = command(root);
        for (k, v) in env {
            cmd.env(k, v);
        }
        Feed::spawn(cmd)
    }

    /// `cmd` (stdout and stderr piped), its stdout read line by line.
    pub fn spawn(mut cmd: Command) -> Feed {
        let mut child = cmd.spawn().expect("spawn loopdeck watch");
        let out = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Feed {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// The next line, parsed and checked for the envelope; `None` when no
    /// line came within `wait`.
    pub fn next(&mut self, wait: Duration) -> Option<Value> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => {
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not one JSON object per line ({e}): {line}"));
                assert_eq!(v["schema_version"], 1, "{line}");
                assert!(v["type"].is_string(), "{line}");
                let at = v["at"].as_str().unwrap_or_else(|| panic!("no at: {line}"));
                chrono::DateTime::parse_from_rfc3339(at).expect("at is RFC 3339");
                self.seen.push(v.clone());
                Some(v)
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                let err = self.stderr();
                panic!(
                    "the feed ended; lines so far: {:#?}\nstderr: {err}",
                    self.seen
                )
            }
        }
    }

    /// Lines until one matches `want` (what only the step produces).
    pub fn wait_for(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        let end = Instant::now() + DEADLINE;
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            if let Some(v) = self.next(left)
                && want(&v)
            {
                return v;
            }
        }
        panic!("no line for {what}; lines: {:#?}", self.seen);
    }

    /// No line at all for `quiet`.
    pub fn quiet(&mut self, quiet: Duration) {
        if let Some(v) = self.next(quiet) {
            panic!("a line while nothing changed: {v}");
        }
    }

    pub fn stderr(&mut self) -> String {
        let mut s = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut s);
        }
        s
    }

    /// Exit code within the deadline.
    pub fn exit_code(&mut self) -> Option<i32> {
        let end = Instant::now() + DEADLINE;
        while Instant::now() < end {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!("still running after the deadline");
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    super::copy_dir(&super::repo().join("examples/workspace"), &root);
    (dir, root)
}

pub fn append(path: &Path, text: &str) {
    let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

pub fn is(v: &Value, ty: &str) -> bool {
    v["type"] == ty
}

/// The snapshot, then the watcher live: changes from here on are seen.
pub fn started(feed: &mut Feed) -> Value {
    let snap = feed.wait_for("the snapshot", |v| is(v, "snapshot"));
    assert_eq!(feed.seen.len(), 1, "the snapshot comes first");
    if snap["watcher"]["state"] != "live" {
        feed.wait_for("the watcher live", |v| {
            is(v, "watcher") && v["watcher"]["state"] == "live"
        });
    }
    snap
}
