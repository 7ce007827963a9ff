//! Clicks (issue 11 §6), on the pure update function: a click on a row
//! selects it and gives its pane the focus, a click on the selected row of
//! the focused pane opens it as Enter does, a tab title shows its tab; in
//! help, the palette, a filter or a dialog, and on what is no longer
//! shown, a click does nothing.

use super::{code, devloop, key, selected, three};
use crate::app::*;

fn click(m: &mut Model, target: Target) -> Vec<Effect> {
    update(m, Event::Click(target))
}

/// A click on list row `row` as drawn now (a row past the end: on no
/// project).
fn click_row(m: &mut Model, row: usize) -> Vec<Effect> {
    let key = panes::projects(m)
        .get(row)
        .map_or(0, |&i| panes::project_key(&m.projects[i]));
    click(m, Target::ListRow(row, key))
}

/// What a click or a key may change, to compare the two.
fn place(m: &Model) -> (Screen, Focus, Tab, Option<Drawer>, usize, usize, String) {
    (
        m.screen,
        m.focus,
        m.tab,
        m.drawer.clone(),
        m.list.selected,
        m.inbox.selected,
        selected(m),
    )
}

#[test]
fn a_click_on_a_list_row_selects_it_and_focuses_the_list() {
    let mut m = three();
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.focus, Focus::Detail);
    assert_eq!(click_row(&mut m, 2), vec![Effect::Render]);
    assert_eq!(selected(&m), "gamma");
    assert_eq!((m.list.selected, m.focus), (2, Focus::List));
    // As j/k would: the other project opens on its Overview.
    assert_eq!(m.tab, Tab::Overview);
}

#[test]
fn a_click_on_the_selected_row_opens_it_as_enter_does() {
    let mut m = three();
    let mut by_key = three();
    click_row(&mut m, 1);
    update(&mut by_key, key('j'));
    assert_eq!(place(&m), place(&by_key));
    assert_eq!(m.focus, Focus::List, "a first click selects only");
    click_row(&mut m, 1);
    update(&mut by_key, code(KeyCode::Enter));
    assert_eq!(m.focus, Focus::Detail);
    assert_eq!(place(&m), place(&by_key));
}

#[test]
fn a_click_on_a_tab_title_shows_the_tab() {
    let mut m = devloop();
    assert_eq!(click(&mut m, Target::Tab(Tab::Bugs)), vec![Effect::Render]);
    assert_eq!((m.tab, m.focus), (Tab::Bugs, Focus::Detail));
    click(&mut m, Target::Tab(Tab::Timeline));
    assert_eq!(m.tab, Tab::Timeline);
    // A tab the project does not have (a stale frame) does nothing.
    assert_eq!(click(&mut m, Target::Tab(Tab::Frontier)), vec![]);
    assert_eq!(m.tab, Tab::Timeline);
}

#[test]
fn a_click_on_a_table_row_selects_it_and_a_second_opens_it() {
    let mut m = devloop();
    update(&mut m, key('3'));
    assert_eq!(m.tab, Tab::Bugs);
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(m.focus, Focus::List);
    assert_eq!(
        click(&mut m, Target::TableRow(Tab::Bugs, 2)),
        vec![Effect::Render]
    );
    assert_eq!(
        (m.focus, m.pane(Tab::Bugs).selected, m.drawer.clone()),
        (Focus::Detail, 2, None)
    );
    let mut by_key = devloop();
    update(&mut by_key, key('3'));
    update(&mut by_key, key('j'));
    update(&mut by_key, key('j'));
    click(&mut m, Target::TableRow(Tab::Bugs, 2));
    update(&mut by_key, code(KeyCode::Enter));
    assert!(matches!(&m.drawer, Some(Drawer::Bug(_))), "{:?}", m.drawer);
    assert_eq!(place(&m), place(&by_key));
    // With the drawer open the rows wait (the keys scroll the drawer).
    assert_eq!(click(&mut m, Target::TableRow(Tab::Bugs, 0)), vec![]);
    assert_eq!(m.pane(Tab::Bugs).selected, 2);
    // A row of another tab than the one shown, or past the end, is stale.
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(click(&mut m, Target::TableRow(Tab::Timeline, 0)), vec![]);
    assert_eq!(click(&mut m, Target::TableRow(Tab::Bugs, 9)), vec![]);
    assert_eq!(m.pane(Tab::Bugs).selected, 2);
}

#[test]
fn a_click_on_a_timeline_row_stops_following_unless_it_is_the_last() {
    let mut m = devloop();
    click(&mut m, Target::Tab(Tab::Timeline));
    assert!(m.follow_timeline);
    click(&mut m, Target::TableRow(Tab::Timeline, 1));
    assert!(!m.follow_timeline);
    assert_eq!(m.pane(Tab::Timeline).selected, 1);
    click(&mut m, Target::TableRow(Tab::Timeline, 4));
    assert!(m.follow_timeline);
}

#[test]
fn a_click_on_an_inbox_row_selects_it_and_a_second_jumps_to_it() {
    let mut m = three();
    update(&mut m, key('i'));
    assert_eq!(click(&mut m, Target::InboxRow(1)), vec![Effect::Render]);
    assert_eq!((m.screen, m.inbox.selected), (Screen::Inbox, 1));
    let mut by_key = three();
    update(&mut by_key, key('i'));
    update(&mut by_key, key('j'));
    click(&mut m, Target::InboxRow(1));
    update(&mut by_key, code(KeyCode::Enter));
    assert_eq!(m.screen, Screen::Projects);
    assert_eq!(place(&m), place(&by_key));
}

#[test]
fn a_click_in_help_the_palette_a_filter_or_on_what_is_gone_does_nothing() {
    let every = [
        Target::ListRow(1, 0),
        Target::Tab(Tab::Phases),
        Target::TableRow(Tab::Overview, 0),
        Target::InboxRow(1),
    ];
    for open in ['?', ':', '/'] {
        let mut m = three();
        update(&mut m, key(open));
        let (mode, before) = (m.mode, place(&m));
        for t in every {
            assert_eq!(click(&mut m, t), vec![], "{open} {t:?}");
        }
        assert_eq!((m.mode, place(&m)), (mode, before), "{open}");
    }
    // Normal mode, but the target is not on the screen shown.
    let mut m = three();
    let before = place(&m);
    assert_eq!(click(&mut m, Target::InboxRow(0)), vec![]);
    assert_eq!(click_row(&mut m, 3), vec![]);
    assert_eq!(click(&mut m, Target::TableRow(Tab::Overview, 0)), vec![]);
    update(&mut m, key('i'));
    assert_eq!(click_row(&mut m, 1), vec![]);
    assert_eq!(click(&mut m, Target::Tab(Tab::Overview)), vec![]);
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(place(&m), before);
}

#[test]
fn a_click_on_a_screen_too_small_does_nothing() {
    let mut m = three();
    update(&mut m, Event::Size(20, 5));
    assert_eq!(click_row(&mut m, 1), vec![]);
    assert_eq!(selected(&m), "alpha");
}

#[test]
fn a_click_clears_the_status_line_as_a_key_does() {
    let mut m = three();
    m.status = Some("done".into());
    assert_eq!(click_row(&mut m, 7), vec![Effect::Render]);
    assert_eq!(m.status, None);
}

/// A reading moved the projects after the frame was drawn: the click
/// selects the project that was drawn where it landed, not whatever is in
/// that row now (a project no longer listed: see the row past the end).
#[test]
fn a_click_selects_the_project_drawn_even_if_a_reading_moved_it() {
    let mut m = three();
    let drawn = panes::projects(&m);
    let target = Target::ListRow(2, panes::project_key(&m.projects[drawn[2]]));
    let name = m.projects[drawn[2]].name.clone();
    // The reading: the project drawn last is now updated first.
    let mut fresh = m.projects.clone();
    let moved = fresh.iter_mut().find(|p| p.name == name).unwrap();
    moved.updated_at = Some(m.now);
    // As the engine sends them: newest first.
    fresh.sort_by_key(|p| p.name != name);
    update(&mut m, Event::Loaded(fresh));
    let now_at_2 = &m.projects[panes::projects(&m)[2]].name;
    assert_ne!(now_at_2, &name, "the list moved");
    click(&mut m, target);
    assert_eq!(selected(&m), name);
}
