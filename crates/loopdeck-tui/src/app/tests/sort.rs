//! Sorting the project list (`S`, and `sort: …` in the palette): the
//! order, and the selection staying on its project.

use super::{code, key, model, project, selected, three};
use crate::app::*;
use crate::model::StatusKind;
use chrono::TimeZone;
use panes::Sort;

/// Four projects, held newest first: names, waiting counts and statuses
/// all in a different order.
fn four() -> Model {
    let at = |day| Some(Utc.with_ymd_and_hms(2026, 5, day, 0, 0, 0).unwrap());
    let mut delta = project("delta", Format::Gsd, 0);
    delta.updated_at = at(30);
    delta.status_kind = StatusKind::Done;
    let mut alpha = project("Alpha", Format::PrdMaster, 1);
    alpha.updated_at = at(20);
    alpha.status_kind = StatusKind::Running;
    let mut charlie = project("charlie", Format::Dwp, 3);
    charlie.updated_at = at(10);
    charlie.status_kind = StatusKind::Failed;
    let mut bravo = project("bravo", Format::Devloop, 1);
    bravo.updated_at = at(5);
    bravo.status_kind = StatusKind::Waiting;
    // As the loader hands them over: newest first.
    model(vec![delta, alpha, charlie, bravo])
}

fn names(m: &Model) -> Vec<&str> {
    panes::projects(m)
        .into_iter()
        .map(|i| m.projects[i].name.as_str())
        .collect()
}

#[test]
fn s_cycles_update_name_waiting_status() {
    let mut m = four();
    assert_eq!(m.sort, Sort::Updated);
    assert_eq!(names(&m), ["delta", "Alpha", "charlie", "bravo"]);
    assert_eq!(update(&mut m, key('S')), vec![Effect::Render]);
    assert_eq!(m.sort, Sort::Name);
    assert_eq!(
        names(&m),
        ["Alpha", "bravo", "charlie", "delta"],
        "case ignored"
    );
    update(&mut m, key('S'));
    assert_eq!(m.sort, Sort::Waiting);
    // Ties (Alpha and bravo wait on one each) keep the newest first.
    assert_eq!(names(&m), ["charlie", "Alpha", "bravo", "delta"]);
    update(&mut m, key('S'));
    assert_eq!(m.sort, Sort::Status);
    assert_eq!(names(&m), ["bravo", "charlie", "Alpha", "delta"]);
    update(&mut m, key('S'));
    assert_eq!(m.sort, Sort::Updated);
    assert_eq!(names(&m), ["delta", "Alpha", "charlie", "bravo"]);
}

#[test]
fn the_selection_stays_on_its_project_when_the_sort_changes() {
    let mut m = four();
    update(&mut m, key('j'));
    update(&mut m, key('j'));
    assert_eq!((selected(&m), m.list.selected), ("charlie".to_owned(), 2));
    for (sort, row) in [
        (Sort::Name, 2),
        (Sort::Waiting, 0),
        (Sort::Status, 1),
        (Sort::Updated, 2),
    ] {
        update(&mut m, key('S'));
        assert_eq!(m.sort, sort);
        assert_eq!(selected(&m), "charlie", "{sort:?}");
        assert_eq!(m.list.selected, row, "{sort:?}: the row follows it");
    }
    // Moving goes by the new order.
    update(&mut m, key('S'));
    update(&mut m, key('j'));
    assert_eq!(selected(&m), "delta", "after charlie by name");
}

#[test]
fn the_sort_keeps_a_filter_and_a_reload() {
    let mut m = four();
    update(&mut m, key('/'));
    update(&mut m, key('a'));
    update(&mut m, code(KeyCode::Enter));
    update(&mut m, key('S'));
    assert_eq!(names(&m), ["Alpha", "bravo", "charlie", "delta"]);
    update(&mut m, code(KeyCode::Esc));
    update(&mut m, key('/'));
    update(&mut m, key('h'));
    update(&mut m, key('a'));
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(names(&m), ["Alpha", "charlie"], "filtered, still by name");
    update(&mut m, key('G'));
    let mut again = four().projects;
    again.push(project("aha", Format::Gsd, 0));
    update(&mut m, Event::Loaded(again));
    assert_eq!(m.sort, Sort::Name);
    assert_eq!(names(&m), ["aha", "Alpha", "charlie"]);
    assert_eq!(selected(&m), "charlie", "a reading keeps the selection");
    assert_eq!(m.list.selected, 2);
}

#[test]
fn the_palette_sorts_and_s_is_a_list_key() {
    let mut m = four();
    update(&mut m, key(':'));
    for c in "sort: by name".chars() {
        update(&mut m, key(c));
    }
    assert_eq!(
        commands::matching(&m, &m.palette.input).first(),
        Some(&(Command::SortBy(Sort::Name), "sort: by name"))
    );
    update(&mut m, code(KeyCode::Enter));
    assert_eq!((m.mode, m.sort), (Mode::Normal, Sort::Name));
    // Picking the sort the list has changes nothing.
    update(&mut m, key(':'));
    for c in "sort: by name".chars() {
        update(&mut m, key(c));
    }
    assert_eq!(update(&mut m, code(KeyCode::Enter)), vec![]);
    let sorts = |m: &Model| {
        commands::matching(m, "sort")
            .iter()
            .filter(|(c, _)| matches!(c, Command::SortBy(_)))
            .count()
    };
    assert_eq!(sorts(&m), 4, "every order in the palette");
    assert!(help_rows(&m).iter().any(|r| r.keys == "S"));
    // In the detail, S is not the list's (the palette still sorts).
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.focus, Focus::Detail);
    assert_eq!(update(&mut m, key('S')), vec![]);
    assert_eq!(m.sort, Sort::Name);
    // The inbox has no project list to sort.
    update(&mut m, key('i'));
    assert_eq!(sorts(&m), 0);
    assert!(!help_rows(&m).iter().any(|r| r.keys == "S"));
}

/// The palette goes to a project by a loose match of its name (its letters
/// in order), opening its detail even when the list's filter hid it.
#[test]
fn the_palette_goes_to_a_project_by_its_name() {
    let mut m = three();
    update(&mut m, key('/'));
    for c in "alp".chars() {
        update(&mut m, key(c));
    }
    update(&mut m, code(KeyCode::Enter));
    update(&mut m, key(':'));
    for c in "gma".chars() {
        update(&mut m, key(c));
    }
    let entries = crate::app::palette::entries(&m, &m.palette.input);
    let first = entries.first().expect("an entry");
    assert_eq!(first.label, "go to: gamma (devloop)");
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(selected(&m), "gamma");
    assert_eq!(
        (m.screen, m.focus, m.tab),
        (Screen::Projects, Focus::Detail, Tab::Overview)
    );
    assert!(
        m.list.filter.is_empty(),
        "the filter that hid it is cleared"
    );
    // Commands still come first.
    update(&mut m, key(':'));
    for c in "read every".chars() {
        update(&mut m, key(c));
    }
    let entries = crate::app::palette::entries(&m, &m.palette.input);
    assert!(matches!(
        entries[0].go,
        crate::app::palette::Go::Command(Command::Reload)
    ));
}
