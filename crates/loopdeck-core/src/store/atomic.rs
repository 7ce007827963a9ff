//! Atomic replacement of one file, and where a write to a project path
//! lands (the symlink policy).
//!
//! A replace writes a temp file created with `O_EXCL` beside the target
//! (`.<name>.loopdeck-<pid>-<random>.tmp`, so a killed writer's leftovers
//! can be recognised and swept), gives it the original owner and mode (a
//! new file: ours, 0644 minus the umask; a read-only file, or one whose
//! owner cannot be kept, is refused), writes everything, fsyncs, renames it over the
//! target and fsyncs the directory. A reader sees the old bytes or the new
//! ones, never a mix.
//!
//! Symlinks: a project file that is a link is written THROUGH to its
//! target when the target stays inside the project (the link survives,
//! still pointing at the new bytes); a link leaving the project is
//! refused. `tempfile`'s `persist` and the `atomic-write-file` crate would
//! both replace the link itself with a plain file.
//!
//! Hand-written on purpose: besides the links, the owner policy (the
//! replacement keeps the file's owner and mode, and a file whose owner this
//! process cannot give back is refused rather than silently taken over),
//! the temp names the sweeper recognises and the directory fsync are
//! loopdeck's rules, which no atomic-write crate offers; the system calls
//! themselves are rustix's.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{Access, AtFlags, FileType, IFlags, Stat};
use rustix::io::Errno;

use super::beneath::{Dir, errno};
use super::txn::Stamp;
use super::{StoreError, contained};

/// The marker in every temp file name loopdeck creates.
pub(crate) const TEMP_MARK: &str = ".loopdeck-";
/// The suffix of every temp file name loopdeck creates.
pub(crate) const TEMP_SUFFIX: &str = ".tmp";

/// The real file a write to `relative` inside `project` changes: the path
/// itself, or, when it (or a directory on the way) is a link, the link's
/// target, which must stay inside the project. A path that does not exist
/// yet is accepted when it stays inside lexically.
pub(crate) fn write_target(project: &Path, relative: &str) -> Result<PathBuf, StoreError> {
    let joined = contained(project, relative)?;
    if !through_link(project, relative) {
        return Ok(joined);
    }
    // `contained` has checked that the resolved target is inside; resolve
    // it the same way so the rename lands on the target, not on the link.
    let base = fs::canonicalize(project)?;
    let real = match fs::canonicalize(&joined) {
        Ok(real) => real,
        Err(_) => {
            // A dangling link (or a new file under a linked directory).
            let parent = joined.parent().ok_or(StoreError::OutsideProject)?;
            let name = joined.file_name().ok_or(StoreError::OutsideProject)?;
            match fs::symlink_metadata(&joined) {
                Ok(m) if m.file_type().is_symlink() => {
                    let target = fs::read_link(&joined)?;
                    let dir = fs::canonicalize(parent)?;
                    fold(&dir.join(target))
                }
                _ => fs::canonicalize(parent)?.join(name),
            }
        }
    };
    if real.starts_with(&base) && real != base {
        Ok(real)
    } else {
        Err(StoreError::OutsideProject)
    }
}

/// Does any component of `relative` inside `project` pass through a link?
fn through_link(project: &Path, relative: &str) -> bool {
    let mut cur = project.to_path_buf();
    for comp in Path::new(relative).components() {
        match comp {
            std::path::Component::Normal(c) => cur.push(c),
            std::path::Component::ParentDir => {
                cur.pop();
                continue;
            }
            _ => continue,
        }
        match fs::symlink_metadata(&cur) {
            Ok(m) if m.file_type().is_symlink() => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    false
}

/// `.` and `..` folded lexically.
fn fold(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// A fresh temp file name for `target`: `.<name>.loopdeck-<pid>-<random>.tmp`.
pub(crate) fn temp_name(target: &Path) -> String {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(
        ".{name}{TEMP_MARK}{}-{:016x}{TEMP_SUFFIX}",
        std::process::id(),
        random_u64()
    )
}

/// A random number (std's per-process random hash keys and a counter).
pub(crate) fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(d.as_nanos());
    }
    h.finish()
}

/// What must be at a file's name for a replacement to go ahead.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Expect<'a> {
    /// Whatever is there (loopdeck's own state files).
    Any,
    /// Nothing: the file is new.
    Absent,
    /// Exactly these bytes (what the decision read).
    Bytes(&'a [u8]),
    /// Bytes of this sha256 and length (what a decision wrote, known from
    /// its record).
    Stamp(&'a Stamp),
}

/// Why a replacement did not happen.
#[derive(Debug)]
pub(crate) enum Swap {
    /// The disk said no (nothing replaced).
    Store(StoreError),
    /// The file is not what was expected (nothing replaced): its length
    /// now (`None`: absent).
    Changed { now: Option<u64> },
}

impl From<StoreError> for Swap {
    fn from(e: StoreError) -> Self {
        Swap::Store(e)
    }
}

/// Replace the regular file `path` (no link: see [`write_target`]) with
/// `bytes` atomically, keeping its mode and its owner; create it (0644
/// minus the umask) when it does not exist. For loopdeck's own files (the
/// audit log's blobs, seen.json): nothing is compared; the directory is
/// opened once and the file named relative to it.
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let (dir, name) = Dir::open_parent(path)?;
    match replace_at(&dir, &name, bytes, Expect::Any) {
        Ok(()) => Ok(()),
        Err(Swap::Store(e)) => Err(e),
        Err(Swap::Changed { .. }) => Err(StoreError::Vanished),
    }
}

/// Replace `name` in `dir` with `bytes` atomically, when it still holds
/// what `expect` says. The temp file is written and fsynced first; the
/// file is compared after that, immediately before the swap, so an
/// agent's save that lands while the temp file is written is seen.
///
/// On Linux the swap itself is checked: the new file is exchanged in with
/// `renameat2(RENAME_EXCHANGE)`, the bytes now at the temp name (what was
/// swapped out) are compared with `expect`, and when another writer's save
/// landed between the compare and the exchange the two are exchanged back
/// (its save stays, nothing of ours remains: [`Swap::Changed`]). A new
/// file is moved in with `RENAME_NOREPLACE`, so a file created meanwhile is
/// never replaced. Where the file system cannot exchange, a plain rename
/// follows the compare.
///
/// What remains for writers that take no lock: a writer that rewrites the
/// file in place (truncate, write) during the few microseconds between
/// the exchange and the check of what was swapped out is caught; one
/// writing into the old file after that check writes into a file that is
/// no longer there.
pub(crate) fn replace_at(
    dir: &Dir,
    name: &str,
    bytes: &[u8],
    expect: Expect<'_>,
) -> Result<(), Swap> {
    let keep = check_writable_at(dir, name, true)?.map(|m| Keep::of(&m));
    let tmp = temp_name(Path::new(name));
    let result = swap_in(dir, name, &tmp, bytes, keep.as_ref(), expect);
    if result.is_err() {
        let _ = dir.unlink(&tmp);
    }
    result
}

fn swap_in(
    dir: &Dir,
    name: &str,
    tmp: &str,
    bytes: &[u8],
    keep: Option<&Keep>,
    expect: Expect<'_>,
) -> Result<(), Swap> {
    write_temp(dir, tmp, bytes, keep)?;
    if let Some(now) = differs(dir, name, expect)? {
        return Err(Swap::Changed { now });
    }
    match expect {
        Expect::Any => dir.rename(tmp, name).map_err(errno)?,
        Expect::Absent => match dir.rename_noreplace(tmp, name) {
            Ok(()) => {}
            Err(Errno::EXIST) => {
                let now = dir.stat(name)?.map(|st| st.st_size as u64);
                return Err(Swap::Changed { now });
            }
            Err(Errno::INVAL | Errno::NOSYS) => dir.rename(tmp, name).map_err(errno)?,
            Err(e) => return Err(errno(e).into()),
        },
        Expect::Bytes(_) | Expect::Stamp(_) => match dir.exchange(tmp, name) {
            Ok(()) => {
                let swapped_out = match differs(dir, tmp, expect) {
                    Ok(d) => d,
                    Err(e) => {
                        // Not known what was swapped out: put it back.
                        dir.exchange(tmp, name).map_err(errno)?;
                        return Err(e.into());
                    }
                };
                if let Some(now) = swapped_out {
                    // Another writer's save landed between the compare and
                    // the exchange: put it back. Should it save once more
                    // meanwhile, its newest save is what stays.
                    dir.exchange(tmp, name).map_err(errno)?;
                    if differs(dir, tmp, Expect::Bytes(bytes))?.is_some() {
                        dir.exchange(tmp, name).map_err(errno)?;
                    }
                    return Err(Swap::Changed { now });
                }
                let _ = dir.unlink(tmp);
            }
            Err(Errno::INVAL | Errno::NOSYS) => dir.rename(tmp, name).map_err(errno)?,
            Err(e) => return Err(errno(e).into()),
        },
    }
    dir.sync();
    Ok(())
}

/// Does `name` in `dir` hold something else than `expect` says? `Some`
/// with its length now (`None`: absent) when it does. Compared in chunks:
/// nothing of the size of the file is allocated.
pub(crate) fn differs(
    dir: &Dir,
    name: &str,
    expect: Expect<'_>,
) -> Result<Option<Option<u64>>, StoreError> {
    let file = match dir.open_read(name) {
        Ok(f) => f,
        Err(StoreError::NotRegular) => return Err(StoreError::NotRegular),
        Err(e) => return Err(e),
    };
    match (expect, file) {
        (Expect::Any, _) | (Expect::Absent, None) => Ok(None),
        (Expect::Absent, Some(f)) => Ok(Some(Some(f.metadata()?.len()))),
        (Expect::Bytes(_) | Expect::Stamp(_), None) => Ok(Some(None)),
        (Expect::Stamp(want), Some(mut f)) => {
            let len = f.metadata()?.len();
            if len != want.len {
                return Ok(Some(Some(len)));
            }
            let (sha256, total) = super::sha256_stream(&mut f, b"")?;
            Ok((sha256 != want.sha256 || total != want.len).then_some(Some(total)))
        }
        (Expect::Bytes(want), Some(mut f)) => {
            let len = f.metadata()?.len();
            if len != want.len() as u64 {
                return Ok(Some(Some(len)));
            }
            let mut buf = vec![0u8; 64 * 1024];
            let mut at = 0usize;
            loop {
                let n = f.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                if at + n > want.len() || buf[..n] != want[at..at + n] {
                    return Ok(Some(Some(len.max((at + n) as u64))));
                }
                at += n;
            }
            Ok((at != want.len()).then_some(Some(at as u64)))
        }
    }
}

/// What a replacement keeps of the file it replaces.
struct Keep {
    mode: u32,
    owner: Option<(u32, u32)>,
}

impl Keep {
    fn of(m: &Stat) -> Self {
        Keep {
            mode: m.st_mode & 0o7777,
            owner: owner_of(m.st_uid, m.st_gid),
        }
    }
}

#[cfg(test)]
/// May the file at `path` (no link: see [`write_target`]) be written? See
/// [`check_writable_at`]; `None`: it does not exist.
pub(crate) fn check_writable(path: &Path, replacing: bool) -> Result<Option<Stat>, StoreError> {
    let (dir, name) = Dir::open_parent(path)?;
    check_writable_at(&dir, &name, replacing)
}

/// May `name` in `dir` be written by this process, in place or replaced?
/// `None`: it does not exist (a new file). Refused: not a regular file; a
/// file whose owner's write bit is off (for every user, root included: a
/// read-only file is never replaced behind its owner's back); a file this
/// user has no write permission for; an immutable file (`chattr +i`), or,
/// when `replacing`, an append-only one (`chattr +a`); when `replacing`, a
/// file owned by another user or group that this process cannot give a
/// replacement to (the owner would change). The directory must allow the
/// rename too (not immutable or append-only).
pub(crate) fn check_writable_at(
    dir: &Dir,
    name: &str,
    replacing: bool,
) -> Result<Option<Stat>, StoreError> {
    let meta = match dir.stat(name)? {
        Some(m) if FileType::from_raw_mode(m.st_mode) == FileType::RegularFile => m,
        Some(_) => return Err(StoreError::NotRegular),
        None => {
            dir_allows_writes(dir, false)?;
            return Ok(None);
        }
    };
    let mode = meta.st_mode & 0o7777;
    if mode & 0o200 == 0 {
        return Err(refused(format!(
            "read-only file (mode {mode:04o}: its owner's write bit is off); loopdeck does not replace a read-only file, whoever runs it (`chmod u+w` it to allow decisions)"
        )));
    }
    if let Some(f) = dir.open_read(name)?
        && let Ok(flags) = rustix::fs::ioctl_getflags(&f)
    {
        if flags.contains(IFlags::IMMUTABLE) {
            return Err(refused(
                "immutable (chattr +i): nothing can change it until `chattr -i` is run on it"
                    .to_owned(),
            ));
        }
        if replacing && flags.contains(IFlags::APPEND) {
            return Err(refused(
                "append-only (chattr +a): it can only be appended to, not replaced (`chattr -a` to allow it)"
                    .to_owned(),
            ));
        }
    }
    if !may_write(dir, name) {
        return Err(refused(format!(
            "not writable by this user (mode {mode:04o}, owner uid {}); loopdeck does not write a file its user may not write",
            meta.st_uid
        )));
    }
    dir_allows_writes(dir, replacing)?;
    if replacing
        && let Some((uid, gid)) = owner_of(meta.st_uid, meta.st_gid)
        && !can_give(dir, name, uid, gid)
    {
        return Err(not_keeping_owner(uid));
    }
    Ok(Some(meta))
}

/// The directory's own attributes allow a new file (and, when
/// `replacing`, a rename over one).
fn dir_allows_writes(dir: &Dir, replacing: bool) -> Result<(), StoreError> {
    let Ok(flags) = rustix::fs::ioctl_getflags(dir.fd()) else {
        return Ok(());
    };
    let what = if flags.contains(IFlags::IMMUTABLE) {
        "immutable (chattr +i)"
    } else if replacing && flags.contains(IFlags::APPEND) {
        "append-only (chattr +a)"
    } else {
        return Ok(());
    };
    Err(refused(format!(
        "its directory {} is {what}: no file in it can be replaced",
        dir.shown().display()
    )))
}

fn refused(msg: String) -> StoreError {
    StoreError::Io(io::Error::other(msg))
}

fn not_keeping_owner(uid: u32) -> StoreError {
    refused(format!(
        "owned by uid {uid}; replacing it would change its owner"
    ))
}

/// The file's (uid, gid) when either differs from this process's.
fn owner_of(uid: u32, gid: u32) -> Option<(u32, u32)> {
    let me = rustix::process::geteuid().as_raw();
    let my_group = rustix::process::getegid().as_raw();
    (uid != me || gid != my_group).then_some((uid, gid))
}

/// `faccessat(W_OK)` with the effective ids, the link not followed.
fn may_write(dir: &Dir, name: &str) -> bool {
    match rustix::fs::accessat(
        dir.fd(),
        name,
        Access::WRITE_OK,
        AtFlags::EACCESS | AtFlags::SYMLINK_NOFOLLOW,
    ) {
        Ok(()) => true,
        // A kernel without faccessat2 cannot take the flags: ask without.
        Err(Errno::INVAL | Errno::NOSYS) => {
            rustix::fs::accessat(dir.fd(), name, Access::WRITE_OK, AtFlags::EACCESS).is_ok()
        }
        Err(_) => false,
    }
}

/// Can a file this process creates in `dir` be given to `uid:gid`? Tried
/// on a throwaway temp file, so a decision touching several files is
/// refused before the first is written.
fn can_give(dir: &Dir, name: &str, uid: u32, gid: u32) -> bool {
    let tmp = temp_name(Path::new(name));
    let given = dir
        .create_excl(&tmp, 0o600)
        .map_err(io::Error::from)
        .and_then(|f| chown_file(&f, uid, gid));
    let _ = dir.unlink(&tmp);
    given.is_ok()
}

fn chown_file(f: &File, uid: u32, gid: u32) -> io::Result<()> {
    std::os::unix::fs::fchown(f, Some(uid), Some(gid))
}

fn write_temp(dir: &Dir, tmp: &str, bytes: &[u8], keep: Option<&Keep>) -> Result<(), StoreError> {
    let mut file = dir
        .create_excl(tmp, if keep.is_some() { 0o600 } else { 0o644 })
        .map_err(errno)?;
    if let Some(k) = keep {
        if let Some((uid, gid)) = k.owner {
            chown_file(&file, uid, gid).map_err(|_| not_keeping_owner(uid))?;
        }
        // After the chown (which clears set-id bits); fchmod is not masked
        // by the umask: the original mode exactly.
        set_mode(&file, k.mode)?;
    }
    file.write_all(bytes)?;
    file.sync_all()?;
    Ok(())
}

#[cfg(unix)]
fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(mode))
}

/// Open the existing file at `path` (no link: see [`write_target`]) for
/// reading, without blocking and without following a link: a FIFO, a
/// device, a directory or a link is refused (`NotRegular`), never waited
/// on. `None`: absent.
pub(crate) fn open_regular(path: &Path) -> Result<Option<File>, StoreError> {
    let mut o = fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(super::custom_flags(
            OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        ));
    }
    let f = match o.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        #[cfg(unix)]
        Err(e) if Errno::from_io_error(&e) == Some(Errno::LOOP) => {
            return Err(StoreError::NotRegular);
        }
        Err(e) => return Err(e.into()),
    };
    if !f.metadata()?.is_file() {
        return Err(StoreError::NotRegular);
    }
    Ok(Some(f))
}

/// fsync a directory after a rename or a removal in it. Some file systems
/// refuse fsync on a directory; the change has happened, so this is best
/// effort.
pub(crate) fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn mode(p: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(p).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn replace_keeps_the_mode_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state.json");
        fs::write(&p, "old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        }
        replace(&p, b"new").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        #[cfg(unix)]
        assert_eq!(mode(&p), 0o640);
        assert_eq!(super::super::list_names(dir.path()), vec!["state.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_is_0644_minus_the_umask() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("new.md");
        replace(&p, b"x").unwrap();
        // Read the umask without changing it for good.
        let umask = rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o022));
        rustix::process::umask(umask);
        assert_eq!(mode(&p), 0o644 & !umask.as_raw_mode());
    }

    #[test]
    fn temp_names_are_recognisable_and_unique() {
        let t = Path::new("/p/state.json");
        let a = temp_name(t);
        assert!(a.starts_with(".state.json.loopdeck-"), "{a}");
        assert!(a.ends_with(".tmp"));
        assert!(a.contains(&format!("-{}-", std::process::id())));
        assert_ne!(a, temp_name(t));
    }

    #[test]
    fn a_failed_rename_leaves_no_temp_behind() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("sub");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("x"), "x").unwrap();
        // A non-empty directory cannot be replaced by a file.
        assert!(matches!(
            replace(&target, b"x"),
            Err(StoreError::NotRegular)
        ));
        assert_eq!(super::super::list_names(dir.path()), vec!["sub"]);
    }

    #[cfg(unix)]
    #[test]
    fn links_inside_are_written_through_and_links_outside_refused() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        fs::create_dir_all(project.join("real")).unwrap();
        fs::write(project.join("real/state.json"), "old").unwrap();
        symlink("real/state.json", project.join("state.json")).unwrap();
        let target = write_target(&project, "state.json").unwrap();
        assert_eq!(
            target,
            fs::canonicalize(project.join("real/state.json")).unwrap()
        );
        replace(&target, b"new").unwrap();
        assert!(
            fs::symlink_metadata(project.join("state.json"))
                .unwrap()
                .file_type()
                .is_symlink(),
            "the link survives"
        );
        assert_eq!(fs::read(project.join("state.json")).unwrap(), b"new");

        fs::write(dir.path().join("outside.json"), "o").unwrap();
        symlink(dir.path().join("outside.json"), project.join("out.json")).unwrap();
        assert!(matches!(
            write_target(&project, "out.json"),
            Err(StoreError::OutsideProject)
        ));
        symlink("../nowhere.json", project.join("dangling.json")).unwrap();
        assert!(matches!(
            write_target(&project, "dangling.json"),
            Err(StoreError::OutsideProject)
        ));
        symlink("real/new.json", project.join("fresh.json")).unwrap();
        assert_eq!(
            write_target(&project, "fresh.json").unwrap(),
            fs::canonicalize(project.join("real"))
                .unwrap()
                .join("new.json")
        );
        assert!(matches!(
            write_target(&project, "../x.json"),
            Err(StoreError::OutsideProject)
        ));
    }

    fn am_root() -> bool {
        rustix::process::geteuid().is_root()
    }

    /// `differs` with every kind of expectation, on files shorter and
    /// longer than its 64 KiB chunk, equal and differing in the first
    /// chunk, the last byte, or the length. Kills the mutants of its
    /// length compares (`!=` → `==`), of its chunk arithmetic (`at + n`,
    /// `at += n`, `>` → `>=`/`==`/`<`, `||` → `&&`), of its sha compare
    /// and of its whole body (`Ok(None)`, `Ok(Some(None))`, ...).
    #[test]
    fn differs_says_exactly_when_and_how_long() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Dir::open(tmp.path()).unwrap();
        let small = b"hello\n".to_vec();
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        for want in [&small, &big] {
            let len = want.len() as u64;
            fs::write(tmp.path().join("f"), want).unwrap();
            let stamp = Stamp::of(want);
            for expect in [Expect::Any, Expect::Bytes(want), Expect::Stamp(&stamp)] {
                assert_eq!(differs(&dir, "f", expect).unwrap(), None, "{len}");
            }
            assert_eq!(differs(&dir, "f", Expect::Absent).unwrap(), Some(Some(len)));
            // The same length, one byte other: first, last.
            for at in [0, want.len() - 1] {
                let mut other = want.clone();
                other[at] ^= 0x55;
                let other_stamp = Stamp::of(&other);
                assert_eq!(
                    differs(&dir, "f", Expect::Bytes(&other)).unwrap(),
                    Some(Some(len)),
                    "{len} {at}"
                );
                assert_eq!(
                    differs(&dir, "f", Expect::Stamp(&other_stamp)).unwrap(),
                    Some(Some(len)),
                    "{len} {at}"
                );
            }
            // Longer and shorter expectations: the file's length is said.
            let mut longer = want.clone();
            longer.push(b'x');
            let shorter = &want[..want.len() - 1];
            for other in [&longer[..], shorter] {
                let other_stamp = Stamp::of(other);
                assert_eq!(
                    differs(&dir, "f", Expect::Bytes(other)).unwrap(),
                    Some(Some(len))
                );
                assert_eq!(
                    differs(&dir, "f", Expect::Stamp(&other_stamp)).unwrap(),
                    Some(Some(len))
                );
            }
            // A stamp of the right length whose sha is another's.
            let liar = Stamp {
                sha256: Stamp::of(b"something else").sha256,
                len,
            };
            assert_eq!(
                differs(&dir, "f", Expect::Stamp(&liar)).unwrap(),
                Some(Some(len))
            );
        }
        fs::remove_file(tmp.path().join("f")).unwrap();
        let stamp = Stamp::of(b"x");
        assert_eq!(differs(&dir, "f", Expect::Absent).unwrap(), None);
        assert_eq!(differs(&dir, "f", Expect::Any).unwrap(), None);
        assert_eq!(differs(&dir, "f", Expect::Bytes(b"x")).unwrap(), Some(None));
        assert_eq!(
            differs(&dir, "f", Expect::Stamp(&stamp)).unwrap(),
            Some(None)
        );
        std::os::unix::fs::symlink("elsewhere", tmp.path().join("f")).unwrap();
        assert!(matches!(
            differs(&dir, "f", Expect::Any),
            Err(StoreError::NotRegular)
        ));
    }

    /// A replacement that finds the file changed replaces nothing, and
    /// one that finds it as expected replaces it; a new file is not put
    /// over one created meanwhile. Kills `replace_at`/`swap_in` →
    /// `Ok(())` and the compare before the swap.
    #[test]
    fn replace_at_replaces_only_what_it_expects() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Dir::open(tmp.path()).unwrap();
        let p = tmp.path().join("f");
        fs::write(&p, "old").unwrap();
        assert!(matches!(
            replace_at(&dir, "f", b"new", Expect::Bytes(b"odd")),
            Err(Swap::Changed { now: Some(3) })
        ));
        let stamp = Stamp::of(b"other!");
        assert!(matches!(
            replace_at(&dir, "f", b"new", Expect::Stamp(&stamp)),
            Err(Swap::Changed { now: Some(3) })
        ));
        assert!(matches!(
            replace_at(&dir, "f", b"new", Expect::Absent),
            Err(Swap::Changed { now: Some(3) })
        ));
        assert_eq!(fs::read(&p).unwrap(), b"old");
        replace_at(&dir, "f", b"new", Expect::Bytes(b"old")).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        let stamp = Stamp::of(b"new");
        replace_at(&dir, "f", b"newer", Expect::Stamp(&stamp)).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"newer");
        replace_at(&dir, "g", b"fresh", Expect::Absent).unwrap();
        assert_eq!(fs::read(tmp.path().join("g")).unwrap(), b"fresh");
        assert!(matches!(
            replace_at(&dir, "gone", b"x", Expect::Bytes(b"x")),
            Err(Swap::Changed { now: None })
        ));
        let mut names = super::super::list_names(tmp.path());
        names.sort();
        assert_eq!(names, vec!["f", "g"], "no temp file is left");
    }

    /// A file whose owner's write bit is off is never replaced, whoever
    /// runs loopdeck (root included): kills `st_mode & 0o7777` → `|` and
    /// `mode & 0o200` → `|` (the bit would always look on), and
    /// `check_writable` → `Ok(None)`.
    #[test]
    fn a_read_only_file_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("ro.md");
        fs::write(&p, "keep").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o444)).unwrap();
        for replacing in [true, false] {
            let err = check_writable(&p, replacing).unwrap_err().to_string();
            assert!(err.contains("read-only file (mode 0444"), "{err}");
        }
        assert!(replace(&p, b"x").is_err());
        assert_eq!(fs::read(&p).unwrap(), b"keep");
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        let st = check_writable(&p, true).unwrap().unwrap();
        assert_eq!(st.st_mode & 0o7777, 0o640);
        assert_eq!(st.st_size, 4);
        assert!(
            check_writable(&tmp.path().join("new.md"), true)
                .unwrap()
                .is_none()
        );
        fs::create_dir(tmp.path().join("d")).unwrap();
        assert!(matches!(
            check_writable(&tmp.path().join("d"), true),
            Err(StoreError::NotRegular)
        ));
    }

    /// A file another user may not write is refused for a user that is
    /// not root (`may_write` → `true`, `delete !` in its check); as root
    /// (which may write anything) the file's owner and group are kept by a
    /// replacement (`chown_file` → `Ok(())`, `owner_of` → `None`,
    /// `Keep::of`), a set-id bit too (`set_mode` → `Ok(())`).
    #[test]
    fn another_users_file_keeps_its_owner_or_is_refused() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("theirs.md");
        fs::write(&p, "theirs").unwrap();
        if !am_root() {
            // Ours: allowed. Other users' files cannot be made without
            // root: a fixture made by root is used when there is one.
            assert!(check_writable(&p, true).unwrap().is_some());
            let Some(fixture) =
                std::env::var_os("LOOPDECK_TEST_FOREIGN_FILES").filter(|f| !f.is_empty())
            else {
                eprintln!(
                    "SKIPPED: other users' files need root, or LOOPDECK_TEST_FOREIGN_FILES (bench/mutants.sh makes them)"
                );
                return;
            };
            let fixture = PathBuf::from(fixture);
            // Owned by another user, writable by all: writable in place,
            // refused for a replacement (this user cannot give it away).
            let uid = fs::metadata(fixture.join("other-uid")).unwrap().uid();
            let me = rustix::process::geteuid().as_raw();
            let my_group = rustix::process::getegid().as_raw();
            assert_ne!(uid, me, "the fixture's other-uid is another user's");
            let other_gid = fs::metadata(fixture.join("other-gid")).unwrap();
            assert_eq!(other_gid.uid(), me, "the fixture's other-gid is ours");
            assert_ne!(other_gid.gid(), my_group, "in another group");
            assert_ne!(
                fs::metadata(fixture.join("not-ours")).unwrap().uid(),
                me,
                "the fixture's not-ours is another user's"
            );
            assert!(
                check_writable(&fixture.join("other-uid"), false)
                    .unwrap()
                    .is_some()
            );
            let err = check_writable(&fixture.join("other-uid"), true)
                .unwrap_err()
                .to_string();
            assert!(err.contains(&format!("owned by uid {uid}")), "{err}");
            // Ours, in another group: the same.
            let err = check_writable(&fixture.join("other-gid"), true)
                .unwrap_err()
                .to_string();
            assert!(err.contains("replacing it would change its owner"), "{err}");
            // Another user's, readable by all, writable by its owner only.
            let err = check_writable(&fixture.join("not-ours"), false)
                .unwrap_err()
                .to_string();
            assert!(err.contains("not writable by this user"), "{err}");
            return;
        }
        std::os::unix::fs::chown(&p, Some(65534), Some(65534)).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o2640)).unwrap();
        replace(&p, b"ours").unwrap();
        let m = fs::metadata(&p).unwrap();
        assert_eq!((m.uid(), m.gid()), (65534, 65534));
        assert_eq!(m.mode() & 0o7777, 0o2640);
        assert_eq!(fs::read(&p).unwrap(), b"ours");
        std::os::unix::fs::chown(&p, Some(0), Some(65534)).unwrap();
        replace(&p, b"again").unwrap();
        let m = fs::metadata(&p).unwrap();
        assert_eq!((m.uid(), m.gid()), (0, 65534));
    }

    /// `open_regular` opens a regular file, says `None` for a missing one,
    /// and refuses a link, a directory and a FIFO without waiting on it.
    /// Kills its `Ok(None)` body, the guards on `NotFound` and `ELOOP`, the
    /// flag mutants that drop `O_NOFOLLOW` or `O_NONBLOCK` (a FIFO would
    /// hang: a timeout) and `delete !` in the regular-file check.
    #[test]
    fn open_regular_refuses_what_is_no_regular_file() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("f");
        fs::write(&p, "x").unwrap();
        let mut s = String::new();
        open_regular(&p)
            .unwrap()
            .unwrap()
            .read_to_string(&mut s)
            .unwrap();
        assert_eq!(s, "x");
        assert!(open_regular(&tmp.path().join("missing")).unwrap().is_none());
        std::os::unix::fs::symlink("f", tmp.path().join("link")).unwrap();
        assert!(matches!(
            open_regular(&tmp.path().join("link")),
            Err(StoreError::NotRegular)
        ));
        assert!(matches!(
            open_regular(tmp.path()),
            Err(StoreError::NotRegular)
        ));
        let fifo = tmp.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert!(matches!(open_regular(&fifo), Err(StoreError::NotRegular)));
        assert!(matches!(
            open_regular(&p.join("under-a-file")),
            Err(StoreError::Io(_))
        ));
    }
}
