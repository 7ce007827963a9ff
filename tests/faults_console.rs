//! The console killed mid-decision (issue 18): `tests/faults.rs` kills
//! `loopdeck act`; the console makes its decisions through the same
//! transaction (`store::exec::run`), and here it is the console that gets
//! SIGKILL while it writes one.
//!
//! A PRD-master answer (state.json and conversation.md, one audit record)
//! is typed and previewed in the console in tmux; `w` is pressed, and once
//! the decision's intent record appears in `$XDG_STATE_HOME/loopdeck/intents`
//! the console's own process is killed after a delay spread over the time a
//! clean decision keeps its intent (measured first), a few past it. Then
//! the user's retry: the same answer with `loopdeck act` (most kills), or
//! the console started again and the answer made again there (every third:
//! its first `w` settles the killed decision and, when that put a file
//! back, is refused as changed on disk, text kept, and sent again; when the
//! files already hold the answer the console no longer offers it, and the
//! user runs the `loopdeck recover` the project's problem names).
//! After each: every file parses, the answer is in state.json and
//! conversation.md exactly once, one audit record holds it, no intent
//! record is left.
//!
//! A run where no kill lands with the intent record present proves
//! nothing, so it fails. `LOOPDECK_FAULTS_SCALE=N` runs N times as many
//! kills. Needs tmux; skipped, saying so, without it outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::tmux::{Tmux, skip_without_tmux};
use common::{NOW, copy_dir, repo};

/// The answer typed (ASCII: tmux types it as is).
const TEXT: &str = "ship the CSV export in the MVP, kill-test";
const QUESTION: &str = "OQ-7";
/// The console's dialog when a file moved since the preview.
const CHANGED: &str = "Changed on disk — nothing written";
const PROJECT: &str = "fba-smart-restock";

/// `LOOPDECK_FAULTS_SCALE=N`: N times as many kills (as `tests/faults.rs`).
fn scale() -> u32 {
    common::faults_scale()
}

/// A PRD-master project (stage 1, OQ-7 waiting for the user) under a root
/// of its own, and a state directory for the audit log and intents.
struct Case {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    dir: PathBuf,
    state: PathBuf,
}

impl Case {
    fn new() -> Case {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        let dir = root.join(PROJECT);
        copy_dir(&repo().join("tests/fixtures/prd-act/stage1/before"), &dir);
        let state = tmp.path().join("state");
        fs::create_dir_all(&state).unwrap();
        Case {
            _tmp: tmp,
            root,
            dir,
            state,
        }
    }

    fn env(&self) -> String {
        format!("XDG_STATE_HOME={}", self.state.display())
    }

    /// The console started on the root, its list loaded.
    fn console(&self, label: &str) -> Tmux {
        let t = Tmux::new(label);
        t.start_with(&self.root, NOW, "140", "45", &[&self.env()], &[]);
        t.wait_for(PROJECT);
        t
    }

    /// Intent records left in the state directory.
    fn intents(&self) -> usize {
        fs::read_dir(self.state.join("loopdeck/intents"))
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| {
                        let n = e.file_name();
                        let n = n.to_string_lossy();
                        n.ends_with(".json") && !n.starts_with('.')
                    })
                    .count()
            })
            .unwrap_or(0)
    }

    fn loopdeck(&self, args: &[&str]) -> Output {
        Command::new(assert_cmd::cargo::cargo_bin("loopdeck"))
            .env("XDG_STATE_HOME", &self.state)
            .env("LC_ALL", "C.UTF-8")
            .env("NO_COLOR", "1")
            .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// The retry with `loopdeck act`: the same answer.
    fn act_retry(&self) -> Output {
        let dir = self.dir.to_str().unwrap();
        self.loopdeck(&[
            "act", dir, "answer", QUESTION, TEXT, "--now", NOW, "--by", "alice",
        ])
    }

    /// How often the answer is in each file, and the audit records of it;
    /// panics when a file does not parse.
    fn counts(&self) -> Counts {
        let state: serde_json::Value =
            serde_json::from_slice(&fs::read(self.dir.join("state.json")).unwrap())
                .expect("state.json parses");
        let logged = state["user_inputs_log"]
            .as_array()
            .expect("user_inputs_log")
            .iter()
            .filter(|e| e["question_id"] == QUESTION && e["answer"] == TEXT)
            .count();
        let open = state["open_questions"]
            .as_array()
            .expect("open_questions")
            .iter()
            .any(|q| q["id"] == QUESTION);
        let conversation =
            fs::read_to_string(self.dir.join("conversation.md")).expect("conversation.md is UTF-8");
        let audit =
            fs::read_to_string(self.state.join("loopdeck/audit.ndjson")).unwrap_or_default();
        let records = audit
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("an audit line parses"))
            .filter(|r| r["decision"]["verb"] == "answer" && r["partial"] != true)
            .count();
        Counts {
            logged,
            open,
            conversation: conversation.matches(TEXT).count(),
            records,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counts {
    /// `user_inputs_log` entries of the answer in state.json.
    logged: usize,
    /// The question is still in `open_questions`.
    open: bool,
    /// Times the answer's text is in conversation.md.
    conversation: usize,
    /// Audit records of an answer.
    records: usize,
}

const ONCE: Counts = Counts {
    logged: 1,
    open: false,
    conversation: 1,
    records: 1,
};

/// In the console: the inbox narrowed to the question, `a`, the answer
/// typed, Ctrl-S: the preview of what `w` writes is on screen.
fn preview(t: &Tmux) {
    t.keys(&["i", "/", "C-u"]);
    t.keys(&["-l", QUESTION]);
    t.keys(&["Enter"]);
    t.wait_for(&format!("/{QUESTION} · 1 "));
    t.keys(&["a"]);
    t.keys(&["-l", TEXT]);
    t.wait_for(TEXT);
    t.keys(&["C-s"]);
    t.wait_for("+++ b/conversation.md");
    t.wait_for("+++ b/state.json");
}

/// Poll (without sleeping: the window is a few fsyncs long) until an
/// intent record is in the state directory: the instant it was seen, or
/// `None` when the decision was recorded before a poll saw its intent (the
/// test was not scheduled meanwhile on a busy machine).
fn wait_for_intent(c: &Case) -> Option<Instant> {
    let start = Instant::now();
    let audit = c.state.join("loopdeck/audit.ndjson");
    loop {
        if c.intents() > 0 {
            return Some(Instant::now());
        }
        // (The decision creates the log empty before it begins.)
        if fs::metadata(&audit).is_ok_and(|m| m.len() > 0) && c.intents() == 0 {
            return None;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the decision never wrote an intent record"
        );
        std::thread::yield_now();
    }
}

fn sigkill(pid: u32) {
    // SAFETY: kill(2) with a pid this test started (the console under its
    // own tmux server) and a constant signal; no memory is involved.
    let r = unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    assert_eq!(r, 0, "kill {pid}: {}", std::io::Error::last_os_error());
}

/// Wait until `pid` is gone, reaped by its parent (a zombie still has
/// its `/proc` entry).
fn reaped(pid: u32) {
    let start = Instant::now();
    while Path::new(&format!("/proc/{pid}")).exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{pid} outlived SIGKILL"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Clean decisions in the console: the median time their intent record
/// lived (from first seen to gone), the span the kills are spread over.
/// The decisions themselves are checked too.
fn calibrate() -> Duration {
    let mut windows = Vec::new();
    for run in 0..3 {
        let c = Case::new();
        let t = c.console(&format!("kill-calibrate-{run}"));
        preview(&t);
        t.keys(&["w"]);
        if let Some(seen) = wait_for_intent(&c) {
            while c.intents() > 0 {
                assert!(seen.elapsed() < Duration::from_secs(10), "the intent stays");
                std::thread::yield_now();
            }
            windows.push(seen.elapsed());
        }
        t.wait_for("wrote conversation.md, state.json");
        assert_eq!(c.counts(), ONCE, "a clean decision");
    }
    windows.sort();
    windows.get(windows.len() / 2).copied().unwrap_or_else(|| {
        // Every poll was descheduled past the write: a few fsyncs' worth.
        eprintln!("no clean decision's intent record was seen: kills spread over 5 ms");
        Duration::from_millis(5)
    })
}

/// How one kill went.
#[derive(Debug, Default)]
struct Figures {
    kills: u32,
    /// Kills made after a decision whose intent record no poll saw (it
    /// was recorded first): they land after the write.
    unseen: u32,
    /// The console died with the decision's intent record present.
    mid_write: u32,
    /// ... of which the retry found the answer already in state.json.
    mid_write_written: u32,
    act_retries: u32,
    console_retries: u32,
    /// Retries that wrote the answer (the kill left it unwritten, or
    /// recovery rolled it back).
    retries_wrote: u32,
    /// Retries refused because the answer was there already.
    retries_refused: u32,
    recover_runs: u32,
    /// Console retries whose first `w` settled the killed decision and
    /// was then refused as changed on disk (sent again after).
    console_refused_after_recovery: u32,
    /// Locks the killed console left that no retry had to break.
    stale_locks: u32,
    duplicates: u32,
}

/// The user's retry in a console started again: answer again when the
/// question is offered; when it is not (the killed decision wrote it), the
/// project shows the interrupted decision as a problem and the user runs
/// `loopdeck recover`, as that problem says.
fn console_retry(c: &Case, label: &str, f: &mut Figures) {
    let t = c.console(label);
    t.keys(&["i", "/", "C-u"]);
    t.keys(&["-l", QUESTION]);
    t.keys(&["Enter"]);
    let s = t.wait_until("the filtered inbox", |s| {
        s.contains(&format!("/{QUESTION} · 1 ")) || s.contains(&format!("/{QUESTION} · 0 "))
    });
    if s.contains(&format!("/{QUESTION} · 1 ")) {
        t.keys(&["a"]);
        t.keys(&["-l", TEXT]);
        t.wait_for(TEXT);
        // The console read the project before anything settled the killed
        // decision; `w` settles it first (rolling back what it wrote), and
        // the preview, made on the files as they were, is then refused as
        // changed on disk, nothing written, the text kept, the project read
        // again: the user sends it again.
        for attempt in 0.. {
            assert!(attempt < 5, "the console retry never wrote");
            t.keys(&["C-s"]);
            t.wait_for("+++ b/state.json");
            t.keys(&["w"]);
            let s = t.wait_until("the write's outcome", |s| {
                s.contains("wrote conversation.md, state.json") || s.contains(CHANGED)
            });
            if !s.contains(CHANGED) {
                break;
            }
            assert!(
                s.contains("recovered interrupted decision"),
                "refused without a recovery to say why:\n{s}"
            );
            f.console_refused_after_recovery += 1;
            t.keys(&["Enter"]);
            t.wait_gone(CHANGED);
        }
        f.retries_wrote += 1;
    } else {
        f.retries_refused += 1;
        if c.intents() > 0 {
            let show = c.loopdeck(&["show", c.dir.to_str().unwrap(), "--json", "--now", NOW]);
            let v: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
            let problems = v["project"]["problems"].to_string();
            assert!(
                problems.contains("was interrupted") && problems.contains("loopdeck recover"),
                "the interrupted decision is a problem naming the fix: {problems}"
            );
            let out = c.loopdeck(&["recover"]);
            assert!(
                out.status.success(),
                "recover: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            f.recover_runs += 1;
        }
    }
}

#[test]
fn a_console_killed_mid_decision_then_retried_applies_it_exactly_once() {
    if skip_without_tmux() {
        return;
    }
    let window = calibrate();
    let n = 24 * scale();
    let mut f = Figures::default();
    let mut failures = Vec::new();
    for i in 0..n {
        let c = Case::new();
        let t = c.console(&format!("kill-{i}"));
        preview(&t);
        let pid = t.console_pid();
        // Spread over a clean decision's intent lifetime, the last sixth past
        // it (kills after the write are the retry's easy case).
        let delay = window.mul_f64(1.2 * f64::from(i) / f64::from(n));
        t.keys(&["w"]);
        let seen = wait_for_intent(&c);
        if let Some(seen) = seen {
            while seen.elapsed() < delay {
                std::thread::yield_now();
            }
        } else {
            f.unseen += 1;
        }
        sigkill(pid);
        let killed_at = seen.map(|s| s.elapsed());
        // The shell reaps the console: the process is gone (not a zombie a
        // retry would take for a live writer).
        reaped(pid);
        f.kills += 1;
        let mid_write = c.intents() > 0;
        let written = !c.counts().open;
        if mid_write {
            f.mid_write += 1;
            f.mid_write_written += u32::from(written);
        }
        eprintln!(
            "kill {i}: {killed_at:?} after the intent was seen (aimed at {delay:?}): intent present {mid_write}, state.json written {written}"
        );
        drop(t);
        if i % 3 == 2 {
            f.console_retries += 1;
            console_retry(&c, &format!("kill-{i}-retry"), &mut f);
        } else {
            f.act_retries += 1;
            let out = c.act_retry();
            match out.status.code() {
                Some(0) => f.retries_wrote += 1,
                // Refused: already answered (the killed decision wrote it).
                Some(1) if written => f.retries_refused += 1,
                other => panic!(
                    "kill {i}: retry exit {other:?}: {}",
                    String::from_utf8_lossy(&out.stderr)
                ),
            }
        }
        // No temp file is left in the project; a lock file only when the
        // killed console held it and nothing wrote since (the next writer
        // breaks it: its process is gone).
        let lock = c.dir.join("state.json.loopdeck-lock");
        if let Ok(bytes) = fs::read(&lock) {
            let held: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(
                held["pid"], pid,
                "kill {i}: a lock of another process is left"
            );
            f.stale_locks += 1;
        }
        let mut names: Vec<String> = fs::read_dir(&c.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "state.json.loopdeck-lock")
            .collect();
        names.sort();
        assert_eq!(names, ["conversation.md", "state.json"], "kill {i}");
        let counts = c.counts();
        if counts.logged > 1 || counts.conversation > 1 || counts.records > 1 {
            f.duplicates += 1;
        }
        if counts != ONCE || c.intents() != 0 {
            failures.push(format!(
                "kill {i} (after {delay:?}, intent present: {mid_write}): {counts:?}, {} intent(s) left",
                c.intents()
            ));
        }
        let show = c.loopdeck(&["show", c.dir.to_str().unwrap(), "--json", "--now", NOW]);
        assert!(show.status.success(), "kill {i}: show fails");
        let v: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
        assert_eq!(
            v["project"]["problems"],
            serde_json::json!([]),
            "kill {i}: {v:#}"
        );
    }
    eprintln!(
        "console SIGKILL: {} kills spread over {window:?} after the intent appeared ({} after a \
         decision whose intent no poll saw); {} landed mid-write \
         (intent record present; {} of them with state.json already written); retries: {} with act, \
         {} in the console ({} wrote the answer, {} found it there, {} recover runs, {} console \
         retries refused once after settling the killed decision); {} stale locks of the killed \
         console left; duplicates: {}",
        f.kills,
        f.unseen,
        f.mid_write,
        f.mid_write_written,
        f.act_retries,
        f.console_retries,
        f.retries_wrote,
        f.retries_refused,
        f.recover_runs,
        f.console_refused_after_recovery,
        f.stale_locks,
        f.duplicates
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(f.duplicates, 0);
    assert!(
        f.mid_write > 0,
        "no kill landed while the decision was being written: the test proved nothing"
    );
}
