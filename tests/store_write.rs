//! The store's write path on real files: links inside the project are
//! written through (the link survives) and links leaving it are refused;
//! every real file survives a write and its undo byte for byte; the
//! read-only gate, `undo` and its conflicts through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use chrono::Utc;
use loopdeck_core::decide::audit;
use loopdeck_core::decide::{ActError, Outcome, WriteOptions};
use loopdeck_core::read::StoreError;
use loopdeck_core::store::sha256_hex;
use loopdeck_core::store::transact;
use loopdeck_core::store::txn::{Edit, LockKind, Txn};

struct Env {
    tmp: tempfile::TempDir,
    project: PathBuf,
}

impl Env {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        fs::create_dir_all(&project).unwrap();
        Env { tmp, project }
    }
    fn state_home(&self) -> PathBuf {
        self.tmp.path().join("state")
    }
    fn audit(&self) -> PathBuf {
        self.state_home().join("loopdeck")
    }
    fn opts(&self) -> WriteOptions {
        WriteOptions {
            audit_dir: Some(self.audit()),
            ..WriteOptions::default()
        }
    }
    fn write(&self, primary: &str, lock: LockKind, edits: Vec<Edit>) -> Result<Outcome, ActError> {
        let txn = Txn::new(
            &self.project,
            primary,
            lock,
            &self.opts(),
            "tester",
            Utc::now(),
            serde_json::json!({"verb": "test"}),
        );
        transact(&txn, |snap| {
            for e in &edits {
                snap.read(e.file())?;
            }
            Ok(edits)
        })
    }
    /// The binary, with the audit log in this test's state directory.
    fn loopdeck(&self) -> assert_cmd::Command {
        let mut c = common::loopdeck();
        c.env("XDG_STATE_HOME", self.state_home());
        c
    }
}

fn replace(file: &str, bytes: &[u8]) -> Edit {
    Edit::Replace {
        file: file.to_owned(),
        bytes: bytes.to_vec(),
    }
}

#[cfg(unix)]
#[test]
fn a_link_inside_the_project_is_written_through_and_survives() {
    use std::os::unix::fs::symlink;
    let e = Env::new();
    fs::create_dir(e.project.join("real")).unwrap();
    fs::write(e.project.join("real/state.json"), "{\"n\":1}\n").unwrap();
    symlink("real/state.json", e.project.join("state.json")).unwrap();
    e.write(
        "state.json",
        LockKind::Owner,
        vec![replace("state.json", b"{\"n\":2}\n")],
    )
    .unwrap();
    let meta = fs::symlink_metadata(e.project.join("state.json")).unwrap();
    assert!(meta.file_type().is_symlink(), "the link is still a link");
    assert_eq!(
        fs::read(e.project.join("real/state.json")).unwrap(),
        b"{\"n\":2}\n"
    );
    assert!(common_names(&e.project.join("real")) == ["state.json"]);
}

#[cfg(unix)]
#[test]
fn a_link_leaving_the_project_is_refused_and_its_target_untouched() {
    use std::os::unix::fs::symlink;
    let e = Env::new();
    let outside = e.tmp.path().join("outside.json");
    fs::write(&outside, "{\"secret\":1}").unwrap();
    symlink(&outside, e.project.join("state.json")).unwrap();
    let err = e
        .write(
            "notes.md",
            LockKind::Owner,
            vec![Edit::Replace {
                file: "state.json".into(),
                bytes: b"{}".to_vec(),
            }],
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            ActError::Store {
                source: StoreError::OutsideProject,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(loopdeck::exit::of_decision(&err), 1);
    assert_eq!(fs::read(&outside).unwrap(), b"{\"secret\":1}");
    assert!(
        fs::symlink_metadata(e.project.join("state.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

fn common_names(dir: &Path) -> Vec<String> {
    loopdeck_core::store::list_names(dir)
}

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir.join(rel)).unwrap() {
        let entry = entry.unwrap();
        let r = rel.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            files_under(dir, &r, out);
        } else if entry.file_type().unwrap().is_file() {
            out.push(r);
        }
    }
}

#[test]
fn every_real_file_survives_a_write_and_its_undo_byte_for_byte() {
    let real = PathBuf::from("/work/shared/real-world");
    let real = if real.is_dir() {
        real
    } else {
        common::repo().join("tests/fixtures")
    };
    let mut files = Vec::new();
    files_under(&real, Path::new(""), &mut files);
    assert!(!files.is_empty());
    let e = Env::new();
    for rel in &files {
        let original = fs::read(real.join(rel)).unwrap();
        let dest = e.project.join(rel);
        fs::create_dir_all(dest.parent().unwrap()).unwrap();
        fs::write(&dest, &original).unwrap();
        let name = rel.to_string_lossy().into_owned();
        let mut changed = original.clone();
        changed.extend_from_slice(b"\n<!-- loopdeck -->\n");
        let out = e
            .write(&name, LockKind::PidFile, vec![replace(&name, &changed)])
            .unwrap_or_else(|err| panic!("{name}: {err}"));
        assert_eq!(fs::read(&dest).unwrap(), changed, "{name}");
        assert_eq!(
            out.files[0].before.as_ref().unwrap().sha256,
            sha256_hex(&original)
        );
        // Any file as the primary, in a directory no format recognises:
        // the store's undo without `audit::vet`.
        audit::undo_checked(
            &e.audit(),
            &audit::Which::Id(out.audit_id.unwrap()),
            &e.opts(),
            |_| Ok(()),
        )
        .unwrap_or_else(|err| panic!("undo {name}: {err}"));
        assert_eq!(fs::read(&dest).unwrap(), original, "{name} after undo");
        let dir = dest.parent().unwrap();
        assert!(
            common_names(dir)
                .iter()
                .all(|n| !n.contains(".loopdeck-") && !n.ends_with(".lock")),
            "{name}: {:?}",
            common_names(dir)
        );
    }
}

/// A decision made in-process, for the binary to undo, in a directory
/// loopdeck reads as a PRD-master project (`undo` acts only there).
fn decided(e: &Env) -> String {
    fs::write(e.project.join("conversation.md"), "# Conversation\n").unwrap();
    fs::write(e.project.join("state.json"), "{\"n\":1}\n").unwrap();
    e.write(
        "state.json",
        LockKind::Owner,
        vec![replace("state.json", b"{\"n\":2}\n")],
    )
    .unwrap()
    .audit_id
    .unwrap()
}

#[test]
fn readonly_refuses_undo_from_the_flag_and_from_the_config() {
    let e = Env::new();
    decided(&e);
    let out = e
        .loopdeck()
        .args(["undo", "--last", "--readonly"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("read-only"));
    let config = e.tmp.path().join("config.toml");
    fs::write(&config, "readonly = true\n").unwrap();
    let out = e
        .loopdeck()
        .args(["undo", "--last", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("read-only"));
    assert_eq!(
        fs::read(e.project.join("state.json")).unwrap(),
        b"{\"n\":2}\n"
    );
    // A dry run passes the gate, and writes nothing.
    let out = e
        .loopdeck()
        .args(["undo", "--last", "--readonly", "--dry-run"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("--- a/state.json\n+++ b/state.json\n@@ -1 +1 @@\n-{\"n\":2}\n+{\"n\":1}\n"),
        "{text}"
    );
    assert_eq!(
        fs::read(e.project.join("state.json")).unwrap(),
        b"{\"n\":2}\n"
    );
}

#[test]
fn undo_puts_back_and_is_itself_undoable_through_the_binary() {
    let e = Env::new();
    let id = decided(&e);
    let out = e.loopdeck().args(["undo", &id, "--json"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["undone"], id.as_str());
    assert_eq!(
        v["files"][0]["before"]["sha256"],
        sha256_hex(b"{\"n\":2}\n")
    );
    assert_eq!(v["files"][0]["after"]["sha256"], sha256_hex(b"{\"n\":1}\n"));
    let undo_id = v["audit_id"].as_str().unwrap().to_owned();
    assert_ne!(undo_id, id);
    assert_eq!(
        fs::read(e.project.join("state.json")).unwrap(),
        b"{\"n\":1}\n"
    );
    // `undo --last` steps further back: nothing is left to undo; `redo`
    // undoes the undo.
    let out = e.loopdeck().args(["undo", "--last"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = e.loopdeck().args(["redo"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("redo: done (audit "));
    assert_eq!(
        fs::read(e.project.join("state.json")).unwrap(),
        b"{\"n\":2}\n"
    );
    let log = fs::read_to_string(e.audit().join("audit.ndjson")).unwrap();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1]["decision"]["of"], id.as_str());
    assert_eq!(lines[2]["decision"]["verb"], "redo");
    assert_eq!(lines[2]["decision"]["of"], undo_id.as_str());
    assert_eq!(lines[2]["decision"]["redoes"], id.as_str());
}

#[test]
fn undo_of_a_file_that_moved_on_is_a_conflict() {
    let e = Env::new();
    let id = decided(&e);
    fs::write(e.project.join("state.json"), "{\"n\":7}\n").unwrap();
    let out = e.loopdeck().args(["undo", &id]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("state.json has moved on since decision"),
        "{err}"
    );
    assert_eq!(
        fs::read(e.project.join("state.json")).unwrap(),
        b"{\"n\":7}\n"
    );
    let out = e.loopdeck().args(["undo", "no-such-id"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn the_expected_sha256_guards_undo_too() {
    let e = Env::new();
    decided(&e);
    let out = e
        .loopdeck()
        .args(["undo", "--last", "--expect-sha256"])
        .arg("ab".repeat(32))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("changed on disk"));
    assert_eq!(
        fs::read(e.project.join("state.json")).unwrap(),
        b"{\"n\":2}\n"
    );
}
