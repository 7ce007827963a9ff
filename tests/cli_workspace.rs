//! The headless commands, run as a user runs them, on the example workspace.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use common::{NOW, json, loopdeck, workspace};
use serde_json::Value;

fn ids(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap().to_owned())
        .collect()
}

fn project<'a>(list: &'a Value, id: &str) -> &'a Value {
    list["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("{id} not listed"))
}

#[test]
fn list_finds_every_project_of_every_format_newest_first() {
    let (_t, ws) = workspace();
    let v = json(&["list", ws.to_str().unwrap()]);
    assert_eq!(v["schema_version"], 1);
    let listed: Vec<&str> = v["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    let mut expected: Vec<String> = Vec::new();
    for (dir, marker) in [("prd-master", None), ("gsd", Some(".planning/STATE.md"))] {
        for e in std::fs::read_dir(ws.join(dir)).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            let is_project = match marker {
                Some(m) => ws.join(dir).join(&name).join(m).is_file(),
                None => name != "not-a-project",
            };
            if is_project {
                expected.push(format!("{dir}/{name}"));
            }
        }
    }
    // DWP: every PLAN_* under a repository's .dwp/plans.
    for repo in std::fs::read_dir(ws.join("dwp")).unwrap() {
        let repo = repo.unwrap().file_name().into_string().unwrap();
        for plan in std::fs::read_dir(ws.join("dwp").join(&repo).join(".dwp/plans")).unwrap() {
            let plan = plan.unwrap().file_name().into_string().unwrap();
            expected.push(format!("dwp/{repo}/.dwp/plans/{plan}"));
        }
    }
    // devloop: every project directory of every company.
    for company in std::fs::read_dir(ws.join("devloop/data/companies")).unwrap() {
        let company = company.unwrap().file_name().into_string().unwrap();
        for project in std::fs::read_dir(
            ws.join("devloop/data/companies")
                .join(&company)
                .join("projects"),
        )
        .unwrap()
        {
            let project = project.unwrap().file_name().into_string().unwrap();
            expected.push(format!(
                "devloop/data/companies/{company}/projects/{project}"
            ));
        }
    }
    let mut sorted_listed: Vec<String> = listed.iter().map(|s| (*s).to_owned()).collect();
    sorted_listed.sort();
    expected.sort();
    assert_eq!(
        sorted_listed, expected,
        "an unrelated state.json is never a project"
    );

    let times: Vec<&str> = v["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["updated_at"].as_str().unwrap())
        .collect();
    let mut desc = times.clone();
    desc.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, desc, "newest update first");
    // The newest: devloop p-restock, whose last timeline event (11:58:25)
    // is later than its project.json (see the example README).
    assert_eq!(times[0], "2026-06-01T11:58:25Z");

    let fba = project(&v, "prd-master/fba-smart-restock");
    assert_eq!(fba["format"], "prd-master");
    assert_eq!(fba["updated_at"], "2026-06-01T11:30:00Z");
    assert_eq!(fba["age_seconds"], 1800);
    assert_eq!(fba["status"], "waiting");
    assert_eq!(fba["stage"], "1");
    assert_eq!(fba["needs_human"], 2);
    assert_eq!(fba["problems"], Value::Array(vec![]));
    let gsd = project(&v, "gsd/paused-waiting");
    assert_eq!(
        (
            gsd["format"].as_str(),
            gsd["status"].as_str(),
            gsd["progress_percent"].as_u64()
        ),
        (Some("gsd"), Some("paused"), Some(45))
    );
    assert_eq!(
        project(&v, "gsd/no-frontmatter")["updated_at"],
        "2026-05-30T08:20:00Z",
        "no frontmatter: its Last session line, whatever the mtime"
    );
    assert_eq!(
        project(&v, "prd-master/rebuilt-from-deliverables")["status"],
        "rebuilt"
    );
}

#[test]
fn show_gives_frontier_and_resume_card_per_scenario() {
    let (_t, ws) = workspace();
    let dir = |p: &str| ws.join("prd-master").join(p).to_string_lossy().into_owned();

    let v = json(&["show", &dir("fba-smart-restock")]);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(ids(&v["frontier"], "questions"), vec!["OQ-7"]);
    assert_eq!(ids(&v["frontier"], "research"), vec!["OQ-8", "OQ-10"]);
    assert_eq!(ids(&v["frontier"], "blocked"), vec!["OQ-9", "OQ-11"]);
    assert_eq!(
        v["frontier"]["blocked"][0]["waiting_on"],
        serde_json::json!(["OQ-8"])
    );
    assert_eq!(v["frontier"]["snapshot_stale"], false);
    assert_eq!(v["resume"]["scenario"], "A");
    assert_eq!(v["resume"]["since_seconds"], 1800);
    assert_eq!(
        v["resume"]["read_first"],
        serde_json::json!(["scene-anchor.md", "conversation.md"])
    );
    assert!(
        v["findings"].as_array().unwrap().is_empty(),
        "{}",
        v["findings"]
    );
    assert_eq!(v["statusline"], "fba-smart-restock · stage 1 · 2 waiting");

    let v = json(&["show", &dir("restock-v1-review")]);
    assert_eq!(v["resume"]["scenario"], "B");
    let choice = v["inbox"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "choice")
        .unwrap();
    assert_eq!(
        choice["options"],
        serde_json::json!(["接受 V1 走终稿", "继续吵一轮", "大方向调整"])
    );
    assert!(
        v["resume"]["read_first"]
            .as_array()
            .unwrap()
            .contains(&Value::from("proposal-v1.md"))
    );

    let v = json(&["show", &dir("stale-snapshot")]);
    assert_eq!(v["frontier"]["snapshot_stale"], true);
    assert_eq!(v["frontier"]["stale_ids"], serde_json::json!(["OQ-4"]));
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "prd.snapshot-stale")
    );

    let v = json(&["show", &dir("approval-flow-legacy")]);
    assert_eq!(v["resume"]["scenario"], "C");
    assert_eq!(v["project"]["stage"], "4.2", "old 3.2 maps to 4.2");
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "prd.legacy-state")
    );
    assert!(
        v["resume"]["waiting_for"]
            .as_str()
            .unwrap()
            .contains("价值论证")
    );
    let statuses: Vec<&str> = ["questions", "research", "blocked"]
        .iter()
        .flat_map(|k| {
            v["frontier"][k]
                .as_array()
                .unwrap()
                .iter()
                .map(|q| q["status"].as_str().unwrap())
        })
        .collect();
    assert_eq!(statuses.len(), 3);
    assert!(
        statuses
            .iter()
            .all(|s| *s == "pending_user" || *s == "pending_research")
    );

    let v = json(&["show", &dir("lint-synonyms")]);
    let synonyms: Vec<&Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "prd.fact-field-synonym")
        .collect();
    assert_eq!(synonyms.len(), 4);
    assert!(
        synonyms.iter().all(|f| f["ref"] == "OQ-4"),
        "OQ-5 is correct and never flagged"
    );

    let v = json(&["show", &dir("rebuilt-from-deliverables")]);
    assert_eq!(
        (
            v["project"]["status"].as_str(),
            v["project"]["stage"].as_str()
        ),
        (Some("rebuilt"), Some("5.3"))
    );
    let v = json(&["show", &dir("bugfix-rebuilt")]);
    assert_eq!(v["project"]["stage"], "1.5");
}

#[test]
fn show_of_a_directory_without_a_project_is_a_usage_error() {
    let (_t, ws) = workspace();
    loopdeck()
        .args([
            "show",
            ws.join("prd-master/not-a-project").to_str().unwrap(),
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("holds no project"));
    loopdeck()
        .args(["list", ws.join("nope").to_str().unwrap()])
        .assert()
        .code(2);
    loopdeck()
        .args(["list", "--now", "yesterday"])
        .assert()
        .code(2);
}

#[test]
fn inbox_lists_every_waiting_item_oldest_first() {
    let (_t, ws) = workspace();
    let v = json(&["inbox", ws.to_str().unwrap()]);
    let items = v["items"].as_array().unwrap();
    common::assert_oldest_first(items);
    let has = |project: &str, kind: &str, r: &str| {
        items
            .iter()
            .any(|i| i["project"] == project && i["kind"] == kind && i["ref"] == r)
    };
    assert!(has("prd-master/fba-smart-restock", "question", "OQ-7"));
    assert!(
        has("prd-master/fba-smart-restock", "evidence", "OQ-8"),
        "a fact a human role must bring"
    );
    assert!(
        !has("prd-master/fba-smart-restock", "evidence", "OQ-10"),
        "agent research is not for a human"
    );
    assert!(has("prd-master/restock-v1-review", "choice", "next_action"));
    assert!(has(
        "gsd/paused-waiting",
        "waiting",
        ".planning/WAITING.json"
    ));
    let waiting = items.iter().find(|i| i["kind"] == "waiting").unwrap();
    let file: Value = serde_json::from_slice(
        &std::fs::read(ws.join("gsd/paused-waiting/.planning/WAITING.json")).unwrap(),
    )
    .unwrap();
    let since = chrono::DateTime::parse_from_rfc3339(file["since"].as_str().unwrap()).unwrap();
    assert_eq!(
        waiting["since"],
        since
            .to_utc()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    );
    let total: u64 = json(&["list", ws.to_str().unwrap()])["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["needs_human"].as_u64().unwrap())
        .sum();
    assert_eq!(items.len() as u64, total, "inbox and list agree");
}

#[test]
fn status_prints_gsd_statusline_for_every_scene() {
    let (_t, ws) = workspace();
    for (project, line) in [
        (
            "scene1-active-phase",
            "v2.0 Code Quality [██░░░░░░░░] 20% · Phase 4.5 executing",
        ),
        (
            "scene2-next-action",
            "v2.1 Observability [████░░░░░░] 40% · next execute-phase 4.5",
        ),
        (
            "scene3-milestone-complete",
            "v1.0 [██████████] 100% · milestone complete",
        ),
        // CRLF: GSD's hook sees no frontmatter (`---\n` only), so neither
        // the milestone; its body line gives the rest.
        ("scene4-fallback", "planning · 数据层 (2/5)"),
        ("no-frontmatter", "executing · API 集成 (3/7)"),
        (
            "paused-waiting",
            "v0.3 审批流 [████░░░░░░] 45% · executing · 审批规则引擎 (3/6)",
        ),
        (
            "block-list-phases",
            "v3.0 Payments [███░░░░░░░] 30% · next plan-phase 7/7.1/8",
        ),
    ] {
        loopdeck()
            .args([
                "status",
                ws.join("gsd").join(project).to_str().unwrap(),
                "--now",
                NOW,
            ])
            .assert()
            .success()
            .stdout(format!("{line}\n"));
    }
}

#[test]
fn status_climbs_to_the_enclosing_project_and_roots_may_overlap() {
    let (_t, ws) = workspace();
    let sub = ws.join("gsd/scene1-active-phase/.planning");
    loopdeck()
        .args(["status", sub.to_str().unwrap()])
        .assert()
        .success()
        .stdout("v2.0 Code Quality [██░░░░░░░░] 20% · Phase 4.5 executing\n");
    let gsd = ws.join("gsd");
    let v = json(&[
        "list",
        gsd.to_str().unwrap(),
        ws.join("gsd/scene1-active-phase").to_str().unwrap(),
        gsd.to_str().unwrap(),
    ]);
    let paths: Vec<&str> = v["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    let mut unique = paths.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(paths.len(), unique.len(), "one row per project: {paths:?}");
    assert_eq!(
        paths.len(),
        json(&["list", gsd.to_str().unwrap()])["projects"]
            .as_array()
            .unwrap()
            .len()
    );
}

#[test]
fn plain_tables_align_cjk_and_carry_the_same_rows() {
    let (_t, ws) = workspace();
    let out = loopdeck()
        .args(["list", ws.to_str().unwrap(), "--now", NOW])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let header = lines[0];
    let name_col = unicode_width::UnicodeWidthStr::width(&header[..header.find("NAME").unwrap()]);
    for l in &lines[1..lines.len() - 1] {
        let id_start = ["gsd/", "prd-master/", "dwp/", "devloop/"]
            .iter()
            .filter_map(|p| l.find(p))
            .min()
            .unwrap();
        let before_id = unicode_width::UnicodeWidthStr::width(&l[..id_start]);
        assert_eq!(
            before_id,
            unicode_width::UnicodeWidthStr::width(&header[..header.find("ID").unwrap()]),
            "{l}"
        );
        // The NAME column starts at the same display column on every row,
        // although the STAGE column before it holds CJK text.
        let id_end = id_start + l[id_start..].find(' ').unwrap();
        let name_start = id_end + l[id_end..].find(|c: char| c != ' ').unwrap();
        assert_eq!(
            unicode_width::UnicodeWidthStr::width(&l[..name_start]),
            name_col,
            "{l}"
        );
    }
    assert_eq!(
        lines.last().unwrap(),
        &format!("{} projects", lines.len() - 2)
    );
    let show = loopdeck()
        .args([
            "show",
            ws.join("gsd/paused-waiting").to_str().unwrap(),
            "--now",
            NOW,
        ])
        .output()
        .unwrap();
    let show = String::from_utf8(show.stdout).unwrap();
    assert!(show.contains("Resume (scenario B)"));
    assert!(show.contains("超过 3 级的审批是否允许加签"));
}

/// `loopdeck ARGS --now NOW --json`, run in `cwd`, parsed (exit 0).
fn json_in(cwd: &std::path::Path, args: &[&str]) -> Value {
    let out = loopdeck()
        .current_dir(cwd)
        .args(args)
        .args(["--now", NOW, "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Each project `list` reports, with its path.
fn listed(v: &Value) -> Vec<(String, String)> {
    let rows = v["projects"].as_array().unwrap();
    assert!(rows.len() > 10, "{v}");
    rows.iter()
        .map(|p| {
            let s = |k: &str| p[k].as_str().unwrap().to_owned();
            (s("id"), s("path"))
        })
        .collect()
}

/// `show` names a project as `list` run from the same place does: from
/// the workspace as the current directory, by its path there, however
/// the directory is spelt (relative, absolute, through a link).
#[test]
fn show_gives_the_id_list_gives_from_the_current_directory() {
    let (t, ws) = workspace();
    let alias = t.path().join("alias");
    std::os::unix::fs::symlink(&ws, &alias).unwrap();
    let list = json_in(&ws, &["list"]);
    for (id, path) in listed(&list) {
        for spelt in [
            path.clone(),
            ws.join(&id).to_string_lossy().into_owned(),
            alias.join(&id).to_string_lossy().into_owned(),
        ] {
            let shown = json_in(&ws, &["show", &spelt]);
            assert_eq!(shown["project"]["id"], id, "show {spelt}");
        }
    }
}

/// With roots in the config, `list` and `show` run from elsewhere agree
/// too: the id is the path under the first configured root holding the
/// project (a root spelt through a link included).
#[test]
fn show_gives_the_id_list_gives_under_the_configured_roots() {
    let (t, ws) = workspace();
    let alias = t.path().join("alias");
    std::os::unix::fs::symlink(&ws, &alias).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let config = elsewhere.path().join("config.toml");
    // The GSD projects are under the first root, and under the second.
    let roots = [alias.join("gsd"), ws.clone()];
    std::fs::write(
        &config,
        format!(
            "roots = [{:?}, {:?}]\n",
            roots[0].to_str().unwrap(),
            roots[1].to_str().unwrap()
        ),
    )
    .unwrap();
    let c = config.to_str().unwrap();
    let list = json_in(elsewhere.path(), &["list", "--config", c]);
    let projects = listed(&list);
    assert!(projects.iter().any(|(id, _)| id == "paused-waiting"));
    assert!(
        projects
            .iter()
            .any(|(id, _)| id == "prd-master/lint-synonyms")
    );
    for (id, path) in projects {
        let shown = json_in(elsewhere.path(), &["show", &path, "--config", c]);
        assert_eq!(shown["project"]["id"], id, "show {path}");
    }
}

/// Scenario C quotes what was meant then: the words people and agents
/// wrote, never the machine's part of a file (a GSD frontmatter, a DWP
/// README's status lines, devloop's JSON and HTML markup).
#[test]
fn scenario_c_quotes_what_was_meant_not_the_machines_part() {
    let (_t, ws) = workspace();
    let show = |p: &str, now: &str| {
        let out = loopdeck()
            .args(["show", ws.join(p).to_str().unwrap(), "--now", now])
            .output()
            .unwrap();
        assert!(out.status.success(), "{p}");
        let text = String::from_utf8(out.stdout).unwrap();
        // From the advice to the next section: the quoted files.
        let from = text.find("back after").expect(p);
        let quoted = &text[from..];
        let end = quoted.find("\n\n").unwrap_or(quoted.len());
        quoted[..end].to_owned()
    };
    // GSD, back after 188 days: the body's Project Reference and Session
    // Continuity, not `gsd_state_version: 1.0`.
    let gsd = show("gsd/paused-waiting", "2026-12-06T12:00:00Z");
    assert!(gsd.contains("back after 188 days"), "{gsd}");
    assert!(gsd.contains("── .planning/STATE.md"), "{gsd}");
    for l in [
        "## Project Reference",
        "**Core value:** 差旅报销 5 个工作日内走完审批。",
        "**Current focus:** Phase 3 — 审批规则引擎",
        "## Session Continuity",
    ] {
        assert!(gsd.contains(&format!("     {l}\n")), "{l}: {gsd}");
    }
    for fm in [
        "gsd_state_version",
        "milestone:",
        "status: executing",
        "---",
    ] {
        assert!(!gsd.contains(fm), "{fm}: {gsd}");
    }
    // DWP: the README's Goal, not its status lines.
    let dwp = show(
        "dwp/shop-api/.dwp/plans/PLAN_checkout_refactor",
        "2026-12-06T12:00:00Z",
    );
    assert!(
        dwp.contains("## 1. Goal\n     把结账流程从散落的 if/else 重构为显式状态机"),
        "{dwp}"
    );
    for status in [
        "**Standard:**",
        "Plan Format",
        "Materialization",
        "Approval:",
    ] {
        assert!(!dwp.contains(status), "{status}: {dwp}");
    }
    // devloop: the PRD's and SDD's text; the failed run's JSON (read first
    // still) quotes nothing, and no markup is shown.
    let dev = show(
        "devloop/data/companies/acme/projects/p-restock",
        "2026-12-06T12:00:00Z",
    );
    assert!(dev.contains("── prd.html\n     FBA 智能补货"), "{dev}");
    for raw in ["result.json", "\"run_id\"", "{", "<", "TABLE sku"] {
        assert!(!dev.contains(raw), "{raw}: {dev}");
    }
}
