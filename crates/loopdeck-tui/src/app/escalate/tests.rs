//! `[[escalate]]` rules and `[notify] command` in the console, on the pure
//! update (issue 20 §5).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use chrono::{TimeDelta, TimeZone, Utc};

use super::super::tests::{model, project};
use super::super::{Effect, Event, panes, update};
use super::*;
use crate::model::Format;
use crate::model::escalate::Rule;

fn notifies(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Notify { body, .. } => Some(body.clone()),
            _ => None,
        })
        .collect()
}

fn hooks(effects: &[Effect]) -> Vec<serde_json::Value> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Hook(json) => Some(serde_json::from_str(json).unwrap()),
            _ => None,
        })
        .collect()
}

/// `stuck`: questions that waited more than 31 days. alpha's OQ-0 waits
/// since May 1 (31.5 days at "now", June 1 noon), OQ-1 since May 2.
fn stuck() -> Rule {
    Rule {
        kinds: vec!["question".into()],
        waited: Some(TimeDelta::days(31)),
        ..Rule::any("stuck")
    }
}

/// A rule notifies once per item, when it starts firing (at a reading, or
/// when the clock gets there), and again only for an item asked again
/// after it was answered.
#[test]
fn a_rule_notifies_once_per_item_and_again_only_when_asked_again() {
    let _en = crate::i18n::scoped(crate::i18n::Lang::En);
    {
        let alpha = project("alpha", Format::Gsd, 2);
        let mut m = model(vec![alpha.clone()]);
        m.rules = vec![stuck()];
        let effects = update(&mut m, Event::Loaded(vec![alpha.clone()]));
        assert_eq!(
            notifies(&effects),
            ["escalated by stuck · question: question 0 of alpha"]
        );
        assert!(effects.contains(&Effect::SaveFirstSeen));
        assert!(hooks(&effects).is_empty(), "no command configured");
        // Read again, and again: nothing more.
        for _ in 0..2 {
            let effects = update(&mut m, Event::Loaded(vec![alpha.clone()]));
            assert_eq!(notifies(&effects), Vec::<String>::new());
        }
        // The clock reaches OQ-1's 31st day: it is the one notified.
        let later = Utc.with_ymd_and_hms(2026, 6, 2, 0, 0, 1).unwrap();
        assert_eq!(
            next_due(&m),
            Some(Utc.with_ymd_and_hms(2026, 6, 2, 0, 0, 0).unwrap() + TimeDelta::milliseconds(1))
        );
        let effects = update(&mut m, Event::Clock(later));
        assert_eq!(
            notifies(&effects),
            ["escalated by stuck · question: question 1 of alpha"]
        );
        assert_eq!(next_due(&m), None);
        assert_eq!(
            notifies(&update(&mut m, Event::Clock(later))),
            Vec::<String>::new()
        );
        // OQ-0 answered, then asked again: notified again.
        let mut answered = alpha.clone();
        answered.inbox.remove(0);
        update(&mut m, Event::Loaded(vec![answered]));
        let effects = update(&mut m, Event::Loaded(vec![alpha.clone()]));
        // Asked again, it waits from now by its file's own time (May 1).
        assert_eq!(
            notifies(&effects)
                .iter()
                .filter(|n| n.contains("escalated"))
                .count(),
            1
        );
    }
}

/// Several items in one reading are one notification naming the rules;
/// with a command configured, each is handed to it as JSON.
#[test]
fn the_command_gets_each_escalated_and_each_new_item_as_json() {
    let _en = crate::i18n::scoped(crate::i18n::Lang::En);
    {
        let alpha = project("alpha", Format::Gsd, 2);
        let beta = project("beta", Format::Devloop, 1);
        let mut m = model(vec![alpha.clone(), beta.clone()]);
        m.hook = true;
        m.rules = vec![
            Rule {
                formats: vec![Format::Devloop],
                ..Rule::any("devloop now")
            },
            stuck(),
        ];
        let effects = update(&mut m, Event::Loaded(vec![alpha.clone(), beta.clone()]));
        assert_eq!(
            notifies(&effects),
            ["2 items escalated · stuck, devloop now"]
        );
        let sent = hooks(&effects);
        assert_eq!(sent.len(), 2);
        let a = sent
            .iter()
            .find(|v| v["project"]["name"] == "alpha")
            .unwrap();
        assert_eq!(a["schema_version"], 1);
        assert_eq!(a["event"], "escalated");
        assert_eq!(a["escalated_by"], serde_json::json!(["stuck"]));
        assert_eq!(a["item"]["kind"], "question");
        assert_eq!(a["item"]["ref"], "OQ-0");
        assert_eq!(a["item"]["waiting_since"], "2026-05-01T00:00:00Z");
        assert_eq!(a["project"]["format"], "gsd");
        assert_eq!(a["project"]["path"], "/w/alpha");
        // A new item on a later reading: the terminal and the command hear
        // of it as waiting (no rule fires on it yet).
        let mut alpha2 = alpha.clone();
        let mut fresh = alpha.inbox[1].clone();
        fresh.reference = "OQ-9".into();
        fresh.title = "a new one".into();
        fresh.since = Some(m.now);
        alpha2.inbox.push(fresh);
        let effects = update(&mut m, Event::Loaded(vec![alpha2, beta]));
        // One notification, whatever rang it.
        assert_eq!(notifies(&effects), ["question: a new one"]);
        let sent = hooks(&effects);
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0]["event"], "waiting");
        assert_eq!(sent[0]["item"]["title"], "a new one");
        assert_eq!(sent[0]["escalated_by"], serde_json::json!([]));
    }
}

/// What a rule ranks first leads the inbox, oldest first; a rule with
/// `first = false` only marks. The header counts what fires.
#[test]
fn escalated_items_rank_first_in_the_inbox() {
    let mut m = model(vec![
        project("alpha", Format::Gsd, 3),
        project("beta", Format::Devloop, 2),
    ]);
    let order = |m: &Model| -> Vec<String> {
        panes::inbox(m)
            .iter()
            .map(|&(pi, ii)| {
                format!(
                    "{}:{}",
                    m.projects[pi].name, m.projects[pi].inbox[ii].reference
                )
            })
            .collect()
    };
    assert_eq!(
        order(&m),
        [
            "alpha:OQ-0",
            "beta:OQ-0",
            "alpha:OQ-1",
            "beta:OQ-1",
            "alpha:OQ-2"
        ]
    );
    m.rules = vec![Rule {
        formats: vec![Format::Devloop],
        ..Rule::any("devloop")
    }];
    assert_eq!(
        order(&m),
        [
            "beta:OQ-0",
            "beta:OQ-1",
            "alpha:OQ-0",
            "alpha:OQ-1",
            "alpha:OQ-2"
        ]
    );
    assert_eq!(escalated_total(&m), 2);
    m.rules[0].first = false;
    assert_eq!(
        order(&m),
        [
            "alpha:OQ-0",
            "beta:OQ-0",
            "alpha:OQ-1",
            "beta:OQ-1",
            "alpha:OQ-2"
        ]
    );
    assert_eq!(escalated_total(&m), 2);
}

/// The command's failures reach the header once, and their end too.
#[test]
fn a_failing_command_is_said_until_it_runs_well() {
    let mut m = model(vec![]);
    let effects = update(
        &mut m,
        Event::Hook(Some("the notify command x failed".into())),
    );
    assert_eq!(effects, [Effect::Render]);
    assert_eq!(
        m.hook_failure.as_deref(),
        Some("the notify command x failed")
    );
    assert!(
        update(
            &mut m,
            Event::Hook(Some("the notify command x failed".into()))
        )
        .is_empty()
    );
    assert_eq!(update(&mut m, Event::Hook(None)), [Effect::Render]);
    assert_eq!(m.hook_failure, None);
}

/// An item new and escalated in the same reading rings once.
#[test]
fn new_and_escalated_in_one_reading_are_one_notification() {
    let _en = crate::i18n::scoped(crate::i18n::Lang::En);
    let mut m = model(vec![]);
    m.rules = vec![Rule::any("all")];
    let effects = update(
        &mut m,
        Event::Loaded(vec![project("beta", Format::Devloop, 1)]),
    );
    assert_eq!(
        notifies(&effects),
        ["question: question 0 of beta · escalated by all · question: question 0 of beta"]
    );
}

/// A rule naming `stalled` fires on a project whose work says it runs
/// while its files are silent past the rule's `waited`: once per stall,
/// with a `stalled` event for the command; the header counts it.
#[test]
fn a_stall_rule_notifies_once_per_stall() {
    let _en = crate::i18n::scoped(crate::i18n::Lang::En);
    let mut p = project("gamma", Format::Devloop, 0);
    // Its last sign of life 40 minutes before "now", a 10-minute limit.
    let last = Utc.with_ymd_and_hms(2026, 6, 1, 11, 20, 0).unwrap();
    p.activity = Some(crate::model::Activity {
        last: Some(last),
        limit: Some(TimeDelta::minutes(10)),
    });
    let mut m = model(vec![p.clone()]);
    m.hook = true;
    m.rules = vec![Rule {
        kinds: vec!["stalled".into()],
        waited: Some(TimeDelta::minutes(30)),
        ..Rule::any("silent loop")
    }];
    let effects = update(&mut m, Event::Loaded(vec![p.clone()]));
    assert_eq!(
        notifies(&effects),
        ["escalated by silent loop · stalled 40m"]
    );
    let sent = hooks(&effects);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["event"], "stalled");
    assert_eq!(sent[0]["stall"]["silent_seconds"], 2400);
    assert_eq!(sent[0]["escalated_by"], serde_json::json!(["silent loop"]));
    assert_eq!(escalated_total(&m), 1);
    assert!(notifies(&update(&mut m, Event::Loaded(vec![p.clone()]))).is_empty());
    // The agent writes: no stall, forgotten; a later stall notifies again.
    let mut alive = p.clone();
    alive.activity = Some(crate::model::Activity {
        last: Some(m.now),
        limit: Some(TimeDelta::minutes(10)),
    });
    update(&mut m, Event::Loaded(vec![alive]));
    assert_eq!(escalated_total(&m), 0);
    assert_eq!(notifies(&update(&mut m, Event::Loaded(vec![p]))).len(), 1);
    // Before the rule's 30 minutes, the stall alone does not fire it.
    let quiet = Utc.with_ymd_and_hms(2026, 6, 1, 11, 45, 0).unwrap();
    m.now = quiet;
    assert_eq!(escalated_total(&m), 0);
    assert_eq!(
        next_due(&m),
        Some(Utc.with_ymd_and_hms(2026, 6, 1, 11, 50, 1).unwrap())
    );
}
