//! Projects never dropped: a project.json that cannot be read and
//! directories the walk cannot list keep their projects listed, with the
//! problem said. Real files in temp dirs, the binary run as a user runs it.

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::common::{NOW, json, write};
use super::{meta, paused_project};

fn list(root: &Path) -> Value {
    json(&["list", root.to_str().unwrap()])
}

#[cfg(unix)]
#[test]
fn a_project_json_that_cannot_be_read_keeps_the_project_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("data/companies/acme/projects");
    // A dangling symlink, and a directory named project.json.
    fs::create_dir_all(base.join("p-link")).unwrap();
    std::os::unix::fs::symlink("gone.json", base.join("p-link/project.json")).unwrap();
    fs::create_dir_all(base.join("p-dir/project.json")).unwrap();
    let v = list(tmp.path());
    let rows = v["projects"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{v}");
    for r in rows {
        assert_eq!(r["format"], "devloop");
        assert_eq!(r["status"], "unreadable");
        assert_eq!(r["problems"][0]["file"], "project.json");
    }
    let reasons: Vec<&str> = rows
        .iter()
        .map(|r| r["problems"][0]["reason"].as_str().unwrap())
        .collect();
    assert!(reasons.iter().any(|r| r.contains("symlink")), "{reasons:?}");
    assert!(
        reasons.iter().any(|r| r.contains("directory")),
        "{reasons:?}"
    );
}

/// `loopdeck ARGS` as user 65534 (root reads every file whatever its
/// mode). `None` when `setpriv` is missing outside CI.
fn as_nobody(args: &[&str]) -> Option<std::process::Output> {
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    let Some(setpriv) = setpriv else {
        assert!(std::env::var_os("CI").is_none(), "setpriv is needed in CI");
        return None;
    };
    let bin = assert_cmd::cargo::cargo_bin("loopdeck");
    Some(
        std::process::Command::new(setpriv)
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(bin)
            .args(args)
            .env("NO_COLOR", "1")
            .env("LC_ALL", "C.UTF-8")
            .output()
            .unwrap(),
    )
}

#[cfg(unix)]
#[test]
fn unreadable_directories_are_problems_not_silence() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    let base = root.join("data/companies/acme/projects");
    let dir = paused_project(&root);
    write(&base.join("p-locked/project.json"), meta("p-locked"));
    // World-readable, except what is under test.
    let mut stack = vec![tmp.path().to_path_buf()];
    while let Some(d) = stack.pop() {
        fs::set_permissions(&d, fs::Permissions::from_mode(0o755)).unwrap();
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                fs::set_permissions(e.path(), fs::Permissions::from_mode(0o644)).unwrap();
            }
        }
    }
    fs::set_permissions(dir.join("agent-state"), fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(base.join("p-locked"), fs::Permissions::from_mode(0o000)).unwrap();
    let Some(out) = as_nobody(&["list", root.to_str().unwrap(), "--json", "--now", NOW]) else {
        return;
    };
    // A directory the walk cannot list makes `list` exit 1 (and say so),
    // with every project it could see still listed.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["projects"].as_array().unwrap();
    let row = |id: &str| {
        rows.iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(id))
            .unwrap_or_else(|| panic!("{id} missing: {v}"))
    };
    let paused = row("p-paused");
    assert_eq!(paused["problems"][0]["file"], "agent-state");
    assert!(
        paused["problems"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("permission denied")
    );
    let locked = row("p-locked");
    assert_eq!(locked["status"], "unreadable");
    assert!(
        locked["problems"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("cannot be listed")
    );
    // Asked for directly.
    let out = as_nobody(&["show", base.join("p-locked").to_str().unwrap(), "--json"]).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["project"]["status"], "unreadable");
    // The projects directory itself.
    fs::set_permissions(base.join("p-locked"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&base, fs::Permissions::from_mode(0o000)).unwrap();
    let out = as_nobody(&["list", root.to_str().unwrap(), "--json", "--now", NOW]).unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["projects"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{v}");
    assert!(rows[0]["path"].as_str().unwrap().ends_with("projects"));
    assert!(
        rows[0]["problems"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("projects directory cannot be listed")
    );
    fs::set_permissions(&base, fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(dir.join("agent-state"), fs::Permissions::from_mode(0o755)).unwrap();
}
