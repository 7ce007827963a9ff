//! Every `--json` output, pinned by its sha256 (issue 21's rule: the
//! workspace split changes no byte a script reads). `list`, `inbox`,
//! `check`, `show` of every project, and `watch`'s snapshot line, on the
//! example workspace and on the real-world GSD and DWP files, at a fixed
//! `--now`, each run with a state directory of its own. The paths of the
//! temporary copies are replaced by `[ROOT]`; `watch`'s `at` (the real
//! clock) by `[AT]`, its `watcher` (how far the watches got) by
//! `[WATCHER]` and its `loopdeck_version` by `[VERSION]`. A deliberate change to the JSON updates the snapshot
//! and says why in its commit.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;

use sha2::{Digest, Sha256};

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// stdout of `loopdeck ARGS --now NOW`, `root` replaced by `[ROOT]`.
fn json(state: &Path, root: &Path, args: &[&str]) -> String {
    let out = common::loopdeck()
        .env("XDG_STATE_HOME", state)
        .args(args)
        .args(["--now", common::NOW])
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .replace(root.to_str().unwrap(), "[ROOT]")
}

/// `watch --json`'s first line (the snapshot), its `at` made stable.
fn watch_snapshot(state: &Path, root: &Path) -> String {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("loopdeck"))
        .args([
            "watch",
            "--json",
            root.to_str().unwrap(),
            "--now",
            common::NOW,
        ])
        .env("NO_COLOR", "1")
        .env("LC_ALL", "C.UTF-8")
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .env("XDG_STATE_HOME", state)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let mut v: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["type"], "snapshot", "{line}");
    v["at"] = serde_json::Value::from("[AT]");
    // Starting or live: how far the watches got, not what was read.
    v["watcher"] = serde_json::Value::from("[WATCHER]");
    // The sender's version (for the hosts that read the feed) moves with
    // every release.
    assert_eq!(v["loopdeck_version"], env!("CARGO_PKG_VERSION"), "{line}");
    v["loopdeck_version"] = serde_json::Value::from("[VERSION]");
    serde_json::to_string(&v)
        .unwrap()
        .replace(root.to_str().unwrap(), "[ROOT]")
}

#[test]
fn every_json_output_is_pinned() {
    let mut sums = String::new();
    for (name, from) in [
        ("workspace", None),
        ("gsd-real-world", Some("tests/fixtures/gsd-real-world")),
        ("dwp-real-world", Some("tests/fixtures/dwp-real-world")),
    ] {
        // Copies with the mtimes their readers may take as update times
        // fixed (the example dates itself from its files, whatever its
        // mtimes: git keeps none).
        let (tmp, root) = match from {
            None => common::workspace(),
            Some(from) => {
                let tmp = tempfile::tempdir().unwrap();
                let root = tmp.path().join(name);
                common::copy_dir(&common::repo().join(from), &root);
                common::set_mtimes(&root, "2026-05-31T12:00:00Z");
                (tmp, root)
            }
        };
        let state = tmp.path().join("state");
        let r = root.to_str().unwrap();
        let mut add = |what: String, out: &str| {
            sums.push_str(&format!("{}  {name} {what}\n", sha(out.as_bytes())));
        };
        let list = json(&state, &root, &["list", r, "--json"]);
        add("list".into(), &list);
        add(
            "inbox".into(),
            &json(&state, &root, &["inbox", r, "--json"]),
        );
        add(
            "check".into(),
            &json(&state, &root, &["check", r, "--json"]),
        );
        add("watch".into(), &watch_snapshot(&state, &root));
        let v: serde_json::Value = serde_json::from_str(&list).unwrap();
        for p in v["projects"].as_array().unwrap() {
            let id = p["id"].as_str().unwrap();
            let dir = root.join(id);
            let d = dir.to_str().unwrap();
            add(
                format!("show {id}"),
                &json(&state, &root, &["show", d, "--json"]),
            );
            add(format!("status {id}"), &json(&state, &root, &["status", d]));
        }
    }
    insta::assert_snapshot!("json_sha256", sums);
}
