//! The `:` palette in tmux (issue 11 §6): picking the `light` theme
//! switches the colours at once (with colour on: `capture-pane -e` shows
//! the light theme's own colours, read from `themes/light.toml`); under
//! `NO_COLOR` the switch happens and still draws no colour.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::thread::sleep;
use std::time::{Duration, Instant};

use common::tmux::{SESSION, Tmux, skip_without_tmux};
use common::{NOW, repo};

/// The SGR parameters of a 24-bit colour of `themes/light.toml`:
/// `38;2;r;g;b` (foreground) or `48;2;r;g;b` (background).
fn light(key: &str, ground: u8) -> String {
    let text = fs::read_to_string(repo().join("crates/loopdeck-tui/themes/light.toml")).unwrap();
    let theme: toml::Table = toml::from_str(&text).unwrap();
    let hex = theme["colors"][key].as_str().unwrap();
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap();
    format!("{ground};2;{};{};{}", byte(1), byte(3), byte(5))
}

/// The screen with its colours, as escape sequences.
fn colours(t: &Tmux) -> String {
    t.run(&["capture-pane", "-e", "-p", "-t", SESSION])
}

/// Wait until the coloured screen satisfies `ok`.
fn wait_colours(t: &Tmux, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        let s = colours(t);
        if ok(&s) {
            return s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "never saw {what}; screen:\n{s:?}"
        );
        sleep(Duration::from_millis(50));
    }
}

/// Every parameter of every SGR sequence (`ESC [ … m`) in `s`.
fn sgr_params(s: &str) -> Vec<u16> {
    s.split("\x1b[")
        .skip(1)
        .filter_map(|seq| seq.split_once('m'))
        .flat_map(|(params, _)| params.split(';').map(|p| p.parse().unwrap_or(0)))
        .collect()
}

fn start(label: &str, colour: bool) -> (Tmux, tempfile::TempDir) {
    let (tmp, ws) = common::workspace();
    let (_, env) = common::state_dir(tmp.path());
    // An empty NO_COLOR (after the harness's NO_COLOR=1) is colour on.
    let env: Vec<&str> = if colour {
        vec![&env, "NO_COLOR=", "COLORTERM=truecolor"]
    } else {
        vec![&env]
    };
    let t = Tmux::new(label);
    t.start_with(&ws, NOW, "100", "30", &env, &[]);
    t.wait_for("q quit");
    (t, tmp)
}

/// `:theme: light`, Enter.
fn pick_light(t: &Tmux) {
    t.keys(&[":"]);
    t.wait_for(" Commands ");
    t.keys(&["-l", "theme: light"]);
    t.wait_for(": theme: light");
    t.keys(&["Enter"]);
    t.wait_gone(" Commands ");
}

#[test]
fn picking_light_in_the_palette_switches_the_colours_at_once() {
    if skip_without_tmux() {
        return;
    }
    let accent = light("accent", 38);
    let selection = light("selection_bg", 48);
    let (t, _tmp) = start("theme", true);
    // The default theme: ANSI colours, none of light's.
    let before = wait_colours(&t, "colours", |s| s.contains("\x1b["));
    assert!(!before.contains(&accent), "{before:?}");
    assert!(!before.contains(&selection), "{before:?}");
    pick_light(&t);
    // The list's selection bar and the focused border in light's colours.
    let after = wait_colours(&t, "the light theme", |s| s.contains(&selection));
    assert!(after.contains(&accent), "{after:?}");
    // The palette marks it in use now.
    t.keys(&[":"]);
    t.keys(&["-l", "theme"]);
    t.wait_for("theme: light (in use)");
    let s = t.screen();
    assert!(s.contains("theme: default "), "{s}");
    assert!(!s.contains("theme: default (in use)"), "{s}");
    t.keys(&["Escape"]);
    t.wait_gone(" Commands ");
    t.keys(&["q"]);
    t.wait_for("EXITED:0");
}

#[test]
fn no_color_still_wins_after_a_switch() {
    if skip_without_tmux() {
        return;
    }
    let (t, _tmp) = start("nocolor", false);
    pick_light(&t);
    t.keys(&[":"]);
    t.keys(&["-l", "theme"]);
    t.wait_for("theme: light (in use)");
    let s = colours(&t);
    // Bold, dim and reverse video only (39 and 49: the terminal's own).
    let coloured = sgr_params(&s)
        .into_iter()
        .filter(|&p| matches!(p, 30..=38 | 40..=48 | 90..=97 | 100..=107))
        .count();
    assert_eq!(coloured, 0, "no colour: {s:?}");
    assert!(
        sgr_params(&s).contains(&7),
        "the selection in reverse video: {s:?}"
    );
    // An Escape and a key sent together read as Alt+key: wait for the
    // palette to close first (under load it flaked, typing `q` into it).
    t.keys(&["Escape"]);
    t.wait_gone(" Commands ");
    t.keys(&["q"]);
    t.wait_for("EXITED:0");
}
