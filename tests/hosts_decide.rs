//! A decision on another machine's project, end to end over a real sshd
//! (`common::sshd`) and the system `ssh`: the preview carries the diffs
//! and what it read, the write is made only on those bytes (a file changed
//! meanwhile is a conflict and stays as it is), hostile text lands exactly
//! as `loopdeck act` writes it from one argv element (it travels on
//! stdin, never through the remote shell), and undo runs there too.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::sshd::Sshd;
use common::{copy_dir, loopdeck, repo};
use loopdeck_core::decide::remote::{Answer, Call, Op, Why, call_over_ssh};
use loopdeck_core::fleet::HostSpec;
use loopdeck_core::model::{Format, Verb};

const NOW: &str = "2026-06-01T09:30:00Z";

/// The PRD-master fixture with an open OQ-7, at `dir/name`.
fn prd(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    copy_dir(&repo().join("tests/fixtures/prd-act/stage1/before"), &p);
    p
}

fn answer(text: &str) -> Verb {
    Verb::Answer {
        id: Some("OQ-7".to_owned()),
        text: text.to_owned(),
        key_decision: false,
        rationale: None,
    }
}

fn call(dir: &Path, verb: Verb, expect: Vec<(String, String)>, dry_run: bool) -> Call {
    Call::new(
        Op::Act {
            path: dir.to_string_lossy().into_owned(),
            format: Format::PrdMaster,
            verb,
            expect,
        },
        dry_run,
        "alice",
        Some(NOW.parse().unwrap()),
    )
}

fn writable(sshd: &Sshd, root: &Path) -> HostSpec {
    let mut h = sshd.host("h1", &[root]);
    h.writable = true;
    h
}

/// Preview, then the write on exactly what was previewed: the confirm
/// dialog's guarantee over ssh. Then undo by the audit id, there.
#[test]
fn preview_write_and_undo_over_ssh() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = prd(tmp.path(), "p");
    let before = fs::read(dir.join("state.json")).unwrap();
    let host = writable(&sshd, tmp.path());
    let Answer::Done { files, read, .. } = call_over_ssh(
        &host,
        "ssh",
        &call(&dir, answer("yes, in the MVP"), Vec::new(), true),
    ) else {
        panic!("the preview failed")
    };
    assert_eq!(
        fs::read(dir.join("state.json")).unwrap(),
        before,
        "a preview wrote"
    );
    assert!(
        files
            .iter()
            .any(|f| f.file == "state.json" && f.diff.contains("yes, in the MVP"))
    );
    assert!(!read.is_empty());
    let Answer::Done { audit_id, .. } = call_over_ssh(
        &host,
        "ssh",
        &call(&dir, answer("yes, in the MVP"), read, false),
    ) else {
        panic!("the write failed")
    };
    let written = fs::read_to_string(dir.join("state.json")).unwrap();
    assert!(written.contains("yes, in the MVP"));
    let id = audit_id.expect("the write is audited there");
    let undo = Call::new(Op::Undo { id }, false, "alice", Some(NOW.parse().unwrap()));
    let got = call_over_ssh(&host, "ssh", &undo);
    assert!(matches!(got, Answer::Done { .. }), "{got:?}");
    assert_eq!(fs::read(dir.join("state.json")).unwrap(), before);
}

/// A file changed after the console showed it: the remote refuses with a
/// conflict (exit 3 there), and the file keeps the other writer's bytes.
#[test]
fn a_file_changed_after_the_preview_is_a_conflict_over_ssh() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = prd(tmp.path(), "p");
    let host = writable(&sshd, tmp.path());
    let Answer::Done { read, .. } =
        call_over_ssh(&host, "ssh", &call(&dir, answer("no"), Vec::new(), true))
    else {
        panic!("the preview failed")
    };
    // Another writer (the agent) changes the state after the preview.
    let mut doc: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.join("state.json")).unwrap()).unwrap();
    doc["project_name"] = "changed-by-the-agent".into();
    let theirs = serde_json::to_vec_pretty(&doc).unwrap();
    fs::write(dir.join("state.json"), &theirs).unwrap();
    match call_over_ssh(&host, "ssh", &call(&dir, answer("no"), read, false)) {
        Answer::Failed { why, message } => {
            assert_eq!(why, Why::Changed, "{message}");
            assert!(message.contains("state.json"), "{message}");
        }
        other => panic!("not a conflict: {other:?}"),
    }
    assert_eq!(fs::read(dir.join("state.json")).unwrap(), theirs);
}

/// Hostile answers reach the remote file exactly as `loopdeck act`
/// writes them here from one argv element: nothing a shell would read
/// (quotes, `$(…)`, backquotes, `;`, a leading `-`, a line break) is
/// interpreted on the way.
#[test]
fn hostile_text_lands_over_ssh_as_act_writes_it() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let host = writable(&sshd, tmp.path());
    let hostile = [
        "it's \"quoted\"",
        "$(touch /tmp/loopdeck-pwned) `id` ; rm -rf / && echo $HOME",
        "-rf --json",
        "back\\slash | pipe > redirect < in",
        "two\nlines\tand a tab",
        "中文 ünï 🚀",
    ];
    for (i, text) in hostile.iter().enumerate() {
        let remote = prd(tmp.path(), &format!("r{i}"));
        let local = prd(tmp.path(), &format!("l{i}"));
        let got = call_over_ssh(
            &host,
            "ssh",
            &call(&remote, answer(text), Vec::new(), false),
        );
        assert!(matches!(got, Answer::Done { .. }), "{text:?}: {got:?}");
        let out = loopdeck()
            .env("XDG_STATE_HOME", tmp.path().join("local-state"))
            .arg("act")
            .arg(&local)
            .args(["answer", "OQ-7", "--now", NOW, "--by", "alice", "--", text])
            .output()
            .unwrap();
        assert!(out.status.success(), "{text:?}: {out:?}");
        assert_eq!(
            fs::read(remote.join("state.json")).unwrap(),
            fs::read(local.join("state.json")).unwrap(),
            "{text:?}"
        );
    }
    assert!(
        !Path::new("/tmp/loopdeck-pwned").exists(),
        "a remote shell ran the text"
    );
}
