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
    assert_eq!(a.fields(None).len(), 1);
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
