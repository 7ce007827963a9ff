//! The devloop Revisions tab: newest first, Enter opens the revision's
//! drawer, a reload keeps it while the revision is there.

use super::{code, devloop, key, model, project};
use crate::app::*;
use crate::model::{ChangeSummary, Event as TimelineEvent, Revision};

fn revision(kind: &str, rev: u64) -> Revision {
    Revision {
        event: TimelineEvent {
            at: None,
            source: "pm-agent".into(),
            kind: kind.into(),
            summary: format!("rev {rev}"),
            unit: None,
        },
        rev: rev.to_string(),
        trigger: Some("human_feedback".into()),
        note: Some(format!("note {rev}")),
        changed: ChangeSummary::default(),
        archive: None,
        sections: None,
    }
}

fn with_revisions() -> Model {
    let mut m = devloop();
    let mut p = m.projects[0].clone();
    p.detail.revisions = vec![
        revision("prd_rev", 1),
        revision("sdd_rev", 1),
        revision("prd_rev", 2),
    ];
    m = model(vec![p]);
    m
}

fn to_revisions(m: &mut Model) {
    let n = m.tabs().iter().position(|t| *t == Tab::Revisions).unwrap();
    update(m, key(char::from(b'1' + n as u8)));
    assert_eq!((m.tab, m.focus), (Tab::Revisions, Focus::Detail));
}

#[test]
fn a_devloop_project_has_a_revisions_tab_newest_first() {
    let mut m = with_revisions();
    assert!(m.tabs().contains(&Tab::Revisions));
    assert!(!panes::tabs_for(Format::Gsd).contains(&Tab::Revisions));
    to_revisions(&mut m);
    let p = m.selected_project().unwrap();
    let rows: Vec<String> = panes::revisions(p, "")
        .into_iter()
        .map(|i| {
            format!(
                "{} {}",
                p.detail.revisions[i].event.kind, p.detail.revisions[i].rev
            )
        })
        .collect();
    assert_eq!(rows, vec!["prd_rev 2", "sdd_rev 1", "prd_rev 1"]);
    assert_eq!(panes::detail_len(&m, p), 3);
    assert_eq!(panes::revisions(p, "sdd").len(), 1);
}

#[test]
fn enter_opens_the_selected_revision_and_esc_closes_it() {
    let mut m = with_revisions();
    to_revisions(&mut m);
    update(&mut m, key('j'));
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.drawer, Some(Drawer::Revision("sdd_rev|1|None".into())));
    // The drawer takes j/k to scroll, not to move the row.
    update(&mut m, key('j'));
    assert_eq!((m.drawer_scroll, m.pane(Tab::Revisions).selected), (1, 1));
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(m.drawer, None);
    assert_eq!(m.tab, Tab::Revisions);
}

#[test]
fn a_reload_keeps_the_revision_selected_and_closes_a_drawer_on_one_gone() {
    let mut m = with_revisions();
    to_revisions(&mut m);
    update(&mut m, key('j'));
    update(&mut m, code(KeyCode::Enter));
    // A new revision arrives: the same one stays selected and open.
    let mut p = m.projects[0].clone();
    p.detail.revisions.push(revision("sdd_rev", 2));
    update(&mut m, Event::Loaded(vec![p.clone()]));
    assert_eq!(m.pane(Tab::Revisions).selected, 2);
    assert_eq!(m.drawer, Some(Drawer::Revision("sdd_rev|1|None".into())));
    // The revision is gone (a changelog rewritten): the drawer closes.
    p.detail
        .revisions
        .retain(|r| r.event.kind != "sdd_rev" || r.rev != "1");
    update(&mut m, Event::Loaded(vec![p]));
    assert_eq!(m.drawer, None);
}

#[test]
fn the_palette_and_the_hints_know_the_tab() {
    let mut m = model(vec![project("dev", Format::Devloop, 0)]);
    update(&mut m, code(KeyCode::Enter));
    update(&mut m, key(':'));
    for c in "revisions".chars() {
        update(&mut m, key(c));
    }
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.tab, Tab::Revisions);
    assert!(
        hints(&m).iter().any(|h| h.text == "Enter section diff"),
        "{:?}",
        hints(&m)
    );
}

fn compares(effects: &[Effect]) -> Vec<(usize, String)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::CompareRevision { index, key, .. } => Some((*index, key.clone())),
            _ => None,
        })
        .collect()
}

/// A reading compares no sections: opening a PRD or SDD revision asks for
/// its diff once, the answer fills it, and a reading that replaces the
/// project asks again while the drawer is open.
#[test]
fn the_open_revision_is_compared_once_per_reading() {
    let mut m = with_revisions();
    to_revisions(&mut m);
    let asked = compares(&update(&mut m, code(KeyCode::Enter)));
    // The newest row (prd 2) is index 2 of the revisions, oldest first.
    assert_eq!(asked, vec![(2, "prd_rev|2|None".to_owned())]);
    // Keys in the drawer do not ask again.
    assert!(compares(&update(&mut m, key('j'))).is_empty());
    let path = m.projects[0].path.clone();
    // The diff of prd.html against an archive (which readings never read).
    let diff = crate::model::DocDiff {
        unchanged: 3,
        old: Some("history/prd-rev-1.html".into()),
        new: Some("prd.html".into()),
        ..Default::default()
    };
    let effects = update(
        &mut m,
        Event::Compared {
            path: path.clone(),
            key: "prd_rev|2|None".into(),
            diff: Box::new(diff.clone()),
            files: Vec::new(),
        },
    );
    assert!(effects.contains(&Effect::Render));
    assert_eq!(
        m.projects[0].detail.revisions[2].sections,
        Some(diff.clone())
    );
    // A reading replaces the project (no diffs in it). Its documents read
    // the same (a timeline line was appended): the diff is kept, nothing
    // is compared again.
    let mut fresh = m.projects[0].clone();
    fresh.detail.revisions[2].sections = None;
    assert!(compares(&update(&mut m, Event::Loaded(vec![fresh.clone()]))).is_empty());
    assert_eq!(
        m.projects[0].detail.revisions[2].sections,
        Some(diff.clone())
    );
    // prd.html changed: asked again, once.
    fresh.files.push(crate::model::FileStamp {
        file: "prd.html".into(),
        sha256: "0".repeat(64),
        len: 1,
    });
    assert_eq!(
        compares(&update(&mut m, Event::Loaded(vec![fresh]))).len(),
        1
    );
    assert_eq!(m.projects[0].detail.revisions[2].sections, None);
    assert!(compares(&update(&mut m, key('k'))).is_empty());
    // An answer computed on the reading before is stale: dropped.
    let answer = |files: Vec<crate::model::FileStamp>| Event::Compared {
        path: path.clone(),
        key: "prd_rev|2|None".into(),
        diff: Box::new(diff.clone()),
        files,
    };
    assert!(update(&mut m, answer(Vec::new())).is_empty());
    assert_eq!(m.projects[0].detail.revisions[2].sections, None);
    let files = m.projects[0].files.clone();
    update(&mut m, answer(files));
    assert!(m.projects[0].detail.revisions[2].sections.is_some());
    // `r` reads everything afresh, the diffs too: asked again at once.
    let effects = update(&mut m, key('r'));
    assert!(effects.contains(&Effect::Reload));
    assert_eq!(m.projects[0].detail.revisions[2].sections, None);
    assert_eq!(compares(&effects).len(), 1);
    // An answer for a revision no longer there changes nothing.
    let before = m.projects[0].clone();
    let effects = update(
        &mut m,
        Event::Compared {
            path,
            key: "prd_rev|9|None".into(),
            diff: Box::default(),
            files: Vec::new(),
        },
    );
    assert!(effects.is_empty());
    assert_eq!(m.projects[0].detail.revisions, before.detail.revisions);
    // A units revision (the newest row now) is never compared.
    update(&mut m, code(KeyCode::Esc));
    let mut p = m.projects[0].clone();
    p.detail.revisions.push(revision("units_rev", 3));
    update(&mut m, Event::Loaded(vec![p]));
    update(&mut m, code(KeyCode::Home));
    let effects = update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.drawer, Some(Drawer::Revision("units_rev|3|None".into())));
    assert!(compares(&effects).is_empty());
}
