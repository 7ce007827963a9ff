//! A decision's intent record: what it is about to write, kept in the
//! state directory before the first file is touched, so a decision is one
//! transaction even when the process dies half way.
//!
//! `intents/<id>.json` holds the audit record the decision will append
//! (every file with its sha256 before and after, the blob of the bytes it
//! replaces), the pid that writes it, and for each append the file's
//! length before and the length added. It is written (and fsynced) after
//! the blobs and before the first project file; a state directory too full
//! to hold it refuses the decision with nothing written. It is removed
//! once the audit record is appended.
//!
//! An intent record found later (by the next decision on that project, an
//! `undo`, or `loopdeck recover`) is settled under the project's lock:
//! - every file holds what the decision wrote: the decision was made and
//!   only its audit record is missing; the record is appended (completed);
//! - otherwise every file the decision already wrote is put back (rolled
//!   back), so the decision is not half applied and a retry applies it
//!   once; a file another writer changed since is left alone and named.

use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::atomic::{self, Expect, Swap};
use super::audit::{self, FileRecord, Op, Record};
use super::beneath::{Dir, errno};
use super::txn::{ActError, Refusal, Stamp};
use super::{StoreError, lock, process, read_bounded, sha256_hex};

/// The intents' directory in the state directory.
pub(crate) const INTENTS: &str = "intents";
/// The largest intent record read.
const INTENT_LIMIT: u64 = 16 * 1024 * 1024;

testing_pub!(
/// An append's lengths: the file's before it and the bytes it adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Added {
    /// The file's length before the append.
    pub before_len: u64,
    /// How many bytes the append adds.
    pub len: u64,
}
);

testing_pub!(
/// A decision about to be written.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Intent {
    /// The audit record as it will be appended (its `files` as planned).
    pub record: Record,
    /// The writing process's id.
    pub pid: u32,
    /// The writing process's start time (clock ticks since boot), to tell
    /// it from a later process given the same pid.
    #[serde(default)]
    pub start: Option<u64>,
    /// For each file of `record.files`: an append's lengths.
    pub added: Vec<Option<Added>>,
}
);

fn intents_dir(dir: &Path) -> PathBuf {
    dir.join(INTENTS)
}

fn path_of(dir: &Path, id: &str) -> PathBuf {
    intents_dir(dir).join(format!("{id}.json"))
}

fn store(file: &str, source: StoreError) -> ActError {
    ActError::Store {
        file: file.to_owned(),
        source,
    }
}

/// Keep `intent` in the state directory `dir` (fsynced). An error here
/// means nothing was written to the project. It is written to a temp file
/// and renamed into place, so a kill while writing it leaves only a temp
/// file (swept once its pid is gone), never a record cut short.
pub(crate) fn write(dir: &Path, intent: &Intent) -> Result<(), ActError> {
    use std::io::Write;
    let here = intents_dir(dir);
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(&here)
        .map_err(|e| store("intent record", e.into()))?;
    let bytes =
        serde_json::to_vec(intent).map_err(|e| store("intent record", StoreError::Io(e.into())))?;
    let name = format!("{}.json", intent.record.id);
    let tmp = atomic::temp_name(Path::new(&name));
    let d = Dir::open(&here).map_err(|e| store("intent record", e))?;
    let mut f = d
        .create_excl(&tmp, 0o600)
        .map_err(|e| store("intent record", errno(e)))?;
    let written = f
        .write_all(&bytes)
        .and_then(|()| f.sync_data())
        .and_then(|()| d.rename(&tmp, &name).map_err(std::io::Error::from));
    if let Err(e) = written {
        let _ = d.unlink(&tmp);
        return Err(store("intent record", e.into()));
    }
    // The rename itself reaches the disk before any project file changes:
    // after a power cut, a changed project file always has its intent.
    d.sync();
    Ok(())
}

/// Forget the intent `id` (its decision is settled). Not fsynced: an
/// intent that comes back after a power loss finds its decision settled
/// (recorded, or every file as before) and goes again.
pub(crate) fn remove(dir: &Path, id: &str) {
    let _ = fs::remove_file(path_of(dir, id));
}

/// Every intent record in `dir`, oldest first; a record that cannot be
/// read is named with why.
pub(crate) fn pending(dir: &Path) -> Vec<Result<Intent, (String, String)>> {
    let mut names = super::list_names(&intents_dir(dir));
    names.retain(|n| n.ends_with(".json") && !n.starts_with('.'));
    names
        .into_iter()
        .map(|n| {
            let p = intents_dir(dir).join(&n);
            read_bounded(&p, INTENT_LIMIT)
                .map_err(|e| e.to_string())
                .and_then(|b| serde_json::from_slice::<Intent>(&b).map_err(|e| e.to_string()))
                .map_err(|why| (n, why))
        })
        .collect()
}

/// Every interrupted decision in loopdeck's state directory, for the
/// reading commands to show as a problem on its project: (the project's
/// real path, the file the decision was about, why). Read-only: a reading
/// never settles one (a write does). Nothing when there is no state
/// directory or no intent in it (one directory listing).
pub(crate) fn interrupted() -> Vec<(PathBuf, String, String)> {
    let Some(dir) = audit::default_dir() else {
        return Vec::new();
    };
    pending(&dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|i| !in_progress(i))
        .map(|i| {
            let verb = i.record.decision["verb"].as_str().unwrap_or("decision").to_owned();
            let files: Vec<&str> = i.record.files.iter().map(|f| f.file.as_str()).collect();
            (
                PathBuf::from(&i.record.project),
                i.record.primary.clone(),
                format!(
                    "decision {} ({verb}, by {}) was interrupted while writing {}: it may be half applied; the next decision on this project, `loopdeck undo`, or `loopdeck recover` settles it (rolled back, or recorded when every file holds it)",
                    i.record.id,
                    i.record.by,
                    files.join(", ")
                ),
            )
        })
        .collect()
}

/// The real path of a project, as the audit record keeps it.
pub(crate) fn real_path(project: &Path) -> PathBuf {
    fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf())
}

/// How an interrupted decision was settled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum Settled {
    /// Every file held the decision: its audit record was appended.
    Completed {
        /// The decision's audit id.
        id: String,
        /// Its project's real path.
        project: String,
    },
    /// What it had written was put back; nothing of it remains.
    RolledBack {
        /// The decision's audit id.
        id: String,
        /// Its project's real path.
        project: String,
        /// The files put back, relative to the project.
        files: Vec<String>,
    },
    /// Some files could not be put back (another writer changed them, or
    /// the disk refused): they keep the decision's bytes and are named; the
    /// audit log records them (partial), so `undo` can find them.
    Stuck {
        /// The decision's audit id.
        id: String,
        /// Its project's real path.
        project: String,
        /// The files that keep its bytes, relative to the project.
        written: Vec<String>,
        /// Why they could not be put back.
        why: String,
    },
    /// Could not be settled now (its project gone, its lock held, the
    /// disk refused): the intent stays, and a later write tries again.
    Failed {
        /// The decision's audit id.
        id: String,
        /// Its project's real path.
        project: String,
        /// Why it could not be settled now.
        why: String,
    },
}

impl Settled {
    /// One sentence for the user.
    pub fn message(&self) -> String {
        match self {
            Settled::Completed { id, project } => format!(
                "recovered interrupted decision {id} in {project}: it had written every file; its audit record is now kept (`loopdeck undo {id}` puts it back)"
            ),
            Settled::RolledBack { id, project, files } if files.is_empty() => format!(
                "recovered interrupted decision {id} in {project}: it had written nothing; dropped"
            ),
            Settled::RolledBack { id, project, files } => format!(
                "recovered interrupted decision {id} in {project}: rolled back {} (it had written them before it was interrupted); nothing of it remains",
                files.join(", ")
            ),
            Settled::Failed { id, project, why } => format!(
                "interrupted decision {id} in {project} could not be settled now ({why}); its intent record stays: the next decision there, or `loopdeck recover`, tries again"
            ),
            Settled::Stuck {
                id,
                project,
                written,
                why,
            } => format!(
                "interrupted decision {id} in {project} could not be rolled back whole: {} still hold its bytes ({why}); the audit log records it as partial",
                written.join(", ")
            ),
        }
    }
}

/// Settle every interrupted decision in `dir` (of the project whose real
/// path is `only`, when given), each under its project's lock. A record that cannot be
/// read is set aside (`<name>.bad`) and reported.
pub fn recover(dir: &Path, only: Option<&Path>, wait: Duration) -> Result<Vec<Settled>, ActError> {
    // A process killed while writing an intent leaves its temp file.
    super::sweep::sweep(&intents_dir(dir));
    let mut out = Vec::new();
    for found in pending(dir) {
        let intent = match found {
            Ok(i) => i,
            Err((name, why)) => {
                // Intents are renamed into place whole: one that does not
                // read is not loopdeck's, and is set aside, not trusted.
                if only.is_none() {
                    let p = intents_dir(dir).join(&name);
                    let _ = fs::rename(&p, p.with_extension("json.bad"));
                    return Err(ActError::Refused(Refusal::new(format!(
                        "intent record {} could not be read ({why}); set aside as {name}.bad",
                        p.display()
                    ))));
                }
                continue;
            }
        };
        if only
            .as_ref()
            .is_some_and(|p| Path::new(&intent.record.project) != *p)
            || in_progress(&intent)
        {
            continue;
        }
        match settle(dir, &intent, wait) {
            Ok(Some(s)) => out.push(s),
            Ok(None) => {}
            // One intent that cannot be settled now never stops the others.
            Err(e) => out.push(Settled::Failed {
                id: intent.record.id.clone(),
                project: intent.record.project.clone(),
                why: e.to_string(),
            }),
        }
    }
    Ok(out)
}

/// Is the decision still being written by a live process (on this host,
/// the very process that began it)? It settles itself then.
pub(crate) fn in_progress(intent: &Intent) -> bool {
    intent.pid != std::process::id()
        && intent.record.host == process::host_name()
        && intent.start.is_some()
        && process::start_ticks(intent.pid) == intent.start
}

/// Settle one interrupted decision under its lock (`None`: another
/// process settled it meanwhile).
fn settle(dir: &Path, intent: &Intent, wait: Duration) -> Result<Option<Settled>, ActError> {
    let rec = &intent.record;
    let project = PathBuf::from(&rec.project);
    let root = Dir::open(&project).map_err(|e| store(&rec.project, e))?;
    let (pdir, pname) = root
        .resolve(&rec.primary)
        .map_err(|e| store(&rec.primary, e))?;
    let _guard = lock::acquire_as(&pdir.proc_path(), &pname, &rec.primary, rec.lock, wait)?;
    if !path_of(dir, &rec.id).exists() {
        return Ok(None);
    }
    // Killed between its audit record and forgetting its intent (or the
    // forgetting lost to a power cut): the decision was made and recorded;
    // whatever changed its files since is another writer's.
    match audit::find(dir, &audit::Which::Id(rec.id.clone()), audit::as_recorded) {
        Ok(_) => {
            remove(dir, &rec.id);
            return Ok(Some(Settled::Completed {
                id: rec.id.clone(),
                project: rec.project.clone(),
            }));
        }
        Err(ActError::Refused(_)) => {}
        Err(e) => return Err(e),
    }
    // An append found after where it was planned (another writer appended
    // first) is judged, and put back, where it is.
    let mut intent = intent.clone();
    for (f, a) in intent.record.files.iter().zip(intent.added.iter_mut()) {
        if let Some(found) = a.and_then(|planned| relocated(&root, f, planned)) {
            *a = Some(found);
        }
    }
    let intent = &intent;
    let states: Vec<State> = rec
        .files
        .iter()
        .zip(&intent.added)
        .map(|(f, a)| state(&root, f, *a))
        .collect::<Result<_, _>>()
        .map_err(|e| store(&rec.primary, e))?;
    if states.iter().all(|s| *s == State::Done) {
        audit::append(dir, rec)?;
        remove(dir, &rec.id);
        return Ok(Some(Settled::Completed {
            id: rec.id.clone(),
            project: rec.project.clone(),
        }));
    }
    let done: Vec<usize> = states
        .iter()
        .enumerate()
        .filter(|(_, s)| **s != State::NotDone)
        .map(|(i, _)| i)
        .collect();
    let settled = roll_back(dir, &root, intent, &done);
    remove(dir, &rec.id);
    Ok(Some(settled))
}

/// Where one file of a decision stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    /// It holds what it held before the decision.
    NotDone,
    /// It holds what the decision wrote.
    Done,
    /// Neither: another writer changed it.
    Foreign,
}

/// Where the file of record `f` stands now.
pub(crate) fn state(root: &Dir, f: &FileRecord, added: Option<Added>) -> Result<State, StoreError> {
    let (dir, name) = match root.resolve(&f.file) {
        Ok(x) => x,
        Err(StoreError::Vanished) => {
            return Ok(if f.before.is_none() {
                State::NotDone
            } else if f.after.is_none() {
                State::Done
            } else {
                State::Foreign
            });
        }
        Err(e) => return Err(e),
    };
    match f.op {
        Op::Append => {
            let Some(a) = added else {
                return Ok(State::Foreign);
            };
            // Done when its bytes are where it put them, whatever was
            // appended after them (agents append to these logs unlocked).
            if range_sha(&dir, &name, a.before_len, a.len)?.as_deref()
                == f.appended_sha256.as_deref()
            {
                return Ok(State::Done);
            }
            let len = dir.stat(&name)?.map(|s| s.st_size as u64);
            if len.is_none_or(|l| l >= a.before_len) {
                return Ok(State::NotDone);
            }
            Ok(State::Foreign)
        }
        Op::Rename => {
            let here = stamp_at(&dir, &name)?;
            let to = f.to.as_deref().unwrap_or_default();
            let there = stamp_at(&dir, to)?;
            Ok(match (here, there) {
                (Some(h), None) if Some(&h) == f.before.as_ref() => State::NotDone,
                (None, Some(t)) if Some(&t) == f.before.as_ref() => State::Done,
                _ => State::Foreign,
            })
        }
        Op::Replace | Op::Remove => {
            let now = stamp_at(&dir, &name)?;
            Ok(if now.as_ref() == f.after.as_ref() {
                State::Done
            } else if now.as_ref() == f.before.as_ref() {
                State::NotDone
            } else {
                State::Foreign
            })
        }
    }
}

/// How far past its planned offset an append is looked for: the bytes
/// other writers could append in the moment between a decision's plan and
/// its append.
const RELOCATE_WINDOW: u64 = 1 << 20;

/// Where the append of record `f`, planned as `planned`, actually is when
/// not at its planned offset: the first line start after it (within
/// [`RELOCATE_WINDOW`]) holding its bytes. `None`: where planned, or not
/// found (judged where planned).
fn relocated(root: &Dir, f: &FileRecord, planned: Added) -> Option<Added> {
    if f.op != Op::Append {
        return None;
    }
    let want = f.appended_sha256.as_deref()?;
    let (dir, name) = root.resolve(&f.file).ok()?;
    if range_sha(&dir, &name, planned.before_len, planned.len)
        .ok()
        .flatten()
        .as_deref()
        == Some(want)
    {
        return None;
    }
    let mut file = dir.open_read(&name).ok()??;
    let end = file.metadata().ok()?.len();
    let from = planned.before_len;
    let upto = end.min(from + RELOCATE_WINDOW + planned.len);
    if upto <= from {
        return None;
    }
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut window = Vec::new();
    file.take(upto - from).read_to_end(&mut window).ok()?;
    let n = usize::try_from(planned.len).ok()?;
    (1..window.len())
        .filter(|&i| window[i - 1] == b'\n')
        .find(|&i| window.get(i..i + n).is_some_and(|b| sha256_hex(b) == want))
        .map(|i| Added {
            before_len: from + i as u64,
            len: planned.len,
        })
}

/// The sha256 and length of `name` in `dir`, read in chunks (`None`:
/// absent).
pub(crate) fn stamp_at(dir: &Dir, name: &str) -> Result<Option<Stamp>, StoreError> {
    stamp_with(dir, name, b"")
}

/// The sha256 and length of `name` in `dir` followed by `extra` (what an
/// append will add), read in chunks (`None`: absent). A FIFO or a device
/// is refused, never waited on.
pub(crate) fn stamp_with(dir: &Dir, name: &str, extra: &[u8]) -> Result<Option<Stamp>, StoreError> {
    let Some(mut f) = dir.open_read(name)? else {
        return Ok(None);
    };
    let (sha256, len) = super::sha256_stream(&mut f, extra)?;
    Ok(Some(Stamp { sha256, len }))
}

/// The sha256 of the `n` bytes of `name` in `dir` from offset `at`
/// (`None`: absent, or shorter than that).
fn range_sha(dir: &Dir, name: &str, at: u64, n: u64) -> Result<Option<String>, StoreError> {
    let Some(mut f) = dir.open_read(name)? else {
        return Ok(None);
    };
    if f.metadata()?.len() < at + n {
        return Ok(None);
    }
    f.seek(SeekFrom::Start(at))?;
    let mut buf = Vec::new();
    f.take(n).read_to_end(&mut buf)?;
    Ok(Some(sha256_hex(&buf)))
}

/// Put back the files `done` (indexes into the record's files, in the
/// order written) of `intent`, last first. Each is put back only while it
/// still holds what the decision wrote.
pub(crate) fn roll_back(dir: &Path, root: &Dir, intent: &Intent, done: &[usize]) -> Settled {
    let rec = &intent.record;
    let mut rolled = Vec::new();
    let mut stuck: Vec<FileRecord> = Vec::new();
    let mut whys = Vec::new();
    for &i in done.iter().rev() {
        let Some(f) = rec.files.get(i) else { continue };
        match undo_one(dir, root, f, intent.added.get(i).copied().flatten()) {
            Ok(()) => rolled.push(f.file.clone()),
            Err(why) => {
                whys.push(format!("{}: {why}", f.file));
                stuck.push(f.clone());
            }
        }
    }
    rolled.reverse();
    if stuck.is_empty() {
        audit::forget_blobs(dir, &rec.id);
        return Settled::RolledBack {
            id: rec.id.clone(),
            project: rec.project.clone(),
            files: rolled,
        };
    }
    stuck.reverse();
    let mut partial = rec.clone();
    partial.files = stuck;
    partial.partial = true;
    let written: Vec<String> = partial.files.iter().map(|f| f.file.clone()).collect();
    let logged = audit::append(dir, &partial);
    let mut why = whys.join("; ");
    if let Err(e) = logged {
        why.push_str(&format!("; its audit record failed too: {e}"));
    }
    Settled::Stuck {
        id: rec.id.clone(),
        project: rec.project.clone(),
        written,
        why,
    }
}

/// Put back one file, if it still holds what the decision wrote.
fn undo_one(dir: &Path, root: &Dir, f: &FileRecord, added: Option<Added>) -> Result<(), String> {
    let (d, name) = root.resolve(&f.file).map_err(|e| e.to_string())?;
    let moved = "it changed since the decision wrote it".to_owned();
    match f.op {
        Op::Replace | Op::Remove => {
            let expect = match &f.after {
                Some(s) => Expect::Stamp(s),
                None => Expect::Absent,
            };
            match &f.before {
                None => {
                    if atomic::differs(&d, &name, expect)
                        .map_err(|e| e.to_string())?
                        .is_some()
                    {
                        return Err(moved);
                    }
                    d.unlink(&name).map_err(|e| errno(e).to_string())?;
                    d.sync();
                    Ok(())
                }
                Some(before) => {
                    let bytes = blob(dir, f, before)?;
                    match atomic::replace_at(&d, &name, &bytes, expect) {
                        Ok(()) => Ok(()),
                        Err(Swap::Changed { .. }) => Err(moved),
                        Err(Swap::Store(e)) => Err(e.to_string()),
                    }
                }
            }
        }
        Op::Append => {
            let a = added.ok_or_else(|| moved.clone())?;
            // One descriptor: its length checked right before the cut, and
            // the cut made only while this line is the last one.
            let file = d.open_append(&name, 0o644).map_err(|e| e.to_string())?;
            let len = file.metadata().map_err(|e| e.to_string())?.len();
            if len != a.before_len + a.len
                || range_sha(&d, &name, a.before_len, a.len)
                    .map_err(|e| e.to_string())?
                    .as_deref()
                    != f.appended_sha256.as_deref()
            {
                return Err("another line was appended after it".to_owned());
            }
            if file.metadata().map_err(|e| e.to_string())?.len() != len {
                return Err("another line was appended after it".to_owned());
            }
            if a.before_len == 0 && f.before.is_none() {
                // The append made the file: it goes again.
                d.unlink(&name).map_err(|e| errno(e).to_string())?;
                d.sync();
                return Ok(());
            }
            file.set_len(a.before_len).map_err(|e| e.to_string())?;
            file.sync_data().map_err(|e| e.to_string())?;
            Ok(())
        }
        Op::Rename => {
            let to = f.to.as_deref().unwrap_or_default();
            let there = stamp_at(&d, to).map_err(|e| e.to_string())?;
            if there.as_ref() != f.before.as_ref() {
                return Err(moved);
            }
            match d.rename_noreplace(to, &name) {
                Ok(()) => {}
                Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
                    if d.stat(&name).map_err(|e| e.to_string())?.is_some() {
                        return Err(format!("{name} exists again"));
                    }
                    d.rename(to, &name).map_err(|e| errno(e).to_string())?;
                }
                Err(e) => return Err(errno(e).to_string()),
            }
            d.sync();
            Ok(())
        }
    }
}

/// The bytes a file held before, from the decision's blob.
fn blob(dir: &Path, f: &FileRecord, before: &Stamp) -> Result<Vec<u8>, String> {
    f.blob
        .as_deref()
        .filter(|b| {
            let mut parts = b.split('/');
            parts.next() == Some(audit::BLOBS) && parts.all(super::is_plain_name)
        })
        .and_then(|b| read_bounded(&dir.join(b), INTENT_LIMIT.max(super::STATE_FILE_LIMIT)).ok())
        .filter(|b| sha256_hex(b) == before.sha256)
        .ok_or_else(|| "its previous bytes are not kept".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_record(file: &str, op: Op, before: Option<&[u8]>, after: Option<&[u8]>) -> FileRecord {
        FileRecord {
            file: file.to_owned(),
            op,
            before: before.map(Stamp::of),
            after: after.map(Stamp::of),
            to: None,
            blob: None,
            appended_sha256: None,
        }
    }

    fn intent(pid: u32, host: String, start: Option<u64>) -> Intent {
        Intent {
            record: Record {
                id: "20260101-000000-abcd".to_owned(),
                at: String::new(),
                now: None,
                by: "test".to_owned(),
                host,
                project: "/nowhere".to_owned(),
                primary: "state.json".to_owned(),
                lock: crate::store::txn::LockKind::Owner,
                decision: serde_json::json!({"verb": "test"}),
                files: Vec::new(),
                partial: false,
            },
            pid,
            start,
            added: Vec::new(),
        }
    }

    /// A replaced or removed file is done when it holds what the decision
    /// wrote, not done when it holds what it held, another's otherwise;
    /// a file under a vanished directory is judged by its record alone.
    /// Kills the `==` → `!=` mutants of `state`'s replace arm, `state` →
    /// `Ok(Default::default())`, and `stamp_at`'s bodies.
    #[test]
    fn where_a_replaced_or_removed_file_stands() {
        let tmp = tempfile::tempdir().unwrap();
        let root = Dir::open(tmp.path()).unwrap();
        let p = tmp.path().join("f");
        let replaced = file_record("f", Op::Replace, Some(b"old"), Some(b"new"));
        for (now, want) in [
            ("new", State::Done),
            ("old", State::NotDone),
            ("else", State::Foreign),
        ] {
            fs::write(&p, now).unwrap();
            assert_eq!(state(&root, &replaced, None).unwrap(), want, "{now}");
        }
        let removed = file_record("f", Op::Remove, Some(b"old"), None);
        fs::write(&p, "old").unwrap();
        assert_eq!(state(&root, &removed, None).unwrap(), State::NotDone);
        fs::remove_file(&p).unwrap();
        assert_eq!(state(&root, &removed, None).unwrap(), State::Done);
        let created = file_record("f", Op::Replace, None, Some(b"new"));
        assert_eq!(state(&root, &created, None).unwrap(), State::NotDone);

        let gone = |before: Option<&[u8]>, after: Option<&[u8]>| {
            state(&root, &file_record("d/f", Op::Replace, before, after), None).unwrap()
        };
        assert_eq!(gone(None, Some(b"new")), State::NotDone);
        assert_eq!(gone(Some(b"old"), None), State::Done);
        assert_eq!(gone(Some(b"old"), Some(b"new")), State::Foreign);
    }

    /// An append is done when its bytes are where it put them, whatever
    /// was appended after; not done when the file is as long as before or
    /// longer (or absent); another's when it is shorter than before. Kills
    /// the mutants of `state`'s append arm (`==` → `!=`, `>=` → `<`) and of
    /// `range_sha`'s bound (`<` → `<=`/`==`/`>`, `+` → `*`).
    #[test]
    fn where_an_appended_file_stands() {
        let tmp = tempfile::tempdir().unwrap();
        let root = Dir::open(tmp.path()).unwrap();
        let p = tmp.path().join("log");
        let mut f = file_record("log", Op::Append, Some(b"abc\n"), Some(b"abc\nx\n"));
        f.appended_sha256 = Some(sha256_hex(b"x\n"));
        let added = Some(Added {
            before_len: 4,
            len: 2,
        });
        for (now, want) in [
            ("abc\nx\n", State::Done),
            ("abc\nx\nlater\n", State::Done),
            ("abc\n", State::NotDone),
            ("abc\ny\n", State::NotDone),
            ("abc\nx", State::NotDone),
            ("ab", State::Foreign),
        ] {
            fs::write(&p, now).unwrap();
            assert_eq!(state(&root, &f, added).unwrap(), want, "{now:?}");
        }
        assert_eq!(state(&root, &f, None).unwrap(), State::Foreign);
        fs::remove_file(&p).unwrap();
        assert_eq!(state(&root, &f, added).unwrap(), State::NotDone);
    }

    /// Kills `range_sha`'s bodies and its bound's mutants (`+` → `-`
    /// reads a range cut short instead of saying `None`).
    #[test]
    fn a_range_is_hashed_only_when_the_file_holds_all_of_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Dir::open(tmp.path()).unwrap();
        fs::write(tmp.path().join("f"), "abc\nx\n").unwrap();
        let sha = |at, n| range_sha(&dir, "f", at, n).unwrap();
        assert_eq!(sha(0, 6), Some(sha256_hex(b"abc\nx\n")));
        assert_eq!(sha(4, 2), Some(sha256_hex(b"x\n")));
        assert_eq!(sha(1, 2), Some(sha256_hex(b"bc")));
        assert_eq!(sha(4, 3), None);
        assert_eq!(sha(5, 2), None);
        assert_eq!(sha(6, 0), Some(sha256_hex(b"")));
        assert_eq!(range_sha(&dir, "missing", 0, 0).unwrap(), None);
    }

    /// A decision is in progress only when a live process other than this
    /// one, on this host, started when the intent says, is writing it.
    /// pid 1 stands for that process. Kills `in_progress` → `true`/`false`
    /// and its `&&`/`==`/`!=` mutants.
    #[test]
    fn in_progress_only_for_its_own_live_writer() {
        let Some(start) = process::start_ticks(1) else {
            eprintln!("SKIPPED: no /proc/1/stat");
            return;
        };
        let host = process::host_name();
        assert!(in_progress(&intent(1, host.clone(), Some(start))));
        assert!(!in_progress(&intent(1, host.clone(), Some(start + 1))));
        assert!(!in_progress(&intent(1, host.clone(), None)));
        assert!(!in_progress(&intent(
            1,
            format!("{host}-other"),
            Some(start)
        )));
        let me = std::process::id();
        let my_start = process::start_ticks(me);
        assert!(!in_progress(&intent(me, host, my_start)));
    }

    /// Only `<id>.json` records are pending: temp files (`.<name>...tmp`)
    /// and set-aside `.bad` ones are not. Kills `pending`'s filter mutants
    /// (`&&` → `||`, `delete !`), `pending` → `vec![]` and `write` →
    /// `Ok(())`.
    #[test]
    fn pending_lists_the_written_records_only() {
        let tmp = tempfile::tempdir().unwrap();
        let i = intent(std::process::id(), process::host_name(), None);
        write(tmp.path(), &i).unwrap();
        let here = tmp.path().join(INTENTS);
        fs::write(here.join(".x.json"), "{").unwrap();
        fs::write(here.join("y.json.bad"), "{").unwrap();
        let found = pending(tmp.path());
        assert_eq!(found.len(), 1);
        let got = found.into_iter().next().unwrap().unwrap();
        assert_eq!(got.record.id, i.record.id);
        assert_eq!(got.pid, i.pid);
        remove(tmp.path(), &i.record.id);
        assert!(pending(tmp.path()).is_empty());
    }

    /// A blob is read only from `blobs/<plain name>` and only when it holds
    /// the bytes its stamp says. Kills `blob`'s bodies and its filter's
    /// mutants.
    #[test]
    fn a_blob_is_trusted_only_when_it_is_what_it_says() {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir(tmp.path().join(audit::BLOBS)).unwrap();
        fs::write(tmp.path().join("blobs/b1"), "before").unwrap();
        fs::write(tmp.path().join("b2"), "before").unwrap();
        let stamp = Stamp::of(b"before");
        let mut f = file_record("f", Op::Replace, Some(b"before"), Some(b"after"));
        f.blob = Some("blobs/b1".to_owned());
        assert_eq!(blob(tmp.path(), &f, &stamp).unwrap(), b"before");
        assert!(blob(tmp.path(), &f, &Stamp::of(b"other")).is_err());
        for elsewhere in ["b2", "other/b1", "blobs/../b2", "blobs/missing"] {
            f.blob = Some(elsewhere.to_owned());
            assert!(blob(tmp.path(), &f, &stamp).is_err(), "{elsewhere}");
        }
        f.blob = None;
        assert!(blob(tmp.path(), &f, &stamp).is_err());
    }

    /// Rolling back an append cuts the file back to its length before,
    /// removes a file the append made, and leaves a file alone (stuck,
    /// recorded as partial) when another line came after. Kills
    /// `undo_one`'s append arm mutants (`==` → `!=` in "the append made
    /// the file", `+` → `-`/`*` and `!=` → `==` in its length check,
    /// `||` → `&&`) and `undo_one` → `Ok(())`.
    #[test]
    fn rolling_back_an_append_cuts_it_or_removes_the_file_it_made() {
        let tmp = tempfile::tempdir().unwrap();
        let audit_dir = tmp.path().join("audit");
        fs::create_dir(&audit_dir).unwrap();
        let project = tmp.path().join("p");
        fs::create_dir(&project).unwrap();
        let root = Dir::open(&project).unwrap();
        let appended = |file: &str, before: Option<&[u8]>, after: &[u8], add: &[u8]| {
            let mut f = file_record(file, Op::Append, before, Some(after));
            f.appended_sha256 = Some(sha256_hex(add));
            f
        };
        let mut i = intent(std::process::id(), process::host_name(), None);
        i.record.project = project.to_string_lossy().into_owned();
        i.record.files = vec![
            appended("old.log", Some(b"abc\n"), b"abc\nx\n", b"x\n"),
            appended("new.log", None, b"y\n", b"y\n"),
        ];
        i.added = vec![
            Some(Added {
                before_len: 4,
                len: 2,
            }),
            Some(Added {
                before_len: 0,
                len: 2,
            }),
        ];
        fs::write(project.join("old.log"), "abc\nx\n").unwrap();
        fs::write(project.join("new.log"), "y\n").unwrap();
        let settled = roll_back(&audit_dir, &root, &i, &[0, 1]);
        assert!(
            matches!(&settled, Settled::RolledBack { files, .. } if files == &["old.log", "new.log"]),
            "{settled:?}"
        );
        assert_eq!(fs::read(project.join("old.log")).unwrap(), b"abc\n");
        assert!(
            !project.join("new.log").exists(),
            "the file the append made is gone"
        );

        // Another line after ours: nothing is cut, and the file is named.
        fs::write(project.join("old.log"), "abc\nx\nz\n").unwrap();
        let settled = roll_back(&audit_dir, &root, &i, &[0]);
        assert!(
            matches!(&settled, Settled::Stuck { written, why, .. }
                if written == &["old.log"] && why.contains("another line was appended after it")),
            "{settled:?}"
        );
        assert_eq!(fs::read(project.join("old.log")).unwrap(), b"abc\nx\nz\n");
        // Ours replaced by another line of the same length: not ours to cut.
        fs::write(project.join("old.log"), "abc\nq\n").unwrap();
        let settled = roll_back(&audit_dir, &root, &i, &[0]);
        assert!(matches!(settled, Settled::Stuck { .. }), "{settled:?}");
        assert_eq!(fs::read(project.join("old.log")).unwrap(), b"abc\nq\n");
    }

    /// A file set aside by a rename is not done while it is still at its
    /// name, done once it is at the new name holding what it held, and
    /// another's otherwise. Kills the guards of `state`'s rename arm
    /// (`==` → `!=`, `true`, `false`).
    #[test]
    fn where_a_renamed_file_stands() {
        let tmp = tempfile::tempdir().unwrap();
        let root = Dir::open(tmp.path()).unwrap();
        let mut f = file_record("PLAN.md", Op::Rename, Some(b"plan"), None);
        f.to = Some("PLAN.md.aside".to_owned());
        let at = |n: &str| tmp.path().join(n);
        fs::write(at("PLAN.md"), "plan").unwrap();
        assert_eq!(state(&root, &f, None).unwrap(), State::NotDone);
        fs::write(at("PLAN.md"), "edited").unwrap();
        assert_eq!(state(&root, &f, None).unwrap(), State::Foreign);
        fs::remove_file(at("PLAN.md")).unwrap();
        fs::write(at("PLAN.md.aside"), "plan").unwrap();
        assert_eq!(state(&root, &f, None).unwrap(), State::Done);
        fs::write(at("PLAN.md.aside"), "edited").unwrap();
        assert_eq!(state(&root, &f, None).unwrap(), State::Foreign);
        fs::write(at("PLAN.md"), "plan").unwrap();
        assert_eq!(
            state(&root, &f, None).unwrap(),
            State::Foreign,
            "both there"
        );
    }
}
