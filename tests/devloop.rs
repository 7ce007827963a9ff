//! The devloop reader, run as a user runs it, on the example workspace's
//! devloop projects (seeds 003 and 004). Expected values come from the files
//! themselves or from the workspace README, never from the reader.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use common::{NOW, json, loopdeck, snapshot, workspace, write};
use serde_json::Value;
use sha2::{Digest, Sha256};

const PROJECTS: &str = "devloop/data/companies/acme/projects";

fn project_dir(ws: &Path, name: &str) -> PathBuf {
    ws.join(PROJECTS).join(name)
}

fn show(dir: &Path) -> Value {
    json(&["show", dir.to_str().unwrap()])
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

fn lines(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn codes(v: &Value) -> Vec<String> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect()
}

fn kinds(v: &Value) -> Vec<String> {
    v["inbox"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap().to_owned())
        .collect()
}

/// The text of unit `id`'s `<pre data-contract>` in `html`, found with
/// plain string search (no HTML parser, so independent of the reader).
fn contract_text(html: &str, id: &str) -> String {
    let section = &html[html.find(&format!("data-unit-id=\"{id}\"")).unwrap()..];
    let pre = &section[section.find("<pre data-contract").unwrap()..];
    let body = &pre[pre.find('>').unwrap() + 1..];
    body[..body.find("</pre>").unwrap()].to_owned()
}

fn hash16(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{}", &hex[..16])
}

fn utc(t: &Value) -> String {
    let secs = t.as_i64().unwrap();
    chrono::DateTime::from_timestamp(secs, 0)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[test]
fn p_restock_units_dag_and_contract_hashes() {
    let (_t, ws) = workspace();
    let dir = project_dir(&ws, "p-restock");
    let v = show(&dir);
    assert_eq!(v["project"]["format"], "devloop");
    assert_eq!(v["project"]["status"], "running");

    let file = read_json(&dir.join("units.json"));
    let units = v["units"].as_array().unwrap();
    let want = file["units"].as_array().unwrap();
    assert_eq!(units.len(), want.len());
    for (u, w) in units.iter().zip(want) {
        for key in ["id", "type", "status", "depends_on", "contract_hash"] {
            assert_eq!(u[key], w[key], "{key} of {}", w["id"]);
        }
    }
    // Layers from the README: L0 sku-db, auth-mw; L1 sales-sync-be; L2
    // forecast-be; L3 restock-plan-be; L4 restock-fe.
    let layers: BTreeMap<&str, u64> = units
        .iter()
        .map(|u| (u["id"].as_str().unwrap(), u["layer"].as_u64().unwrap()))
        .collect();
    let expected: BTreeMap<&str, u64> = [
        ("sku-db", 0),
        ("auth-mw", 0),
        ("sales-sync-be", 1),
        ("forecast-be", 2),
        ("restock-plan-be", 3),
        ("restock-fe", 4),
    ]
    .into_iter()
    .collect();
    assert_eq!(layers, expected);
    assert_eq!(v["dag"]["cycles"], serde_json::json!([]));
    assert_eq!(v["dag"]["unknown_refs"], serde_json::json!([]));
    assert_eq!(v["dag"]["layers"], 5);
    assert_eq!(
        v["dag"]["l2_gate_open"], false,
        "sales-sync-be's hash is stale"
    );

    // Every hash recomputed here from sdd.html's text.
    let sdd = fs::read_to_string(dir.join("sdd.html")).unwrap();
    for u in units {
        let id = u["id"].as_str().unwrap();
        let text = contract_text(&sdd, id);
        let current = hash16(&text);
        let matches = u["contract_hash"] == current.as_str();
        assert_eq!(u["contract_ok"], matches, "{id}");
        assert_eq!(u["contract"], text.as_str(), "{id}: the contract text");
        assert!(!u["acceptance"].as_array().unwrap().is_empty(), "{id}");
        if id == "sales-sync-be" {
            assert!(!matches);
            assert_eq!(current, "sha256:3f5dca74aea12225", "the README's value");
            let f = v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["code"] == "devloop.contract-hash-mismatch")
                .unwrap();
            assert_eq!(f["ref"], "sales-sync-be");
            let msg = f["message"].as_str().unwrap();
            assert!(msg.contains(&current), "{msg}");
            assert!(msg.contains("history/sdd-rev-3.html"), "{msg}");
            let old = fs::read_to_string(dir.join("history/sdd-rev-3.html")).unwrap();
            assert_eq!(
                hash16(&contract_text(&old, id)),
                u["contract_hash"].as_str().unwrap()
            );
        } else {
            assert!(matches, "{id}: the README says five units match");
        }
    }
    let mismatches = codes(&v)
        .iter()
        .filter(|c| *c == "devloop.contract-hash-mismatch")
        .count();
    assert_eq!(mismatches, 1);
    assert!(
        !codes(&v).iter().any(|c| c == "devloop.bad-unit-id"),
        "ids are fine"
    );

    // The newest runs of each unit, newest first; the one failure.
    let plan = units.iter().find(|u| u["id"] == "restock-plan-be").unwrap();
    let runs = plan["runs"].as_array().unwrap();
    assert_eq!(runs[0]["run_id"], "run-20260601-1048");
    assert_eq!(runs[0]["ok"], false);
    let result = read_json(&dir.join("units/restock-plan-be/runs/run-20260601-1048/result.json"));
    let failure = &runs[0]["failures"][0];
    assert_eq!(failure["test"], result["failures"][0]["test"]);
    assert_eq!(
        failure["expected"],
        serde_json::to_string(&result["failures"][0]["expected"]).unwrap()
    );
    assert_eq!(
        failure["got"],
        serde_json::to_string(&result["failures"][0]["got"]).unwrap()
    );
    assert_eq!(failure["hint"], result["failures"][0]["hint"]);
    assert_eq!(runs[1]["run_id"], "run-20260530-1520");
    let all_runs: usize = units
        .iter()
        .map(|u| u["runs"].as_array().unwrap().len())
        .sum();
    assert_eq!(all_runs, 8, "the README's 8 runs (at most 3 per unit here)");
    let passes = units
        .iter()
        .flat_map(|u| u["runs"].as_array().unwrap())
        .filter(|r| r["ok"] == true)
        .count();
    assert_eq!(passes, 7);
}

#[test]
fn p_restock_agents_bugs_timeline_and_progress() {
    let (_t, ws) = workspace();
    let dir = project_dir(&ws, "p-restock");
    let v = show(&dir);

    // Agents: step i/n is 1-based, the todo's current item is what it does.
    let agents = v["agents"].as_array().unwrap();
    let agent = |name: &str| agents.iter().find(|a| a["agent"] == name).unwrap();
    for (name, step) in [("coder", "2/4"), ("integrator", "3/5")] {
        let a = agent(name);
        let state = read_json(&dir.join(format!("agent-state/{name}.json")));
        let todo = read_json(&dir.join(format!("agent-state/{name}-todo.json")));
        assert_eq!(a["step"], step, "{name}");
        assert_eq!(a["status"], state["status"]);
        let current = todo["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["id"] == todo["current"])
            .unwrap();
        assert_eq!(a["doing"], current["description"], "{name}");
        assert_eq!(a["progress_pct"], todo["progress_pct"]);
    }
    assert_eq!(agent("coder")["unit"], "restock-plan-be");
    let integrator = read_json(&dir.join("agent-state/integrator.json"));
    assert_eq!(agent("integrator")["paused_at"], integrator["updated_at"]);
    assert_eq!(agent("integrator")["has_resume_token"], true);

    // The paused integrator's token is 30 h old: restart only.
    assert_eq!(kinds(&v), vec!["resume"]);
    let item = &v["inbox"][0];
    assert_eq!(item["ref"], "agent-state/integrator.json");
    assert_eq!(item["since"], integrator["updated_at"]);
    assert_eq!(item["options"], serde_json::json!(["restart"]));
    let title = item["title"].as_str().unwrap();
    assert!(
        title.contains("3/5") && title.contains("older than 24 h"),
        "{title}"
    );

    // Bugs: the latest line of each id, computed here from the file.
    let mut latest: BTreeMap<String, Value> = BTreeMap::new();
    for line in lines(&dir.join("bugs.ndjson")) {
        latest.insert(line["id"].as_str().unwrap().to_owned(), line);
    }
    assert_eq!(latest.len(), 5);
    let bugs = v["bugs"].as_array().unwrap();
    assert_eq!(bugs.len(), latest.len());
    for (b, (id, line)) in bugs.iter().zip(&latest) {
        assert_eq!(b["id"], id.as_str());
        for key in ["status", "severity", "title"] {
            assert_eq!(b[key], line[key], "{key} of {id}");
        }
        let history = line["status_history"].as_array().unwrap();
        assert_eq!(
            b["history"].as_array().unwrap().len(),
            history.len(),
            "{id}"
        );
    }
    let status = |id: &str| {
        bugs.iter()
            .find(|b| b["id"] == id)
            .map(|b| b["status"].as_str().unwrap().to_owned())
    };
    // The README's table.
    assert_eq!(status("bug-20260530-1012-77aa").as_deref(), Some("wontfix"));
    assert_eq!(status("bug-20260530-2131-a1f3").as_deref(), Some("fixed"));
    assert_eq!(
        status("bug-20260530-2131-c7d2").as_deref(),
        Some("duplicate")
    );
    assert_eq!(status("bug-20260601-0902-d4e8").as_deref(), Some("open"));
    assert_eq!(status("bug-20260601-1049-9e0b").as_deref(), Some("fixing"));
    let stats = &v["bug_stats"];
    assert_eq!(stats["total"], 5);
    let mut by_status: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_severity: BTreeMap<String, u64> = BTreeMap::new();
    for line in latest.values() {
        *by_status
            .entry(line["status"].as_str().unwrap().into())
            .or_default() += 1;
        *by_severity
            .entry(line["severity"].as_str().unwrap().into())
            .or_default() += 1;
    }
    assert_eq!(
        stats["by_status"],
        serde_json::to_value(&by_status).unwrap()
    );
    assert_eq!(
        stats["by_severity"],
        serde_json::to_value(&by_severity).unwrap()
    );

    // Timeline: the last 50 of the file's 61 events, oldest first.
    let events = lines(&dir.join("timeline.ndjson"));
    assert_eq!(events.len(), 61);
    let timeline = v["timeline"].as_array().unwrap();
    assert_eq!(timeline.len(), 50);
    for (e, line) in timeline.iter().zip(&events[events.len() - 50..]) {
        assert_eq!(e["summary"], line["summary"]);
        assert_eq!(e["source"], line["source"]);
        assert_eq!(e["kind"], line["kind"]);
        assert_eq!(e["at"], utc(&line["ts"]).as_str());
    }
    // The last update is the last event, later than project.updated_at.
    let last = utc(&events.last().unwrap()["ts"]);
    assert_eq!(last, "2026-06-01T11:58:25Z");
    assert_eq!(v["project"]["updated_at"], last.as_str());
    assert_eq!(v["resume"]["scenario"], "A");

    // Progress: PRD 10 + SDD 20 + Units 50 × 4/6.
    let progress = &v["progress"];
    assert!((progress["percent"].as_f64().unwrap() - 63.3).abs() < 0.05);
    assert_eq!(progress["phase"], "L1");
    let parts: BTreeMap<&str, (f64, f64)> = progress["breakdown"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["part"].as_str().unwrap(),
                (b["weight"].as_f64().unwrap(), b["points"].as_f64().unwrap()),
            )
        })
        .collect();
    assert_eq!(parts["prd"], (10.0, 10.0));
    assert_eq!(parts["sdd"], (20.0, 20.0));
    assert!((parts["units"].1 - 50.0 * 4.0 / 6.0).abs() < 0.01);
    assert_eq!(parts["l2"], (15.0, 0.0));
    assert_eq!(parts["ship"], (5.0, 0.0));
    assert_eq!(v["project"]["progress_percent"], 63);
    assert_eq!(v["project"]["stage"], "L1");
    assert_eq!(v["statusline"], "p-restock · L1 4/6 units · 63%");

    // The resume card names only files that exist.
    for f in v["resume"]["read_first"].as_array().unwrap() {
        assert!(dir.join(f.as_str().unwrap()).is_file(), "{f}");
    }
    // Triage: category and confidence from the file.
    let triage = read_json(&dir.join("integration/runs/run-int-20260530-2130/triage.json"));
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "devloop.triage")
        .unwrap();
    let msg = f["message"].as_str().unwrap();
    assert!(msg.contains(triage["category"].as_str().unwrap()), "{msg}");
    assert!(msg.contains("0.82"), "{msg}");
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["level"] != "error")
    );
}

#[test]
fn p_shipped_waits_for_sign_off_and_a_conflict() {
    let (_t, ws) = workspace();
    let dir = project_dir(&ws, "p-shipped");
    let v = show(&dir);
    assert_eq!(v["project"]["status"], "shipped");
    assert_eq!(v["project"]["updated_at"], "2026-05-31T08:14:30Z");
    let mut k = kinds(&v);
    k.sort();
    assert_eq!(k, vec!["conflict", "sign-off"]);
    let conflict = v["inbox"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "conflict")
        .unwrap();
    assert_eq!(conflict["ref"], "prd.html");
    assert!(
        conflict["title"]
            .as_str()
            .unwrap()
            .contains("只出报告，不动钱")
    );
    assert!(codes(&v).contains(&"devloop.prd-conflict".to_owned()));
    assert_eq!(
        v["dag"]["l2_gate_open"], true,
        "all passed, all hashes match"
    );
    let sdd = fs::read_to_string(dir.join("sdd.html")).unwrap();
    for u in v["units"].as_array().unwrap() {
        assert_eq!(u["status"], "passed");
        assert_eq!(u["contract_ok"], true);
        assert_eq!(
            hash16(&contract_text(&sdd, u["id"].as_str().unwrap())),
            u["contract_hash"].as_str().unwrap()
        );
    }
    assert_eq!(v["progress"]["percent"], 100.0);
    assert_eq!(v["progress"]["phase"], "shipped");
    // One bug, open → fixing → fixed → verified over 4 lines.
    let bug = &v["bugs"][0];
    assert_eq!(bug["status"], "verified");
    let path: Vec<&str> = bug["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["to"].as_str().unwrap())
        .collect();
    assert_eq!(path, vec!["fixing", "fixed", "verified"]);
}

#[test]
fn p_over_budget_graph_findings_and_budget() {
    let (_t, ws) = workspace();
    let dir = project_dir(&ws, "p-over-budget");
    let v = show(&dir);
    assert_eq!(v["project"]["status"], "blocked");
    assert_eq!(v["project"]["updated_at"], "2026-05-27T16:42:09Z");
    let cycles = v["dag"]["cycles"].as_array().unwrap();
    assert_eq!(cycles.len(), 1);
    let mut members: Vec<&str> = cycles[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    members.sort();
    assert_eq!(members, vec!["ledger-be", "tax-be"]);
    assert_eq!(
        v["dag"]["unknown_refs"],
        serde_json::json!([{"unit": "export-fe", "depends_on": "payment-gateway-be"}])
    );
    assert_eq!(v["dag"]["l2_gate_open"], false);
    let found = |code: &str, r: &str| {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == code && f["ref"] == r)
    };
    assert!(found("devloop.dag-cycle", "tax-be"));
    assert!(found("devloop.unknown-dependency", "export-fe"));
    assert!(found("devloop.duplicate-unit", "invoice-be"));
    assert!(found("devloop.bad-unit-id", "pdfExport-be"));
    assert!(found("devloop.bad-contract-hash", "export-fe"));
    assert!(found("devloop.over-budget", "project.json"));
    // Project ids intentionally break ^p-[a-z0-9]{6}$: never flagged.
    assert!(!codes(&v).iter().any(|c| c.contains("project-id")));
    // No sdd.html: hashes cannot be checked.
    assert!(
        v["units"]
            .as_array()
            .unwrap()
            .iter()
            .all(|u| u["contract_ok"].is_null())
    );
    // Units on or behind the cycle have no layer.
    let layer = |id: &str| {
        v["units"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["id"] == id)
            .unwrap()["layer"]
            .clone()
    };
    assert_eq!(layer("invoice-db"), 0);
    assert!(layer("tax-be").is_null() && layer("ledger-be").is_null());
    let project = read_json(&dir.join("project.json"));
    // ledger-be is blocked with 5 of its 5 retries used: a human decides.
    assert_eq!(kinds(&v), vec!["budget", "retries-spent"]);
    assert_eq!(v["inbox"][1]["subject"], "ledger-be");
    // A blocked unit is blocked, not an error (the old substring guess
    // read every "block" as failed).
    let ledger = v["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["id"] == "ledger-be")
        .unwrap();
    assert_eq!(ledger["status"], "blocked");
    assert_eq!(ledger["status_kind"], "blocked");
    let title = v["inbox"][0]["title"].as_str().unwrap();
    assert!(
        title.contains("5,231,774") && title.contains("5,000,000"),
        "{title}"
    );
    assert!(project["token_used"].as_f64().unwrap() > project["token_budget"].as_f64().unwrap());
    // check exits 1: the cycle and the unknown dependency are errors.
    loopdeck()
        .args(["check", dir.to_str().unwrap(), "--now", NOW])
        .assert()
        .code(1);
}

#[test]
fn list_inbox_and_status_across_the_workspace() {
    let (_t, ws) = workspace();
    let list = json(&["list", ws.to_str().unwrap()]);
    let rows: Vec<&Value> = list["projects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["format"] == "devloop")
        .collect();
    let ids: Vec<&str> = rows.iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        vec![
            format!("{PROJECTS}/p-restock"),
            format!("{PROJECTS}/p-shipped"),
            format!("{PROJECTS}/p-over-budget"),
        ],
        "newest update first"
    );
    assert_eq!(rows[0]["updated_at"], "2026-06-01T11:58:25Z");
    assert_eq!(rows[0]["name"], "FBA 智能补货");
    assert_eq!(rows[0]["progress_percent"], 63);
    assert_eq!(rows[1]["progress_percent"], 100);

    let inbox = json(&["inbox", ws.to_str().unwrap()]);
    let mut found: Vec<(String, String)> = inbox["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["format"] == "devloop")
        .map(|i| {
            (
                i["project"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_owned(),
                i["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    found.sort();
    let want: Vec<(String, String)> = [
        ("p-over-budget", "budget"),
        ("p-over-budget", "retries-spent"),
        ("p-restock", "resume"),
        ("p-shipped", "conflict"),
        ("p-shipped", "sign-off"),
    ]
    .iter()
    .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
    .collect();
    assert_eq!(found, want);

    // The prompt line, from anywhere inside the project.
    loopdeck()
        .args([
            "status",
            project_dir(&ws, "p-restock")
                .join("units/sku-db")
                .to_str()
                .unwrap(),
        ])
        .assert()
        .success()
        .stdout("p-restock · L1 4/6 units · 63%\n");
}

#[test]
fn a_large_timeline_is_read_from_its_end() {
    let (_t, ws) = workspace();
    let dir = project_dir(&ws, "p-restock");
    // ~20 MB of events, garbage lines among the last ones, and a torn line
    // (a writer in the middle of its write) at the end.
    let mut text = fs::read_to_string(dir.join("timeline.ndjson")).unwrap();
    let pad = "x".repeat(300);
    let mut ts = 1_780_315_106u64;
    while text.len() < 20 * 1024 * 1024 {
        text.push_str(&format!(
            "{{\"ts\":{ts},\"source\":\"system\",\"kind\":\"heartbeat\",\"summary\":\"tick {ts} {pad}\"}}\n"
        ));
        ts += 1;
    }
    text.push_str("not json\n{\"ts\":1780315000,\"kind\":\"no source\"}\n");
    let last_ts = ts;
    text.push_str(&format!(
        "{{\"ts\":{last_ts},\"source\":\"tester\",\"kind\":\"unit_passed\",\"ref\":\"unit/restock-plan-be\",\"summary\":\"PASS restock-plan-be 8/8\"}}\n"
    ));
    text.push_str("{\"ts\":1780399999,\"source\":\"coder\",\"kind\":\"unit_co");
    write(&dir.join("timeline.ndjson"), &text);

    let v = show(&dir);
    let timeline = v["timeline"].as_array().unwrap();
    assert_eq!(timeline.len(), 50);
    let last = timeline.last().unwrap();
    assert_eq!(
        last["summary"], "PASS restock-plan-be 8/8",
        "the torn line is skipped"
    );
    assert_eq!(last["unit"], "restock-plan-be");
    assert_eq!(last["at"], utc(&Value::from(last_ts)).as_str());
    assert_eq!(
        v["project"]["updated_at"],
        utc(&Value::from(last_ts)).as_str()
    );
    assert_eq!(
        timeline[48]["summary"].as_str().unwrap(),
        format!("tick {} {pad}", last_ts - 1)
    );
    assert!(codes(&v).contains(&"devloop.torn-line".to_owned()));
    assert!(codes(&v).contains(&"devloop.skipped-lines".to_owned()));
}

#[test]
fn bad_input_never_panics_and_never_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("projects");
    let junk: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let base = r#"{"id":"p-x","company_id":"acme","status":"running","updated_at":"2026-05-31T00:00:00Z"}"#;
    // Every devloop file broken in its own way.
    let p = root.join("broken");
    write(&p.join("project.json"), base);
    write(
        &p.join("units.json"),
        r#"{"units":[{"id":"a-be","depends_on":"a-be"},7,{"id":"b-be","depends_on":["b-be"],"status":5}]}"#,
    );
    write(&p.join("sdd.html"), &junk);
    write(
        &p.join("prd.html"),
        "<article data-doc=\"prd\" data-rev=\"x\"><aside data-conflict><section data-rev='1'",
    );
    write(
        &p.join("timeline.ndjson"),
        [&junk[..], b"\n{\"ts\":1,\"source\":\"s\",\"kind\":\"k\"}\n"].concat(),
    );
    write(
        &p.join("bugs.ndjson"),
        [
            &junk[..],
            b"\n{\"id\":\"bug-1\",\"status\":\"open\"}\n{\"id\":\"bug-1\"",
        ]
        .concat(),
    );
    write(&p.join("changelog.ndjson"), &junk);
    write(&p.join("agent-state/coder.json"), "[1,2]");
    write(
        &p.join("agent-state/tester.json"),
        r#"{"status":"paused","current_step":"two","total_steps":-1,"updated_at":7}"#,
    );
    write(&p.join("units/a-be/runs/run-1/result.json"), &junk);
    write(
        &p.join("integration/runs/run-int-1/result.json"),
        r#"{"ok":"no","failures":[{"case":1}]}"#,
    );
    write(&p.join("integration/runs/run-int-1/triage.json"), "{");
    // A units.json that is not JSON at all.
    let q = root.join("truncated");
    write(&q.join("project.json"), base);
    write(&q.join("units.json"), r#"{"units": [{"id": "a-"#);
    // Not a devloop project: no company_id, or not JSON (and nothing else).
    write(
        &root.join("other/project.json"),
        r#"{"name":"x","status":"ok"}"#,
    );
    write(&root.join("npm/project.json"), "not json");
    // A corrupt project.json beside devloop files is still shown.
    write(&root.join("corrupt/project.json"), "{\"company_id\": ");
    write(&root.join("corrupt/units.json"), r#"{"units":[]}"#);

    let before = snapshot(&root);
    let list = json(&["list", root.to_str().unwrap()]);
    let ids: Vec<&str> = list["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(sorted, vec!["broken", "corrupt", "truncated"]);
    let v = show(&p);
    let problems = v["project"]["problems"].as_array().unwrap();
    let files: Vec<&str> = problems
        .iter()
        .map(|p| p["file"].as_str().unwrap())
        .collect();
    for f in [
        "units.json",
        "agent-state/coder.json",
        "units/a-be/runs/run-1/result.json",
        "integration/runs/run-int-1/triage.json",
    ] {
        assert!(files.contains(&f), "{f} in {files:?}");
    }
    // The units that could be read are kept; b-be depends on itself.
    let units: Vec<&str> = v["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["id"].as_str().unwrap())
        .collect();
    assert_eq!(units, vec!["a-be", "b-be"]);
    assert_eq!(v["dag"]["cycles"], serde_json::json!([["b-be"]]));
    assert_eq!(v["timeline"].as_array().unwrap().len(), 1);
    assert_eq!(v["bugs"][0]["status"], "open");
    assert!(v["project"]["status"] == "running");
    let t = show(&q);
    assert!(
        t["project"]["problems"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("JSON")
    );
    let c = show(&root.join("corrupt"));
    assert_eq!(c["project"]["status"], "unreadable");
    json(&["inbox", root.to_str().unwrap()]);
    loopdeck()
        .args(["check", root.to_str().unwrap(), "--now", NOW])
        .assert()
        .code(1);
    assert!(before == snapshot(&root), "reading never writes");
}

// Memory, projects never dropped, the seed rules read right: real files
// in temp dirs, in tests/devloop/.

/// A devloop project.json for `pid`, running, updated 2026-06-01T10:00Z.
fn meta(pid: &str) -> String {
    format!(
        r#"{{"id":"{pid}","company_id":"acme","name":"{pid}","status":"running","updated_at":"2026-06-01T10:00:00Z"}}"#
    )
}

/// A project whose coder paused 2026-05-20T09:00Z holding a resume token.
fn paused_project(root: &Path) -> PathBuf {
    let dir = root.join("data/companies/acme/projects/p-paused");
    write(&dir.join("project.json"), meta("p-paused"));
    write(
        &dir.join("agent-state/coder.json"),
        r#"{"agent":"coder","status":"paused","call_id":"c1","current_step":1,"total_steps":3,"resume_token":"rt","updated_at":"2026-05-20T09:00:00Z"}"#,
    );
    dir
}

#[path = "devloop/memory.rs"]
mod memory;
#[path = "devloop/seed_rules.rs"]
mod seed_rules;
#[path = "devloop/unreadable.rs"]
mod unreadable;
