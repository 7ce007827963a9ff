//! What `loopdeck watch` keeps between readings must stay near what the
//! files' results need: a log of short lines that are not events
//! (pretty-printed JSON appended to an NDJSON log) must not cost many
//! times its size in memory. Measured on the real binary, Linux only
//! (`/proc/PID/status`), against the same feed on clean files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use common::{copy_dir, repo};

/// The resident memory (KiB) of a `watch --json` feed on `root`, once its
/// first line (the projects, after the first reading) is out.
fn resident_after_first_reading(root: &Path) -> u64 {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("loopdeck"))
        .args(["watch", "--json"])
        .arg(root)
        .env("NO_COLOR", "1")
        .env("LC_ALL", "C.UTF-8")
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn loopdeck watch");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(first.contains("schema_version"), "{first}");
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

fn devloop(junk: bool) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("devloop");
    copy_dir(&repo().join("examples/workspace/devloop"), &root);
    if junk {
        let project = root.join("data/companies/acme/projects/p-restock");
        // Each log's whole byte budget of 10-byte lines that are not events.
        for (file, budget) in [
            ("timeline.ndjson", 1024 * 1024),
            ("changelog.ndjson", 4 * 1024 * 1024),
        ] {
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(project.join(file))
                .unwrap();
            f.write_all("  \"k\": 1,\n".repeat(budget / 10).as_bytes())
                .unwrap();
        }
    }
    (tmp, root)
}

#[test]
fn short_garbage_lines_in_logs_cost_about_their_size_in_the_feed() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("skipped: no /proc");
        return;
    }
    let (_clean, clean_root) = devloop(false);
    let (_junk, junk_root) = devloop(true);
    let clean = resident_after_first_reading(&clean_root);
    let junk = resident_after_first_reading(&junk_root);
    // 5 MiB of such lines: kept as offsets they cost about 16 bytes per
    // 10-byte line; kept as empty items they cost over 100 MiB.
    assert!(
        junk.saturating_sub(clean) < 40 * 1024,
        "clean {clean} KiB, with 5 MiB of garbage lines {junk} KiB"
    );
}
