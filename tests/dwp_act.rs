//! `loopdeck act PLAN_DIR VERB` on Deep Work Plans: every verb on copies of
//! every real plan in tests/fixtures/dwp-real-world (DWP's own skill test
//! fixtures, from shared/real-world/dwp) where it applies, and its refusal
//! where it does not, with the protected updater's messages. Expected
//! states are computed from the real before-bytes, never typed to match.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::PathBuf;

use common::{copy_dir, loopdeck, repo, snapshot};
use serde_json::{Value, json};

const NOW: &str = "2026-10-01T12:00:00Z";

struct Plans {
    _tmp: tempfile::TempDir,
    state_home: PathBuf,
    root: PathBuf,
}

impl Plans {
    fn new() -> Plans {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("plans");
        let src = repo().join("tests/fixtures/dwp-real-world");
        for group in fs::read_dir(&src).unwrap() {
            let group = group.unwrap().path();
            for plan in fs::read_dir(&group).unwrap() {
                let plan = plan.unwrap().path();
                let name = plan.file_name().unwrap().to_str().unwrap().to_owned();
                if name.starts_with("PLAN_") {
                    copy_dir(&plan, &root.join(name));
                }
            }
        }
        let state_home = tmp.path().join("state");
        Plans {
            _tmp: tmp,
            state_home,
            root,
        }
    }

    fn dir(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// Every real plan's name.
    fn names(&self) -> Vec<String> {
        let mut n: Vec<String> = fs::read_dir(&self.root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_str().unwrap().to_owned())
            .collect();
        n.sort();
        n
    }

    fn act(&self, plan: &str, args: &[&str]) -> std::process::Output {
        loopdeck()
            .env("XDG_STATE_HOME", &self.state_home)
            .arg("act")
            .arg(self.dir(plan))
            .args(args)
            .args(["--now", NOW, "--by", "pm"])
            .output()
            .unwrap()
    }

    fn ok(&self, plan: &str, args: &[&str]) {
        let out = self.act(plan, args);
        assert!(
            out.status.success(),
            "{plan} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The decision is refused with `code` and a message containing `msg`,
    /// and not one byte of the plan changed.
    fn refused(&self, plan: &str, args: &[&str], code: i32, msg: &str) {
        let before = snapshot(&self.dir(plan));
        let out = self.act(plan, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{plan} {args:?}: {err}");
        assert!(err.contains(msg), "{plan} {args:?}: {err:?} lacks {msg:?}");
        assert_eq!(snapshot(&self.dir(plan)), before, "{plan} {args:?} wrote");
    }

    fn state(&self, plan: &str) -> Value {
        serde_json::from_slice(&self.bytes(plan, "state.json")).unwrap()
    }

    fn bytes(&self, plan: &str, file: &str) -> Vec<u8> {
        fs::read(self.dir(plan).join(file)).unwrap()
    }

    fn text(&self, plan: &str, file: &str) -> String {
        String::from_utf8(self.bytes(plan, file)).unwrap()
    }
}

const FULL: &str = "PLAN_full_migration_fixture";
const INTERRUPTED: &str = "PLAN_interrupted_fixture";
const LITE: &str = "PLAN_lite_fixture";
const NEW_SHAPE: &str = "PLAN_new_shape_fixture";

/// Every line of `before` is still in `after`, in order, except those
/// `changed` says were replaced: the rest of the file is untouched (but
/// for the comma a key inserted after a line's value puts there).
fn lines_kept(before: &str, after: &str, changed: &[&str]) {
    let mut rest = after.lines();
    for line in before.lines() {
        if changed.iter().any(|c| line.contains(c)) {
            continue;
        }
        assert!(
            rest.any(|l| l.trim_end_matches(',') == line.trim_end_matches(',')),
            "line {line:?} is gone from:\n{after}"
        );
    }
}

/// What the updater does after a change, computed on the expected value.
fn recount(s: &mut Value) {
    let tasks = s["tasks"].as_array().unwrap();
    let done = tasks.iter().filter(|t| t["status"] == "completed").count();
    let started = tasks
        .iter()
        .any(|t| t["status"] != "pending" && t["status"] != "skipped");
    s["completed_count"] = json!(done);
    s["status"] = json!(if !s["blocked"].is_null() && s.get("blocked").is_some() {
        "blocked"
    } else if started {
        "in_progress"
    } else {
        "pending"
    });
    s["updated_at"] = json!(NOW);
}

fn checkpoint(task: u64, step: &str, note: &str) -> Value {
    json!({"task": task, "step": step, "at": NOW, "note": note})
}

#[test]
fn every_real_plan_is_here() {
    let p = Plans::new();
    assert_eq!(p.names(), [FULL, INTERRUPTED, LITE, NEW_SHAPE]);
}

#[test]
fn approve_the_pending_v5_plan_byte_for_byte() {
    let p = Plans::new();
    let state = p.text(FULL, "state.json");
    let readme = p.text(FULL, "README.md");
    let manifest = p.bytes(FULL, "manifest.json");
    p.ok(FULL, &["approve"]);
    // Golden: the real bytes with exactly the two values changed.
    let want = state
        .replace("\"approval\": \"pending\"", "\"approval\": \"approved\"")
        .replace(
            "\"updated_at\": \"2026-09-26T00:00:00.000Z\"",
            &format!("\"updated_at\": \"{NOW}\""),
        );
    assert_ne!(want, state);
    assert_eq!(p.text(FULL, "state.json"), want);
    assert_eq!(
        p.text(FULL, "README.md"),
        readme.replace("Approval: pending", "Approval: approved")
    );
    assert_eq!(
        p.bytes(FULL, "manifest.json"),
        manifest,
        "manifest untouched"
    );
    // Approved once is approved: a second approval is refused.
    p.refused(FULL, &["approve"], 1, "plan is already approved");
}

#[test]
fn approve_is_refused_where_the_plan_is_already_approved() {
    let p = Plans::new();
    p.refused(LITE, &["approve"], 1, "plan is already approved");
}

/// Seed 002: with no approval field, the README's Approval line is the
/// value, and with neither the plan is pending. A v1 state cannot hold the
/// field, so approving adds the line to the README (below the title, in
/// its indentation); state.json and manifest.json keep every byte, and the
/// plan then reads as approved.
#[test]
fn approving_a_v1_plan_records_the_approval_in_its_readme() {
    let p = Plans::new();
    // The new-shape fixture has no README: nowhere to record an approval,
    // so none is offered and `approve` says why.
    let bare = common::json(&["show", p.dir(NEW_SHAPE).to_str().unwrap()]);
    let item = bare["inbox"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "approval")
        .unwrap();
    assert!(item.get("act").is_none(), "{item}");
    p.refused(
        NEW_SHAPE,
        &["approve"],
        1,
        "records its approval in README.md",
    );
    let v1 = INTERRUPTED;
    let dir = p.dir(v1).to_string_lossy().into_owned();
    let waiting = |v: &Value| {
        v["inbox"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["kind"] == "approval")
    };
    let shown = common::json(&["show", &dir]);
    assert!(waiting(&shown), "{v1}: pending before");
    let readme = p.text(v1, "README.md");
    let state = p.bytes(v1, "state.json");
    let manifest = p.bytes(v1, "manifest.json");
    p.ok(v1, &["approve"]);
    let after = p.text(v1, "README.md");
    let title = readme
        .lines()
        .find(|l| l.trim_start().starts_with("# "))
        .unwrap();
    let indent = &title[..title.len() - title.trim_start().len()];
    assert_eq!(
        after,
        readme.replacen(
            &format!("{title}\n"),
            &format!("{title}\n\n{indent}Approval: approved\n"),
            1
        ),
        "{v1}"
    );
    assert_eq!(p.bytes(v1, "state.json"), state, "{v1}: state stays v1");
    assert_eq!(p.bytes(v1, "manifest.json"), manifest, "{v1}");
    let shown = common::json(&["show", &dir]);
    assert!(!waiting(&shown), "{v1}: approved after");
    p.refused(v1, &["approve"], 1, "plan is already approved");
}

#[test]
fn an_unapproved_plan_takes_nothing_but_approval() {
    let p = Plans::new();
    for args in [
        &["block", "1", "--reason", "x"][..],
        &["unblock", "1"],
        &["reopen", "1", "--reason", "x"],
        &["reconcile"],
    ] {
        p.refused(FULL, args, 1, "plan is not approved");
    }
}

/// update-state.py blocks a later task too (it has no prior-task rule for
/// `blocked`); resolving that blocker then needs every earlier task
/// completed, with the updater's words (`check` names the stranded plan).
#[test]
fn a_later_task_is_blocked_as_the_updater_does() {
    let p = Plans::new();
    // The interrupted plan: task 2 is the open one, task 3 after it.
    let state = p.state(INTERRUPTED);
    let open: Vec<u64> = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["status"] != "completed")
        .map(|t| t["id"].as_u64().unwrap())
        .collect();
    assert!(open.len() >= 2, "{open:?}");
    let later = open[1].to_string();
    p.ok(INTERRUPTED, &["block", &later, "--reason", "r"]);
    assert_eq!(p.state(INTERRUPTED)["blocked"]["task"], open[1]);
    p.refused(
        INTERRUPTED,
        &["unblock", &later],
        1,
        "prior required task is not completed",
    );
    p.refused(
        INTERRUPTED,
        &["block", &open[0].to_string(), "--reason", "r"],
        1,
        "cannot replace an unrelated blocker",
    );
}

#[test]
fn block_and_unblock_on_every_approved_plan() {
    let p = Plans::new();
    for (plan, task) in [(INTERRUPTED, 2u64), (NEW_SHAPE, 2), (LITE, 1)] {
        let before = p.state(plan);
        let before_text = p.text(plan, "state.json");
        let manifest = fs::read(p.dir(plan).join("manifest.json")).ok();
        let v1 = before["schema"].as_str().unwrap().ends_with("/v1.json");
        let t = task.to_string();
        p.ok(
            plan,
            &[
                "block",
                &t,
                "--reason",
                "no API key",
                "--needs",
                "a sandbox key",
            ],
        );

        let mut want = before.clone();
        let i = (task - 1) as usize;
        want["tasks"][i]["status"] = json!("blocked");
        if want["tasks"][i].get("started_at").is_none() {
            want["tasks"][i]["started_at"] = json!(NOW);
        }
        want["blocked"] =
            json!({"task": task, "reason": "no API key", "since": NOW, "needs": "a sandbox key"});
        want["checkpoint"] = checkpoint(
            task,
            "blocked",
            &format!("Task {task} blocked by pm: no API key"),
        );
        recount(&mut want);
        let after = p.state(plan);
        assert_eq!(after, want, "{plan}");
        // v1 stays v1: same schema URL, `file` and never `locator`.
        assert_eq!(after["schema"], before["schema"]);
        for t in after["tasks"].as_array().unwrap() {
            assert_eq!(t.get("file").is_some(), v1, "{plan}");
            assert_eq!(t.get("locator").is_some(), !v1, "{plan}");
        }
        lines_kept(
            &before_text,
            &p.text(plan, "state.json"),
            &[
                "\"updated_at\"",
                "\"status\"",
                "\"checkpoint\"",
                "\"blocked\"",
                "\"step\"",
                "\"note\"",
                "\"at\"",
                "\"task\"",
                "}",
            ],
        );
        assert_eq!(fs::read(p.dir(plan).join("manifest.json")).ok(), manifest);

        // The updater's refusals while the blocker stands.
        let other = if task == 1 { "2" } else { "3" };
        p.refused(
            plan,
            &["unblock", other],
            1,
            "cannot resolve an unrelated or absent blocker",
        );
        p.refused(
            plan,
            &["block", other, "--reason", "y"],
            1,
            "cannot replace an unrelated blocker",
        );
        if plan != LITE {
            p.refused(
                plan,
                &["reopen", "1", "--reason", "y"],
                1,
                "resolve the active blocker explicitly first",
            );
        }
        p.refused(
            plan,
            &["unblock", "9"],
            1,
            "no task 9 in this plan (have: [1, 2",
        );

        p.ok(plan, &["unblock", &t]);
        let mut want2 = want.clone();
        want2["tasks"][i]["status"] = json!("in_progress");
        want2["blocked"] = Value::Null;
        want2["checkpoint"] = checkpoint(
            task,
            "resume",
            &format!("Task {task} unblocked by pm; resumed."),
        );
        recount(&mut want2);
        assert_eq!(p.state(plan), want2, "{plan}");
        p.refused(
            plan,
            &["unblock", &t],
            1,
            "cannot resolve an unrelated or absent blocker",
        );
    }
}

#[test]
fn a_blocker_is_resolved_only_after_the_tasks_before_it() {
    let p = Plans::new();
    // Task 1 of the Lite plan is open: task 2 can be blocked (the updater
    // accepts it) but not unblocked before task 1 is completed.
    p.refused(
        LITE,
        &["block", "1", "--reason", "  "],
        1,
        "blocking requires a reason",
    );
    p.ok(LITE, &["block", "2", "--reason", "waiting"]);
    p.refused(
        LITE,
        &["unblock", "2"],
        1,
        "prior required task is not completed",
    );
    p.ok(LITE, &["block", "2", "--reason", "still waiting"]);
    assert_eq!(p.state(LITE)["blocked"]["reason"], "still waiting");
    assert_eq!(p.state(LITE)["blocked"]["since"], NOW);
}

#[test]
fn reopen_a_completed_task_and_record_why() {
    let p = Plans::new();
    for plan in [INTERRUPTED, NEW_SHAPE] {
        let before = p.state(plan);
        let progress = fs::read(p.dir(plan).join("PROGRESS.md")).ok();
        p.ok(plan, &["reopen", "1", "--reason", "the greeting\nis wrong"]);
        let mut want = before.clone();
        want["tasks"][0]["status"] = json!("in_progress");
        want["checkpoint"] =
            checkpoint(1, "reopen", "Task 1 reopened by pm: the greeting is wrong");
        if want["tasks"][0].get("started_at").is_none() {
            want["tasks"][0]["started_at"] = json!(NOW);
        }
        // Refine's stamp: the old evidence is kept, never passing again.
        for g in want["tasks"][0]["gates"].as_array_mut().unwrap() {
            let old = g["evidence"].as_str().unwrap().to_owned();
            g["evidence"] = json!(format!("invalidated by refine: {old}"));
        }
        recount(&mut want);
        assert_eq!(p.state(plan), want, "{plan}");
        assert_eq!(p.state(plan)["completed_count"], 0);
        // PROGRESS.md: the old bytes, then the reopen (created if missing).
        let now = p.bytes(plan, "PROGRESS.md");
        let prefix = progress.clone().unwrap_or_else(|| b"# Progress\n".to_vec());
        assert!(now.starts_with(&prefix), "{plan}");
        let added = String::from_utf8(now[prefix.len()..].to_vec()).unwrap();
        assert_eq!(
            added,
            format!(
                "\n## Reopen — {NOW} (pm)\n\n- Task 1 reopened (completed → in_progress): the greeting is wrong; its gate evidence is invalidated by refine and the README box is unticked (re-validate)\n"
            )
        );
        p.refused(
            plan,
            &["reopen", "3", "--reason", "x"],
            1,
            "task 3 is pending, not completed",
        );
    }
    p.refused(LITE, &["reopen", "1", "--reason", "x"], 1, "not completed");
}

#[test]
fn reconcile_takes_the_readme_s_side_and_notes_it_in_progress() {
    let p = Plans::new();
    // The real plans agree with their README, or have none to reconcile from.
    p.refused(INTERRUPTED, &["reconcile"], 1, "nothing to reconcile");
    p.refused(LITE, &["reconcile"], 1, "nothing to reconcile");
    p.refused(NEW_SHAPE, &["reconcile"], 1, "no README.md");

    // A human unticks Task 1: Markdown wins, the task is no longer completed.
    let readme_path = p.dir(INTERRUPTED).join("README.md");
    let readme = p.text(INTERRUPTED, "README.md");
    fs::write(&readme_path, readme.replace("- [x] Task 1", "- [ ] Task 1")).unwrap();
    let readme_now = p.bytes(INTERRUPTED, "README.md");
    let before = p.state(INTERRUPTED);
    let progress = p.bytes(INTERRUPTED, "PROGRESS.md");
    p.ok(INTERRUPTED, &["reconcile"]);
    let mut want = before.clone();
    want["tasks"][0]["status"] = json!("in_progress");
    want["tasks"][0]["started_at"] = json!(NOW);
    want["checkpoint"] = checkpoint(
        1,
        "reconcile",
        "Reconciled from the README by pm: 1 task(s) changed.",
    );
    recount(&mut want);
    assert_eq!(p.state(INTERRUPTED), want);
    assert_eq!(
        p.bytes(INTERRUPTED, "README.md"),
        readme_now,
        "README is the source, untouched"
    );
    let after = p.bytes(INTERRUPTED, "PROGRESS.md");
    assert!(after.starts_with(&progress));
    let added = String::from_utf8(after[progress.len()..].to_vec()).unwrap();
    assert_eq!(
        added,
        format!(
            "\n## Reconciliation — {NOW} (pm)\n\n- Task 1: state.json completed → in_progress (README box unchecked)\n- state.json regenerated from the README's checkboxes (Markdown wins); plan in_progress, 0/3 completed\n"
        )
    );
    p.refused(INTERRUPTED, &["reconcile"], 1, "nothing to reconcile");
}

#[test]
fn a_ticked_box_never_completes_a_task_without_passing_gate_evidence() {
    let p = Plans::new();
    let path = p.dir(INTERRUPTED).join("README.md");
    let readme = p.text(INTERRUPTED, "README.md");
    fs::write(&path, readme.replace("- [ ] Task 2", "- [x] Task 2")).unwrap();
    p.refused(
        INTERRUPTED,
        &["reconcile"],
        1,
        "completion requires successful gates with command, exit code and evidence: the README checks task 2",
    );
    // With passing evidence for every task, the plan would be completed:
    // that is the finalizer's transition, never loopdeck's.
    let mut s = p.state(INTERRUPTED);
    let gate = s["tasks"][0]["gates"][0].clone();
    s["tasks"][1]["gates"] = json!([gate.clone()]);
    s["tasks"][2]["gates"] = json!([gate]);
    fs::write(
        p.dir(INTERRUPTED).join("state.json"),
        serde_json::to_vec_pretty(&s).unwrap(),
    )
    .unwrap();
    fs::write(&path, readme.replace("- [ ]", "- [x]")).unwrap();
    p.refused(
        INTERRUPTED,
        &["reconcile"],
        1,
        "completion goes through the plan's finalizer",
    );
}

#[test]
fn an_incoherent_state_is_never_written_and_every_problem_is_named() {
    let p = Plans::new();
    let path = p.dir(LITE).join("state.json");
    let text = p.text(LITE, "state.json");
    let bad = text
        .replace("\"completed_count\": 0", "\"completed_count\": 5")
        .replacen(
            "\"status\": \"pending\",\n      \"gates\"",
            "\"status\": \"done\",\n      \"gates\"",
            1,
        );
    assert_ne!(bad, text);
    fs::write(&path, bad).unwrap();
    // The updater's state contract: the closed shape first, each problem
    // with its path…
    p.refused(
        LITE,
        &["block", "1", "--reason", "x"],
        1,
        "invalid input: $.tasks[0].status: unknown value 'done'",
    );
    // …then, on a well-shaped state, its coherence rules.
    fs::write(
        &path,
        text.replace("\"completed_count\": 0", "\"completed_count\": 5"),
    )
    .unwrap();
    p.refused(
        LITE,
        &["block", "1", "--reason", "x"],
        1,
        "invalid input: completed_count mismatch",
    );
}

#[test]
fn an_existing_lock_stops_the_write() {
    let p = Plans::new();
    fs::create_dir(p.dir(INTERRUPTED).join("state.json.lock")).unwrap();
    p.refused(
        INTERRUPTED,
        &["block", "2", "--reason", "x"],
        3,
        "state is locked; inspect interrupted writer before recovering lock",
    );
    // A young lock may be a live writer's: not removed, even confirmed.
    p.refused(
        INTERRUPTED,
        &["unlock", "--confirm"],
        3,
        "a writer may still hold it",
    );
    assert!(p.dir(INTERRUPTED).join("state.json.lock").is_dir());
}

#[test]
fn a_stale_lock_is_shown_with_its_age_and_removed_only_when_confirmed() {
    let p = Plans::new();
    p.refused(
        INTERRUPTED,
        &["unlock", "--confirm"],
        1,
        "there is no state.json.lock to remove",
    );
    let lock = p.dir(INTERRUPTED).join("state.json.lock");
    fs::create_dir(&lock).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 3600);
    fs::File::open(&lock).unwrap().set_modified(old).unwrap();
    p.refused(
        INTERRUPTED,
        &["unlock"],
        1,
        "state.json.lock has been held for 2h",
    );
    let out = p.act(INTERRUPTED, &["unlock", "--confirm", "--dry-run"]);
    assert!(out.status.success());
    assert!(lock.is_dir(), "--dry-run removes nothing");
    let out = loopdeck()
        .env("XDG_STATE_HOME", &p.state_home)
        .arg("act")
        .arg(p.dir(INTERRUPTED))
        .args(["unlock", "--confirm", "--readonly"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(lock.is_dir(), "--readonly removes nothing");
    p.ok(INTERRUPTED, &["unlock", "--confirm"]);
    assert!(!lock.exists());
    // And the next decision goes through.
    p.ok(INTERRUPTED, &["block", "2", "--reason", "x"]);
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn a_stale_snapshot_is_refused_with_exit_3() {
    let p = Plans::new();
    let sha = sha256(&p.bytes(INTERRUPTED, "state.json"));
    let stale = sha256(b"an older state");
    p.refused(
        INTERRUPTED,
        &["block", "2", "--reason", "x", "--expect-sha256", &stale],
        3,
        "stale state snapshot",
    );
    p.ok(
        INTERRUPTED,
        &["block", "2", "--reason", "x", "--expect-sha256", &sha],
    );
    // The snapshot it was made from is now stale.
    p.refused(
        INTERRUPTED,
        &["unblock", "2", "--expect-sha256", &sha],
        3,
        "stale state snapshot",
    );
}

#[test]
fn dry_run_and_readonly_write_nothing() {
    let p = Plans::new();
    for plan in [INTERRUPTED, LITE, NEW_SHAPE] {
        // The current task (the first not completed): a decision the real
        // run would make, so the dry run does all but the write.
        let current = p.state(plan)["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["status"] != "completed")
            .unwrap()["id"]
            .to_string();
        let before = snapshot(&p.dir(plan));
        let out = p.act(plan, &["block", &current, "--reason", "x", "--dry-run"]);
        let err = String::from_utf8_lossy(&out.stderr);
        let shown = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{plan}: {err}");
        assert!(shown.contains("+++ b/state.json"), "{plan}: {shown}");
        assert!(shown.contains("\"blocked\""), "{plan}: {shown}");
        assert_eq!(snapshot(&p.dir(plan)), before, "{plan}");
        let out = loopdeck()
            .env("XDG_STATE_HOME", &p.state_home)
            .arg("act")
            .arg(p.dir(plan))
            .args(["block", &current, "--reason", "x", "--readonly"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("read-only"));
        assert_eq!(snapshot(&p.dir(plan)), before);
        // The same decision, really made, writes.
        p.ok(plan, &["block", &current, "--reason", "x"]);
        assert_ne!(snapshot(&p.dir(plan)), before, "{plan}");
    }
}

#[test]
fn other_formats_verbs_are_not_dwp_decisions() {
    let p = Plans::new();
    p.refused(LITE, &["sign-off"], 1, "`sign-off` is not a dwp decision");
}

/// Every decision that changes state.json on a real plan leaves every
/// untouched byte where it was: the splice writer, not a re-serialisation
/// (the v5 fixture writes inline `{ "kind": ..., "value": ... }` objects).
#[test]
fn inline_objects_of_the_v5_plan_survive_a_decision() {
    let p = Plans::new();
    p.ok(FULL, &["approve"]);
    p.ok(FULL, &["block", "1", "--reason", "x"]);
    let text = p.text(FULL, "state.json");
    assert!(text.contains(
        "\"updated_by\": { \"agent\": \"legacy-fixture-author\", \"model\": \"fixture\" },"
    ));
    assert!(
        text.contains("\"locator\": { \"kind\": \"file\", \"value\": \"1.task_narrow_k1.md\" },")
    );
}

/// The reader reads what a decision wrote: the blocker is in the inbox,
/// and no decision adds an error finding to a real plan.
#[test]
fn the_reader_reads_every_decision_back() {
    let p = Plans::new();
    let show = |plan: &str| -> Value {
        let out = loopdeck()
            .args(["show"])
            .arg(p.dir(plan))
            .args(["--now", NOW, "--json"])
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let errors = |v: &Value| -> Vec<String> {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["level"] == "error")
            .map(|f| f["code"].as_str().unwrap().to_owned())
            .collect()
    };
    for (plan, task) in [
        (INTERRUPTED, "2"),
        (NEW_SHAPE, "2"),
        (LITE, "1"),
        (FULL, "1"),
    ] {
        let before = errors(&show(plan));
        if plan == FULL {
            p.ok(plan, &["approve"]);
            let v = show(plan);
            assert!(
                v["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|f| f["code"] != "dwp.approval-pending")
            );
        }
        // No new error; a PROGRESS.md the decision records in may fill a
        // gap of the folder (the verifier's "missing PROGRESS.md").
        let no_new = |after: Vec<String>| {
            let progress = "dwp.folder-incomplete".to_owned();
            let mut want = before.clone();
            if after.iter().filter(|c| **c == progress).count()
                < want.iter().filter(|c| **c == progress).count()
            {
                let at = want.iter().position(|c| *c == progress).unwrap();
                want.remove(at);
            }
            assert_eq!(after, want, "{plan}");
        };
        p.ok(plan, &["block", task, "--reason", "needs a key"]);
        let v = show(plan);
        no_new(errors(&v));
        let text = v.to_string();
        assert!(text.contains("needs a key"), "{plan}: the blocker is shown");
        p.ok(plan, &["unblock", task]);
        no_new(errors(&show(plan)));
    }
}

/// `--json` names each file with the sha256 of its bytes before and after.
#[test]
fn json_reports_each_file_before_and_after() {
    let p = Plans::new();
    let state = p.bytes(FULL, "state.json");
    let readme = p.bytes(FULL, "README.md");
    let out = p.act(FULL, &["approve", "--json"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["decision"]["verb"], "approve");
    let files = v["files"].as_array().unwrap();
    let file = |name: &str| files.iter().find(|f| f["file"] == name).unwrap().clone();
    assert_eq!(file("state.json")["before"]["sha256"], sha256(&state));
    assert_eq!(
        file("state.json")["after"]["sha256"],
        sha256(&p.bytes(FULL, "state.json"))
    );
    assert_eq!(file("README.md")["before"]["sha256"], sha256(&readme));
    assert_eq!(
        file("README.md")["after"]["sha256"],
        sha256(&p.bytes(FULL, "README.md"))
    );
    assert_eq!(files.len(), 2, "manifest.json is never among them");
}

/// A v1 plan records its approval only in the README: approving changes
/// that line's word (not an example inside fenced code) and leaves v1 v1.
#[test]
fn approving_a_v1_plan_whose_readme_says_pending() {
    let p = Plans::new();
    let path = p.dir(INTERRUPTED).join("README.md");
    let readme = p.text(INTERRUPTED, "README.md");
    let pending = readme.replacen(
        "    ## 1. Goal",
        "```\nApproval: pending\n```\n**Approval:** pending\r\n\n    ## 1. Goal",
        1,
    );
    assert_ne!(pending, readme);
    fs::write(&path, &pending).unwrap();
    let state = p.text(INTERRUPTED, "state.json");
    p.ok(INTERRUPTED, &["approve"]);
    assert_eq!(
        p.text(INTERRUPTED, "README.md"),
        pending.replace("**Approval:** pending", "**Approval:** approved")
    );
    assert_eq!(
        p.text(INTERRUPTED, "state.json"),
        state.replace(
            "\"updated_at\": \"2026-06-01T10:20:00Z\"",
            &format!("\"updated_at\": \"{NOW}\"")
        ),
        "v1 has no approval field: only updated_at moves"
    );
    p.refused(INTERRUPTED, &["approve"], 1, "plan is already approved");
}
