//! A decision's transaction: the one way any decision reaches the disk.
//!
//! A format describes the transaction ([`Txn`]: the project, the primary
//! file its lock guards, the lock's kind) and a `decide` function that
//! reads what it needs through a [`Snapshot`] and returns the [`Edit`]s to
//! make, or a [`Refusal`]. [`transact`] runs it under the rules of
//! PRODUCT.md "Rules for every write": the read-only gate, the lock, the
//! caller's `--expect-sha256`, compare-and-swap against the bytes `decide`
//! read, atomic replacement, whole-line appends, the audit log.
//!
//! Nothing here knows a format's file names: they arrive as arguments.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::{StoreError, read_in, sha256_hex};

/// The largest file a decision reads whole.
pub const DECISION_READ_LIMIT: u64 = super::STATE_FILE_LIMIT;

/// The sha256 and length of some bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub sha256: String,
    pub len: u64,
}

impl Stamp {
    pub fn of(bytes: &[u8]) -> Self {
        Stamp {
            sha256: sha256_hex(bytes),
            len: bytes.len() as u64,
        }
    }
}

/// One change to one file, relative to the project directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// Replace the whole file with `bytes` (create it when the snapshot
    /// read it as missing). The file must have been read through the
    /// [`Snapshot`] (or be new): its bytes are compared before the rename.
    Replace { file: String, bytes: Vec<u8> },
    /// Append one record (one line; no newline inside) to an NDJSON file,
    /// in one `write` with `O_APPEND`; the file is created if missing.
    AppendLine { file: String, line: Vec<u8> },
    /// Remove a file read through the snapshot (GSD's WAITING.json once
    /// answered).
    Remove { file: String },
    /// Rename a file read through the snapshot to `to` in the same
    /// directory, keeping it (a corrupt `state.json` set aside).
    RenameAside { file: String, to: String },
}

impl Edit {
    pub fn file(&self) -> &str {
        match self {
            Edit::Replace { file, .. }
            | Edit::AppendLine { file, .. }
            | Edit::Remove { file }
            | Edit::RenameAside { file, .. } => file,
        }
    }
}

/// The lock a format's writers share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LockKind {
    /// DWP's protected updater: `mkdir <primary>.lock`. An existing lock
    /// stops the write at once ("state is locked; inspect interrupted
    /// writer before recovering lock"); it is taken at write time, after
    /// the decision was computed, as the updater does.
    MkdirDir,
    /// GSD: `<primary>.lock` created with O_EXCL, holding the pid.
    PidFile,
    /// loopdeck's own lock for formats that define none (PRD-master,
    /// devloop JSON): `<primary>.loopdeck-lock` holding pid, host, boot id
    /// and process start time; stale when that process is gone.
    Owner,
}

/// What a transaction is about; the executor does the rest.
#[derive(Debug, Clone)]
pub struct Txn {
    /// The project directory: every file is relative to it and must stay
    /// inside it.
    pub project: PathBuf,
    /// The file the lock guards and `--expect-sha256` names.
    pub primary: String,
    pub lock: LockKind,
    /// How long a lock held by a live process is waited for.
    pub wait: Duration,
    /// The caller's snapshot of `primary` (`--expect-sha256`).
    pub expect_sha256: Option<String>,
    /// Compute and show, write nothing.
    pub dry_run: bool,
    /// `--readonly` or `readonly = true`: refuse at this one gate.
    pub readonly: bool,
    /// Who decides and when, for the audit log.
    pub by: String,
    pub now: DateTime<Utc>,
    /// The decision as the audit log and `--json` record it.
    pub decision: serde_json::Value,
    /// Where the audit log lives (default: loopdeck's XDG state directory;
    /// `None` there too means no audit log can be kept, which is refused
    /// unless `dry_run`).
    pub audit_dir: Option<PathBuf>,
}

/// The caller's part of every transaction (`act`'s flags, the config).
#[derive(Debug, Clone)]
pub struct WriteOptions {
    pub expect_sha256: Option<String>,
    pub dry_run: bool,
    pub readonly: bool,
    pub wait: Duration,
    pub audit_dir: Option<PathBuf>,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            expect_sha256: None,
            dry_run: false,
            readonly: false,
            wait: Duration::from_secs(10),
            audit_dir: None,
        }
    }
}

impl Txn {
    /// A transaction on `primary` in `project` guarded by `lock`.
    pub fn new(
        project: &Path,
        primary: &str,
        lock: LockKind,
        opts: &WriteOptions,
        by: &str,
        now: DateTime<Utc>,
        decision: serde_json::Value,
    ) -> Self {
        Txn {
            project: project.to_path_buf(),
            primary: primary.to_owned(),
            lock,
            wait: opts.wait,
            expect_sha256: opts.expect_sha256.clone(),
            dry_run: opts.dry_run,
            readonly: opts.readonly,
            by: by.to_owned(),
            now,
            decision,
            audit_dir: opts.audit_dir.clone(),
        }
    }
}

/// A decision the rules refuse (exit 1): nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct Refusal(pub String);

impl Refusal {
    pub fn new(msg: impl Into<String>) -> Self {
        Refusal(msg.into())
    }
}

/// Why a transaction wrote nothing.
#[derive(Debug, Error)]
pub enum ActError {
    /// The read-only gate (exit 1).
    #[error(
        "read-only: loopdeck was started with --readonly (or readonly = true), so nothing is written"
    )]
    ReadOnly,
    /// A rule or an illegal transition (exit 1).
    #[error("{0}")]
    Refused(#[from] Refusal),
    /// The file is not the one the decision was made from (exit 3).
    #[error("{0}")]
    Changed(String),
    /// Another writer holds the lock (exit 3).
    #[error("{0}")]
    Locked(String),
    /// The disk said no (exit 1).
    #[error("{file}: {source}")]
    Store { file: String, source: StoreError },
}

impl ActError {
    /// The exit code of PRODUCT.md's headless interface.
    pub fn exit_code(&self) -> i32 {
        match self {
            ActError::Changed(_) | ActError::Locked(_) => crate::exit::EXIT_CONFLICT,
            _ => crate::exit::EXIT_FINDINGS,
        }
    }
}

/// What `decide` read: each file's bytes (or its absence) and stamp.
#[derive(Debug)]
pub struct Snapshot {
    project: PathBuf,
    files: Vec<(String, Option<Vec<u8>>)>,
}

impl Snapshot {
    pub fn new(project: &Path) -> Self {
        Snapshot {
            project: project.to_path_buf(),
            files: Vec::new(),
        }
    }

    /// The bytes of `file` inside the project, `None` when it does not
    /// exist. Read once per transaction; later calls return the same bytes.
    pub fn read(&mut self, file: &str) -> Result<Option<&[u8]>, ActError> {
        if let Some(i) = self.files.iter().position(|(f, _)| f == file) {
            return Ok(self.files[i].1.as_deref());
        }
        let bytes = match read_in(&self.project, file, DECISION_READ_LIMIT) {
            Ok(b) => Some(b),
            Err(StoreError::Vanished) => None,
            Err(source) => {
                return Err(ActError::Store {
                    file: file.to_owned(),
                    source,
                });
            }
        };
        self.files.push((file.to_owned(), bytes));
        Ok(self.files.last().and_then(|(_, b)| b.as_deref()))
    }

    /// The stamp of `file` as read (`None`: not read, or missing).
    pub fn stamp(&self, file: &str) -> Option<Stamp> {
        self.bytes(file).map(Stamp::of)
    }

    /// The bytes of `file` as read, if it was read and exists.
    pub fn bytes(&self, file: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|(f, _)| f == file)
            .and_then(|(_, b)| b.as_deref())
    }

    pub fn project(&self) -> &Path {
        &self.project
    }
}

/// One file a transaction changed (or, dry, would change).
#[derive(Debug, Clone, Serialize)]
pub struct FileChange {
    pub file: String,
    /// `None`: the file did not exist before.
    pub before: Option<Stamp>,
    /// `None`: the file no longer exists.
    pub after: Option<Stamp>,
    /// The unified diff of the change (`--dry-run` prints it).
    #[serde(skip)]
    pub diff: String,
}

/// What a transaction did.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub dry_run: bool,
    pub files: Vec<FileChange>,
    /// The audit log's id for this decision (`loopdeck undo ID`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audit_id: Option<String>,
}

/// Run `decide` under the write rules and apply its edits: the read-only
/// gate, the caller's `--expect-sha256`, the format's lock, compare-and-swap
/// against the bytes `decide` read right before each rename, atomic
/// replacement, whole-line appends, the audit log (see `store::exec`).
pub fn transact(
    txn: &Txn,
    decide: impl FnOnce(&mut Snapshot) -> Result<Vec<Edit>, ActError>,
) -> Result<Outcome, ActError> {
    super::exec::run(txn, decide, super::exec::Order::Safe)
}

impl Snapshot {
    /// Every file read, with its bytes (`None`: missing).
    pub(crate) fn entries(&self) -> &[(String, Option<Vec<u8>>)] {
        &self.files
    }

    /// Was `file` read (present or missing)?
    pub(crate) fn has(&self, file: &str) -> bool {
        self.files.iter().any(|(f, _)| f == file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::audit::{self, Which};
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
        assert_eq!(rec["at"], "2026-06-01T10:00:00+00:00");
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
    fn a_write_stopped_part_way_is_recorded_as_partial_and_leaves_whole_files() {
        let e = env(&[("state.json", "{}"), ("a.md", "a\n")]);
        // A directory that does not exist fails only when written to.
        let err = transact(&e.txn(LockKind::Owner, &e.opts()), |_| {
            Ok(vec![
                replace("a.md", "b\n"),
                replace("no/such.md", "x"),
                replace("state.json", "{\"x\":1}"),
            ])
        })
        .unwrap_err();
        assert_eq!(err.exit_code(), 1);
        assert_eq!(e.read("a.md"), "b\n");
        assert_eq!(e.read("state.json"), "{}", "the primary, last, untouched");
        let log = e.log();
        assert_eq!(log[0]["partial"], true);
        assert_eq!(log[0]["files"].as_array().unwrap().len(), 1);
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
        let undone = audit::undo(&e.audit, &Which::Last, &e.opts()).unwrap();
        assert!(undone.audit_id.is_some());
        assert_eq!(e.read("state.json"), "corrupt{");
        assert_eq!(e.read("t.ndjson"), "{\"a\":1}");
        assert_eq!(e.read("W.json"), "{}");
        assert_eq!(e.names(), vec!["W.json", "state.json", "t.ndjson"]);
        // The undo is a decision too: undoing it makes the decision again.
        audit::undo(&e.audit, &Which::Last, &e.opts()).unwrap();
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
        let err = audit::undo(&e.audit, &Which::Id(id.clone()), &e.opts()).unwrap_err();
        assert_eq!(err.exit_code(), 3);
        assert!(
            err.to_string()
                .starts_with("state.json has moved on since decision"),
            "{err}"
        );
        assert_eq!(e.read("state.json"), "{\"n\":3}");
        fs::write(e.project.join("state.json"), "{\"n\":2}").unwrap();
        fs::write(e.project.join("t.ndjson"), "{}\n{}\n").unwrap();
        let err = audit::undo(&e.audit, &Which::Id(id.clone()), &e.opts()).unwrap_err();
        assert!(
            err.to_string().starts_with("t.ndjson has moved on"),
            "{err}"
        );
        fs::write(e.project.join("t.ndjson"), "{}\n").unwrap();
        audit::undo(&e.audit, &Which::Id(id), &e.opts()).unwrap();
        assert_eq!(e.read("state.json"), "{\"n\":1}");
        assert_eq!(e.read("t.ndjson"), "");
        let err = audit::undo(&e.audit, &Which::Id("nope".into()), &e.opts()).unwrap_err();
        assert_eq!(err.exit_code(), 1);
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
        let err = audit::undo(&e.audit, &Which::Id(first), &e.opts()).unwrap_err();
        assert!(err.to_string().contains("no longer kept"), "{err}");
    }
}
