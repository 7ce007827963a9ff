//! Issue 18 §5: a `bugs.ndjson` costs the same bounded fold on every path
//! (console and `watch` read it on from the last offset, `list` and `show`
//! fold it whole), and `act bug` decides on any log those paths list.
//! Memory is measured on the real binary (Linux `/proc`): peak RSS against
//! a generous bound from the file's size, never time.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn project(tmp: &Path) -> PathBuf {
    let dir = tmp.join("data/companies/acme/projects/p-bugs");
    std::fs::create_dir_all(&dir).unwrap();
    common::write(
        &dir.join("project.json"),
        r#"{"id":"p-bugs","company_id":"acme","name":"p-bugs","status":"running","updated_at":"2026-06-01T10:00:00Z"}"#,
    );
    dir
}

/// `count` bugs, each line carrying a title of `title` bytes; returns the
/// file's size.
fn bugs(dir: &Path, count: usize, title: usize) -> u64 {
    let mut f = std::io::BufWriter::new(std::fs::File::create(dir.join("bugs.ndjson")).unwrap());
    let text = "t".repeat(title);
    for i in 0..count {
        writeln!(
            f,
            r#"{{"id":"bug-{i}","status":"open","severity":"high","title":"{text}","x_agent":{{"kept":[1,2]}}}}"#
        )
        .unwrap();
    }
    f.flush().unwrap();
    std::fs::metadata(dir.join("bugs.ndjson")).unwrap().len()
}

fn kib(status: &str, field: &str) -> u64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// Peak RSS (KiB) of `loopdeck ARGS ROOT`, a command whose output is
/// larger than a pipe holds: read while it waits for its reader to take
/// the rest, after its reading (the kernel's account of a waited child
/// would include the test process's own memory, which the child shares
/// until it execs). Returns the output too.
fn peak_of(args: &[&str], root: &Path) -> (u64, String) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("loopdeck"))
        .args(args)
        .arg(root)
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let mut out = vec![first[0]];
    std::io::Read::read_to_end(&mut stdout, &mut out).unwrap();
    child.wait().unwrap();
    assert!(
        out.len() > 256 * 1024,
        "the output must outgrow a pipe: {} bytes",
        out.len()
    );
    (kib(&status, "VmHWM:"), String::from_utf8(out).unwrap())
}

/// 600 bugs of 80 KB titles (48 MB): `show` (as `list`) folds them to a few
/// MB (they held the whole titles, about the file's size), and a `watch`
/// feed holds about as little after its first reading (it kept every
/// bug's whole line beside the titles: 4x the file).
#[test]
fn long_bug_lines_cost_a_bounded_fold_on_every_path() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("skipped: no /proc");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    let dir = project(&root);
    let size = bugs(&dir, 600, 80 * 1024);
    let bound = 30 * 1024 + size / 1024 / 4;

    let (show, out) = peak_of(&["show", "--json"], &dir);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let text = v.to_string();
    assert!(text.contains("bug-599"), "the bugs are listed");
    assert!(
        show < bound,
        "show: {show} KiB for a {size}-byte bugs.ndjson (bound {bound} KiB)"
    );

    let mut child = Command::new(assert_cmd::cargo::cargo_bin("loopdeck"))
        .args(["watch", "--json"])
        .arg(&root)
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut feed = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    feed.read_line(&mut first).unwrap();
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let watch = kib(&status, "VmHWM:");
    assert!(first.contains("p-bugs"), "{first}");
    assert!(
        watch < bound,
        "watch: {watch} KiB for a {size}-byte bugs.ndjson (bound {bound} KiB)"
    );
}

/// A title is cut, not carried whole into the views.
#[test]
fn a_long_title_is_shown_cut() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path());
    bugs(&dir, 1, 100_000);
    let v = common::json(&["show", dir.to_str().unwrap()]);
    let title = v
        .pointer("/bugs/0/title")
        .and_then(|t| t.as_str())
        .unwrap_or_else(|| panic!("no title"));
    assert!(
        title.len() <= 512 && title.ends_with('…'),
        "{} bytes",
        title.len()
    );
}

/// A log past the 16 MiB a decision reads whole: `act bug` walks it from
/// its end and appends, every byte before its line kept, and the views
/// then show the move (it was refused as too large while the console
/// offered it).
#[test]
fn act_bug_moves_a_bug_in_a_log_larger_than_a_decision_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path());
    let size = bugs(&dir, 20, 900 * 1024);
    assert!(size > 16 * 1024 * 1024);
    let before = std::fs::read(dir.join("bugs.ndjson")).unwrap();
    let state = tmp.path().join("state");
    // `--expect-sha256` of a log too large to read whole is checked too,
    // in chunks: a wrong one is a change on disk, the right one passes.
    let sha = loopdeck_core::store::sha256_hex(&before);
    let wrong = common::loopdeck()
        .env("XDG_STATE_HOME", &state)
        .args(["--now", "2026-06-01T12:00:00Z", "act"])
        .arg(&dir)
        .args(["bug", "bug-7", "fixing", "--by", "yibo", "--expect-sha256"])
        .arg("0".repeat(64))
        .output()
        .unwrap();
    assert_eq!(
        wrong.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&wrong.stderr)
    );
    let out = common::loopdeck()
        .env("XDG_STATE_HOME", &state)
        .args(["--now", "2026-06-01T12:00:00Z", "act"])
        .arg(&dir)
        .args([
            "bug",
            "bug-7",
            "fixing",
            "--by",
            "yibo",
            "--note",
            "taking it",
            "--expect-sha256",
            &sha,
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let after = std::fs::read(dir.join("bugs.ndjson")).unwrap();
    assert_eq!(
        &after[..before.len()],
        &before[..],
        "the log is only appended to"
    );
    let line: serde_json::Value =
        serde_json::from_slice(after[before.len()..].strip_suffix(b"\n").unwrap()).unwrap();
    assert_eq!(line["id"], "bug-7");
    assert_eq!(line["status"], "fixing");
    assert_eq!(line["x_agent"]["kept"][1], 2, "unknown fields carried");
    assert_eq!(
        line["title"].as_str().unwrap().len(),
        900 * 1024,
        "the record whole"
    );
    assert_eq!(line["status_history"][0]["note"], "taking it");

    // A duplicate of a bug the file has, and of one it has not.
    let dup = |of: &str| {
        common::loopdeck()
            .env("XDG_STATE_HOME", &state)
            .arg("act")
            .arg(&dir)
            .args(["bug", "bug-3", "duplicate", "--duplicate-of", of])
            .output()
            .unwrap()
    };
    let no = dup("bug-99");
    assert_eq!(no.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&no.stderr).contains("no bug `bug-99`"),
        "{}",
        String::from_utf8_lossy(&no.stderr)
    );
    assert_eq!(dup("bug-0").status.code(), Some(0));

    let v = common::json(&["show", dir.to_str().unwrap()]);
    let bug = |id: &str| {
        v.pointer("/bugs")
            .and_then(|b| b.as_array())
            .and_then(|b| b.iter().find(|x| x["id"] == id).cloned())
            .unwrap_or_else(|| panic!("{id} not listed"))
    };
    assert_eq!(bug("bug-7")["status"], "fixing");
    assert_eq!(bug("bug-3")["status"], "duplicate");
}
