//! The Deep Work Plan reader, through the real binary: the example
//! workspace's plans (examples/workspace/dwp, every case its README
//! describes) and the real plans of tests/fixtures/dwp-real-world (copied
//! from shared/real-world/dwp: DWP's own skill test fixtures). Expected
//! values come from the files themselves or from the README's table.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use common::{NOW, json, loopdeck, repo, snapshot, workspace};
use serde_json::Value;

const CHECKOUT: &str = "shop-api/.dwp/plans/PLAN_checkout_refactor";
const SEARCH: &str = "shop-api/.dwp/plans/PLAN_search_index";
const OLD: &str = "legacy-v1/.dwp/plans/PLAN_old_plan";

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

/// RFC 3339 with a `Z`, as loopdeck prints times.
fn utc(raw: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(raw)
        .unwrap()
        .to_utc()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Every `PLAN_*` directory under `root/*/.dwp/plans/`, as ids relative to `root`.
fn plan_ids(root: &Path) -> Vec<String> {
    let mut ids = Vec::new();
    for repo in fs::read_dir(root).unwrap() {
        let repo = repo.unwrap().path();
        let plans = repo.join(".dwp/plans");
        if !plans.is_dir() {
            continue;
        }
        for plan in fs::read_dir(&plans).unwrap() {
            let plan = plan.unwrap().path();
            if plan
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("PLAN_")
            {
                ids.push(
                    plan.strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    ids.sort();
    ids
}

/// The README's task checkboxes (`- [x] Task N` / `- [ ] Task N`), outside
/// fenced blocks: task number → ticked.
fn readme_ticks(readme: &str) -> Vec<(u64, bool)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in readme.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for (mark, ticked) in [("- [x] Task ", true), ("- [ ] Task ", false)] {
            if let Some(rest) = t.strip_prefix(mark) {
                let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
                out.push((n.parse().unwrap(), ticked));
            }
        }
    }
    out
}

fn codes(show: &Value) -> Vec<String> {
    let mut c: Vec<String> = show["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect();
    c.sort();
    c
}

fn finding<'a>(show: &'a Value, code: &str) -> Vec<&'a Value> {
    show["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
        .collect()
}

fn inbox(show: &Value) -> Vec<(String, String)> {
    show["inbox"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["kind"].as_str().unwrap().to_owned(),
                i["ref"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// `show --json`'s tasks against the plan's own state.json: every task,
/// with its id, title and status, and `md_checked` from the README.
fn assert_tasks_match_files(show: &Value, dir: &Path, ticks: &[(u64, bool)]) {
    let state = read_json(&dir.join("state.json"));
    let want = state["tasks"].as_array().unwrap();
    let got = show["tasks"].as_array().unwrap();
    assert_eq!(got.len(), want.len(), "{}", dir.display());
    for (g, w) in got.iter().zip(want) {
        let id = w["id"].as_u64().unwrap();
        assert_eq!(g["id"], id.to_string());
        assert_eq!(g["title"], w["title"]);
        assert_eq!(g["status"], w["status"]);
        let tick = ticks.iter().find(|(n, _)| *n == id).map(|(_, t)| *t);
        assert_eq!(g["md_checked"], serde_json::json!(tick), "task {id}");
        let locator = w["locator"]["value"].as_str().or(w["file"].as_str());
        assert_eq!(g["locator"].as_str(), locator, "task {id}");
        assert_eq!(
            g["gates"].as_array().unwrap().len(),
            w["gates"].as_array().unwrap().len()
        );
    }
}

#[test]
fn the_example_plans_are_listed_with_their_state() {
    let (_t, ws) = workspace();
    let root = ws.join("dwp");
    let v = json(&["list", root.to_str().unwrap()]);
    let rows = v["projects"].as_array().unwrap();
    let mut listed: Vec<String> = rows
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect();
    listed.sort();
    assert_eq!(listed, plan_ids(&root), "one row per plan");
    let times: Vec<&str> = rows
        .iter()
        .map(|p| p["updated_at"].as_str().unwrap())
        .collect();
    let mut desc = times.clone();
    desc.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, desc, "newest update first");
    for p in rows {
        let id = p["id"].as_str().unwrap();
        let dir = root.join(id);
        let state = read_json(&dir.join("state.json"));
        let manifest = read_json(&dir.join("manifest.json"));
        assert_eq!(p["format"], "dwp");
        assert_eq!(p["name"], manifest["title"], "{id}");
        assert_eq!(
            p["updated_at"],
            utc(state["updated_at"].as_str().unwrap()),
            "{id}"
        );
        assert_eq!(p["problems"], serde_json::json!([]), "{id}");
    }
    let row = |id: &str| rows.iter().find(|p| p["id"] == id).unwrap();
    // README: the checkout plan waits for its blocker; the search plan for
    // its approval and a desync; the old plan for its finalization.
    assert_eq!(
        (
            row(CHECKOUT)["status"].as_str(),
            row(CHECKOUT)["needs_human"].as_u64()
        ),
        (Some("blocked"), Some(1))
    );
    assert_eq!(row(SEARCH)["needs_human"], 2);
    assert_eq!(row(OLD)["needs_human"], 1);
    // Progress: Markdown wins. Checkout: 1 of 4 ticked; old plan: 2 of 3;
    // search: the README ticks tasks 1-3 of 4 (task 2 ahead of the state).
    for (id, ticked, total) in [(CHECKOUT, 1, 4), (OLD, 2, 3), (SEARCH, 3, 4)] {
        let readme = fs::read_to_string(root.join(id).join("README.md")).unwrap();
        let ticks = readme_ticks(&readme);
        assert_eq!(
            (ticks.iter().filter(|t| t.1).count(), ticks.len()),
            (ticked, total),
            "{id}"
        );
        assert_eq!(row(id)["progress_percent"], ticked * 100 / total, "{id}");
    }
}

#[test]
fn a_blocked_plan_shows_its_blocker_and_no_other_finding() {
    let (_t, ws) = workspace();
    let dir = ws.join("dwp").join(CHECKOUT);
    let v = json(&["show", dir.to_str().unwrap()]);
    let readme = fs::read_to_string(dir.join("README.md")).unwrap();
    assert_tasks_match_files(&v, &dir, &readme_ticks(&readme));
    // README: the failing gate of the blocked task is not a finding; the
    // checkboxes agree with the state.
    assert_eq!(codes(&v), Vec::<String>::new(), "{}", v["findings"]);
    let state = read_json(&dir.join("state.json"));
    let blocked = &state["blocked"];
    assert_eq!(inbox(&v), vec![("blocked".to_owned(), "task 2".to_owned())]);
    let item = &v["inbox"][0];
    let title = item["title"].as_str().unwrap();
    assert!(
        title.contains(blocked["reason"].as_str().unwrap()),
        "{title}"
    );
    assert!(
        title.contains(blocked["needs"].as_str().unwrap()),
        "{title}"
    );
    assert_eq!(item["since"], utc(blocked["since"].as_str().unwrap()));
    let resume = &v["resume"];
    assert_eq!(resume["reason"], blocked["reason"]);
    assert_eq!(resume["waiting_for"], blocked["needs"]);
    let step = state["checkpoint"]["step"].as_str().unwrap();
    assert!(
        resume["stopped_at"].as_str().unwrap().contains(step),
        "{}",
        resume["stopped_at"]
    );
    assert_eq!(
        resume["read_first"],
        serde_json::json!([
            "README.md",
            "PROGRESS.md",
            state["tasks"][1]["locator"]["value"]
        ])
    );
    assert_eq!(v["checkpoint"]["task"], "2");
    assert_eq!(
        v["statusline"],
        "PLAN_checkout_refactor · 1/4 tasks · blocked on task 2"
    );
    let gate = &v["tasks"][0]["gates"][0];
    assert_eq!(gate["evidence"], state["tasks"][0]["gates"][0]["evidence"]);
    assert_eq!(gate["passes"], true);
    assert_eq!(
        v["tasks"][0]["outcome"]["worked"],
        state["tasks"][0]["outcome"]["worked"]
    );
}

#[test]
fn desync_evidence_and_approval_findings_of_the_search_plan() {
    let (_t, ws) = workspace();
    let dir = ws.join("dwp").join(SEARCH);
    let v = json(&["show", dir.to_str().unwrap()]);
    let readme = fs::read_to_string(dir.join("README.md")).unwrap();
    let ticks = readme_ticks(&readme);
    assert_eq!(ticks.len(), 4, "the fenced example lines are not counted");
    assert_tasks_match_files(&v, &dir, &ticks);
    // Besides its desync and evidence, DWP's verifier fails this example's
    // folder (no PROMPTS.md, no analysis_results/), its missing Plan Status
    // count, and task records without Goal, Touched Surface, Acceptance
    // Criteria (and Context for unfinished tasks) or a Final Review last.
    let mut distinct = codes(&v);
    distinct.dedup();
    assert_eq!(
        distinct,
        vec![
            "dwp.approval-pending",
            "dwp.completed-with-failing-gate",
            "dwp.desync",
            "dwp.final-task-shape",
            "dwp.folder-incomplete",
            "dwp.gate-never-ran",
            "dwp.plan-status-count",
            "dwp.task-record-field",
        ],
        "{}",
        v["findings"]
    );
    assert_eq!(finding(&v, "dwp.task-record-field").len(), 14);
    let desync = finding(&v, "dwp.desync");
    assert_eq!(desync[0]["level"], "error");
    assert_eq!(
        desync[0]["ref"], "task 2",
        "only task 2; never the fenced 4 and 1"
    );
    let msg = desync[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("README ticks task 2 but state.json says in_progress"),
        "{msg}"
    );
    let never = finding(&v, "dwp.gate-never-ran");
    assert_eq!(
        (never[0]["ref"].as_str(), never[0]["level"].as_str()),
        (Some("task 1"), Some("error"))
    );
    let failing = finding(&v, "dwp.completed-with-failing-gate");
    assert_eq!(failing[0]["ref"], "task 3");
    assert!(failing[0]["message"].as_str().unwrap().contains("clippy"));
    assert_eq!(finding(&v, "dwp.approval-pending")[0]["level"], "warning");
    assert_eq!(
        inbox(&v),
        vec![
            ("approval".to_owned(), "approval".to_owned()),
            ("desync".to_owned(), "README.md".to_owned())
        ]
    );
    assert_eq!(v["tasks"][1]["md_checked"], true);
    assert_eq!(v["tasks"][1]["status"], "in_progress");
}

#[test]
fn an_interrupted_finalization_of_a_v1_plan_is_read_never_rewritten() {
    let (_t, ws) = workspace();
    let dir = ws.join("dwp").join(OLD);
    let before = snapshot(&dir);
    let v = json(&["show", dir.to_str().unwrap()]);
    let readme = fs::read_to_string(dir.join("README.md")).unwrap();
    assert_tasks_match_files(&v, &dir, &readme_ticks(&readme));
    assert!(dir.join(".finalizing.json").is_file());
    assert!(!dir.join("analysis_results/FINALIZATION.json").exists());
    let state = read_json(&dir.join("state.json"));
    let mut want = vec!["dwp.finalization-interrupted".to_owned()];
    for t in state["tasks"].as_array().unwrap() {
        if !dir.join(t["file"].as_str().unwrap()).is_file() {
            want.push("dwp.task-file-missing".to_owned());
        }
    }
    want.sort();
    // README: `Approval: approved`, so no pending approval.
    assert_eq!(codes(&v), want, "{}", v["findings"]);
    let msg = finding(&v, "dwp.finalization-interrupted")[0]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        msg.contains("unchanged since the finalizer started"),
        "{msg}"
    );
    assert!(
        msg.contains("no analysis_results/FINALIZATION.json receipt"),
        "{msg}"
    );
    assert_eq!(
        inbox(&v),
        vec![("finalization".to_owned(), ".finalizing.json".to_owned())]
    );
    let marker = read_json(&dir.join(".finalizing.json"));
    assert_eq!(
        v["inbox"][0]["since"],
        utc(marker["started_at"].as_str().unwrap())
    );
    assert_eq!(v["tasks"][2]["status"], "in_progress");
    assert_eq!(before, snapshot(&dir), "nothing written");
    let status = loopdeck()
        .args(["status", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(status.stdout).unwrap(),
        "PLAN_old_plan · 2/3 tasks · finalization interrupted\n"
    );
}

#[test]
fn the_inbox_gathers_every_plan_waiting_for_a_human() {
    let (_t, ws) = workspace();
    let root = ws.join("dwp");
    let v = json(&["inbox", root.to_str().unwrap()]);
    let items = v["items"].as_array().unwrap();
    let got: BTreeSet<(String, String, String)> = items
        .iter()
        .map(|i| {
            (
                i["project"].as_str().unwrap().to_owned(),
                i["kind"].as_str().unwrap().to_owned(),
                i["ref"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want: BTreeSet<(String, String, String)> = [
        (CHECKOUT, "blocked", "task 2"),
        (SEARCH, "approval", "approval"),
        (SEARCH, "desync", "README.md"),
        (OLD, "finalization", ".finalizing.json"),
    ]
    .into_iter()
    .map(|(a, b, c)| (a.to_owned(), b.to_owned(), c.to_owned()))
    .collect();
    assert_eq!(got, want);
    common::assert_oldest_first(items);
    let approval = items.iter().find(|i| i["kind"] == "approval").unwrap();
    let manifest = read_json(&root.join(SEARCH).join("manifest.json"));
    assert_eq!(
        approval["since"],
        utc(manifest["created_at"].as_str().unwrap()),
        "pending since the plan was created"
    );
    assert!(items.iter().all(|i| i["format"] == "dwp"));
}

#[test]
fn a_plan_directory_reads_alone_and_its_repository_lists_every_plan() {
    let (_t, ws) = workspace();
    let repo_dir = ws.join("dwp/shop-api");
    let v = json(&["list", repo_dir.to_str().unwrap()]);
    assert_eq!(v["projects"].as_array().unwrap().len(), 2);
    // From inside the plan directory itself.
    let v = json(&[
        "list",
        repo_dir
            .join(".dwp/plans/PLAN_search_index")
            .to_str()
            .unwrap(),
    ]);
    let rows = v["projects"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["id"], ".");
    // A PLAN_ directory outside `.dwp/plans` is a plan too (its JSON says so).
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(
        &repo_dir.join(".dwp/plans/PLAN_search_index"),
        &tmp.path().join("PLAN_search_index"),
    );
    let v = json(&[
        "show",
        tmp.path().join("PLAN_search_index").to_str().unwrap(),
    ]);
    assert_eq!(v["project"]["format"], "dwp");
}

/// The real fixtures copied bare (`<fixture>/PLAN_*`, as DWP's own
/// repository lays them out, without `.dwp/plans`).
fn real_world_bare() -> (tempfile::TempDir, PathBuf, Vec<(String, PathBuf)>) {
    let src = repo().join("tests/fixtures/dwp-real-world");
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("bare");
    common::copy_dir(&src, &root);
    let mut plans = Vec::new();
    for fixture in fs::read_dir(&src).unwrap() {
        let fixture = fixture.unwrap().path();
        for plan in fs::read_dir(&fixture).unwrap() {
            let plan = plan.unwrap().path();
            let name = plan.file_name().unwrap().to_str().unwrap().to_owned();
            if plan.is_dir() && name.starts_with("PLAN_") {
                let fixture_name = fixture.file_name().unwrap().to_str().unwrap();
                plans.push((format!("{fixture_name}/{name}"), plan));
            }
        }
    }
    plans.sort();
    (tmp, root, plans)
}

#[test]
fn show_and_list_accept_a_bare_plan_directory() {
    let (_t, root, plans) = real_world_bare();
    assert_eq!(plans.len(), 4, "the four published fixtures");
    let v = json(&["list", root.to_str().unwrap()]);
    let mut listed: Vec<&str> = v["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    listed.sort_unstable();
    let want: Vec<&str> = plans.iter().map(|(rel, _)| rel.as_str()).collect();
    assert_eq!(listed, want);
    for (rel, src) in &plans {
        let dir = root.join(rel);
        let state = read_json(&src.join("state.json"));
        let v = json(&["show", dir.to_str().unwrap()]);
        assert_eq!(v["project"]["format"], "dwp", "{rel}");
        // `show` names the project by its directory, never ".".
        let name = dir.file_name().unwrap().to_str().unwrap();
        assert_eq!(v["project"]["id"], name, "{rel}");
        assert_eq!(
            v["tasks"].as_array().unwrap().len(),
            state["tasks"].as_array().unwrap().len(),
            "{rel}"
        );
        let v = json(&["list", dir.to_str().unwrap()]);
        assert_eq!(v["projects"].as_array().unwrap().len(), 1, "{rel}");
        loopdeck()
            .args(["status", dir.to_str().unwrap()])
            .assert()
            .success()
            .stdout(predicates::str::starts_with(
                src.file_name().unwrap().to_str().unwrap(),
            ));
    }
    // A bare PLAN_ directory whose JSON does not say DWP is not a plan.
    let other = root.join("PLAN_other");
    fs::create_dir_all(&other).unwrap();
    fs::write(other.join("state.json"), r#"{"name": "something else"}"#).unwrap();
    fs::write(other.join("README.md"), "# notes\n").unwrap();
    loopdeck()
        .args(["show", other.to_str().unwrap(), "--now", NOW])
        .assert()
        .code(2);
    let v = json(&["list", root.to_str().unwrap()]);
    assert_eq!(v["projects"].as_array().unwrap().len(), 4);
}

/// The real manifests and states satisfy the manifest's required fields,
/// enums and format rule: none of those findings on any fixture.
#[test]
fn every_real_manifest_meets_its_schema() {
    let (_t, root, plans) = real_world_bare();
    for (rel, _) in &plans {
        let v = json(&["show", root.join(rel).to_str().unwrap()]);
        for code in [
            "dwp.manifest-required",
            "dwp.manifest-enum",
            "dwp.format-mismatch",
            "dwp.format-unknown",
        ] {
            assert!(finding(&v, code).is_empty(), "{rel}: {}", v["findings"]);
        }
    }
    // The same Lite fixture with its manifest made invalid.
    let lite = root.join(
        &plans
            .iter()
            .find(|(r, _)| r.ends_with("PLAN_lite_fixture"))
            .unwrap()
            .0,
    );
    let mut m = read_json(&lite.join("manifest.json"));
    let o = m.as_object_mut().unwrap();
    o.remove("rigor");
    o.insert("archetype".into(), "team".into());
    o.insert("plan_format".into(), "full".into());
    fs::write(lite.join("manifest.json"), m.to_string()).unwrap();
    let out = loopdeck()
        .args(["check", lite.to_str().unwrap(), "--now", NOW, "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "errors make check fail");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = v.to_string();
    for code in [
        "dwp.manifest-required",
        "dwp.manifest-enum",
        "dwp.format-mismatch",
    ] {
        assert!(text.contains(code), "{code}: {text}");
    }
}

/// Install every real plan as `<fixture>/.dwp/plans/<PLAN>/` under a temp root.
fn real_world() -> (tempfile::TempDir, PathBuf, Vec<(String, PathBuf)>) {
    let src = repo().join("tests/fixtures/dwp-real-world");
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("real");
    let mut plans = Vec::new();
    for fixture in fs::read_dir(&src).unwrap() {
        let fixture = fixture.unwrap().path();
        for plan in fs::read_dir(&fixture).unwrap() {
            let plan = plan.unwrap().path();
            let name = plan.file_name().unwrap().to_str().unwrap().to_owned();
            if !plan.is_dir() || !name.starts_with("PLAN_") {
                continue;
            }
            let fixture_name = fixture.file_name().unwrap().to_str().unwrap().to_owned();
            let rel = format!("{fixture_name}/.dwp/plans/{name}");
            common::copy_dir(&plan, &root.join(&rel));
            plans.push((rel, plan));
        }
    }
    plans.sort();
    (tmp, root, plans)
}

#[test]
fn every_real_plan_reads_with_all_its_tasks_and_no_problem() {
    let (_t, root, plans) = real_world();
    assert_eq!(plans.len(), 4, "the four published fixtures");
    let v = json(&["list", root.to_str().unwrap()]);
    let rows = v["projects"].as_array().unwrap();
    let mut listed: Vec<&str> = rows.iter().map(|p| p["id"].as_str().unwrap()).collect();
    listed.sort_unstable();
    let want: Vec<&str> = plans.iter().map(|(rel, _)| rel.as_str()).collect();
    assert_eq!(listed, want);
    for (rel, src) in &plans {
        let row = rows.iter().find(|p| p["id"] == rel.as_str()).unwrap();
        assert_eq!(row["format"], "dwp");
        assert_eq!(row["problems"], serde_json::json!([]), "{rel}");
        let state = read_json(&src.join("state.json"));
        assert_eq!(
            row["updated_at"],
            utc(state["updated_at"].as_str().unwrap()),
            "{rel}"
        );
        let dir = root.join(rel);
        let v = json(&["show", dir.to_str().unwrap()]);
        let ticks = fs::read_to_string(src.join("README.md"))
            .map(|r| readme_ticks(&r))
            .unwrap_or_default();
        assert_tasks_match_files(&v, &dir, &ticks);
        assert!(
            finding(&v, "dwp.desync").is_empty(),
            "{rel}: README and state agree in every fixture"
        );
        // Approval: state.json's, else the README's line, else pending.
        let readme = fs::read_to_string(src.join("README.md")).unwrap_or_default();
        let approval = state["approval"].as_str().map(str::to_owned).or_else(|| {
            readme
                .lines()
                .find_map(|l| l.trim().strip_prefix("Approval:"))
                .map(|v| v.trim().to_owned())
        });
        let pending = approval.as_deref().is_none_or(|a| a == "pending");
        assert_eq!(
            inbox(&v).contains(&("approval".to_owned(), "approval".to_owned())),
            pending,
            "{rel}"
        );
    }
    // The Lite fixture keeps its contract (inline anchors, records, Plan
    // Status 0/2, approved); DWP's verifier fails only its folder, which
    // the upstream fixture ships without PROMPTS.md and analysis_results/.
    let lite = plans
        .iter()
        .find(|(r, _)| r.contains("PLAN_lite_fixture"))
        .unwrap();
    let v = json(&["show", root.join(&lite.0).to_str().unwrap()]);
    assert_eq!(
        codes(&v),
        vec!["dwp.folder-incomplete", "dwp.folder-incomplete"],
        "{}",
        v["findings"]
    );
    assert_eq!(v["tasks"][0]["locator"], "#task-1");
}

#[test]
fn the_v5_fixture_is_pending_approval_and_the_interrupted_one_resumes_at_its_checkpoint() {
    let (_t, root, plans) = real_world();
    let dir = |name: &str| root.join(&plans.iter().find(|(r, _)| r.ends_with(name)).unwrap().0);
    let full = json(&["show", dir("PLAN_full_migration_fixture").to_str().unwrap()]);
    assert_eq!(full["project"]["status"], "pending");
    assert!(finding(&full, "dwp.spec-newer").is_empty(), "5.x is known");
    assert_eq!(finding(&full, "dwp.approval-pending").len(), 1);

    let d = dir("PLAN_interrupted_fixture");
    let v = json(&["show", d.to_str().unwrap()]);
    let state = read_json(&d.join("state.json"));
    let cp = &state["checkpoint"];
    assert_eq!(v["checkpoint"]["step"], cp["step"]);
    assert_eq!(v["resume"]["reason"], cp["note"]);
    assert!(
        v["resume"]["stopped_at"]
            .as_str()
            .unwrap()
            .starts_with(&format!("task {}", cp["task"])),
        "{}",
        v["resume"]["stopped_at"]
    );
    assert_eq!(v["project"]["stage"], "task 2/3");
    assert_eq!(v["project"]["status"], "executing");
}
