//! `loopdeck call`: one decision asked for as JSON on stdin, answered as
//! JSON on stdout (what another machine's console runs over ssh), through
//! the real binary on real files in temp dirs. Every write is compared
//! byte for byte with the one `loopdeck act` makes of the same text given
//! as one argv element; the ssh client (`call_over_ssh`) runs the real
//! binary behind a stand-in `ssh` script.
// The stand-in ssh is a POSIX shell script.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{copy_dir, loopdeck, repo};
use loopdeck_core::decide::remote::{
    self, Answer, Call, FileDiff, Op, Why, call_over_ssh, refuse_readonly,
};
use loopdeck_core::fleet::HostSpec;
use loopdeck_core::model::{Format, Verb};

const NOW: &str = "2026-06-01T09:30:00Z";

/// A project in a temp dir of its own, with its own state directory (the
/// audit log).
struct Project {
    tmp: tempfile::TempDir,
    dir: PathBuf,
    format: Format,
}

/// The PRD-master fixture with an open OQ-7 (`prd-act/stage1`).
fn prd() -> Project {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("fba-smart-restock");
    copy_dir(&repo().join("tests/fixtures/prd-act/stage1/before"), &dir);
    Project {
        tmp,
        dir,
        format: Format::PrdMaster,
    }
}

/// A real GSD STATE.md (`gsd-real-world`), a Decisions section and
/// blockers in it, as `gsd_act` places it.
fn gsd() -> Project {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("proj");
    fs::create_dir_all(dir.join(".planning")).unwrap();
    fs::copy(
        repo().join("tests/fixtures/gsd-real-world/Mimo01__taskflow/STATE.md"),
        dir.join(".planning/STATE.md"),
    )
    .unwrap();
    Project {
        tmp,
        dir,
        format: Format::Gsd,
    }
}

impl Project {
    fn state_home(&self) -> PathBuf {
        self.tmp.path().join("state")
    }

    /// `loopdeck act DIR VERB ... --now NOW --by alice -- TEXTS...`: the
    /// texts after `--`, one argv element each.
    fn act(&self, verb: &[&str], texts: &[&str]) -> Output {
        loopdeck()
            .env("XDG_STATE_HOME", self.state_home())
            .arg("act")
            .arg(&self.dir)
            .args(verb)
            .args(["--now", NOW, "--by", "alice", "--"])
            .args(texts)
            .output()
            .unwrap()
    }

    /// `loopdeck [GLOBAL...] call` with `stdin`.
    fn call_raw(&self, global: &[&str], stdin: impl Into<Vec<u8>>) -> Output {
        loopdeck()
            .env("XDG_STATE_HOME", self.state_home())
            .args(global)
            .arg("call")
            .write_stdin(stdin)
            .output()
            .unwrap()
    }

    fn call(&self, call: &Call) -> (Answer, i32) {
        answered(&self.call_raw(&[], call.to_json()))
    }

    /// The call of `verb` on this project.
    fn act_call(&self, verb: Verb, expect: Vec<(String, String)>, dry_run: bool) -> Call {
        Call::new(
            Op::Act {
                path: self.dir.to_string_lossy().into_owned(),
                format: self.format,
                verb,
                expect,
            },
            dry_run,
            "alice",
            Some(NOW.parse().unwrap()),
        )
    }

    /// Every file of the project with its bytes.
    fn files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        common::snapshot(&self.dir)
            .into_iter()
            .map(|(p, b, _)| (p.strip_prefix(&self.dir).unwrap().to_path_buf(), b))
            .collect()
    }
}

/// The answer on stdout (one line of JSON), and the exit code.
fn answered(out: &Output) -> (Answer, i32) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.matches('\n').count(),
        1,
        "one line: {stdout:?}, stderr {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer = Answer::from_json(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    (answer, out.status.code().unwrap())
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap()
}

fn prd_answer(text: &str) -> Verb {
    Verb::Answer {
        id: Some("OQ-7".to_owned()),
        text: text.to_owned(),
        key_decision: false,
        rationale: None,
    }
}

/// The dry run's answer, unpacked.
fn done(answer: Answer) -> (Vec<FileDiff>, Option<String>, Vec<(String, String)>) {
    match answer {
        Answer::Done {
            files,
            audit_id,
            read,
            ..
        } => (files, audit_id, read),
        other => panic!("not done: {other:?}"),
    }
}

fn failed(answer: Answer) -> (Why, String) {
    match answer {
        Answer::Failed { why, message } => (why, message),
        other => panic!("not failed: {other:?}"),
    }
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A dry run answers the diff of every file it would change and the
/// stamps of what it read (the files as they are), and writes nothing.
#[test]
fn a_dry_run_answers_the_diffs_and_what_it_read_and_writes_nothing() {
    let p = prd();
    let before = common::snapshot(&p.dir);
    let (answer, code) = p.call(&p.act_call(prd_answer("yes, by warehouse"), Vec::new(), true));
    assert_eq!(code, 0);
    let (files, audit_id, read) = done(answer);
    assert_eq!(audit_id, None);
    let names: Vec<&str> = files.iter().map(|f| f.file.as_str()).collect();
    assert!(names.contains(&"state.json"), "{names:?}");
    let state = files.iter().find(|f| f.file == "state.json").unwrap();
    assert!(
        state.diff.contains("+") && state.diff.contains("\"answer\": \"yes, by warehouse\""),
        "{}",
        state.diff
    );
    let state_sha = sha256(&fs::read(p.dir.join("state.json")).unwrap());
    assert!(
        read.contains(&("state.json".to_owned(), state_sha)),
        "{read:?}"
    );
    assert_eq!(common::snapshot(&p.dir), before, "a dry run wrote");
    assert!(!p.state_home().join("loopdeck").exists() || audit_is_empty(&p));
}

fn audit_is_empty(p: &Project) -> bool {
    let out = loopdeck()
        .env("XDG_STATE_HOME", p.state_home())
        .args(["audit", "--json"])
        .output()
        .unwrap();
    out.stdout.is_empty()
}

/// The preview, sent back as `expect`, lands as the same bytes `act`
/// writes on a twin project, and answers an audit id.
#[test]
fn the_call_writes_the_bytes_act_writes() {
    for (twin, verb, argv, texts) in [
        (
            prd as fn() -> Project,
            prd_answer("yes, split by warehouse"),
            vec!["answer", "OQ-7"],
            vec!["yes, split by warehouse"],
        ),
        (
            gsd,
            Verb::AddDecision {
                text: "Use SQLite".to_owned(),
                phase: Some("66".to_owned()),
                rationale: None,
            },
            vec!["add-decision", "--phase", "66"],
            vec!["Use SQLite"],
        ),
        (
            gsd,
            Verb::AddBlocker {
                text: "CI is red".to_owned(),
            },
            vec!["add-blocker"],
            vec!["CI is red"],
        ),
    ] {
        let by_act = twin();
        let by_call = twin();
        assert_eq!(by_act.files(), by_call.files());
        let out = by_act.act(&argv, &texts);
        assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
        let (_, _, read) = done(
            by_call
                .call(&by_call.act_call(verb.clone(), Vec::new(), true))
                .0,
        );
        let (answer, code) = by_call.call(&by_call.act_call(verb.clone(), read, false));
        assert_eq!(code, 0, "{answer:?}");
        let (files, audit_id, _) = done(answer);
        assert!(!files.is_empty());
        assert!(audit_id.is_some_and(|id| !id.is_empty()));
        assert_ne!(by_act.files(), twin().files(), "{verb:?} changed nothing");
        assert_eq!(by_call.files(), by_act.files(), "{verb:?}");
    }
}

/// A file that changed after the dry run showed it: exit 3, `changed`,
/// and the file keeps the other writer's bytes.
#[test]
fn a_file_changed_since_the_preview_is_a_conflict_and_stays_as_it_is() {
    let p = prd();
    let (_, _, read) = done(p.call(&p.act_call(prd_answer("yes"), Vec::new(), true)).0);
    let path = p.dir.join("state.json");
    let mut theirs = fs::read(&path).unwrap();
    theirs.extend_from_slice(b"\n");
    fs::write(&path, &theirs).unwrap();
    let (answer, code) = p.call(&p.act_call(prd_answer("yes"), read, false));
    assert_eq!(code, 3);
    let (why, message) = failed(answer);
    assert_eq!(why, Why::Changed, "{message}");
    assert!(message.contains("state.json"), "{message}");
    assert_eq!(fs::read(&path).unwrap(), theirs);
}

/// The audit id a call answers undoes it through `call`: the files are
/// back to their bytes; an id the log does not hold is refused.
#[test]
fn a_decision_made_by_call_is_undone_by_its_id() {
    let p = prd();
    let original = p.files();
    let (answer, code) = p.call(&p.act_call(prd_answer("yes"), Vec::new(), false));
    assert_eq!(code, 0, "{answer:?}");
    let id = done(answer).1.unwrap();
    assert_ne!(p.files(), original);
    let undo = |id: &str, dry_run| {
        p.call(&Call::new(
            Op::Undo { id: id.to_owned() },
            dry_run,
            "alice",
            Some(NOW.parse().unwrap()),
        ))
    };
    // Dry: the diff back, nothing written.
    let written = p.files();
    let (answer, code) = undo(&id, true);
    assert_eq!(code, 0, "{answer:?}");
    assert!(!done(answer).0.is_empty());
    assert_eq!(p.files(), written);
    let (answer, code) = undo(&id, false);
    assert_eq!(code, 0, "{answer:?}");
    assert!(done(answer).1.is_some(), "an undo is itself recorded");
    assert_eq!(p.files(), original);
    let (answer, code) = undo("no-such-id", false);
    assert_eq!(code, 1, "{answer:?}");
    assert_eq!(failed(answer).0, Why::Refused);
}

/// Texts a shell would take apart, as an answer (several lines allowed)
/// and as a GSD decision (one line: a line break is refused, by `act`
/// too): what `call` writes is byte for byte what `act` writes from the
/// same text as one argv element.
#[test]
fn hostile_text_lands_as_act_writes_it() {
    let hostile = [
        "it's",
        "\"double\"",
        "$(id)",
        "`id`",
        "a; rm -rf /",
        "back\\slash",
        "-rf",
        "--json",
        "中文 ünï",
        "two\nlines",
        "'; echo \"$(id)\" `id` \\ -- --json; 中文",
    ];
    for text in hostile {
        // PRD-master: an answer takes several lines.
        let (by_act, by_call) = (prd(), prd());
        let out = by_act.act(&["answer", "OQ-7"], &[text]);
        assert_eq!(
            code(&out),
            0,
            "{text:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (answer, call_code) =
            by_call.call(&by_call.act_call(prd_answer(text), Vec::new(), false));
        assert_eq!(call_code, 0, "{text:?}: {answer:?}");
        assert_eq!(by_call.files(), by_act.files(), "{text:?}");
        assert_ne!(by_call.files(), prd().files(), "{text:?}");
        // GSD: a decision and its rationale are one line each.
        let (by_act, by_call) = (gsd(), gsd());
        let original = by_act.files();
        let out = by_act.act(
            &[
                "add-decision",
                "--phase",
                "66",
                &format!("--rationale={text}"),
            ],
            &[text],
        );
        let verb = Verb::AddDecision {
            text: text.to_owned(),
            phase: Some("66".to_owned()),
            rationale: Some(text.to_owned()),
        };
        let (answer, call_code) = by_call.call(&by_call.act_call(verb, Vec::new(), false));
        assert_eq!(call_code, code(&out), "{text:?}: {answer:?}");
        if text.contains('\n') {
            assert_eq!(call_code, 1);
            let (why, message) = failed(answer);
            assert_eq!(why, Why::Refused);
            let said = String::from_utf8_lossy(&out.stderr);
            assert!(
                said.contains(&message),
                "act said {said:?}, call {message:?}"
            );
            assert_eq!(by_call.files(), original);
        } else {
            assert_eq!(call_code, 0, "{text:?}: {answer:?}");
            assert_ne!(by_call.files(), original, "{text:?}");
        }
        assert_eq!(by_call.files(), by_act.files(), "{text:?}");
    }
}

/// A call that does not read (not JSON, the wrong shape, another
/// version, an unknown format, more than 1 MiB) is a usage mistake,
/// answered as a refusal; nothing is written.
#[test]
fn a_call_that_does_not_read_is_exit_2_with_a_refusal() {
    let p = prd();
    let before = p.files();
    let good = p.act_call(prd_answer("yes"), Vec::new(), false).to_json();
    let mut huge = good.clone().into_bytes();
    huge.resize(remote::MAX_CALL + 1, b' ');
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"{".to_vec(), "not valid"),
        (b"".to_vec(), "not valid"),
        (b"yes".to_vec(), "not valid"),
        (b"[1,2]".to_vec(), "not a JSON object"),
        (
            good.replace("\"version\":1", "\"version\":2").into_bytes(),
            "version 2",
        ),
        (
            good.replace("prd-master", "prd").into_bytes(),
            "unknown format",
        ),
        (
            good.replace("\"answer\"", "\"shout\"").into_bytes(),
            "not valid",
        ),
        (huge, "larger than 1048576 bytes"),
    ];
    for (stdin, needle) in cases {
        let (answer, code) = answered(&p.call_raw(&[], stdin));
        assert_eq!(code, 2, "{needle}: {answer:?}");
        let (why, message) = failed(answer);
        assert_eq!(why, Why::Refused);
        assert!(message.contains(needle), "{needle}: {message}");
    }
    // Padded to exactly the limit, the same call still reads.
    let mut padded = good.into_bytes();
    padded.resize(remote::MAX_CALL, b' ');
    let (answer, code) = answered(&p.call_raw(&["--readonly"], padded));
    assert_eq!((code, failed(answer).0), (1, Why::Refused));
    assert_eq!(p.files(), before);
}

/// The remote's own `--readonly` refuses a write (a dry run still
/// answers), and a decider whose name breaks a line is refused in
/// `--by`'s words.
#[test]
fn readonly_and_a_forged_decider_are_refused() {
    let p = prd();
    let before = p.files();
    let write = p.act_call(prd_answer("yes"), Vec::new(), false);
    let (answer, code) = answered(&p.call_raw(&["--readonly"], write.to_json()));
    assert_eq!(code, 1);
    let (why, message) = failed(answer);
    assert_eq!(why, Why::Refused);
    assert!(message.contains("read-only"), "{message}");
    let dry = p.act_call(prd_answer("yes"), Vec::new(), true);
    let (answer, code) = answered(&p.call_raw(&["--readonly"], dry.to_json()));
    assert_eq!(code, 0);
    assert!(!done(answer).0.is_empty());
    let forged = Call {
        by: "alice\n## forged".to_owned(),
        ..write
    };
    let (answer, code) = p.call(&forged);
    assert_eq!(code, 1);
    assert_eq!(
        failed(answer),
        (
            Why::Refused,
            "--by (who decides) must be one line of text (no line breaks or control characters)"
                .to_owned()
        )
    );
    assert_eq!(p.files(), before);
}

/// A project directory that is not there: a usage mistake, as `act`.
#[test]
fn a_project_that_is_not_there_is_exit_2() {
    let p = prd();
    let mut call = p.act_call(prd_answer("yes"), Vec::new(), true);
    if let Op::Act { path, .. } = &mut call.op {
        path.push_str("-gone");
    }
    let (answer, code) = p.call(&call);
    assert_eq!(code, 2);
    assert!(failed(answer).1.contains("-gone"));
}

/// A stand-in for `ssh`: a shell script that records its arguments and
/// runs `body`.
fn fake_ssh(dir: &Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("ssh");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '{}'\n{body}\n",
            dir.join("argv").display()
        ),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn host() -> HostSpec {
    let mut h = HostSpec::new("build-1", "ops@build1", vec!["/srv".to_owned()]);
    h.writable = true;
    h
}

/// `call_over_ssh` through an `ssh` that runs the real binary's `call`
/// here: the remote command is the fixed `loopdeck call` (no user text on
/// it), and a preview, the write and its undo come back as the binary
/// answers them.
#[test]
fn call_over_ssh_round_trips_through_the_real_binary() {
    let p = prd();
    let bin = dir_of_bin();
    let ssh = fake_ssh(
        p.tmp.path(),
        &format!(
            "LOOPDECK='{}'\nXDG_STATE_HOME='{}' XDG_CONFIG_HOME=/nonexistent-loopdeck-test-config LC_ALL=C.UTF-8 exec \"$LOOPDECK\" call",
            bin.display(),
            p.state_home().display()
        ),
    );
    let ssh = ssh.to_str().unwrap();
    let original = p.files();
    let text = "it's $(id) `id`; \\ \"x\"\n-- 中文";
    let (files, _, read) = done(call_over_ssh(
        &host(),
        ssh,
        &p.act_call(prd_answer(text), Vec::new(), true),
    ));
    assert!(files.iter().any(|f| f.file == "state.json"));
    let argv = fs::read_to_string(p.tmp.path().join("argv")).unwrap();
    assert!(argv.ends_with("--\nops@build1\nloopdeck call\n"), "{argv}");
    assert!(
        !argv.contains("$(id)") && !argv.contains("中文"),
        "user text on the command line: {argv}"
    );
    assert_eq!(p.files(), original);
    let (_, id, _) = done(call_over_ssh(
        &host(),
        ssh,
        &p.act_call(prd_answer(text), read, false),
    ));
    let by_act = prd();
    assert_eq!(code(&by_act.act(&["answer", "OQ-7"], &[text])), 0);
    assert_eq!(p.files(), by_act.files());
    let undo = Call::new(Op::Undo { id: id.unwrap() }, false, "alice", None);
    done(call_over_ssh(&host(), ssh, &undo));
    assert_eq!(p.files(), original);
    // A conflict keeps its kind across the link.
    let (_, _, read) = done(call_over_ssh(
        &host(),
        ssh,
        &p.act_call(prd_answer("x"), Vec::new(), true),
    ));
    let mut theirs = fs::read(p.dir.join("state.json")).unwrap();
    theirs.push(b'\n');
    fs::write(p.dir.join("state.json"), &theirs).unwrap();
    let answer = call_over_ssh(&host(), ssh, &p.act_call(prd_answer("x"), read, false));
    assert_eq!(failed(answer).0, Why::Changed);
}

fn dir_of_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_loopdeck"))
}

/// ssh that cannot get in (exit 255): refused, in ssh's last words,
/// named by the host; it never waits on the call it did not read.
#[test]
fn an_ssh_that_cannot_connect_is_refused_with_its_last_line() {
    let tmp = tempfile::tempdir().unwrap();
    let ssh = fake_ssh(
        tmp.path(),
        "echo 'debug1: Offering public key' >&2\necho 'Permission denied (publickey).' >&2\nexit 255",
    );
    let call = Call::new(
        Op::Act {
            path: "/srv/p".to_owned(),
            format: Format::PrdMaster,
            verb: prd_answer(&"x".repeat(9_000)),
            expect: Vec::new(),
        },
        false,
        "alice",
        None,
    );
    assert_eq!(
        call_over_ssh(&host(), ssh.to_str().unwrap(), &call),
        Answer::Failed {
            why: Why::Refused,
            message: "build-1: Permission denied (publickey).".to_owned()
        }
    );
}

/// What else can come back instead of an answer: a remote loopdeck too
/// old to know `call`, an answer of another version, a link that drops
/// mid-answer, no ssh at all.
#[test]
fn a_remote_that_does_not_answer_is_refused_saying_why() {
    let tmp = tempfile::tempdir().unwrap();
    let call = Call::new(
        Op::Undo {
            id: "A1".to_owned(),
        },
        false,
        "alice",
        None,
    );
    let cases = [
        (
            "cat >/dev/null; echo \"error: unrecognized subcommand 'call'\" >&2; exit 2",
            "build-1: the loopdeck there does not know `loopdeck call` (an older version): install the same loopdeck version there",
        ),
        (
            "cat >/dev/null; echo 'loopdeck: call does not exist' >&2; exit 2",
            "build-1: the loopdeck there does not know `loopdeck call` (an older version): install the same loopdeck version there",
        ),
        (
            "cat >/dev/null; echo '{\"version\":2,\"answer\":\"failed\",\"why\":\"refused\",\"message\":\"m\"}'",
            "build-1: the answer is version 2 of the protocol, this loopdeck speaks version 1: install the same loopdeck version on both machines",
        ),
    ];
    for (body, want) in cases {
        let ssh = fake_ssh(tmp.path(), body);
        let (why, message) = failed(call_over_ssh(&host(), ssh.to_str().unwrap(), &call));
        assert_eq!(why, Why::Refused);
        assert!(message.starts_with(want), "{body}: {message}");
    }
    // The link drops after the decision was sent: it may have been made
    // there, so it is never taken as refused (and retried blindly).
    for body in [
        "cat >/dev/null; printf '{\"version\":1,\"answer\":\"do'; echo 'Connection to build1 closed by remote host.' >&2; exit 255",
        "cat >/dev/null; exit 255",
    ] {
        let ssh = fake_ssh(tmp.path(), body);
        let (why, message) = failed(call_over_ssh(&host(), ssh.to_str().unwrap(), &call));
        assert_eq!(why, Why::Partial, "{body}: {message}");
        assert!(message.contains("it may have been made there"), "{message}");
    }
    // A preview that loses its answer changed nothing: refused.
    let dry = Call {
        dry_run: true,
        ..call.clone()
    };
    let ssh = fake_ssh(tmp.path(), "cat >/dev/null; exit 255");
    assert_eq!(
        failed(call_over_ssh(&host(), ssh.to_str().unwrap(), &dry)).0,
        Why::Refused
    );
    // ssh that never reached the remote: nothing was run there.
    let ssh = fake_ssh(
        tmp.path(),
        "cat >/dev/null; echo 'root@h: Permission denied (publickey).' >&2; exit 255",
    );
    assert_eq!(
        failed(call_over_ssh(&host(), ssh.to_str().unwrap(), &call)).0,
        Why::Refused
    );
    let (why, message) = failed(call_over_ssh(&host(), "/nonexistent/ssh", &call));
    assert_eq!(why, Why::Refused);
    assert!(
        message.starts_with("build-1: cannot run /nonexistent/ssh"),
        "{message}"
    );
    let mut ro = host();
    ro.writable = false;
    assert_eq!(
        failed(refuse_readonly(&ro)).1,
        "build-1 is read-only: set writable = true in its [[host]] to decide there"
    );
}
