//! Nothing a file system holds stops a command: a time beyond chrono's
//! range, a directory the walk cannot list, a root that is gone. Each is a
//! problem (on stderr, in the JSON's `problems`, exit 1), never a crash
//! and never silence; every other project is read as usual.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use common::{NOW, loopdeck, write};
use serde_json::Value;

const GOOD_PRD: &str = r#"{"workflow_version":"0.6","current_stage":"2","last_updated_at_utc":"2026-05-31T12:00:00Z"}"#;

fn parse(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn ids(v: &Value) -> Vec<String> {
    let mut ids: Vec<String> = v["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

/// `touch -d @8210266876800`: year 262143, which tmpfs accepts.
const FAR: u64 = 8_210_266_876_800;

#[test]
fn an_mtime_beyond_chronos_range_is_an_unknown_time_not_a_crash() {
    // tmpfs keeps such a time; most disk file systems clamp or refuse it.
    let base = Path::new("/dev/shm");
    let tmp = if base.is_dir() {
        tempfile::tempdir_in(base).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    let root = tmp.path();
    let state = root.join("far/.planning/STATE.md");
    write(&state, "---\nstatus: executing\nmilestone: v1.0\n---\n");
    write(&root.join("good/state.json"), GOOD_PRD);
    let far = SystemTime::UNIX_EPOCH + Duration::from_secs(FAR);
    let set = fs::File::options()
        .append(true)
        .open(&state)
        .and_then(|f| f.set_modified(far));
    if set.is_err() || fs::metadata(&state).unwrap().modified().unwrap() != far {
        eprintln!("skipped: this file system does not keep an mtime in year 262143");
        return;
    }
    let r = root.to_str().unwrap();
    let far_dir = root.join("far");
    for args in [
        vec!["list", r, "--json"],
        vec!["inbox", r, "--json"],
        vec!["check", r, "--json"],
        vec!["show", far_dir.to_str().unwrap(), "--json"],
    ] {
        let out = loopdeck()
            .args(&args)
            .args(["--now", NOW])
            .output()
            .unwrap();
        assert_ne!(out.status.code(), Some(101), "{args:?} panicked");
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("panicked"),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v = parse(&out);
        if args[0] == "list" {
            assert_eq!(ids(&v), ["far", "good"]);
            let far = v["projects"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["id"] == "far")
                .unwrap();
            assert_eq!(far["updated_at"], Value::Null, "an unknown time");
            assert_eq!(out.status.code(), Some(0));
        }
    }
    loopdeck()
        .args(["status", far_dir.to_str().unwrap()])
        .assert()
        .success()
        .stdout("v1.0 · executing\n");
}

#[cfg(unix)]
#[test]
fn an_unreadable_directory_or_root_is_a_problem_of_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    write(&root.join("ok/state.json"), GOOD_PRD);
    write(&root.join("locked/hidden/state.json"), GOOD_PRD);
    common::world_readable(tmp.path());
    let locked = root.join("locked");
    // No permission for anyone but root (and the test runs the binary as
    // another user when it is root).
    common::chmod(&locked, 0o000);
    let r = root.to_str().unwrap();

    let Some(out) = common::as_nobody(&["list", r, "--json", "--now", NOW]) else {
        return;
    };
    let v = parse(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "an unreadable directory fails the run"
    );
    assert_eq!(ids(&v), ["ok"], "the others are read as usual");
    let problems = v["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0]["file"], locked.to_str().unwrap());
    assert!(
        problems[0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("permission denied"),
        "{problems:?}"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!("{}: permission denied", locked.display())),
        "{stderr}"
    );

    // The same for the inbox and for check (which counts it as an error).
    let out = common::as_nobody(&["inbox", r, "--json", "--now", NOW]).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(parse(&out)["problems"].as_array().unwrap().len(), 1);
    let out = common::as_nobody(&["check", r, "--json", "--now", NOW]).unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = parse(&out);
    assert_eq!(v["problems"][0]["file"], locked.to_str().unwrap());
    assert_eq!(v["summary"]["errors"], 1);
    // A plain table says it too, on stderr.
    let out = common::as_nobody(&["list", r, "--now", NOW]).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("permission denied")
    );

    // A root that cannot be listed is a problem, not "0 projects", exit 0.
    let out = common::as_nobody(&["list", locked.to_str().unwrap(), "--json"]).unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = parse(&out);
    assert_eq!(ids(&v), Vec::<String>::new());
    assert_eq!(v["problems"][0]["file"], locked.to_str().unwrap());
    // Given next to a readable root, the readable one is still listed.
    let ok = root.join("ok");
    let out = common::as_nobody(&[
        "list",
        locked.to_str().unwrap(),
        ok.to_str().unwrap(),
        "--json",
    ])
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(ids(&parse(&out)), ["."]);
    common::chmod(&locked, 0o755);
}

#[test]
fn a_configured_root_that_is_gone_does_not_stop_the_others() {
    let (_t, ws) = common::workspace();
    let tmp = tempfile::tempdir().unwrap();
    let gone = tmp.path().join("mnt/gone");
    let cfg = tmp.path().join("config.toml");
    let gsd = ws.join("gsd");
    fs::write(
        &cfg,
        format!(
            "roots = [{:?}, {:?}]\n",
            gone.to_str().unwrap(),
            gsd.to_str().unwrap()
        ),
    )
    .unwrap();
    let out = loopdeck()
        .args([
            "list",
            "--json",
            "--config",
            cfg.to_str().unwrap(),
            "--now",
            NOW,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = parse(&out);
    let listed = v["projects"].as_array().unwrap().len();
    let expected = fs::read_dir(&gsd).unwrap().count();
    assert_eq!(listed, expected, "the configured roots are the ones listed");
    assert_eq!(
        v["problems"],
        serde_json::json!([{"file": gone.to_str().unwrap(), "reason": "does not exist"}])
    );
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains(&format!("{}: does not exist", gone.display()))
    );
}
