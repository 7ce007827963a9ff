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

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{StoreError, contained};

/// The marker in every temp file name loopdeck creates.
pub const TEMP_MARK: &str = ".loopdeck-";
/// The suffix of every temp file name loopdeck creates.
pub const TEMP_SUFFIX: &str = ".tmp";

/// The real file a write to `relative` inside `project` changes: the path
/// itself, or, when it (or a directory on the way) is a link, the link's
/// target, which must stay inside the project. A path that does not exist
/// yet is accepted when it stays inside lexically.
pub fn write_target(project: &Path, relative: &str) -> Result<PathBuf, StoreError> {
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
pub fn temp_name(target: &Path) -> String {
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
pub fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(d.as_nanos());
    }
    h.finish()
}

/// Replace the regular file `path` (no link: see [`write_target`]) with
/// `bytes` atomically, keeping its mode and its owner; create it (0644
/// minus the umask) when it does not exist. A file the caller may not
/// write (`access(W_OK)`), or one whose owner the replacement could not
/// keep, is refused (see [`check_writable`]).
pub fn replace(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let keep = check_writable(path, true)?.map(|m| Keep::of(&m));
    let tmp = dir.join(temp_name(path));
    let result = write_temp(&tmp, bytes, keep.as_ref()).and_then(|()| {
        fs::rename(&tmp, path)?;
        sync_dir(dir);
        Ok(())
    });
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// What a replacement keeps of the file it replaces.
struct Keep {
    mode: u32,
    owner: Option<(u32, u32)>,
}

impl Keep {
    fn of(m: &fs::Metadata) -> Self {
        Keep {
            mode: permissions_of(m),
            owner: owner_of(m),
        }
    }
}

/// May the file at `path` (no link: see [`write_target`]) be written by
/// this process, in place or replaced? `None`: it does not exist (a new
/// file). Refused: not a regular file; a file the caller has no write
/// permission for (`access(W_OK)`: a read-only file is never replaced
/// behind its owner's back); when `replacing` (not appending in place), a
/// file owned by another user or group that this process cannot give a
/// replacement to (the owner would change).
pub fn check_writable(path: &Path, replacing: bool) -> Result<Option<fs::Metadata>, StoreError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => m,
        Ok(_) => return Err(StoreError::NotRegular),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    if !may_write(path) {
        return Err(StoreError::Io(io::Error::other(format!(
            "read-only file (mode {:04o}); loopdeck does not write a file its user may not write",
            permissions_of(&meta)
        ))));
    }
    if let Some((uid, gid)) = owner_of(&meta)
        && replacing
        && !can_give(path, uid, gid)
    {
        return Err(not_keeping_owner(uid));
    }
    Ok(Some(meta))
}

fn not_keeping_owner(uid: u32) -> StoreError {
    StoreError::Io(io::Error::other(format!(
        "owned by uid {uid}; replacing it would change its owner"
    )))
}

/// The file's (uid, gid) when either differs from this process's.
#[cfg(unix)]
fn owner_of(m: &fs::Metadata) -> Option<(u32, u32)> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: no arguments, always succeed.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    (m.uid() != uid || m.gid() != gid).then(|| (m.uid(), m.gid()))
}

#[cfg(not(unix))]
fn owner_of(_: &fs::Metadata) -> Option<(u32, u32)> {
    None
}

#[cfg(unix)]
fn may_write(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a valid NUL-terminated path; only checks permissions.
    unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), libc::W_OK, libc::AT_EACCESS) == 0 }
}

#[cfg(not(unix))]
fn may_write(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| !m.permissions().readonly())
}

/// Can a file this process creates beside `path` be given to `uid:gid`?
/// Tried on a throwaway temp file, so a decision touching several files is
/// refused before the first is written.
fn can_give(path: &Path, uid: u32, gid: u32) -> bool {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let tmp = dir.join(temp_name(path));
    let given = create_excl(&tmp, Some(0o600)).and_then(|f| chown_file(&f, uid, gid));
    let _ = fs::remove_file(&tmp);
    given.is_ok()
}

#[cfg(unix)]
fn chown_file(f: &File, uid: u32, gid: u32) -> io::Result<()> {
    std::os::unix::fs::fchown(f, Some(uid), Some(gid))
}

#[cfg(not(unix))]
fn chown_file(_: &File, _: u32, _: u32) -> io::Result<()> {
    Ok(())
}

fn write_temp(tmp: &Path, bytes: &[u8], keep: Option<&Keep>) -> Result<(), StoreError> {
    let mut file = create_excl(tmp, keep.map(|k| k.mode))?;
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
fn permissions_of(m: &fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    m.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn permissions_of(m: &fs::Metadata) -> u32 {
    u32::from(m.permissions().readonly())
}

/// Create `path` exclusively (never following a link): 0600 when `mode`
/// is given (the caller then sets it with [`set_mode`]), else 0644 minus
/// the umask.
#[cfg(unix)]
fn create_excl(path: &Path, mode: Option<u32>) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(if mode.is_some() { 0o600 } else { 0o644 })
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

#[cfg(not(unix))]
fn create_excl(path: &Path, _mode: Option<u32>) -> io::Result<File> {
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

#[cfg(unix)]
fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    if mode == 1 {
        let mut p = file.metadata()?.permissions();
        p.set_readonly(true);
        file.set_permissions(p)?;
    }
    Ok(())
}

/// Open the existing file at `path` (no link: see [`write_target`]) for
/// reading, without blocking and without following a link: a FIFO, a
/// device, a directory or a link is refused (`NotRegular`), never waited
/// on. `None`: absent.
pub fn open_regular(path: &Path) -> Result<Option<File>, StoreError> {
    let mut o = fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    let f = match o.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(StoreError::NotRegular),
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
pub fn sync_dir(dir: &Path) {
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
        let umask = unsafe {
            let m = libc::umask(0o022);
            libc::umask(m);
            m
        };
        assert_eq!(mode(&p), 0o644 & !(umask as u32));
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
}
