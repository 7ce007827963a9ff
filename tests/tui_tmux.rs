//! End to end: the real binary in tmux, driven with `send-keys` and read
//! with `capture-pane`. Navigate, filter, open help and the inbox, quit;
//! the terminal must leave the alternate screen, and a project whose name
//! holds an OSC title sequence must not change the pane title.
//!
//! Every step waits for text that only its key produces (and, where apt,
//! for the text it removes), so a key that does nothing fails the test.
//!
//! Needs tmux. CI installs it (`.ci/run`); on a machine without it the test
//! says so and passes only outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::thread::sleep;
use std::time::Duration;

use common::tmux::{Tmux, skip_without_tmux};
use common::{NOW, workspace, write};

/// The projects in the console's order (the list's), with their format.
fn listed(ws: &std::path::Path) -> Vec<(String, String)> {
    let out = common::loopdeck()
        .arg("list")
        .arg(ws)
        .args(["--now", NOW, "--json"])
        .output()
        .expect("list runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    v["projects"]
        .as_array()
        .expect("projects")
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap_or_default().to_owned(),
                p["format"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// The second tab of a project of `format` (what Tab opens).
fn second_tab(format: &str) -> &'static str {
    match format {
        "prd-master" => "Frontier",
        "gsd" => "Phases & Decisions",
        "dwp" => "Tasks",
        _ => "Units",
    }
}

#[test]
fn timeline_reads_back_and_the_open_project_keeps_its_identity_in_tmux() {
    if skip_without_tmux() {
        return;
    }
    let (_t, ws) = workspace();
    let dir = ws.join("devloop/data/companies/acme/projects/p-shipped");
    // 200 events before the project's own: the loader holds the last 50.
    let timeline = dir.join("timeline.ndjson");
    let own = std::fs::read_to_string(&timeline).expect("timeline");
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&format!(
            "{{\"ts\":{},\"source\":\"human\",\"kind\":\"note\",\"summary\":\"early event {i:03}\"}}\n",
            1_779_000_000 + i
        ));
    }
    text.push_str(&own);
    write(&timeline, text);
    let tmux = Tmux::new("e2e-back");
    tmux.start(&ws.join("devloop"), NOW, "120", "40");
    tmux.wait_for(" 3 projects");
    tmux.keys(&["/", "s", "h", "i", "p", "p", "e", "d", "Enter"]);
    let title = " 供应商对账助手 · devloop ";
    tmux.wait_for(title);
    tmux.keys(&["Escape", "Enter", "4"]);
    // The tab's header and its rows may be drawn by different frames:
    // waited for is the row itself (the tail is on screen).
    tmux.wait_for("EVENT (");
    let s = tmux.wait_for("early event 199");
    assert!(
        !s.contains("early event 000"),
        "only the tail was read:\n{s}"
    );
    // g reads back to the file's first line and lands on it.
    tmux.keys(&["g"]);
    tmux.wait_for("early event 000");

    // An editor's save with a gap: project.json missing for 50 ms. The
    // console stays on this project (never swapped for another).
    let state = dir.join("project.json");
    let aside = dir.join("project.json.saving");
    std::fs::rename(&state, &aside).expect("rename");
    sleep(Duration::from_millis(50));
    std::fs::rename(&aside, &state).expect("rename back");
    sleep(Duration::from_millis(500));
    let s = tmux.screen();
    assert!(s.contains(title), "still on the project:\n{s}");
    assert!(!s.contains("gone from disk"), "{s}");

    // Read mid-write: the last good reading stays, marked, until the file
    // reads well again.
    let good = std::fs::read(&state).expect("project.json");
    write(&state, &good[..good.len() / 2]);
    let s = tmux.wait_for("re-reading");
    assert!(s.contains(title), "the last good reading:\n{s}");
    write(&state, &good);
    tmux.wait_gone("re-reading");

    // Deleted: said in place, after the settle time.
    std::fs::remove_dir_all(&dir).expect("rm");
    let s = tmux.wait_for("gone from disk");
    assert!(s.contains("供应商对账助手"), "{s}");
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED:0");
}

#[test]
fn navigate_filter_help_inbox_quit_in_tmux() {
    if skip_without_tmux() {
        return;
    }
    let (_t, ws) = workspace();
    // A project whose name tries to set the terminal title.
    write(
        &ws.join("prd-master/osc-title/state.json"),
        r#"{"workflow_version":"0.6","current_stage":"2","project_name":"osc\u001b]2;PWNED-TITLE\u0007name","last_updated_at_utc":"2026-06-01T11:59:00Z"}"#,
    );
    let tmux = Tmux::new("e2e");
    tmux.start(&ws, NOW, "100", "30");
    tmux.run(&["select-pane", "-t", "e2e", "-T", "e2e-title"]);

    // The hostile name appears once the projects are read: the escape is
    // shown, not obeyed.
    let s = tmux.wait_for("osc^[]2;PWNED-TITLE^Gname");
    assert!(s.contains("loopdeck"), "{s}");
    assert!(!s.contains("reading"), "loaded:\n{s}");
    assert_eq!(
        tmux.run(&["display", "-p", "-t", "e2e", "#{alternate_on}"])
            .trim(),
        "1"
    );

    // Navigate: the selection moves down the list; the detail beside it
    // names the project selected (and only then).
    let projects = listed(&ws);
    let plain = |n: &str| !n.is_empty() && n.chars().all(|c| c.is_ascii_graphic() || c == ' ');
    let down = (2..projects.len())
        .find(|&i| {
            plain(&projects[i].0) && projects.iter().filter(|p| p.0 == projects[i].0).count() == 1
        })
        .expect("a plain project name to move to");
    let (name, format) = &projects[down];
    let title = format!(" {name} · {format} ");
    assert!(!s.contains(&title), "not selected yet:\n{s}");
    let js: Vec<&str> = std::iter::repeat_n("j", down).collect();
    tmux.keys(&js);
    tmux.wait_for(&title);

    // Filter the list to the GSD projects; Esc clears the filter.
    tmux.keys(&["/", "g", "s", "d", "Enter"]);
    let s = tmux.wait_for("Projects /gsd");
    assert!(
        !s.contains("fba-smart-res"),
        "the filter hides other projects:\n{s}"
    );
    assert!(s.contains("paused-waiting"), "{s}");
    tmux.keys(&["Escape"]);
    let s = tmux.wait_until("every project again, unfiltered", |s| {
        !s.contains("Projects /gsd") && s.contains("fba-smart-res")
    });

    // Help lists the keys; Esc closes it.
    let help = "inbox: everything waiting for a human";
    assert!(!s.contains(help), "{s}");
    tmux.keys(&["?"]);
    tmux.wait_for(help);
    tmux.keys(&["Escape"]);
    tmux.wait_gone(help);

    // The inbox, oldest first; Esc leaves it.
    tmux.keys(&["i"]);
    // One frame, but tmux may be captured while it is half drawn: wait for
    // the title and the inbox's own hint together.
    tmux.wait_until("the inbox and its hint", |s| {
        s.contains(" Inbox · ") && s.contains("Enter jump to it")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_until("the projects screen again", |s| {
        !s.contains(" Inbox · ") && s.contains("Projects ")
    });

    // Into the first project's detail (the list's "Enter open" hint goes),
    // then Tab to its second tab; below the split width the breadcrumb
    // names that tab, then both sides again.
    let (first, first_format) = &projects[0];
    // As the console shows a name: control characters in caret notation.
    let first: String = first
        .chars()
        .map(|c| match c {
            '\u{0}'..='\u{1f}' => format!("^{}", char::from(c as u8 + 64)),
            c => c.to_string(),
        })
        .collect();
    tmux.keys(&["g"]);
    tmux.wait_for(&format!(" {first} · {first_format} "));
    tmux.keys(&["Enter"]);
    // The detail has the keys: its own hints replace the list's.
    tmux.wait_until("the detail's hints", |s| {
        !s.contains("Enter open") && s.contains("Esc back")
    });
    tmux.keys(&["Tab"]);
    // The breadcrumb appears only once the window is narrow: give the Tab
    // key time to land first (the crumb then proves it did).
    sleep(Duration::from_millis(300));
    tmux.run(&["resize-window", "-t", "e2e", "-x", "70", "-y", "20"]);
    let crumb = format!("projects › {first} › {}", second_tab(first_format));
    let crumb: String = crumb.chars().take(60).collect();
    let s = tmux.wait_for(&crumb);
    assert!(
        s.lines()
            .all(|l| unicode_width::UnicodeWidthStr::width(l) <= 70),
        "{s}"
    );
    tmux.run(&["resize-window", "-t", "e2e", "-x", "120", "-y", "30"]);
    // Wide again: list and detail side by side, no breadcrumb.
    tmux.wait_until("the list beside the detail", |s| {
        s.contains("Projects ") && !s.contains("projects ›")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("Enter open");

    // Too small: only the request for a larger terminal, and keys other
    // than quit do nothing (the inbox does not open behind it).
    tmux.run(&["resize-window", "-t", "e2e", "-x", "30", "-y", "6"]);
    tmux.wait_for("too small");
    tmux.keys(&["i"]);
    sleep(Duration::from_millis(300));
    tmux.run(&["resize-window", "-t", "e2e", "-x", "120", "-y", "30"]);
    let s = tmux.wait_until("the projects screen drawn again", |s| {
        !s.contains("too small") && s.contains(" loopdeck ") && s.contains("q quit")
    });
    assert!(
        !s.contains(" Inbox · "),
        "a key acted while too small:\n{s}"
    );

    tmux.keys(&["q"]);
    let s = tmux.wait_for("EXITED:0");
    assert!(
        !s.contains("Projects"),
        "the console's screen is gone:\n{s}"
    );
    assert_eq!(
        tmux.run(&["display", "-p", "-t", "e2e", "#{alternate_on}"])
            .trim(),
        "0",
        "left the alternate screen"
    );
    assert_eq!(
        tmux.run(&["display", "-p", "-t", "e2e", "#{pane_title}"])
            .trim(),
        "e2e-title",
        "no file changed the title"
    );
}
