//! Issue 19 §3: `loopdeck check` reports what DWP's own verifier
//! (`verify/plan_contract.py`) fails on the reference plans, with its
//! words. The expected lines are the verifier's own output on these plans
//! (run with the updater's plan-state schema), one or more per rule:
//! incomplete plan folders, the README's Goal+Context pair and Plan Status
//! count, the final task's shape and the task records' fields.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{loopdeck, repo};
use serde_json::Value;

/// `check --json`'s error messages on the plan at `rel`, and its status.
fn errors(rel: &str) -> (Vec<String>, String) {
    let tmp = tempfile::tempdir().unwrap();
    let out = loopdeck()
        .env("XDG_STATE_HOME", tmp.path())
        .args(["check", "--json", "--now", common::NOW])
        .arg(repo().join(rel))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // A plan with no finding is not listed.
    let p = &v["projects"][0];
    let msgs = p["findings"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|f| f["level"] == "error")
        .map(|f| f["message"].as_str().unwrap().to_owned())
        .collect();
    let out = loopdeck()
        .env("XDG_STATE_HOME", tmp.path())
        .args(["show", "--json", "--now", common::NOW])
        .arg(repo().join(rel))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let status = v["project"]["status"].as_str().unwrap_or("").to_owned();
    (msgs, status)
}

const REAL: &str = "tests/fixtures/dwp-real-world";
const SHOP: &str = "examples/workspace/dwp/shop-api/.dwp/plans";

#[test]
fn check_reports_the_verifier_s_failing_lines() {
    let cases: &[(&str, &[&str])] = &[
        (
            "skill_tests_evaluation_v6_legacy_full/PLAN_full_migration_fixture",
            &[
                "partial materialization: missing PROGRESS.md — recover with create/refine",
                "partial materialization: missing PROMPTS.md — recover with create/refine",
                "partial materialization: missing analysis_results/",
                "plan README lacks a non-empty Context section alongside Goal — the v2 Goal+Context pair is required (guide/authoring.md §4.1)",
            ],
        ),
        (
            "skill_tests_efficiency_interrupted-plan/PLAN_interrupted_fixture",
            &[
                "partial materialization: missing PROMPTS.md — recover with create/refine",
                "partial materialization: missing analysis_results/",
                "mandatory final task missing — accepted shapes: {N}.task_final_review.md last (DWP 2.3.0+), or {N-2}.task_security_review.md + {N-1}.task_skills_agents_discovery.md + {N}.task_executive_report.md (pre-2.3.0)",
            ],
        ),
        (
            "skill_tests_fixtures_lite-plan/PLAN_lite_fixture",
            &[
                "partial materialization: missing PROMPTS.md — recover with create/refine",
                "partial materialization: missing analysis_results/",
            ],
        ),
        (
            "skill_tests_efficiency_new-shape-plan/PLAN_new_shape_fixture",
            &[
                "plan has no README.md — its task list lives there; complete or discard this partial materialization with create/refine",
            ],
        ),
    ];
    let shop: &[(&str, &[&str])] = &[(
        "PLAN_search_index",
        &[
            "Task 1 lacks non-empty Goal",
            "Task 2 lacks non-empty Touched Surface",
            "Task 4 lacks non-empty Acceptance Criteria",
            "Task 4 lacks non-empty Context — task-specific background; the agent MUST be able to start from this section alone (DWP_SPECIFICATION §5)",
            "Full final task must be the Final Review, naming its security pass, final-state validation and skills reconciliation",
        ],
    )];
    let mut missing = Vec::new();
    let all = cases
        .iter()
        .map(|(p, l)| (format!("{REAL}/{p}"), *l))
        .chain(shop.iter().map(|(p, l)| (format!("{SHOP}/{p}"), *l)));
    for (plan, lines) in all {
        let (errs, _) = errors(&plan);
        for l in lines {
            if !errs.iter().any(|e| e == l) {
                missing.push(format!("{plan}: {l}\n    have: {errs:?}"));
            }
        }
        // The Plan Status count the v2 verifier requires.
        let needs_count = plan.contains("full_migration") || plan.contains("search_index");
        if needs_count
            && !errs.iter().any(|e| {
                e.starts_with("README Plan Status count disagrees with task checkboxes/state")
            })
        {
            missing.push(format!("{plan}: Plan Status count"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// A plan without a README is a partial materialization, not a plan at work.
#[test]
fn a_plan_without_a_readme_is_not_shown_executing() {
    let (_, status) = errors(&format!(
        "{REAL}/skill_tests_efficiency_new-shape-plan/PLAN_new_shape_fixture"
    ));
    assert_eq!(status, "incomplete");
}

/// The checkout example passes DWP's verifier (every line `+`): `check`
/// reports no error on it either.
#[test]
fn a_plan_the_verifier_passes_has_no_error() {
    let (errs, _) = errors(&format!("{SHOP}/PLAN_checkout_refactor"));
    assert_eq!(errs, Vec::<String>::new());
}

/// A v1 plan's Final Review file must name its three parts; the filename
/// alone proves nothing (the verifier's legacy rule).
#[test]
fn a_v1_final_review_names_its_three_parts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("PLAN_interrupted_fixture");
    common::copy_dir(
        &repo().join(format!(
            "{REAL}/skill_tests_efficiency_interrupted-plan/PLAN_interrupted_fixture"
        )),
        &dir,
    );
    for (name, body) in [
        ("1.task_add_greeter.md", "# Task 1\n"),
        ("2.task_add_math_helper.md", "# Task 2\n"),
        (
            "3.task_final_review.md",
            "# Task 3: Final review\n\nRun the security pass.\n",
        ),
    ] {
        std::fs::write(dir.join(name), body).unwrap();
    }
    let (errs, _) = errors(dir.to_str().unwrap());
    assert!(
        errs.iter().any(|e| e
            == "Final Review file does not mention: final-state-validation skills-reconciliation (DWP_SPECIFICATION §6.1) — the filename alone does not prove coverage"),
        "{errs:?}"
    );
    assert!(
        !errs.iter().any(|e| e.starts_with("mandatory final task")),
        "{errs:?}"
    );
}
