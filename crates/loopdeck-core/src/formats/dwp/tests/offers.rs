//! The decisions a plan offers (`Project::acts`) and its inbox items keep:
//! exactly those the protected updater accepts on the plan as read.

use super::*;

/// `(verb, target)` of every decision the plan offers.
fn acts(p: &Project) -> Vec<(&str, Option<&str>)> {
    p.acts
        .iter()
        .map(|a| (a.verb, a.target.as_deref()))
        .collect()
}

/// The inbox item of `kind` and the verb it offers, if any.
fn inbox_act(p: &Project, kind: InboxKind) -> Option<&str> {
    let item = p.inbox.iter().find(|i| i.kind == kind).expect("the item");
    item.act.as_ref().map(|a| a.verb)
}

#[test]
fn each_task_offers_what_its_state_allows() {
    // Block only the current task (every earlier one completed), reopen
    // only completed ones; a later pending task offers nothing.
    let (_t, p) = read(&full_plan(&["completed", "in_progress", "pending"]));
    assert_eq!(
        acts(&p),
        vec![("reopen", Some("1")), ("block", Some("2"))],
        "{:?}",
        p.acts
    );

    // A blocked task: unblock it, or block it again (a new reason); no
    // reopen while a blocker is active.
    let mut f = full_plan(&["completed", "blocked", "pending"]);
    f.edit_state(|s| {
        s["blocked"] = json!({"task": 2, "reason": "r", "since": "2026-05-31T09:45:00Z"});
    });
    let (_t, p) = read(&f);
    assert_eq!(acts(&p), vec![("block", Some("2")), ("unblock", Some("2"))]);
    assert_eq!(inbox_act(&p, InboxKind::Blocked), Some("unblock"));

    // Every task done: each may be reopened, none blocked.
    let (_t, p) = read(&full_plan(&["completed", "completed"]));
    assert_eq!(acts(&p), vec![("reopen", Some("1")), ("reopen", Some("2"))]);
}

#[test]
fn a_plan_that_is_not_approved_or_not_ready_offers_only_what_it_may() {
    let mut f = full_plan(&["completed", "in_progress"]);
    f.edit_state(|s| s["approval"] = json!("pending"));
    let readme = f
        .get(README)
        .replace("Approval: approved", "Approval: pending");
    f.set(README, readme);
    let (_t, p) = read(&f);
    assert_eq!(acts(&p), vec![("approve", None)]);
    assert_eq!(inbox_act(&p, InboxKind::Approval), Some("approve"));

    // A promotion under way: the updater takes nothing.
    let mut f = full_plan(&["completed", "in_progress"]);
    f.edit_state(|s| s["promotion"] = json!({"to": "full"}));
    let (_t, p) = read(&f);
    assert_eq!(acts(&p), Vec::<(&str, Option<&str>)>::new());

    // An incoherent state ("invalid input"): nothing.
    let mut f = full_plan(&["completed", "in_progress"]);
    f.edit_state(|s| s["completed_count"] = json!(2));
    let (_t, p) = read(&f);
    assert!(p.acts.is_empty(), "{:?}", p.acts);
}

#[test]
fn a_desync_offers_reconcile_only_when_the_rules_take_it() {
    // The README ticks task 2, whose state holds no passing gate: the
    // reconciliation is refused, so the desync offers no decision.
    let mut f = full_plan(&["completed", "in_progress", "pending"]);
    let readme = f.get(README).replace("- [ ] Task 2", "- [x] Task 2");
    f.set(README, readme);
    let (_t, p) = read(&f);
    assert_eq!(inbox_act(&p, InboxKind::Desync), None);
    assert!(!acts(&p).contains(&("reconcile", None)), "{:?}", p.acts);

    // With its gate passed, it is offered, on the item and the plan.
    f.edit_state(|s| s["tasks"][1]["gates"] = task_json(1, 3, "completed")["gates"].clone());
    let (_t, p) = read(&f);
    assert_eq!(inbox_act(&p, InboxKind::Desync), Some("reconcile"));
    assert!(acts(&p).contains(&("reconcile", None)), "{:?}", p.acts);
}

#[test]
fn a_plan_without_state_offers_nothing() {
    // The updater changes state.json: a plan without one (a Lite plan
    // awaiting approval) has nothing for it to change.
    let mut f = full_plan(&["completed", "pending"]);
    f.remove(STATE);
    let readme = f
        .get(README)
        .replace("Approval: approved", "Approval: pending");
    f.set(README, readme);
    let (_t, p) = read(&f);
    assert!(p.acts.is_empty(), "{:?}", p.acts);
    assert_eq!(inbox_act(&p, InboxKind::Approval), None);
}

/// Seed 002: an interrupted finalization leaves `.finalizing.json`, and
/// normal validation fails until it is recovered: the plan offers no
/// state change (the inbox says to inspect it) and the act refuses one.
#[test]
fn an_interrupted_finalization_offers_and_takes_no_state_change() {
    let mut f = full_plan(&["completed", "in_progress", "pending"]);
    f.set(FINALIZING, r#"{"candidate_sha256":"0"}"#.to_owned());
    let (t, p) = read(&f);
    assert!(p.acts.is_empty(), "{:?}", p.acts);
    assert!(p.inbox.iter().all(|i| i.act.is_none()), "{:?}", p.inbox);
    let req = crate::model::Request {
        verb: crate::model::Verb::Block {
            task: "2".into(),
            reason: "r".into(),
            needs: None,
        },
        by: "t".into(),
        now: chrono::Utc::now(),
        devloop_api: None,
        config_file: None,
    };
    let opts = crate::store::txn::WriteOptions {
        dry_run: true,
        ..Default::default()
    };
    let err = act::act(&p.path, &req, &opts).unwrap_err();
    assert!(err.to_string().contains(".finalizing.json"), "{err}");
    drop(t);
}
