//! The locks a decision takes, each format's own, behind one guard type
//! that releases on drop.
//!
//! - `MkdirDir` (DWP's protected updater): `mkdir <primary>.lock`. An
//!   existing lock stops the write at once; only a human removes it
//!   (`act PLAN unlock --confirm`, through [`remove_dir_lock`]).
//! - `PidFile` (GSD's gsd-tools, `acquireStateLock` in `bin/lib/state`):
//!   `<primary>.lock` created with `O_CREAT|O_EXCL`, holding the pid (no
//!   newline). As gsd-tools judges it: a complete body naming a dead pid is
//!   stale at once; a live pid is never taken within the wait, only past
//!   gsd-tools' 60 s "deadman ceiling" (the pid-reuse backstop); an empty
//!   or unparseable body is a lock being created for its first second,
//!   stale after. A stale lock is renamed aside (one breaker wins) and
//!   removed, then the create is retried.
//! - A lock whose body cannot be parsed (either kind) is "being created"
//!   only while its mtime is within a second of now: a writer creating
//!   it wrote that mtime a moment ago. One older than that, or more than
//!   [`CLOCK_SKEW`] in the future (a clock set back, a file copied in,
//!   `touch -d`), is no lock being created: it is stale and broken.
//! - `Owner` (loopdeck's own, PRD-master and devloop):
//!   `<primary>.loopdeck-lock`, a JSON record `{pid, host, boot_id,
//!   started, at, pid_ns}` published whole (written to a temp file, then
//!   hard-linked into place, so no reader ever sees it half written).
//!   Stale, on this host, when the boot id differs, or the pid is gone (or
//!   a zombie), or the pid now belongs to a process started at another
//!   time (field 22 of `/proc/PID/stat`). A lock from another host is
//!   never judged stale, unless it names this boot id and this pid
//!   namespace (a container restarted under a new host name): then the
//!   pid decides. A lock naming another pid namespace is never judged by
//!   its pid. Broken by renaming it away, then retried.
//!
//! A live holder is waited for up to the transaction's wait, then the
//! write stops with [`ActError::Locked`] (exit 3) naming the holder.
//!
//! Hand-written on purpose: `MkdirDir` and `PidFile` are other tools'
//! protocols, which those tools take, read and break themselves, so the
//! lock's name, its body byte for byte and the staleness rules must be
//! theirs. Lock crates (`fs2`, `fd-lock`, `file-guard`) take `flock`/`fcntl`
//! locks that gsd-tools and DWP's updater neither take nor see, and none
//! judges a lock left by a dead process the way each tool does.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use super::atomic::{random_u64, sync_dir, temp_name};
use super::process::{boot_id, host_name, pid_alive, pid_namespace, start_ticks};
use super::txn::{ActError, LockKind};
use super::{StoreError, contained};

/// The DWP updater's message for an existing lock directory.
pub(crate) const DIR_LOCKED: &str =
    "state is locked; inspect interrupted writer before recovering lock";
/// gsd-tools' deadman ceiling: a live-looking holder older than this is
/// taken to be a reused pid.
pub(crate) const PID_LOCK_DEADMAN: Duration = Duration::from_secs(60);
/// A lock whose body cannot be read yet is being created for this long.
pub(crate) const FRESH_CREATE_FLOOR: Duration = Duration::from_secs(1);
/// How far in the future a lock's mtime may be and still be "now" (a
/// network file system's clock a little ahead of ours).
pub(crate) const CLOCK_SKEW: Duration = Duration::from_secs(2);

/// A lock held by this process, released on drop.
#[derive(Debug)]
pub(crate) struct LockGuard {
    path: PathBuf,
    kind: LockKind,
    /// (device, inode) of the lock file we created: release removes only it.
    id: Option<(u64, u64)>,
}

impl LockGuard {
    #[cfg(test)]
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        match self.kind {
            LockKind::MkdirDir => {
                let _ = fs::remove_dir(&self.path);
            }
            LockKind::PidFile | LockKind::Owner => {
                if file_id(&self.path) == self.id {
                    let _ = fs::remove_file(&self.path);
                }
            }
        }
        if let Some(dir) = self.path.parent() {
            sync_dir(dir);
        }
    }
}

/// The lock file (or directory) of `primary` for `kind`, relative to the
/// project.
pub(crate) fn lock_name(primary: &str, kind: LockKind) -> String {
    match kind {
        LockKind::MkdirDir | LockKind::PidFile => format!("{primary}.lock"),
        LockKind::Owner => format!("{primary}.loopdeck-lock"),
    }
}

/// Take the lock of `primary` in `project`, waiting up to `wait` for a
/// live holder (`MkdirDir`: never waits).
pub(crate) fn acquire(
    project: &Path,
    primary: &str,
    kind: LockKind,
    wait: Duration,
) -> Result<LockGuard, ActError> {
    acquire_as(project, primary, primary, kind, wait)
}

/// [`acquire`], with messages naming the primary as `shown` (the
/// project-relative path, when `project` is a directory held open and
/// named through its descriptor: see `store::beneath`).
pub(crate) fn acquire_as(
    project: &Path,
    primary: &str,
    shown: &str,
    kind: LockKind,
    wait: Duration,
) -> Result<LockGuard, ActError> {
    let name = lock_name(shown, kind);
    let store = |source| ActError::Store {
        file: name.clone(),
        source,
    };
    let path = contained(project, &lock_name(primary, kind)).map_err(store)?;
    // A writer killed while taking or breaking the lock leaves its temp
    // files beside it; every writer sweeps them here, before it takes the
    // lock, even one whose decision is then refused (and writes nothing).
    if let Some(dir) = path.parent() {
        super::sweep::sweep(dir);
    }
    if kind == LockKind::MkdirDir {
        return match fs::create_dir(&path) {
            Ok(()) => Ok(LockGuard {
                path,
                kind,
                id: None,
            }),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                Err(ActError::Locked(DIR_LOCKED.to_owned()))
            }
            Err(e) => Err(store(e.into())),
        };
    }
    let body = match kind {
        LockKind::Owner => OwnerRecord::mine().to_bytes(),
        _ => std::process::id().to_string().into_bytes(),
    };
    let deadline = Instant::now() + wait;
    let mut round = 0u32;
    let mut quick = 0u32;
    let waited = || format!("waited {:.1} s for it", wait.as_secs_f64());
    loop {
        let created = match kind {
            LockKind::Owner => publish(&path, &body),
            _ => create_with(&path, &body),
        };
        match created {
            Ok(id) => {
                // No breaker can be at work while the lock is held: a turn
                // left now is a killed breaker's.
                clear_dead_turn(&turn_of(&path));
                return Ok(LockGuard {
                    path,
                    kind,
                    id: Some(id),
                });
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(store(e.into())),
        }
        let verdict = match kind {
            LockKind::Owner => judge_owner(&path),
            _ => judge_pid_file(&path),
        };
        match verdict {
            Verdict::Gone => {
                if out_of_quick_rounds(&mut quick, deadline) {
                    return Err(ActError::Locked(format!(
                        "{name} keeps coming back as soon as it is gone; {} (retry later)",
                        waited()
                    )));
                }
            }
            Verdict::Stale(seen, why) => {
                match break_lock(&path, &seen) {
                    Break::Done => {}
                    // Another breaker is at it: let it finish.
                    Break::Busy => {
                        std::thread::sleep(Duration::from_millis(1 + random_u64() % 5));
                    }
                    // Nothing will change by waiting: say so at once.
                    Break::Blocked(what) => {
                        let turn = turn_of(&path);
                        let turn = turn.file_name().unwrap_or_default().to_string_lossy();
                        return Err(ActError::Locked(format!(
                            "{name} is stale ({why}) but cannot be broken: {} {what}",
                            Path::new(&name).with_file_name(&*turn).display()
                        )));
                    }
                }
                if out_of_quick_rounds(&mut quick, deadline) {
                    return Err(ActError::Locked(format!(
                        "{name} is stale ({why}) but could not be broken; {} (inspect {name} and {name}.break, and remove them if their writer is gone)",
                        waited()
                    )));
                }
            }
            Verdict::Live(holder) | Verdict::Foreign(holder) => {
                let now = Instant::now();
                if now >= deadline {
                    return Err(ActError::Locked(if holder.starts_with(NOT_A_LOCK) {
                        format!("{name} {holder}; {}", waited())
                    } else {
                        format!(
                            "{name} is held by {holder}; {} (retry later, or remove the lock if that writer is gone)",
                            waited()
                        )
                    }));
                }
                let step = Duration::from_millis((2u64 << round.min(5)) + random_u64() % 10);
                round += 1;
                std::thread::sleep(step.min(deadline - now));
            }
        }
    }
}

/// The start of what a lock path that is no lock file is said to be.
const NOT_A_LOCK: &str = "is not a lock file loopdeck or GSD writes";

/// A lock that vanished, or was stale and broken, is retried at once a
/// few times; past that every retry sleeps a little and the deadline
/// holds (`true`: the deadline has passed), so nothing spins forever.
fn out_of_quick_rounds(quick: &mut u32, deadline: Instant) -> bool {
    *quick += 1;
    if *quick <= 16 {
        return false;
    }
    if Instant::now() >= deadline {
        return true;
    }
    std::thread::sleep(Duration::from_millis(1 + random_u64() % 5));
    false
}

/// How long the DWP lock directory of `primary` has existed (`None`: no
/// lock).
pub(crate) fn dir_lock_age(project: &Path, primary: &str) -> Option<Duration> {
    let path = contained(project, &lock_name(primary, LockKind::MkdirDir)).ok()?;
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.is_dir() {
        return None;
    }
    let made = meta.modified().ok()?;
    Some(SystemTime::now().duration_since(made).unwrap_or_default())
}

/// Remove the DWP lock directory of `primary` (the human's recovery, after
/// inspecting the interrupted writer). A lock that is not a directory (a
/// link, a file) is refused, never followed.
pub(crate) fn remove_dir_lock(project: &Path, primary: &str) -> Result<(), StoreError> {
    let path = contained(project, &lock_name(primary, LockKind::MkdirDir))?;
    let meta = fs::symlink_metadata(&path)?;
    if !meta.is_dir() {
        return Err(StoreError::NotRegular);
    }
    fs::remove_dir_all(&path)?;
    if let Some(dir) = path.parent() {
        sync_dir(dir);
    }
    Ok(())
}

/// What a lock found on disk is.
enum Verdict {
    /// It was not found when looked at: retry at once.
    Gone,
    /// Its writer is gone: break it (as it was seen); why it is judged
    /// stale.
    Stale(Seen, String),
    /// Held; the text names the holder.
    Live(String),
    /// Something that is no lock file (a directory, a link, a FIFO, an
    /// unreadable file) is in its place: held until a human looks.
    Foreign(String),
}

/// The (device, inode) of `path`, not following a link.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    fs::symlink_metadata(path).ok().map(|m| meta_id(&m))
}

fn meta_id(m: &fs::Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    }
    #[cfg(not(unix))]
    {
        (0, m.len())
    }
}

/// Create `path` exclusively holding `body` (GSD's way: the body is
/// written after the create). No fsync: a lock never outlives a reboot
/// (the boot id, or the pid, says it is stale).
fn create_with(path: &Path, body: &[u8]) -> io::Result<(u64, u64)> {
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    let written = f.write_all(body);
    if let Err(e) = written {
        let _ = fs::remove_file(path);
        return Err(e);
    }
    file_id(path).ok_or_else(|| io::Error::other("lock vanished"))
}

/// Publish `body` at `path` whole: a temp file hard-linked into place
/// (`AlreadyExists` when held). A file system without hard links falls
/// back to an exclusive create.
fn publish(path: &Path, body: &[u8]) -> io::Result<(u64, u64)> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(temp_name(path));
    let linked = create_with(&tmp, body).and_then(|_| fs::hard_link(&tmp, path));
    let _ = fs::remove_file(&tmp);
    match linked {
        Ok(()) => file_id(path).ok_or_else(|| io::Error::other("lock vanished")),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(e),
        Err(_) => create_with(path, body),
    }
}

/// What a look at a lock path found.
enum Look {
    /// Nothing there (only "not found" is gone).
    Gone,
    /// Something that cannot be read as a plain lock file: what it is.
    Foreign(String),
    /// A lock file: its body, age and identity.
    Lock(Vec<u8>, Age, Seen),
}

/// How long ago a lock file was last modified, by its mtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Age {
    /// This long ago (zero: now, or no mtime).
    Past(Duration),
    /// This far in the future: a clock was wrong, or the mtime was set.
    Future(Duration),
}

impl Age {
    /// How long ago; a future mtime counts as now.
    fn ago(self) -> Duration {
        match self {
            Age::Past(d) => d,
            Age::Future(_) => Duration::ZERO,
        }
    }

    /// Could a writer creating the lock have set this mtime a moment ago?
    fn just_made(self) -> bool {
        match self {
            Age::Past(d) => d <= FRESH_CREATE_FLOOR,
            Age::Future(d) => d <= CLOCK_SKEW,
        }
    }
}

impl std::fmt::Display for Age {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = |d: Duration| {
            let s = d.as_secs_f64();
            if s < 120.0 {
                format!("{s:.1} s")
            } else if s < 2.0 * 86_400.0 {
                format!("{:.1} h", s / 3600.0)
            } else {
                format!("{:.0} days", s / 86_400.0)
            }
        };
        match self {
            Age::Past(d) => write!(f, "modified {} ago", secs(*d)),
            Age::Future(d) => write!(f, "modified {} in the future", secs(*d)),
        }
    }
}

impl Look {
    fn lock(self) -> Option<(Vec<u8>, Age, Seen)> {
        match self {
            Look::Lock(body, age, seen) => Some((body, age, seen)),
            _ => None,
        }
    }
}

/// Read a small lock file: its body, age and identity, all from one open
/// file (never a body from one lock and an inode from the next). A path
/// that exists but is no regular file, or cannot be opened or read, is
/// [`Look::Foreign`], never gone.
fn inspect(path: &Path) -> Look {
    let foreign = |what: String| Look::Foreign(format!("{NOT_A_LOCK} ({what}); inspect it"));
    let f = match fs::OpenOptions::new()
        .read(true)
        .custom_flags_nofollow()
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Look::Gone,
        Err(e) => {
            let kind = fs::symlink_metadata(path).map(|m| m.file_type());
            return match kind {
                Err(k) if k.kind() == io::ErrorKind::NotFound => Look::Gone,
                Ok(t) if t.is_symlink() => foreign("a symbolic link".to_owned()),
                _ => foreign(format!("cannot be opened: {e}")),
            };
        }
    };
    let meta = match f.metadata() {
        Ok(m) => m,
        Err(e) => return foreign(format!("cannot be read: {e}")),
    };
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        };
        return foreign(what.to_owned());
    }
    let now = SystemTime::now();
    let age = match meta.modified() {
        Ok(m) => match now.duration_since(m) {
            Ok(d) => Age::Past(d),
            Err(e) => Age::Future(e.duration()),
        },
        Err(_) => Age::Past(Duration::ZERO),
    };
    let mut body = Vec::new();
    if let Err(e) = f.take(4096).read_to_end(&mut body) {
        return foreign(format!("cannot be read: {e}"));
    }
    let seen = Seen {
        id: meta_id(&meta),
        body: body.clone(),
    };
    Look::Lock(body, age, seen)
}

/// A lock file as it was judged: its identity and its body. A freed inode
/// is soon reused, so the body (pid, start time, when) tells two locks
/// apart where the inode cannot.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    id: (u64, u64),
    body: Vec<u8>,
}

trait NoFollow {
    fn custom_flags_nofollow(&mut self) -> &mut Self;
}

impl NoFollow for fs::OpenOptions {
    #[cfg(unix)]
    fn custom_flags_nofollow(&mut self) -> &mut Self {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        self.custom_flags(super::custom_flags(OFlags::NOFOLLOW | OFlags::NONBLOCK))
    }
    #[cfg(not(unix))]
    fn custom_flags_nofollow(&mut self) -> &mut Self {
        self
    }
}

fn judge_pid_file(path: &Path) -> Verdict {
    let (body, age, seen) = match inspect(path) {
        Look::Lock(body, age, seen) => (body, age, seen),
        Look::Gone => return Verdict::Gone,
        Look::Foreign(what) => return Verdict::Foreign(what),
    };
    let pid = std::str::from_utf8(&body)
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .filter(|&p| p > 0);
    match pid {
        Some(pid) if pid_alive(pid) => {
            if age.ago() > PID_LOCK_DEADMAN {
                Verdict::Stale(
                    seen,
                    format!(
                        "pid {pid} is alive but the lock was {age}, past gsd-tools' {} s ceiling: a reused pid",
                        PID_LOCK_DEADMAN.as_secs()
                    ),
                )
            } else {
                Verdict::Live(format!("pid {pid} (a live process; the lock was {age})"))
            }
        }
        Some(pid) => Verdict::Stale(seen, format!("pid {pid} is not running")),
        None => unparsed(&body, age, seen, "no pid"),
    }
}

/// A lock whose body cannot be parsed: a writer creating it if its mtime
/// is within a moment of now, else stale (never "being created" for
/// ever: a garbage lock with a future mtime would block every write).
fn unparsed(body: &[u8], age: Age, seen: Seen, what: &str) -> Verdict {
    let body = if body.is_empty() {
        "an empty body".to_owned()
    } else {
        format!("a body of {} bytes with {what}", body.len())
    };
    if age.just_made() {
        return Verdict::Live(format!(
            "a writer creating it ({body}, {age}: within the {} s a lock is being created)",
            FRESH_CREATE_FLOOR.as_secs()
        ));
    }
    let why = match age {
        Age::Future(_) => format!(
            "{body}, {age}: no writer is creating it, a wrong clock or a copied file left it"
        ),
        Age::Past(_) => format!(
            "{body}, {age}: a writer creating it would have finished within {} s",
            FRESH_CREATE_FLOOR.as_secs()
        ),
    };
    Verdict::Stale(seen, why)
}

fn judge_owner(path: &Path) -> Verdict {
    let (body, age, seen) = match inspect(path) {
        Look::Lock(body, age, seen) => (body, age, seen),
        Look::Gone => return Verdict::Gone,
        Look::Foreign(what) => return Verdict::Foreign(what),
    };
    let Ok(rec) = serde_json::from_slice::<OwnerRecord>(&body) else {
        return unparsed(&body, age, seen, "no lock record loopdeck reads");
    };
    let holder = format!(
        "pid {} on host {}{}",
        rec.pid,
        rec.host,
        rec.at
            .as_deref()
            .map(|a| format!(" (since {a})"))
            .unwrap_or_default()
    );
    // A container's host name changes at each start while its boot id
    // and pid namespace stay: the same boot and pid namespace is the same
    // machine, whatever the name. A lock naming another pid namespace
    // cannot be judged by pid here.
    let same_pids = match (&rec.pid_ns, pid_namespace()) {
        (Some(theirs), Some(ours)) => Some(*theirs == ours),
        _ => None,
    };
    let same_boot = matches!((&rec.boot_id, boot_id()), (Some(t), Some(o)) if *t == o);
    if rec.host != host_name() && !(same_boot && same_pids == Some(true)) {
        return Verdict::Live(holder);
    }
    if let (Some(theirs), Some(ours)) = (&rec.boot_id, boot_id())
        && *theirs != ours
    {
        return Verdict::Stale(seen, format!("{holder} was taken before this boot"));
    }
    if same_pids == Some(false) {
        return Verdict::Live(holder);
    }
    if !pid_alive(rec.pid) {
        return Verdict::Stale(seen, format!("{holder} is not running"));
    }
    if let (Some(then), Some(now)) = (rec.started, start_ticks(rec.pid))
        && then != now
    {
        return Verdict::Stale(seen, format!("{holder}: that pid is now another process"));
    }
    Verdict::Live(holder)
}

/// Break the stale lock at `path`, as it was `seen`: rename it away and
/// remove it. Breakers take turns (`<lock>.break`, published whole like
/// an owner lock), and each looks again under that turn: the lock is
/// renamed only if it is still the very one judged stale, so a live lock
/// that took its place (even on the same, reused inode) is never broken.
fn break_lock(path: &Path, seen: &Seen) -> Break {
    let turn = turn_of(path);
    let mine = std::process::id().to_string().into_bytes();
    let id = match publish(&turn, &mine) {
        Ok(id) => id,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            // Something that is no breaker's turn (a directory, a link)
            // never goes away by itself: no turn can ever be taken.
            if let Look::Foreign(what) = inspect(&turn) {
                return Break::Blocked(format!(
                    "{what}: loopdeck takes its turn to break a stale lock by creating that file, and cannot while it is there (remove it)"
                ));
            }
            clear_dead_turn(&turn);
            return Break::Busy;
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Break::Busy,
        Err(e) => {
            return Break::Blocked(format!(
                "cannot be created ({e}); loopdeck takes its turn to break a stale lock by creating that file"
            ));
        }
    };
    if inspect(path).lock().map(|t| t.2).as_ref() == Some(seen) {
        let dir = path.parent().unwrap_or(Path::new("."));
        let aside = dir.join(temp_name(path));
        if fs::rename(path, &aside).is_ok() {
            let _ = fs::remove_file(&aside);
        }
    }
    if file_id(&turn) == Some(id) {
        let _ = fs::remove_file(&turn);
    }
    Break::Done
}

/// What a try at breaking a stale lock came to.
#[derive(Debug, PartialEq, Eq)]
enum Break {
    /// This breaker had the turn (the lock is broken, or was replaced).
    Done,
    /// Another breaker has the turn: try again soon.
    Busy,
    /// No turn can be taken: what is at the turn's path, and why.
    Blocked(String),
}

/// The breakers' turn file of the lock at `path`.
fn turn_of(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".break");
    path.with_file_name(name)
}

/// A breaker killed during its turn leaves it: a dead pid's turn, or one
/// older than a few seconds (or dated in the future), is cleared.
fn clear_dead_turn(turn: &Path) {
    if let Some((body, age, other)) = inspect(turn).lock() {
        let pid = std::str::from_utf8(&body)
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok());
        let old = match age {
            Age::Past(d) => d > Duration::from_secs(5),
            Age::Future(d) => d > CLOCK_SKEW,
        };
        if (old || pid.is_some_and(|p| !pid_alive(p)))
            && inspect(turn).lock().map(|t| t.2) == Some(other)
        {
            let _ = fs::remove_file(turn);
        }
    }
}

/// loopdeck's own lock record.
#[derive(Debug, Serialize, Deserialize)]
struct OwnerRecord {
    pid: u32,
    host: String,
    #[serde(default)]
    boot_id: Option<String>,
    /// Start time of `pid`, in clock ticks since boot.
    #[serde(default)]
    started: Option<u64>,
    /// When the lock was taken (for people).
    #[serde(default)]
    at: Option<String>,
    /// The pid namespace of `pid` (`readlink /proc/self/ns/pid`); absent
    /// in older locks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pid_ns: Option<String>,
}

impl OwnerRecord {
    fn mine() -> Self {
        let pid = std::process::id();
        OwnerRecord {
            pid,
            host: host_name(),
            boot_id: boot_id(),
            started: start_ticks(pid),
            at: super::utc(SystemTime::now()).map(|t| t.to_rfc3339()),
            pid_ns: pid_namespace(),
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut b = serde_json::to_vec(self).unwrap_or_default();
        b.push(b'\n');
        b
    }
}

#[cfg(test)]
mod tests;
