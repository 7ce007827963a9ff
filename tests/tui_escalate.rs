//! End to end (tmux): `[[escalate]]` and `[notify] command` in the real
//! console on the real clock (issue 20 §5).
//!
//! An agent starts waiting: the command reads the item as JSON
//! (`"event": "waiting"`). Three seconds later, with no key pressed and no
//! file changed, the rule fires: the row gets its `!`, the header counts
//! it, and the command reads it again (`"event": "escalated"`), once; a
//! restarted console does not send it again. A command that fails is said
//! in the header.
//!
//! Needs tmux (Linux: inotify); skipped, saying so, without it outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::thread::sleep;
use std::time::{Duration, Instant};

use chrono::{SecondsFormat, Utc};
use common::tmux::{Tmux, skip_without_tmux};
use serde_json::Value;

fn save(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp-save");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

fn gsd(dir: &Path) {
    std::fs::create_dir_all(dir.join(".planning")).unwrap();
    save(
        &dir.join(".planning/STATE.md"),
        "---\ngsd_state_version: 1.0\nmilestone: v0.3\nstatus: executing\nlast_updated: \"2026-06-01T09:00:00.000Z\"\n---\n\n# Project State\n",
    );
}

fn waiting(dir: &Path, question: &str) {
    let since = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
    save(
        &dir.join(".planning/WAITING.json"),
        &format!(
            r#"{{"status":"waiting","type":"decision","question":"{question}","options":["A: yes","B: no"],"since":"{since}","phase":"3"}}"#
        ),
    );
}

/// The JSON lines the command has read so far.
fn sent(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn wait_sent(out: &Path, what: &str, n: usize) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let got = sent(out);
        if got.len() >= n {
            return got;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the command never got {what}: {got:?}"
        );
        sleep(Duration::from_millis(50));
    }
}

fn start(tmux: &Tmux, config: &Path, root: &Path, state: &str) {
    let config = format!("--config {}", config.display());
    tmux.start_with(root, "", "140", "30", &[state], &[&config]);
}

#[cfg(target_os = "linux")]
#[test]
fn a_rule_fires_by_time_alone_and_the_command_hears_each_item_once() {
    if skip_without_tmux() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    let alpha = root.join("alpha");
    gsd(&alpha);
    let (_, state) = common::state_dir(t.path());
    let out = t.path().join("sent.ndjson");
    let config = t.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[notify]\nbell = false\ncommand = [\"sh\", \"-c\", \"cat >> '{}'\"]\n\n[[escalate]]\nname = \"slow answer\"\nkind = \"waiting\"\nwaited = \"3s\"\ncolour = \"magenta\"\n",
            out.display()
        ),
    )
    .unwrap();

    let tmux = Tmux::new("escalate");
    start(&tmux, &config, &root, &state);
    tmux.wait_for("alpha");
    sleep(Duration::from_millis(500));
    let asked = Instant::now();
    waiting(&alpha, "Allow a fourth approval level?");
    let got = wait_sent(&out, "the new item", 1);
    assert_eq!(got[0]["event"], "waiting");
    assert_eq!(
        got[0]["item"]["title"],
        "[Phase 3] Allow a fourth approval level?"
    );
    assert_eq!(got[0]["project"]["name"], "alpha");
    assert_eq!(got[0]["escalated_by"], serde_json::json!([]));
    tmux.keys(&["i"]);
    // No key, no write: the clock alone.
    let s = tmux.wait_for("1 escalated");
    assert!(
        asked.elapsed() >= Duration::from_secs(3),
        "not before its time"
    );
    assert!(
        s.lines()
            .any(|l| l.contains("│!") && l.contains("Allow a fourth")),
        "{s}"
    );
    assert!(s.contains("escalated   slow answer (> 3s)"), "{s}");
    let got = wait_sent(&out, "the escalation", 2);
    assert_eq!(got[1]["event"], "escalated");
    assert_eq!(got[1]["escalated_by"], serde_json::json!(["slow answer"]));
    assert_eq!(got[1]["item"]["kind"], "waiting");
    sleep(Duration::from_millis(1500));
    assert_eq!(sent(&out).len(), 2, "once per item per rule");

    // A console started again remembers it was sent.
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED:0");
    drop(tmux);
    // A server of its own (the last one's socket may still be closing).
    let tmux = Tmux::new("escalate-again");
    start(&tmux, &config, &root, &state);
    tmux.wait_for("1 escalated");
    sleep(Duration::from_millis(1500));
    assert_eq!(sent(&out).len(), 2, "not again after a restart");
}

#[cfg(target_os = "linux")]
#[test]
fn a_failing_command_is_said_in_the_header() {
    if skip_without_tmux() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    let alpha = root.join("alpha");
    gsd(&alpha);
    let (_, state) = common::state_dir(t.path());
    let config = t.path().join("config.toml");
    std::fs::write(
        &config,
        "[notify]\nbell = false\ncommand = \"sh -c 'cat >/dev/null; exit 7'\"\n",
    )
    .unwrap();
    let tmux = Tmux::new("escalate-fail");
    start(&tmux, &config, &root, &state);
    tmux.wait_for("alpha");
    sleep(Duration::from_millis(500));
    waiting(&alpha, "Ship it?");
    let s = tmux.wait_for("! the notify command sh failed: exit status: 7");
    assert!(s.contains("1 new"), "{s}");
}
