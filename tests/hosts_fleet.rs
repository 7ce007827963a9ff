//! Other machines followed live, end to end: a real sshd on 127.0.0.1
//! (`common::sshd`), the system `ssh`, core's fleet, and the binary under
//! test as the remote `loopdeck watch --json --model`. What the console is
//! fed: a snapshot, then each change; a host that fails, never answers,
//! runs no loopdeck or another version is said with ssh's own words and
//! never holds up the others.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use common::sshd::Sshd;
use common::{copy_dir, repo};
use loopdeck_core::fleet::{
    self, Fleet, HostEvent, HostSpec, HostState, HostUpdate, RunOptions, Sink,
};

/// A root holding copies of `projects` (paths under examples/workspace).
fn root(dir: &Path, name: &str, projects: &[&str]) -> PathBuf {
    let r = dir.join(name);
    std::fs::create_dir_all(&r).unwrap();
    for p in projects {
        let to = r.join(Path::new(p).file_name().unwrap());
        copy_dir(&repo().join("examples/workspace").join(p), &to);
    }
    r
}

fn start(hosts: Vec<HostSpec>, options: RunOptions) -> (Fleet, Receiver<HostEvent>) {
    let (tx, rx) = mpsc::channel();
    let fleet = fleet::start(hosts, options, Sink::new(tx)).unwrap();
    (fleet, rx)
}

fn options() -> RunOptions {
    RunOptions {
        heartbeat_secs: 1,
        stale_after: Duration::from_secs(4),
        seed: 7,
        stagger: Duration::from_millis(50),
        ..RunOptions::default()
    }
}

/// Events until `pred` holds for one (returned), or panic after `secs`
/// with every event seen.
fn until(
    rx: &Receiver<HostEvent>,
    secs: u64,
    what: &str,
    pred: impl Fn(&HostEvent) -> bool,
) -> HostEvent {
    let end = Instant::now() + Duration::from_secs(secs);
    let mut seen = Vec::new();
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(e) if pred(&e) => return e,
            Ok(e) => seen.push(format!("{}: {:?}", e.host, short(&e.update))),
            Err(_) => break,
        }
    }
    panic!("no {what} within {secs}s; saw:\n{}", seen.join("\n"));
}

fn short(u: &HostUpdate) -> String {
    match u {
        HostUpdate::Snapshot(ps) => format!("Snapshot({} projects)", ps.len()),
        HostUpdate::Project(p) => format!("Project({})", p.name),
        other => format!("{other:?}"),
    }
}

fn is_snapshot(e: &HostEvent, host: &str) -> Option<usize> {
    match &e.update {
        HostUpdate::Snapshot(ps) if &*e.host == host => Some(ps.len()),
        _ => None,
    }
}

/// Rename a PRD-master project in place, as an agent rewrites its state.
fn rename_prd(project: &Path, name: &str) {
    let file = project.join("state.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    doc["project_name"] = serde_json::Value::String(name.to_owned());
    let tmp = project.join("state.json.tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    std::fs::rename(tmp, file).unwrap();
}

/// A host's snapshot is exactly what the remote reads, then a write on
/// the "remote" root arrives as that project's line; killing the remote
/// end mid-stream reconnects (a fresh snapshot), and nothing half-sent is
/// applied.
#[test]
fn a_snapshot_then_live_changes_and_a_reconnect_after_the_link_dies() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let r1 = root(
        tmp.path(),
        "r1",
        &["prd-master/fba-smart-restock", "gsd/paused-waiting"],
    );
    let (fleet, rx) = start(vec![sshd.host("h1", &[&r1])], options());
    let e = until(&rx, 60, "h1's snapshot", |e| is_snapshot(e, "h1").is_some());
    let HostUpdate::Snapshot(projects) = e.update else {
        unreachable!()
    };
    // Exactly what this machine reads of the same root (the remote is
    // this machine here), every field; the host is the receiver's.
    let mut local = loopdeck_core::read::discover(std::slice::from_ref(&r1)).projects;
    for p in &mut local {
        p.host = Some("h1".into());
    }
    let mut got = projects.clone();
    for v in [&mut local, &mut got] {
        v.sort_by(|a, b| a.path.cmp(&b.path));
    }
    assert_eq!(got.len(), 2);
    assert_eq!(got, local, "the wire lost something");
    until(&rx, 30, "h1 live", |e| {
        matches!(&e.update, HostUpdate::State(HostState::Live { .. }))
    });

    rename_prd(&r1.join("fba-smart-restock"), "renamed-over-ssh");
    until(
        &rx,
        30,
        "the renamed project",
        |e| matches!(&e.update, HostUpdate::Project(p) if p.name == "renamed-over-ssh"),
    );

    // Kill the remote watch (as a dropped link would end it): the host
    // goes stale or connecting, then a fresh snapshot replaces it.
    let killed = std::process::Command::new("pkill")
        .args(["-f", &format!("watch {} --json --model", r1.display())])
        .status()
        .unwrap();
    assert!(killed.success(), "no remote watch to kill");
    until(&rx, 30, "h1 not live", |e| {
        matches!(
            &e.update,
            HostUpdate::State(HostState::Stale { .. } | HostState::Connecting { .. })
        )
    });
    let e = until(&rx, 60, "h1's snapshot after the reconnect", |e| {
        is_snapshot(e, "h1").is_some()
    });
    let HostUpdate::Snapshot(again) = e.update else {
        unreachable!()
    };
    assert!(again.iter().any(|p| p.name == "renamed-over-ssh"));
    fleet.stop();
}

/// A host that refuses the key, one that never answers, one without
/// loopdeck and one running a loopdeck that speaks another model schema
/// each fail with ssh's own line and a hint, while a good host beside
/// them is live and its changes keep arriving.
#[test]
fn broken_hosts_say_why_and_never_hold_up_a_good_one() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let good = root(tmp.path(), "good", &["prd-master/fba-smart-restock"]);
    let badkey = sshd.host("badkey", &[&good]);
    let dead = sshd.host("dead", &[&good]);
    let mut missing = sshd.host("nobin", &[&good]);
    missing.destination = "h9".into();
    missing.command = None; // `loopdeck` is not on the remote PATH
    // A remote "loopdeck" that answers with another model schema.
    let fake = tmp.path().join("old-loopdeck");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho '{\"schema_version\":1,\"type\":\"snapshot\",\"at\":\"2026-06-01T12:00:00Z\",\"loopdeck_version\":\"9.9.9\",\"model_schema\":999,\"roots\":[],\"problems\":[],\"watcher\":{\"state\":\"starting\"},\"projects\":[]}'\nsleep 60\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut other = sshd.host("other", &[&good]);
    other.destination = "h8".into();
    other.command = Some(fake.display().to_string());
    let hosts = vec![sshd.host("h1", &[&good]), badkey, dead, missing, other];
    let t0 = Instant::now();
    let (fleet, rx) = start(hosts, options());
    let mut failed: std::collections::HashMap<String, (String, String)> = Default::default();
    let mut live = false;
    let mut renamed = false;
    let end = Instant::now() + Duration::from_secs(60);
    while Instant::now() < end && !(live && renamed && failed.len() == 4) {
        let Ok(e) = rx.recv_timeout(Duration::from_secs(1)) else {
            continue;
        };
        match e.update {
            HostUpdate::State(HostState::Live { .. }) if &*e.host == "h1" => {
                live = true;
                // A change on the good host while the dead one still
                // waits for its connect timeout.
                rename_prd(&good.join("fba-smart-restock"), "still-flowing");
            }
            HostUpdate::Project(p) if &*e.host == "h1" && p.name == "still-flowing" => {
                assert!(
                    t0.elapsed() < Duration::from_secs(10),
                    "the good host's change waited for the dead one: {:?}",
                    t0.elapsed()
                );
                renamed = true;
            }
            HostUpdate::State(HostState::Failed { message, hint, .. }) => {
                failed
                    .entry(e.host.to_string())
                    .or_insert((message, hint.text(&e.host)));
            }
            HostUpdate::State(HostState::Refused { message, .. }) => {
                failed
                    .entry(e.host.to_string())
                    .or_insert((message, String::new()));
            }
            _ => {}
        }
    }
    fleet.stop();
    assert!(live && renamed, "h1 live: {live}, change seen: {renamed}");
    let said = |h: &str| failed.get(h).cloned().unwrap_or_default();
    assert!(
        said("badkey").0.contains("Permission denied"),
        "{:?}",
        said("badkey")
    );
    assert!(
        said("badkey").1.contains("ssh-agent"),
        "{:?}",
        said("badkey")
    );
    assert!(
        said("nobin").0.contains("command not found") || said("nobin").0.contains("No such file"),
        "{:?}",
        said("nobin")
    );
    assert!(
        said("nobin").1.contains("install loopdeck on nobin"),
        "{:?}",
        said("nobin")
    );
    assert!(said("other").0.contains("9.9.9"), "{:?}", said("other"));
    assert!(said("other").0.contains("999"), "{:?}", said("other"));
    assert!(
        said("dead").0.contains("timed out"),
        "the host that never answers: {:?}",
        said("dead")
    );
}

/// Twenty hosts at once on one sshd, each with its own root: every one
/// sends its snapshot, and a change on the last one arrives.
#[test]
fn twenty_hosts_at_once() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let hosts: Vec<HostSpec> = (1..=20)
        .map(|i| {
            let r = root(
                tmp.path(),
                &format!("r{i}"),
                &["prd-master/fba-smart-restock"],
            );
            sshd.host(&format!("h{i}"), &[&r])
        })
        .collect();
    let (fleet, rx) = start(hosts, options());
    let mut snapshots = std::collections::HashSet::new();
    let end = Instant::now() + Duration::from_secs(120);
    while snapshots.len() < 20 && Instant::now() < end {
        if let Ok(e) = rx.recv_timeout(Duration::from_secs(1))
            && let HostUpdate::Snapshot(ps) = &e.update
        {
            assert_eq!(ps.len(), 1, "{}", e.host);
            snapshots.insert(e.host.to_string());
        }
    }
    assert_eq!(snapshots.len(), 20, "{snapshots:?}");
    rename_prd(&tmp.path().join("r20/fba-smart-restock"), "twentieth");
    until(&rx, 30, "h20's change", |e| {
        &*e.host == "h20" && matches!(&e.update, HostUpdate::Project(p) if p.name == "twentieth")
    });
    fleet.stop();
}

/// `loopdeck watch --host …`: this machine's feed, then every host's own
/// lines with its name after `type` (its snapshot, its changes), and a
/// `host` line for each state; a host that refuses the key is a `host`
/// line with ssh's words, and the others still flow.
#[test]
fn watch_relays_every_hosts_lines_with_its_name() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let r1 = root(tmp.path(), "r1", &["prd-master/fba-smart-restock"]);
    let local = root(tmp.path(), "local", &["gsd/paused-waiting"]);
    let config = tmp.path().join("config.toml");
    std::fs::write(
        &config,
        Sshd::config_toml(&[sshd.host("h1", &[&r1]), sshd.host("badkey", &[&r1])]),
    )
    .unwrap();
    let mut cmd = common::feed::command(&local);
    cmd.arg("--config").arg(&config);
    let mut feed = common::feed::Feed::spawn(cmd);
    let mine = feed.wait_for("the local snapshot", |v| {
        v["type"] == "snapshot" && v.get("host").is_none()
    });
    assert_eq!(mine["projects"].as_array().unwrap().len(), 1);
    let theirs = feed.wait_for("h1's snapshot", |v| {
        v["type"] == "snapshot" && v["host"] == "h1"
    });
    let keys: Vec<&str> = theirs
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(&keys[..3], ["schema_version", "type", "host"]);
    assert_eq!(theirs["projects"][0]["name"], "fba-smart-restock");
    feed.wait_for("h1 live", |v| {
        v["type"] == "host" && v["host"] == "h1" && v["state"] == "live"
    });
    let refused = feed.wait_for("badkey failed", |v| {
        v["type"] == "host" && v["host"] == "badkey" && v["state"] == "failed"
    });
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("Permission denied"),
        "{refused}"
    );
    rename_prd(&r1.join("fba-smart-restock"), "relayed-change");
    feed.wait_for("h1's change", |v| {
        v["host"] == "h1"
            && v["type"] == "project_changed"
            && v["project"]["name"] == "relayed-change"
    });
}

/// `show HOST:DIR`: the host's own `show`, its JSON with `"host"` after
/// `schema_version` and otherwise what `show` gives here for the same
/// directory; the plain view under a `host` line. A host that cannot be
/// reached is exit 1 with ssh's words.
#[test]
fn show_names_a_hosts_project() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let r1 = root(tmp.path(), "r1", &["prd-master/fba-smart-restock"]);
    let dir = r1.join("fba-smart-restock");
    let config = tmp.path().join("config.toml");
    std::fs::write(
        &config,
        Sshd::config_toml(&[sshd.host("h1", &[&r1]), sshd.host("badkey", &[&r1])]),
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = common::loopdeck()
            .args(["--config"])
            .arg(&config)
            .args(args)
            .args(["--now", common::NOW])
            .output()
            .unwrap();
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
            out.status.code(),
        )
    };
    let remote = format!("h1:{}", dir.display());
    let (text, _, code) = run(&["show", &remote, "--json"]);
    assert_eq!(code, Some(0));
    let mut there: serde_json::Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<String> = there.as_object().unwrap().keys().take(2).cloned().collect();
    assert_eq!(keys, ["schema_version", "host"]);
    assert_eq!(there["host"], "h1");
    there.as_object_mut().unwrap().remove("host");
    let (here, _, _) = run(&["show", dir.to_str().unwrap(), "--json"]);
    let here: serde_json::Value = serde_json::from_str(&here).unwrap();
    assert_eq!(there, here);
    let (plain, _, code) = run(&["show", &remote]);
    assert_eq!(code, Some(0));
    assert!(plain.starts_with("host       h1\n"), "{plain}");
    assert!(plain.contains("fba-smart-restock"), "{plain}");
    let (_, said, code) = run(&["show", &format!("badkey:{}", dir.display())]);
    assert_eq!(code, Some(1));
    assert!(
        said.contains("host badkey: ") && said.contains("Permission denied"),
        "{said}"
    );
}
