//! loopdeck's audit log: every decision written (who, when, which files,
//! sha256 before and after, the decision) and the bytes it replaced, for
//! the last decisions, so `loopdeck undo` can put them back.
//!
//! Layout, in the audit directory (`$XDG_STATE_HOME/loopdeck`, made 0700):
//! - `audit.ndjson`: one line per decision, appended whole:
//!   `{id, at, by, host, project, primary, lock, decision, files: [{file,
//!   op: replace|append|remove|rename, before: {sha256, len}|null, after:
//!   …|null, to?, blob?, appended_sha256?}], partial?}`.
//! - `blobs/<id>/<n>`: the bytes file `n` of decision `id` held before it
//!   was replaced or removed (an append keeps only the length before and
//!   the sha256 of what it added). The blobs of the last
//!   [`KEEP_DECISIONS`] decisions are kept; older ones are pruned.
//!
//! An id is the UTC time of the write and a random suffix
//! (`20261201T033300.123456Z-a1b2c3`): short, and sorted by time.

use std::fs;
use std::path::{Path, PathBuf};

use chrono::Utc;
use serde::{Deserialize, Serialize};

use super::atomic::{self, random_u64};
use super::exec::{self, Order, sibling};
use super::txn::{ActError, Edit, LockKind, Outcome, Refusal, Snapshot, Stamp, Txn, WriteOptions};
use super::{StoreError, ndjson, read_bounded, sha256_hex};

/// How many decisions' previous bytes are kept.
pub const KEEP_DECISIONS: usize = 200;
/// The log's file name in the audit directory.
pub const LOG: &str = "audit.ndjson";
/// The blobs' directory in the audit directory.
pub const BLOBS: &str = "blobs";
/// The largest audit log `undo` reads.
const LOG_LIMIT: u64 = 256 * 1024 * 1024;

/// Why nothing is written without an audit directory.
pub const NO_DIR: &str = "no audit log: loopdeck records every decision (and the bytes it replaces, for `loopdeck undo`) in its state directory, and there is none (set XDG_STATE_HOME or HOME); nothing written";

/// loopdeck's audit directory: `$XDG_STATE_HOME/loopdeck` (else
/// `~/.local/state/loopdeck`).
pub fn default_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "loopdeck")
        .and_then(|d| d.state_dir().map(Path::to_path_buf))
}

/// The audit directory a write uses (`given`, else [`default_dir`]),
/// created if needed; none refuses the write.
pub fn dir_for(given: Option<&Path>) -> Result<PathBuf, ActError> {
    let dir = given
        .map(Path::to_path_buf)
        .or_else(default_dir)
        .ok_or_else(|| ActError::Refused(Refusal::new(NO_DIR)))?;
    make_private_dir(&dir).map_err(|e| store("audit directory", e.into()))?;
    Ok(dir)
}

fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

fn store(file: &str, source: StoreError) -> ActError {
    ActError::Store {
        file: file.to_owned(),
        source,
    }
}

/// Which decision to undo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Which {
    Last,
    Id(String),
}

/// What was done to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Replace,
    Append,
    Remove,
    Rename,
}

/// One file of a decision, as the log records it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRecord {
    pub file: String,
    pub op: Op,
    pub before: Option<Stamp>,
    pub after: Option<Stamp>,
    /// A rename's new name (same directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// The previous bytes, relative to the audit directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// An append's added bytes (leading newline included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub appended_sha256: Option<String>,
}

/// One decision, one line of the log.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    pub id: String,
    pub at: String,
    pub by: String,
    pub host: String,
    pub project: String,
    pub primary: String,
    pub lock: LockKind,
    pub decision: serde_json::Value,
    pub files: Vec<FileRecord>,
    /// The write stopped part way (the files listed were written).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// A new decision id.
pub fn new_id() -> String {
    format!(
        "{}-{:06x}",
        Utc::now().format("%Y%m%dT%H%M%S%.6fZ"),
        random_u64() & 0xff_ffff
    )
}

/// Keep the previous bytes of decision `id`'s files (`(n, bytes)`);
/// returns each file's blob name. Nothing is written to the project when
/// this fails.
pub(crate) fn write_blobs(
    dir: &Path,
    id: &str,
    blobs: &[(usize, &[u8])],
) -> Result<std::collections::HashMap<usize, String>, ActError> {
    let mut names = std::collections::HashMap::new();
    if blobs.is_empty() {
        return Ok(names);
    }
    let here = dir.join(BLOBS).join(id);
    make_private_dir(&here).map_err(|e| store("audit blobs", e.into()))?;
    for (n, bytes) in blobs {
        atomic::replace(&here.join(n.to_string()), bytes).map_err(|e| store("audit blobs", e))?;
        names.insert(*n, format!("{BLOBS}/{id}/{n}"));
    }
    Ok(names)
}

/// Drop the blobs of a decision that wrote nothing.
pub(crate) fn forget_blobs(dir: &Path, id: &str) {
    let _ = fs::remove_dir_all(dir.join(BLOBS).join(id));
}

/// Append `record` to the log, then prune old blobs.
pub(crate) fn append(dir: &Path, record: &Record) -> Result<(), ActError> {
    let line = serde_json::to_vec(record).map_err(|e| store(LOG, StoreError::Io(e.into())))?;
    ndjson::append_line(&dir.join(LOG), &line).map_err(|e| store(LOG, e))?;
    prune(dir, KEEP_DECISIONS);
    Ok(())
}

/// Remove the blobs of all but the newest `keep` decisions.
pub fn prune(dir: &Path, keep: usize) {
    let mut ids = super::list_names(&dir.join(BLOBS));
    if ids.len() <= keep {
        return;
    }
    ids.truncate(ids.len() - keep);
    for id in ids {
        let _ = fs::remove_dir_all(dir.join(BLOBS).join(id));
    }
}

/// The decision `which` from the log in `dir`.
pub fn find(dir: &Path, which: &Which) -> Result<Record, ActError> {
    let path = dir.join(LOG);
    let bytes = match read_bounded(&path, LOG_LIMIT) {
        Ok(b) => b,
        Err(StoreError::Vanished) => Vec::new(),
        Err(e) => return Err(store(LOG, e)),
    };
    let found = bytes
        .split(|&b| b == b'\n')
        .rev()
        .filter_map(|l| serde_json::from_slice::<Record>(l).ok())
        .find(|r| match which {
            Which::Last => true,
            Which::Id(id) => r.id == *id,
        });
    found.ok_or_else(|| {
        ActError::Refused(Refusal::new(match which {
            Which::Last => format!(
                "no decision to undo: the audit log {} is empty",
                path.display()
            ),
            Which::Id(id) => format!("no decision {id} in the audit log {}", path.display()),
        }))
    })
}

/// Put back the bytes decision `which` replaced, under the lock its format
/// uses; refused (a conflict) when a file has moved on since. The undo is
/// itself a decision in the log, so it can be undone.
pub fn undo(dir: &Path, which: &Which, opts: &WriteOptions) -> Result<Outcome, ActError> {
    let rec = find(dir, which)?;
    let mut opts = opts.clone();
    opts.audit_dir = Some(dir.to_path_buf());
    let by = opts.by.clone().unwrap_or_else(|| "unknown".to_owned());
    let txn = Txn::new(
        Path::new(&rec.project),
        &rec.primary,
        rec.lock,
        &opts,
        &by,
        opts.now.unwrap_or_else(Utc::now),
        serde_json::json!({"verb": "undo", "of": rec.id}),
    );
    exec::run(&txn, |snap| undo_edits(dir, &rec, snap), Order::AsGiven)
}

/// What files hold while an undo is planned: the disk as read, overlaid
/// with the edits planned so far (an undo replays a decision backwards,
/// and a file may be touched twice: set aside, then rebuilt).
struct Overlay<'a> {
    snap: &'a mut Snapshot,
    planned: std::collections::HashMap<String, Option<Vec<u8>>>,
}

impl Overlay<'_> {
    fn get(&mut self, file: &str) -> Result<Option<Vec<u8>>, ActError> {
        if let Some(b) = self.planned.get(file) {
            return Ok(b.clone());
        }
        Ok(self.snap.read(file)?.map(<[u8]>::to_vec))
    }

    fn push(&mut self, edits: &mut Vec<Edit>, edit: Edit) -> Result<(), ActError> {
        match &edit {
            Edit::Replace { file, bytes } => {
                self.planned.insert(file.clone(), Some(bytes.clone()));
            }
            Edit::Remove { file } => {
                self.planned.insert(file.clone(), None);
            }
            Edit::RenameAside { file, to } => {
                let moved = self.get(file)?;
                self.planned.insert(sibling(file, to), moved);
                self.planned.insert(file.clone(), None);
            }
            Edit::AppendLine { .. } => {}
        }
        edits.push(edit);
        Ok(())
    }
}

/// The edits that take decision `rec` back, last file first.
fn undo_edits(dir: &Path, rec: &Record, snap: &mut Snapshot) -> Result<Vec<Edit>, ActError> {
    let mut edits = Vec::new();
    let mut cur = Overlay {
        snap,
        planned: std::collections::HashMap::new(),
    };
    for f in rec.files.iter().rev() {
        match f.op {
            Op::Replace | Op::Remove => {
                let now = cur.get(&f.file)?;
                moved_on(rec, &f.file, f.after.as_ref(), now.as_deref())?;
                let edit = restore(dir, f)?;
                cur.push(&mut edits, edit)?;
            }
            // NDJSON files are append-only logs (seed 003: existing lines
            // are never modified): an undo never rewrites one. A record
            // that was the decision itself (a bug transition) cannot be
            // taken back; a log line beside it (a timeline event) stays as
            // the history of what was done and undone.
            Op::Append if f.file == rec.primary => {
                return Err(ActError::Refused(Refusal::new(format!(
                    "{} is append-only: its lines are never rewritten, so decision {} cannot be undone; make the next decision instead (`loopdeck act {} …`)",
                    f.file, rec.id, rec.project
                ))));
            }
            Op::Append => {}
            Op::Rename => {
                let Some(to) = &f.to else { continue };
                let dest = sibling(&f.file, to);
                let now = cur.get(&dest)?;
                moved_on(rec, &dest, f.before.as_ref(), now.as_deref())?;
                let name = Path::new(&f.file)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                cur.push(
                    &mut edits,
                    Edit::RenameAside {
                        file: dest,
                        to: name,
                    },
                )?;
            }
        }
    }
    Ok(edits)
}

/// A conflict unless `now` is what the decision left (`after`).
fn moved_on(
    rec: &Record,
    file: &str,
    after: Option<&Stamp>,
    now: Option<&[u8]>,
) -> Result<(), ActError> {
    let now = now.map(Stamp::of);
    if now.as_ref() == after {
        return Ok(());
    }
    Err(conflict(rec, file, after, now))
}

fn conflict(rec: &Record, file: &str, after: Option<&Stamp>, now: Option<Stamp>) -> ActError {
    let show = |s: Option<&Stamp>| {
        s.map_or_else(
            || "absent".to_owned(),
            |s| {
                format!(
                    "{} bytes, sha256 {}",
                    s.len,
                    s.sha256.get(..12).unwrap_or_default()
                )
            },
        )
    };
    ActError::Changed(format!(
        "{file} has moved on since decision {}: it was {} after it, it is {} now; nothing undone",
        rec.id,
        show(after),
        show(now.as_ref())
    ))
}

/// The edit putting back what file `f` held before.
fn restore(dir: &Path, f: &FileRecord) -> Result<Edit, ActError> {
    let Some(before) = &f.before else {
        return Ok(Edit::Remove {
            file: f.file.clone(),
        });
    };
    // The log is a file like any other: a blob name must stay in `blobs/`.
    let bytes = f
        .blob
        .as_deref()
        .filter(|b| {
            let mut parts = b.split('/');
            parts.next() == Some(BLOBS)
                && parts.all(super::exec::is_plain_name)
        })
        .and_then(|b| read_bounded(&dir.join(b), LOG_LIMIT).ok())
        .filter(|b| sha256_hex(b) == before.sha256)
        .ok_or_else(|| {
            ActError::Refused(Refusal::new(format!(
                "the previous bytes of {} are no longer kept (loopdeck keeps those of the last {KEEP_DECISIONS} decisions); nothing undone",
                f.file
            )))
        })?;
    Ok(Edit::Replace {
        file: f.file.clone(),
        bytes,
    })
}
