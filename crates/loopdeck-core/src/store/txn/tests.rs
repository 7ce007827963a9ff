//! The transaction executor, end to end on real files in temp dirs: the
//! lock, the checks, the order, the audit log and undo.
use super::*;
use crate::store::audit::{self, Which};
use crate::store::transact;
use std::fs;

struct Env {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    audit: PathBuf,
}

fn env(files: &[(&str, &str)]) -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("p");
    fs::create_dir_all(&project).unwrap();
    for (f, body) in files {
        let p = project.join(f);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, body).unwrap();
    }
    let audit = tmp.path().join("state/loopdeck");
    Env {
        _tmp: tmp,
        project,
        audit,
    }
}

impl Env {
    fn opts(&self) -> WriteOptions {
        WriteOptions {
            audit_dir: Some(self.audit.clone()),
            ..WriteOptions::default()
        }
    }
    fn txn(&self, lock: LockKind, opts: &WriteOptions) -> Txn {
        Txn::new(
            &self.project,
            "state.json",
            lock,
            opts,
            "ann",
            DateTime::parse_from_rfc3339("2026-06-01T10:00:00Z")
                .unwrap()
                .with_timezone(&Utc),
            serde_json::json!({"verb": "test"}),
        )
    }
    fn read(&self, f: &str) -> String {
        fs::read_to_string(self.project.join(f)).unwrap()
    }
    fn names(&self) -> Vec<String> {
        crate::store::list_names(&self.project)
    }
    fn log(&self) -> Vec<serde_json::Value> {
        fs::read_to_string(self.audit.join("audit.ndjson"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// An undo in a directory no format recognises: the store's mechanism
/// alone, without `audit::vet`.
fn undo_anywhere(dir: &Path, which: &Which, opts: &WriteOptions) -> Result<Outcome, ActError> {
    crate::formats::audit::undo_checked(dir, which, opts, |_| Ok(()))
}

fn replace(file: &str, bytes: &str) -> Edit {
    Edit::Replace {
        file: file.to_owned(),
        bytes: bytes.as_bytes().to_vec(),
    }
}

#[test]
fn a_decision_is_written_locked_and_audited() {
    let e = env(&[("state.json", "{\"n\":1}\n")]);
    let out = transact(&e.txn(LockKind::Owner, &e.opts()), |snap| {
        assert!(
            e.project.join("state.json.loopdeck-lock").exists(),
            "decide runs inside the lock"
        );
        assert_eq!(snap.read("state.json")?, Some(&b"{\"n\":1}\n"[..]));
        Ok(vec![replace("state.json", "{\"n\":2}\n")])
    })
    .unwrap();
    assert_eq!(e.read("state.json"), "{\"n\":2}\n");
    assert_eq!(e.names(), vec!["state.json"], "no lock, no temp left");
    let id = out.audit_id.clone().unwrap();
    let log = e.log();
    assert_eq!(log.len(), 1);
    let rec = &log[0];
    assert_eq!(rec["id"], id.as_str());
    assert_eq!(rec["by"], "ann");
    // The decision's "now" is kept apart from the real time of the write.
    assert_eq!(rec["now"], "2026-06-01T10:00:00+00:00");
    assert_ne!(rec["at"], rec["now"]);
    assert_eq!(rec["lock"], "owner");
    assert_eq!(rec["decision"]["verb"], "test");
    let f = &rec["files"][0];
    assert_eq!(f["op"], "replace");
    assert_eq!(f["before"]["sha256"], sha256_hex(b"{\"n\":1}\n").as_str());
    assert_eq!(f["after"]["len"], 8);
    let blob = e.audit.join(f["blob"].as_str().unwrap());
    assert_eq!(fs::read(blob).unwrap(), b"{\"n\":1}\n");
    assert_eq!(out.files[0].before, Some(Stamp::of(b"{\"n\":1}\n")));
    assert_eq!(out.files[0].after, Some(Stamp::of(b"{\"n\":2}\n")));
}

#[test]
fn expect_sha256_is_checked_first() {
    let e = env(&[("state.json", "{}")]);
    let mut opts = e.opts();
    opts.expect_sha256 = Some("00".repeat(32));
    let decided = std::cell::Cell::new(false);
    let err = transact(&e.txn(LockKind::MkdirDir, &opts), |_| {
        decided.set(true);
        Ok(vec![])
    })
    .unwrap_err();
    assert!(!decided.get());
    assert_eq!(err.exit_code(), 3);
    assert_eq!(
        err.to_string(),
        format!(
            "stale state snapshot: expected sha256 {}, found {}",
            "00".repeat(32),
            sha256_hex(b"{}")
        )
    );
    let err = transact(&e.txn(LockKind::Owner, &opts), |_| Ok(vec![])).unwrap_err();
    assert!(
        err.to_string().starts_with("state.json changed on disk"),
        "{err}"
    );
    opts.expect_sha256 = Some(sha256_hex(b"{}"));
    transact(&e.txn(LockKind::Owner, &opts), |_| {
        Ok(vec![replace("state.json", "{\"a\":1}")])
    })
    .unwrap();
    assert_eq!(e.read("state.json"), "{\"a\":1}");
}

#[test]
fn a_file_changed_after_it_was_read_stops_the_write() {
    let e = env(&[("state.json", "{\"n\":1}"), ("notes.md", "a\n")]);
    let err = transact(&e.txn(LockKind::Owner, &e.opts()), |snap| {
        snap.read("state.json")?;
        snap.read("notes.md")?;
        // An editor that ignores the lock writes meanwhile.
        fs::write(e.project.join("notes.md"), "a\nb\n").unwrap();
        Ok(vec![
            replace("state.json", "{\"n\":2}"),
            replace("notes.md", "x\n"),
        ])
    })
    .unwrap_err();
    assert_eq!(err.exit_code(), 3);
    assert_eq!(
        err.to_string(),
        "notes.md changed on disk since it was read (2 bytes then, 4 bytes now); nothing written"
    );
    assert_eq!(e.read("state.json"), "{\"n\":1}");
    assert_eq!(e.read("notes.md"), "a\nb\n");
    assert!(e.log().is_empty());
    // A file read as missing that appears is a change too.
    let err = transact(&e.txn(LockKind::Owner, &e.opts()), |snap| {
        assert_eq!(snap.read("new.md")?, None);
        fs::write(e.project.join("new.md"), "z").unwrap();
        Ok(vec![replace("new.md", "mine")])
    })
    .unwrap_err();
    assert!(
        err.to_string().contains("(absent then, 1 bytes now)"),
        "{err}"
    );
    assert_eq!(e.read("new.md"), "z");
}

#[test]
fn the_primary_is_written_after_other_files_and_removals_last() {
    let e = env(&[
        ("state.json", "{}"),
        ("WAITING.json", "{}"),
        ("conversation.md", "q\n"),
    ]);
    transact(&e.txn(LockKind::PidFile, &e.opts()), |snap| {
        snap.read("state.json")?;
        Ok(vec![
            Edit::Remove {
                file: "WAITING.json".into(),
            },
            replace("state.json", "{\"answered\":true}"),
            replace("conversation.md", "q\na\n"),
        ])
    })
    .unwrap();
    let order: Vec<_> = e.log()[0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(order, ["conversation.md", "state.json", "WAITING.json"]);
    assert_eq!(e.names(), vec!["conversation.md", "state.json"]);
}

#[test]
fn a_decision_into_a_missing_directory_writes_nothing() {
    let e = env(&[("state.json", "{}"), ("a.md", "a\n")]);
    let err = transact(&e.txn(LockKind::Owner, &e.opts()), |_| {
        Ok(vec![
            replace("a.md", "b\n"),
            replace("no/such.md", "x"),
            replace("state.json", "{\"x\":1}"),
        ])
    })
    .unwrap_err();
    assert_eq!(err.exit_code(), 1);
    assert_eq!(e.read("a.md"), "a\n");
    assert_eq!(e.read("state.json"), "{}");
    assert!(e.log().is_empty(), "nothing written, nothing recorded");
}

/// A step that fails after others were written (a full disk, an
/// immutable primary) puts them back: all or nothing, and it says so.
#[test]
fn a_failure_part_way_rolls_back_what_was_written() {
    let e = env(&[
        ("state.json", "{}"),
        ("a.md", "a\n"),
        ("t.ndjson", "{\"n\":1}\n"),
    ]);
    for fail in [1, 2] {
        super::super::exec::fault::fail_at(fail);
        let err = transact(&e.txn(LockKind::Owner, &e.opts()), |snap| {
            snap.read("state.json")?;
            Ok(vec![
                replace("a.md", "b\n"),
                Edit::AppendLine {
                    file: "t.ndjson".into(),
                    line: b"{\"n\":2}".to_vec(),
                },
                replace("state.json", "{\"x\":1}"),
            ])
        })
        .unwrap_err();
        let msg = err.to_string();
        assert_eq!(err.exit_code(), 1, "{msg}");
        assert!(msg.contains("No space left on device"), "{msg}");
        assert!(msg.contains("nothing written"), "{msg}");
        assert!(msg.contains("a.md"), "{msg}");
        assert_eq!(e.read("a.md"), "a\n", "put back (fail at {fail})");
        assert_eq!(
            e.read("t.ndjson"),
            "{\"n\":1}\n",
            "append cut (fail at {fail})"
        );
        assert_eq!(e.read("state.json"), "{}");
        assert!(e.log().is_empty(), "nothing to undo, nothing recorded");
        assert!(
            crate::store::intent::pending(&e.audit).is_empty(),
            "no intent left behind"
        );
        assert!(
            crate::store::list_names(&e.audit.join("blobs")).is_empty(),
            "no empty blob directory left"
        );
    }
    // The same decision then applies once.
    transact(&e.txn(LockKind::Owner, &e.opts()), |_| {
        Ok(vec![
            replace("a.md", "b\n"),
            replace("state.json", "{\"x\":1}"),
        ])
    })
    .unwrap();
    assert_eq!(e.log().len(), 1);
}

/// A file another writer changed after the decision wrote it is never
/// put back over that writer's bytes: the decision is partial, exit 4,
/// and the audit log records what stays written.
#[test]
fn a_rollback_never_erases_another_writers_save() {
    use super::super::exec::fault::{Fault, at};
    let e = env(&[("state.json", "{}"), ("a.md", "a\n")]);
    let agent = e.project.join("a.md");
    at(
        1,
        Fault::Fail(Box::new(move || fs::write(agent, "agent\n").unwrap())),
    );
    let err = transact(&e.txn(LockKind::Owner, &e.opts()), |snap| {
        snap.read("state.json")?;
        Ok(vec![
            replace("a.md", "b\n"),
            replace("state.json", "{\"x\":1}"),
        ])
    })
    .unwrap_err();
    let msg = err.to_string();
    assert_eq!(err.exit_code(), 4, "{msg}");
    assert!(msg.contains("could not be rolled back whole"), "{msg}");
    assert!(msg.contains("a.md"), "{msg}");
    assert_eq!(e.read("a.md"), "agent\n", "the agent's save stays");
    assert_eq!(e.read("state.json"), "{}");
    let log = e.log();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0]["partial"], true);
    assert_eq!(log[0]["files"][0]["file"], "a.md");
}

/// A decision killed between its files is found by the next decision on
/// the project and rolled back first: a retry then applies it once.
#[test]
fn a_killed_decision_is_rolled_back_before_the_next_one() {
    use super::super::exec::fault::{Fault, at};
    let e = env(&[("state.json", "{\"n\":0}"), ("a.md", "q\n")]);
    let answer = |snap: &mut Snapshot| -> Result<Vec<Edit>, ActError> {
        let state = snap.read("state.json")?.unwrap_or_default().to_vec();
        if state != b"{\"n\":0}" {
            return Err(ActError::Refused(Refusal::new("already answered")));
        }
        let md = snap.read("a.md")?.unwrap_or_default().to_vec();
        let mut md = md;
        md.extend_from_slice(b"answer\n");
        Ok(vec![
            Edit::Replace {
                file: "a.md".into(),
                bytes: md,
            },
            replace("state.json", "{\"n\":1}"),
        ])
    };
    at(1, Fault::Kill);
    assert!(transact(&e.txn(LockKind::Owner, &e.opts()), answer).is_err());
    assert_eq!(e.read("a.md"), "q\nanswer\n", "killed after the first file");
    assert_eq!(crate::store::intent::pending(&e.audit).len(), 1);
    // The retry settles the interrupted decision, then answers once.
    let out = transact(&e.txn(LockKind::Owner, &e.opts()), answer).unwrap();
    assert_eq!(e.read("a.md"), "q\nanswer\n", "one answer, not two");
    assert_eq!(e.read("state.json"), "{\"n\":1}");
    assert_eq!(out.recovered.len(), 1, "{:?}", out.recovered);
    assert!(
        out.recovered[0].contains("rolled back a.md"),
        "{:?}",
        out.recovered
    );
    assert!(crate::store::intent::pending(&e.audit).is_empty());
    assert_eq!(e.log().len(), 1);
}

/// An append that landed after another writer's line (not where it was
/// planned) before the decision was killed is still found by recovery and
/// put back with the rest, so the retry writes the line once.
#[test]
fn an_append_moved_by_another_writer_is_found_by_recovery() {
    use super::super::exec::fault::{Fault, at};
    let e = env(&[("state.json", "{\"n\":0}"), ("log.ndjson", "{\"a\":1}\n")]);
    let answer = |snap: &mut Snapshot| -> Result<Vec<Edit>, ActError> {
        if snap.read("state.json")?.unwrap_or_default() != b"{\"n\":0}" {
            return Err(ActError::Refused(Refusal::new("already answered")));
        }
        Ok(vec![
            Edit::AppendLine {
                file: "log.ndjson".into(),
                line: b"{\"ours\":1}".to_vec(),
            },
            replace("state.json", "{\"n\":1}"),
        ])
    };
    at(0, Fault::Kill);
    assert!(transact(&e.txn(LockKind::Owner, &e.opts()), answer).is_err());
    assert_eq!(crate::store::intent::pending(&e.audit).len(), 1);
    // As if an agent appended its line between the plan and the append,
    // and the decision's line landed after it before the kill.
    fs::write(
        e.project.join("log.ndjson"),
        "{\"a\":1}\n{\"agent\":2}\n{\"ours\":1}\n",
    )
    .unwrap();
    let out = transact(&e.txn(LockKind::Owner, &e.opts()), answer).unwrap();
    assert_eq!(
        e.read("log.ndjson"),
        "{\"a\":1}\n{\"agent\":2}\n{\"ours\":1}\n",
        "the line once, the agent's kept"
    );
    assert_eq!(e.read("state.json"), "{\"n\":1}");
    assert!(
        out.recovered
            .iter()
            .any(|r| r.contains("rolled back log.ndjson")),
        "{:?}",
        out.recovered
    );
    assert!(crate::store::intent::pending(&e.audit).is_empty());
}

/// A decision killed after its last file but before its audit record is
/// complete: recovery keeps it and records it, so `undo` finds it.
#[test]
fn a_decision_killed_before_its_record_is_recorded_by_recovery() {
    use super::super::exec::fault::{Fault, at};
    let e = env(&[("state.json", "{\"n\":0}"), ("a.md", "q\n")]);
    at(2, Fault::Kill);
    let err = transact(&e.txn(LockKind::Owner, &e.opts()), |snap| {
        snap.read("state.json")?;
        Ok(vec![
            replace("a.md", "q\na\n"),
            replace("state.json", "{\"n\":1}"),
        ])
    });
    assert!(err.is_err());
    assert!(e.log().is_empty());
    let settled = crate::store::intent::recover(&e.audit, None, Duration::from_secs(1)).unwrap();
    assert_eq!(settled.len(), 1);
    assert!(
        matches!(settled[0], crate::store::intent::Settled::Completed { .. }),
        "{settled:?}"
    );
    assert_eq!(e.log().len(), 1);
    assert_eq!(e.read("state.json"), "{\"n\":1}");
    let id = e.log()[0]["id"].as_str().unwrap().to_owned();
    undo_anywhere(&e.audit, &Which::Id(id), &e.opts()).unwrap();
    assert_eq!(e.read("a.md"), "q\n");
    assert_eq!(e.read("state.json"), "{\"n\":0}");
}

/// A state directory that cannot hold the intent record (a full disk)
/// refuses the decision with nothing written.
#[test]
fn no_room_for_the_intent_record_writes_nothing() {
    let e = env(&[("state.json", "{}")]);
    fs::create_dir_all(&e.audit).unwrap();
    // A file where the intents' directory goes: it cannot be created.
    fs::write(e.audit.join(crate::store::intent::INTENTS), "x").unwrap();
    let err = transact(&e.txn(LockKind::Owner, &e.opts()), |snap| {
        snap.read("state.json")?;
        Ok(vec![replace("state.json", "{\"x\":1}")])
    })
    .unwrap_err();
    let msg = err.to_string();
    assert_eq!(err.exit_code(), 1, "{msg}");
    assert!(msg.contains("nothing written"), "{msg}");
    assert_eq!(e.read("state.json"), "{}");
    assert!(crate::store::list_names(&e.audit.join("blobs")).is_empty());
}

#[test]
fn a_dry_run_shows_diffs_takes_no_lock_and_writes_nothing() {
    let e = env(&[
        ("state.json", "{\n  \"n\": 1\n}\n"),
        ("t.ndjson", "{\"a\":1}\n"),
    ]);
    let mut opts = WriteOptions {
        dry_run: true,
        readonly: true,
        ..WriteOptions::default()
    };
    opts.audit_dir = None;
    let out = transact(&e.txn(LockKind::Owner, &opts), |snap| {
        assert!(!e.project.join("state.json.loopdeck-lock").exists());
        snap.read("state.json")?;
        Ok(vec![
            replace("state.json", "{\n  \"n\": 2\n}\n"),
            Edit::AppendLine {
                file: "t.ndjson".into(),
                line: b"{\"a\":2}".to_vec(),
            },
        ])
    })
    .unwrap();
    assert!(out.dry_run && out.audit_id.is_none());
    assert_eq!(
        out.files[0].diff,
        "--- a/t.ndjson\n+++ b/t.ndjson\n@@ -1,0 +2,1 @@\n+{\"a\":2}\n"
    );
    assert_eq!(
        out.files[0].after,
        Some(Stamp::of(b"{\"a\":1}\n{\"a\":2}\n"))
    );
    assert_eq!(
        out.files[1].diff,
        "--- a/state.json\n+++ b/state.json\n@@ -1,3 +1,3 @@\n {\n-  \"n\": 1\n+  \"n\": 2\n }\n"
    );
    assert_eq!(e.read("state.json"), "{\n  \"n\": 1\n}\n");
    assert_eq!(e.read("t.ndjson"), "{\"a\":1}\n");
    assert_eq!(e.names(), vec!["state.json", "t.ndjson"]);
    assert!(!e.audit.exists());
}

#[test]
fn a_file_is_set_aside_only_under_a_plain_name() {
    let e = env(&[("state.json", "{")]);
    for to in ["../x", "a/b", "..", ""] {
        let err = transact(&e.txn(LockKind::Owner, &e.opts()), |_| {
            Ok(vec![Edit::RenameAside {
                file: "state.json".into(),
                to: to.into(),
            }])
        })
        .unwrap_err();
        assert_eq!(err.exit_code(), 1, "{to}");
    }
    assert_eq!(e.names(), vec!["state.json"]);
    // And never over an existing file.
    fs::write(e.project.join("state.json.corrupt"), "keep").unwrap();
    let err = transact(&e.txn(LockKind::Owner, &e.opts()), |_| {
        Ok(vec![Edit::RenameAside {
            file: "state.json".into(),
            to: "state.json.corrupt".into(),
        }])
    })
    .unwrap_err();
    assert_eq!(err.exit_code(), 3);
    assert_eq!(e.read("state.json.corrupt"), "keep");
    assert_eq!(e.read("state.json"), "{");
}

#[test]
fn read_only_refuses_every_write() {
    let e = env(&[("state.json", "{}")]);
    let opts = WriteOptions {
        readonly: true,
        ..e.opts()
    };
    let err = transact(&e.txn(LockKind::Owner, &opts), |_| {
        Ok(vec![replace("state.json", "x")])
    })
    .unwrap_err();
    assert!(matches!(err, ActError::ReadOnly));
    assert_eq!(e.read("state.json"), "{}");
}

#[test]
fn dwp_decides_before_taking_its_lock_and_a_held_lock_stops_it() {
    let e = env(&[("state.json", "{}")]);
    fs::create_dir(e.project.join("state.json.lock")).unwrap();
    let decided = std::cell::Cell::new(false);
    let err = transact(&e.txn(LockKind::MkdirDir, &e.opts()), |snap| {
        decided.set(true);
        snap.read("state.json")?;
        Ok(vec![replace("state.json", "{\"x\":1}")])
    })
    .unwrap_err();
    assert!(decided.get());
    assert_eq!(
        err.to_string(),
        "state is locked; inspect interrupted writer before recovering lock"
    );
    assert_eq!(e.read("state.json"), "{}");
    fs::remove_dir(e.project.join("state.json.lock")).unwrap();
    transact(&e.txn(LockKind::MkdirDir, &e.opts()), |snap| {
        snap.read("state.json")?;
        Ok(vec![replace("state.json", "{\"x\":1}")])
    })
    .unwrap();
    assert_eq!(e.names(), vec!["state.json"]);
}

#[test]
fn undo_puts_back_replaces_appends_removals_and_renames() {
    let e = env(&[
        ("state.json", "corrupt{"),
        ("t.ndjson", "{\"a\":1}"),
        ("W.json", "{}"),
    ]);
    transact(&e.txn(LockKind::Owner, &e.opts()), |snap| {
        snap.read("t.ndjson")?;
        Ok(vec![
            Edit::RenameAside {
                file: "state.json".into(),
                to: "state.json.corrupt-X".into(),
            },
            replace("state.json", "{\"rebuilt\":true}"),
            Edit::AppendLine {
                file: "t.ndjson".into(),
                line: b"{\"a\":2}".to_vec(),
            },
            Edit::Remove {
                file: "W.json".into(),
            },
        ])
    })
    .unwrap();
    assert_eq!(e.read("t.ndjson"), "{\"a\":1}\n{\"a\":2}\n");
    assert_eq!(e.read("state.json.corrupt-X"), "corrupt{");
    let undone = undo_anywhere(&e.audit, &Which::Last(None), &e.opts()).unwrap();
    assert!(undone.audit_id.is_some());
    assert_eq!(e.read("state.json"), "corrupt{");
    // An NDJSON log is append-only: its line stays as history.
    assert_eq!(e.read("t.ndjson"), "{\"a\":1}\n{\"a\":2}\n");
    assert_eq!(e.read("W.json"), "{}");
    assert_eq!(e.names(), vec!["W.json", "state.json", "t.ndjson"]);
    // The undo is a decision too: redoing it makes the decision again.
    undo_anywhere(&e.audit, &Which::Redo(None), &e.opts()).unwrap();
    assert_eq!(e.read("state.json"), "{\"rebuilt\":true}");
    assert_eq!(e.read("t.ndjson"), "{\"a\":1}\n{\"a\":2}\n");
    assert_eq!(e.log().len(), 3);
}

#[test]
fn undo_is_refused_when_a_file_moved_on() {
    let e = env(&[("state.json", "{\"n\":1}"), ("t.ndjson", "")]);
    let out = transact(&e.txn(LockKind::Owner, &e.opts()), |_| {
        Ok(vec![
            replace("state.json", "{\"n\":2}"),
            Edit::AppendLine {
                file: "t.ndjson".into(),
                line: b"{}".to_vec(),
            },
        ])
    })
    .unwrap();
    let id = out.audit_id.unwrap();
    fs::write(e.project.join("state.json"), "{\"n\":3}").unwrap();
    let err = undo_anywhere(&e.audit, &Which::Id(id.clone()), &e.opts()).unwrap_err();
    assert_eq!(err.exit_code(), 3);
    assert!(
        err.to_string()
            .starts_with("state.json has moved on since decision"),
        "{err}"
    );
    assert_eq!(e.read("state.json"), "{\"n\":3}");
    fs::write(e.project.join("state.json"), "{\"n\":2}").unwrap();
    fs::write(e.project.join("t.ndjson"), "{}\n{}\n").unwrap();
    // An agent appending to the log is not a conflict: the log is never
    // rewritten by an undo.
    undo_anywhere(&e.audit, &Which::Id(id), &e.opts()).unwrap();
    assert_eq!(e.read("state.json"), "{\"n\":1}");
    assert_eq!(e.read("t.ndjson"), "{}\n{}\n");
    let err = undo_anywhere(&e.audit, &Which::Id("nope".into()), &e.opts()).unwrap_err();
    assert_eq!(err.exit_code(), 1);
}

/// A decision whose primary file is an append-only log (a devloop bug
/// transition) cannot be undone: its lines are never rewritten.
#[test]
fn a_decision_appended_to_an_append_only_primary_is_not_undone() {
    let e = env(&[("b.ndjson", "{\"id\":\"b1\",\"status\":\"open\"}\n")]);
    let txn = Txn::new(
        &e.project,
        "b.ndjson",
        LockKind::Owner,
        &e.opts(),
        "ann",
        chrono::Utc::now(),
        serde_json::json!({"verb": "bug"}),
    );
    let out = transact(&txn, |_| {
        Ok(vec![Edit::AppendLine {
            file: "b.ndjson".into(),
            line: b"{\"id\":\"b1\",\"status\":\"fixing\"}".to_vec(),
        }])
    })
    .unwrap();
    let before = e.read("b.ndjson");
    let err = undo_anywhere(&e.audit, &Which::Id(out.audit_id.unwrap()), &e.opts()).unwrap_err();
    assert_eq!(err.exit_code(), 1);
    assert!(err.to_string().contains("append-only"), "{err}");
    assert_eq!(e.read("b.ndjson"), before);
}

#[test]
fn blobs_of_the_last_decisions_are_kept() {
    let e = env(&[("state.json", "0")]);
    for i in 1..=5 {
        transact(&e.txn(LockKind::Owner, &e.opts()), |_| {
            Ok(vec![replace("state.json", &i.to_string())])
        })
        .unwrap();
    }
    assert_eq!(crate::store::list_names(&e.audit.join("blobs")).len(), 5);
    audit::prune(&e.audit, 2);
    let kept = crate::store::list_names(&e.audit.join("blobs"));
    let ids: Vec<String> = e.log()[3..]
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kept, ids, "the newest two");
    // An undo whose bytes were pruned says so.
    let first = e.log()[0]["id"].as_str().unwrap().to_owned();
    fs::write(e.project.join("state.json"), "1").unwrap();
    let err = undo_anywhere(&e.audit, &Which::Id(first), &e.opts()).unwrap_err();
    assert!(err.to_string().contains("no longer kept"), "{err}");
}

#[test]
fn without_an_audit_log_nothing_is_written() {
    let e = env(&[("state.json", "{}")]);
    // The audit directory cannot be made: a file is in the way.
    fs::create_dir_all(e.audit.parent().unwrap()).unwrap();
    fs::write(&e.audit, "a file").unwrap();
    let err = transact(&e.txn(LockKind::Owner, &e.opts()), |_| {
        Ok(vec![replace("state.json", "{\"x\":1}")])
    })
    .unwrap_err();
    assert!(matches!(err, ActError::Store { .. }), "{err:?}");
    assert_eq!(e.read("state.json"), "{}");
    assert_eq!(e.names(), vec!["state.json"]);
}

/// The console's reading (`expect_files`): a decision is made only against
/// the bytes the user was shown, for every file it reads (dry runs
/// included); a file it does not read is not checked.
#[test]
fn a_decision_is_refused_when_a_file_it_reads_is_not_what_was_shown() {
    for lock in [LockKind::Owner, LockKind::MkdirDir, LockKind::PidFile] {
        let e = env(&[("state.json", "{\"n\":1}\n"), ("notes.md", "a\n")]);
        let shown = |f: &str| (f.to_owned(), crate::store::sha256_hex(e.read(f).as_bytes()));
        let mut opts = e.opts();
        opts.expect_files = vec![shown("state.json"), shown("notes.md")];
        // Another writer changes state.json after the console read it.
        fs::write(e.project.join("state.json"), "{\"n\":2}\n").unwrap();
        for dry_run in [true, false] {
            opts.dry_run = dry_run;
            let err = transact(&e.txn(lock, &opts), |snap| {
                snap.read("state.json")?;
                Ok(vec![replace("state.json", "{\"n\":9}\n")])
            })
            .unwrap_err();
            assert!(matches!(err, ActError::Changed(_)), "{lock:?} {err:?}");
            assert!(
                err.to_string()
                    .starts_with("state.json changed on disk since it was read"),
                "{err}"
            );
            assert_eq!(e.read("state.json"), "{\"n\":2}\n");
        }
        assert!(e.log().is_empty(), "nothing audited");
        // notes.md changed too, but this decision does not read it.
        fs::write(e.project.join("notes.md"), "b\n").unwrap();
        opts.dry_run = false;
        opts.expect_files = vec![shown("state.json"), ("notes.md".into(), "0".repeat(64))];
        transact(&e.txn(lock, &opts), |snap| {
            snap.read("state.json")?;
            Ok(vec![replace("state.json", "{\"n\":3}\n")])
        })
        .unwrap();
        assert_eq!(e.read("state.json"), "{\"n\":3}\n");
    }
}

/// A refusal made on bytes the caller was not shown (another writer is
/// rewriting the file: decide finds it corrupt) is a change on disk, so
/// the console reads the project again instead of calling it corrupt; a
/// refusal on the bytes shown stays a refusal.
#[test]
fn a_refusal_on_bytes_not_shown_is_a_change_on_disk() {
    let e = env(&[("state.json", "{\"n\":1}\n")]);
    let shown = crate::store::sha256_hex(b"{\"n\":1}\n");
    let mut opts = e.opts();
    opts.expect_files = vec![("state.json".to_owned(), shown)];
    let parse = |snap: &mut Snapshot| -> Result<Vec<Edit>, ActError> {
        let b = snap.read("state.json")?.unwrap_or_default().to_vec();
        serde_json::from_slice::<serde_json::Value>(&b)
            .map_err(|_| ActError::Refused(Refusal::new("state.json is corrupt")))?;
        Err(ActError::Refused(Refusal::new("not allowed")))
    };
    for dry_run in [true, false] {
        opts.dry_run = dry_run;
        let err = transact(&e.txn(LockKind::Owner, &opts), parse).unwrap_err();
        assert_eq!(err.to_string(), "not allowed");
    }
    // Half written by another process.
    fs::write(e.project.join("state.json"), "{\"n\":").unwrap();
    for dry_run in [true, false] {
        opts.dry_run = dry_run;
        let err = transact(&e.txn(LockKind::Owner, &opts), parse).unwrap_err();
        assert!(matches!(err, ActError::Changed(_)), "{err}");
    }
}

/// A decision killed after it appended to a log and wrote its primary,
/// before its record: an agent appends to the log meanwhile. Recovery
/// finds the decision's line where it put it, calls the decision complete
/// and records it; nothing is rolled back or written twice.
#[test]
fn a_killed_decision_whose_log_grew_since_is_completed_not_rolled_back() {
    use super::super::exec::fault::{Fault, at};
    let e = env(&[("state.json", "{\"n\":0}"), ("t.ndjson", "{\"a\":1}\n")]);
    at(2, Fault::Kill);
    let _ = transact(&e.txn(LockKind::Owner, &e.opts()), |snap| {
        snap.read("state.json")?;
        Ok(vec![
            Edit::AppendLine {
                file: "t.ndjson".into(),
                line: b"{\"decided\":1}".to_vec(),
            },
            replace("state.json", "{\"n\":1}"),
        ])
    });
    fs::OpenOptions::new()
        .append(true)
        .open(e.project.join("t.ndjson"))
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"{\"agent\":2}\n"))
        .unwrap();
    let settled = crate::store::intent::recover(&e.audit, None, Duration::from_secs(1)).unwrap();
    assert!(
        matches!(
            settled[..],
            [crate::store::intent::Settled::Completed { .. }]
        ),
        "{settled:?}"
    );
    assert_eq!(
        e.read("t.ndjson"),
        "{\"a\":1}\n{\"decided\":1}\n{\"agent\":2}\n"
    );
    assert_eq!(e.read("state.json"), "{\"n\":1}");
    assert_eq!(e.log().len(), 1);
}

/// Killed after its audit record, before forgetting its intent: the
/// decision is recorded, so recovery only forgets the intent, even when
/// another writer changed one of its files since (nothing is rolled back,
/// nothing recorded twice).
#[test]
fn a_recorded_decision_is_never_rolled_back_by_recovery() {
    use super::super::exec::fault::{Fault, at};
    let e = env(&[("state.json", "{\"n\":0}"), ("a.md", "q\n")]);
    at(3, Fault::Kill);
    let _ = transact(&e.txn(LockKind::Owner, &e.opts()), |snap| {
        snap.read("state.json")?;
        Ok(vec![
            replace("a.md", "q\na\n"),
            replace("state.json", "{\"n\":1}"),
        ])
    });
    assert_eq!(e.log().len(), 1, "recorded before the kill");
    assert_eq!(crate::store::intent::pending(&e.audit).len(), 1);
    fs::write(e.project.join("a.md"), "q\na\nagent\n").unwrap();
    let settled = crate::store::intent::recover(&e.audit, None, Duration::from_secs(1)).unwrap();
    assert!(
        matches!(
            settled[..],
            [crate::store::intent::Settled::Completed { .. }]
        ),
        "{settled:?}"
    );
    assert_eq!(e.read("a.md"), "q\na\nagent\n", "the agent's save stays");
    assert_eq!(e.read("state.json"), "{\"n\":1}");
    assert_eq!(e.log().len(), 1, "not recorded twice");
    assert!(crate::store::intent::pending(&e.audit).is_empty());
}

/// An intent whose project is gone cannot be settled now: it is said,
/// kept, and the others are settled all the same.
#[test]
fn one_intent_that_cannot_be_settled_never_stops_the_others() {
    use super::super::exec::fault::{Fault, at};
    let gone = env(&[("state.json", "{\"n\":0}")]);
    let e = Env {
        audit: gone.audit.clone(),
        ..env(&[("state.json", "{\"n\":0}"), ("a.md", "q\n")])
    };
    at(1, Fault::Kill);
    let _ = transact(&gone.txn(LockKind::Owner, &gone.opts()), |_| {
        Ok(vec![replace("state.json", "{\"n\":1}")])
    });
    fs::remove_dir_all(&gone.project).unwrap();
    at(1, Fault::Kill);
    let _ = transact(&e.txn(LockKind::Owner, &e.opts()), |snap| {
        snap.read("state.json")?;
        Ok(vec![
            replace("a.md", "q\na\n"),
            replace("state.json", "{\"n\":1}"),
        ])
    });
    let settled = crate::store::intent::recover(&e.audit, None, Duration::from_secs(1)).unwrap();
    assert_eq!(settled.len(), 2, "{settled:?}");
    assert!(
        settled
            .iter()
            .any(|s| matches!(s, crate::store::intent::Settled::Failed { .. }))
    );
    assert!(
        settled
            .iter()
            .any(|s| matches!(s, crate::store::intent::Settled::RolledBack { .. }))
    );
    assert_eq!(e.read("a.md"), "q\n");
    assert_eq!(
        crate::store::intent::pending(&e.audit).len(),
        1,
        "the one not settled stays"
    );
}

/// A decision refused after recovery put files back still says what the
/// recovery did (the files changed, though this decision wrote nothing).
#[test]
fn a_refusal_after_a_recovery_says_what_the_recovery_did() {
    use super::super::exec::fault::{Fault, at};
    let e = env(&[("state.json", "{\"n\":0}"), ("a.md", "q\n")]);
    at(1, Fault::Kill);
    let _ = transact(&e.txn(LockKind::Owner, &e.opts()), |snap| {
        snap.read("state.json")?;
        Ok(vec![
            replace("a.md", "q\na\n"),
            replace("state.json", "{\"n\":1}"),
        ])
    });
    let err = transact(&e.txn(LockKind::Owner, &e.opts()), |_| {
        Err(ActError::Refused(Refusal::new("not offered")))
    })
    .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("rolled back a.md"), "{msg}");
    assert!(msg.ends_with("then: not offered"), "{msg}");
    assert_eq!(e.read("a.md"), "q\n");
}
