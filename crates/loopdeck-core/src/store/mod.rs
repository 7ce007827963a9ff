//! The one way loopdeck touches the disk: bounded reads of project files,
//! path containment, directory walking, hashing and atomic replacement.
//! Nothing here knows any format's file names.

pub(crate) mod atomic;
pub(crate) mod audit;
pub(crate) mod beneath;
testing_pub!(
    pub mod cache;
);
testing_pub!(
    pub mod diff;
);
mod exec;
pub(crate) mod first_seen;
pub(crate) mod intent;
pub(crate) mod lock;
testing_pub!(
    pub mod ndjson;
);
pub(crate) mod process;
pub(crate) mod seen;
pub(crate) mod snapshot;
pub(crate) mod stamps;
pub(crate) mod sweep;
testing_pub!(
    pub mod txn;
);
mod walk;

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use thiserror::Error;

testing_pub!(
    pub use exec::transact;
);
pub(crate) use exec::{replay, sibling};
pub(crate) use walk::{MAX_DEPTH, WalkEntry, is_noise_dir, walk};

/// The largest state file loopdeck reads whole. Larger files are reported,
/// never loaded: a 50 MB single-line `state.json` must not stall the list.
pub(crate) const STATE_FILE_LIMIT: u64 = 16 * 1024 * 1024;

/// Why a file could not be read (or written) under the store's rules.
#[derive(Debug, Error)]
pub enum StoreError {
    /// Larger than the bound for its kind of file: never loaded.
    #[error("file is too large ({size} bytes; loopdeck reads at most {limit})")]
    TooLarge {
        /// Its size, in bytes.
        size: u64,
        /// The most loopdeck reads of it, in bytes.
        limit: u64,
    },
    /// A directory, a FIFO, a device or a socket: never opened as a file.
    #[error("not a regular file")]
    NotRegular,
    /// It was there when looked up, and gone when read.
    #[error("disappeared while being read")]
    Vanished,
    /// The system refused access.
    #[error("permission denied")]
    PermissionDenied,
    /// The path (or a link on it) leads out of the project directory.
    #[error("path leaves the project directory")]
    OutsideProject,
    /// Any other I/O error.
    #[error("{0}")]
    Io(io::Error),
}

impl From<io::Error> for StoreError {
    fn from(e: io::Error) -> Self {
        match e.kind() {
            io::ErrorKind::NotFound => StoreError::Vanished,
            io::ErrorKind::PermissionDenied => StoreError::PermissionDenied,
            _ => StoreError::Io(e),
        }
    }
}

/// Read a whole regular file of at most `limit` bytes. Symlinks are followed
/// (containment is the caller's job: see [`read_in`]); FIFOs, sockets and
/// devices are opened without blocking and refused, so a read never hangs.
pub(crate) fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, StoreError> {
    let bytes = read_open(open_nonblocking(path, false)?, limit)?;
    stamps::record(|| path.to_path_buf(), &bytes);
    Ok(bytes)
}

/// Read the file at `relative` inside `project` (at most `limit` bytes),
/// refusing a path that leaves the project, the way [`contained`] does, in
/// as few system calls as a plain read: a one-component name is opened
/// without following a link (a link, the rare case, is then checked in
/// full) and without blocking (a FIFO is refused, never waited on). Inside
/// [`stamps::collect`], the bytes read are stamped.
pub(crate) fn read_in(project: &Path, relative: &str, limit: u64) -> Result<Vec<u8>, StoreError> {
    let bytes = read_open(open_in(project, relative)?, limit)?;
    stamps::record(|| project.join(relative), &bytes);
    Ok(bytes)
}

/// Read `name` in the directory `subdir` of `project` when the caller knows
/// `subdir` is a real directory there (it saw it, not a link, with
/// `lstat`): the file is then opened relative to it, without re-checking
/// `subdir` on every read. A link in `name` is still checked, against the
/// whole project.
pub(crate) fn read_in_real_subdir(
    project: &Path,
    subdir: &str,
    name: &str,
    limit: u64,
) -> Result<Vec<u8>, StoreError> {
    match read_in(&project.join(subdir), name, limit) {
        Err(StoreError::OutsideProject) => read_in(project, &format!("{subdir}/{name}"), limit),
        other => other,
    }
}

/// Is `relative` inside `project` a real directory (not a link)?
pub(crate) fn is_real_dir(project: &Path, relative: &str) -> bool {
    fs::symlink_metadata(project.join(relative)).is_ok_and(|m| m.is_dir())
}

/// The first `n` bytes of the regular file at `relative` inside `project`,
/// whatever its size.
pub(crate) fn read_prefix_in(
    project: &Path,
    relative: &str,
    n: usize,
) -> Result<Vec<u8>, StoreError> {
    let file = open_in(project, relative)?;
    if !file.metadata()?.is_file() {
        return Err(StoreError::NotRegular);
    }
    let mut buf = Vec::with_capacity(n);
    file.take(n as u64).read_to_end(&mut buf)?;
    Ok(buf)
}

fn open_in(project: &Path, relative: &str) -> Result<File, StoreError> {
    let rel = Path::new(relative);
    let mut comps = rel.components();
    let single = matches!(
        (comps.next(), comps.next()),
        (Some(Component::Normal(_)), None)
    );
    if !single {
        // Several components: let `contained` check each of them.
        return Ok(open_nonblocking(&contained(project, relative)?, false)?);
    }
    match open_nonblocking(&project.join(rel), true) {
        Ok(file) => Ok(file),
        Err(e) if is_symlink_refusal(&e) => {
            Ok(open_nonblocking(&contained(project, relative)?, false)?)
        }
        Err(e) => Err(e.into()),
    }
}

/// rustix's open flags as `OpenOptionsExt::custom_flags` takes them (the
/// same bits, as C's `int`).
#[cfg(unix)]
pub(crate) fn custom_flags(flags: rustix::fs::OFlags) -> i32 {
    i32::from_ne_bytes(flags.bits().to_ne_bytes())
}

#[cfg(unix)]
fn open_nonblocking(path: &Path, nofollow: bool) -> io::Result<File> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt;
    let mut flags = OFlags::NONBLOCK;
    flags.set(OFlags::NOFOLLOW, nofollow);
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(custom_flags(flags))
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path, nofollow: bool) -> io::Result<File> {
    if nofollow && fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(io::Error::other("symlink"));
    }
    File::open(path)
}

#[cfg(unix)]
fn is_symlink_refusal(e: &io::Error) -> bool {
    rustix::io::Errno::from_io_error(e) == Some(rustix::io::Errno::LOOP)
}

#[cfg(not(unix))]
fn is_symlink_refusal(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Other
}

fn read_open(file: File, limit: u64) -> Result<Vec<u8>, StoreError> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(StoreError::NotRegular);
    }
    if meta.len() > limit {
        return Err(StoreError::TooLarge {
            size: meta.len(),
            limit,
        });
    }
    let mut buf = Vec::with_capacity(meta.len() as usize + 1);
    file.take(limit + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        // The file grew while being read.
        return Err(StoreError::TooLarge {
            size: buf.len() as u64,
            limit,
        });
    }
    Ok(buf)
}

/// Is `path` a regular file (after following links)?
pub(crate) fn is_file(path: &Path) -> bool {
    stat(path).map(|m| m.is_file()).unwrap_or(false)
}

/// Is `path` a directory (after following links)?
pub(crate) fn is_dir(path: &Path) -> bool {
    stat(path).map(|m| m.is_dir()).unwrap_or(false)
}

/// `fs::metadata` (links followed), answered from what this read already
/// learnt about `path` when it is not a link (see [`with_dir_cache`]).
fn stat(path: &Path) -> io::Result<fs::Metadata> {
    match dir_cache::known(path) {
        Some(m) => Ok(m),
        None => fs::metadata(path),
    }
}

/// The modification time of `path`, if it can be read and is a time
/// chrono can hold (tmpfs accepts mtimes up to year 262143 and beyond).
pub(crate) fn mtime(path: &Path) -> Option<DateTime<Utc>> {
    utc(stat(path).ok()?.modified().ok()?)
}

/// A system time as a UTC time; `None` beyond chrono's range (chrono's own
/// `From<SystemTime>` panics there).
pub(crate) fn utc(t: SystemTime) -> Option<DateTime<Utc>> {
    match t.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(d) => DateTime::from_timestamp(i64::try_from(d.as_secs()).ok()?, d.subsec_nanos()),
        Err(e) => {
            // Before 1970: whole seconds back, then the nanoseconds forward.
            let d = e.duration();
            let nanos = d.subsec_nanos();
            let secs = i64::try_from(d.as_secs()).ok()?;
            if nanos == 0 {
                DateTime::from_timestamp(secs.checked_neg()?, 0)
            } else {
                DateTime::from_timestamp(secs.checked_neg()?.checked_sub(1)?, 1_000_000_000 - nanos)
            }
        }
    }
}

testing_pub!(
    /// Names of the entries of a directory (empty when it cannot be read).
    pub fn list_names(dir: &Path) -> Vec<String> {
        list_dir(dir).unwrap_or_default()
    }
);

/// Names of the entries of a directory, sorted; an error when it cannot be
/// listed.
pub(crate) fn list_dir(dir: &Path) -> io::Result<Vec<String>> {
    let mut names = Vec::new();
    for e in fs::read_dir(dir)? {
        if let Ok(name) = e?.file_name().into_string() {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// Resolve `relative` (a path taken from a project file) inside `project`.
///
/// Absolute paths, `..` that climbs out, and symlinks whose target lies
/// outside the project are refused. A path that does not exist yet is
/// accepted when its lexical form stays inside.
pub fn contained(project: &Path, relative: &str) -> Result<PathBuf, StoreError> {
    resolve(project, relative).map(|(path, _)| path)
}

/// Like [`contained`], but only a path to an existing regular file (links
/// followed, inside the project) is returned.
pub(crate) fn contained_file(project: &Path, relative: &str) -> Option<PathBuf> {
    match resolve(project, relative) {
        Ok((path, Some(meta))) if meta.is_file() => Some(path),
        _ => None,
    }
}

/// Like [`contained`], telling also whether the path exists: `Ok(None)` for
/// a path inside the project that does not exist.
pub(crate) fn locate(project: &Path, relative: &str) -> Result<Option<PathBuf>, StoreError> {
    resolve(project, relative).map(|(path, meta)| meta.map(|_| path))
}

/// Like `locate`, answering whether the path is a file: `Ok(None)`
/// missing, `Ok(Some(true))` a file, `Ok(Some(false))` something else.
pub fn locate_file(project: &Path, relative: &str) -> Result<Option<bool>, StoreError> {
    resolve(project, relative).map(|(_, meta)| meta.map(|m| m.is_file()))
}

/// The checks behind [`contained`]. Only the components of `relative` are
/// examined (one `lstat` each); the full resolution runs only when one of
/// them is a symlink. Also returns the metadata of the target, when it
/// exists (links followed).
fn resolve(project: &Path, relative: &str) -> Result<(PathBuf, Option<fs::Metadata>), StoreError> {
    let rel = Path::new(relative);
    let mut depth: i64 = 0;
    for comp in rel.components() {
        match comp {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return Err(StoreError::OutsideProject);
                }
            }
            Component::RootDir | Component::Prefix(_) => return Err(StoreError::OutsideProject),
        }
    }
    let joined = project.join(rel);
    let mut cur = project.to_path_buf();
    let mut last = None;
    for comp in rel.components() {
        match comp {
            Component::Normal(c) => cur.push(c),
            Component::ParentDir => {
                cur.pop();
                last = None;
                continue;
            }
            _ => continue,
        }
        match dir_cache::lstat(&cur) {
            Ok(m) if m.file_type().is_symlink() => {
                let base = fs::canonicalize(project)?;
                let real = match fs::canonicalize(&joined) {
                    Ok(real) => real,
                    // A dangling link: judge where it points, lexically.
                    Err(_) => dangling_target(&cur).ok_or(StoreError::OutsideProject)?,
                };
                return if real.starts_with(&base) {
                    Ok((joined.clone(), fs::metadata(&joined).ok()))
                } else {
                    Err(StoreError::OutsideProject)
                };
            }
            Ok(m) => last = Some(m),
            Err(_) => return Ok((joined, None)),
        }
    }
    if last.is_none() {
        last = fs::metadata(&joined).ok();
    }
    Ok((joined, last))
}

/// What [`resolve`] has learnt with `lstat` (entries that are not links)
/// while one project is being read, so that the many files of one project
/// below the same directories (`units/x/runs/…/result.json`) cost one
/// `lstat` per path, not one per component per file. Only inside
/// [`with_dir_cache`] (on this thread), and forgotten when it ends: a later
/// read checks again.
mod dir_cache {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::ffi::OsString;
    use std::fs::{self, Metadata};
    use std::hash::{BuildHasherDefault, Hasher};
    use std::io;
    use std::path::Path;

    /// FNV-1a over the path's bytes: the keys are a few dozen paths of one
    /// project, hashed far more cheaply than by SipHash over `Path`'s
    /// components (the cache exists to save time).
    #[derive(Default)]
    struct Fnv(u64);

    impl Hasher for Fnv {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            let mut h = if self.0 == 0 {
                0xcbf2_9ce4_8422_2325
            } else {
                self.0
            };
            for b in bytes {
                h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
            }
            self.0 = h;
        }
    }

    type Seen = HashMap<OsString, Metadata, BuildHasherDefault<Fnv>>;

    thread_local! {
        static SEEN: RefCell<Option<Seen>> = const { RefCell::new(None) };
    }

    /// `fs::symlink_metadata(path)`, remembered for entries that are not
    /// links while a cache is active.
    pub(super) fn lstat(path: &Path) -> io::Result<Metadata> {
        if let Some(m) = known(path) {
            return Ok(m);
        }
        let key = path.as_os_str();
        let m = fs::symlink_metadata(path)?;
        if !m.file_type().is_symlink() {
            SEEN.with(|s| {
                if let Some(c) = s.borrow_mut().as_mut() {
                    c.insert(key.to_owned(), m.clone());
                }
            });
        }
        Ok(m)
    }

    /// What is known of `path`, a file or directory that is not a link.
    pub(super) fn known(path: &Path) -> Option<Metadata> {
        SEEN.with(|s| {
            s.borrow()
                .as_ref()
                .and_then(|c| c.get(path.as_os_str()).cloned())
        })
    }

    #[cfg(test)]
    pub(super) fn knows(path: &Path) -> bool {
        SEEN.with(|s| {
            s.borrow()
                .as_ref()
                .is_some_and(|c| c.contains_key(path.as_os_str()))
        })
    }

    pub(super) fn with<T>(work: impl FnOnce() -> T) -> T {
        struct Reset(Option<Seen>);
        impl Drop for Reset {
            fn drop(&mut self) {
                let previous = self.0.take();
                SEEN.with(|s| *s.borrow_mut() = previous);
            }
        }
        let _reset = Reset(SEEN.with(|s| s.borrow_mut().replace(Seen::default())));
        work()
    }
}

/// Run `work` (the reading of one project) remembering which directories
/// inside it were seen to be real, so path containment checks each
/// directory once. The memory ends with `work`, panic or not.
pub(crate) fn with_dir_cache<T>(work: impl FnOnce() -> T) -> T {
    dir_cache::with(work)
}

/// Where the dangling link `link` points, resolved against its (existing)
/// parent directory, with `.` and `..` folded lexically.
fn dangling_target(link: &Path) -> Option<PathBuf> {
    let target = fs::read_link(link).ok()?;
    let parent = fs::canonicalize(link.parent()?).ok()?;
    let mut out = PathBuf::new();
    for comp in parent.join(target).components() {
        match comp {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

testing_pub!(
    /// Lowercase hex sha256 of `bytes`.
    pub fn sha256_hex(bytes: &[u8]) -> String {
        hex_of(&Sha256::digest(bytes))
    }
);

/// The sha256 (lowercase hex) and length of what `f` reads from where it
/// stands, followed by `extra`, in 64 KiB chunks: nothing the size of the
/// file is held.
pub(crate) fn sha256_stream(f: &mut impl Read, extra: &[u8]) -> io::Result<(String, u64)> {
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
    Ok((hex_of(&h.finalize()), len))
}

fn hex_of(digest: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(digest.len() * 2);
    for b in digest {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    out
}

/// Create the directory `name` (one component) inside `parent`, failing
/// if anything exists there already (a new project's directory, seed 000
/// Step 3b). Returns its path.
pub(crate) fn create_dir_in(parent: &Path, name: &str) -> Result<PathBuf, StoreError> {
    let path = contained(parent, name)?;
    fs::create_dir(&path)?;
    if let Ok(d) = File::open(parent) {
        let _ = d.sync_all();
    }
    Ok(path)
}

/// Remove `path` if it is an empty directory (undoing [`create_dir_in`]
/// when nothing could be written into it); best effort.
pub(crate) fn remove_empty_dir(path: &Path) {
    let _ = fs::remove_dir(path);
}

#[cfg(test)]
/// Replace `path` with `bytes` atomically (see [`atomic::replace`]); a
/// link is written through to its target. Containment is the caller's job:
/// a transaction uses [`atomic::write_target`].
pub(crate) fn atomic_replace(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    match fs::canonicalize(path) {
        Ok(real) => atomic::replace(&real, bytes),
        Err(_) => atomic::replace(path, bytes),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_directory_is_created_once_and_only_inside() {
        let dir = tempfile::tempdir().unwrap();
        let made = create_dir_in(dir.path(), "新项目").unwrap();
        assert!(made.is_dir());
        assert!(
            create_dir_in(dir.path(), "新项目").is_err(),
            "exists already"
        );
        assert!(matches!(
            create_dir_in(dir.path(), "../escape"),
            Err(StoreError::OutsideProject)
        ));
        remove_empty_dir(&made);
        assert!(!made.exists());
    }

    #[test]
    fn bounded_read_refuses_large_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big");
        fs::write(&p, vec![b'x'; 100]).unwrap();
        assert!(matches!(
            read_bounded(&p, 10),
            Err(StoreError::TooLarge {
                size: 100,
                limit: 10
            })
        ));
        assert_eq!(read_bounded(&p, 100).unwrap().len(), 100);
    }

    #[test]
    fn read_in_follows_links_only_inside_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        fs::create_dir_all(project.join("sub")).unwrap();
        fs::write(project.join("state.json"), "in").unwrap();
        fs::write(project.join("sub/x.md"), "x").unwrap();
        fs::write(dir.path().join("outside.json"), "out").unwrap();
        assert_eq!(read_in(&project, "state.json", 10).unwrap(), b"in");
        assert_eq!(read_in(&project, "sub/x.md", 10).unwrap(), b"x");
        assert!(matches!(
            read_in(&project, "../outside.json", 10),
            Err(StoreError::OutsideProject)
        ));
        assert!(matches!(
            read_in(&project, "missing", 10),
            Err(StoreError::Vanished)
        ));
        assert!(matches!(
            read_in(&project, "sub", 10),
            Err(StoreError::NotRegular)
        ));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(project.join("state.json"), project.join("link.json"))
                .unwrap();
            assert_eq!(read_in(&project, "link.json", 10).unwrap(), b"in");
            std::os::unix::fs::symlink(dir.path().join("outside.json"), project.join("out.json"))
                .unwrap();
            assert!(matches!(
                read_in(&project, "out.json", 10),
                Err(StoreError::OutsideProject)
            ));
        }
    }

    #[test]
    fn directories_and_missing_files_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            read_bounded(dir.path(), 10),
            Err(StoreError::NotRegular)
        ));
        assert!(matches!(
            read_bounded(&dir.path().join("gone"), 10),
            Err(StoreError::Vanished)
        ));
    }

    #[test]
    fn the_lstat_cache_saves_system_calls_but_never_outlives_its_read() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        fs::create_dir_all(project.join("units/a/runs")).unwrap();
        fs::write(project.join("units/a/runs/r.json"), "x").unwrap();
        fs::write(dir.path().join("secret"), "s").unwrap();
        with_dir_cache(|| {
            assert!(contained_file(&project, "units/a/runs/r.json").is_some());
            assert!(dir_cache::knows(&project.join("units/a/runs")));
            assert!(dir_cache::knows(&project.join("units/a/runs/r.json")));
        });
        assert!(!dir_cache::knows(&project.join("units")), "forgotten");
        #[cfg(unix)]
        {
            // A directory replaced by a link after a read is judged again.
            fs::remove_dir_all(project.join("units/a/runs")).unwrap();
            std::os::unix::fs::symlink(dir.path(), project.join("units/a/runs")).unwrap();
            assert!(matches!(
                contained(&project, "units/a/runs/secret"),
                Err(StoreError::OutsideProject)
            ));
        }
    }

    #[test]
    fn containment_refuses_escapes() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        fs::create_dir_all(project.join("sub")).unwrap();
        fs::write(dir.path().join("secret"), "x").unwrap();
        assert!(contained(&project, "sub/../a.md").is_ok());
        assert!(matches!(
            contained(&project, "../secret"),
            Err(StoreError::OutsideProject)
        ));
        assert!(matches!(
            contained(&project, "/etc/passwd"),
            Err(StoreError::OutsideProject)
        ));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("secret"), project.join("link")).unwrap();
            assert!(matches!(
                contained(&project, "link"),
                Err(StoreError::OutsideProject)
            ));
        }
    }

    #[test]
    fn atomic_replace_keeps_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state.json");
        fs::write(&p, "old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        }
        atomic_replace(&p, b"new").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o640
            );
        }
        assert_eq!(list_names(dir.path()), vec!["state.json".to_owned()]);
    }

    #[test]
    fn times_beyond_chronos_range_are_unknown_not_a_panic() {
        use std::time::Duration;
        let epoch = SystemTime::UNIX_EPOCH;
        // `touch -d @8210266876800`: year 262143, which tmpfs accepts.
        let far = epoch + Duration::from_secs(8_210_266_876_800);
        assert_eq!(utc(far), None);
        let t = epoch + Duration::from_millis(1_780_315_105_500);
        assert_eq!(
            utc(t).unwrap().to_rfc3339(),
            "2026-06-01T11:58:25.500+00:00"
        );
        let before = epoch - Duration::from_millis(1_500);
        assert_eq!(
            utc(before).unwrap().to_rfc3339(),
            "1969-12-31T23:59:58.500+00:00"
        );
        if let Some(ancient) = epoch.checked_sub(Duration::from_secs(9_000_000_000_000)) {
            assert_eq!(utc(ancient), None);
        }
    }

    #[test]
    fn sha256_matches_known_vector() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
