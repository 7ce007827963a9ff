//! Moving around by key, on the pure update (and on a frame drawn with
//! ratatui's TestBackend): the too-small terminal, help's scrolling, and
//! another project opening on its Overview.

use super::{code, key, model, project, screen, selected, three};
use crate::app::*;
use crossterm::event::KeyEvent;

#[test]
fn keys_do_nothing_while_the_terminal_is_too_small_except_quit() {
    let mut m = three();
    update(&mut m, Event::Size(MIN_WIDTH - 1, 30));
    assert!(screen(&m, MIN_WIDTH - 1, 30).contains("too small"));
    for k in ['j', 'i', '/', '?', ':', 'r'] {
        assert_eq!(update(&mut m, key(k)), vec![], "{k}");
    }
    assert_eq!(code_effects(&mut m, KeyCode::Enter), vec![]);
    assert_eq!(
        (selected(&m).as_str(), m.screen, m.mode),
        ("alpha", Screen::Projects, Mode::Normal)
    );
    assert_eq!(update(&mut m, key('q')), vec![Effect::Quit]);
    update(&mut m, Event::Size(100, 30));
    assert_eq!(
        update(&mut m, key('j')),
        vec![Effect::Render],
        "keys act again"
    );
}

fn code_effects(m: &mut Model, k: KeyCode) -> Vec<Effect> {
    update(m, Event::Key(KeyEvent::new(k, KeyModifiers::NONE)))
}

#[test]
fn help_scrolls_with_the_movement_keys() {
    let mut m = three();
    m.page = 3;
    update(&mut m, key('?'));
    update(&mut m, code(KeyCode::PageDown));
    assert_eq!(m.help_scroll, 3);
    update(&mut m, key('j'));
    update(&mut m, key('k'));
    update(&mut m, key('k'));
    assert_eq!(m.help_scroll, 2);
    update(&mut m, code(KeyCode::PageUp));
    assert_eq!(m.help_scroll, 0);
    // At a small size the rows below the fold come into view.
    let rows = help_rows(&m);
    let last = rows.last().expect("rows").description.clone();
    assert!(!screen(&m, 60, 12).contains(&last));
    // The keys end where the legend of symbols begins; G shows its end.
    m.page = 8;
    update(&mut m, code(KeyCode::PageDown));
    update(&mut m, code(KeyCode::PageDown));
    // One row more since `b` (group) has a help row, and one since `H`
    // (hosts) has.
    update(&mut m, key('j'));
    update(&mut m, key('j'));
    assert!(screen(&m, 60, 12).contains(&last), "{}", screen(&m, 60, 12));
    update(&mut m, key('G'));
    assert!(screen(&m, 60, 12).contains("█░      progress"));
    update(&mut m, key('q'));
    assert_eq!(m.mode, Mode::Normal);
}

#[test]
fn another_project_opens_on_its_overview() {
    let mut m = model(vec![
        project("one", Format::Devloop, 0),
        project("two", Format::Devloop, 0),
    ]);
    update(&mut m, key('4'));
    assert_eq!(m.tab, Tab::Timeline);
    update(&mut m, code(KeyCode::Esc));
    update(&mut m, key('j'));
    assert_eq!((selected(&m).as_str(), m.tab), ("two", Tab::Overview));
}
