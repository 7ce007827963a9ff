#![allow(clippy::unwrap_used, clippy::expect_used)]
use super::*;

fn addr(verb: &'static str, target: Option<&str>, options: &[&str]) -> Address {
    Address::new(
        verb,
        target.map(str::to_owned),
        options.iter().map(|o| (*o).to_owned()).collect(),
    )
}

#[test]
fn an_answer_is_free_text_or_the_option_picked() {
    let a = addr("answer", Some("OQ-3"), &[]);
    assert_eq!(
        a.fields(None).len(),
        2,
        "the answer and an optional rationale"
    );
    assert!(!a.fields(None)[1].required);
    // A rationale makes the answer a key decision D-n.
    assert_eq!(
        a.build(None, &["Postgres".to_owned(), "ops know it".to_owned()])
            .unwrap(),
        Verb::Answer {
            id: Some("OQ-3".into()),
            text: "Postgres".into(),
            key_decision: true,
            rationale: Some("ops know it".into())
        }
    );
    assert_eq!(
        a.build(None, &["  Postgres \n".to_owned()]).unwrap(),
        Verb::Answer {
            id: Some("OQ-3".into()),
            text: "  Postgres".into(),
            key_decision: false,
            rationale: None
        }
    );
    assert_eq!(
        a.build(None, &[" \n ".to_owned()]),
        Err("answer is empty".to_owned())
    );
    let gsd = addr("answer", Some(&"a".repeat(64)), &["Yes", "No"]);
    assert!(gsd.fields(Some("No")).is_empty());
    // GSD writes an answer as one line of STATE.md; PRD-master keeps lines.
    assert!(!gsd.fields(None)[0].multiline);
    assert!(a.fields(None)[0].multiline);
    assert!(matches!(
        gsd.build(Some("No"), &[]).unwrap(),
        Verb::Answer { text, .. } if text == "No"
    ));
    assert_eq!(gsd.describe(Some("No")), "answer: No");
}

#[test]
fn a_bug_needs_its_status_and_a_duplicate_needs_the_other_id() {
    let a = addr("bug", Some("BUG-2"), &["fixed", "duplicate"]);
    assert_eq!(
        a.build(None, &[]),
        Err("pick one of the options".to_owned())
    );
    assert_eq!(
        a.build(Some("duplicate"), &[String::new(), "n".into()]),
        Err("duplicate of (bug id) is empty".to_owned())
    );
    assert_eq!(
        a.build(Some("fixed"), &["done".into(), " abc123 ".into()])
            .unwrap(),
        Verb::Bug {
            id: "BUG-2".into(),
            status: "fixed".into(),
            note: Some("done".into()),
            duplicate_of: None,
            fix_ref: Some("abc123".into())
        }
    );
    assert_eq!(a.describe(Some("fixed")), "bug BUG-2 → fixed");
}

#[test]
fn the_sign_off_item_also_abandons() {
    let a = addr("sign-off", None, &["sign-off", "abandon"]);
    assert_eq!(a.build(Some("abandon"), &[]).unwrap(), Verb::Abandon);
    assert_eq!(a.build(Some("sign-off"), &[]).unwrap(), Verb::SignOff);
    assert_eq!(a.describe(Some("abandon")), "abandon");
}

#[test]
fn optional_fields_left_empty_are_absent() {
    let a = addr("block", Some("3"), &[]);
    assert_eq!(
        a.build(None, &["waits on infra".into(), "  ".into()])
            .unwrap(),
        Verb::Block {
            task: "3".into(),
            reason: "waits on infra".into(),
            needs: None
        }
    );
    assert_eq!(
        addr("unlock", None, &[]).build(None, &[]).unwrap(),
        Verb::Unlock { confirm: true }
    );
}

/// A paused agent whose restart is already recorded offers only
/// `resume`; once its token lapses nothing is left to decide: the item
/// still waits, but offers no decision (instead of one that can never be
/// sent).
#[test]
fn a_resume_with_no_option_left_offers_no_decision() {
    use crate::model::{Agent, Format, InboxItem, InboxKind, Project, StatusKind};
    use chrono::TimeZone;
    let paused = chrono::Utc.with_ymd_and_hms(2026, 5, 31, 0, 0, 0).unwrap();
    let mut p = Project::new(Format::Devloop, "/w/l".into(), "l".into());
    p.detail.agents.push(Agent {
        agent: "dev-1".into(),
        status: "paused".into(),
        status_kind: StatusKind::Waiting,
        step: None,
        step_index: None,
        total_steps: None,
        doing: None,
        unit: None,
        progress_pct: None,
        paused_at: Some(paused),
        has_resume_token: true,
        resume_expires_at: Some(paused + chrono::Duration::hours(24)),
        started_at: None,
        error: None,
    });
    p.inbox.push(InboxItem {
        kind: InboxKind::Resume,
        act: Some(addr("resume-agent", Some("dev-1"), &["resume"])),
        reference: "agent-state/dev-1.json".into(),
        title: "dev-1 paused".into(),
        since: Some(paused),
        options: vec!["resume".into()],
        subject: Some("dev-1".into()),
    });
    let before = p.inbox_at(paused + chrono::Duration::hours(2));
    assert_eq!(before[0].act.as_ref().unwrap().options, ["resume"]);
    let after = p.inbox_at(paused + chrono::Duration::hours(25));
    assert_eq!(after.len(), 1, "still waiting");
    assert!(after[0].act.is_none(), "{:?}", after[0].act);
    assert!(
        p.addresses_at(paused + chrono::Duration::hours(25))
            .is_empty()
    );
}
