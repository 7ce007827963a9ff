//! The executor behind [`transact`](super::txn::transact): the order of
//! the checks, the lock, the compare-and-swap and the writes.
//!
//! 1. The read-only gate (dry runs pass it); no audit directory refuses
//!    every write but a dry run.
//! 2. `--expect-sha256` against the primary's bytes on disk, before
//!    anything else.
//! 3. A dry run decides on fresh bytes, takes no lock, writes nothing and
//!    returns a unified diff per edit.
//! 4. `PidFile`/`Owner`: the lock first, then `decide` on bytes read inside
//!    it (concurrent writers serialize and all land). `MkdirDir` (DWP's
//!    updater): `decide` first, then the lock, taken at write time.
//! 5. Inside the lock, every file the decision read is read again and
//!    compared (nothing written when one changed), the previous bytes go to
//!    the audit log's blobs, then each edit is applied in a safe order, each
//!    file compared again right before its rename or removal.
//!
//! The safe order: other files' replaces and appends first (in the
//! decision's order), then files set aside, then the primary, then
//! removals. The primary is the record the format's readers (and
//! `--expect-sha256`) go by, so it is written last: a decision interrupted
//! between files leaves every file whole (each is replaced atomically) and
//! the primary saying the decision was not made, so it is still offered.
//! A removal (GSD's answered `WAITING.json`) comes after the primary
//! recorded the answer, so an interruption never loses a question unanswered.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::atomic::{self, sync_dir};
use super::audit::{self, FileRecord, Op, Record};
use super::diff::{self, Ending};
use super::txn::{ActError, Edit, FileChange, LockKind, Outcome, Refusal, Snapshot, Stamp, Txn};
use super::{StoreError, lock, ndjson, read_in, sha256_hex, sweep};

/// The order edits are applied in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// The safe order (see the module doc).
    Safe,
    /// Exactly as given (an undo replays a decision backwards).
    AsGiven,
}

/// What a file holds at one point of a transaction: `None` unknown (an
/// NDJSON file appended to without being read), `Some(None)` absent.
type Known = Option<Option<Vec<u8>>>;

/// One edit with the file's contents before and after it.
struct Step {
    edit: Edit,
    before: Known,
    after: Known,
}

pub(crate) fn run(
    txn: &Txn,
    decide: impl FnOnce(&mut Snapshot) -> Result<Vec<Edit>, ActError>,
    order: Order,
) -> Result<Outcome, ActError> {
    super::txn::gate(txn.readonly, txn.dry_run)?;
    let audit_dir = if txn.dry_run {
        None
    } else {
        Some(audit::dir_for(txn.audit_dir.as_deref())?)
    };
    // The caller's snapshot is checked first; a dry run and DWP's updater
    // then decide on these very bytes.
    let mut first = Snapshot::new(&txn.project);
    if let Some(expect) = &txn.expect_sha256 {
        check_expect(txn, expect, &mut first)?;
    }
    if txn.dry_run {
        let edits = decide(&mut first);
        let edits = made_on_what_was_shown(txn, &first, edits)?;
        let steps = plan(txn, &mut first, edits, order)?;
        preflight(txn, &steps)?;
        let read = first
            .entries()
            .iter()
            .filter_map(|(f, b)| b.as_deref().map(|b| (f.clone(), sha256_hex(b))))
            .collect();
        return Ok(Outcome {
            dry_run: true,
            files: preview(txn, &steps),
            audit_id: None,
            read,
        });
    }
    let (guard, mut snap, edits) = if txn.lock == LockKind::MkdirDir {
        let edits = decide(&mut first);
        let edits = made_on_what_was_shown(txn, &first, edits)?;
        let guard = lock::acquire(&txn.project, &txn.primary, txn.lock, txn.wait)?;
        (guard, first, edits)
    } else {
        drop(first);
        let guard = lock::acquire(&txn.project, &txn.primary, txn.lock, txn.wait)?;
        let mut snap = Snapshot::new(&txn.project);
        if let Some(expect) = &txn.expect_sha256 {
            check_expect(txn, expect, &mut snap)?;
        }
        let edits = decide(&mut snap);
        let edits = made_on_what_was_shown(txn, &snap, edits)?;
        (guard, snap, edits)
    };
    let steps = plan(txn, &mut snap, edits, order)?;
    // Every file the decision was made from is still what it read.
    for (file, bytes) in snap.entries() {
        cas(txn, file, bytes.as_deref(), false)?;
    }
    let dir = audit_dir.ok_or_else(|| ActError::Refused(Refusal::new(audit::NO_DIR)))?;
    preflight(txn, &steps)?;
    audit_preflight(&dir)?;
    let result = apply(txn, &dir, steps);
    drop(guard);
    result
}

/// Before anything is written (and before a dry run reads a file it
/// appends to): every file an edit replaces or appends to is absent or a
/// regular file this process may write (a FIFO is never opened, a
/// read-only file never replaced; see [`atomic::check_writable`]), so a
/// decision is refused whole rather than half written.
fn preflight(txn: &Txn, steps: &[Step]) -> Result<(), ActError> {
    for s in steps {
        let replacing = match s.edit {
            Edit::Replace { .. } => true,
            Edit::AppendLine { .. } => false,
            Edit::Remove { .. } | Edit::RenameAside { .. } => continue,
        };
        let file = s.edit.file();
        let target = atomic::write_target(&txn.project, file).map_err(store_err(file))?;
        // A dry run (maybe under --readonly) creates nothing, not even the
        // throwaway file the owner check tries.
        atomic::check_writable(&target, replacing && !txn.dry_run).map_err(store_err(file))?;
    }
    Ok(())
}

/// Before anything is written: the audit log can be appended to and its
/// blob directory exists, so a decision is never written without the
/// record `loopdeck undo` needs.
fn audit_preflight(dir: &Path) -> Result<(), ActError> {
    audit::preflight(dir)
}

/// `--expect-sha256`: the primary on disk must have this sha256.
fn check_expect(txn: &Txn, expect: &str, snap: &mut Snapshot) -> Result<(), ActError> {
    let found = snap.read(&txn.primary)?.map(sha256_hex);
    if found.as_deref() == Some(expect) {
        return Ok(());
    }
    let found = found.unwrap_or_else(|| "no file".to_owned());
    Err(ActError::Changed(if txn.lock == LockKind::MkdirDir {
        format!("stale state snapshot: expected sha256 {expect}, found {found}")
    } else {
        format!(
            "{} changed on disk: expected sha256 {expect}, found {found}; nothing written",
            txn.primary
        )
    }))
}

/// `decide`'s answer, checked against the caller's reading: a decision,
/// or a refusal, made on bytes the caller was not shown (a file another
/// writer is rewriting, found corrupt) is a change on disk.
fn made_on_what_was_shown(
    txn: &Txn,
    snap: &Snapshot,
    decided: Result<Vec<Edit>, ActError>,
) -> Result<Vec<Edit>, ActError> {
    match decided {
        Ok(edits) => check_files(txn, snap).map(|()| edits),
        Err(refusal @ ActError::Refused(_)) => check_files(txn, snap).and(Err(refusal)),
        Err(other) => Err(other),
    }
}

/// The caller's reading (`expect_files`): every file the decision read
/// must hold the bytes the caller was shown.
fn check_files(txn: &Txn, snap: &Snapshot) -> Result<(), ActError> {
    for (file, expect) in &txn.expect_files {
        if !snap.has(file) {
            continue;
        }
        let found = snap.bytes(file).map(sha256_hex);
        if found.as_deref() != Some(expect.as_str()) {
            let found = found.map_or_else(|| "no file".to_owned(), |h| short(&h));
            return Err(ActError::Changed(format!(
                "{file} changed on disk since it was read (sha256 {} → {found}); nothing written",
                short(expect)
            )));
        }
    }
    Ok(())
}

fn short(hex: &str) -> String {
    hex.chars().take(12).collect()
}

/// The edits in their order, each with what its file holds before and
/// after. Every file an edit replaces, removes or sets aside is read
/// through the snapshot first (its bytes are compared and kept).
fn plan(
    txn: &Txn,
    snap: &mut Snapshot,
    mut edits: Vec<Edit>,
    order: Order,
) -> Result<Vec<Step>, ActError> {
    if order == Order::Safe {
        edits.sort_by_key(|e| rank(e, &txn.primary));
    }
    for e in &edits {
        if let Edit::RenameAside { file, to } = e
            && !is_plain_name(to)
        {
            return Err(ActError::Refused(Refusal::new(format!(
                "{file} can only be set aside under a plain file name in its directory, not {to:?}"
            ))));
        }
        if !matches!(e, Edit::AppendLine { .. }) && !snap.has(e.file()) {
            snap.read(e.file())?;
        }
    }
    let mut cur: HashMap<String, Option<Vec<u8>>> = snap.entries().iter().cloned().collect();
    let mut steps = Vec::with_capacity(edits.len());
    for edit in edits {
        let file = edit.file().to_owned();
        let before: Known = cur.get(&file).cloned();
        let after: Known = match &edit {
            Edit::Replace { bytes, .. } => Some(Some(bytes.clone())),
            Edit::AppendLine { line, .. } => before.as_ref().map(|b| {
                let b = b.as_deref().unwrap_or_default();
                let mut out = b.to_vec();
                out.extend_from_slice(&appended(b.last().copied(), line));
                Some(out)
            }),
            Edit::Remove { .. } => Some(None),
            Edit::RenameAside { to, .. } => {
                cur.insert(sibling(&file, to), before.clone().flatten());
                Some(None)
            }
        };
        if let Some(a) = &after {
            cur.insert(file, a.clone());
        }
        steps.push(Step {
            edit,
            before,
            after,
        });
    }
    Ok(steps)
}

/// The safe order's rank of an edit (see the module doc).
fn rank(e: &Edit, primary: &str) -> u8 {
    match e {
        Edit::Remove { .. } => 3,
        Edit::RenameAside { .. } => 1,
        _ if e.file() == primary => 2,
        _ => 0,
    }
}

/// Is `name` one plain path component (no `/`, `.` or `..`)?
pub(crate) fn is_plain_name(name: &str) -> bool {
    let mut c = Path::new(name).components();
    matches!(
        (c.next(), c.next()),
        (Some(std::path::Component::Normal(_)), None)
    ) && !name.contains('/')
}

/// `file`'s sibling named `to`, relative to the project.
pub(crate) fn sibling(file: &str, to: &str) -> String {
    Path::new(file)
        .with_file_name(to)
        .to_string_lossy()
        .into_owned()
}

/// The bytes `ndjson::append_line` adds after a file ending in `last`.
fn appended(last: Option<u8>, line: &[u8]) -> Vec<u8> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let mut out = Vec::with_capacity(line.len() + 2);
    if last.is_some_and(|b| b != b'\n') {
        out.push(b'\n');
    }
    out.extend_from_slice(line);
    out.push(b'\n');
    out
}

fn store_err(file: &str) -> impl Fn(StoreError) -> ActError + '_ {
    move |source| ActError::Store {
        file: file.to_owned(),
        source,
    }
}

/// Compare `file` on disk with `expected` (`None`: absent).
fn cas(txn: &Txn, file: &str, expected: Option<&[u8]>, written: bool) -> Result<(), ActError> {
    let now = match read_in(&txn.project, file, super::txn::DECISION_READ_LIMIT) {
        Ok(b) => Some(b),
        Err(StoreError::Vanished) => None,
        Err(StoreError::TooLarge { size, .. }) => {
            return Err(changed(
                file,
                expected.map(|b| b.len() as u64),
                Some(size),
                written,
            ));
        }
        Err(e) => return Err(store_err(file)(e)),
    };
    if now.as_deref() == expected {
        return Ok(());
    }
    Err(changed(
        file,
        expected.map(|b| b.len() as u64),
        now.map(|b| b.len() as u64),
        written,
    ))
}

fn changed(file: &str, before: Option<u64>, now: Option<u64>, written: bool) -> ActError {
    let size = |s: Option<u64>| s.map_or_else(|| "absent".to_owned(), |n| format!("{n} bytes"));
    ActError::Changed(format!(
        "{file} changed on disk since it was read ({} then, {} now); nothing {}written",
        size(before),
        size(now),
        if written { "further " } else { "" }
    ))
}

/// The sha256 and length of the regular file at `path` followed by
/// `extra`, read in chunks (`None`: absent). A FIFO or a device is refused,
/// never waited on.
fn stream_stamp(path: &Path, extra: &[u8]) -> Result<Option<Stamp>, StoreError> {
    let Some(mut f) = atomic::open_regular(path)? else {
        return Ok(None);
    };
    let mut h = Sha256::new();
    let mut len = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        len += n as u64;
    }
    h.update(extra);
    len += extra.len() as u64;
    let digest = h.finalize();
    let sha256 = digest.iter().map(|b| format!("{b:02x}")).collect();
    Ok(Some(Stamp { sha256, len }))
}

/// The last byte of the regular file at `path` (`None`: empty or absent).
fn last_byte(path: &Path) -> Result<Option<u8>, StoreError> {
    use std::io::{Seek, SeekFrom};
    let Some(mut f) = atomic::open_regular(path)? else {
        return Ok(None);
    };
    let len = f.metadata()?.len();
    if len == 0 {
        return Ok(None);
    }
    f.seek(SeekFrom::Start(len - 1))?;
    let mut b = [0u8; 1];
    f.read_exact(&mut b)?;
    Ok(Some(b[0]))
}

fn stamp_of(k: &Known) -> Option<Stamp> {
    k.as_ref().and_then(|b| b.as_deref()).map(Stamp::of)
}

/// A dry run's report: each edit's stamps and diff.
fn preview(txn: &Txn, steps: &[Step]) -> Vec<FileChange> {
    steps
        .iter()
        .map(|s| {
            let file = s.edit.file();
            let before = s.before.as_ref().map(|b| b.as_deref());
            let (before_stamp, after_stamp, diff) = match &s.edit {
                Edit::AppendLine { line, .. } => match before {
                    Some(b) => (
                        b.map(Stamp::of),
                        stamp_of(&s.after),
                        diff::append_hunk(file, &Ending::of(b.unwrap_or_default()), line),
                    ),
                    None => {
                        let path = atomic::write_target(&txn.project, file).ok();
                        let end = path
                            .as_deref()
                            .and_then(|p| Ending::of_file(p).ok())
                            .unwrap_or_default();
                        let last = end.tail.last().copied().or(if end.newlines > 0 {
                            Some(b'\n')
                        } else {
                            None
                        });
                        let add = appended(last, line);
                        let stamp = |extra: &[u8]| {
                            path.as_deref()
                                .and_then(|p| stream_stamp(p, extra).ok().flatten())
                        };
                        let after = stamp(&add).or_else(|| Some(Stamp::of(&add)));
                        (stamp(b""), after, diff::append_hunk(file, &end, line))
                    }
                },
                Edit::RenameAside { to, .. } => (
                    stamp_of(&s.before),
                    None,
                    format!(
                        "diff --git a/{file} b/{dest}\nrename from {file}\nrename to {dest}\n",
                        dest = sibling(file, to)
                    ),
                ),
                _ => {
                    let after = s.after.as_ref().and_then(|a| a.as_deref());
                    (
                        stamp_of(&s.before),
                        after.map(Stamp::of),
                        diff::unified(file, before.flatten(), after),
                    )
                }
            };
            FileChange {
                file: file.to_owned(),
                before: before_stamp,
                after: after_stamp,
                diff,
            }
        })
        .collect()
}

/// Write the steps (inside the lock), keeping the previous bytes and the
/// record in the audit log.
fn apply(txn: &Txn, dir: &Path, steps: Vec<Step>) -> Result<Outcome, ActError> {
    let id = audit::new_id();
    let mut records = Vec::with_capacity(steps.len());
    let mut blobs = Vec::new();
    for (n, s) in steps.iter().enumerate() {
        let keep = matches!(s.edit, Edit::Replace { .. } | Edit::Remove { .. });
        if let (true, Some(Some(bytes))) = (keep, &s.before) {
            blobs.push((n, bytes.as_slice()));
        }
    }
    let blob_names = audit::write_blobs(dir, &id, &blobs)?;
    let mut files = Vec::with_capacity(steps.len());
    let mut swept: HashSet<PathBuf> = HashSet::new();
    let mut failure = None;
    for (n, s) in steps.iter().enumerate() {
        match apply_one(txn, s, !records.is_empty(), &mut swept) {
            Ok((change, mut rec)) => {
                rec.blob = blob_names.get(&n).cloned();
                records.push(rec);
                files.push(change);
            }
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    if records.is_empty() {
        audit::forget_blobs(dir, &id);
        return Err(failure.unwrap_or_else(|| ActError::Refused(Refusal::new("nothing to write"))));
    }
    let record = Record {
        id: id.clone(),
        at: txn.now.to_rfc3339(),
        by: txn.by.clone(),
        host: lock::host_name(),
        project: fs::canonicalize(&txn.project)
            .unwrap_or_else(|_| txn.project.clone())
            .to_string_lossy()
            .into_owned(),
        primary: txn.primary.clone(),
        lock: txn.lock,
        decision: txn.decision.clone(),
        files: records,
        partial: failure.is_some(),
    };
    let logged = audit::append(dir, &record);
    if let Some(e) = failure {
        return Err(e);
    }
    if let Err(e) = logged {
        let written: Vec<&str> = files.iter().map(|f| f.file.as_str()).collect();
        return Err(ActError::Store {
            file: audit::LOG.to_owned(),
            source: StoreError::Io(io::Error::other(format!(
                "the decision WAS written ({}), but its audit record failed: {e}; `loopdeck undo` will not find it",
                written.join(", ")
            ))),
        });
    }
    Ok(Outcome {
        dry_run: false,
        files,
        audit_id: Some(id),
        read: Vec::new(),
    })
}

/// Apply one step: compare its file once more, write it.
fn apply_one(
    txn: &Txn,
    s: &Step,
    written: bool,
    swept: &mut HashSet<PathBuf>,
) -> Result<(FileChange, FileRecord), ActError> {
    let file = s.edit.file();
    let err = store_err(file);
    let target = atomic::write_target(&txn.project, file).map_err(&err)?;
    if let Some(d) = target.parent()
        && swept.insert(d.to_path_buf())
    {
        sweep::sweep(d);
    }
    if let Some(before) = &s.before {
        cas(txn, file, before.as_deref(), written)?;
    }
    let mut rec = FileRecord {
        file: file.to_owned(),
        op: Op::Replace,
        before: stamp_of(&s.before),
        after: stamp_of(&s.after),
        to: None,
        blob: None,
        appended_sha256: None,
    };
    match &s.edit {
        Edit::Replace { bytes, .. } => atomic::replace(&target, bytes).map_err(&err)?,
        Edit::AppendLine { line, .. } => {
            rec.op = Op::Append;
            let last = match &s.before {
                Some(b) => b.as_deref().and_then(|b| b.last().copied()),
                None => {
                    rec.before = stream_stamp(&target, b"").map_err(&err)?;
                    last_byte(&target).map_err(&err)?
                }
            };
            let add = appended(last, line);
            rec.appended_sha256 = Some(sha256_hex(&add));
            ndjson::append_line(&target, line).map_err(&err)?;
            if s.before.is_none() {
                rec.after = stream_stamp(&target, b"").map_err(&err)?;
            }
        }
        Edit::Remove { .. } => {
            rec.op = Op::Remove;
            if rec.before.is_some() {
                fs::remove_file(&target).map_err(|e| err(e.into()))?;
                sync_parent(&target);
            }
        }
        Edit::RenameAside { to, .. } => {
            rec.op = Op::Rename;
            rec.to = Some(to.clone());
            let dest = target.with_file_name(to);
            if fs::symlink_metadata(&dest).is_ok() {
                return Err(ActError::Changed(format!(
                    "{} already exists; {file} is not set aside over it; nothing {}written",
                    sibling(file, to),
                    if written { "further " } else { "" }
                )));
            }
            fs::rename(&target, &dest).map_err(|e| err(e.into()))?;
            sync_parent(&target);
        }
    }
    let change = FileChange {
        file: file.to_owned(),
        before: rec.before.clone(),
        after: rec.after.clone(),
        diff: String::new(),
    };
    Ok((change, rec))
}

fn sync_parent(p: &Path) {
    if let Some(d) = p.parent() {
        sync_dir(d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::txn::WriteOptions;

    /// An audit log that fails only after the files are written (the
    /// preflight passed; here it is skipped): the message says the
    /// decision was written, never that nothing was.
    #[test]
    fn an_audit_failure_after_the_write_says_the_decision_was_written() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("p");
        fs::create_dir(&project).unwrap();
        fs::write(project.join("state.json"), "{}").unwrap();
        let dir = tmp.path().join("audit");
        fs::create_dir_all(dir.join(audit::LOG)).unwrap();
        let txn = Txn::new(
            &project,
            "state.json",
            LockKind::Owner,
            &WriteOptions::default(),
            "tester",
            chrono::Utc::now(),
            serde_json::json!({"verb": "test"}),
        );
        let step = Step {
            edit: Edit::Replace {
                file: "state.json".to_owned(),
                bytes: b"{\"x\":1}".to_vec(),
            },
            before: Some(Some(b"{}".to_vec())),
            after: Some(Some(b"{\"x\":1}".to_vec())),
        };
        let err = apply(&txn, &dir, vec![step]).unwrap_err();
        let msg = err.to_string();
        assert_eq!(fs::read(project.join("state.json")).unwrap(), b"{\"x\":1}");
        assert!(
            msg.contains("the decision WAS written (state.json), but its audit record failed"),
            "{msg}"
        );
        assert!(!msg.contains("nothing written"), "{msg}");
        assert!(
            audit_preflight(&dir).is_err(),
            "the preflight would refuse it"
        );
    }
}
