//! End to end (tmux and a real sshd): the console follows a local root and
//! two hosts, one of which refuses the key. The header counts the hosts
//! live and names the failed one; a host's projects are labelled with its
//! name; a write on the host's root shows with no key pressed; `H` shows
//! ssh's own line and the fix; `b` groups by host; a decision on the
//! writable host is previewed and written there, over ssh.
//!
//! Needs tmux and sshd; skipped, saying so, without tmux outside CI.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::Path;

use common::sshd::Sshd;
use common::tmux::{Tmux, skip_without_tmux};
use common::{NOW, copy_dir, repo};

fn rename_prd(project: &Path, name: &str) {
    let file = project.join("state.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    doc["project_name"] = serde_json::Value::String(name.to_owned());
    let tmp = project.join("state.json.tmp");
    fs::write(&tmp, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    fs::rename(tmp, file).unwrap();
}

#[test]
fn the_console_follows_hosts_and_decides_on_one() {
    if skip_without_tmux() {
        return;
    }
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (remote, local) = (tmp.path().join("remote"), tmp.path().join("local"));
    copy_dir(
        &repo().join("tests/fixtures/prd-act/stage1/before"),
        &remote.join("far-restock"),
    );
    rename_prd(&remote.join("far-restock"), "far-restock");
    copy_dir(
        &repo().join("examples/workspace/gsd/paused-waiting"),
        &local.join("near-gsd"),
    );
    let mut build = sshd.host("build-1", &[&remote]);
    build.destination = "h1".into();
    build.writable = true;
    let refused = sshd.host("badkey", &[&remote]);
    let config = tmp.path().join("config.toml");
    fs::write(&config, Sshd::config_toml(&[build, refused])).unwrap();
    let (_, env) = common::state_dir(tmp.path());

    let t = Tmux::new("hosts");
    let arg = format!("--config {}", config.display());
    t.start_with(&local, NOW, "160", "40", &[&env], &[&arg]);
    let s = t.wait_for("build-1 · far-restock");
    assert!(s.contains("near-gsd"), "{s}");
    let s = t.wait_for("badkey failed (H)");
    assert!(s.contains("1/2 hosts live"), "{s}");

    // A write on the host shows with no key pressed.
    rename_prd(&remote.join("far-restock"), "far-restock-renamed");
    t.wait_for("build-1 · far-restock-renamed");

    // H: each host, ssh's own line for the one that failed, and the fix.
    t.keys(&["H"]);
    let s = t.wait_for("Hosts · 1/2 live");
    assert!(s.contains("Permission denied"), "{s}");
    assert!(s.contains("ssh-agent"), "{s}");
    t.keys(&["Escape"]);
    t.wait_gone("Hosts · 1/2 live");

    // b cycles to by-host: this machine first, then build-1.
    t.keys(&["b", "b", "b"]);
    let s = t.wait_for("by host");
    let this = s.find("this machine").expect("this machine's group");
    let far = s.find("build-1 ·").expect("build-1's group");
    assert!(this < far, "{s}");

    // Answer the host's open question from the inbox: the preview comes
    // from there, the write is made there.
    t.keys(&["i"]);
    t.wait_for("批量导出是否进入 MVP");
    t.keys(&["/"]);
    t.keys(&["-l", "MVP"]);
    t.keys(&["Enter"]);
    t.wait_for("/MVP");
    t.keys(&["a"]);
    let text = "decided over ssh; it's $(id)";
    t.keys(&["-l", text]);
    t.wait_for("decided over ssh");
    t.keys(&["C-s"]);
    t.wait_for("+++ b/state.json");
    assert!(
        !fs::read_to_string(remote.join("far-restock/state.json"))
            .unwrap()
            .contains("decided over ssh"),
        "the preview wrote"
    );
    t.keys(&["w"]);
    t.wait_for("wrote");
    let written = fs::read_to_string(remote.join("far-restock/state.json")).unwrap();
    assert!(
        written.contains("decided over ssh; it's $(id)"),
        "{written}"
    );
}
