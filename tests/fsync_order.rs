//! The order of a decision's syncs, seen by `strace` on the real binary: a
//! power cut at any instant leaves either the old or the new file, an
//! intent record that reaches the disk before any project file changes,
//! and no rename that the disk forgot. Deleting any of these syncs
//! (`fsync` of a temp file, of a directory after a rename) changes no
//! file a test can read back, so only the system calls show it.
//!
//! Needs `strace` (CI installs it); skips with a message where it is
//! missing, and fails under `CI` then.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use common::{NOW, repo};

/// One system call of interest, the descriptors named by the file or
/// directory they were opened on (its last path component).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Call {
    Sync(String),
    /// (directory, from, to)
    Rename(String, String, String),
}

fn strace_available() -> bool {
    Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Can strace trace here (a container may forbid ptrace)?
fn strace_permitted() -> bool {
    Command::new("strace")
        .args(["-qq", "-o", "/dev/null", "true"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The quoted arguments of a call line, in order.
fn quoted(line: &str) -> Vec<String> {
    line.split('"')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_owned())
        .collect()
}

/// The bare (unquoted) arguments of a call line, in order.
fn args(line: &str) -> Vec<String> {
    let Some(open) = line.find('(') else {
        return Vec::new();
    };
    let inner = &line[open + 1..line.rfind(')').unwrap_or(line.len())];
    inner.split(", ").map(|s| s.trim().to_owned()).collect()
}

fn result(line: &str) -> Option<i64> {
    line.rsplit("= ")
        .next()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The calls of a trace, in order, descriptors resolved.
fn calls(trace: &str) -> Vec<Call> {
    let mut fds: HashMap<i64, String> = HashMap::new();
    let mut out = Vec::new();
    for line in trace.lines() {
        // `PID call(...) = N`
        let Some(call) = line.split_once(' ').map(|(_, c)| c.trim_start()) else {
            continue;
        };
        let name = |fd: &str| fd.parse::<i64>().ok().and_then(|n| fds.get(&n).cloned());
        if call.starts_with("openat(") {
            if let (Some(path), Some(fd)) = (quoted(call).first().cloned(), result(call))
                && fd >= 0
            {
                let last = Path::new(&path)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or(path);
                fds.insert(fd, last);
            }
        } else if call.starts_with("fcntl(") || call.starts_with("dup") {
            // A descriptor duplicated (`try_clone`): the same file.
            let a = args(call);
            let dup = call.starts_with("dup") || a.get(1).is_some_and(|c| c.starts_with("F_DUPFD"));
            if let (true, Some(n), Some(fd)) = (dup, a.first().and_then(|d| name(d)), result(call))
                && fd >= 0
            {
                fds.insert(fd, n);
            }
        } else if call.starts_with("close(") {
            if let Some(fd) = args(call).first().and_then(|a| a.parse().ok()) {
                fds.remove(&fd);
            }
        } else if call.starts_with("fsync(") || call.starts_with("fdatasync(") {
            if let Some(n) = args(call).first().and_then(|a| name(a)) {
                out.push(Call::Sync(n));
            }
        } else if call.starts_with("renameat(") || call.starts_with("renameat2(") {
            let a = args(call);
            let q = quoted(call);
            if let (Some(dir), [from, to, ..]) = (a.first().and_then(|d| name(d)), q.as_slice())
                && result(call) == Some(0)
            {
                out.push(Call::Rename(dir, from.clone(), to.clone()));
            }
        }
    }
    out
}

fn position(calls: &[Call], what: impl Fn(&Call) -> bool) -> Option<usize> {
    calls.iter().position(what)
}

#[test]
fn every_rename_is_made_durable_in_order() {
    if !strace_available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "strace is missing on CI: .ci/run installs it"
        );
        eprintln!("skipped: strace is not installed (apt-get install strace)");
        return;
    }
    if !strace_permitted() {
        eprintln!("skipped: strace cannot trace here (ptrace is not permitted)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("p");
    common::copy_dir(
        &repo().join("tests/fixtures/prd-act/stage1/before"),
        &project,
    );
    let trace_file = tmp.path().join("trace.txt");
    let out = Command::new("strace")
        .args(["-f", "-qq", "-e"])
        .arg("trace=openat,close,fcntl,dup,dup2,dup3,fsync,fdatasync,renameat,renameat2")
        .arg("-o")
        .arg(&trace_file)
        .arg(env!("CARGO_BIN_EXE_loopdeck"))
        .args(["--now", NOW, "act"])
        .arg(&project)
        .args(["answer", "OQ-7", "yes, CSV only"])
        .env("XDG_STATE_HOME", tmp.path().join("state"))
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .env("LC_ALL", "C.UTF-8")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let calls = calls(&std::fs::read_to_string(&trace_file).unwrap());

    // The intent record: its bytes synced, then renamed into place, then
    // its directory synced, all before the first project file changes.
    let intent = position(&calls, |c| {
        matches!(c, Call::Rename(d, from, to) if d == "intents" && from.ends_with(".tmp") && to.ends_with(".json"))
    })
    .unwrap_or_else(|| panic!("the intent is renamed into place: {calls:#?}"));
    let Call::Rename(_, intent_tmp, _) = &calls[intent] else {
        unreachable!()
    };
    let first_project_rename =
        position(&calls, |c| matches!(c, Call::Rename(d, ..) if d == "p")).unwrap();
    assert!(
        calls[..intent].contains(&Call::Sync(intent_tmp.clone())),
        "the intent's bytes are synced before its rename: {calls:#?}"
    );
    assert!(
        calls[intent..first_project_rename].contains(&Call::Sync("intents".into())),
        "the intents directory is synced after the rename and before the first project file changes: {calls:#?}"
    );

    // The bytes `undo` needs (the blobs) are on the disk before any
    // project file changes.
    let blob = position(
        &calls,
        |c| matches!(c, Call::Rename(_, from, to) if from.ends_with(".tmp") && to == "0"),
    )
    .unwrap_or_else(|| panic!("a blob is kept: {calls:#?}"));
    let Call::Rename(blob_dir, blob_tmp, _) = &calls[blob] else {
        unreachable!()
    };
    assert!(calls[..blob].contains(&Call::Sync(blob_tmp.clone())));
    assert!(
        calls[blob..first_project_rename].contains(&Call::Sync(blob_dir.clone())),
        "the blob's directory is synced before the first project file changes: {calls:#?}"
    );

    // Each project file: the temp file synced before it goes in, the
    // project directory synced after.
    for file in ["state.json", "conversation.md"] {
        let at = position(&calls, |c| {
            matches!(c, Call::Rename(d, from, to) if d == "p" && to == file && from.starts_with(&format!(".{file}.")))
        })
        .unwrap_or_else(|| panic!("{file} is swapped in: {calls:#?}"));
        let Call::Rename(_, tmp_name, _) = &calls[at] else {
            unreachable!()
        };
        assert!(
            calls[..at].contains(&Call::Sync(tmp_name.clone())),
            "{file}: the new bytes are synced before the swap: {calls:#?}"
        );
        assert!(
            calls[at..].contains(&Call::Sync("p".into())),
            "{file}: the project directory is synced after the swap: {calls:#?}"
        );
    }

    // The audit record reaches the disk after the files it records.
    let last_project = calls
        .iter()
        .rposition(|c| matches!(c, Call::Rename(d, ..) if d == "p"))
        .unwrap();
    assert!(
        calls[last_project..].contains(&Call::Sync("audit.ndjson".into())),
        "the audit log is synced after the last file: {calls:#?}"
    );
}
