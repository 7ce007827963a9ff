//! `loopdeck act` on devloop projects (seeds 003/004), run as a user runs
//! it on copies of the example workspace's projects. Golden lines are the
//! files' own lines edited by hand-written string replacements (never the
//! program's output), and every result is read back with loopdeck's reader.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use common::{NOW, loopdeck, workspace};
use serde_json::Value;
use sha2::{Digest, Sha256};

const PROJECTS: &str = "devloop/data/companies/acme/projects";
/// `NOW` in unix seconds (the timeline's `ts`).
const NOW_TS: i64 = 1_780_315_200;
const OPEN_BUG: &str = "bug-20260601-0902-d4e8";
const FIXING_BUG: &str = "bug-20260601-1049-9e0b";
const FIXED_BUG: &str = "bug-20260530-2131-a1f3";

struct Ws {
    _tmp: tempfile::TempDir,
    ws: PathBuf,
    state: tempfile::TempDir,
}

impl Ws {
    fn new() -> Ws {
        let (tmp, ws) = workspace();
        Ws {
            _tmp: tmp,
            ws,
            state: tempfile::tempdir().unwrap(),
        }
    }
    fn dir(&self, name: &str) -> PathBuf {
        self.ws.join(PROJECTS).join(name)
    }
    /// `loopdeck act DIR ARGS --by yibo --now NOW` plus `extra`
    /// (`--now` in `extra` replaces NOW.)
    fn act(&self, dir: &Path, args: &[&str], extra: &[&str]) -> std::process::Output {
        let mut c = loopdeck();
        c.env("XDG_STATE_HOME", self.state.path())
            .arg("act")
            .arg(dir)
            .args(args)
            .args(["--by", "yibo"]);
        if !extra.contains(&"--now") {
            c.args(["--now", NOW]);
        }
        c.args(extra).output().unwrap()
    }
}

fn err(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &std::process::Output) -> i32 {
    o.status.code().unwrap()
}

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The lines appended to `path` since `before`.
fn appended(before: &[u8], path: &Path) -> Vec<String> {
    let after = fs::read(path).unwrap();
    assert!(
        after.starts_with(before),
        "{} was rewritten",
        path.display()
    );
    String::from_utf8(after[before.len()..].to_vec())
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The last line of `path` whose `id` is `id`.
fn last_line_of(path: &Path, id: &str) -> String {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .rfind(|l| l.contains(&format!("\"id\":\"{id}\"")))
        .unwrap()
        .to_owned()
}

fn show(dir: &Path, now: &str) -> Value {
    let out = loopdeck()
        .args(["show", dir.to_str().unwrap(), "--json", "--now", now])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", err(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn bug<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["bugs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == id)
        .unwrap()
}

/// Every file under `dir` with its bytes.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            out.extend(tree(&e.path()));
        } else {
            out.push((e.path(), fs::read(e.path()).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn a_legal_transition_appends_the_full_record_and_a_human_event() {
    let w = Ws::new();
    let dir = w.dir("p-restock");
    let bugs = dir.join("bugs.ndjson");
    let timeline = dir.join("timeline.ndjson");
    let (bugs_before, tl_before) = (fs::read(&bugs).unwrap(), fs::read(&timeline).unwrap());
    let old = last_line_of(&bugs, OPEN_BUG);

    let o = w.act(
        &dir,
        &["bug", OPEN_BUG, "fixing", "--note", "列宽固定 160px"],
        &[],
    );
    assert_eq!(code(&o), 0, "{}", err(&o));

    // The golden line: the old latest line, status and history edited.
    let want = old.replace(
        r#""status":"open","status_history":[]"#,
        r#""status":"fixing","status_history":[{"ts":"2026-06-01T12:00:00Z","from":"open","to":"fixing","by":"yibo","note":"列宽固定 160px"}]"#,
    );
    assert_ne!(want, old);
    assert_eq!(appended(&bugs_before, &bugs), vec![want]);
    let want_event = format!(
        r#"{{"ts":{NOW_TS},"source":"human","kind":"bug_transitioned","ref":"{OPEN_BUG}","summary":"{OPEN_BUG} open → fixing by yibo: 列宽固定 160px","payload":{{"from":"open","to":"fixing","by":"yibo","note":"列宽固定 160px"}}}}"#
    );
    assert_eq!(appended(&tl_before, &timeline), vec![want_event]);

    // Read back by loopdeck's reader.
    let v = show(&dir, NOW);
    let b = bug(&v, OPEN_BUG);
    assert_eq!(b["status"], "fixing");
    assert_eq!(
        b["act"],
        serde_json::json!({"verb": "bug", "target": OPEN_BUG, "options": ["fixed", "open", "wontfix", "duplicate"]})
    );
    let last = b["history"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["from"], "open");
    assert_eq!(last["by"], "yibo");
    assert_eq!(last["note"], "列宽固定 160px");
    let e = v["timeline"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (e["source"].as_str(), e["kind"].as_str()),
        (Some("human"), Some("bug_transitioned"))
    );
    assert!(
        !v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "devloop.bug-illegal-transition"),
        "{:#}",
        v["findings"]
    );
}

#[test]
fn a_bug_walks_the_whole_lifecycle_one_step_at_a_time() {
    let w = Ws::new();
    let dir = w.dir("p-restock");
    let bugs = dir.join("bugs.ndjson");
    for (to, extra) in [
        ("fixed", vec!["--fix-ref", "run-20260601-1201"]),
        ("verified", vec!["--note", "L2 通过"]),
    ] {
        let mut args = vec!["bug", FIXING_BUG, to];
        args.extend(extra);
        let o = w.act(&dir, &args, &[]);
        assert_eq!(code(&o), 0, "{to}: {}", err(&o));
    }
    let line: Value = serde_json::from_str(&last_line_of(&bugs, FIXING_BUG)).unwrap();
    assert_eq!(line["status"], "verified");
    let steps: Vec<(&str, &str)> = line["status_history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["from"].as_str().unwrap(), h["to"].as_str().unwrap()))
        .collect();
    assert_eq!(
        steps,
        vec![
            ("open", "fixing"),
            ("fixing", "fixed"),
            ("fixed", "verified")
        ]
    );
    assert_eq!(line["fix_refs"], serde_json::json!(["run-20260601-1201"]));
    // Unknown fields ride along untouched.
    assert_eq!(line["test_name"], "plan.case-pack-rounding");
    assert_eq!(
        show(&dir, NOW)["bugs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["id"] == FIXING_BUG)
            .unwrap()["status"],
        "verified"
    );

    // verified is final.
    let before = tree(&dir);
    let o = w.act(&dir, &["bug", FIXING_BUG, "open"], &[]);
    assert_eq!(code(&o), 1);
    assert!(err(&o).contains("final"), "{}", err(&o));
    assert_eq!(tree(&dir), before);
}

#[test]
fn an_illegal_transition_is_refused_naming_the_legal_ones_and_writes_nothing() {
    let w = Ws::new();
    let dir = w.dir("p-restock");
    let before = tree(&dir);
    let cases: &[(&[&str], &str)] = &[
        (
            &["bug", OPEN_BUG, "verified"],
            "from open it can go to fixing, wontfix, duplicate",
        ),
        (&["bug", OPEN_BUG, "fixed"], "no skipping"),
        (&["bug", FIXED_BUG, "fixed"], "already fixed"),
        (&["bug", OPEN_BUG, "reopened"], "not a bug status"),
        (&["bug", "bug-nope", "fixing"], "no bug `bug-nope`"),
        (&["bug", OPEN_BUG, "duplicate"], "--duplicate-of"),
        (
            &["bug", OPEN_BUG, "duplicate", "--duplicate-of", OPEN_BUG],
            "itself",
        ),
        (
            &["bug", OPEN_BUG, "duplicate", "--duplicate-of", "bug-x"],
            "no bug `bug-x`",
        ),
        (
            &["bug", OPEN_BUG, "fixing", "--duplicate-of", FIXED_BUG],
            "goes with the status duplicate",
        ),
    ];
    for (args, says) in cases {
        let o = w.act(&dir, args, &[]);
        assert_eq!(code(&o), 1, "{args:?}: {}", err(&o));
        assert!(err(&o).contains(says), "{args:?}: {}", err(&o));
        assert_eq!(tree(&dir), before, "{args:?} wrote something");
    }
    // A legal duplicate records what it duplicates.
    let o = w.act(
        &dir,
        &["bug", OPEN_BUG, "duplicate", "--duplicate-of", FIXED_BUG],
        &[],
    );
    assert_eq!(code(&o), 0, "{}", err(&o));
    let line: Value =
        serde_json::from_str(&last_line_of(&dir.join("bugs.ndjson"), OPEN_BUG)).unwrap();
    assert_eq!(line["duplicate_of"], FIXED_BUG);
}

#[test]
fn a_torn_bugs_tail_is_not_swallowed() {
    let w = Ws::new();
    let dir = w.dir("p-restock");
    let bugs = dir.join("bugs.ndjson");
    let mut f = fs::OpenOptions::new().append(true).open(&bugs).unwrap();
    // A writer died in the middle of a line that would have moved the bug.
    f.write_all(format!(r#"{{"id":"{OPEN_BUG}","status":"fix"#).as_bytes())
        .unwrap();
    drop(f);
    let o = w.act(&dir, &["bug", OPEN_BUG, "wontfix"], &[]);
    assert_eq!(code(&o), 0, "{}", err(&o));
    let text = fs::read_to_string(&bugs).unwrap();
    let last = text.lines().last().unwrap();
    let v: Value = serde_json::from_str(last).unwrap();
    assert_eq!(
        (v["id"].as_str(), v["status"].as_str()),
        (Some(OPEN_BUG), Some("wontfix"))
    );
    assert_eq!(bug(&show(&dir, NOW), OPEN_BUG)["status"], "wontfix");
}

/// integrator, paused again after the project's last event: its token
/// lapses 24 h later.
const PAUSED: &str = "2026-06-01T11:59:00Z";
const JUST_BEFORE: &str = "2026-06-02T11:58:59Z";
const EXPIRY: &str = "2026-06-02T11:59:00Z";

fn resume_item(dir: &Path, now: &str) -> Value {
    let v = show(dir, now);
    v["inbox"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "resume")
        .unwrap()
        .clone()
}

#[test]
fn once_the_files_show_the_token_lapsed_resume_is_refused_as_the_reader_offers() {
    // As shipped: paused 2026-05-31T05:50:12Z, and the project has events
    // after 2026-06-01T05:50:12Z, so the reader offers only a restart even
    // at a "now" before that instant; the write agrees.
    let w = Ws::new();
    let dir = w.dir("p-restock");
    let early = "2026-06-01T05:50:11Z";
    assert_eq!(
        resume_item(&dir, early)["act"]["options"],
        serde_json::json!(["restart"])
    );
    let before = tree(&dir);
    let o = w.act(
        &dir,
        &["resume-agent", "integrator", "resume"],
        &["--now", early],
    );
    assert_eq!(code(&o), 1, "{}", err(&o));
    assert!(
        err(&o).contains("expired at 2026-06-01T05:50:12Z"),
        "{}",
        err(&o)
    );
    assert_eq!(tree(&dir), before);
}

#[test]
fn resume_is_offered_and_taken_until_the_token_is_24_hours_old() {
    let w = Ws::new();
    let dir = w.dir("p-restock");
    let state = dir.join("agent-state/integrator.json");
    let shipped = fs::read_to_string(&state).unwrap();
    let original = shipped.replace("2026-05-31T05:50:12Z", PAUSED);
    assert_ne!(original, shipped);
    fs::write(&state, &original).unwrap();

    let item = resume_item(&dir, JUST_BEFORE);
    assert_eq!(
        item["act"],
        serde_json::json!({"verb": "resume-agent", "target": "integrator", "options": ["resume", "restart"]})
    );
    assert_eq!(
        resume_item(&dir, EXPIRY)["act"]["options"],
        serde_json::json!(["restart"])
    );

    // At the expiry instant, resume is refused and nothing is written.
    let before = tree(&dir);
    let o = w.act(
        &dir,
        &["resume-agent", "integrator", "resume"],
        &["--now", EXPIRY],
    );
    assert_eq!(code(&o), 1);
    assert!(
        err(&o).contains(&format!("expired at {EXPIRY}")),
        "{}",
        err(&o)
    );
    assert!(err(&o).contains("only restart"), "{}", err(&o));
    assert_eq!(tree(&dir), before);

    // One second earlier, resume is taken.
    let tl_before = fs::read(dir.join("timeline.ndjson")).unwrap();
    let o = w.act(
        &dir,
        &["resume-agent", "integrator", "resume"],
        &["--now", JUST_BEFORE],
    );
    assert_eq!(code(&o), 0, "{}", err(&o));
    let want = original.replacen(
        "\n}\n",
        &format!(
            ",\n  \"resume_decision\": {{\n    \"choice\": \"resume\",\n    \"by\": \"yibo\",\n    \"at\": \"{JUST_BEFORE}\"\n  }}\n}}\n"
        ),
        1,
    );
    assert_eq!(fs::read_to_string(&state).unwrap(), want);
    let events = appended(&tl_before, &dir.join("timeline.ndjson"));
    assert_eq!(events.len(), 1);
    let e: Value = serde_json::from_str(&events[0]).unwrap();
    assert_eq!(e["source"], "human");
    assert_eq!(e["kind"], "resume_decision");
    assert_eq!(
        e["ref"],
        "agent/integrator/call-20260531-0520-integrator-b81e"
    );
    assert_eq!(e["ts"], 1_780_401_539_i64);
    // The pause time the token counts from is untouched: the reader still
    // sees the same pause.
    let v = show(&dir, JUST_BEFORE);
    let a = v["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "integrator")
        .unwrap()
        .clone();
    assert_eq!(a["paused_at"], PAUSED);

    // Answered, the pause waits for the devloop server, not for the human:
    // it leaves the inbox and is shown apart with the answer, who and when,
    // still offering the other choice.
    let v = show(&dir, JUST_BEFORE);
    assert!(
        !v["inbox"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["kind"] == "resume"),
        "{v:#}"
    );
    let answered = v["answered"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "resume")
        .unwrap()
        .clone();
    assert_eq!(answered["answer"], "resume");
    assert_eq!(answered["answered_by"], "yibo");
    assert_eq!(answered["answered_at"], JUST_BEFORE);
    assert_eq!(
        answered["act"],
        serde_json::json!({"verb": "resume-agent", "target": "integrator", "options": ["restart"]})
    );

    // The same decision twice is refused; a change of mind is recorded.
    let o = w.act(
        &dir,
        &["resume-agent", "integrator", "resume"],
        &["--now", JUST_BEFORE],
    );
    assert_eq!(code(&o), 1);
    assert!(err(&o).contains("already"), "{}", err(&o));
    let o = w.act(
        &dir,
        &["resume-agent", "integrator", "restart"],
        &["--now", EXPIRY],
    );
    assert_eq!(code(&o), 0, "{}", err(&o));
    let v: Value = serde_json::from_slice(&fs::read(&state).unwrap()).unwrap();
    assert_eq!(
        v["resume_decision"],
        serde_json::json!({"choice": "restart", "by": "yibo", "at": EXPIRY})
    );
}

#[test]
fn only_a_paused_agent_takes_a_resume_decision() {
    let w = Ws::new();
    let dir = w.dir("p-restock");
    let before = tree(&dir);
    for (args, says) in [
        (
            ["resume-agent", "coder", "restart"],
            "coder is running, not paused",
        ),
        (["resume-agent", "pm", "restart"], "no agent `pm`"),
        (["resume-agent", "..", "restart"], "not an agent name"),
    ] {
        let o = w.act(&dir, &args, &[]);
        assert_eq!(code(&o), 1, "{args:?}");
        assert!(err(&o).contains(says), "{args:?}: {}", err(&o));
    }
    assert_eq!(tree(&dir), before);
}

#[test]
fn sign_off_without_a_server_edits_project_json_in_its_own_style() {
    let w = Ws::new();
    let dir = w.dir("p-shipped");
    // Its PRD conflict settled: a conflict pauses sign-off (see pause.rs).
    pause::settle_conflict(&dir);
    let meta = dir.join("project.json");
    let original = fs::read_to_string(&meta).unwrap();
    let tl_before = fs::read(dir.join("timeline.ndjson")).unwrap();
    let v = show(&dir, NOW);
    let item = v["inbox"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "sign-off")
        .unwrap();
    assert_eq!(
        item["act"],
        serde_json::json!({"verb": "sign-off", "options": ["sign-off", "abandon"]})
    );

    let o = w.act(&dir, &["sign-off"], &[]);
    assert_eq!(code(&o), 0, "{}", err(&o));
    let want = original
        .replace(r#""status": "shipped","#, r#""status": "shipped-final","#)
        .replace(
            r#""updated_at": "2026-05-25T12:04:10Z""#,
            r#""updated_at": "2026-06-01T12:00:00Z""#,
        );
    assert_ne!(want, original);
    assert_eq!(fs::read_to_string(&meta).unwrap(), want);
    assert_eq!(
        appended(&tl_before, &dir.join("timeline.ndjson")),
        vec![format!(
            r#"{{"ts":{NOW_TS},"source":"human","kind":"project_signed_off","ref":"p-shipped","summary":"yibo signed off p-shipped: shipped → shipped-final","payload":{{"from":"shipped","to":"shipped-final","by":"yibo"}}}}"#
        )]
    );
    let v = show(&dir, NOW);
    assert_eq!(v["project"]["status"], "shipped-final");
    assert!(
        !v["inbox"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["kind"] == "sign-off")
    );

    // Finished: neither sign-off nor abandon again.
    let before = tree(&dir);
    for verb in ["sign-off", "abandon"] {
        let o = w.act(&dir, &[verb], &[]);
        assert_eq!(code(&o), 1, "{verb}");
        assert_eq!(tree(&dir), before);
    }
}

#[test]
fn abandon_without_a_server_and_sign_off_only_when_shipped() {
    let w = Ws::new();
    let dir = w.dir("p-restock");
    let before = tree(&dir);
    let o = w.act(&dir, &["sign-off"], &[]);
    assert_eq!(code(&o), 1);
    assert!(err(&o).contains("p-restock is running"), "{}", err(&o));
    assert_eq!(tree(&dir), before);

    let o = w.act(&dir, &["abandon"], &[]);
    assert_eq!(code(&o), 0, "{}", err(&o));
    let v = show(&dir, NOW);
    assert_eq!(v["project"]["status"], "abandoned");
    let e = v["timeline"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (e["source"].as_str(), e["kind"].as_str()),
        (Some("human"), Some("project_abandoned"))
    );
}

/// An abandoned project waits for no one: its PRD conflict and its
/// sign-off leave the inbox (the server refuses a requirement there, so
/// nothing offered could be made).
#[test]
fn an_abandoned_project_leaves_the_inbox() {
    let w = Ws::new();
    let dir = w.dir("p-shipped");
    let kinds = |v: &Value| -> Vec<String> {
        v["inbox"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["kind"].as_str().unwrap().to_owned())
            .collect()
    };
    let v = show(&dir, NOW);
    assert!(kinds(&v).contains(&"conflict".to_owned()), "{v}");
    let o = w.act(&dir, &["abandon"], &[]);
    assert_eq!(code(&o), 0, "{}", err(&o));
    let v = show(&dir, NOW);
    assert_eq!(v["project"]["status"], "abandoned");
    assert_eq!(kinds(&v), Vec::<String>::new(), "{v}");
    assert_eq!(v["project"]["needs_human"], 0);
}

#[test]
fn a_requirement_without_a_server_says_how_to_configure_one() {
    let w = Ws::new();
    let dir = w.dir("p-restock");
    let before = tree(&dir);
    let o = w.act(&dir, &["requirement", "补货单导出 Excel"], &[]);
    assert_eq!(code(&o), 1);
    assert!(
        err(&o).contains("[devloop]") && err(&o).contains("api = "),
        "{}",
        err(&o)
    );
    let o = w.act(&dir, &["requirement", "  "], &[]);
    assert_eq!(code(&o), 1);
    assert!(err(&o).contains("empty"), "{}", err(&o));
    assert_eq!(tree(&dir), before);
}

#[test]
fn dry_run_readonly_and_expect_sha256_guard_every_devloop_write() {
    let w = Ws::new();
    let dir = w.dir("p-restock");
    let before = tree(&dir);
    let cases: [&[&str]; 3] = [
        &["bug", OPEN_BUG, "fixing"],
        &["resume-agent", "integrator", "restart"],
        &["abandon"],
    ];
    for args in cases {
        let o = w.act(&dir, args, &["--dry-run"]);
        assert_eq!(code(&o), 0, "{args:?}: {}", err(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains("dry run"));
        assert_eq!(tree(&dir), before, "{args:?} --dry-run wrote");

        let o = w.act(&dir, args, &["--readonly"]);
        assert_eq!(code(&o), 1, "{args:?}");
        assert!(err(&o).contains("read-only"), "{}", err(&o));
        assert_eq!(tree(&dir), before, "{args:?} --readonly wrote");

        let o = w.act(&dir, args, &["--expect-sha256", &"0".repeat(64)]);
        assert_eq!(code(&o), 3, "{args:?}: {}", err(&o));
        assert!(err(&o).contains("changed on disk"), "{}", err(&o));
        assert_eq!(tree(&dir), before, "{args:?} CAS conflict wrote");
    }
    // The right sha256 of the primary file lets it through.
    let sum = sha(&fs::read(dir.join("bugs.ndjson")).unwrap());
    let o = w.act(
        &dir,
        &["bug", OPEN_BUG, "fixing"],
        &["--expect-sha256", &sum],
    );
    assert_eq!(code(&o), 0, "{}", err(&o));
}

#[test]
fn json_names_the_decision_and_each_file_before_and_after() {
    let w = Ws::new();
    let dir = w.dir("p-restock");
    let bugs_before = fs::read(dir.join("bugs.ndjson")).unwrap();
    let o = w.act(
        &dir,
        &["bug", OPEN_BUG, "wontfix", "--note", "上游限制"],
        &["--json"],
    );
    assert_eq!(code(&o), 0, "{}", err(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["decision"]["verb"], "bug");
    assert_eq!(v["decision"]["status"], "wontfix");
    assert_eq!(v["by"], "yibo");
    // Files are listed in the order they were written: the primary
    // (bugs.ndjson) last, so a crash in between never records a transition
    // the timeline has not announced.
    let files: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, vec!["timeline.ndjson", "bugs.ndjson"]);
    assert_eq!(v["files"][1]["before"]["sha256"], sha(&bugs_before));
    assert_eq!(
        v["files"][1]["after"]["sha256"],
        sha(&fs::read(dir.join("bugs.ndjson")).unwrap())
    );
}

#[path = "devloop_act/server.rs"]
mod server;

#[path = "devloop_act/concurrent.rs"]
mod concurrent;

#[path = "devloop_act/pause.rs"]
mod pause;

#[path = "devloop_act/undo.rs"]
mod undo;
