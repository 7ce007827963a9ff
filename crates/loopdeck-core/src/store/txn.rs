//! A decision's transaction: the one way any decision reaches the disk.
//!
//! A format describes the transaction ([`Txn`]: the project, the primary
//! file its lock guards, the lock's kind) and a `decide` function that
//! reads what it needs through a [`Snapshot`] and returns the [`Edit`]s to
//! make, or a [`Refusal`]. [`transact`](super::transact) runs it under the rules of
//! ARCHITECTURE.md "The rules for every write": the read-only gate, the lock, the
//! caller's `--expect-sha256`, compare-and-swap against the bytes `decide`
//! read, atomic replacement, whole-line appends, the audit log.
//!
//! Nothing here knows a format's file names: they arrive as arguments.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::beneath::Dir;
use super::{StoreError, sha256_hex};

/// The largest file a decision reads whole.
pub(crate) const DECISION_READ_LIMIT: u64 = super::STATE_FILE_LIMIT;

/// The sha256 and length of some bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// The sha256, in lowercase hex.
    pub sha256: String,
    /// The length, in bytes.
    pub len: u64,
}

impl Stamp {
    /// The stamp of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        Stamp {
            sha256: sha256_hex(bytes),
            len: bytes.len() as u64,
        }
    }
}

testing_pub!(
    /// One change to one file, relative to the project directory.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub enum Edit {
        /// Replace the whole file with `bytes` (create it when the snapshot
        /// read it as missing). The file must have been read through the
        /// [`Snapshot`] (or be new): its bytes are compared before the rename.
        Replace {
            /// The file, relative to the project.
            file: String,
            /// Its new content.
            bytes: Vec<u8>,
        },
        /// Append one record (one line; no newline inside) to an NDJSON file,
        /// in one `write` with `O_APPEND`; the file is created if missing.
        AppendLine {
            /// The file, relative to the project.
            file: String,
            /// The record, without its newline.
            line: Vec<u8>,
        },
        /// Remove a file read through the snapshot (GSD's WAITING.json once
        /// answered).
        Remove {
            /// The file, relative to the project.
            file: String,
        },
        /// Rename a file read through the snapshot to `to` in the same
        /// directory, keeping it (a corrupt `state.json` set aside).
        RenameAside {
            /// The file, relative to the project.
            file: String,
            /// Its new name, in the same directory.
            to: String,
        },
    }
);

impl Edit {
    testing_pub!(
        /// The file it changes, relative to the project.
        pub fn file(&self) -> &str {
            match self {
                Edit::Replace { file, .. }
                | Edit::AppendLine { file, .. }
                | Edit::Remove { file }
                | Edit::RenameAside { file, .. } => file,
            }
        }
    );
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

testing_pub!(
    /// What a transaction is about; the executor does the rest.
    #[derive(Debug, Clone)]
    pub struct Txn {
        /// The project directory: every file is relative to it and must stay
        /// inside it.
        pub project: PathBuf,
        /// The file the lock guards and `--expect-sha256` names.
        pub primary: String,
        /// The lock taken before anything is written.
        pub lock: LockKind,
        /// How long a lock held by a live process is waited for.
        pub wait: Duration,
        /// The caller's snapshot of `primary` (`--expect-sha256`).
        pub expect_sha256: Option<String>,
        /// The reading a console decision was made from: (file, sha256) of
        /// each file read whole. A file the decision reads must still have
        /// these bytes, or nothing is written (see [`WriteOptions::expect_files`]).
        pub expect_files: Vec<(String, String)>,
        /// Compute and show, write nothing.
        pub dry_run: bool,
        /// `--readonly` or `readonly = true`: refuse at this one gate.
        pub readonly: bool,
        /// Who decides and when, for the audit log.
        pub by: String,
        /// The time written into the project's files.
        pub now: DateTime<Utc>,
        /// The decision as the audit log and `--json` record it.
        pub decision: serde_json::Value,
        /// Where the audit log lives (default: loopdeck's XDG state directory;
        /// `None` there too means no audit log can be kept, which is refused
        /// unless `dry_run`).
        pub audit_dir: Option<PathBuf>,
    }
);

/// The caller's part of every transaction (`act`'s flags, the config).
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// The sha256 the decision's primary file must still have
    /// (`--expect-sha256`); `None`: not checked.
    pub expect_sha256: Option<String>,
    /// (file, sha256) of the files the caller read, as the console showed
    /// them: every one of them the decision reads must still hold those
    /// bytes (a question is answered against the reading it was shown
    /// from, never against a newer file). Files it does not read are not
    /// checked.
    pub expect_files: Vec<(String, String)>,
    /// Compute and show, write nothing (`--dry-run`).
    pub dry_run: bool,
    /// `--readonly` or `readonly = true`: refuse anything but a dry run.
    pub readonly: bool,
    /// How long a lock held by a live process is waited for.
    pub wait: Duration,
    /// Where the audit log lives; `None`: loopdeck's state directory.
    pub audit_dir: Option<PathBuf>,
    /// Who and when, for a write no `Request` describes (`undo`).
    pub by: Option<String>,
    /// When, for the same writes (`undo`); `None`: the clock.
    pub now: Option<DateTime<Utc>>,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            expect_sha256: None,
            expect_files: Vec::new(),
            dry_run: false,
            readonly: false,
            wait: Duration::from_secs(10),
            audit_dir: None,
            by: None,
            now: None,
        }
    }
}

/// The read-only gate, the one rule every write passes: `--readonly` (or
/// `readonly = true`) refuses anything but a dry run. `transact` applies it;
/// a write that does not go through a transaction (a remote decision, a
/// lock removed, a project directory created) calls it first.
pub fn gate(readonly: bool, dry_run: bool) -> Result<(), ActError> {
    if readonly && !dry_run {
        return Err(ActError::ReadOnly);
    }
    Ok(())
}

impl WriteOptions {
    /// [`gate`] for these options.
    pub fn gate(&self) -> Result<(), ActError> {
        gate(self.readonly, self.dry_run)
    }
}

impl Txn {
    testing_pub!(
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
                expect_files: opts.expect_files.clone(),
                dry_run: opts.dry_run,
                readonly: opts.readonly,
                by: by.to_owned(),
                now,
                decision,
                audit_dir: opts.audit_dir.clone(),
            }
        }
    );
}

/// A decision the rules refuse (exit 1): nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct Refusal(pub String);

impl Refusal {
    /// A refusal saying `msg`.
    pub fn new(msg: impl Into<String>) -> Self {
        Refusal(msg.into())
    }
}

impl ActError {
    /// The refusal of a verb a format does not take (each format's
    /// decisions say it of the verbs that are another format's).
    pub(crate) fn not_for(format: crate::model::Format, verb: &crate::model::Verb) -> Self {
        ActError::Refused(Refusal::new(format!(
            "`{}` is not a {} decision",
            verb.name(),
            format.as_str()
        )))
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
    Store {
        /// The file, relative to the project.
        file: String,
        /// What the disk said.
        source: StoreError,
    },
    /// Something WAS written and is not undone or not recorded (exit 4):
    /// a retry could apply the decision twice, so a script must not retry
    /// it blindly. The message names what was written and what settles it.
    #[error("{0}")]
    Partial(String),
}

/// How a decision failed, for the caller to say (the binary's exit codes:
/// 3, 4, 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The file changed on disk, or is locked: nothing written.
    Conflict,
    /// Something was written and is not undone or not recorded.
    Partial,
    /// Refused by the rules (or the disk): nothing written.
    Refused,
}

impl ActError {
    /// How this decision failed.
    pub fn failure(&self) -> Failure {
        match self {
            ActError::Changed(_) | ActError::Locked(_) => Failure::Conflict,
            ActError::Partial(_) => Failure::Partial,
            _ => Failure::Refused,
        }
    }

    /// The exit code README.md's table gives this failure, for the store's tests.
    #[cfg(test)]
    pub(crate) fn exit_code(&self) -> i32 {
        match self.failure() {
            Failure::Conflict => 3,
            Failure::Partial => 4,
            Failure::Refused => 1,
        }
    }
}

testing_pub!(
    /// What `decide` read: each file's bytes (or its absence) and stamp.
    #[derive(Debug)]
    pub struct Snapshot {
        project: PathBuf,
        /// The project directory, opened once: every file is read relative to
        /// it (see [`super::beneath`]).
        root: Option<Dir>,
        /// Shared, not copied: the plan of a decision keeps each file's bytes
        /// as read, and a large state is held once.
        files: Vec<(String, Option<Shared>)>,
        /// Sentences the format said while deciding (see [`Snapshot::say`]).
        said: Vec<String>,
    }
);

/// A file's bytes held in one place and shared by whoever needs them.
pub(crate) type Shared = std::sync::Arc<Vec<u8>>;

/// How long a file another process keeps rewriting is waited for before a
/// decision on it is refused ("being written").
pub(crate) const STABLE_WAIT: Duration = Duration::from_secs(2);
/// A file changed more recently than this may still be being written (an
/// agent that truncates, then writes, without a lock): it is read twice,
/// this far apart, and decided on only when both reads agree. Two ticks of
/// the coarse clock file times come from (4 ms at 250 Hz), so a change
/// just under a tick ago is never taken for an old one.
pub(crate) const RACY_WINDOW: Duration = Duration::from_millis(8);

impl Snapshot {
    pub(crate) fn new(project: &Path) -> Self {
        Snapshot {
            project: project.to_path_buf(),
            root: None,
            files: Vec::new(),
            said: Vec::new(),
        }
    }

    /// A snapshot reading through the project directory already open.
    pub(crate) fn in_dir(project: &Path, root: Dir) -> Self {
        Snapshot {
            project: project.to_path_buf(),
            root: Some(root),
            files: Vec::new(),
            said: Vec::new(),
        }
    }

    testing_pub!(
        /// The bytes of `file` inside the project, `None` when it does not
        /// exist. Read once per transaction; later calls return the same bytes.
        /// A file caught while another process writes it (its size or change
        /// time moved during the read, or it changed a moment ago) is read
        /// again until two reads agree; one that never settles within
        /// [`STABLE_WAIT`] refuses the decision as a change on disk.
        pub fn read(&mut self, file: &str) -> Result<Option<&[u8]>, ActError> {
            if let Some(i) = self.files.iter().position(|(f, _)| f == file) {
                return Ok(self.files[i].1.as_deref().map(Vec::as_slice));
            }
            if self.root.is_none() {
                let root = Dir::open(&self.project).map_err(|source| ActError::Store {
                    file: self.project.display().to_string(),
                    source,
                })?;
                self.root = Some(root);
            }
            let Some(root) = self.root.as_ref() else {
                return Err(ActError::Refused(Refusal::new("no project directory")));
            };
            let bytes = match read_stable(root, file, DECISION_READ_LIMIT) {
                Ok(b) => b,
                Err(Unsettled::Store(StoreError::Vanished)) => None,
                Err(Unsettled::Store(source)) => {
                    return Err(ActError::Store {
                        file: file.to_owned(),
                        source,
                    });
                }
                Err(Unsettled::BeingWritten) => {
                    return Err(ActError::Changed(format!(
                        "{file} is being written by another process (it kept changing while loopdeck read it, for {} s); nothing written: try again once its writer is done",
                        STABLE_WAIT.as_secs()
                    )));
                }
            };
            if let Some(b) = &bytes {
                super::stamps::record(|| self.project.join(file), b);
            }
            self.files.push((file.to_owned(), bytes.map(Shared::new)));
            Ok(self
                .files
                .last()
                .and_then(|(_, b)| b.as_deref().map(Vec::as_slice)))
        }
    );

    /// [`Self::read`], the bytes shared rather than borrowed: for a reader
    /// that keeps them while the snapshot reads on.
    pub(crate) fn read_shared(&mut self, file: &str) -> Result<Option<Shared>, ActError> {
        self.read(file)?;
        Ok(self
            .files
            .iter()
            .find(|(f, _)| f == file)
            .and_then(|(_, b)| b.clone()))
    }

    /// The bytes of `file` as read, if it was read and exists.
    pub(crate) fn bytes(&self, file: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|(f, _)| f == file)
            .and_then(|(_, b)| b.as_deref().map(Vec::as_slice))
    }

    pub(crate) fn project(&self) -> &Path {
        &self.project
    }
}

/// One file a transaction changed (or, dry, would change).
#[derive(Debug, Clone, Serialize)]
pub struct FileChange {
    /// Its path, relative to the project.
    pub file: String,
    /// `None`: the file did not exist before.
    pub before: Option<Stamp>,
    /// `None`: the file no longer exists.
    pub after: Option<Stamp>,
    /// The unified diff of the change (`--dry-run` prints it).
    #[serde(skip)]
    pub diff: String,
    /// A line was appended to it (an append-only log `undo` never
    /// rewrites), rather than the file replaced.
    #[serde(skip)]
    pub appended: bool,
}

/// What a transaction did.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// Nothing was written: the changes are what a write would make.
    pub dry_run: bool,
    /// The file the decision is recorded against (its lock, its
    /// `--expect-sha256`).
    #[serde(skip)]
    pub primary: String,
    /// Every file changed, in order.
    pub files: Vec<FileChange>,
    /// The audit log's id for this decision (`loopdeck undo ID`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audit_id: Option<String>,
    /// A dry run: (file, sha256) of every file the decision read, as it
    /// read them. Writing with these as `expect_files` makes exactly the
    /// change previewed, or nothing.
    #[serde(skip)]
    pub read: Vec<(String, String)>,
    /// Interrupted decisions on this project settled before this one (see
    /// `intent`), one sentence each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recovered: Vec<String>,
    /// What the format said while deciding that the diff alone does not
    /// (a legacy state migrated by the write, …), one sentence each: the
    /// dry run, the console's confirm and the result all show it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub said: Vec<String>,
}

impl Snapshot {
    /// Say what this decision does beyond its diff, in one sentence (a
    /// legacy state migrated on the way): the dry run, the console's
    /// confirm and the result show it ([`Outcome::said`]).
    pub(crate) fn say(&mut self, sentence: impl Into<String>) {
        self.said.push(sentence.into());
    }

    /// The sentences said so far, taken.
    pub(crate) fn take_said(&mut self) -> Vec<String> {
        std::mem::take(&mut self.said)
    }

    /// Every file read, with its bytes (`None`: missing).
    pub(crate) fn entries(&self) -> &[(String, Option<Shared>)] {
        &self.files
    }

    /// Was `file` read (present or missing)?
    pub(crate) fn has(&self, file: &str) -> bool {
        self.files.iter().any(|(f, _)| f == file)
    }
}

#[cfg(test)]
mod tests;

enum Unsettled {
    Store(StoreError),
    BeingWritten,
}

impl From<StoreError> for Unsettled {
    fn from(e: StoreError) -> Self {
        Unsettled::Store(e)
    }
}

/// What identifies one version of a file: inode, size, change time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Version {
    ino: u64,
    size: i64,
    ctime: (i64, i64),
}

fn version(f: &std::fs::File) -> Result<Version, StoreError> {
    let st = rustix::fs::fstat(f).map_err(super::beneath::errno)?;
    Ok(Version {
        ino: st.st_ino,
        size: st.st_size,
        ctime: (st.st_ctime, i64::try_from(st.st_ctime_nsec).unwrap_or(0)),
    })
}

/// Did this version change less than [`RACY_WINDOW`] ago (or in the
/// future, by a clock that is ahead)?
fn recent(v: &Version) -> bool {
    let Ok(now) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) else {
        return true;
    };
    let (s, ns) = v.ctime;
    let changed = Duration::new(
        u64::try_from(s).unwrap_or(0),
        u32::try_from(ns).unwrap_or(0),
    );
    now.checked_sub(changed).is_none_or(|age| age < RACY_WINDOW)
}

/// Read `file` whole, but only a settled version of it (see
/// [`Snapshot::read`]).
fn read_stable(root: &Dir, file: &str, limit: u64) -> Result<Option<Vec<u8>>, Unsettled> {
    use std::io::Read;
    let (dir, name) = root.resolve(file)?;
    let deadline = std::time::Instant::now() + STABLE_WAIT;
    let mut last: Option<(Version, Vec<u8>)> = None;
    loop {
        let Some(f) = dir.open_read(&name)? else {
            return Ok(None);
        };
        let before = version(&f)?;
        if u64::try_from(before.size).unwrap_or(0) > limit {
            return Err(StoreError::TooLarge {
                size: u64::try_from(before.size).unwrap_or(0),
                limit,
            }
            .into());
        }
        let mut bytes = Vec::with_capacity(usize::try_from(before.size).unwrap_or(0) + 1);
        (&f).take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(StoreError::from)?;
        if bytes.len() as u64 > limit {
            return Err(StoreError::TooLarge {
                size: bytes.len() as u64,
                limit,
            }
            .into());
        }
        let after = version(&f)?;
        let whole = before == after && bytes.len() as u64 == u64::try_from(after.size).unwrap_or(0);
        if whole {
            if !recent(&after) {
                return Ok(Some(bytes));
            }
            if let Some((v, b)) = &last
                && *v == after
                && *b == bytes
            {
                return Ok(Some(bytes));
            }
        }
        if std::time::Instant::now() >= deadline {
            return Err(Unsettled::BeingWritten);
        }
        last = whole.then_some((after, bytes));
        std::thread::sleep(RACY_WINDOW);
    }
}
