//! End to end (tmux): notifications and what arrived while the user looked
//! elsewhere (issue 9 §4, §5).
//!
//! The console runs with `[notify] desktop = "osc9"` (and the bell on);
//! the pane's raw output is piped to a file (`tmux pipe-pane -o`). A GSD
//! agent starts waiting (`.planning/WAITING.json` appears): the output gets
//! exactly one OSC 9 (wrapped in tmux's passthrough, as the console runs in
//! tmux) and one bell, and the header marks the item new. A second,
//! unrelated write is read (it shows) and rings nothing more.
//!
//! A devloop Timeline scrolled up: events appended to `timeline.ndjson`
//! show "N new below" with no key pressed.
//!
//! Needs tmux (Linux: inotify); skipped, saying so, without it outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::io::Write;
use std::path::Path;
use std::thread::sleep;
use std::time::{Duration, Instant};

use common::NOW;
use common::tmux::{SESSION, Tmux, skip_without_tmux};

const ESC: &str = "\u{1b}";
const BEL: char = '\u{7}';

/// Start the console with `config` on `root`.
fn start(tmux: &Tmux, config: &Path, root: &Path) {
    let config = format!("--config {}", config.display());
    tmux.start_with(root, NOW, "140", "30", &[], &[&config]);
}

/// Write `text` to `path` as an agent saves: a temporary file renamed over.
fn save(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp-save");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

fn gsd(dir: &Path, stopped_at: &str, updated: &str) {
    std::fs::create_dir_all(dir.join(".planning")).unwrap();
    save(
        &dir.join(".planning/STATE.md"),
        &format!(
            "---\ngsd_state_version: 1.0\nmilestone: v0.3\nstatus: executing\nstopped_at: \"{stopped_at}\"\nlast_updated: \"{updated}\"\n---\n\n# Project State\n"
        ),
    );
}

/// What the pane has written so far (raw bytes, lossily as text).
fn raw(file: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(file).unwrap_or_default()).into_owned()
}

/// Wait until the raw output satisfies `ok`.
fn wait_raw(file: &Path, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        let s = raw(file);
        if ok(&s) {
            return s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "never saw {what} in the raw output: {:?}",
            s.chars().rev().take(400).collect::<String>()
        );
        sleep(Duration::from_millis(50));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn an_agent_that_starts_waiting_rings_once_and_is_marked_new() {
    if skip_without_tmux() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    gsd(
        &root.join("alpha"),
        "Phase 3 P2 Task 2",
        "2026-06-01T09:00:00.000Z",
    );
    gsd(
        &root.join("bravo"),
        "Phase 1 P1 Task 1",
        "2026-06-01T08:00:00.000Z",
    );
    let config = t.path().join("config.toml");
    std::fs::write(&config, "[notify]\nbell = true\ndesktop = \"osc9\"\n").unwrap();
    let out = t.path().join("pane.raw");

    let tmux = Tmux::new("notify");
    start(&tmux, &config, &root);
    tmux.wait_for("alpha");
    tmux.wait_for("bravo");
    tmux.run(&[
        "pipe-pane",
        "-o",
        "-t",
        SESSION,
        &format!("cat >> {}", out.display()),
    ]);
    // Let the watcher and the pipe settle in before the write.
    sleep(Duration::from_millis(500));
    assert!(!raw(&out).contains(BEL), "nothing rang at the start");

    save(
        &root.join("alpha/.planning/WAITING.json"),
        r#"{"status":"waiting","type":"decision","question":"Allow a fourth approval level?","options":["A: yes","B: no"],"since":"2026-06-01T11:58:00Z","phase":"3"}"#,
    );
    let s = tmux.wait_for("1 new");
    assert!(s.contains("◆ 1 waiting · 1 new"), "{s}");
    let osc = format!("{ESC}Ptmux;{ESC}{ESC}]9;");
    let got = wait_raw(&out, "the bell", |s| s.matches(BEL).count() >= 2);
    assert_eq!(got.matches(&osc).count(), 1, "one OSC 9, through tmux");
    assert!(
        got.contains("Allow a fourth approval level?"),
        "it says what waits"
    );

    // An unrelated write is read (bravo becomes the newest) and rings nothing.
    gsd(
        &root.join("bravo"),
        "Phase 1 P1 Task 2",
        "2026-06-01T11:59:00.000Z",
    );
    tmux.wait_until("bravo read again", |s| {
        s.lines().any(|l| l.contains("1m") && l.contains("bravo"))
    });
    // And a rewrite of the waiting file itself (the same item) neither.
    save(
        &root.join("alpha/.planning/WAITING.json"),
        r#"{"status":"waiting","type":"decision","question":"Allow a fourth approval level?","options":["A: yes","B: no"],"since":"2026-06-01T11:58:00Z","phase":"3"}"#,
    );
    sleep(Duration::from_millis(1500));
    let got = raw(&out);
    assert_eq!(
        got.matches(BEL).count(),
        2,
        "one OSC 9 and one bell, no more"
    );
    assert_eq!(got.matches(&osc).count(), 1);

    // Opening the inbox and pressing a key sees it: the mark goes.
    tmux.keys(&["i"]);
    let s = tmux.wait_for("• [Phase 3] Allow a fourth approval level?");
    assert!(s.contains("Inbox · 1 waiting · 1 new"), "{s}");
    tmux.keys(&["j"]);
    tmux.wait_gone("1 new");
}

/// The detail's side of a screen line (the list's rows show ages).
fn detail_side(line: &str) -> &str {
    line.rsplit("││").next().unwrap_or(line)
}

#[cfg(target_os = "linux")]
#[test]
fn a_timeline_scrolled_up_says_what_arrived_below_with_no_key_pressed() {
    if skip_without_tmux() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    let project = root.join("data/companies/acme/projects/p-live");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("project.json"),
        r#"{"id":"p-live","company_id":"acme","name":"live-timeline","mode":"sandbox","status":"running","created_at":"2026-06-01T09:00:00Z","updated_at":"2026-06-01T11:00:00Z"}"#,
    )
    .unwrap();
    let line = |i: u32| {
        format!(
            "{{\"ts\":\"2026-06-01T{:02}:{:02}:00Z\",\"source\":\"coder\",\"kind\":\"todo_updated\",\"summary\":\"step {i}\"}}\n",
            10 + i / 60,
            i % 60
        )
    };
    std::fs::write(
        project.join("timeline.ndjson"),
        // More than the loader's tail (50): appending drops its oldest.
        (0..60).map(line).collect::<String>(),
    )
    .unwrap();
    let config = t.path().join("config.toml");
    std::fs::write(&config, "[notify]\nbell = false\n").unwrap();

    let tmux = Tmux::new("notify-tl");
    start(&tmux, &config, &root);
    tmux.wait_for("live-timeline");
    tmux.keys(&["Enter"]);
    let s = tmux.wait_for("Timeline");
    let n = s
        .split(" Timeline")
        .next()
        .and_then(|before| before.split_whitespace().last())
        .expect("the tab bar numbers the Timeline")
        .to_owned();
    tmux.keys(&[&n]);
    tmux.wait_for("EVENT (following)");
    tmux.keys(&["k", "k"]);
    tmux.wait_for("EVENT (f: follow)");
    sleep(Duration::from_millis(300));
    let before = tmux.screen();
    assert!(!before.contains("new below"));

    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(project.join("timeline.ndjson"))
        .unwrap();
    f.write_all((60..63).map(line).collect::<String>().as_bytes())
        .unwrap();
    drop(f);
    let s = tmux.wait_for("3 new below");
    let after: Vec<&str> = s.lines().collect();
    for (i, row) in before
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("step "))
    {
        assert_eq!(
            after.get(i).map(|l| detail_side(l)),
            Some(detail_side(row)),
            "the rows on screen stay:\n{before}\n{s}"
        );
    }
    tmux.keys(&["f"]);
    let s = tmux.wait_gone("new below");
    assert!(s.contains("step 62"), "{s}");
}
