//! `[[escalate]]` rules through the binary (issue 20 §5): `inbox` and
//! `list` name the rules that fire and rank first what they raise, at the
//! `--now` given; `watch --json` sends the crossing when time alone makes
//! a rule fire, once; a mistake in a rule is a usage error at its line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::Path;
use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use common::feed::{Feed, command, is, started};
use serde_json::Value;

const RULES: &str = r#"
[[escalate]]
name = "stuck questions"
kind = ["question", "evidence"]
waited = "2d"
colour = "red"

[[escalate]]
name = "devloop"
format = "devloop"
project = "p-ship*"
first = false
"#;

fn config(dir: &Path, text: &str) -> String {
    let file = dir.join("config.toml");
    fs::write(&file, text).unwrap();
    file.display().to_string()
}

fn run(args: &[&str], now: &str) -> (String, String, i32) {
    let out = common::loopdeck()
        .args(args)
        .args(["--now", now])
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap(),
    )
}

fn items(v: &Value) -> Vec<(String, String, Vec<String>)> {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let by = i["escalated_by"]
                .as_array()
                .map(|a| a.iter().map(|r| r.as_str().unwrap().to_owned()).collect())
                .unwrap_or_default();
            (
                i["project"].as_str().unwrap().to_owned(),
                i["ref"].as_str().unwrap().to_owned(),
                by,
            )
        })
        .collect()
}

/// At `--now` past two days of waiting, the PRD questions and evidence
/// lead the inbox, each naming its rule; before it, the order is oldest
/// first with no rule. The devloop rule marks p-shipped's items without
/// moving them. `list` names the rules per project; the plain tables say
/// them too.
#[test]
fn inbox_and_list_name_the_rules_and_rank_first_what_they_raise() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    common::copy_dir(&common::repo().join("examples/workspace"), &root);
    let cfg = config(tmp.path(), RULES);
    let (state, _) = common::state_dir(tmp.path());
    let root_s = root.display().to_string();
    let inbox = |now: &str| -> Value {
        let out = common::loopdeck()
            .env("XDG_STATE_HOME", &state)
            .args(["--config", &cfg, "inbox", &root_s, "--json", "--now", now])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // The first reading: PRD items wait from now (first seen).
    let first = inbox(common::NOW);
    let before = items(&first);
    let prd = |rows: &[(String, String, Vec<String>)]| -> Vec<usize> {
        rows.iter()
            .enumerate()
            .filter(|(_, r)| r.0.starts_with("prd-master/") && r.1.starts_with("OQ-"))
            .map(|(i, _)| i)
            .collect()
    };
    let prd_before = prd(&before);
    assert!(prd_before.len() >= 6, "{before:?}");
    assert!(
        before
            .iter()
            .filter(|r| r.0.starts_with("prd-master/"))
            .all(|r| r.2.is_empty()),
        "nothing has waited two days yet: {before:?}"
    );
    // p-shipped's items are raised by the devloop rule at once, in place.
    let shipped: Vec<&(String, String, Vec<String>)> = before
        .iter()
        .filter(|r| r.0.ends_with("p-shipped"))
        .collect();
    assert_eq!(shipped.len(), 2, "{before:?}");
    assert!(shipped.iter().all(|r| r.2 == ["devloop"]));
    // Two days and a second later, the questions and evidence lead.
    let later = inbox("2026-06-03T12:00:01Z");
    let after = items(&later);
    let prd_after = prd(&after);
    assert_eq!(
        prd_after,
        (0..prd_before.len()).collect::<Vec<_>>(),
        "{after:?}"
    );
    for i in prd_after {
        assert_eq!(after[i].2, ["stuck questions"], "{:?}", after[i]);
    }
    // The choice (not a question) is not raised.
    assert!(
        after
            .iter()
            .filter(|r| r.1 == "next_action")
            .all(|r| r.2.is_empty())
    );
    // At exactly two days, not yet ("waited longer than").
    let exactly = items(&inbox("2026-06-03T12:00:00Z"));
    assert!(
        exactly
            .iter()
            .filter(|r| r.0.starts_with("prd-master/"))
            .all(|r| r.2.is_empty()),
        "{exactly:?}"
    );

    // `list --json`: the rules that fire on a project's items.
    let out = common::loopdeck()
        .env("XDG_STATE_HOME", &state)
        .args(["--config", &cfg, "list", &root_s, "--json", "--now"])
        .arg("2026-06-03T12:00:01Z")
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = |id: &str| {
        list["projects"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(
        row("prd-master/fba-smart-restock")["escalated_by"],
        serde_json::json!(["stuck questions"])
    );
    assert_eq!(
        row("devloop/data/companies/acme/projects/p-shipped")["escalated_by"],
        serde_json::json!(["devloop"])
    );
    assert!(row("gsd/paused-waiting").get("escalated_by").is_none());

    // The plain inbox and list say the rule, its threshold and the count.
    let out = common::loopdeck()
        .env("XDG_STATE_HOME", &state)
        .args(["--config", &cfg, "inbox", &root_s, "--now"])
        .arg("2026-06-03T12:00:01Z")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let first_line = text.lines().nth(1).unwrap();
    assert!(first_line.contains("prd-master/"), "{text}");
    assert!(
        first_line.ends_with("! escalated: stuck questions (> 2d)"),
        "{text}"
    );
    assert!(text.contains("! escalated: devloop"), "{text}");
    let n = later["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i.get("escalated_by").is_some())
        .count();
    assert!(
        text.contains(&format!("{n} of them escalated by a rule")),
        "{text}"
    );
    let out = common::loopdeck()
        .env("XDG_STATE_HOME", &state)
        .args(["--config", &cfg, "list", &root_s, "--now"])
        .arg("2026-06-03T12:00:01Z")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(
            |l| l.contains("fba-smart-restock") && l.contains("(! escalated: stuck questions)")
        ),
        "{text}"
    );
}

/// A mistake in a rule stops every command with exit 2, naming the file,
/// the line and what is expected; in Chinese too.
#[test]
fn a_mistake_in_a_rule_is_a_usage_error_at_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config(
        tmp.path(),
        "[[escalate]]\nname = \"late\"\nkind = \"question\"\nwaited = \"two days\"\n",
    );
    let ws = common::repo().join("examples/workspace");
    let ws = ws.to_str().unwrap();
    for cmd in ["list", "inbox", "watch"] {
        let (out, err, code) = run(&["--config", &cfg, cmd, ws], common::NOW);
        assert_eq!(code, 2, "{cmd}: {out}{err}");
        assert_eq!(
            err.trim(),
            format!(
                "loopdeck: config file {cfg}, line 4, column 10: `two days` is not a duration: write it as 90s, 40m, 2h, 2d or 1w"
            ),
            "{cmd}"
        );
    }
    let out = common::loopdeck()
        .env("LC_ALL", "zh_CN.UTF-8")
        .args(["--config", &cfg, "list", ws])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        format!(
            "loopdeck: 配置文件 {cfg}，第4行，第10列：`two days` 不是时长：请写成 90s、40m、2h、2d 或 1w"
        )
    );
}

/// `watch --json` under the real clock: a WAITING.json that has waited
/// just under the rule's 3 seconds is sent without `escalated_by` in the
/// snapshot; when the 3 seconds pass, with no file changed, the feed sends
/// the item (`inbox_changed`, `escalated_by`) and its project
/// (`project_changed`) once, and then nothing.
#[test]
fn watch_sends_the_moment_time_alone_makes_a_rule_fire_once() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let planning = root.join("alpha/.planning");
    fs::create_dir_all(&planning).unwrap();
    fs::write(
        planning.join("STATE.md"),
        "---\ngsd_state_version: 1.0\nstatus: paused\nlast_updated: \"2026-06-01T11:00:00.000Z\"\n---\n\n# Project State\n\n## Current Position\n\nPhase: 1 of 2 (Core)\nStatus: paused\n",
    )
    .unwrap();
    let since = Utc::now() - chrono::TimeDelta::milliseconds(1500);
    fs::write(
        planning.join("WAITING.json"),
        format!(
            r#"{{"status":"waiting","type":"decision","question":"Ship it?","options":["yes","no"],"since":"{}","phase":"1"}}"#,
            since.to_rfc3339_opts(SecondsFormat::Millis, true)
        ),
    )
    .unwrap();
    let cfg = config(
        tmp.path(),
        "[[escalate]]\nname = \"slow answer\"\nkind = \"waiting\"\nwaited = \"3s\"\n",
    );
    let mut cmd = command(&root);
    cmd.args(["--config", &cfg]);
    let mut feed = Feed::spawn(cmd);
    let snap = started(&mut feed);
    assert!(
        snap["projects"][0].get("escalated_by").is_none(),
        "not yet: {snap}"
    );
    let changed = feed.wait_for("the rule firing", |v| is(v, "inbox_changed"));
    assert_eq!(
        changed["item"]["escalated_by"],
        serde_json::json!(["slow answer"])
    );
    assert_eq!(changed["item"]["kind"], "waiting");
    let fired_at = chrono::DateTime::parse_from_rfc3339(changed["at"].as_str().unwrap()).unwrap();
    assert!(
        fired_at.with_timezone(&Utc) - since > chrono::TimeDelta::seconds(3),
        "not before its time: {changed}"
    );
    let project = feed.wait_for("the project row", |v| is(v, "project_changed"));
    assert_eq!(
        project["project"]["escalated_by"],
        serde_json::json!(["slow answer"])
    );
    feed.quiet(Duration::from_secs(2));
}
