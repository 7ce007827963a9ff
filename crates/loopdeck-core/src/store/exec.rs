//! The executor behind [`transact`]: the order of
//! the checks, the lock, the compare-and-swap and the writes.
//!
//! 1. The read-only gate (dry runs pass it); no audit directory refuses
//!    every write but a dry run.
//! 2. An interrupted decision on the project is settled (`intent`), then
//!    `--expect-sha256` is compared with the primary's bytes on disk, before
//!    the lock or the decision.
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
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::atomic::{self, Expect, Swap};
use super::audit::{self, FileRecord, Op, Record};
use super::beneath::{Dir, errno};
use super::diff::{self, Ending};
use super::intent::{self, Added, Intent};
use super::txn::{
    ActError, Edit, FileChange, LockKind, Outcome, Refusal, Shared, Snapshot, Stamp, Txn,
};
use super::{StoreError, is_plain_name, lock, ndjson, process, sha256_hex, sweep};

/// The order edits are applied in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Order {
    /// The safe order (see the module doc).
    Safe,
    /// Exactly as given (an undo replays a decision backwards).
    AsGiven,
}

/// What a file holds at one point of a transaction: `None` unknown (an
/// NDJSON file appended to without being read), `Some(None)` absent.
/// A file's bytes at a step (`Some(None)`: absent; `None`: not read
/// whole, as a log appended to).
type Known = Option<Option<Shared>>;

/// One edit with the file's contents before and after it.
struct Step {
    edit: Edit,
    before: Known,
    after: Known,
}

testing_pub!(
    /// Run `decide` under the write rules and apply its edits: the read-only
    /// gate, the caller's `--expect-sha256`, the format's lock, compare-and-swap
    /// against the bytes `decide` read right before each rename, atomic
    /// replacement, whole-line appends, the audit log (see the module doc).
    pub fn transact(
        txn: &Txn,
        decide: impl FnOnce(&mut Snapshot) -> Result<Vec<Edit>, ActError>,
    ) -> Result<Outcome, ActError> {
        run(txn, decide, Order::Safe)
    }
);

/// An undo's transaction: [`transact`]'s rules, with the edits applied
/// exactly as given (an undo replays a decision backwards, so the safe
/// order of a decision would be the wrong one).
pub(crate) fn replay(
    txn: &Txn,
    decide: impl FnOnce(&mut Snapshot) -> Result<Vec<Edit>, ActError>,
) -> Result<Outcome, ActError> {
    run(txn, decide, Order::AsGiven)
}

fn run(
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
    // The project directory is opened once; every file below is reached
    // through it (see `beneath`).
    let root = Dir::open(&txn.project).map_err(store_err(&txn.project.display().to_string()))?;
    // An interrupted decision on this project is settled first, so this
    // one is never made on half of another (see `intent`).
    let recovered: Vec<String> = match &audit_dir {
        Some(dir) => {
            let settled = intent::recover(dir, Some(&root.real_path()), txn.wait)?;
            if let Some(failed) = settled
                .iter()
                .find(|s| matches!(s, intent::Settled::Failed { .. }))
            {
                // Never decide on top of a decision left half way.
                return Err(ActError::Refused(Refusal::new(format!(
                    "{}; nothing written",
                    failed.message()
                ))));
            }
            settled.iter().map(intent::Settled::message).collect()
        }
        None => Vec::new(),
    };
    match decide_and_write(txn, decide, order, &root, audit_dir) {
        Ok(mut o) => {
            o.recovered = recovered;
            Ok(o)
        }
        // What recovery did is said even when this decision is refused: it
        // may have put files back.
        Err(e) if !recovered.is_empty() => Err(after_recovery(e, &recovered)),
        Err(e) => Err(e),
    }
}

/// `e`, prefixed with what recovery did before it.
fn after_recovery(e: ActError, recovered: &[String]) -> ActError {
    let said = recovered.join("; ");
    match e {
        ActError::Changed(m) => ActError::Changed(format!("{said}; then: {m}")),
        ActError::Locked(m) => ActError::Locked(format!("{said}; then: {m}")),
        ActError::Partial(m) => ActError::Partial(format!("{said}; then: {m}")),
        ActError::Refused(r) => ActError::Refused(Refusal::new(format!("{said}; then: {}", r.0))),
        ActError::Store { file, source } => ActError::Store {
            file,
            source: StoreError::Io(io::Error::other(format!("{source} (before it: {said})"))),
        },
        other => other,
    }
}

/// The decision itself, once any interrupted one is settled: decide
/// (inside the lock, or before it for DWP's updater), compare, write.
fn decide_and_write(
    txn: &Txn,
    decide: impl FnOnce(&mut Snapshot) -> Result<Vec<Edit>, ActError>,
    order: Order,
    root: &Dir,
    audit_dir: Option<PathBuf>,
) -> Result<Outcome, ActError> {
    // The caller's snapshot is checked first; a dry run and DWP's updater
    // then decide on these very bytes.
    let mut first = Snapshot::in_dir(&txn.project, root.try_clone().map_err(store_err("."))?);
    if let Some(expect) = &txn.expect_sha256 {
        check_expect(txn, expect, &mut first)?;
    }
    if txn.dry_run {
        let edits = decide(&mut first);
        let edits = made_on_what_was_shown(txn, &first, edits)?;
        let steps = plan(txn, &mut first, edits, order)?;
        preflight(txn, root, &steps)?;
        let read = first
            .entries()
            .iter()
            .filter_map(|(f, b)| b.as_deref().map(|b| (f.clone(), sha256_hex(b))))
            .collect();
        return Ok(Outcome {
            dry_run: true,
            primary: txn.primary.clone(),
            files: preview(txn, root, &steps),
            audit_id: None,
            read,
            recovered: Vec::new(),
            said: first.take_said(),
        });
    }
    // The lock is taken in the primary's directory as it was walked (the
    // directory held open, never a path looked up again).
    let (lock_dir, lock_name) = root
        .resolve(&txn.primary)
        .map_err(store_err(&txn.primary))?;
    let lock_at = lock_dir.proc_path();
    let (guard, mut snap, edits) = if txn.lock == LockKind::MkdirDir {
        let edits = decide(&mut first);
        let edits = made_on_what_was_shown(txn, &first, edits)?;
        let guard = lock::acquire_as(&lock_at, &lock_name, &txn.primary, txn.lock, txn.wait)?;
        (guard, first, edits)
    } else {
        drop(first);
        let guard = lock::acquire_as(&lock_at, &lock_name, &txn.primary, txn.lock, txn.wait)?;
        let mut snap = Snapshot::in_dir(&txn.project, root.try_clone().map_err(store_err("."))?);
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
        cas(root, file, bytes.as_deref().map(Vec::as_slice), false)?;
    }
    let dir = audit_dir.ok_or_else(|| ActError::Refused(Refusal::new(audit::NO_DIR)))?;
    preflight(txn, root, &steps)?;
    audit_preflight(&dir)?;
    let said = snap.take_said();
    let result = apply(txn, root, &dir, steps).map(|mut o| {
        o.said = said;
        o
    });
    drop(guard);
    drop(lock_dir);
    result
}

/// Before anything is written (and before a dry run reads a file it
/// appends to): every file an edit replaces or appends to is absent or a
/// regular file this process may write (a FIFO is never opened, a
/// read-only file never replaced; see [`atomic::check_writable`]), so a
/// decision is refused whole rather than half written.
fn preflight(txn: &Txn, root: &Dir, steps: &[Step]) -> Result<(), ActError> {
    for s in steps {
        let replacing = match s.edit {
            Edit::Replace { .. } => true,
            Edit::AppendLine { .. } => false,
            Edit::Remove { .. } | Edit::RenameAside { .. } => continue,
        };
        let file = s.edit.file();
        let (dir, name) = match root.resolve(file) {
            Ok(at) => at,
            // A dry run of a decision that makes its directory first (a
            // new project) previews files in a directory not there yet.
            Err(StoreError::Vanished) if txn.dry_run => continue,
            Err(e) => return Err(store_err(file)(e)),
        };
        // A dry run (maybe under --readonly) creates nothing, not even the
        // throwaway file the owner check tries.
        atomic::check_writable_at(&dir, &name, replacing && !txn.dry_run)
            .map_err(store_err(file))?;
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
    let found = match snap.read(&txn.primary) {
        Ok(bytes) => bytes.map(sha256_hex),
        // A log too large to read whole (a decision appends to it): its
        // sha256 is taken in chunks.
        Err(ActError::Store {
            source: StoreError::TooLarge { .. },
            ..
        }) => {
            let (dir, name) = Dir::open(&txn.project)
                .and_then(|root| root.resolve(&txn.primary))
                .map_err(store_err(&txn.primary))?;
            intent::stamp_at(&dir, &name)
                .map_err(store_err(&txn.primary))?
                .map(|s| s.sha256)
        }
        Err(e) => return Err(e),
    };
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
    // Shared with the snapshot: a file is held once however many steps
    // name its bytes.
    let mut cur: HashMap<String, Option<Shared>> = snap.entries().iter().cloned().collect();
    let mut steps = Vec::with_capacity(edits.len());
    for mut edit in edits {
        let file = edit.file().to_owned();
        let before: Known = cur.get(&file).cloned();
        let after: Known = match &mut edit {
            // The new bytes move to the step (`apply_one` writes them from
            // there), not copied.
            Edit::Replace { bytes, .. } => Some(Some(Shared::new(std::mem::take(bytes)))),
            Edit::AppendLine { line, .. } => before.as_ref().map(|b| {
                let b = b.as_deref().map(Vec::as_slice).unwrap_or_default();
                let mut out = b.to_vec();
                out.extend_from_slice(&appended(b.last().copied(), line));
                Some(Shared::new(out))
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

/// Compare `file` on disk with `expected` (`None`: absent), in chunks.
fn cas(root: &Dir, file: &str, expected: Option<&[u8]>, written: bool) -> Result<(), ActError> {
    let expect = expected.map_or(Expect::Absent, Expect::Bytes);
    let now = match root.resolve(file) {
        Ok((dir, name)) => atomic::differs(&dir, &name, expect).map_err(store_err(file))?,
        Err(StoreError::Vanished) => expected.map(|_| None),
        Err(e) => return Err(store_err(file)(e)),
    };
    match now {
        None => Ok(()),
        Some(now) => Err(changed(
            file,
            expected.map(|b| b.len() as u64),
            now,
            written,
        )),
    }
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

/// The last byte of the regular file at `path` (`None`: empty or absent).
fn last_byte(dir: &Dir, name: &str) -> Result<Option<u8>, StoreError> {
    use std::io::{Seek, SeekFrom};
    let Some(mut f) = dir.open_read(name)? else {
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
    bytes_of(k).map(Stamp::of)
}

/// The bytes a step knows for its file, if it knows them and the file
/// exists.
fn bytes_of(k: &Known) -> Option<&[u8]> {
    k.as_ref().and_then(|b| b.as_deref()).map(Vec::as_slice)
}

/// A dry run's report: each edit's stamps and diff.
fn preview(txn: &Txn, root: &Dir, steps: &[Step]) -> Vec<FileChange> {
    steps
        .iter()
        .map(|s| {
            let file = s.edit.file();
            let before = s.before.as_ref().map(|b| b.as_deref().map(Vec::as_slice));
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
                        let at = root.resolve(file).ok();
                        let stamp = |extra: &[u8]| {
                            at.as_ref()
                                .and_then(|(d, n)| intent::stamp_with(d, n, extra).ok().flatten())
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
                    let after = bytes_of(&s.after);
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
                appended: matches!(s.edit, Edit::AppendLine { .. }),
            }
        })
        .collect()
}

/// Write the steps (inside the lock), keeping the previous bytes, an
/// intent record before the first file, and the audit record after the
/// last. A step that fails puts back the steps already written (see
/// [`intent::roll_back`]), so a decision is written whole or not at all.
fn apply(txn: &Txn, root: &Dir, dir: &Path, steps: Vec<Step>) -> Result<Outcome, ActError> {
    let id = audit::new_id();
    let mut blobs = Vec::new();
    for (n, s) in steps.iter().enumerate() {
        let keep = matches!(s.edit, Edit::Replace { .. } | Edit::Remove { .. });
        if let (true, Some(Some(bytes))) = (keep, &s.before) {
            blobs.push((n, bytes.as_slice()));
        }
    }
    let blob_names = audit::write_blobs(dir, &id, &blobs)?;
    let mut files = Vec::with_capacity(steps.len());
    let mut added = Vec::with_capacity(steps.len());
    for (n, s) in steps.iter().enumerate() {
        let (mut rec, add) = match planned(root, s) {
            Ok(x) => x,
            Err(e) => {
                audit::forget_blobs(dir, &id);
                return Err(store_err(s.edit.file())(e));
            }
        };
        rec.blob = blob_names.get(&n).cloned();
        files.push(rec);
        added.push(add);
    }
    let real = chrono::Utc::now();
    let mut intent = Intent {
        record: Record {
            id: id.clone(),
            at: real.to_rfc3339(),
            now: ((txn.now - real).abs() >= chrono::Duration::seconds(1))
                .then(|| txn.now.to_rfc3339()),
            by: txn.by.clone(),
            host: process::host_name(),
            project: root.real_path().to_string_lossy().into_owned(),
            primary: txn.primary.clone(),
            lock: txn.lock,
            decision: txn.decision.clone(),
            files,
            partial: false,
        },
        pid: std::process::id(),
        start: process::start_ticks(std::process::id()),
        added,
    };
    // The record of what is about to happen comes first: a state
    // directory that cannot hold it (a full disk) refuses the decision
    // before any project file is touched.
    if let Err(e) = intent::write(dir, &intent) {
        audit::forget_blobs(dir, &id);
        return Err(ActError::Refused(Refusal::new(format!(
            "{e}: loopdeck keeps a record of every decision before writing it, and the state directory {} could not hold it; nothing written",
            dir.display()
        ))));
    }
    let mut changes = Vec::with_capacity(steps.len());
    let mut swept: HashSet<PathBuf> = HashSet::new();
    for (n, s) in steps.iter().enumerate() {
        #[cfg(test)]
        let step = match fault::before_step(n, s.edit.file()) {
            Ok(()) => apply_one(root, s, &mut swept),
            Err((true, killed)) => return Err(killed),
            Err((false, e)) => Err(e),
        };
        #[cfg(not(test))]
        let step = apply_one(root, s, &mut swept);
        match step {
            Ok((mut change, add)) => {
                if s.before.is_none()
                    && add.is_some()
                    && intent.added.get(n).copied().flatten() == add
                {
                    change.before = intent.record.files.get(n).and_then(|r| r.before.clone());
                }
                if add.is_some()
                    && intent.added.get(n).copied().flatten() != add
                    && let (Some(rec), Some(slot)) =
                        (intent.record.files.get_mut(n), intent.added.get_mut(n))
                {
                    // Another writer appended between the plan and the
                    // append: record what was really added.
                    rec.before = None;
                    rec.after = change.after.clone();
                    *slot = add;
                    let _ = intent::write(dir, &intent);
                }
                changes.push(change);
            }
            Err(e) => {
                // The failing step may have changed its file before it
                // failed (an error after its swap): it is put back too.
                let mut done: Vec<usize> = (0..n).collect();
                if let (Some(f), Some(a)) = (intent.record.files.get(n), intent.added.get(n))
                    && intent::state(root, f, *a).is_ok_and(|st| st == intent::State::Done)
                {
                    done.push(n);
                }
                if done.is_empty() {
                    intent::remove(dir, &id);
                    audit::forget_blobs(dir, &id);
                    return Err(e);
                }
                let settled = intent::roll_back(dir, root, &intent, &done);
                intent::remove(dir, &id);
                return Err(match settled {
                    intent::Settled::RolledBack { files, .. } => put_back(e, &files),
                    stuck => ActError::Partial(format!(
                        "{} ({}); {}",
                        s.edit.file(),
                        e.to_string().replace("; nothing written", ""),
                        stuck.message()
                    )),
                });
            }
        }
    }
    #[cfg(test)]
    if let Err((true, killed)) = fault::before_step(steps.len(), audit::LOG) {
        return Err(killed);
    }
    let logged = audit::append(dir, &intent.record);
    if let Err(e) = logged {
        let written: Vec<&str> = changes.iter().map(|f| f.file.as_str()).collect();
        return Err(ActError::Partial(format!(
            "the decision WAS written ({}), but its audit record failed: {e}; its intent record is kept in {}: `loopdeck recover` records it, then `loopdeck undo {id}` finds it (do not make the decision again)",
            written.join(", "),
            dir.display()
        )));
    }
    #[cfg(test)]
    if let Err((true, killed)) = fault::before_step(steps.len() + 1, "intent") {
        return Err(killed);
    }
    intent::remove(dir, &id);
    Ok(Outcome {
        dry_run: false,
        primary: txn.primary.clone(),
        files: changes,
        audit_id: Some(id),
        read: Vec::new(),
        recovered: Vec::new(),
        said: Vec::new(),
    })
}

/// A step's error once the steps before it were put back: nothing of the
/// decision is written, and the message says so.
fn put_back(e: ActError, files: &[String]) -> ActError {
    let note = format!(
        "nothing written ({} had been written first and {} put back)",
        files.join(", "),
        if files.len() == 1 { "was" } else { "were" }
    );
    match e {
        ActError::Changed(m) => ActError::Changed(format!("{m}; {note}")),
        ActError::Locked(m) => ActError::Locked(format!("{m}; {note}")),
        ActError::Store { file, source } => ActError::Store {
            file,
            source: StoreError::Io(io::Error::other(format!("{source}; {note}"))),
        },
        other => other,
    }
}

/// The audit record of a step as planned, and an append's lengths.
fn planned(root: &Dir, s: &Step) -> Result<(FileRecord, Option<Added>), StoreError> {
    let file = s.edit.file();
    let mut rec = FileRecord {
        file: file.to_owned(),
        op: Op::Replace,
        before: stamp_of(&s.before),
        after: stamp_of(&s.after),
        to: None,
        blob: None,
        appended_sha256: None,
    };
    let mut add_len = None;
    match &s.edit {
        Edit::Replace { .. } => {}
        Edit::Remove { .. } => rec.op = Op::Remove,
        Edit::RenameAside { to, .. } => {
            rec.op = Op::Rename;
            rec.to = Some(to.clone());
            rec.after = None;
        }
        Edit::AppendLine { line, .. } => {
            rec.op = Op::Append;
            let add = match &s.before {
                Some(b) => appended(b.as_deref().and_then(|b| b.last().copied()), line),
                None => {
                    let (dir, name) = root.resolve(file)?;
                    rec.before = intent::stamp_at(&dir, &name)?;
                    let add = appended(last_byte(&dir, &name)?, line);
                    rec.after = intent::stamp_with(&dir, &name, &add)?.or(Some(Stamp::of(&add)));
                    add
                }
            };
            rec.appended_sha256 = Some(sha256_hex(&add));
            add_len = Some(Added {
                before_len: rec.before.as_ref().map_or(0, |b| b.len),
                len: add.len() as u64,
            });
        }
    }
    Ok((rec, add_len))
}

/// Apply one step, each file compared once more right before it changes.
fn apply_one(
    root: &Dir,
    s: &Step,
    swept: &mut HashSet<PathBuf>,
) -> Result<(FileChange, Option<Added>), ActError> {
    let file = s.edit.file();
    let err = store_err(file);
    let (dir, name) = root.resolve(file).map_err(&err)?;
    if swept.insert(dir.shown().to_path_buf()) {
        sweep::sweep(&dir.proc_path());
    }
    let expect = match &s.before {
        Some(Some(b)) => Expect::Bytes(b),
        Some(None) => Expect::Absent,
        None => Expect::Any,
    };
    let changed_now = |now: Option<u64>| {
        changed(
            file,
            s.before
                .as_ref()
                .and_then(|b| b.as_ref().map(|b| b.len() as u64)),
            now,
            false,
        )
    };
    let mut change = FileChange {
        file: file.to_owned(),
        before: stamp_of(&s.before),
        after: stamp_of(&s.after),
        diff: String::new(),
        appended: matches!(s.edit, Edit::AppendLine { .. }),
    };
    let mut add = None;
    match &s.edit {
        Edit::Replace { .. } => {
            match atomic::replace_at(&dir, &name, bytes_of(&s.after).unwrap_or_default(), expect) {
                Ok(()) => {}
                Err(Swap::Changed { now }) => return Err(changed_now(now)),
                Err(Swap::Store(e)) => return Err(err(e)),
            }
        }
        Edit::AppendLine { line, .. } => {
            if s.before.is_some() {
                cas(root, file, bytes_of(&s.before), false)?;
            }
            let (before_len, added) = ndjson::append_line_in(&dir, &name, line).map_err(&err)?;
            add = Some(Added {
                before_len,
                len: added.len() as u64,
            });
            if s.before.is_none() {
                // Not read whole: the stamp is taken after the append.
                change.after = intent::stamp_at(&dir, &name).map_err(&err)?;
            }
        }
        Edit::Remove { .. } => {
            if s.before.as_ref().is_some_and(Option::is_some) {
                // Moved aside first and compared there, so a save that
                // lands meanwhile is put back, never removed.
                let tmp = atomic::temp_name(Path::new(&name));
                dir.rename(&name, &tmp).map_err(|e| err(errno(e)))?;
                if let Some(now) = atomic::differs(&dir, &tmp, expect).map_err(&err)? {
                    let _ = dir.rename_noreplace(&tmp, &name);
                    return Err(changed_now(now));
                }
                dir.unlink(&tmp).map_err(|e| err(errno(e)))?;
                dir.sync();
            }
        }
        Edit::RenameAside { to, .. } => {
            if dir.stat(to).map_err(&err)?.is_some() {
                return Err(ActError::Changed(format!(
                    "{} already exists; {file} is not set aside over it; nothing written",
                    sibling(file, to),
                )));
            }
            match dir.rename_noreplace(&name, to) {
                Ok(()) => {}
                Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
                    dir.rename(&name, to).map_err(|e| err(errno(e)))?;
                }
                Err(e) => return Err(err(errno(e))),
            }
            if let Some(now) = atomic::differs(&dir, to, expect).map_err(&err)? {
                let _ = dir.rename_noreplace(to, &name);
                return Err(changed_now(now));
            }
            dir.sync();
            change.after = None;
        }
    }
    Ok((change, add))
}

/// Faults injected by tests between the steps of a decision (a full disk,
/// another writer, a kill: what the fault suite does to the binary).
#[cfg(test)]
pub(crate) mod fault {
    use std::cell::RefCell;

    use super::{ActError, StoreError, io};

    /// What happens as a step starts.
    pub(crate) enum Fault {
        /// Run this (another writer), then fail like a full disk.
        Fail(Box<dyn FnOnce()>),
        /// Stop dead, as SIGKILL would: nothing rolled back, nothing
        /// recorded, the intent left behind.
        Kill,
    }

    thread_local! {
        static AT: RefCell<Option<(usize, Fault)>> = const { RefCell::new(None) };
    }

    /// The next decision on this thread meets `fault` as step `n` starts.
    pub(crate) fn at(n: usize, fault: Fault) {
        AT.with(|f| *f.borrow_mut() = Some((n, fault)));
    }

    /// The next decision on this thread fails as step `n` starts.
    pub(crate) fn fail_at(n: usize) {
        at(n, Fault::Fail(Box::new(|| {})));
    }

    /// `Err(true)`: killed.
    pub(crate) fn before_step(n: usize, file: &str) -> Result<(), (bool, ActError)> {
        let hit = AT.with(|f| {
            let mut f = f.borrow_mut();
            if f.as_ref().is_some_and(|(at, _)| *at == n) {
                f.take().map(|(_, fault)| fault)
            } else {
                None
            }
        });
        match hit {
            None => Ok(()),
            Some(Fault::Kill) => Err((true, ActError::Refused(super::Refusal::new("killed")))),
            Some(Fault::Fail(before)) => {
                before();
                Err((
                    false,
                    ActError::Store {
                        file: file.to_owned(),
                        source: StoreError::Io(io::Error::other(
                            "No space left on device (injected)",
                        )),
                    },
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::txn::WriteOptions;
    use std::fs;

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
            before: Some(Some(Shared::new(b"{}".to_vec()))),
            after: Some(Some(Shared::new(b"{\"x\":1}".to_vec()))),
        };
        let root = Dir::open(&project).unwrap();
        let err = apply(&txn, &root, &dir, vec![step]).unwrap_err();
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
