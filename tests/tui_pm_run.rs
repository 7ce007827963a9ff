//! End to end (tmux), issue 20's "done when": a PM answers the whole inbox
//! of a copy of the example workspace in the console at 80x24, taking
//! each item as it comes (the selection moves on by itself after each
//! decision), the first option where there is a choice and a short text
//! where one is asked. Afterwards the inbox holds only items that say why
//! they cannot be decided here, `◆` counts exactly those, and what waits
//! for an agent is shown apart, uncounted. Prints the keys each decision
//! took (`--nocapture`).
//!
//! Needs tmux; skipped, saying so, without it outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::NOW;
use common::tmux::{Tmux, skip_without_tmux};
use serde_json::Value;

/// What the dialog shows now, by its key line (what only that stage draws).
#[derive(Debug, PartialEq, Eq)]
enum Stage {
    Choose,
    Edit,
    Confirm,
    Wrote,
    Refused(String),
}

fn stage(tmux: &Tmux, after: &str) -> Stage {
    let start = Instant::now();
    loop {
        let s = tmux.screen();
        let hint = s.lines().last().unwrap_or_default();
        if hint.contains("1-9/Enter pick") {
            return Stage::Choose;
        }
        if hint.contains("Ctrl-S send") {
            return Stage::Edit;
        }
        if hint.contains("w write") {
            return Stage::Confirm;
        }
        if hint.contains("wrote ") {
            return Stage::Wrote;
        }
        if hint.contains("Enter try again")
            || hint.contains("Refused")
            || hint.contains("No decision")
        {
            return Stage::Refused(s);
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no dialog stage after {after}: {s}"
        );
        std::thread::sleep(Duration::from_millis(40));
    }
}

/// The detail's first lines: which item is selected.
fn selected(s: &str) -> String {
    s.lines()
        .skip_while(|l| !l.contains("│project"))
        .take(2)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(target_os = "linux")]
#[test]
fn a_pm_answers_every_item_that_can_be_and_the_inbox_says_why_for_the_rest() {
    if skip_without_tmux() {
        return;
    }
    let (tmp, ws) = common::workspace();
    let (state, env) = common::state_dir(tmp.path());
    let inbox = || -> Value {
        let out = common::loopdeck()
            .env("XDG_STATE_HOME", &state)
            .args(["inbox", ws.to_str().unwrap(), "--json", "--now", NOW])
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let before = inbox()["items"].as_array().unwrap().len();
    let offered = inbox()["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i.get("act").is_some())
        .count();
    assert!(before >= 15 && offered >= 10, "{before} {offered}");

    let tmux = Tmux::new("pm-run");
    tmux.start_with(&ws, NOW, "80", "24", &[&env], &[]);
    tmux.wait_for("fba-smart-restock");
    tmux.keys(&["i"]);
    tmux.wait_for("Inbox ·");

    let mut decisions: Vec<(String, usize)> = Vec::new();
    let mut moves = 0;
    let mut passes = 0;
    'passes: while passes < 3 {
        passes += 1;
        tmux.keys(&["g"]);
        let mut last = String::new();
        loop {
            let s = tmux.screen();
            let hint = s.lines().last().unwrap_or_default().to_owned();
            let here = selected(&s);
            if hint.contains("a why no decision") || !hint.contains(" a ") {
                // Nothing to decide on this one: the next, unless at the end.
                if here == last {
                    break;
                }
                last = here;
                tmux.keys(&["j"]);
                moves += 1;
                std::thread::sleep(Duration::from_millis(60));
                continue;
            }
            let what = here.clone();
            let mut keys = 1;
            tmux.keys(&["a"]);
            loop {
                match stage(&tmux, &what) {
                    Stage::Choose => {
                        tmux.keys(&["1"]);
                        keys += 1;
                    }
                    Stage::Edit => {
                        tmux.keys(&["-l", "ok, go ahead"]);
                        tmux.wait_for("ok, go ahead");
                        tmux.keys(&["C-s"]);
                        keys += 2;
                    }
                    Stage::Confirm => {
                        tmux.keys(&["w"]);
                        keys += 1;
                    }
                    Stage::Wrote => break,
                    Stage::Refused(s) => panic!("a decision offered was refused: {s}"),
                }
                // The next stage is drawn by the key just sent.
                std::thread::sleep(Duration::from_millis(80));
            }
            decisions.push((what, keys));
            assert!(decisions.len() <= before, "more decisions than items");
            // Read again after the write: the next item is selected.
            std::thread::sleep(Duration::from_millis(300));
            if decisions.len() > 40 {
                break 'passes;
            }
            last = String::new();
        }
    }

    let after = inbox();
    let left = after["items"].as_array().unwrap();
    for item in left {
        assert!(
            item.get("act").is_none() && item["why_not"].as_str().is_some_and(|w| !w.is_empty()),
            "left an item that offers a decision: {item}"
        );
    }
    let s = tmux.screen();
    assert!(
        s.lines()
            .next()
            .unwrap()
            .contains(&format!("◆ {} waiting", left.len())),
        "◆ counts what is left: {s}"
    );
    let answered = after["answered"].as_array().unwrap();
    assert!(
        !answered.is_empty(),
        "what waits for an agent is apart: {after}"
    );
    eprintln!(
        "PM run at 80x24: {} items, {} decisions, {} left (each says why), {} answered waiting for an agent, {} moves past undecidable items",
        before,
        decisions.len(),
        left.len(),
        answered.len(),
        moves
    );
    for item in left {
        eprintln!(
            "  left: {} {} — {}",
            item["kind"], item["project"], item["why_not"]
        );
    }
    let total: usize = decisions.iter().map(|(_, k)| k).sum();
    eprintln!(
        "  keys per decision (text typed counts 1): {:.1} average; {:?}",
        total as f64 / decisions.len() as f64,
        decisions.iter().map(|(_, k)| *k).collect::<Vec<_>>()
    );
    assert!(decisions.len() >= 10, "{decisions:?}");
}
