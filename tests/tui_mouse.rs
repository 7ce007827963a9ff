//! The mouse (issue 11 §6) as a user meets it, in tmux: with `mouse = true`
//! in the config, a left click (a real SGR mouse report, as a terminal
//! sends it) on a project in the list selects it, a click on a tab title
//! shows the tab, a second click on the selected row opens it; without
//! `mouse = true` the same click does nothing.
//!
//! Every step waits for text only that click produces: the clicked project
//! is several rows below the selection, which no key was sent to move.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;

use common::tmux::{Tmux, skip_without_tmux};
use common::{NOW, workspace};

/// Where `needle` is on the captured screen, as a terminal counts for a
/// mouse report: (column, row) from 1.
fn at(screen: &str, needle: &str) -> (usize, usize) {
    screen
        .lines()
        .enumerate()
        .find_map(|(y, line)| {
            line.find(needle)
                .map(|i| (line[..i].chars().count() + 1, y + 1))
        })
        .unwrap_or_else(|| panic!("{needle:?} not on the screen:\n{screen}"))
}

/// A left click at (column, row): press and release, as SGR reports.
fn click(t: &Tmux, (x, y): (usize, usize)) {
    t.keys(&["-l", &format!("\x1b[<0;{x};{y}M")]);
    t.keys(&["-l", &format!("\x1b[<0;{x};{y}m")]);
}

/// paused-waiting's row in the list (its name in the detail's title is
/// followed by its format).
const ROW: &str = "paused-waiting  ";

fn start(t: &Tmux, ws: &std::path::Path, tmp: &std::path::Path, mouse: bool) {
    let state = tmp.join("state");
    fs::create_dir_all(&state).unwrap();
    let env = format!("XDG_STATE_HOME={}", state.display());
    let cfg = tmp.join("config.toml");
    fs::write(&cfg, format!("mouse = {mouse}\n")).unwrap();
    let config = format!("--config {}", cfg.display());
    t.start_with(ws, NOW, "120", "30", &[&env], &[&config]);
}

#[test]
fn a_click_selects_a_row_shows_a_tab_and_opens_in_tmux() {
    if skip_without_tmux() {
        return;
    }
    let (tmp, ws) = workspace();
    let t = Tmux::new("mouse");
    start(&t, &ws, tmp.path(), true);
    // The newest project is selected; paused-waiting (gsd) is rows below.
    let s = t.wait_for("Projects 20/20");
    assert!(!s.contains("paused-waiting · gsd"), "{s}");
    click(&t, at(&s, ROW));
    // Selected, the list keeps the keys; a second click opens it, as
    // Enter does (the hint bar says the detail has the keys). Waited for
    // whole: the title is drawn before the hint bar, and a capture can
    // land between them.
    let s = t.wait_until("paused-waiting selected, the list's keys", |s| {
        s.contains("paused-waiting · gsd") && s.contains("Enter open")
    });
    assert!(!s.contains("Esc back"), "{s}");
    click(&t, at(&s, ROW));
    let s = t.wait_for("Esc back");
    // A click on a tab title shows that tab.
    assert!(!s.contains("DECISION / BLOCKER"), "{s}");
    click(&t, at(&s, "2 Phases"));
    let s = t.wait_for("DECISION / BLOCKER");
    // A click on another project: selected, and the list has the keys.
    click(&t, at(&s, "scene2-next-action  "));
    let s = t.wait_until("scene2-next-action selected, the list's keys", |s| {
        s.contains("scene2-next-action · gsd") && s.contains("Enter open")
    });
    assert!(!s.contains("Esc back"), "{s}");
    t.keys(&["q"]);
    t.wait_for("EXITED:0");
}

#[test]
fn without_mouse_in_the_config_a_click_does_nothing() {
    if skip_without_tmux() {
        return;
    }
    let (tmp, ws) = workspace();
    let t = Tmux::new("nomouse");
    start(&t, &ws, tmp.path(), false);
    let s = t.wait_for("Projects 20/20");
    click(&t, at(&s, ROW));
    // Then a key that shows something: by then the click was read.
    t.keys(&["?"]);
    t.wait_for("Keys & symbols");
    t.keys(&["Escape"]);
    let s = t.wait_gone("Keys & symbols");
    assert!(!s.contains("paused-waiting · gsd"), "{s}");
    t.keys(&["q"]);
    t.wait_for("EXITED:0");
}
