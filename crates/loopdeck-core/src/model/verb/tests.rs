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
        activity: None,
    });
    p.inbox.push(InboxItem {
        kind: InboxKind::Resume,
        act: Some(addr("resume-agent", Some("dev-1"), &["resume"])),
        reference: "agent-state/dev-1.json".into(),
        title: "dev-1 paused".into(),
        since: Some(paused),
        options: vec!["resume".into()],
        subject: Some("dev-1".into()),
        why_not: None,
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

/// Every address the console offers, with the options it is picked with.
fn every_form() -> Vec<(Address, Option<&'static str>)> {
    vec![
        (addr("answer", Some("OQ-3"), &[]), None),
        (addr("answer", Some(&"a".repeat(64)), &["Yes"]), None),
        (addr("evidence", Some("F-1"), &[]), None),
        (addr("requirement", None, &[]), None),
        (addr("add-decision", None, &[]), None),
        (addr("add-blocker", None, &[]), None),
        (addr("block", Some("T1"), &[]), None),
        (addr("reopen", Some("T1"), &[]), None),
        (
            addr("bug", Some("BUG-2"), &["duplicate"]),
            Some("duplicate"),
        ),
        (addr("bug", Some("BUG-2"), &["fixed"]), Some("fixed")),
        (addr("bug", Some("BUG-2"), &["wontfix"]), Some("wontfix")),
    ]
}

/// In Chinese the form's labels and its complaints are Chinese (from the
/// catalogue), while the verb built from the same typing is the same
/// (and so is its JSON): only what is shown changes.
#[test]
fn the_form_speaks_chinese_and_builds_the_same_verb() {
    use crate::i18n::{Lang, catalog, scoped};
    let zh = catalog(Lang::ZhCn);
    let text_of = |key: &str| match zh.get(key) {
        Some(crate::i18n::Entry::Text(t)) => t.clone(),
        other => panic!("{key}: {other:?}"),
    };
    for (a, option) in every_form() {
        let en_fields = a.fields(option);
        let values: Vec<String> = (0..en_fields.len()).map(|i| format!("v{i}")).collect();
        let en_verb = a.build(option, &values).unwrap();
        let en_empty = a.build(option, &[]);
        let _zh = scoped(Lang::ZhCn);
        let zh_fields = a.fields(option);
        assert_eq!(zh_fields.len(), en_fields.len(), "{}", a.verb);
        for (z, e) in zh_fields.iter().zip(&en_fields) {
            assert!(
                z.label
                    .chars()
                    .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "{} shows {:?} in Chinese",
                a.verb,
                z.label
            );
            assert_ne!(z.label, e.label);
            assert_eq!((z.required, z.multiline), (e.required, e.multiline));
        }
        let zh_verb = a.build(option, &values).unwrap();
        assert_eq!(zh_verb, en_verb);
        assert_eq!(
            serde_json::to_string(&zh_verb).unwrap(),
            serde_json::to_string(&en_verb).unwrap()
        );
        // The first required field is named in Chinese when left empty.
        if let Some(first) = zh_fields.iter().find(|f| f.required) {
            let said = a.build(option, &[]).unwrap_err();
            let template = text_of("model.build.empty");
            assert_eq!(
                said,
                crate::i18n::fill(&template, &[("label", &first.label)])
            );
            assert!(said.contains(first.label) && !said.contains("is empty"));
            assert_ne!(Err(said), en_empty);
        }
    }
    let _zh = scoped(Lang::ZhCn);
    let rationale = addr("answer", Some("OQ-3"), &[]).fields(None)[1].label;
    assert_eq!(rationale, text_of("model.field.key_rationale"));
    assert!(rationale.contains("D-n"), "the key decision's id stays");
    let choose = addr("choose", None, &["A", "B"]).build(None, &[]);
    assert_eq!(choose, Err(text_of("model.build.pick_option")));
}

/// A changelog line's counts, in English with plurals, in Chinese with a
/// counter word.
#[test]
fn change_counts_speak_the_language() {
    use crate::model::ChangeSummary;
    let c = ChangeSummary {
        sections_added: vec!["a".into(), "b".into()],
        sections_removed: vec!["c".into()],
        units_changed: vec!["u".into(); 5],
        ..ChangeSummary::default()
    };
    assert_eq!(c.counts(), "+2 sections -1 section ~5 units");
    let _zh = crate::i18n::scoped(crate::i18n::Lang::ZhCn);
    assert_eq!(c.counts(), "+2个章节 -1个章节 ~5个单元");
    assert_eq!(ChangeSummary::default().counts(), "");
}
