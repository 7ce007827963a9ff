//! Issue 18 §4: nothing in loopdeck's state directory is trusted that
//! another user could have written. A directory owned by another user, or
//! writable by group or others, is refused with its name and the fix; a
//! link in it (the audit log, a blob, `seen.json`) is refused, never
//! followed; a record is undone only in a project loopdeck reads, on the
//! file its format writes, inside that project. Every test runs the binary
//! on real files; the ones that give a file to user nobody (65534) need
//! root and say so when skipped (CI runs as root).
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

mod common;

use std::fs;
use std::os::unix::fs::{PermissionsExt, chown, symlink};
use std::path::{Path, PathBuf};

use common::{loopdeck, repo};
use loopdeck_core::store::sha256_hex;

const NOBODY: u32 = 65534;

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Give `path` (and everything under it) to user nobody; false (said)
/// when this process cannot (not root).
fn give_to_nobody(path: &Path) -> bool {
    if !is_root() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the ownership tests need root in CI"
        );
        eprintln!("skipped: only root can give a file to user nobody");
        return false;
    }
    chown(path, Some(NOBODY), Some(NOBODY)).unwrap();
    if fs::symlink_metadata(path).unwrap().is_dir() {
        for e in fs::read_dir(path).unwrap() {
            give_to_nobody(&e.unwrap().path());
        }
    }
    true
}

struct Env {
    tmp: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Env {
            tmp: tempfile::tempdir().unwrap(),
        }
    }
    fn state_home(&self) -> PathBuf {
        self.tmp.path().join("state")
    }
    fn dir(&self) -> PathBuf {
        self.state_home().join("loopdeck")
    }
    /// A non-project file an attacker wants overwritten.
    fn victim(&self) -> PathBuf {
        let v = self.tmp.path().join("victim/passwd");
        if !v.exists() {
            common::write(&v, "root:x:0:0\n");
        }
        v
    }
    fn gsd(&self) -> PathBuf {
        let p = self.tmp.path().join("gsd");
        if !p.exists() {
            common::copy_dir(&repo().join("examples/workspace/gsd/paused-waiting"), &p);
        }
        p
    }
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = loopdeck()
            .env("XDG_STATE_HOME", self.state_home())
            .args(args)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
    fn act_gsd(&self) -> (i32, String, String) {
        let p = self.gsd();
        self.run(&["act", p.to_str().unwrap(), "add-decision", "use tmpfs"])
    }
    /// Plant, in the state directory, a decision that "replaced" `file` in
    /// `project` (now holding what it holds) and whose previous bytes were
    /// `planted`: its undo would write `planted` into the file.
    fn plant(&self, project: &Path, primary: &str, file: &str, planted: &[u8]) -> String {
        let id = "20260101T000000.000000Z-abcdef".to_owned();
        let now = fs::read(project.join(file)).unwrap_or_default();
        let blob = self.dir().join("blobs").join(&id).join("0");
        common::write(&blob, planted);
        let stamp = |b: &[u8]| serde_json::json!({"sha256": sha256_hex(b), "len": b.len()});
        let rec = serde_json::json!({
            "id": id, "at": "2026-01-01T00:00:00Z", "by": "nobody", "host": "h",
            "project": project.to_str().unwrap(), "primary": primary, "lock": "owner",
            "decision": {"verb": "x"},
            "files": [{"file": file, "op": "replace", "before": stamp(planted),
                       "after": stamp(&now), "blob": format!("blobs/{id}/0")}],
        });
        let mut line = serde_json::to_vec(&rec).unwrap();
        line.push(b'\n');
        fs::write(self.dir().join("audit.ndjson"), line).unwrap();
        id
    }
}

/// A state directory owned by user nobody holding a record and a blob
/// that target a non-project file: `undo --last` as root refuses, naming
/// the directory and the fix, and the file is untouched; `act` refuses
/// too, and writes nothing in the project.
#[test]
fn a_state_directory_owned_by_another_user_is_refused() {
    let e = Env::new();
    let victim = e.victim();
    e.plant(victim.parent().unwrap(), "passwd", "passwd", b"evil\n");
    if !give_to_nobody(&e.dir()) {
        return;
    }
    let (code, _, err) = e.run(&["undo", "--last"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(fs::read(&victim).unwrap(), b"root:x:0:0\n");
    let dir = e.dir().display().to_string();
    assert!(
        err.contains(&format!("{dir} is owned by uid {NOBODY}")),
        "{err}"
    );
    assert!(err.contains(&format!("chown -R 0 {dir}")), "{err}");
    assert!(err.contains("nothing undone"), "{err}");
    let before = common::snapshot(&e.gsd());
    let (code, _, err) = e.act_gsd();
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("{dir} is owned by uid {NOBODY}")),
        "{err}"
    );
    assert!(err.contains("nothing written"), "{err}");
    assert_eq!(common::snapshot(&e.gsd()), before, "nothing written");
}

/// A state directory, or the audit log in it, that group or others may
/// write (0777, 0666) is refused with `chmod go-w`; a file in it owned by
/// nobody too.
#[test]
fn a_state_directory_or_log_others_may_write_is_refused() {
    let e = Env::new();
    fs::create_dir_all(e.dir()).unwrap();
    common::chmod(&e.dir(), 0o777);
    let before = common::snapshot(&e.gsd());
    let (code, _, err) = e.act_gsd();
    assert_eq!(code, 1, "{err}");
    let dir = e.dir().display().to_string();
    assert!(
        err.contains(&format!("{dir} is writable by group or others (mode 0777)")),
        "{err}"
    );
    assert!(err.contains(&format!("`chmod go-w {dir}`")), "{err}");
    assert_eq!(common::snapshot(&e.gsd()), before);
    // Fixed as told: the decision is written.
    common::chmod(&e.dir(), 0o700);
    let (code, _, err) = e.act_gsd();
    assert_eq!(code, 0, "{err}");
    // The log made writable by everyone: refused, the undo too.
    let log = e.dir().join("audit.ndjson");
    common::chmod(&log, 0o666);
    let (code, _, err) = e.run(&["undo", "--last"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "{} is writable by group or others (mode 0666)",
            log.display()
        )),
        "{err}"
    );
    common::chmod(&log, 0o600);
    // The log given to nobody (as root): refused.
    if !give_to_nobody(&log) {
        return;
    }
    let (code, _, err) = e.run(&["undo", "--last"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("{} is owned by uid {NOBODY}", log.display())),
        "{err}"
    );
}

/// An audit log that is a link is refused, never followed: neither read
/// by `undo` nor appended to by `act`.
#[test]
fn a_linked_audit_log_is_refused_not_followed() {
    let e = Env::new();
    let victim = e.victim();
    // The record an undo would act on lives elsewhere, behind the link.
    e.plant(victim.parent().unwrap(), "passwd", "passwd", b"evil\n");
    let elsewhere = e.tmp.path().join("elsewhere.ndjson");
    fs::rename(e.dir().join("audit.ndjson"), &elsewhere).unwrap();
    symlink(&elsewhere, e.dir().join("audit.ndjson")).unwrap();
    let planted = fs::read(&elsewhere).unwrap();
    let (code, _, err) = e.run(&["undo", "--last"]);
    assert_eq!(code, 1, "{err}");
    let log = e.dir().join("audit.ndjson").display().to_string();
    assert!(err.contains(&format!("{log} is a symbolic link")), "{err}");
    assert!(err.contains(&format!("`rm {log}`")), "{err}");
    assert_eq!(fs::read(&victim).unwrap(), b"root:x:0:0\n");
    let before = common::snapshot(&e.gsd());
    let (code, _, err) = e.act_gsd();
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&format!("{log} is a symbolic link")), "{err}");
    assert_eq!(common::snapshot(&e.gsd()), before);
    assert_eq!(fs::read(&elsewhere).unwrap(), planted, "not appended to");
}

/// A blob replaced by a link (to a file holding the very bytes the record
/// names) is refused, never read through.
#[test]
fn a_linked_blob_is_refused_not_followed() {
    let e = Env::new();
    let project = e.gsd();
    let original = fs::read(project.join(".planning/STATE.md")).unwrap();
    let (code, _, err) = e.act_gsd();
    assert_eq!(code, 0, "{err}");
    let blobs = e.dir().join("blobs");
    let id = common_names(&blobs).pop().unwrap();
    let blob = blobs.join(&id).join("0");
    let elsewhere = e.tmp.path().join("elsewhere.blob");
    fs::rename(&blob, &elsewhere).unwrap();
    symlink(&elsewhere, &blob).unwrap();
    let changed = fs::read(project.join(".planning/STATE.md")).unwrap();
    let (code, _, err) = e.run(&["undo", "--last"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("{} is a symbolic link", blob.display())),
        "{err}"
    );
    assert_eq!(
        fs::read(project.join(".planning/STATE.md")).unwrap(),
        changed
    );
    // The real blob back: the undo puts the file back.
    fs::remove_file(&blob).unwrap();
    fs::rename(&elsewhere, &blob).unwrap();
    let (code, _, err) = e.run(&["undo", "--last"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        fs::read(project.join(".planning/STATE.md")).unwrap(),
        original
    );
}

fn common_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

/// A record in the caller's own (trusted) directory is still undone only
/// in a project loopdeck reads, on the file its format writes, inside the
/// project: a planted or garbled record is refused with the reason.
#[test]
fn a_record_is_undone_only_on_a_file_of_a_project_loopdeck_reads() {
    let e = Env::new();
    let victim = e.victim();
    let refused = |why: &str| {
        let (code, _, err) = e.run(&["undo", "--last"]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains(why), "{err}");
        assert!(err.contains("nothing undone"), "{err}");
    };
    // Not a project at all.
    let other = victim.parent().unwrap();
    e.plant(other, "passwd", "passwd", b"evil\n");
    refused(&format!(
        "{} is not a project loopdeck reads",
        other.display()
    ));
    assert_eq!(fs::read(&victim).unwrap(), b"root:x:0:0\n");
    // A real GSD project, but a file GSD's decisions do not write (and a
    // lock it does not take).
    let gsd = e.gsd();
    common::write(&gsd.join("notes.sh"), "echo hi\n");
    e.plant(&gsd, "notes.sh", "notes.sh", b"rm -rf ~\n");
    refused("is a gsd project, whose decisions do not write `notes.sh`");
    assert_eq!(fs::read(gsd.join("notes.sh")).unwrap(), b"echo hi\n");
    // The right primary, a file outside the project.
    e.plant(&gsd, ".planning/STATE.md", "../victim/passwd", b"evil\n");
    refused("its file `../victim/passwd` is not a path inside the project");
    assert_eq!(fs::read(&victim).unwrap(), b"root:x:0:0\n");
    // A relative project path.
    e.plant(Path::new("gsd"), "passwd", "passwd", b"evil\n");
    refused("its project `gsd` is not an absolute path");
}

/// `seen.json` in a directory owned by another user, or behind a link, is
/// not read: `list --changed` says why, naming it and the fix.
#[test]
fn the_since_you_looked_memory_is_read_only_from_a_trusted_place() {
    let e = Env::new();
    let root = e.tmp.path().join("ws");
    common::copy_dir(&repo().join("examples/workspace/gsd"), &root);
    let elsewhere = e.tmp.path().join("elsewhere.json");
    fs::write(&elsewhere, "{\"version\":1,\"projects\":{}}").unwrap();
    fs::create_dir_all(e.dir()).unwrap();
    fs::set_permissions(e.dir(), fs::Permissions::from_mode(0o700)).unwrap();
    symlink(&elsewhere, e.dir().join("seen.json")).unwrap();
    let (code, _, err) = e.run(&["list", root.to_str().unwrap(), "--changed"]);
    assert_eq!(code, 0, "{err}");
    let seen = e.dir().join("seen.json").display().to_string();
    assert!(err.contains(&format!("{seen} is a symbolic link")), "{err}");
    fs::remove_file(e.dir().join("seen.json")).unwrap();
    fs::copy(&elsewhere, e.dir().join("seen.json")).unwrap();
    common::chmod(&e.dir().join("seen.json"), 0o600);
    let (code, _, err) = e.run(&["list", root.to_str().unwrap(), "--changed"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("seen.json"), "read without a word: {err}");
    if !give_to_nobody(&e.dir()) {
        return;
    }
    let (code, _, err) = e.run(&["list", root.to_str().unwrap(), "--changed"]);
    assert_eq!(code, 0, "{err}");
    let dir = e.dir().display().to_string();
    assert!(
        err.contains(&format!("{dir} is owned by uid {NOBODY}")),
        "{err}"
    );
    assert!(err.contains("chown"), "{err}");
}
