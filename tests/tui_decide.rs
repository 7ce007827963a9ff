//! End to end (tmux): deciding in the console (issue 10), on a copy of the
//! example workspace, each run checking the files afterwards.
//!
//! - PRD-master: answer a frontier question from the inbox.
//! - devloop: transition a bug from a project's Bugs tab, with a note.
//! - DWP: approve a plan awaiting approval.
//! - GSD: answer WAITING.json by option digit, then undo it.
//! - A conflict: the file changes on disk between the preview and `w`.
//! - Undo: every file byte-identical to before the answer.
//! - Read-only: `a` writes nothing and says why.
//!
//! The waits are on text the app or the store produce (the diff, the typed
//! text, the status line after a write, the conflict message), never on
//! the dialog's chrome, and never on text already on screen before the
//! step. Decisions carry `--now` (the harness passes it): the files they
//! write are deterministic. The audit log goes to a temp `XDG_STATE_HOME`.
//!
//! Needs tmux; skipped, saying so, without it outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::NOW;
use common::tmux::{Tmux, skip_without_tmux};

/// A copy of the example workspace, a state dir for the audit log, and the
/// console started on it (`args` added to its command line).
struct Run {
    _tmp: tempfile::TempDir,
    ws: PathBuf,
    state: PathBuf,
    tmux: Tmux,
}

impl Run {
    fn start(label: &str, args: &[&str]) -> Run {
        let (tmp, ws) = common::workspace();
        let state = tmp.path().join("state");
        fs::create_dir_all(&state).unwrap();
        let tmux = Tmux::new(label);
        let env = format!("XDG_STATE_HOME={}", state.display());
        tmux.start_with(&ws, NOW, "140", "45", &[&env], args);
        // The list is loaded (a project name the example workspace has).
        tmux.wait_for("fba-smart-restock");
        Run {
            _tmp: tmp,
            ws,
            state,
            tmux,
        }
    }

    fn keys(&self, keys: &[&str]) {
        self.tmux.keys(keys);
    }

    /// Type `text` literally (not as key names).
    fn type_text(&self, text: &str) {
        self.tmux.keys(&["-l", text]);
    }

    /// Narrow the focused list to the rows matching `text` (`/`, Ctrl-U
    /// clears an earlier filter, `text`, Enter).
    fn filter(&self, text: &str) {
        self.keys(&["/", "C-u"]);
        self.type_text(text);
        self.keys(&["Enter"]);
    }

    /// The inbox (`i`; in the inbox already it does nothing), narrowed to
    /// `text`, its one row selected.
    fn inbox_item(&self, text: &str) {
        self.keys(&["i"]);
        self.filter(text);
        self.tmux.wait_for(&format!("/{text} · 1 "));
    }

    fn audit(&self) -> PathBuf {
        self.state.join("loopdeck/audit.ndjson")
    }

    /// The audit records written so far.
    fn audit_records(&self) -> usize {
        fs::read_to_string(self.audit())
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .count()
    }

    fn prd(&self, name: &str) -> PathBuf {
        self.ws.join("prd-master").join(name)
    }
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

/// Every file under `dir` and its bytes (not its mtime: an undo restores
/// bytes, and a write necessarily moves the clock).
fn bytes_of(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    common::snapshot(dir)
        .into_iter()
        .map(|(p, b, _)| (p, b))
        .collect()
}

/// The PRD question `id` is answered with `text` in `state.json`: no longer
/// open, out of the frontier, in `user_inputs_log`.
fn assert_prd_answered(state: &serde_json::Value, id: &str, text: &str) {
    let open = state["open_questions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|q| q["id"] == id && q["status"] == "pending_user");
    assert!(!open, "{id} is still open: {state:#}");
    let frontier = &state["next_action"]["question_ids"];
    assert!(
        !frontier
            .as_array()
            .is_some_and(|f| f.iter().any(|q| q == id)),
        "{id} is still on the frontier: {frontier}"
    );
    let logged = state["user_inputs_log"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["question_id"] == id && e["answer"] == text);
    assert!(logged, "no user_inputs_log entry for {id}: {state:#}");
    assert_eq!(state["last_updated_at_utc"], NOW);
}

#[test]
fn answering_a_prd_frontier_question_writes_state_and_conversation() {
    if skip_without_tmux() {
        return;
    }
    let r = Run::start("decide-prd", &[]);
    let dir = r.prd("lint-synonyms");
    r.inbox_item("OQ-6");
    // One free-text item: `a` opens its editor at once.
    r.keys(&["a"]);
    let text = "by the estimated storage fee";
    r.type_text(text);
    r.tmux.wait_for(text);
    r.keys(&["C-s"]);
    // The preview is the `act --dry-run` diff.
    r.tmux.wait_for("+++ b/state.json");
    r.tmux.wait_for("+++ b/conversation.md");
    assert!(
        !fs::read_to_string(dir.join("conversation.md"))
            .unwrap()
            .contains(text),
        "the preview writes nothing"
    );
    r.keys(&["w"]);
    r.tmux.wait_for("wrote conversation.md, state.json");

    assert_prd_answered(&read_json(&dir.join("state.json")), "OQ-6", text);
    let conv = fs::read_to_string(dir.join("conversation.md")).unwrap();
    assert!(conv.contains(&format!("## {NOW} ")), "{conv}");
    assert!(conv.contains("OQ-6"), "{conv}");
    assert!(conv.contains(text), "{conv}");
    assert_eq!(r.audit_records(), 1, "one audit record");
}

#[test]
fn transitioning_a_devloop_bug_from_the_bugs_tab_records_the_note() {
    if skip_without_tmux() {
        return;
    }
    let r = Run::start("decide-devloop", &[]);
    let dir = r.ws.join("devloop/data/companies/acme/projects/p-restock");
    let bug = "bug-20260601-0902-d4e8"; // open: it may go to fixing, wontfix, duplicate
    // The project (its list row), opened; its Bugs tab (3), the bug.
    r.filter("FBA");
    r.tmux.wait_for("/FBA 2/");
    r.keys(&["Enter"]);
    r.keys(&["3"]);
    r.filter("0902-d4e8");
    r.tmux.wait_for("/0902-d4e8");
    // `a`: a chooser of the statuses the lifecycle allows; 2 = wontfix.
    r.keys(&["a"]);
    r.keys(&["2"]);
    let note = "not worth the column width";
    r.type_text(note);
    r.tmux.wait_for(note);
    r.keys(&["C-s"]);
    r.tmux.wait_for("+++ b/bugs.ndjson");
    r.keys(&["w"]);
    r.tmux.wait_for("wrote timeline.ndjson, bugs.ndjson");

    let bugs = fs::read_to_string(dir.join("bugs.ndjson")).unwrap();
    let last: serde_json::Value = bugs
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .rfind(|b| b["id"] == bug)
        .unwrap();
    assert_eq!(last["status"], "wontfix", "{last:#}");
    let history = last["status_history"].as_array().unwrap();
    let entry = history.last().unwrap();
    assert_eq!(entry["from"], "open", "{entry:#}");
    assert_eq!(entry["to"], "wontfix", "{entry:#}");
    assert_eq!(entry["note"], note, "{entry:#}");
    assert_eq!(entry["ts"], NOW, "{entry:#}");
    let timeline = fs::read_to_string(dir.join("timeline.ndjson")).unwrap();
    let event: serde_json::Value = serde_json::from_str(timeline.lines().last().unwrap()).unwrap();
    assert_eq!(event["kind"], "bug_transitioned", "{event:#}");
    assert_eq!(event["ref"], bug, "{event:#}");
}

#[test]
fn approving_a_dwp_plan_from_the_inbox_marks_it_approved() {
    if skip_without_tmux() {
        return;
    }
    let r = Run::start("decide-dwp", &[]);
    let plan = r.ws.join("dwp/shop-api/.dwp/plans/PLAN_search_index");
    assert_eq!(read_json(&plan.join("state.json"))["approval"], "pending");
    r.inbox_item("approve the plan");
    // A decision without fields: `a` previews at once.
    r.keys(&["a"]);
    r.tmux.wait_for("+++ b/state.json");
    r.keys(&["w"]);
    r.tmux.wait_for("wrote README.md, state.json");

    let state = read_json(&plan.join("state.json"));
    assert_eq!(state["approval"], "approved", "{state:#}");
    assert_eq!(state["updated_at"], NOW, "{state:#}");
    let readme = fs::read_to_string(plan.join("README.md")).unwrap();
    assert!(readme.contains("\nApproval: approved\n"), "{readme}");
    assert!(!readme.contains("Approval: pending"), "{readme}");
}

#[test]
fn answering_gsd_waiting_by_option_digit_records_it_and_undo_restores_it() {
    if skip_without_tmux() {
        return;
    }
    let r = Run::start("decide-gsd", &[]);
    let planning = r.ws.join("gsd/paused-waiting/.planning");
    let waiting = planning.join("WAITING.json");
    let before = bytes_of(&r.ws);
    let question = read_json(&waiting)["question"].as_str().unwrap().to_owned();
    r.inbox_item("WAITING.json");
    // An option key in the inbox picks at once; option 2 has no fields:
    // straight to the preview.
    r.keys(&["2"]);
    r.tmux.wait_for("+++ /dev/null");
    r.keys(&["w"]);
    r.tmux
        .wait_for("wrote .planning/STATE.md, .planning/WAITING.json");

    assert!(!waiting.exists(), "WAITING.json is gone");
    let state = fs::read_to_string(planning.join("STATE.md")).unwrap();
    let line = format!("- [Phase 3]: {question} → B：不允许加签，固定 3 级 — answered by ");
    assert!(state.contains(&line), "{state}");
    assert!(
        state.contains("last_updated: \"2026-06-01T12:00:00.000Z\""),
        "{state}"
    );

    // `u` previews the undo (the diff brings WAITING.json back), `w` writes.
    r.keys(&["u"]);
    r.tmux.wait_for("+++ b/.planning/WAITING.json");
    r.keys(&["w"]);
    r.tmux.wait_for("undone:");
    assert_eq!(bytes_of(&r.ws), before, "every file as before the answer");
}

#[test]
fn a_file_changed_between_preview_and_write_is_a_conflict_that_keeps_the_text() {
    if skip_without_tmux() {
        return;
    }
    let r = Run::start("decide-conflict", &[]);
    let dir = r.prd("lint-synonyms");
    let conversation = fs::read(dir.join("conversation.md")).unwrap();
    r.inbox_item("OQ-6");
    r.keys(&["a"]);
    let text = "by days in stock, for now";
    r.type_text(text);
    r.tmux.wait_for(text);
    r.keys(&["C-s"]);
    r.tmux.wait_for("+++ b/state.json");

    // The agent writes state.json meanwhile: still valid, a field, the
    // question's wording and the update time changed (the row shows the
    // new wording once read; its age does not move: the question waits
    // from when it was first seen, whatever else the agent writes).
    let mut state = read_json(&dir.join("state.json"));
    state["current_substep"] = serde_json::Value::from("edited-by-the-agent");
    state["last_updated_at_utc"] = serde_json::Value::from("2026-06-01T11:57:00Z");
    for q in state["open_questions"].as_array_mut().unwrap() {
        if q["id"] == "OQ-6" {
            let title = format!("{} (rev 2)", q["title"].as_str().unwrap());
            q["title"] = serde_json::Value::from(title);
        }
    }
    let theirs = serde_json::to_vec_pretty(&state).unwrap();
    fs::write(dir.join("state.json"), &theirs).unwrap();

    r.keys(&["w"]);
    r.tmux.wait_for("changed on disk");
    assert_eq!(
        fs::read(dir.join("state.json")).unwrap(),
        theirs,
        "state.json holds exactly the other writer's bytes"
    );
    assert_eq!(
        fs::read(dir.join("conversation.md")).unwrap(),
        conversation,
        "nothing written"
    );
    assert_eq!(r.audit_records(), 0, "no audit record");
    // The console reads the project again (the row has the agent's
    // wording). Not waiting for it races the re-read: a retry before it
    // lands is made against the old reading and conflicts once more.
    r.tmux.wait_until("the agent's write read", |s| {
        s.lines()
            .any(|l| l.contains("lint-synonym") && l.contains("(rev 2)"))
    });

    // Enter: back to the text, still there.
    r.keys(&["Enter"]);
    let s = r.tmux.wait_gone("changed on disk");
    assert!(s.contains(text), "the typed text is kept:\n{s}");
    // Sent again, against the file as it reads now: written.
    r.keys(&["C-s"]);
    r.tmux.wait_for("+++ b/state.json");
    r.keys(&["w"]);
    r.tmux.wait_for("wrote conversation.md, state.json");
    let state = read_json(&dir.join("state.json"));
    assert_prd_answered(&state, "OQ-6", text);
    assert_eq!(
        state["current_substep"], "edited-by-the-agent",
        "the other writer's edit is kept"
    );
    assert!(
        fs::read_to_string(dir.join("conversation.md"))
            .unwrap()
            .contains(text)
    );
    assert_eq!(r.audit_records(), 1);
}

#[test]
fn undo_after_an_answer_leaves_every_file_as_it_was() {
    if skip_without_tmux() {
        return;
    }
    let r = Run::start("decide-undo", &[]);
    let dir = r.prd("approval-flow-legacy");
    let before = bytes_of(&r.ws);
    r.inbox_item("OQ-2");
    r.keys(&["a"]);
    let text = "yes, up to five levels";
    r.type_text(text);
    r.tmux.wait_for(text);
    r.keys(&["C-s"]);
    r.tmux.wait_for("+++ b/state.json");
    r.keys(&["w"]);
    r.tmux.wait_for("wrote conversation.md, state.json");
    assert_prd_answered(&read_json(&dir.join("state.json")), "OQ-2", text);
    assert_ne!(bytes_of(&r.ws), before);

    // `u` previews the undo (the form closed after the write: its diff is
    // new on screen).
    r.keys(&["u"]);
    r.tmux.wait_for("+++ b/state.json");
    r.keys(&["w"]);
    r.tmux.wait_for("undone:");
    assert_eq!(bytes_of(&r.ws), before, "every file as before the answer");
    assert_eq!(r.audit_records(), 2, "the answer and its undo");
}

#[test]
fn read_only_writes_nothing_and_says_so() {
    if skip_without_tmux() {
        return;
    }
    let r = Run::start("decide-readonly", &["--readonly"]);
    let before = common::snapshot(&r.ws);
    r.inbox_item("OQ-6");
    r.keys(&["a"]);
    r.tmux.wait_for("decisions are off");
    // The next key clears the message; the write and send keys do nothing.
    r.keys(&["w", "C-s"]);
    r.tmux.wait_gone("decisions are off");
    // An option key on GSD's WAITING.json: refused the same way.
    r.inbox_item("WAITING.json");
    r.keys(&["2"]);
    r.tmux.wait_for("decisions are off");
    r.keys(&["w"]);
    r.tmux.wait_gone("decisions are off");
    assert_eq!(common::snapshot(&r.ws), before, "nothing written");
    assert!(!r.audit().exists(), "no audit record");
}
