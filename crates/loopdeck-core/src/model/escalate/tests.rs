#![allow(clippy::unwrap_used, clippy::expect_used)]
use std::path::PathBuf;

use chrono::{TimeZone, Utc};

use super::*;
use crate::model::{Format, InboxKind};

fn at(day: u32, hour: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, day, hour, 0, 0).unwrap()
}

fn item(kind: InboxKind, reference: &str, since: Option<DateTime<Utc>>) -> InboxItem {
    InboxItem {
        kind,
        reference: reference.to_owned(),
        title: format!("about {reference}").into(),
        since,
        options: Vec::new(),
        subject: None,
        act: None,
        why_not: None,
    }
}

fn project(format: Format, path: &str, name: &str, items: Vec<InboxItem>) -> Project {
    let mut p = Project::new(format, PathBuf::from(path), name.to_owned());
    p.id = path.rsplit('/').next().unwrap().to_owned();
    p.inbox = items;
    p
}

fn rule(name: &str) -> Rule {
    Rule::any(name)
}

/// `waited` is strictly longer than: not at the instant, one second after.
#[test]
fn a_waited_rule_fires_only_after_the_duration_has_passed() {
    let p = project(
        Format::PrdMaster,
        "/w/restock",
        "FBA restock",
        vec![item(InboxKind::Question, "OQ-4", Some(at(1, 12)))],
    );
    let r = Rule {
        waited: Some(TimeDelta::days(2)),
        ..rule("stuck")
    };
    let i = &p.inbox[0];
    assert!(!r.fires(&p, i, at(3, 11)));
    assert!(!r.fires(&p, i, at(3, 12)), "exactly 2d is not more than 2d");
    assert!(r.fires(&p, i, at(3, 12) + TimeDelta::seconds(1)));
    // It says when it will fire, and nothing once it does.
    assert_eq!(
        r.due(&p, i, at(2, 0)),
        Some(at(3, 12) + TimeDelta::milliseconds(1))
    );
    assert_eq!(r.due(&p, i, at(4, 0)), None);
    // An item with no known waiting time never matches a waited rule.
    let unknown = item(InboxKind::Question, "OQ-5", None);
    assert!(!r.fires(&p, &unknown, at(30, 0)));
    assert_eq!(r.due(&p, &unknown, at(2, 0)), None);
    // Without `waited`, at once.
    assert!(rule("all").fires(&p, &unknown, at(1, 0)));
}

/// Kind, format and the project glob each narrow a rule; a glob matches
/// the id, the name or the path.
#[test]
fn kind_format_and_project_glob_each_narrow_a_rule() {
    let prd = project(
        Format::PrdMaster,
        "/w/prd/fba-restock",
        "FBA 智能补货",
        vec![
            item(InboxKind::Question, "OQ-4", Some(at(1, 0))),
            item(InboxKind::Evidence, "OQ-8", Some(at(1, 0))),
        ],
    );
    let dev = project(
        Format::Devloop,
        "/w/dev/p-shipped",
        "shipped",
        vec![item(InboxKind::SignOff, "project.json", Some(at(1, 0)))],
    );
    let now = at(2, 0);
    let kinds = Rule {
        kinds: vec!["question".into(), "sign-off".into()],
        ..rule("k")
    };
    assert!(kinds.fires(&prd, &prd.inbox[0], now));
    assert!(!kinds.fires(&prd, &prd.inbox[1], now));
    assert!(kinds.fires(&dev, &dev.inbox[0], now));
    let devloop = Rule {
        formats: vec![Format::Devloop],
        ..rule("f")
    };
    assert!(!devloop.fires(&prd, &prd.inbox[0], now));
    assert!(devloop.fires(&dev, &dev.inbox[0], now));
    for (glob, on_prd) in [
        ("fba-*", true),
        ("FBA*", true),
        ("/w/prd/*", true),
        ("p-*", false),
        ("*", true),
    ] {
        let r = Rule {
            project: Some(glob::Pattern::new(glob).unwrap()),
            ..rule("g")
        };
        assert_eq!(r.fires(&prd, &prd.inbox[0], now), on_prd, "{glob}");
    }
    // The names fired, in the config's order; the first colour; rank.
    let rules = vec![
        Rule {
            colour: None,
            first: false,
            ..devloop.clone()
        },
        Rule {
            colour: Some("red".into()),
            ..kinds.clone()
        },
    ];
    assert_eq!(names(&rules, &dev, &dev.inbox[0], now), ["f", "k"]);
    assert_eq!(colour(&rules, &dev, &dev.inbox[0], now), Some("red"));
    assert!(ranks_first(&rules, &dev, &dev.inbox[0], now));
    assert!(!ranks_first(&rules[..1], &dev, &dev.inbox[0], now));
    assert!(names(&rules, &prd, &prd.inbox[1], now).is_empty());
}

/// The next instant a rule starts firing, across projects and rules.
#[test]
fn next_due_is_the_earliest_crossing_still_to_come() {
    let ps = vec![
        project(
            Format::Gsd,
            "/w/a",
            "a",
            vec![item(InboxKind::Waiting, "WAITING.json", Some(at(1, 0)))],
        ),
        project(
            Format::Gsd,
            "/w/b",
            "b",
            vec![item(InboxKind::Waiting, "WAITING.json", Some(at(1, 6)))],
        ),
    ];
    let rules = vec![
        Rule {
            waited: Some(TimeDelta::hours(12)),
            ..rule("12h")
        },
        Rule {
            waited: Some(TimeDelta::hours(3)),
            ..rule("3h")
        },
    ];
    let ms = TimeDelta::milliseconds(1);
    assert_eq!(next_due(&rules, &ps, at(1, 1)), Some(at(1, 3) + ms));
    assert_eq!(next_due(&rules, &ps, at(1, 4)), Some(at(1, 9) + ms));
    assert_eq!(next_due(&rules, &ps, at(1, 10)), Some(at(1, 12) + ms));
    assert_eq!(next_due(&rules, &ps, at(1, 19)), None);
    assert_eq!(next_due(&[rule("now")], &ps, at(1, 1)), None);
}

/// A stall rule names the kind `stalled`, and matches nothing else.
#[test]
fn only_a_rule_naming_stalled_matches_a_stall() {
    let p = project(Format::Devloop, "/w/p-live", "live", vec![]);
    let stalled = Rule {
        kinds: vec![STALLED.into()],
        waited: Some(TimeDelta::minutes(30)),
        ..rule("s")
    };
    assert!(!stalled.fires_on_stall(&p, TimeDelta::minutes(30)));
    assert!(stalled.fires_on_stall(&p, TimeDelta::minutes(31)));
    assert!(!rule("any").fires_on_stall(&p, TimeDelta::days(9)));
    let q = item(InboxKind::Question, "OQ-1", Some(at(1, 0)));
    assert!(!stalled.fires(&p, &q, at(9, 0)));
}

#[test]
fn durations_are_shown_as_short_as_exact() {
    for (secs, want) in [
        (0, "0s"),
        (90, "1m30s"),
        (2_400, "40m"),
        (5_400, "1h30m"),
        (172_800, "2d"),
        (176_400, "2d1h"),
    ] {
        assert_eq!(short_duration(TimeDelta::seconds(secs)), want);
    }
    let r = Rule {
        waited: Some(TimeDelta::days(2)),
        ..rule("stuck questions")
    };
    assert_eq!(r.shown(), "stuck questions (> 2d)");
}
