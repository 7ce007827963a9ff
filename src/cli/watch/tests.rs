#![allow(clippy::unwrap_used, clippy::expect_used)]
use std::path::PathBuf;

use super::*;
use crate::model::changes::Change;
use crate::model::{Format, InboxItem, InboxKind, StallLimits};
use crate::t;

fn project(dir: &str) -> Project {
    let mut p = Project::new(Format::Gsd, PathBuf::from(dir), dir.to_owned());
    p.id = dir.trim_start_matches("/w/").to_owned();
    p
}

/// A partial reading replaces exactly the projects of its directories and
/// trees; one missing there is gone; the others stay.
#[test]
fn a_partial_reading_replaces_what_it_read() {
    let mut projects = vec![project("/w/a"), project("/w/b"), project("/w/t/c")];
    let mut a2 = project("/w/a");
    a2.status = "executing".to_owned();
    let (old, start) = apply(
        &mut projects,
        Reading::Part {
            dirs: vec![PathBuf::from("/w/a")],
            trees: vec![PathBuf::from("/w/t")],
            projects: vec![a2.clone()],
        },
    )
    .unwrap();
    let ids = |ps: &[Project]| ps.iter().map(|p| p.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&old), ["a", "t/c"]);
    assert_eq!(projects[start..], [a2]);
    assert_eq!(ids(&projects), ["b", "a"]);
    assert_eq!(projects[1].status, "executing");
    let changes = changes::diff(&old, &projects[start..]);
    assert!(matches!(changes[0], Change::Removed(p) if p.id == "t/c"));
    assert!(matches!(changes[1], Change::Changed { project, .. } if project.id == "a"));
    assert!(apply(&mut projects, Reading::Failed("boom".into())).is_err());
}

/// Each line carries the envelope, and an inbox item comes as `inbox
/// --json` spells it, with a stable key.
#[test]
fn lines_carry_the_envelope_and_inbox_rows() {
    let mut p = project("/w/a");
    p.inbox.push(InboxItem {
        kind: InboxKind::Waiting,
        reference: "WAITING.json".to_owned(),
        title: "need a key\u{1b}[31m".to_owned().into(),
        since: None,
        options: Vec::new(),
        subject: None,
        act: None,
        why_not: None,
    });
    let old = [project("/w/a")];
    let new = [p];
    let c = changes::diff(&old, &new);
    let at = lines::stamp();
    let now = Utc::now();
    let v = envelope(lines::body(&c[1], now, &at, &NO_POLICY).unwrap());
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["type"], "inbox_added");
    assert_eq!(v["at"], at.as_str());
    assert_eq!(v["key"], "/w/a#waiting:WAITING.json");
    assert_eq!(v["item"]["project"], "a");
    assert_eq!(v["item"]["kind"], "waiting");
    assert_eq!(v["item"]["title"], "need a key\u{1b}[31m");
    let v = envelope(lines::body(&c[0], now, &at, &NO_POLICY).unwrap());
    assert_eq!(v["type"], "project_changed");
    assert_eq!(v["project"]["needs_human"], 1);

    // The plain line makes the title safe.
    let mut out = Vec::new();
    lines::change(&mut out, false, &c[1], now, &NO_POLICY).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("waiting  a  waiting: need a key"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text:?}");
}

#[test]
fn the_watcher_state_serializes_with_its_reason() {
    let l = Liveness::Polling {
        every_secs: 10,
        reason: "the watch limit was reached".to_owned(),
    };
    let v = envelope(Body::Watcher {
        at: lines::stamp(),
        watcher: &l,
    });
    assert_eq!(v["type"], "watcher");
    assert_eq!(v["watcher"]["state"], "polling");
    assert_eq!(v["watcher"]["every_secs"], 10);
}

/// In Chinese, every kind of plain line says its word from the catalogue,
/// and what follows the word starts at one display column whatever the
/// word (Chinese words are two columns a character).
#[test]
fn plain_lines_in_chinese_keep_one_column_after_the_word() {
    let _zh = crate::i18n::scoped(crate::i18n::Lang::ZhCn);
    let mut p = project("/w/a");
    p.stage = Some("阶段 2".to_owned().into());
    p.inbox.push(InboxItem {
        kind: InboxKind::Waiting,
        reference: "WAITING.json".to_owned(),
        title: "要不要加签".to_owned().into(),
        since: None,
        options: Vec::new(),
        subject: None,
        act: None,
        why_not: None,
    });
    let now = Utc::now();
    let at = "2026-06-01T12:00:00.000Z".to_owned();
    let item = || views_inbox(&p, now).into_iter().next().expect("the item");
    let live = Liveness::Live { watches: 3 };
    let polling = Liveness::Polling {
        every_secs: 10,
        reason: "the watch limit was reached".to_owned(),
    };
    let problems = ["/w/x: permission denied".to_owned()];
    let cases: Vec<(&str, Body<'_>)> = vec![
        (
            t!("cli.watch.added"),
            Body::ProjectAdded {
                at: at.clone(),
                project: Row::new(&p, now, &StallLimits::default()),
            },
        ),
        (
            t!("cli.watch.changed"),
            Body::ProjectChanged {
                at: at.clone(),
                project: Row::new(&p, now, &StallLimits::default()),
            },
        ),
        (
            t!("cli.watch.removed"),
            Body::ProjectRemoved {
                at: at.clone(),
                project: Row::new(&p, now, &StallLimits::default()),
            },
        ),
        (
            t!("cli.watch.timeline"),
            Body::TimelineGap {
                at: at.clone(),
                project: &p.id,
                path: "/w/a".to_owned(),
            },
        ),
        (
            t!("cli.watch.waiting"),
            Body::InboxAdded {
                at: at.clone(),
                key: "k".to_owned(),
                item: item(),
            },
        ),
        (
            t!("cli.watch.waiting_changed"),
            Body::InboxChanged {
                at: at.clone(),
                key: "k".to_owned(),
                item: item(),
            },
        ),
        (
            t!("cli.watch.left"),
            Body::InboxRemoved {
                at: at.clone(),
                key: "k".to_owned(),
                item: item(),
            },
        ),
        (
            t!("cli.watch.watcher"),
            Body::Watcher {
                at: at.clone(),
                watcher: &live,
            },
        ),
        (
            t!("cli.watch.watcher"),
            Body::Watcher {
                at: at.clone(),
                watcher: &polling,
            },
        ),
        (
            t!("cli.watch.problems"),
            Body::Problems {
                at: at.clone(),
                problems: &[],
            },
        ),
        (
            t!("cli.watch.problem_line"),
            Body::Problems {
                at: at.clone(),
                problems: &problems,
            },
        ),
        (
            t!("cli.watch.failed"),
            Body::ReadFailed {
                at: at.clone(),
                reason: "boom",
            },
        ),
    ];
    let mut columns = Vec::new();
    for (word, body) in &cases {
        let line = lines::plain(body);
        let after = line.strip_prefix("12:00:00 ").expect("the time");
        assert!(after.starts_with(word), "{word}: {line}");
        let rest = after[word.len()..].trim_start_matches(' ');
        columns.push(crate::model::text::width(&line[..line.len() - rest.len()]));
    }
    assert!(columns.windows(2).all(|w| w[0] == w[1]), "{columns:?}");
    let added = lines::plain(&cases[0].1);
    assert!(
        added.contains(&t!("cli.watch.stage", stage = "阶段 2")),
        "{added}"
    );
    assert!(
        !added.contains("added") && !added.contains("stage"),
        "{added}"
    );
}

static NO_POLICY: Policy = Policy {
    rules: Vec::new(),
    no_server: None,
    stall: crate::model::StallLimits {
        prd_master: crate::model::StallLimit::Default,
        gsd: crate::model::StallLimit::Default,
        dwp: crate::model::StallLimit::Default,
        devloop: crate::model::StallLimit::Default,
    },
};

fn views_inbox(p: &Project, now: chrono::DateTime<Utc>) -> Vec<super::super::views::InboxRow<'_>> {
    super::super::views::inbox_rows(std::slice::from_ref(p), now, None, &NO_POLICY)
}
