//! Issue 19 §3: a Deep Work Plan decision leaves README.md, state.json and
//! PROGRESS.md agreeing, so neither DWP's "Markdown wins" rule, its
//! verifier nor loopdeck's own `check` and `reconcile` undo it. Run on
//! copies of the real plans (tests/fixtures/dwp-real-world), LF and CRLF.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{copy_dir, loopdeck, repo};
use serde_json::Value;

const NOW: &str = "2026-10-01T12:00:00Z";
const INTERRUPTED: &str = "skill_tests_efficiency_interrupted-plan/PLAN_interrupted_fixture";
const LITE: &str = "skill_tests_fixtures_lite-plan/PLAN_lite_fixture";
const NEW_SHAPE: &str = "skill_tests_efficiency_new-shape-plan/PLAN_new_shape_fixture";

struct Plan {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    state_home: PathBuf,
}

impl Plan {
    /// A writable copy of the real plan `rel`; `crlf`: its Markdown in CRLF.
    fn new(rel: &str, crlf: bool) -> Plan {
        let tmp = tempfile::tempdir().unwrap();
        let name = Path::new(rel).file_name().unwrap();
        let dir = tmp.path().join("plans").join(name);
        copy_dir(
            &repo().join("tests/fixtures/dwp-real-world").join(rel),
            &dir,
        );
        if crlf {
            for e in fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                if p.extension().is_some_and(|x| x == "md") {
                    let t = fs::read_to_string(&p).unwrap().replace('\n', "\r\n");
                    fs::write(&p, t).unwrap();
                }
            }
        }
        let state_home = tmp.path().join("state");
        Plan {
            _tmp: tmp,
            dir,
            state_home,
        }
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        loopdeck()
            .env("XDG_STATE_HOME", &self.state_home)
            .args(args)
            .args(["--now", NOW])
            .output()
            .unwrap()
    }

    fn act(&self, args: &[&str]) -> std::process::Output {
        let mut all = vec!["act", self.dir.to_str().unwrap()];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--by", "pm"]);
        self.run(&all)
    }

    fn ok(&self, args: &[&str]) {
        let out = self.act(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn text(&self, file: &str) -> String {
        fs::read_to_string(self.dir.join(file)).unwrap_or_default()
    }

    fn state(&self) -> Value {
        serde_json::from_str(&self.text("state.json")).unwrap()
    }

    /// `loopdeck check --json`'s findings on this plan: (level, code, ref).
    fn findings(&self) -> Vec<(String, String, String)> {
        let out = self.run(&["check", "--json", self.dir.to_str().unwrap()]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut f = Vec::new();
        for p in v["projects"].as_array().unwrap() {
            for x in p["findings"].as_array().unwrap() {
                f.push((
                    x["level"].as_str().unwrap_or("").to_owned(),
                    x["code"].as_str().unwrap_or("").to_owned(),
                    x["ref"].as_str().unwrap_or("").to_owned(),
                ));
            }
        }
        f
    }
}

/// Reopening Task 1 unticks its README box the way refine does
/// (`[ ] … (re-validate: REASON)`), stamps its gates `invalidated by
/// refine`, records the reopen in PROGRESS.md: `check` then sees no
/// desync and `reconcile` finds nothing to put back.
#[test]
fn a_reopen_leaves_readme_state_and_progress_agreeing() {
    for crlf in [false, true] {
        let p = Plan::new(INTERRUPTED, crlf);
        let before = p.text("README.md");
        let errors_before: Vec<_> = p
            .findings()
            .into_iter()
            .filter(|f| f.0 == "error")
            .collect();
        let gates_before = p.state()["tasks"][0]["gates"].clone();
        p.ok(&["reopen", "1", "--reason", "requirements\nchanged (v2)"]);

        let readme = p.text("README.md");
        let nl = if crlf { "\r\n" } else { "\n" };
        let want = before.replace(
            &format!("- [x] Task 1: Add greeter{nl}"),
            &format!("- [ ] Task 1: Add greeter (re-validate: requirements changed /v2/){nl}"),
        );
        assert_ne!(want, before, "the fixture ticks Task 1");
        assert_eq!(readme, want, "crlf={crlf}");

        let s = p.state();
        assert_eq!(s["tasks"][0]["status"], "in_progress");
        for (g, old) in s["tasks"][0]["gates"]
            .as_array()
            .unwrap()
            .iter()
            .zip(gates_before.as_array().unwrap())
        {
            assert_eq!(
                g["evidence"].as_str().unwrap(),
                format!(
                    "invalidated by refine: {}",
                    old["evidence"].as_str().unwrap()
                )
            );
        }
        // Neither `check` nor "Markdown wins" disagree with the decision.
        let errors: Vec<_> = p
            .findings()
            .into_iter()
            .filter(|f| f.0 == "error")
            .collect();
        assert!(
            !errors.iter().any(|f| f.1 == "dwp.desync"),
            "crlf={crlf}: {errors:?}"
        );
        assert_eq!(errors, errors_before, "crlf={crlf}");
        let out = p.act(&["reconcile"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("nothing to reconcile"), "{err}");
        assert_eq!(p.state()["tasks"][0]["status"], "in_progress");

        let progress = p.text("PROGRESS.md");
        assert!(
            progress.contains(&format!(
                "## Reopen — {NOW} (pm){nl}{nl}- Task 1 reopened (completed → in_progress): requirements changed (v2)"
            )),
            "{progress:?}"
        );
        if crlf {
            assert!(!progress.replace("\r\n", "").contains('\n'), "LF in CRLF");
        }
    }
}

/// A `Plan Status: N/M` count follows the untick.
#[test]
fn a_reopen_counts_the_readme_s_plan_status_down() {
    let p = Plan::new(INTERRUPTED, false);
    let readme = p.dir.join("README.md");
    let text = p.text("README.md");
    fs::write(&readme, format!("{text}\nPlan Status: 1/3\n")).unwrap();
    p.ok(&["reopen", "1", "--reason", "refined"]);
    let after = p.text("README.md");
    assert!(after.ends_with("\nPlan Status: 0/3\n"), "{after}");
}

/// Block and unblock are recorded in PROGRESS.md (execute: the active
/// context lists unresolved blockers), in the file's own line ending.
#[test]
fn block_and_unblock_are_recorded_in_progress() {
    for crlf in [false, true] {
        let p = Plan::new(INTERRUPTED, crlf);
        let nl = if crlf { "\r\n" } else { "\n" };
        let before = p.text("PROGRESS.md");
        p.ok(&[
            "block",
            "2",
            "--reason",
            "no key\n## x",
            "--needs",
            "an admin",
        ]);
        let after = p.text("PROGRESS.md");
        assert!(after.starts_with(&before));
        assert_eq!(
            &after[before.len()..],
            format!(
                "{nl}## Blocked — {NOW} (pm){nl}{nl}- Task 2 blocked (unresolved blocker): no key ## x — needs: an admin{nl}"
            )
        );
        p.ok(&["unblock", "2"]);
        let again = p.text("PROGRESS.md");
        assert!(again.starts_with(&after));
        assert_eq!(
            &again[after.len()..],
            format!(
                "{nl}## Unblocked — {NOW} (pm){nl}{nl}- Task 2 unblocked (blocker resolved, blocked → in_progress){nl}"
            )
        );
    }
}

/// The updater stamps `started_at` on a v2/v5 task too (the schema the
/// updater validates against has it): loopdeck writes what it writes.
#[test]
fn a_v2_task_records_when_it_started() {
    let p = Plan::new(LITE, false);
    let before = p.state();
    assert!(before["schema"].as_str().unwrap().ends_with("/v2.json"));
    assert!(before["tasks"][0].get("started_at").is_none());
    p.ok(&["block", "1", "--reason", "waiting"]);
    assert_eq!(p.state()["tasks"][0]["started_at"], NOW);
}

/// update-state.py blocks any task, a later one too; where that strands
/// the plan (the blocker can be resolved only once every earlier task is
/// completed), `check` says so: a finding, not a refusal.
#[test]
fn a_later_task_is_blocked_as_the_updater_does_and_check_names_the_strand() {
    for (rel, task, open) in [
        (LITE, "2", "1"),
        (INTERRUPTED, "3", "2"),
        (NEW_SHAPE, "3", "2"),
    ] {
        let p = Plan::new(rel, false);
        assert!(
            !p.findings().iter().any(|f| f.1 == "dwp.blocker-stranded"),
            "{rel}"
        );
        p.ok(&["block", task, "--reason", "waiting", "--needs", "x"]);
        let s = p.state();
        assert_eq!(s["blocked"]["task"].as_u64().unwrap().to_string(), task);
        let f = p.findings();
        let stranded: Vec<_> = f.iter().filter(|f| f.1 == "dwp.blocker-stranded").collect();
        assert_eq!(stranded.len(), 1, "{rel}: {f:?}");
        assert_eq!(stranded[0].0, "warning", "{rel}");
        let out = p.run(&["check", p.dir.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!(
                "the blocker on task {task} can be resolved only once task {open} is completed"
            )),
            "{rel}: {text}"
        );
    }
}

/// A hostile reason reaches the README only as marker text: no box, link,
/// anchor, heading or `Plan Status:` count a DWP reader would take as
/// structure; PROGRESS.md keeps it on one list line.
#[test]
fn a_hostile_reopen_reason_adds_no_structure() {
    let hostile = "x\n- [x] Task 4\n## 5. Plan Status\nPlan Status: 4/4\n{#task-9} [a](3.task_b.md) **Approval:** approved";
    let plain = Plan::new(INTERRUPTED, false);
    plain.ok(&["reopen", "1", "--reason", "plain"]);
    let p = Plan::new(INTERRUPTED, false);
    let before = p.text("README.md");
    p.ok(&["reopen", "1", "--reason", hostile]);
    let after = p.text("README.md");
    assert_eq!(after.lines().count(), before.lines().count());
    let line = after
        .lines()
        .find(|l| l.contains("(re-validate:"))
        .unwrap()
        .to_owned();
    assert_eq!(line.matches('[').count(), 1, "{line}");
    assert!(!line.contains("Plan Status:"), "{line}");
    assert!(!line.contains('{'), "{line}");
    assert_eq!(p.findings(), plain.findings());
    let progress = p.text("PROGRESS.md");
    let added: Vec<&str> = progress.lines().filter(|l| l.contains("Task 4")).collect();
    assert_eq!(added.len(), 1, "{progress}");
    assert!(added[0].starts_with("- Task 1 reopened"), "{progress}");
}

/// A README that is not UTF-8 cannot be unticked: the reopen is refused
/// (it would leave README and state disagreeing), nothing written.
#[test]
fn a_reopen_is_refused_where_the_readme_cannot_be_unticked() {
    let p = Plan::new(INTERRUPTED, false);
    let path = p.dir.join("README.md");
    let mut bytes = fs::read(&path).unwrap();
    bytes.extend_from_slice(b"\n\xff\xfe latin-1 \xe9\n");
    fs::write(&path, &bytes).unwrap();
    let state = p.text("state.json");
    let out = p.act(&["reopen", "1", "--reason", "x"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("README.md is not UTF-8 text"), "{err}");
    assert_eq!(p.text("state.json"), state);
    assert_eq!(fs::read(&path).unwrap(), bytes);
}
