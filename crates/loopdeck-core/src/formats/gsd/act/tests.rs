#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

use super::*;
use serde_json::json;

fn waiting(options: &[&str]) -> Waiting {
    Waiting {
        question: "Which database?".into(),
        options: options.iter().map(|s| (*s).to_owned()).collect(),
        phase: Some("3".into()),
    }
}

#[test]
fn numbers_in_ascii_and_full_width_digits() {
    assert_eq!(typed_number("2"), Some(2));
    assert_eq!(typed_number("２"), Some(2));
    assert_eq!(typed_number("１０"), Some(10));
    assert_eq!(typed_number("2a"), None);
    assert_eq!(typed_number(""), None);
    assert_eq!(typed_number("99999999999999999999999"), None);
}

#[test]
fn an_answer_picks_an_option_by_label_or_number() {
    let w = waiting(&["SQLite", "Postgres"]);
    assert_eq!(pick(&w, "2", WAITING_FILE).unwrap(), "Postgres");
    assert_eq!(pick(&w, "１", WAITING_FILE).unwrap(), "SQLite");
    assert_eq!(pick(&w, "postgres", WAITING_FILE).unwrap(), "Postgres");
    assert_eq!(
        pick(&w, "MySQL, really", WAITING_FILE).unwrap(),
        "MySQL, really"
    );
    let e = pick(&w, "３", WAITING_FILE).unwrap_err().to_string();
    assert!(e.contains("option 3 does not exist"), "{e}");
    assert!(e.contains("1. SQLite") && e.contains("2. Postgres"), "{e}");
    // A letter keys options written `A：…`, in ASCII or full width.
    let w = waiting(&["A：允许加签，最多 5 级", "B：不允许加签，固定 3 级"]);
    assert_eq!(
        pick(&w, "b", WAITING_FILE).unwrap(),
        "B：不允许加签，固定 3 级"
    );
    assert_eq!(
        pick(&w, "Ａ", WAITING_FILE).unwrap(),
        "A：允许加签，最多 5 级"
    );
    assert_eq!(pick(&w, "C", WAITING_FILE).unwrap(), "C");
    let w = waiting(&["A. one", "(B) two", "Apple"]);
    assert_eq!(pick(&w, "a", WAITING_FILE).unwrap(), "A. one");
    assert_eq!(pick(&w, "B", WAITING_FILE).unwrap(), "(B) two");
    // Options that are numbers are matched as labels first.
    let w = waiting(&["2", "3"]);
    assert_eq!(pick(&w, "2", WAITING_FILE).unwrap(), "2");
    assert_eq!(pick(&w, "１", WAITING_FILE).unwrap(), "2");
    // Without options a number is just the answer.
    assert_eq!(pick(&waiting(&[]), "3", WAITING_FILE).unwrap(), "3");
}

#[test]
fn option_labels() {
    assert_eq!(option_label(&json!("A")), "A");
    assert_eq!(
        option_label(&json!({"label": "B", "description": "d"})),
        "B"
    );
    assert_eq!(option_label(&json!({"x": 1})), "{\"x\":1}");
    assert_eq!(option_label(&json!(7)), "7");
}

#[test]
fn decision_lines_are_gsd_tools_lines() {
    assert_eq!(
        decision_entry("2", "Use SQLite", None),
        "- [Phase 2]: Use SQLite"
    );
    assert_eq!(
        decision_entry("?", "Use SQLite", Some("one machine")),
        "- [Phase ?]: Use SQLite — one machine"
    );
}
