//! `loopdeck list --cached`: the snapshot `watch` (and the console) keep
//! of the last reading, printed at once, as `list` prints a reading, with
//! its age and, per row, whether the project's files moved on since; no
//! usable snapshot (none, truncated, another version, other roots): exit 5
//! and why, nothing on stdout. The real binary on real files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::feed::{Feed, command, started};
use common::{NOW, loopdeck, set_mtimes, workspace};
use serde_json::Value;

/// `loopdeck ARGS --now NOW` with its own state directory: stdout,
/// stderr, exit code.
fn run(state: &Path, args: &[&str]) -> (String, String, i32) {
    let out = loopdeck()
        .env("XDG_STATE_HOME", state)
        .args(args)
        .args(["--now", NOW])
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn json(state: &Path, args: &[&str]) -> Value {
    let (out, err, code) = run(state, args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// The example workspace, its devloop logs dated back (a log written in
/// the last seconds before a snapshot cannot be told read or not: its row
/// would be changed since from the start).
fn ws() -> (tempfile::TempDir, PathBuf) {
    let (t, ws) = workspace();
    set_mtimes(&ws.join("devloop"), "2026-05-31T00:00:00Z");
    (t, ws)
}

/// `watch --json` on `root` until its first reading is in, then stopped
/// as a user stops it (SIGTERM): it has written the snapshot.
fn keep_snapshot(state: &Path, root: &Path) {
    let mut cmd = command(root);
    cmd.env("XDG_STATE_HOME", state);
    let mut feed = Feed::spawn(cmd);
    started(&mut feed);
    let pid = i32::try_from(feed.child.id()).unwrap();
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    assert_eq!(feed.exit_code(), Some(0), "{}", feed.stderr());
    let dir = state.join("loopdeck");
    let kept: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("snapshot-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
}

fn snapshot_file(state: &Path) -> PathBuf {
    fs::read_dir(state.join("loopdeck"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("snapshot-"))
        })
        .unwrap()
}

/// Nothing changed since the snapshot: every row `list --cached` prints
/// is the row `list` prints (field by field; `changed_since: false`
/// added), in the same order, and the table is the same; the JSON says
/// when the snapshot was taken. Then one project's state file is
/// rewritten: its row is `changed_since: true` (and still shows the old
/// stage, as kept), the others not; `list` shows the new stage.
#[test]
fn cached_rows_are_lists_rows_until_a_file_moves_on() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    let (_w, root) = ws();
    let root_s = root.to_str().unwrap();
    keep_snapshot(&state, &root);

    let fresh = json(&state, &["list", root_s, "--json"]);
    let cached = json(&state, &["list", root_s, "--json", "--cached"]);
    assert!(fresh.get("cached").is_none());
    assert_eq!(cached["roots"], fresh["roots"]);
    assert_eq!(cached["now"], fresh["now"]);
    assert_eq!(cached["problems"], serde_json::json!([]));
    let when = &cached["cached"];
    assert!(
        when["written_at"].as_str().unwrap().ends_with('Z'),
        "{when}"
    );
    let age = when["age_seconds"].as_i64().unwrap();
    assert!((0..600).contains(&age), "{when}");
    let rows = |v: &Value| v["projects"].as_array().unwrap().clone();
    let (fresh_rows, cached_rows) = (rows(&fresh), rows(&cached));
    assert_eq!(fresh_rows.len(), 20);
    assert_eq!(cached_rows.len(), fresh_rows.len());
    for (c, f) in cached_rows.iter().zip(&fresh_rows) {
        let mut c = c.as_object().unwrap().clone();
        assert_eq!(c.remove("changed_since"), Some(Value::Bool(false)), "{f}");
        assert_eq!(Value::Object(c), *f);
    }
    // The table: the same, its age on stderr.
    let (table, _, _) = run(&state, &["list", root_s]);
    let (cached_table, note, code) = run(&state, &["list", root_s, "--cached"]);
    assert_eq!(code, 0);
    assert_eq!(cached_table, table);
    assert!(
        note.contains("as the last reading kept them") && note.contains("0 projects changed"),
        "{note}"
    );

    // A state file rewritten since (a new stage).
    let prd = root.join("prd-master/fba-smart-restock/state.json");
    let text = fs::read_to_string(&prd).unwrap();
    let moved = text.replacen("\"current_stage\": \"", "\"current_stage\": \"9", 1);
    assert_ne!(moved, text);
    fs::write(&prd, moved).unwrap();
    let cached = json(&state, &["list", root_s, "--json", "--cached"]);
    let ids: Vec<String> = rows(&cached)
        .iter()
        .filter(|r| r["changed_since"] == true)
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, ["prd-master/fba-smart-restock"]);
    let stage = |v: &Value| {
        rows(v)
            .into_iter()
            .find(|r| r["id"] == "prd-master/fba-smart-restock")
            .unwrap()["stage"]
            .clone()
    };
    let fresh = json(&state, &["list", root_s, "--json"]);
    assert_ne!(stage(&cached), stage(&fresh), "kept as it was read");
    assert!(stage(&fresh).as_str().unwrap().starts_with('9'));
}

/// No snapshot, one cut short, one of another version, one of other
/// roots: exit 5, why on stderr, nothing on stdout; `list` itself is
/// unaffected. The same roots spelled otherwise find the snapshot.
#[test]
fn no_usable_snapshot_exits_5_and_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    let (_w, root) = ws();
    let root_s = root.to_str().unwrap();
    let no = |args: &[&str], why: &str| {
        let (out, err, code) = run(&state, args);
        assert_eq!(code, 5, "{args:?}: {err}");
        assert_eq!(out, "");
        assert!(
            err.contains("no usable snapshot") && err.contains(why),
            "{err}"
        );
    };
    no(&["list", root_s, "--cached"], "does not exist");
    keep_snapshot(&state, &root);
    let relative = root.join("gsd/..");
    let (_, _, code) = run(
        &state,
        &["list", relative.to_str().unwrap(), "--cached", "--json"],
    );
    assert_eq!(code, 0, "the same root, spelled otherwise");
    // Other roots: none of theirs.
    no(
        &["list", root.join("gsd").to_str().unwrap(), "--cached"],
        "does not exist",
    );
    let file = snapshot_file(&state);
    let good = fs::read(&file).unwrap();
    fs::write(&file, &good[..good.len() - 7]).unwrap();
    no(&["list", root_s, "--cached", "--json"], "truncated");
    let nl = good.iter().position(|&b| b == b'\n').unwrap();
    let header = String::from_utf8(good[..nl].to_vec()).unwrap();
    let version = format!("\"loopdeck\":\"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(header.contains(&version), "{header}");
    let mut other = header
        .replacen(&version, "\"loopdeck\":\"0.0.1\"", 1)
        .into_bytes();
    other.extend_from_slice(&good[nl..]);
    fs::write(&file, other).unwrap();
    no(&["list", root_s, "--cached"], "another version");
    // `list` reads as ever.
    let (_, _, code) = run(&state, &["list", root_s, "--json"]);
    assert_eq!(code, 0);
    // `--cached` and `--changed` are two different questions.
    let (_, err, code) = run(&state, &["list", root_s, "--cached", "--changed"]);
    assert_eq!(code, 2, "{err}");
}

/// A plain `list` never writes a snapshot (it must stay fast); read-only
/// `watch` neither.
#[test]
fn list_and_a_read_only_watch_keep_no_snapshot() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    let (_w, root) = ws();
    let (_, _, code) = run(&state, &["list", root.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let mut cmd = command(&root);
    cmd.env("XDG_STATE_HOME", &state).arg("--readonly");
    let mut feed = Feed::spawn(cmd);
    started(&mut feed);
    let pid = i32::try_from(feed.child.id()).unwrap();
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    assert_eq!(feed.exit_code(), Some(0));
    let kept = fs::read_dir(state.join("loopdeck"))
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().starts_with("snapshot-"))
                .count()
        })
        .unwrap_or(0);
    assert_eq!(kept, 0);
}
