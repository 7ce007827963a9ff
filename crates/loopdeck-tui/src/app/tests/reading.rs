//! Readings as the console receives them, on the pure update (and, where
//! "visible" is the point, on a frame drawn with ratatui's TestBackend): a
//! failed loader, a project whose file is missing for a moment or for good,
//! a half-written file, a root that cannot be read.

use super::{code, key, model, project, screen, selected, three};
use crate::app::*;
use crate::model::Problem;

fn settle_all(m: &mut Model) {
    let seq = m.hold_seq;
    update(m, Event::Settle(seq));
}

// Never a dead console.

#[test]
fn a_failed_loader_is_shown_and_keys_still_act() {
    let mut m = Model::new(vec!["/w".into()], false, chrono::Utc::now());
    assert!(m.loading);
    let why = "reading the projects: No such local time".to_owned();
    assert_eq!(
        update(&mut m, Event::Failed(why.clone())),
        vec![Effect::Render]
    );
    assert!(!m.loading, "no longer 'reading…'");
    assert_eq!(m.failure.as_deref(), Some(why.as_str()));
    let s = screen(&m, 120, 20);
    assert!(s.contains("reading failed"), "{s}");
    assert!(s.contains("No such local time"), "{s}");
    assert!(!s.contains("reading…"), "{s}");
    assert_eq!(update(&mut m, key('r')), vec![Effect::Reload], "r retries");
    update(&mut m, Event::Loaded(vec![project("a", Format::Gsd, 0)]));
    assert_eq!(m.failure, None, "a good reading clears it");
}

// Identity.

#[test]
fn the_open_project_keeps_its_identity_while_its_file_is_missing() {
    let mut m = three();
    update(&mut m, key('j'));
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(selected(&m), "beta");
    let (alpha, gamma) = (m.projects[0].clone(), m.projects[2].clone());
    // An editor's save with a gap: beta is missing from one reading.
    let effects = update(&mut m, Event::Loaded(vec![alpha.clone(), gamma.clone()]));
    assert!(
        effects.contains(&Effect::SettleAfter(m.hold_seq)),
        "{effects:?}"
    );
    assert_eq!(selected(&m), "beta", "not swapped for another project");
    assert_eq!(m.focus, Focus::Detail);
    let beta = m.selected_project().cloned().expect("beta is shown");
    assert_eq!(m.freshness(&beta), Freshness::Rereading);
    // The file is back before the settle time: current again.
    let mut back = beta.clone();
    back.status = "saved".into();
    update(
        &mut m,
        Event::Loaded(vec![alpha.clone(), back, gamma.clone()]),
    );
    let p = m.selected_project().expect("beta");
    assert_eq!(
        (p.status.as_str(), m.freshness(p)),
        ("saved", Freshness::Current)
    );
    settle_all(&mut m);
    assert_eq!(selected(&m), "beta", "a late settle changes nothing");
}

#[test]
fn a_deleted_project_says_so_in_place_until_the_user_moves_on() {
    let mut m = three();
    update(&mut m, key('j'));
    update(&mut m, code(KeyCode::Enter));
    let (alpha, gamma) = (m.projects[0].clone(), m.projects[2].clone());
    update(&mut m, Event::Loaded(vec![alpha.clone(), gamma.clone()]));
    settle_all(&mut m);
    let p = m.selected_project().expect("still shown");
    assert_eq!((p.name.as_str(), m.freshness(p)), ("beta", Freshness::Gone));
    let s = screen(&m, 120, 20);
    assert!(s.contains("gone from disk"), "{s}");
    assert!(s.contains("beta (gone)"), "the list row says so too:\n{s}");
    // Further readings keep it while it is selected.
    update(&mut m, Event::Loaded(vec![alpha.clone(), gamma.clone()]));
    assert_eq!(selected(&m), "beta");
    // Moving away forgets it.
    update(&mut m, code(KeyCode::Esc));
    update(&mut m, key('k'));
    assert_eq!(selected(&m), "alpha");
    let names: Vec<&str> = m.projects.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, vec!["alpha", "gamma"]);
}

// Last good reading.

#[test]
fn a_half_written_file_keeps_the_last_good_reading_until_it_settles() {
    let mut good = project("beta", Format::PrdMaster, 1);
    good.status = "in_progress".into();
    let mut m = model(vec![good.clone()]);
    let mut torn = project("beta", Format::PrdMaster, 0);
    torn.status = "rebuilt".into();
    torn.problems.push(Problem {
        file: "state.json".into(),
        reason: "EOF while parsing an object at line 3 column 0".into(),
    });
    let effects = update(&mut m, Event::Loaded(vec![torn.clone()]));
    assert!(effects.contains(&Effect::SettleAfter(1)), "{effects:?}");
    let p = &m.projects[0];
    assert_eq!(p.status, "in_progress", "the last good reading stays");
    assert_eq!(p.inbox.len(), 1);
    assert_eq!(m.freshness(p), Freshness::Rereading);
    let s = screen(&m, 120, 20);
    assert!(s.contains("re-reading"), "{s}");
    assert!(s.contains("(re-reading)"), "the list row says so too:\n{s}");
    // The writer finishes: the new good reading shows at once.
    let mut done = good.clone();
    done.status = "validated".into();
    update(&mut m, Event::Loaded(vec![done.clone()]));
    assert_eq!(
        (m.projects[0].status.as_str(), m.freshness(&m.projects[0])),
        ("validated", Freshness::Current)
    );
    // Broken again, and it stays broken past the settle time: the new
    // reading shows, problem and all.
    let effects = update(&mut m, Event::Loaded(vec![torn.clone()]));
    assert_eq!(m.projects[0].status, "validated");
    assert!(effects.contains(&Effect::SettleAfter(2)));
    update(&mut m, Event::Loaded(vec![torn.clone()]));
    assert_eq!(
        m.projects[0].status, "validated",
        "still within the settle time"
    );
    update(&mut m, Event::Settle(2));
    assert_eq!(m.projects[0].status, "rebuilt");
    assert_eq!(m.projects[0].problems, torn.problems);
    assert_eq!(m.freshness(&m.projects[0]), Freshness::Current);
    // Later readings with the same problem are shown as they are.
    assert!(
        !update(&mut m, Event::Loaded(vec![torn]))
            .iter()
            .any(|e| matches!(e, Effect::SettleAfter(_)))
    );
}

/// A root that cannot be read is said in the header; the projects of the
/// other roots are listed as usual.
#[test]
fn an_unreadable_root_is_said_in_the_header() {
    let mut m = three();
    let problem = "/mnt/gone: does not exist".to_owned();
    assert_eq!(
        update(&mut m, Event::RootProblems(vec![problem.clone()])),
        vec![Effect::Render]
    );
    let s = screen(&m, 120, 20);
    let header = s.lines().next().unwrap_or_default();
    assert!(
        header.contains("✗ cannot read /mnt/gone: does not exist"),
        "{s}"
    );
    assert!(s.contains("alpha"), "{s}");
    // The same problems again change nothing.
    assert!(update(&mut m, Event::RootProblems(vec![problem])).is_empty());
}
