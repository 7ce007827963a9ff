//! End to end: the real binary in tmux on two roots, `b` grouping the
//! project list by format, then by root (in command-line order), then not
//! at all. Each step waits for a group header, which only grouping draws.
//!
//! Needs tmux. CI installs it (`.ci/run`); on a machine without it the test
//! says so and passes only outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use common::tmux::{Tmux, skip_without_tmux};
use common::{NOW, workspace};

#[test]
fn b_groups_the_list_by_format_then_by_root_in_tmux() {
    if skip_without_tmux() {
        return;
    }
    let (_t, ws) = workspace();
    // The DWP root is given first, the GSD one second.
    let (dwp, gsd) = (ws.join("dwp"), ws.join("gsd"));
    let tmux = Tmux::new("group");
    tmux.start_with(&gsd, NOW, "160", "30", &[], &[dwp.to_str().unwrap()]);
    let s = tmux.wait_for("Projects 10/10 · by update ");
    assert!(!s.contains(" · 7 projects · "), "no headers yet:\n{s}");

    // By format: GSD before DWP (the fixed order), whatever the roots say.
    tmux.keys(&["b"]);
    let s = tmux.wait_for("GSD · 7 projects · ◆1 waiting");
    assert!(s.contains("Projects 10/10 · by update · by format"), "{s}");
    let (g, d) = (
        s.find("GSD · 7 projects").unwrap(),
        s.find("DWP · 3 projects · ◆4 waiting")
            .expect("the DWP header"),
    );
    assert!(g < d, "{s}");

    // By root: the roots in command-line order, DWP's first.
    tmux.keys(&["b"]);
    let s = tmux.wait_for("workspace/dwp · 3 projects · ◆4 waiting");
    assert!(s.contains("· by update · by root"), "{s}");
    let (d, g) = (
        s.find("workspace/dwp · 3 projects").unwrap(),
        s.find("workspace/gsd · 7 projects")
            .expect("the GSD root's header"),
    );
    assert!(d < g, "{s}");

    // Not grouped again: the headers go.
    tmux.keys(&["b"]);
    let s = tmux.wait_gone("workspace/gsd · 7 projects");
    assert!(s.contains("Projects 10/10 · by update "), "{s}");
    assert!(!s.contains("by root") && !s.contains("by format"), "{s}");
}
