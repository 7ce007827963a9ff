//! The last reading of every project, kept in the state directory, so the
//! console's first frame and `loopdeck list --cached` need no reading.
//!
//! One file per set of roots: `snapshot-<16 hex>.json` in
//! `$XDG_STATE_HOME/loopdeck` (directory 0700, file 0600), the hex the
//! start of the sha256 of the roots (canonical, sorted, each ended by a
//! NUL), so two consoles on different roots never mix. Written whole by
//! atomic replacement (`seen::write_private`), never merged: the last
//! writer wins.
//!
//! The file is one header line (JSON), then the payload: the rows as
//! JSON, deflated; the header's length and sha256 are the payload's as
//! stored:
//!
//! ```text
//! {"snapshot":1,"model_schema":1,"loopdeck":"0.1.0","written_at":"…","roots":["/abs/ws"],"projects":2,"payload_len":812,"payload_sha256":"…"}
//! deflate([{"root":0,"id":"prd/a","name":"…","format":"prd-master",…,"fp":"…"},…])
//! ```
//!
//! A row is a slim projection of one of this machine's projects
//! ([`Kept`]): what a list row, the inbox, the header and a stall need
//! (name, status, stage, progress, the waiting and answered items, the
//! problems, the count of findings, the claims of work going on), never a
//! timeline, bugs, units, the findings' words or the resume card: 300 to
//! 1,000 bytes of JSON a project (the items' words are most of it) where
//! the whole wire value is ~24 KB for a devloop project; deflated, the
//! 10,000 projects of `bench/gen_workspace.py` take well under a MB.
//! Phrases keep their catalogue keys, without their English words
//! ([`wire::in_wire_compact`]: the header pins this very build, which
//! knows every key), so a row reads back in the language spoken.
//!
//! Loading ignores the file on any doubt, and says why ([`SnapshotError`]):
//! absent, not this user's, too large, a header that does not parse,
//! another snapshot version, another `MODEL_SCHEMA`, another loopdeck
//! version, other roots, a payload of another length (truncated) or
//! another sha256, a payload that does not parse or does not hold the
//! count the header says, a project id or a watched name that would leave
//! its root. A caller then starts as without one.
//!
//! Staleness: each row keeps the names of its project's main files
//! (`watch`: the format's primary file and part files, the files the
//! reading read whole beside the primary, and the directories one level
//! below the primary's that hold files it read, which change when a file
//! in them is replaced by rename) and one fingerprint of their stat
//! (`fp`: length, mtime, ctime, inode; absent ones too). A row whose
//! fingerprint no longer matches the disk is `changed_since` its
//! snapshot ([`Entry::changed_since`]). When written, a row whose files
//! already differ from what its reading read (another length, or, for a
//! file changed in the last [`RACY`] seconds, other bytes; a log or a
//! directory changed in that time, which no stamp covers) gets an empty
//! fingerprint: it is changed since, always.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::audit::{self, ReadError};
use super::{STATE_FILE_LIMIT, StoreError, hex_of, sha256_hex};
use crate::model::{
    Activity, Agent, AnsweredItem, FileStamp, Format, InboxItem, Phrase, Problem, Project,
    StatusKind, wire,
};

/// The version of this file's layout; any other is ignored.
pub const VERSION: u32 = 1;
/// The version of loopdeck that writes (and alone reads) the file.
pub const LOOPDECK_VERSION: &str = env!("CARGO_PKG_VERSION");
/// The largest snapshot read, and the most its payload inflates to.
const LIMIT: u64 = 256 * 1024 * 1024;
/// How hard the payload is deflated (on the writer's thread).
const DEFLATE_LEVEL: u8 = 6;
/// Snapshots are written at most this often by a running front end
/// (and once more at a clean exit when something changed since).
pub const MIN_GAP: Duration = Duration::from_secs(60);
/// A file changed this shortly before a snapshot was taken may have
/// changed after its reading: its bytes are compared (a log's or a
/// directory's cannot be: its row is changed since, always). Longer than
/// a full reading of 10,000 projects and the default polling period.
pub const RACY: TimeDelta = TimeDelta::seconds(30);
const PREFIX: &str = "snapshot-";

/// Why no snapshot was read or written. A reader starts as without one.
#[derive(Debug, Error)]
pub enum SnapshotError {
    /// There is no state directory (neither `XDG_STATE_HOME` nor `HOME`).
    #[error("there is no state directory (set XDG_STATE_HOME or HOME)")]
    NoStateDir,
    /// No snapshot of these roots was written yet.
    #[error("{file} does not exist: no reading of these roots was kept yet")]
    Missing {
        /// The file looked for.
        file: String,
    },
    /// The directory or the file is not this user's alone, or cannot be
    /// read; it is neither read nor written.
    #[error("{0}")]
    Unreadable(String),
    /// Another layout, model, or loopdeck version wrote it.
    #[error("{file} was written by another version ({what}); it is not read")]
    Version {
        /// The file.
        file: String,
        /// What differs.
        what: String,
    },
    /// It is the snapshot of other roots (the same name by chance).
    #[error("{file} holds the reading of other roots; it is not read")]
    OtherRoots {
        /// The file.
        file: String,
    },
    /// Its payload is shorter or longer than its header says.
    #[error("{file} is truncated ({got} of {want} bytes); it is not read")]
    Truncated {
        /// The file.
        file: String,
        /// The payload's length.
        got: u64,
        /// The length the header says.
        want: u64,
    },
    /// Its payload is not the bytes its header's sha256 names.
    #[error("{file} does not match its checksum; it is not read")]
    Checksum {
        /// The file.
        file: String,
    },
    /// It does not parse, or holds what no loopdeck writes.
    #[error("{file} could not be read ({why}); it is not read")]
    Corrupt {
        /// The file.
        file: String,
        /// Why.
        why: String,
    },
    /// It could not be written.
    #[error("the snapshot {file} could not be written: {why}")]
    Write {
        /// The file.
        file: String,
        /// Why.
        why: String,
    },
}

/// The header line.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    snapshot: u32,
    model_schema: u32,
    loopdeck: String,
    written_at: DateTime<Utc>,
    roots: Vec<String>,
    projects: usize,
    payload_len: u64,
    payload_sha256: String,
}

/// One project as kept (see the module's doc).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Kept {
    /// Its root: an index into the header's roots.
    root: usize,
    /// Its path relative to that root (`.`: the root itself).
    id: String,
    name: String,
    format: Format,
    #[serde(default)]
    updated_at: Option<DateTime<Utc>>,
    status: String,
    status_kind: StatusKind,
    #[serde(default)]
    stage: Option<Phrase>,
    #[serde(default)]
    progress: Option<u8>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    inbox: Vec<InboxItem>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    answered: Vec<AnsweredItem>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    problems: Vec<Problem>,
    /// How many findings its reading had (not their words).
    #[serde(default, skip_serializing_if = "is_zero")]
    findings: usize,
    /// The project's own claim of work going on (for its stall).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    activity: Option<Activity>,
    /// The agents that claim work going on (for its stall).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    agents: Vec<KeptAgent>,
    /// The main files watched besides the format's own (its primary and
    /// part files, which every row of the format watches); a directory
    /// ends in `/`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    watch: Vec<String>,
    /// The fingerprint of their stat when written; empty: changed since.
    fp: String,
}

/// An agent claiming work going on, as kept: what its stall needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct KeptAgent {
    agent: String,
    status: String,
    status_kind: StatusKind,
    activity: Activity,
}

impl KeptAgent {
    fn of(a: &Agent) -> Option<KeptAgent> {
        Some(KeptAgent {
            agent: a.agent.clone(),
            status: a.status.clone(),
            status_kind: a.status_kind,
            activity: a.activity?,
        })
    }

    fn agent(self) -> Agent {
        Agent {
            agent: self.agent,
            status: self.status,
            status_kind: self.status_kind,
            step: None,
            step_index: None,
            total_steps: None,
            doing: None,
            unit: None,
            progress_pct: None,
            paused_at: None,
            has_resume_token: false,
            resume_expires_at: None,
            started_at: None,
            error: None,
            activity: Some(self.activity),
        }
    }
}

/// The files every project of `format` watches: its primary and part
/// files.
fn own_files(format: Format) -> BTreeSet<String> {
    let shape = format.shape();
    std::iter::once(shape.primary)
        .chain(shape.part_files.iter().map(|(_, f)| *f))
        .map(str::to_owned)
        .collect()
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The roots of a snapshot: canonical (real paths where they exist),
/// sorted and each once, with the first spelling given of each.
#[derive(Debug, Clone)]
struct Roots {
    canonical: Vec<PathBuf>,
    spelled: Vec<PathBuf>,
}

impl Roots {
    fn of(given: &[PathBuf]) -> Roots {
        let mut pairs: Vec<(PathBuf, PathBuf)> =
            given.iter().map(|r| (canonical(r), r.clone())).collect();
        // Stable: of two spellings of one root, the first given stays.
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        pairs.dedup_by(|later, first| later.0 == first.0);
        let (canonical, spelled) = pairs.into_iter().unzip();
        Roots { canonical, spelled }
    }

    fn text(&self) -> Vec<String> {
        self.canonical
            .iter()
            .map(|r| r.to_string_lossy().into_owned())
            .collect()
    }

    /// The file name's hex: the roots' bytes, each ended by a NUL.
    fn key(&self) -> String {
        let mut h = Sha256::new();
        for r in &self.canonical {
            h.update(path_bytes(r));
            h.update([0u8]);
        }
        let mut hex = hex_of(&h.finalize());
        hex.truncate(16);
        hex
    }
}

#[cfg(unix)]
fn path_bytes(p: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn path_bytes(p: &Path) -> Vec<u8> {
    p.to_string_lossy().into_owned().into_bytes()
}

/// `root`'s real path; where it does not exist, absolute with `.` and
/// `..` folded.
fn canonical(root: &Path) -> PathBuf {
    if let Ok(real) = fs::canonicalize(root) {
        return real;
    }
    let here = std::env::current_dir().unwrap_or_default();
    crate::model::seen::absolute_folded(&here, root)
}

/// The snapshot file of `roots` in the state directory `dir`.
pub fn file_for(dir: &Path, roots: &[PathBuf]) -> PathBuf {
    dir.join(format!("{PREFIX}{}.json", Roots::of(roots).key()))
}

/// A relative path that stays where it is joined: normal components
/// only (or `.` alone), no NUL. Untrusted text from the file is checked
/// so before it names anything on disk.
fn stays_inside(rel: &str) -> bool {
    if rel == "." {
        return true;
    }
    let rel = rel.strip_suffix('/').unwrap_or(rel);
    !rel.is_empty()
        && !rel.contains('\0')
        && Path::new(rel)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

/// The directory of a relative file name (`""`: the project's own).
fn parent_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(dir, _)| dir)
}

fn depth(dir: &str) -> usize {
    if dir.is_empty() {
        0
    } else {
        dir.split('/').count()
    }
}

/// The main files of `p` to watch (see the module's doc), each with the
/// stamp its reading has of it (none: a directory, or a file not read
/// whole), in name order (the fingerprint's).
fn watched(p: &Project) -> Vec<(String, Option<FileStamp>)> {
    let shape = p.format.shape();
    let home = parent_of(shape.primary);
    let mut names: BTreeSet<String> = BTreeSet::new();
    names.insert(shape.primary.to_owned());
    names.extend(shape.part_files.iter().map(|(_, f)| (*f).to_owned()));
    for s in &p.files {
        let dir = parent_of(&s.file);
        if dir == home {
            names.insert(s.file.clone());
        }
        if !dir.is_empty() && depth(dir) <= depth(home) + 1 {
            names.insert(format!("{dir}/"));
        }
    }
    names
        .into_iter()
        .filter(|n| stays_inside(n))
        .map(|n| {
            let stamp = p.files.iter().find(|s| s.file == n).cloned();
            (n, stamp)
        })
        .collect()
}

/// What the fingerprint holds of one watched entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
}

impl Stat {
    fn modified(&self) -> Option<DateTime<Utc>> {
        DateTime::from_timestamp(self.mtime.0, u32::try_from(self.mtime.1).ok()?)
    }
}

/// The stat of each of `names` in `dir` (links followed; `None`: not
/// there): the directory opened once, each name looked up in it.
#[cfg(unix)]
fn stats<'a>(dir: &Path, names: impl ExactSizeIterator<Item = &'a str>) -> Vec<Option<Stat>> {
    use rustix::fs::{AtFlags, Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let Ok(fd) = rustix::fs::open(dir, flags, Mode::empty()) else {
        return names.map(|_| None).collect();
    };
    names
        .map(|name| {
            let st = rustix::fs::statat(&fd, name, AtFlags::empty()).ok()?;
            #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
            Some(Stat {
                len: u64::try_from(st.st_size).unwrap_or(0),
                mtime: (st.st_mtime as i64, st.st_mtime_nsec as i64),
                ctime: (st.st_ctime as i64, st.st_ctime_nsec as i64),
                ino: st.st_ino as u64,
            })
        })
        .collect()
}

#[cfg(not(unix))]
fn stats<'a>(dir: &Path, names: impl ExactSizeIterator<Item = &'a str>) -> Vec<Option<Stat>> {
    names
        .map(|name| {
            let m = fs::metadata(dir.join(name)).ok()?;
            let t = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .unwrap_or_default();
            let secs = i64::try_from(t.as_secs()).unwrap_or(i64::MAX);
            Some(Stat {
                len: m.len(),
                mtime: (secs, i64::from(t.subsec_nanos())),
                ctime: (0, 0),
                ino: 0,
            })
        })
        .collect()
}

/// The fingerprint of `names` (in `dir`) as `stats` found them.
fn digest(names: &[String], stats: &[Option<Stat>]) -> String {
    let mut h = Sha256::new();
    for (name, st) in names.iter().zip(stats) {
        h.update(name.as_bytes());
        h.update([0u8]);
        match st {
            None => h.update([0u8]),
            Some(s) => {
                h.update([1u8]);
                for n in [s.mtime.0, s.mtime.1, s.ctime.0, s.ctime.1] {
                    h.update(n.to_le_bytes());
                }
                h.update(s.len.to_le_bytes());
                h.update(s.ino.to_le_bytes());
            }
        }
    }
    let mut hex = hex_of(&h.finalize());
    hex.truncate(16);
    hex
}

/// The fingerprint of a row's watched files now; empty when they are
/// not (or may not be) what its reading read, taken at `at`.
fn fingerprint(dir: &Path, watch: &[(String, Option<FileStamp>)], at: DateTime<Utc>) -> String {
    let racy = at.checked_sub_signed(RACY).unwrap_or(at);
    let found = stats(dir, watch.iter().map(|(n, _)| n.as_str()));
    for ((name, stamp), &st) in watch.iter().zip(&found) {
        if let Some(stamp) = stamp {
            match st {
                Some(s) if s.len == stamp.len => {}
                // Read, and now of another length, or gone.
                _ => return String::new(),
            }
        }
        let recent = st.and_then(|s| s.modified()).is_some_and(|m| m >= racy);
        if recent && !name.ends_with('/') {
            let same = stamp.as_ref().is_some_and(|stamp| {
                super::read_in(dir, name, STATE_FILE_LIMIT)
                    .is_ok_and(|b| b.len() as u64 == stamp.len && sha256_hex(&b) == stamp.sha256)
            });
            if !same {
                return String::new();
            }
        }
    }
    let names: Vec<String> = watch.iter().map(|(n, _)| n.clone()).collect();
    digest(&names, &found)
}

/// A row not yet fingerprinted.
#[derive(Debug, Clone)]
struct Pending {
    row: Kept,
    dir: PathBuf,
    watch: Vec<(String, Option<FileStamp>)>,
}

/// What a front end holds, taken for a snapshot ([`take`]): cheap to take
/// on its own thread, written by [`save`] on another.
#[derive(Debug, Clone)]
pub struct Taken {
    roots: Roots,
    at: DateTime<Utc>,
    rows: Vec<Pending>,
}

impl Taken {
    /// How many projects it holds.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// It holds no project.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// Take the slim projection of `projects` (this machine's, read under
/// `roots`; another host's are left out), at `at`.
pub fn take(roots: &[PathBuf], projects: &[Project], at: DateTime<Utc>) -> Taken {
    let roots = Roots::of(roots);
    let rows = projects
        .iter()
        .filter(|p| p.host.is_none())
        .filter_map(|p| pending(&roots, p))
        .collect();
    Taken { roots, at, rows }
}

fn pending(roots: &Roots, p: &Project) -> Option<Pending> {
    let root = roots.spelled.iter().position(|r| {
        if p.id == "." {
            p.path == *r
        } else {
            stays_inside(&p.id) && r.join(&p.id) == p.path
        }
    })?;
    let agents = p.detail.agents.iter().filter_map(KeptAgent::of).collect();
    let watch = watched(p);
    let own = own_files(p.format);
    Some(Pending {
        row: Kept {
            root,
            id: p.id.clone(),
            name: p.name.clone(),
            format: p.format,
            updated_at: p.updated_at,
            status: p.status.clone(),
            status_kind: p.status_kind,
            stage: p.stage.clone(),
            progress: p.progress_percent,
            inbox: p.inbox.clone(),
            answered: p.answered.clone(),
            problems: p.problems.clone(),
            findings: p.findings.len(),
            activity: p.activity,
            agents,
            watch: watch
                .iter()
                .map(|(n, _)| n.clone())
                .filter(|n| !own.contains(n))
                .collect(),
            fp: String::new(),
        },
        dir: p.path.clone(),
        watch,
    })
}

/// Write `taken` as the snapshot of its roots in the state directory
/// `dir` (made 0700 if missing), atomically, 0600: the bytes written.
pub fn save(dir: &Path, taken: Taken) -> Result<usize, SnapshotError> {
    let file = dir.join(format!("{PREFIX}{}.json", taken.roots.key()));
    let shown = file.display().to_string();
    let failed = |why: String| SnapshotError::Write {
        file: shown.clone(),
        why,
    };
    let at = taken.at;
    let rows: Vec<Kept> = taken
        .rows
        .into_iter()
        .map(|p| Kept {
            fp: fingerprint(&p.dir, &p.watch, at),
            ..p.row
        })
        .collect();
    let json =
        wire::in_wire_compact(|| serde_json::to_vec(&rows)).map_err(|e| failed(e.to_string()))?;
    let payload = miniz_oxide::deflate::compress_to_vec(&json, DEFLATE_LEVEL);
    let header = Header {
        snapshot: VERSION,
        model_schema: wire::MODEL_SCHEMA,
        loopdeck: LOOPDECK_VERSION.to_owned(),
        written_at: at,
        roots: taken.roots.text(),
        projects: rows.len(),
        payload_len: payload.len() as u64,
        payload_sha256: sha256_hex(&payload),
    };
    let mut bytes = serde_json::to_vec(&header).map_err(|e| failed(e.to_string()))?;
    bytes.push(b'\n');
    bytes.extend_from_slice(&payload);
    audit::make_state_dir(dir).map_err(|e| failed(e.to_string()))?;
    audit::trust_file(&file).map_err(|e| failed(e.to_string()))?;
    super::seen::write_private(&file, &bytes).map_err(|e| failed(e.to_string()))?;
    Ok(bytes.len())
}

/// The snapshot read back: when it was taken, and its projects.
#[derive(Debug)]
pub struct Cached {
    /// When the projects were taken from the front end that wrote it.
    pub written_at: DateTime<Utc>,
    /// Its projects, newest update first, their paths spelled as the
    /// roots were given to [`load`].
    pub entries: Vec<Entry>,
}

impl Cached {
    /// The projects alone.
    pub fn into_projects(self) -> Vec<Project> {
        self.entries.into_iter().map(|e| e.project).collect()
    }
}

/// One project of a snapshot.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The project as kept: what a list row, the inbox and the header
    /// show; no detail beyond the agents claiming work, no findings, no
    /// file stamps (nothing may be decided from it).
    pub project: Project,
    /// How many findings its reading had.
    pub findings: usize,
    watch: Vec<String>,
    fp: String,
}

impl Entry {
    /// Have the project's main files changed since the snapshot (or was
    /// it already behind them when written)? Stats them now.
    pub fn changed_since(&self) -> bool {
        if self.fp.is_empty() {
            return true;
        }
        let found = stats(&self.project.path, self.watch.iter().map(String::as_str));
        digest(&self.watch, &found) != self.fp
    }
}

/// [`Entry::changed_since`] of every entry, in order, on a few threads
/// (a stat costs a path's walk: 10,000 projects make tens of thousands).
pub fn changed_since(entries: &[Entry]) -> Vec<bool> {
    let threads = thread::available_parallelism().map_or(2, |n| n.get().clamp(1, 8));
    let chunk = entries.len().div_ceil(threads).max(256);
    thread::scope(|s| {
        let parts: Vec<_> = entries
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(Entry::changed_since).collect::<Vec<_>>()))
            .collect();
        parts
            .into_iter()
            .zip(entries.chunks(chunk))
            .flat_map(|(h, part)| {
                // A thread that panicked: its entries are changed since
                // (never shown as current on a doubt).
                h.join().unwrap_or_else(|_| vec![true; part.len()])
            })
            .collect()
    })
}

/// The snapshot of `roots` in the state directory `dir`, if there is one
/// this build wrote for exactly these roots and it is whole (see the
/// module's doc); else why not.
pub fn load(dir: &Path, roots: &[PathBuf]) -> Result<Cached, SnapshotError> {
    let roots = Roots::of(roots);
    let file = dir.join(format!("{PREFIX}{}.json", roots.key()));
    let shown = file.display().to_string();
    let corrupt = |why: String| SnapshotError::Corrupt {
        file: shown.clone(),
        why,
    };
    match audit::trusted_dir(dir) {
        Ok(true) => {}
        Ok(false) => return Err(SnapshotError::Missing { file: shown }),
        Err(e) => return Err(SnapshotError::Unreadable(e.to_string())),
    }
    let bytes = match audit::read_trusted(&file, LIMIT) {
        Ok(Some(b)) => b,
        Ok(None) | Err(ReadError::Store(StoreError::Vanished)) => {
            return Err(SnapshotError::Missing { file: shown });
        }
        Err(e) => {
            return Err(SnapshotError::Unreadable(format!(
                "{shown} could not be read: {e}"
            )));
        }
    };
    let Some(nl) = bytes.iter().position(|&b| b == b'\n') else {
        return Err(corrupt("no header line".to_owned()));
    };
    let (head, payload) = (&bytes[..nl], &bytes[nl + 1..]);
    let header: Header =
        serde_json::from_slice(head).map_err(|e| corrupt(format!("header: {e}")))?;
    let version = |what: String| SnapshotError::Version {
        file: shown.clone(),
        what,
    };
    if header.snapshot != VERSION {
        return Err(version(format!("snapshot version {}", header.snapshot)));
    }
    if header.model_schema != wire::MODEL_SCHEMA {
        return Err(version(format!("model schema {}", header.model_schema)));
    }
    if header.loopdeck != LOOPDECK_VERSION {
        return Err(version(format!("loopdeck {}", header.loopdeck)));
    }
    if header.roots != roots.text() {
        return Err(SnapshotError::OtherRoots { file: shown });
    }
    if payload.len() as u64 != header.payload_len {
        return Err(SnapshotError::Truncated {
            file: shown,
            got: payload.len() as u64,
            want: header.payload_len,
        });
    }
    if sha256_hex(payload) != header.payload_sha256 {
        return Err(SnapshotError::Checksum { file: shown });
    }
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(payload, LIMIT as usize)
        .map_err(|e| corrupt(format!("payload: {e}")))?;
    let rows: Vec<Kept> = wire::in_wire_compact(|| serde_json::from_slice(&json))
        .map_err(|e| corrupt(format!("payload: {e}")))?;
    if rows.len() != header.projects {
        return Err(corrupt(format!(
            "{} projects where the header says {}",
            rows.len(),
            header.projects
        )));
    }
    let mut entries = Vec::with_capacity(rows.len());
    for k in rows {
        let Some(root) = roots.spelled.get(k.root) else {
            return Err(corrupt(format!("root {} of {}", k.root, roots.spelled.len())));
        };
        if !stays_inside(&k.id) || !k.watch.iter().all(|n| stays_inside(n) && n != ".") {
            return Err(corrupt(format!("a path that leaves its root ({:?})", k.id)));
        }
        let path = if k.id == "." {
            root.clone()
        } else {
            root.join(&k.id)
        };
        entries.push(entry(k, path));
    }
    entries.sort_by(|a, b| {
        b.project
            .updated_at
            .cmp(&a.project.updated_at)
            .then_with(|| a.project.id.cmp(&b.project.id))
            .then_with(|| a.project.format.cmp(&b.project.format))
    });
    Ok(Cached {
        written_at: header.written_at,
        entries,
    })
}

fn entry(k: Kept, path: PathBuf) -> Entry {
    let mut p = Project::new(k.format, path, k.name);
    p.id = k.id;
    p.updated_at = k.updated_at;
    p.status = k.status;
    p.status_kind = k.status_kind;
    p.stage = k.stage;
    p.progress_percent = k.progress;
    p.inbox = k.inbox;
    p.answered = k.answered;
    p.problems = k.problems;
    p.activity = k.activity;
    p.detail.agents = k.agents.into_iter().map(KeptAgent::agent).collect();
    // The same names, in the same order, as when the fingerprint was made.
    let mut watch = own_files(k.format);
    watch.extend(k.watch);
    Entry {
        project: p,
        findings: k.findings,
        watch: watch.into_iter().collect(),
        fp: k.fp,
    }
}

/// Keeps a front end's snapshot written: at most once per [`MIN_GAP`]
/// after a reading changed what it holds, on a thread of its own (the
/// caller only takes the slim projection), and once more when it closes
/// if something changed since. Best effort: a snapshot that cannot be
/// written is not retried until the next reading.
pub struct Writer {
    dir: Option<PathBuf>,
    roots: Vec<PathBuf>,
    /// A reading changed the projects since the last snapshot taken.
    pending: bool,
    /// A full reading has been taken in (before it, what the front end
    /// holds is not every project).
    full: bool,
    last: Option<Instant>,
    gap: Duration,
    tx: Option<Sender<Taken>>,
    worker: Option<JoinHandle<()>>,
    /// The last write's outcome, shared with the worker.
    outcome: std::sync::Arc<std::sync::Mutex<Option<Result<usize, String>>>>,
}

impl Writer {
    /// A writer of the snapshot of `roots` into the state directory
    /// `dir`; none (read-only, no state directory): it writes nothing.
    pub fn new(dir: Option<PathBuf>, roots: Vec<PathBuf>) -> Self {
        Writer {
            dir,
            roots,
            pending: false,
            full: false,
            last: None,
            gap: MIN_GAP,
            tx: None,
            worker: None,
            outcome: Default::default(),
        }
    }

    /// The same, writing at most once per `gap` (tests).
    pub fn with_gap(mut self, gap: Duration) -> Self {
        self.gap = gap;
        self
    }

    /// A reading changed the projects; `full`: a reading of every one.
    pub fn read(&mut self, full: bool) {
        self.pending = true;
        self.full |= full;
    }

    /// Is a snapshot due at `now`: something changed since the last one,
    /// a full reading has been taken in, and the last was written at
    /// least the gap ago?
    pub fn due(&self, now: Instant) -> bool {
        self.dir.is_some()
            && self.pending
            && self.full
            && self
                .last
                .is_none_or(|at| now.saturating_duration_since(at) >= self.gap)
    }

    /// Take `projects` now and have them written on the writer's thread.
    pub fn write(&mut self, projects: &[Project], now: Instant) {
        let Some(dir) = self.dir.clone() else {
            return;
        };
        self.pending = false;
        self.last = Some(now);
        let taken = take(&self.roots, projects, Utc::now());
        if self.tx.is_none() {
            let (tx, rx) = mpsc::channel::<Taken>();
            let outcome = self.outcome.clone();
            let spawned = thread::Builder::new()
                .name(crate::guard::WORKER.to_owned())
                .spawn(move || work(&dir, &rx, &outcome));
            match spawned {
                Ok(handle) => {
                    self.tx = Some(tx);
                    self.worker = Some(handle);
                }
                Err(e) => {
                    self.set_outcome(Err(e.to_string()));
                    return;
                }
            }
        }
        if let Some(tx) = &self.tx {
            let _ = tx.send(taken);
        }
    }

    fn set_outcome(&self, o: Result<usize, String>) {
        if let Ok(mut g) = self.outcome.lock() {
            *g = Some(o);
        }
    }

    /// The last write's outcome (the bytes written, or why not), once
    /// one ended.
    pub fn outcome(&self) -> Option<Result<usize, String>> {
        self.outcome.lock().ok().and_then(|g| g.clone())
    }

    /// The front end closes: write `projects` if something changed since
    /// the last snapshot (after a full reading), and wait for the writes
    /// under way to end. The last outcome.
    pub fn finish(mut self, projects: &[Project]) -> Option<Result<usize, String>> {
        if self.dir.is_some() && self.pending && self.full {
            self.write(projects, Instant::now());
        }
        drop(self.tx.take());
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
        self.outcome()
    }
}

/// The writer's thread: each snapshot sent, the latest of those waiting.
fn work(
    dir: &Path,
    rx: &Receiver<Taken>,
    outcome: &std::sync::Mutex<Option<Result<usize, String>>>,
) {
    while let Ok(mut taken) = rx.recv() {
        while let Ok(later) = rx.try_recv() {
            taken = later;
        }
        let result = crate::guard::guarded("writing the snapshot", || save(dir, taken))
            .and_then(|r| r.map_err(|e| e.to_string()));
        if let Ok(mut g) = outcome.lock() {
            *g = Some(result);
        }
    }
}

#[cfg(test)]
mod tests;
