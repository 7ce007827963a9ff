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
//!   [`KEEP_DECISIONS`] decisions are kept; older ones are pruned (an
//!   empty `blobs/<id>/`, left by a write that failed, is removed).
//! - `audit.ndjson.<id>`: the log set aside once it reached
//!   [`ROTATE_AT`] bytes (`<id>` is a new id, so the names sort by time);
//!   the newest [`KEEP_ROTATED`] are kept, and `undo` reads them too.
//!
//! An id is the UTC time of the write and a random suffix
//! (`20261201T033300.123456Z-a1b2c3`): short, and sorted by time.
//!
//! Nothing in the directory is trusted that another user could have
//! written: the directory and everything loopdeck reads or writes in it
//! must be owned by the user running loopdeck and not writable by group or
//! others, and are opened without following a link (see [`Untrusted`]).
//! A decision is undone only in a project loopdeck recognises, on the file
//! its format writes, with every file inside that project.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use chrono::Utc;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::atomic::{self, random_u64};
use super::txn::{ActError, Edit, LockKind, Refusal, Stamp};
use super::{StoreError, ndjson, sha256_hex};

/// How many decisions' previous bytes are kept.
pub(crate) const KEEP_DECISIONS: usize = 200;
/// The log's file name in the audit directory.
pub(crate) const LOG: &str = "audit.ndjson";
/// The blobs' directory in the audit directory.
pub(crate) const BLOBS: &str = "blobs";
/// The size at which the log is set aside (`audit.ndjson.<id>`) and a new
/// one begun, so no log grows past what `undo` reads quickly.
pub(crate) const ROTATE_AT: u64 = 64 * 1024 * 1024;
/// How many set-aside logs are kept.
pub(crate) const KEEP_ROTATED: usize = 8;
/// The largest blob `undo` reads (a decision reads files of at most this
/// size, so no blob is larger).
const BLOB_LIMIT: u64 = super::txn::DECISION_READ_LIMIT;

/// Why nothing is written without an audit directory.
pub const NO_DIR: &str = "no audit log: loopdeck records every decision (and the bytes it replaces, for `loopdeck undo`) in its state directory, and there is none (set XDG_STATE_HOME or HOME); nothing written";

/// loopdeck's audit directory: `$XDG_STATE_HOME/loopdeck` (else
/// `~/.local/state/loopdeck`).
pub fn default_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "loopdeck")
        .and_then(|d| d.state_dir().map(Path::to_path_buf))
}

/// The audit directory a write uses (`given`, else [`default_dir`]),
/// created if needed (0700); none, or one that cannot be trusted (see
/// [`Untrusted`]), refuses the write.
pub(crate) fn dir_for(given: Option<&Path>) -> Result<PathBuf, ActError> {
    let dir = given
        .map(Path::to_path_buf)
        .or_else(default_dir)
        .ok_or_else(|| ActError::Refused(Refusal::new(NO_DIR)))?;
    make_state_dir(&dir).map_err(|e| e.refuse("nothing written"))?;
    Ok(dir)
}

/// Create the state directory `dir` (its missing parents too, 0700) and
/// check it can be trusted.
pub(crate) fn make_state_dir(dir: &Path) -> Result<(), Untrusted> {
    if let Some(parent) = dir.parent()
        && !parent.as_os_str().is_empty()
    {
        let mut b = fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            b.mode(0o700);
        }
        b.create(parent).map_err(|e| Untrusted::io(parent, e))?;
    }
    private_dir(dir)
}

/// Why loopdeck will not use something in its state directory: another
/// user could have written it (and so planted the records and bytes an
/// `undo` would put back, or pointed a link at any file).
#[derive(Debug, Error)]
pub(crate) enum Untrusted {
    /// A symbolic link where loopdeck keeps its own file or directory.
    #[error(
        "{path} is a symbolic link: loopdeck never follows a link in its state directory (it could point anywhere); remove the link (`rm {path}`) and loopdeck makes a new {what}"
    )]
    Link {
        /// The link's path.
        path: String,
        /// What loopdeck keeps there (`directory`, `regular file`).
        what: &'static str,
    },
    /// Owned by another user.
    #[error(
        "{path} is owned by uid {owner}, not by you (uid {me}): another user could have planted records there; if it is yours, `chown -R {me} {path}`, else remove it"
    )]
    Owner {
        /// The path.
        path: String,
        /// Its owner's uid.
        owner: u32,
        /// This process's uid.
        me: u32,
    },
    /// Writable by group or others.
    #[error(
        "{path} is writable by group or others (mode {mode:04o}): another user could plant records there; `chmod go-w {path}`"
    )]
    Mode {
        /// The path.
        path: String,
        /// Its permission bits.
        mode: u32,
    },
    /// Not the kind of thing loopdeck keeps there.
    #[error(
        "{path} is not a {what} but {found}: loopdeck keeps a {what} there; remove it (loopdeck makes a new one)"
    )]
    Kind {
        /// The path.
        path: String,
        /// What loopdeck keeps there.
        what: &'static str,
        /// What is there instead (`a FIFO`, `a device`...).
        found: &'static str,
    },
    /// It could not be looked at.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// What the system said.
        source: io::Error,
    },
}

impl Untrusted {
    fn io(path: &Path, source: io::Error) -> Self {
        Untrusted::Io {
            path: path.display().to_string(),
            source,
        }
    }

    /// The refusal of a write or an undo: `then` says what was not done.
    /// Something else where a file or directory belongs, or a failing
    /// disk, is a store error; the rest is refused by the rules.
    pub(crate) fn refuse(&self, then: &str) -> ActError {
        self.refuse_as("loopdeck's state directory", then)
    }

    /// [`Untrusted::refuse`], a store error naming `what` (`audit blobs`).
    pub(crate) fn refuse_as(&self, what: &str, then: &str) -> ActError {
        let msg = format!("{self}; {then}");
        match self {
            Untrusted::Kind { .. } | Untrusted::Io { .. } => ActError::Store {
                file: what.to_owned(),
                source: StoreError::Io(io::Error::other(msg)),
            },
            _ => ActError::Refused(Refusal::new(msg)),
        }
    }
}

/// What an entry of the state directory must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Dir,
    File,
}

impl Want {
    fn what(self) -> &'static str {
        match self {
            Want::Dir => "directory",
            Want::File => "regular file",
        }
    }
}

/// What kind of thing `m` is, in words.
fn kind_of(m: &fs::Metadata) -> &'static str {
    let t = m.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a file"
    }
}

/// The user loopdeck runs as.
#[cfg(unix)]
fn me() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// `m` (of `path`, never a link) is a `want` this user owns and no one
/// else may write.
fn judge(path: &Path, m: &fs::Metadata, want: Want) -> Result<(), Untrusted> {
    let show = || path.display().to_string();
    let right = match want {
        Want::Dir => m.is_dir(),
        Want::File => m.is_file(),
    };
    if m.file_type().is_symlink() {
        return Err(Untrusted::Link {
            path: show(),
            what: want.what(),
        });
    }
    if !right {
        return Err(Untrusted::Kind {
            path: show(),
            what: want.what(),
            found: kind_of(m),
        });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if m.uid() != me() {
            return Err(Untrusted::Owner {
                path: show(),
                owner: m.uid(),
                me: me(),
            });
        }
        if m.mode() & 0o022 != 0 {
            return Err(Untrusted::Mode {
                path: show(),
                mode: m.mode() & 0o7777,
            });
        }
    }
    Ok(())
}

/// The entry at `path` in the state directory, if it exists, judged
/// without following a link.
fn trust(path: &Path, want: Want) -> Result<Option<fs::Metadata>, Untrusted> {
    match fs::symlink_metadata(path) {
        Ok(m) => judge(path, &m, want).map(|()| Some(m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Untrusted::io(path, e)),
    }
}

/// Create the directory `path` (0700) in a trusted directory, or check the
/// one there.
fn private_dir(path: &Path) -> Result<(), Untrusted> {
    let mut b = fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    match b.create(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(Untrusted::io(path, e)),
    }
    trust(path, Want::Dir)?;
    Ok(())
}

/// The file at `path` in a trusted directory, if it exists, is this
/// user's regular file, not a link, that no one else may write.
pub(crate) fn trust_file(path: &Path) -> Result<(), Untrusted> {
    trust(path, Want::File).map(|_| ())
}

/// Is the existing state directory `dir` one loopdeck may read? `false`:
/// there is none.
pub(crate) fn trusted_dir(dir: &Path) -> Result<bool, Untrusted> {
    Ok(trust(dir, Want::Dir)?.is_some())
}

/// Open the file at `path` in a trusted directory for reading, never
/// following a link and never waiting on a FIFO, and judge what was
/// opened. `None`: absent.
fn open_trusted(path: &Path) -> Result<Option<File>, Untrusted> {
    let mut o = fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(super::custom_flags(
            OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        ));
    }
    let file = match o.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        // A link (ELOOP) or something that is not a file: judged by lstat.
        Err(e) => {
            trust(path, Want::File)?;
            return Err(Untrusted::io(path, e));
        }
    };
    let m = file.metadata().map_err(|e| Untrusted::io(path, e))?;
    judge(path, &m, Want::File)?;
    Ok(Some(file))
}

/// The whole file at `path` in a trusted directory (at most `limit`
/// bytes), as [`open_trusted`] opens it. `None`: absent.
pub(crate) fn read_trusted(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, ReadError> {
    let Some(file) = open_trusted(path)? else {
        return Ok(None);
    };
    let mut buf = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut buf)
        .map_err(|e| ReadError::Store(e.into()))?;
    if buf.len() as u64 > limit {
        return Err(ReadError::Store(StoreError::TooLarge {
            size: buf.len() as u64,
            limit,
        }));
    }
    Ok(Some(buf))
}

/// Why a file of the state directory could not be read.
#[derive(Debug, Error)]
pub(crate) enum ReadError {
    /// It is not to be trusted (see [`Untrusted`]).
    #[error(transparent)]
    Untrusted(#[from] Untrusted),
    /// It could not be read.
    #[error("{0}")]
    Store(StoreError),
}

/// Before a decision writes anything: the blobs' directory and the audit
/// log are there (created if missing, never through a link) and trusted,
/// and the log is a regular file that can be appended to (a FIFO is never
/// opened, and is named as what it is), so a decision is never written
/// without the record `loopdeck undo` needs.
pub(crate) fn preflight(dir: &Path) -> Result<(), ActError> {
    let blobs = |e: Untrusted| e.refuse_as("audit blobs", "nothing written");
    private_dir(&dir.join(BLOBS)).map_err(blobs)?;
    let refuse = |e: Untrusted| e.refuse_as("audit log", "nothing written");
    let path = dir.join(LOG);
    trust(&path, Want::File).map_err(refuse)?;
    let mut o = fs::OpenOptions::new();
    o.append(true).create(true);
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600).custom_flags(super::custom_flags(
            OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        ));
    }
    let log = match o.open(&path) {
        Ok(f) => f,
        Err(e) => {
            // Replaced since the check: say what is there now.
            trust(&path, Want::File).map_err(refuse)?;
            return Err(refuse(Untrusted::io(&path, e)));
        }
    };
    let m = log
        .metadata()
        .map_err(|e| refuse(Untrusted::io(&path, e)))?;
    judge(&path, &m, Want::File).map_err(refuse)
}

fn store(file: &str, source: StoreError) -> ActError {
    ActError::Store {
        file: file.to_owned(),
        source,
    }
}

/// The project directory a record's decision was made in, by its format's
/// rules (`formats::audit`: PRD-master's new-project makes its directory):
/// what scopes [`Which::Last`] and [`Which::Redo`] to a project. The log
/// knows no format, so the caller says.
pub(crate) type ProjectOf = fn(&Record) -> PathBuf;

/// The project as the record names it: enough for a [`Which::Id`] or an
/// unscoped search, where no directory is compared.
pub(crate) fn as_recorded(rec: &Record) -> PathBuf {
    PathBuf::from(&rec.project)
}

/// Which decision to undo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Which {
    /// The newest decision not yet undone (undo is a stack: run again, it
    /// steps further back), of the project at this path when given.
    Last(Option<PathBuf>),
    /// The newest undo not yet redone (of the project at this path when
    /// given): undoing it puts the decision back.
    Redo(Option<PathBuf>),
    /// The decision with this audit id (an undo's id redoes it).
    Id(String),
}

/// What a record did to the decisions before it: the decision it undid or
/// redid, read from its `decision` (`{"verb": "undo", "of": ID}` undoes
/// ID; `{"verb": "redo", "of": UNDO, "redoes": ID}` puts ID back;
/// `{"verb": "undo", "of": REDO, "undoes": ID}` takes ID back again).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// A decision of its own.
    Decision,
    /// Decision `.0` is undone.
    Undoes(String),
    /// Decision `.0` is in force again.
    Redoes(String),
}

impl Record {
    /// What this record did (see [`Effect`]).
    pub fn effect(&self) -> Effect {
        let field = |k: &str| {
            self.decision
                .get(k)
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        };
        match self
            .decision
            .get("verb")
            .and_then(serde_json::Value::as_str)
        {
            Some("undo") => match field("undoes").or_else(|| field("of")) {
                Some(id) => Effect::Undoes(id),
                None => Effect::Decision,
            },
            Some("redo") => match field("redoes") {
                Some(id) => Effect::Redoes(id),
                None => Effect::Decision,
            },
            _ => Effect::Decision,
        }
    }

    /// The decision that takes this record back: an undo of a decision, a
    /// redo of an undo, an undo again of a redo.
    pub(crate) fn reversal(&self) -> serde_json::Value {
        match self.effect() {
            Effect::Decision => serde_json::json!({"verb": "undo", "of": self.id}),
            Effect::Undoes(d) => serde_json::json!({"verb": "redo", "of": self.id, "redoes": d}),
            Effect::Redoes(d) => serde_json::json!({"verb": "undo", "of": self.id, "undoes": d}),
        }
    }

    /// What the record decided, in a few words (`add-decision`, `undo of
    /// 2026…`), for the sentence that says what was undone.
    pub fn label(&self) -> String {
        let verb = self
            .decision
            .get("verb")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("decision");
        match self.effect() {
            Effect::Decision => verb.to_owned(),
            Effect::Undoes(d) => format!("undo of {d}"),
            Effect::Redoes(d) => format!("redo of {d}"),
        }
    }
}

/// What was done to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Its bytes replaced (or the file created).
    Replace,
    /// A line appended.
    Append,
    /// Removed.
    Remove,
    /// Set aside under another name ([`FileRecord::to`]).
    Rename,
}

/// One file of a decision, as the log records it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRecord {
    /// Its path, relative to the project.
    pub file: String,
    /// What was done to it.
    pub op: Op,
    /// The sha256 and length of its bytes before (`None`: it did not
    /// exist).
    pub before: Option<Stamp>,
    /// The sha256 and length of its bytes after (`None`: it no longer
    /// exists).
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
    /// Its audit id: the time it was written, to the microsecond, and six
    /// random hex digits.
    pub id: String,
    /// When the decision was written (the real clock, as the id).
    pub at: String,
    /// The time the decision wrote into the project's files, when it is
    /// not `at` (`act --now`, a console decision confirmed later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
    /// Who decided (`--by`, or the login name).
    pub by: String,
    /// The machine it was made on.
    pub host: String,
    /// The project directory's real path.
    pub project: String,
    /// The file the lock guarded and `--expect-sha256` named, relative to the
    /// project.
    pub primary: String,
    /// The lock that was taken.
    pub lock: LockKind,
    /// The decision, as `--json` gives it (the verb and its arguments; an
    /// undo's or redo's `of`).
    pub decision: serde_json::Value,
    /// Every file it changed, in order.
    pub files: Vec<FileRecord>,
    /// The write stopped part way (the files listed were written).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

testing_pub!(
/// A new decision id.
pub fn new_id() -> String {
    format!(
        "{}-{:06x}",
        Utc::now().format("%Y%m%dT%H%M%S%.6fZ"),
        random_u64() & 0xff_ffff
    )
}
);

/// Keep the previous bytes of decision `id`'s files (`(n, bytes)`);
/// returns each file's blob name. Nothing is written to the project when
/// this fails, and nothing is left in `blobs/`.
pub(crate) fn write_blobs(
    dir: &Path,
    id: &str,
    blobs: &[(usize, &[u8])],
) -> Result<std::collections::HashMap<usize, String>, ActError> {
    let mut names = std::collections::HashMap::new();
    if blobs.is_empty() {
        return Ok(names);
    }
    let refuse = |e: Untrusted| e.refuse_as("audit blobs", "nothing written");
    private_dir(&dir.join(BLOBS)).map_err(refuse)?;
    let here = dir.join(BLOBS).join(id);
    private_dir(&here).map_err(refuse)?;
    for (n, bytes) in blobs {
        if let Err(e) = atomic::replace(&here.join(n.to_string()), bytes) {
            forget_blobs(dir, id);
            return Err(store("audit blobs", e));
        }
        names.insert(*n, format!("{BLOBS}/{id}/{n}"));
    }
    Ok(names)
}

/// Drop the blobs of a decision that wrote nothing.
pub(crate) fn forget_blobs(dir: &Path, id: &str) {
    // `remove_dir_all` removes a link, never what it points to.
    let _ = fs::remove_dir_all(dir.join(BLOBS).join(id));
}

/// Append `record` to the log (set aside first when it has reached
/// [`ROTATE_AT`]), then prune old blobs.
pub(crate) fn append(dir: &Path, record: &Record) -> Result<(), ActError> {
    append_rotating(dir, record, ROTATE_AT, KEEP_ROTATED)
}

fn append_rotating(
    dir: &Path,
    record: &Record,
    rotate_at: u64,
    keep_rotated: usize,
) -> Result<(), ActError> {
    let line = serde_json::to_vec(record).map_err(|e| store(LOG, StoreError::Io(e.into())))?;
    rotate(dir, rotate_at, keep_rotated);
    let path = dir.join(LOG);
    trust(&path, Want::File).map_err(|e| e.refuse("the record was not appended"))?;
    ndjson::append_line(&path, &line).map_err(|e| store(LOG, e))?;
    prune(dir, KEEP_DECISIONS);
    Ok(())
}

/// Set the log aside as `audit.ndjson.<id>` when it holds `rotate_at`
/// bytes or more, keeping the newest `keep` set aside. Best effort: a log
/// that cannot be set aside keeps growing, and is still read whole by
/// `undo`. A rename never replaces a file (each name is new), so two
/// writers rotating at once lose nothing: a record appended to a log while
/// it is set aside is in the set-aside file, which `undo` reads too.
fn rotate(dir: &Path, rotate_at: u64, keep: usize) {
    let log = dir.join(LOG);
    let Ok(m) = fs::symlink_metadata(&log) else {
        return;
    };
    if !m.is_file() || m.len() < rotate_at {
        return;
    }
    if fs::rename(&log, dir.join(format!("{LOG}.{}", new_id()))).is_err() {
        return;
    }
    atomic::sync_dir(dir);
    let mut old = rotated(dir);
    old.reverse();
    for name in old.iter().skip(keep) {
        let _ = fs::remove_file(dir.join(name));
    }
}

/// The set-aside logs in `dir`, oldest first.
fn rotated(dir: &Path) -> Vec<String> {
    let prefix = format!("{LOG}.");
    super::list_names(dir)
        .into_iter()
        .filter(|n| {
            n.strip_prefix(&prefix)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
        .collect()
}

/// How long an empty `blobs/<id>/` is left alone: a decision may be about
/// to write its blobs into it.
const EMPTY_BLOBS_GRACE: chrono::Duration = chrono::Duration::minutes(10);

/// Remove the blobs of all but the newest `keep` decisions. An empty
/// `blobs/<id>/` (a write that failed) is removed and not counted, unless
/// its id is younger than a few minutes (a decision writing its blobs).
pub(crate) fn prune(dir: &Path, keep: usize) {
    let blobs = dir.join(BLOBS);
    let young = (Utc::now() - EMPTY_BLOBS_GRACE)
        .format("%Y%m%dT%H%M%S%.6fZ")
        .to_string();
    let mut kept = Vec::new();
    for id in super::list_names(&blobs) {
        let path = blobs.join(&id);
        // A link or a file is not a decision's blobs: left alone.
        if !fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        let empty = fs::read_dir(&path).is_ok_and(|mut d| d.next().is_none());
        if empty {
            if id < young {
                let _ = fs::remove_dir(&path);
            }
            continue;
        }
        kept.push(id);
    }
    if kept.len() <= keep {
        return;
    }
    kept.truncate(kept.len() - keep);
    for id in kept {
        let _ = fs::remove_dir_all(blobs.join(id));
    }
}

/// The decision `which` from the log in `dir` (the set-aside logs too,
/// newest first), read from the end without loading the log whole.
pub(crate) fn find(dir: &Path, which: &Which, project_of: ProjectOf) -> Result<Record, ActError> {
    let path = dir.join(LOG);
    let id = match which {
        Which::Id(id) => Some(id.as_str()),
        _ => None,
    };
    let mut stack = Stack::default();
    if let Some(rec) = walk(dir, id, "nothing undone", |r| stack.pick(which, r, project_of))? {
        return Ok(rec);
    }
    let scope = |p: &Option<PathBuf>| {
        p.as_ref()
            .map(|p| format!(" of {}", p.display()))
            .unwrap_or_default()
    };
    Err(ActError::Refused(Refusal::new(match which {
        Which::Last(p) if stack.seen == 0 => format!(
            "no decision{} to undo in the audit log {}",
            scope(p),
            path.display()
        ),
        Which::Last(p) => format!(
            "every decision{} in the audit log {} is undone already; `loopdeck redo` puts the last one back",
            scope(p),
            path.display()
        ),
        Which::Redo(p) => format!(
            "no undo{} to redo in the audit log {}: every decision undone there is in force again, or none was undone",
            scope(p),
            path.display()
        ),
        Which::Id(id) => format!("no decision {id} in the audit log {}", path.display()),
    })))
}

/// The walk from the newest record back: which decisions the newer
/// records left undone or in force (the first word said about a decision,
/// newest first, is the one in force).
#[derive(Default)]
struct Stack {
    /// Decision id → undone (true) or in force again (false).
    settled: std::collections::HashMap<String, bool>,
    /// Decisions of the scope met.
    seen: usize,
}

impl Stack {
    /// Is `rec` the one `which` asks for? Records are given newest first.
    fn pick(&mut self, which: &Which, rec: &Record, project_of: ProjectOf) -> bool {
        let scope = match which {
            Which::Last(s) | Which::Redo(s) => s,
            Which::Id(id) => return rec.id == *id,
        };
        if let Some(s) = scope
            && project_of(rec) != *s
        {
            return false;
        }
        match (rec.effect(), which) {
            (Effect::Decision, Which::Last(_)) => {
                self.seen += 1;
                self.settled.get(&rec.id) != Some(&true)
            }
            (Effect::Decision, _) => false,
            (Effect::Undoes(d), _) => {
                let newest = !self.settled.contains_key(&d);
                self.settled.entry(d).or_insert(true);
                newest && matches!(which, Which::Redo(_))
            }
            (Effect::Redoes(d), _) => {
                self.settled.entry(d).or_insert(false);
                false
            }
        }
    }
}

/// Every record of the logs in `dir` (the log, then the set-aside logs,
/// newest first), newest first, given to `visit` until it says stop: that
/// record is returned. With `id`, only that record is parsed (and a log
/// set aside before it was made is not read). A log that cannot be
/// trusted refuses, with `what` said of the refusal.
fn walk(
    dir: &Path,
    id: Option<&str>,
    what: &str,
    mut visit: impl FnMut(&Record) -> bool,
) -> Result<Option<Record>, ActError> {
    let refuse = |e: Untrusted| e.refuse(what);
    let mut names = Vec::new();
    if trusted_dir(dir).map_err(refuse)? {
        names.push(LOG.to_owned());
        let mut old = rotated(dir);
        old.reverse();
        // A log set aside at time T was closed before any decision made
        // after T: one older than the id sought cannot hold it.
        if let Some(id) = id {
            let at = |n: &String| n[LOG.len() + 1..].to_owned();
            old.retain(|n| at(n).as_str() >= id);
        }
        names.extend(old);
    }
    for name in &names {
        let path = dir.join(name);
        if trust(&path, Want::File).map_err(refuse)?.is_none() {
            continue;
        }
        // Opened without following a link (the name is one component).
        let mut lines = match ndjson::ReverseLines::open_in(dir, name, u64::MAX) {
            Ok(l) => l,
            Err(StoreError::Vanished) => continue,
            Err(e) => return Err(store(&path.display().to_string(), e)),
        };
        while let Some(line) = lines
            .next_line()
            .map_err(|e| store(&path.display().to_string(), e))?
        {
            let ndjson::RevLine::Line(l) = line else {
                continue;
            };
            // Another decision's line is passed over without parsing it
            // whole (a record's id has no escapes, so its plain value is
            // the id).
            if let Some(id) = id
                && ndjson::top_level_str(l, "id") != Some(id)
            {
                continue;
            }
            if let Ok(r) = serde_json::from_slice::<Record>(l)
                && visit(&r)
            {
                return Ok(Some(r));
            }
        }
    }
    Ok(None)
}

/// Where a decision stands now, as the newer records leave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Standing {
    /// Made and not undone.
    InForce,
    /// Undone (by the record with this id).
    Undone {
        /// The undo's audit id.
        by: String,
    },
    /// Undone, then put back (by the redo with this id).
    Redone {
        /// The redo's audit id.
        by: String,
    },
    /// An undo or a redo: see its `decision`.
    Reversal,
}

/// Every decision in the logs of `dir`, newest first, with where it stands
/// (see [`Standing`]), those `keep` keeps.
pub fn history(
    dir: &Path,
    mut keep: impl FnMut(&Record) -> bool,
) -> Result<Vec<(Record, Standing)>, ActError> {
    let mut settled: std::collections::HashMap<String, Standing> = std::collections::HashMap::new();
    let mut out = Vec::new();
    walk(dir, None, "nothing read", |r| {
        let standing = match r.effect() {
            Effect::Decision => settled.get(&r.id).cloned().unwrap_or(Standing::InForce),
            Effect::Undoes(d) => {
                settled
                    .entry(d)
                    .or_insert_with(|| Standing::Undone { by: r.id.clone() });
                Standing::Reversal
            }
            Effect::Redoes(d) => {
                settled
                    .entry(d)
                    .or_insert_with(|| Standing::Redone { by: r.id.clone() });
                Standing::Reversal
            }
        };
        if keep(r) {
            out.push((r.clone(), standing));
        }
        false
    })?;
    Ok(out)
}

/// A relative path that stays below where it starts: plain components
/// only (no `/…`, `.`, `..`), at least one.
pub(crate) fn inside(relative: &str) -> bool {
    let p = Path::new(relative);
    !relative.is_empty()
        && !relative.contains('\\')
        && p.components().all(|c| matches!(c, Component::Normal(_)))
        && p.components().next().is_some()
}

/// The edit putting back what file `f` held before.
pub(crate) fn restore(dir: &Path, f: &FileRecord) -> Result<Edit, ActError> {
    let Some(before) = &f.before else {
        return Ok(Edit::Remove {
            file: f.file.clone(),
        });
    };
    let gone = || {
        ActError::Refused(Refusal::new(format!(
            "the previous bytes of {} are no longer kept (loopdeck keeps those of the last {KEEP_DECISIONS} decisions); nothing undone",
            f.file
        )))
    };
    // The log is a file like any other: a blob name must be
    // `blobs/<id>/<n>`, and each part of it trusted, never a link.
    let parts: Vec<&str> = f.blob.as_deref().unwrap_or_default().split('/').collect();
    let [BLOBS, id, n] = parts.as_slice() else {
        return Err(gone());
    };
    if !inside(id) || !inside(n) {
        return Err(gone());
    }
    let refuse = |e: Untrusted| e.refuse("nothing undone");
    for d in [dir.join(BLOBS), dir.join(BLOBS).join(id)] {
        if trust(&d, Want::Dir).map_err(refuse)?.is_none() {
            return Err(gone());
        }
    }
    let path = dir.join(BLOBS).join(id).join(n);
    let bytes = match read_trusted(&path, BLOB_LIMIT) {
        Ok(Some(b)) => b,
        Ok(None) | Err(ReadError::Store(_)) => return Err(gone()),
        Err(ReadError::Untrusted(e)) => return Err(refuse(e)),
    };
    if sha256_hex(&bytes) != before.sha256 {
        return Err(gone());
    }
    Ok(Edit::Replace {
        file: f.file.clone(),
        bytes,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn record(id: &str) -> Record {
        Record {
            id: id.to_owned(),
            at: "2026-06-01T00:00:00Z".to_owned(),
            now: None,
            by: "ann".to_owned(),
            host: "h".to_owned(),
            project: "/p".to_owned(),
            primary: "state.json".to_owned(),
            lock: LockKind::Owner,
            decision: serde_json::json!({"verb": "x", "pad": "y".repeat(200)}),
            files: Vec::new(),
            partial: false,
        }
    }

    fn private(dir: &Path) {
        make_state_dir(dir).unwrap();
    }

    /// With a small rotation size, the log is set aside again and again;
    /// at most `keep` set-aside logs remain, every record in them (and in
    /// the live log) is found by its id, the oldest beyond them are gone.
    #[test]
    fn the_log_is_set_aside_by_size_and_undo_finds_records_in_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("loopdeck");
        private(&dir);
        let ids: Vec<String> = (0..40).map(|_| new_id()).collect();
        for id in &ids {
            append_rotating(&dir, &record(id), 1000, 3).unwrap();
        }
        let old = rotated(&dir);
        assert_eq!(old.len(), 3, "{old:?}");
        assert!(fs::metadata(dir.join(LOG)).unwrap().len() < 1000 + 400);
        let in_files: usize = old
            .iter()
            .chain(std::iter::once(&LOG.to_owned()))
            .map(|n| fs::read_to_string(dir.join(n)).unwrap().lines().count())
            .sum();
        assert!(in_files < ids.len(), "some were dropped with old logs");
        let kept = &ids[ids.len() - in_files..];
        for id in kept {
            assert_eq!(find(&dir, &Which::Id(id.clone()), as_recorded).unwrap().id, *id);
        }
        assert!(find(&dir, &Which::Id(ids[0].clone()), as_recorded).is_err());
        assert_eq!(find(&dir, &Which::Last(None), as_recorded).unwrap().id, ids[39]);
        // The live log set aside and none begun: the last is the newest
        // set-aside one's.
        fs::rename(dir.join(LOG), dir.join(format!("{LOG}.{}", new_id()))).unwrap();
        assert_eq!(find(&dir, &Which::Last(None), as_recorded).unwrap().id, ids[39]);
    }

    /// Empty `blobs/<id>/` (a write that failed) are removed and not
    /// counted among the decisions kept; a very young one is left (a
    /// decision may be writing into it); links are left alone.
    #[test]
    fn empty_blob_directories_are_removed_and_not_counted() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("loopdeck");
        private(&dir);
        let blobs = dir.join(BLOBS);
        let full = [
            "20260101T000001.000000Z-aaaaaa",
            "20260101T000002.000000Z-aaaaaa",
            "20260101T000003.000000Z-aaaaaa",
        ];
        for id in full {
            fs::create_dir_all(blobs.join(id)).unwrap();
            fs::write(blobs.join(id).join("0"), "x").unwrap();
        }
        // Newer than every full one: counted, they would push them out.
        let empty = [
            "20260101T000004.000000Z-aaaaaa",
            "20260101T000005.000000Z-aaaaaa",
        ];
        for id in empty {
            fs::create_dir_all(blobs.join(id)).unwrap();
        }
        let young = new_id();
        fs::create_dir_all(blobs.join(&young)).unwrap();
        prune(&dir, 2);
        let mut want = vec![full[1].to_owned(), full[2].to_owned(), young];
        want.sort();
        assert_eq!(super::super::list_names(&blobs), want);
    }

    /// A blob write that fails leaves no empty `blobs/<id>/` behind.
    #[test]
    fn a_failed_blob_write_leaves_no_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("loopdeck");
        private(&dir);
        let id = new_id();
        // The blob's name is taken by a non-empty directory.
        fs::create_dir_all(dir.join(BLOBS).join(&id).join("0").join("x")).unwrap();
        fs::write(dir.join(BLOBS).join(&id).join("0").join("x").join("y"), "").unwrap();
        assert!(write_blobs(&dir, &id, &[(0, b"bytes")]).is_err());
        assert!(!dir.join(BLOBS).join(&id).exists());
    }
}
