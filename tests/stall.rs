//! Stall detection through the binary (issue 20 §5): work whose files say
//! it runs while they have been silent past the limit shows `stalled` in
//! `list`, `show` and `watch --json`, by each format's own rule and the
//! config's `[stall]`; a bad `[stall]` value is a usage error naming the
//! file, the line and why. Temp projects, `--now` fixed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::time::Duration;

use common::feed::{Feed, command, is, started};
use common::{NOW, loopdeck, write};
use serde_json::{Value, json};

/// `NOW` in unix seconds.
const NOW_TS: i64 = 1_780_315_200;

/// `NOW` minus `minutes`, as RFC 3339.
fn ago(minutes: i64) -> String {
    chrono::DateTime::from_timestamp(NOW_TS - minutes * 60, 0)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// `list --json` over `root` (with `config`, if any): every row by id.
fn rows(root: &Path, config: Option<&Path>) -> Vec<Value> {
    let mut c = loopdeck();
    c.args(["list", "--json", "--now", NOW]).arg(root);
    if let Some(cfg) = config {
        c.arg("--config").arg(cfg);
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["projects"].as_array().unwrap().clone()
}

/// The `stalled` of the row of project `name` (its id's first or last part).
fn stalled(rows: &[Value], name: &str) -> Value {
    let named = |id: &str| id.ends_with(name) || id.starts_with(&format!("{name}/"));
    rows.iter()
        .find(|r| named(r["id"].as_str().unwrap()))
        .unwrap_or_else(|| panic!("no {name} in {rows:#?}"))["stalled"]
        .clone()
}

/// A devloop project `pid` under `root` with `project` (project.json's
/// extra fields), agent states and timeline lines.
fn devloop(root: &Path, pid: &str, project: &str, agents: &[(&str, &str)], timeline: &[String]) {
    let dir = root.join(format!("data/companies/acme/projects/{pid}"));
    write(
        &dir.join("project.json"),
        format!(
            r#"{{"id":"{pid}","company_id":"acme","name":"{pid}","status":"running","updated_at":"{}"{project}}}"#,
            ago(120)
        ),
    );
    for (name, state) in agents {
        write(&dir.join(format!("agent-state/{name}.json")), state);
    }
    let mut log = String::new();
    for line in timeline {
        log.push_str(line);
        log.push('\n');
    }
    write(&dir.join("timeline.ndjson"), log);
}

/// An agent state `status` last written `minutes` ago.
fn agent(name: &str, status: &str, minutes: i64) -> String {
    format!(
        r#"{{"agent":"{name}","status":"{status}","call_id":"c-1","current_step":1,"total_steps":4,"started_at":"{}","updated_at":"{}"}}"#,
        ago(minutes + 5),
        ago(minutes)
    )
}

/// A timeline event by `source`, `minutes` ago.
fn event(source: &str, minutes: i64) -> String {
    format!(
        r#"{{"ts":{},"source":"{source}","kind":"note","summary":"x"}}"#,
        NOW_TS - minutes * 60
    )
}

#[test]
fn a_devloop_agent_running_silent_past_its_wallclock_is_stalled() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    // The coder's state and its own events are 40 minutes old; the
    // project itself moved a minute ago (a system event).
    devloop(
        root,
        "p-coder",
        "",
        &[
            ("coder", &agent("coder", "running", 40)),
            ("tester", &agent("tester", "done", 300)),
        ],
        &[event("coder", 40), event("system", 1)],
    );
    // Its own event 5 minutes ago is a sign of life.
    devloop(
        root,
        "p-alive",
        "",
        &[("coder", &agent("coder", "running", 40))],
        &[event("coder", 5)],
    );
    // The pm writes as `pm-agent` in the timeline (seed 003).
    devloop(
        root,
        "p-pm",
        "",
        &[("pm", &agent("pm", "running", 40))],
        &[event("pm-agent", 3)],
    );
    // The integrator's L2 run has 5 minutes (integrator_wallclock_ms).
    devloop(
        root,
        "p-l2",
        "",
        &[("integrator", &agent("integrator", "running", 7))],
        &[],
    );
    // A project that gives its agents an hour is not stalled at 40m.
    devloop(
        root,
        "p-slow",
        r#","agent_wallclock_ms":3600000"#,
        &[("coder", &agent("coder", "running", 40))],
        &[],
    );
    let rows = rows(root, None);
    assert_eq!(
        stalled(&rows, "p-coder"),
        json!({"agent": "coder", "since": ago(40), "silent_seconds": 2400, "limit_seconds": 600})
    );
    assert_eq!(stalled(&rows, "p-alive"), Value::Null);
    assert_eq!(stalled(&rows, "p-pm"), Value::Null);
    assert_eq!(stalled(&rows, "p-l2")["limit_seconds"], 300);
    assert_eq!(stalled(&rows, "p-l2")["agent"], "integrator");
    assert_eq!(stalled(&rows, "p-slow"), Value::Null);

    // `show --json` lists every stall; the plain views say it in words.
    let dir = root.join("data/companies/acme/projects/p-coder");
    let show: Value = serde_json::from_slice(
        &loopdeck()
            .args(["show", "--json", "--now", NOW])
            .arg(&dir)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(show["stalls"].as_array().unwrap().len(), 1);
    assert_eq!(show["stalls"][0]["agent"], "coder");
    assert_eq!(show["project"]["stalled"]["silent_seconds"], 2400);
    let plain = loopdeck()
        .args(["show", "--now", NOW])
        .arg(&dir)
        .output()
        .unwrap();
    let plain = String::from_utf8(plain.stdout).unwrap();
    assert!(
        plain.contains(
            "stalled: coder says it runs; its files silent for 40m (since 06-01 11:20, limit 10m)"
        ),
        "{plain}"
    );
    let list = loopdeck()
        .args(["list", "--now", NOW])
        .arg(root)
        .output()
        .unwrap();
    let list = String::from_utf8(list.stdout).unwrap();
    let line = list.lines().find(|l| l.contains("p-coder")).unwrap();
    assert!(line.contains("running · stalled 40m"), "{list}");
    let line = list.lines().find(|l| l.contains("p-alive")).unwrap();
    assert!(!line.contains("stalled"), "{list}");
}

#[test]
fn a_devloop_project_running_with_no_agent_at_work_stalls_on_its_own_silence() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    // Nothing runs and the last event is 40 minutes old: the loop stopped.
    devloop(root, "p-quiet", "", &[], &[event("system", 40)]);
    // A paused agent waits for a resume decision: not a stall.
    let paused = r#"{"agent":"coder","status":"paused","resume_token":"t","call_id":"c","current_step":0,"total_steps":2}"#;
    devloop(
        root,
        "p-paused",
        "",
        &[("coder", paused)],
        &[event("system", 40)],
    );
    // Recent enough.
    devloop(root, "p-busy", "", &[], &[event("system", 3)]);
    let rows = rows(root, None);
    assert_eq!(
        stalled(&rows, "p-quiet"),
        json!({"agent": null, "since": ago(40), "silent_seconds": 2400, "limit_seconds": 600})
    );
    assert_eq!(stalled(&rows, "p-paused"), Value::Null);
    assert_eq!(stalled(&rows, "p-busy"), Value::Null);
}

/// A GSD STATE.md with `frontmatter` lines, last updated `minutes` ago.
fn gsd(root: &Path, name: &str, frontmatter: &str, minutes: i64) {
    write(
        &root.join(format!("{name}/.planning/STATE.md")),
        format!(
            "---\ngsd_state_version: '1.0'\n{frontmatter}\nlast_updated: \"{}\"\n---\n\n# State\n",
            ago(minutes)
        ),
    );
}

#[test]
fn gsd_executing_silent_for_two_hours_is_stalled_but_idle_or_waiting_is_not() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    gsd(
        root,
        "exec-3h",
        "status: executing\nactive_phase: \"2\"",
        180,
    );
    gsd(root, "exec-1h", "status: executing", 60);
    // `Ready to execute` is normalised to executing, but it is idle.
    gsd(root, "ready", "status: Ready to execute", 180);
    // A recommended next action: the orchestrator is idle (seed 001).
    gsd(
        root,
        "next",
        "status: executing\nnext_action: execute-phase\nnext_phases: [\"3\"]",
        180,
    );
    // An agent waiting for a human is not silent on its own account.
    gsd(root, "waiting", "status: executing", 180);
    write(
        &root.join("waiting/.planning/WAITING.json"),
        r#"{"status":"waiting","type":"decision","question":"A or B?","options":["A","B"]}"#,
    );
    gsd(root, "planning", "status: planning", 600);
    let rows = rows(root, None);
    assert_eq!(
        stalled(&rows, "exec-3h"),
        json!({"agent": null, "since": ago(180), "silent_seconds": 10800, "limit_seconds": 7200})
    );
    for quiet in ["exec-1h", "ready", "next", "waiting", "planning"] {
        assert_eq!(stalled(&rows, quiet), Value::Null, "{quiet}");
    }
}

/// A DWP plan with one task `task_status`, its state written `minutes` ago.
fn dwp(root: &Path, name: &str, task_status: &str, minutes: i64) {
    let plan = root.join(format!("{name}/.dwp/plans/PLAN_x"));
    write(
        &plan.join("state.json"),
        format!(
            r##"{{"schema":"https://deepworkplan.com/schema/plan-state/v2.json","plan":"PLAN_x","updated_at":"{at}","status":"in_progress","approval":"approved","tasks":[{{"id":1,"locator":{{"kind":"inline","value":"#task-1"}},"title":"Do it","status":"{task_status}","started_at":"{at}","gates":[]}}],"blocked":null}}"##,
            at = ago(minutes)
        ),
    );
    write(
        &plan.join("README.md"),
        "# Plan\n\nApproval: approved\n\n- [ ] Task 1: Do it\n",
    );
}

#[test]
fn a_dwp_task_in_progress_silent_for_two_hours_is_stalled() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    dwp(root, "late", "in_progress", 150);
    dwp(root, "fresh", "in_progress", 30);
    dwp(root, "waiting", "pending", 600);
    let rows = rows(root, None);
    assert_eq!(stalled(&rows, "late")["silent_seconds"], 9000);
    assert_eq!(stalled(&rows, "late")["limit_seconds"], 7200);
    assert_eq!(stalled(&rows, "fresh"), Value::Null);
    assert_eq!(stalled(&rows, "waiting"), Value::Null);
}

/// A PRD-master state whose agent researches OQ-1, updated `minutes` ago.
fn prd(root: &Path, minutes: i64) {
    write(
        &root.join("research/state.json"),
        format!(
            r#"{{"workflow_version":"0.6","state_schema_version":3,"current_stage":"1","last_updated_at_utc":"{}","open_questions":[{{"id":"OQ-1","title":"How fresh is the data?","kind":"fact","priority":"P1","depends_on":[],"owner":"agent","status":"researching"}}],"next_action":{{"type":"stage1_frontier","question_ids":[],"research_ids":["OQ-1"]}}}}"#,
            ago(minutes)
        ),
    );
}

#[test]
fn the_config_sets_each_formats_limit_or_turns_it_off() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    devloop(
        &root,
        "p-coder",
        "",
        &[("coder", &agent("coder", "running", 40))],
        &[],
    );
    gsd(&root, "exec", "status: executing", 40);
    prd(&root, 3 * 24 * 60);
    // By default: the coder past its 10 minutes; GSD within 2 hours; a
    // PRD-master agent's research has no limit of its own.
    let by_default = rows(&root, None);
    assert_eq!(stalled(&by_default, "p-coder")["silent_seconds"], 2400);
    assert_eq!(stalled(&by_default, "exec"), Value::Null);
    assert_eq!(stalled(&by_default, "research"), Value::Null);

    let cfg = tmp.path().join("config.toml");
    std::fs::write(
        &cfg,
        "[stall]\ndevloop = \"off\"\ngsd = \"30m\"\nprd-master = \"1d\"\n",
    )
    .unwrap();
    let set = rows(&root, Some(&cfg));
    assert_eq!(stalled(&set, "p-coder"), Value::Null);
    assert_eq!(stalled(&set, "exec")["limit_seconds"], 1800);
    assert_eq!(
        stalled(&set, "research"),
        json!({"agent": null, "since": ago(3 * 24 * 60), "silent_seconds": 259_200, "limit_seconds": 86_400})
    );
    // Combined units.
    std::fs::write(&cfg, "[stall]\ndevloop = \"1h30m\"\n").unwrap();
    let set = rows(&root, Some(&cfg));
    assert_eq!(stalled(&set, "p-coder"), Value::Null);
    std::fs::write(&cfg, "[stall]\ndevloop = \"39m59s\"\n").unwrap();
    let set = rows(&root, Some(&cfg));
    assert_eq!(stalled(&set, "p-coder")["limit_seconds"], 2399);
}

#[test]
fn a_bad_stall_value_is_a_usage_error_naming_the_file_line_and_why() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("bad.toml");
    let c = cfg.to_str().unwrap();
    let cases = [
        (
            "mouse = false\n[stall]\ngsd = \"2x\"\n",
            "line 3, column 7: \"2x\" is not a duration: write a number and a unit (\"40m\", \"2h\", \"1h30m\"; units s, m, h, d, w) or \"off\"",
        ),
        (
            "[stall]\ndevloop = 30\n",
            "line 2, column 11: 30 is not a duration",
        ),
        (
            "[stall]\ndwp = \"0m\"\n",
            "line 2, column 7: \"0m\" is not a duration",
        ),
        (
            "[stall]\ngsdd = \"1h\"\n",
            "line 2, column 1: unknown field `gsdd`",
        ),
    ];
    for (text, message) in cases {
        std::fs::write(&cfg, text).unwrap();
        for args in [vec!["list"], vec!["watch", "--json"]] {
            loopdeck()
                .args(&args)
                .args(["--config", c])
                .arg(tmp.path())
                .assert()
                .code(2)
                .stdout("")
                .stderr(predicates::str::contains(format!(
                    "loopdeck: config file {c}, {message}"
                )));
        }
    }
}

#[test]
fn watch_sends_a_row_again_when_its_stall_starts_with_no_file_written() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    // Real time: the coder wrote a second ago and may be silent for 8.
    let now = chrono::Utc::now();
    let at =
        (now - chrono::TimeDelta::seconds(1)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let dir = root.join("data/companies/acme/projects/p-live");
    write(
        &dir.join("project.json"),
        format!(r#"{{"id":"p-live","company_id":"acme","status":"running","updated_at":"{at}"}}"#),
    );
    write(
        &dir.join("agent-state/coder.json"),
        format!(
            r#"{{"agent":"coder","status":"running","call_id":"c","current_step":0,"total_steps":2,"started_at":"{at}","updated_at":"{at}"}}"#
        ),
    );
    let cfg = tmp.path().join("config.toml");
    std::fs::write(&cfg, "[stall]\ndevloop = \"8s\"\n").unwrap();
    let mut cmd = command(&root);
    cmd.arg("--config").arg(&cfg);
    let mut feed = Feed::spawn(cmd);
    let snap = started(&mut feed);
    assert_eq!(snap["projects"][0]["stalled"], Value::Null, "{snap}");
    // No file changes: the feed's timer sends the row when the stall starts.
    let line = feed.wait_for("the row stalled", |v| is(v, "project_changed"));
    let row = &line["project"];
    assert_eq!(row["stalled"]["agent"], "coder", "{line}");
    assert_eq!(row["stalled"]["limit_seconds"], 8);
    assert!(
        row["stalled"]["silent_seconds"].as_i64().unwrap() >= 9,
        "{line}"
    );
    // Once: a stall that goes on sends nothing more.
    feed.quiet(Duration::from_secs(3));
}
