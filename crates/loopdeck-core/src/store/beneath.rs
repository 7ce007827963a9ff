//! Files reached beneath a project directory through directory file
//! descriptors, never through a path string checked earlier.
//!
//! A decision checks a path and then writes it. Between the two, a process
//! that can write the project (the agent, another local user) can swap a
//! directory on the way (`.planning`, a DWP plan directory, devloop's
//! `agent-state/`) for a link to a directory elsewhere: a write through the
//! path string then lands there. Here the project directory is opened once
//! ([`Dir::open`]), and every directory below it is opened relative to its
//! parent's descriptor with `O_DIRECTORY|O_NOFOLLOW`, one component at a
//! time ([`Dir::resolve`]). Every open, create, rename and unlink then names
//! a single component relative to the descriptor of the directory it lives
//! in, so a link swapped in after the walk is never followed: the
//! descriptor keeps pointing at the directory that was checked.
//!
//! Links inside a project are honoured as before (a project file that is a
//! link is written through to its target): the walk reads a link with
//! `readlinkat` and carries on from the project directory along the
//! target, refusing any target that leaves the project. The last component
//! a walk returns is never a link when the walk looks at it; a link put
//! there later is replaced by a rename (renames never follow links), and
//! opened by nothing (every open here uses `O_NOFOLLOW`).
//!
//! Hand-written on purpose: `cap-std`'s sandbox and Linux's
//! `openat2(RESOLVE_BENEATH)` (5.6 and later) refuse absolute links, which
//! a project may hold and loopdeck writes through, and neither knows the
//! owner rule (a link on the way is followed only when it is this user's
//! or root's). The system calls are rustix's; the walk is the policy.

use std::ffi::OsStr;
use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags, Stat};
use rustix::io::Errno;

use super::StoreError;

/// How many links one walk follows before it gives up (Linux's own limit).
const MAX_LINKS: usize = 40;

/// A directory held open by its descriptor, with the path it was reached
/// by (for messages only: nothing is opened through it).
#[derive(Debug)]
pub(crate) struct Dir {
    fd: OwnedFd,
    shown: PathBuf,
}

/// An error of a system call as a store error (`NotFound` → `Vanished`,
/// `EACCES` → `PermissionDenied`, a link met where none may be →
/// `OutsideProject` is decided by the caller).
pub(crate) fn errno(e: Errno) -> StoreError {
    StoreError::from(std::io::Error::from(e))
}

impl Dir {
    /// Open the directory at `path` (the project directory), walking it
    /// from `/` one component at a time without following a link that
    /// another user could have put there: a link on the way is followed
    /// only when it belongs to the user running loopdeck or to root (the
    /// rule Linux's `fs.protected_symlinks` applies in shared
    /// directories). A project's own directory swapped for another user's
    /// link between the reading and the write is then refused, not
    /// followed.
    pub(crate) fn open(path: &Path) -> Result<Dir, StoreError> {
        let abs = if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::env::current_dir()
                .map_err(StoreError::from)?
                .join(path)
        };
        let mut todo: Vec<String> = Vec::new();
        for comp in abs.components() {
            match comp {
                Component::Normal(c) => {
                    todo.push(c.to_str().ok_or(StoreError::NotRegular)?.to_owned())
                }
                Component::ParentDir => todo.push("..".to_owned()),
                _ => {}
            }
        }
        todo.reverse();
        let root = || -> Result<OwnedFd, StoreError> {
            rustix::fs::open(
                "/",
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(errno)
        };
        let mut cur = root()?;
        let mut links = 0;
        let me = rustix::process::geteuid().as_raw();
        while let Some(name) = todo.pop() {
            match rustix::fs::openat(
                &cur,
                name.as_str(),
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            ) {
                Ok(next) => cur = next,
                Err(Errno::LOOP | Errno::NOTDIR) => {
                    let st = rustix::fs::statat(&cur, name.as_str(), AtFlags::SYMLINK_NOFOLLOW)
                        .map_err(errno)?;
                    if FileType::from_raw_mode(st.st_mode) != FileType::Symlink {
                        return Err(StoreError::NotRegular);
                    }
                    if st.st_uid != me && st.st_uid != 0 {
                        return Err(StoreError::Io(std::io::Error::other(format!(
                            "{} leads through a link owned by uid {} ({name}); loopdeck follows only its own user's or root's links on the way to a project it writes",
                            path.display(),
                            st.st_uid
                        ))));
                    }
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(StoreError::OutsideProject);
                    }
                    let target =
                        rustix::fs::readlinkat(&cur, name.as_str(), Vec::new()).map_err(errno)?;
                    let target = Path::new(OsStr::from_bytes(target.as_bytes()));
                    if target.is_absolute() {
                        cur = root()?;
                    }
                    let mut more: Vec<String> = Vec::new();
                    for comp in target.components() {
                        match comp {
                            Component::Normal(c) => {
                                more.push(c.to_str().ok_or(StoreError::NotRegular)?.to_owned());
                            }
                            Component::ParentDir => more.push("..".to_owned()),
                            _ => {}
                        }
                    }
                    todo.extend(more.into_iter().rev());
                }
                Err(e) => return Err(errno(e)),
            }
        }
        Ok(Dir {
            fd: cur,
            shown: path.to_path_buf(),
        })
    }

    /// The directory holding `path` (opened as [`Dir::open`] does) and
    /// `path`'s last component.
    pub(crate) fn open_parent(path: &Path) -> Result<(Dir, String), StoreError> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or(StoreError::NotRegular)?;
        Ok((Dir::open(dir)?, name.to_owned()))
    }

    /// The path this directory was reached by (for messages).
    pub(crate) fn shown(&self) -> &Path {
        &self.shown
    }

    /// A path naming this very directory through its descriptor
    /// (`/proc/self/fd/N`), for code that takes paths (the lock, the
    /// sweep of leftovers): the kernel resolves it to the directory held,
    /// whatever has been renamed or linked since. Valid while `self` lives.
    pub(crate) fn proc_path(&self) -> PathBuf {
        use std::os::fd::AsRawFd;
        PathBuf::from(format!("/proc/self/fd/{}", self.fd.as_raw_fd()))
    }

    /// The path of the directory held, as the kernel knows it now (not
    /// looked up again through the path it was opened by, which may lead
    /// elsewhere by now).
    pub(crate) fn real_path(&self) -> PathBuf {
        std::fs::read_link(self.proc_path()).unwrap_or_else(|_| self.shown.clone())
    }

    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Another descriptor of the same directory.
    pub(crate) fn try_clone(&self) -> Result<Dir, StoreError> {
        Ok(Dir {
            fd: self.fd.try_clone().map_err(StoreError::from)?,
            shown: self.shown.clone(),
        })
    }

    /// The directory holding `relative`'s last component and that
    /// component's name, walked from this directory (the project) one
    /// component at a time without following a link anywhere but where
    /// the walk reads it itself and checks its target stays beneath this
    /// directory. When the last component is a link it is resolved too (a
    /// write goes through to the link's target); the name returned is then
    /// the target's. A missing last component is fine (a new file); a
    /// missing directory on the way is `Vanished`.
    pub(crate) fn resolve(&self, relative: &str) -> Result<(Dir, String), StoreError> {
        let mut todo = lexical(relative)?;
        let mut links = 0;
        'walk: loop {
            let mut cur = self.try_clone()?;
            let mut shown = self.shown.clone();
            let mut done: Vec<String> = Vec::new();
            let n = todo.len();
            if n == 0 {
                return Err(StoreError::NotRegular);
            }
            for (i, name) in todo.iter().enumerate() {
                let last = i + 1 == n;
                let link = if last {
                    match rustix::fs::statat(cur.fd(), name.as_str(), AtFlags::SYMLINK_NOFOLLOW) {
                        Ok(st) => FileType::from_raw_mode(st.st_mode) == FileType::Symlink,
                        Err(Errno::NOENT) => false,
                        Err(e) => return Err(errno(e)),
                    }
                } else {
                    match cur.open_dir(name) {
                        Ok(next) => {
                            shown.push(name);
                            done.push(name.clone());
                            cur = next;
                            continue;
                        }
                        Err(Errno::LOOP | Errno::NOTDIR) => {
                            match rustix::fs::statat(
                                cur.fd(),
                                name.as_str(),
                                AtFlags::SYMLINK_NOFOLLOW,
                            ) {
                                Ok(st)
                                    if FileType::from_raw_mode(st.st_mode) == FileType::Symlink =>
                                {
                                    true
                                }
                                Ok(_) => return Err(StoreError::NotRegular),
                                Err(e) => return Err(errno(e)),
                            }
                        }
                        Err(e) => return Err(errno(e)),
                    }
                };
                if !link {
                    cur.shown = shown;
                    return Ok((cur, name.clone()));
                }
                links += 1;
                if links > MAX_LINKS {
                    return Err(StoreError::OutsideProject);
                }
                let target =
                    rustix::fs::readlinkat(cur.fd(), name.as_str(), Vec::new()).map_err(errno)?;
                let target = Path::new(OsStr::from_bytes(target.as_bytes()));
                let mut next = if target.is_absolute() {
                    self.beneath_absolute(target)?
                } else {
                    let mut joined = done.join("/");
                    if !joined.is_empty() {
                        joined.push('/');
                    }
                    joined.push_str(&target.to_string_lossy());
                    lexical(&joined)?
                };
                next.extend(todo[i + 1..].iter().cloned());
                todo = next;
                continue 'walk;
            }
            unreachable_walk()?;
        }
    }

    /// An absolute link target as components below this directory, when it
    /// is beneath it (compared with the directory's real path, resolved
    /// once at the start of the walk).
    fn beneath_absolute(&self, target: &Path) -> Result<Vec<String>, StoreError> {
        let base = std::fs::canonicalize(&self.shown).map_err(StoreError::from)?;
        let rest = fold(target)
            .strip_prefix(&base)
            .map_err(|_| StoreError::OutsideProject)?
            .to_path_buf();
        lexical(&rest.to_string_lossy())
    }

    /// Open the subdirectory `name` (one component) without following a
    /// link.
    pub(crate) fn open_dir(&self, name: &str) -> Result<Dir, Errno> {
        let fd = rustix::fs::openat(
            self.fd(),
            name,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Dir {
            fd,
            shown: self.shown.join(name),
        })
    }

    /// `lstat` of `name` in this directory; `None` when it does not exist.
    pub(crate) fn stat(&self, name: &str) -> Result<Option<Stat>, StoreError> {
        match rustix::fs::statat(self.fd(), name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => Ok(Some(st)),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(errno(e)),
        }
    }

    /// Open the regular file `name` for reading, without following a link
    /// and without blocking (a FIFO or a device is refused, never waited
    /// on). `None`: absent.
    pub(crate) fn open_read(&self, name: &str) -> Result<Option<File>, StoreError> {
        let fd = match rustix::fs::openat(
            self.fd(),
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(Errno::LOOP) => return Err(StoreError::NotRegular),
            Err(e) => return Err(errno(e)),
        };
        let file = File::from(fd);
        if !file.metadata().map_err(StoreError::from)?.is_file() {
            return Err(StoreError::NotRegular);
        }
        Ok(Some(file))
    }

    /// Open the regular file `name` to append to it (created with `mode`
    /// when missing), without following a link or blocking.
    pub(crate) fn open_append(&self, name: &str, mode: u32) -> Result<File, StoreError> {
        let fd = rustix::fs::openat(
            self.fd(),
            name,
            OFlags::RDWR
                | OFlags::APPEND
                | OFlags::CREATE
                | OFlags::NOFOLLOW
                | OFlags::NONBLOCK
                | OFlags::CLOEXEC,
            Mode::from_raw_mode(mode),
        )
        .map_err(|e| match e {
            Errno::LOOP => StoreError::NotRegular,
            e => errno(e),
        })?;
        let file = File::from(fd);
        if !file.metadata().map_err(StoreError::from)?.is_file() {
            return Err(StoreError::NotRegular);
        }
        Ok(file)
    }

    /// Create `name` exclusively (never through a link) for writing.
    pub(crate) fn create_excl(&self, name: &str, mode: u32) -> Result<File, Errno> {
        let fd = rustix::fs::openat(
            self.fd(),
            name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(mode),
        )?;
        Ok(File::from(fd))
    }

    /// Rename `from` to `to`, both in this directory (replacing `to`).
    pub(crate) fn rename(&self, from: &str, to: &str) -> Result<(), Errno> {
        rustix::fs::renameat(self.fd(), from, self.fd(), to)
    }

    /// Swap `a` and `b` in this directory in one step
    /// (`renameat2(RENAME_EXCHANGE)`). `Err(Errno::INVAL)` or `NOSYS` where
    /// the file system or kernel cannot.
    pub(crate) fn exchange(&self, a: &str, b: &str) -> Result<(), Errno> {
        rustix::fs::renameat_with(self.fd(), a, self.fd(), b, RenameFlags::EXCHANGE)
    }

    /// Rename `from` to `to` unless `to` exists (`EEXIST` then; `INVAL` or
    /// `NOSYS` where the file system cannot say).
    ///
    /// On a file system without `RENAME_NOREPLACE` (`EINVAL`, `ENOSYS`),
    /// the file is linked under the new name (which fails if it exists:
    /// the same guarantee) and its old name removed; where hard links are
    /// not had either, the first error is returned and nothing moved.
    pub(crate) fn rename_noreplace(&self, from: &str, to: &str) -> Result<(), Errno> {
        match rustix::fs::renameat_with(self.fd(), from, self.fd(), to, RenameFlags::NOREPLACE) {
            Err(e @ (Errno::INVAL | Errno::NOSYS)) => {
                self.link_then_unlink(from, to).map_err(|_| e)
            }
            other => other,
        }
    }

    /// [`Self::rename_noreplace`] by a hard link and an unlink.
    fn link_then_unlink(&self, from: &str, to: &str) -> Result<(), Errno> {
        rustix::fs::linkat(self.fd(), from, self.fd(), to, AtFlags::empty())?;
        rustix::fs::unlinkat(self.fd(), from, AtFlags::empty())
    }

    /// Remove the file `name` (never a directory; a link is removed, not
    /// followed).
    pub(crate) fn unlink(&self, name: &str) -> Result<(), Errno> {
        rustix::fs::unlinkat(self.fd(), name, AtFlags::empty())
    }

    /// Make the directory `name`.
    #[cfg(test)]
    pub(crate) fn mkdir(&self, name: &str, mode: u32) -> Result<(), Errno> {
        rustix::fs::mkdirat(self.fd(), name, Mode::from_raw_mode(mode))
    }

    /// Remove the empty directory `name`.
    #[cfg(test)]
    pub(crate) fn rmdir(&self, name: &str) -> Result<(), Errno> {
        rustix::fs::unlinkat(self.fd(), name, AtFlags::REMOVEDIR)
    }

    /// fsync this directory (after a rename or removal in it); some file
    /// systems refuse, and the change has happened, so best effort.
    pub(crate) fn sync(&self) {
        let _ = rustix::fs::fsync(self.fd());
    }

    /// The names in this directory (unsorted; `.` and `..` left out).
    #[cfg(test)]
    pub(crate) fn names(&self) -> Result<Vec<String>, StoreError> {
        let fd = rustix::fs::openat(
            self.fd(),
            ".",
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(errno)?;
        let mut dir = rustix::fs::Dir::new(fd).map_err(errno)?;
        let mut out = Vec::new();
        while let Some(entry) = dir.read() {
            let entry = entry.map_err(errno)?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            if let Ok(s) = std::str::from_utf8(name) {
                out.push(s.to_owned());
            }
        }
        Ok(out)
    }
}

/// Never reached: a walk returns at its last component.
fn unreachable_walk() -> Result<(), StoreError> {
    Err(StoreError::NotRegular)
}

/// `relative` as plain components, `.` dropped and `..` folded; a path
/// that is absolute or climbs above its start is refused.
fn lexical(relative: &str) -> Result<Vec<String>, StoreError> {
    let mut out: Vec<String> = Vec::new();
    for comp in Path::new(relative).components() {
        match comp {
            Component::Normal(c) => {
                out.push(c.to_str().ok_or(StoreError::OutsideProject)?.to_owned())
            }
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop().ok_or(StoreError::OutsideProject)?;
            }
            Component::RootDir | Component::Prefix(_) => return Err(StoreError::OutsideProject),
        }
    }
    Ok(out)
}

/// `.` and `..` folded lexically.
fn fold(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_fallback_moves_a_file_and_never_replaces_one() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("a"), "new").unwrap();
        std::fs::write(tmp.path().join("b"), "old").unwrap();
        let dir = Dir::open(tmp.path()).unwrap();
        assert_eq!(dir.link_then_unlink("a", "b"), Err(Errno::EXIST));
        assert_eq!(
            std::fs::read_to_string(tmp.path().join("b")).unwrap(),
            "old"
        );
        assert_eq!(
            std::fs::read_to_string(tmp.path().join("a")).unwrap(),
            "new"
        );
        dir.link_then_unlink("a", "c").unwrap();
        assert!(!tmp.path().join("a").exists());
        assert_eq!(
            std::fs::read_to_string(tmp.path().join("c")).unwrap(),
            "new"
        );
    }
    use std::fs;
    use std::os::unix::fs::symlink;

    fn project() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("p");
        fs::create_dir_all(p.join(".planning/phases")).unwrap();
        fs::write(p.join(".planning/STATE.md"), "s").unwrap();
        fs::write(tmp.path().join("secret"), "x").unwrap();
        (tmp, p)
    }

    #[test]
    fn a_walk_returns_the_parent_and_the_name() {
        let (_t, p) = project();
        let root = Dir::open(&p).unwrap();
        let (dir, name) = root.resolve(".planning/STATE.md").unwrap();
        assert_eq!(name, "STATE.md");
        assert_eq!(dir.shown(), p.join(".planning"));
        assert!(dir.open_read(&name).unwrap().is_some());
        let (_, new) = root.resolve(".planning/phases/new.md").unwrap();
        assert_eq!(new, "new.md");
        assert!(matches!(
            root.resolve(".planning/missing/x.md"),
            Err(StoreError::Vanished)
        ));
        assert!(matches!(
            root.resolve("../secret"),
            Err(StoreError::OutsideProject)
        ));
        assert!(matches!(
            root.resolve("/etc/passwd"),
            Err(StoreError::OutsideProject)
        ));
    }

    #[test]
    fn links_inside_are_followed_and_links_outside_refused() {
        let (tmp, p) = project();
        let root = Dir::open(&p).unwrap();
        symlink(".planning", p.join("plan")).unwrap();
        let (dir, name) = root.resolve("plan/STATE.md").unwrap();
        assert_eq!(
            (dir.shown(), name.as_str()),
            (p.join(".planning").as_path(), "STATE.md")
        );
        symlink("STATE.md", p.join(".planning/link.md")).unwrap();
        let (_, name) = root.resolve(".planning/link.md").unwrap();
        assert_eq!(name, "STATE.md", "a link to a file is written through");
        let abs = fs::canonicalize(p.join(".planning/STATE.md")).unwrap();
        symlink(&abs, p.join("abs.md")).unwrap();
        assert_eq!(root.resolve("abs.md").unwrap().1, "STATE.md");

        symlink(tmp.path(), p.join("out")).unwrap();
        assert!(matches!(
            root.resolve("out/secret"),
            Err(StoreError::OutsideProject)
        ));
        symlink("../secret", p.join("up.md")).unwrap();
        assert!(matches!(
            root.resolve("up.md"),
            Err(StoreError::OutsideProject)
        ));
        symlink("loop", p.join("loop")).unwrap();
        assert!(matches!(
            root.resolve("loop"),
            Err(StoreError::OutsideProject)
        ));
    }

    /// The directory a walk returned stays the one it checked: a link
    /// swapped in for it afterwards leads nowhere.
    #[test]
    fn a_directory_swapped_for_a_link_after_the_walk_is_not_followed() {
        let (tmp, p) = project();
        let root = Dir::open(&p).unwrap();
        let (dir, name) = root.resolve(".planning/STATE.md").unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        fs::write(elsewhere.join("STATE.md"), "theirs").unwrap();
        fs::rename(p.join(".planning"), p.join(".planning-moved")).unwrap();
        symlink(&elsewhere, p.join(".planning")).unwrap();
        let mut f = dir.create_excl("tmp", 0o600).unwrap();
        std::io::Write::write_all(&mut f, b"ours").unwrap();
        dir.rename("tmp", &name).unwrap();
        assert_eq!(fs::read(elsewhere.join("STATE.md")).unwrap(), b"theirs");
        assert_eq!(
            fs::read(p.join(".planning-moved/STATE.md")).unwrap(),
            b"ours"
        );
        // A new walk refuses the link, which leaves the project.
        assert!(matches!(
            root.resolve(".planning/STATE.md"),
            Err(StoreError::OutsideProject)
        ));
    }

    /// The project's own path may pass through the user's links, never
    /// through another user's (one an agent running as that user swapped
    /// in).
    #[test]
    fn a_link_on_the_way_is_followed_only_when_it_is_ours() {
        let (tmp, p) = project();
        let mine = tmp.path().join("mine");
        symlink(&p, &mine).unwrap();
        let dir = Dir::open(&mine.join(".planning")).unwrap();
        assert!(dir.open_read("STATE.md").unwrap().is_some());
        if !rustix::process::geteuid().is_root() {
            eprintln!("SKIPPED: a link owned by another user needs root to make");
            return;
        }
        let theirs = tmp.path().join("theirs");
        symlink(&p, &theirs).unwrap();
        std::os::unix::fs::lchown(&theirs, Some(65534), Some(65534)).unwrap();
        let err = Dir::open(&theirs.join(".planning"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("owned by uid 65534"), "{err}");
    }

    /// `..` in the project's path climbs, as the kernel would: a path
    /// through a sibling and back (`p/x/../.planning`) and a link whose
    /// target climbs (`sub/up -> ../p`) reach the project's directory.
    /// Kills the deleted `Component::ParentDir` arms of `Dir::open` (the
    /// path's and the link target's): without them `x/.planning` and
    /// `sub/p` are looked for and are missing.
    #[test]
    fn a_project_path_with_dot_dot_climbs() {
        let (tmp, p) = project();
        fs::create_dir(p.join("x")).unwrap();
        let dir = Dir::open(&p.join("x/../.planning")).unwrap();
        assert!(dir.open_read("STATE.md").unwrap().is_some());
        assert_eq!(
            dir.real_path(),
            fs::canonicalize(p.join(".planning")).unwrap()
        );
        fs::create_dir(tmp.path().join("sub")).unwrap();
        symlink("../p", tmp.path().join("sub/up")).unwrap();
        let dir = Dir::open(&tmp.path().join("sub/up/.planning")).unwrap();
        assert!(dir.open_read("STATE.md").unwrap().is_some());
    }

    /// A regular file (or a FIFO) named as the project or a directory on
    /// its way is refused, not opened: kills the mutants of `Dir::open`'s
    /// and `open_dir`'s flags that drop `O_DIRECTORY` (`RDONLY & DIRECTORY`).
    #[test]
    fn a_file_is_not_opened_as_a_directory() {
        let (_t, p) = project();
        let file = p.join(".planning/STATE.md");
        assert!(matches!(Dir::open(&file), Err(StoreError::NotRegular)));
        assert!(Dir::open(&file.join("x")).is_err());
        let root = Dir::open(&p).unwrap();
        let planning = root.open_dir(".planning").unwrap();
        assert_eq!(planning.open_dir("STATE.md").unwrap_err(), Errno::NOTDIR);
        assert!(matches!(
            root.resolve(".planning/STATE.md/x"),
            Err(StoreError::NotRegular)
        ));
    }

    fn cloexec(fd: BorrowedFd<'_>) -> bool {
        rustix::io::fcntl_getfd(fd)
            .unwrap()
            .contains(rustix::io::FdFlags::CLOEXEC)
    }

    /// Every descriptor a walk or an open leaves is close-on-exec (a hook
    /// or editor loopdeck starts never inherits the project's directory).
    /// Kills the flag mutants (`| CLOEXEC` turned into `& CLOEXEC`) of
    /// `Dir::open` (`/` itself and a directory below it), `open_dir`,
    /// `open_read`, `open_append` and `create_excl`.
    #[test]
    fn every_descriptor_is_close_on_exec() {
        let (_t, p) = project();
        assert!(cloexec(Dir::open(Path::new("/")).unwrap().fd()));
        let root = Dir::open(&p).unwrap();
        assert!(cloexec(root.fd()));
        let planning = root.open_dir(".planning").unwrap();
        assert!(cloexec(planning.fd()));
        let f = planning.open_read("STATE.md").unwrap().unwrap();
        assert!(cloexec(f.as_fd()));
        let f = planning.open_append("log.ndjson", 0o644).unwrap();
        assert!(cloexec(f.as_fd()));
        let f = planning.create_excl("new.tmp", 0o600).unwrap();
        assert!(cloexec(f.as_fd()));
    }

    /// Each operation on a name does what it says, relative to the
    /// directory held: kills `rename`, `exchange`, `rename_noreplace`,
    /// `unlink`, `mkdir`, `rmdir` → `Ok(())`, `names` → `vec![...]` and
    /// its `.`/`..` filter's mutants (`||` → `&&`, `==` → `!=`), and
    /// `stat` → `Ok(None)`/`Ok(Some(..))`.
    #[test]
    fn operations_on_names_do_what_they_say() {
        let tmp = tempfile::tempdir().unwrap();
        let d = Dir::open(tmp.path()).unwrap();
        let read = |n: &str| fs::read_to_string(tmp.path().join(n)).unwrap();
        fs::write(tmp.path().join("a"), "A").unwrap();
        fs::write(tmp.path().join("b"), "B").unwrap();
        d.exchange("a", "b").unwrap();
        assert_eq!((read("a"), read("b")), ("B".to_owned(), "A".to_owned()));
        assert_eq!(d.rename_noreplace("a", "b").unwrap_err(), Errno::EXIST);
        d.rename_noreplace("a", "c").unwrap();
        assert_eq!(read("c"), "B");
        d.rename("c", "b").unwrap();
        assert_eq!(read("b"), "B");
        assert!(!tmp.path().join("c").exists());
        assert_eq!(d.rename("c", "b").unwrap_err(), Errno::NOENT);
        d.mkdir("sub", 0o700).unwrap();
        assert!(tmp.path().join("sub").is_dir());
        assert_eq!(d.mkdir("sub", 0o700).unwrap_err(), Errno::EXIST);
        let mut names = d.names().unwrap();
        names.sort();
        assert_eq!(names, vec!["b", "sub"]);
        assert_eq!(d.stat("b").unwrap().unwrap().st_size, 1);
        assert!(d.stat("a").unwrap().is_none());
        d.rmdir("sub").unwrap();
        assert!(!tmp.path().join("sub").exists());
        assert_eq!(d.rmdir("sub").unwrap_err(), Errno::NOENT);
        d.unlink("b").unwrap();
        assert!(!tmp.path().join("b").exists());
        assert_eq!(d.unlink("b").unwrap_err(), Errno::NOENT);
        assert!(d.names().unwrap().is_empty());
    }

    /// Opening never follows a link, and never waits on a FIFO; a new file
    /// is made once only. Kills the flag mutants of `open_read` that drop
    /// `O_NOFOLLOW` (and `O_NONBLOCK`: a hang), of `open_append` that drop
    /// `O_APPEND`/`O_CREAT`/`O_NOFOLLOW`, and of `create_excl` that drop
    /// `O_CREAT`/`O_EXCL`.
    #[test]
    fn opens_never_follow_a_link_nor_wait_on_a_fifo() {
        let tmp = tempfile::tempdir().unwrap();
        let d = Dir::open(tmp.path()).unwrap();
        fs::write(tmp.path().join("f"), "old\n").unwrap();
        symlink("f", tmp.path().join("link")).unwrap();
        assert!(matches!(d.open_read("link"), Err(StoreError::NotRegular)));
        assert!(matches!(
            d.open_append("link", 0o644),
            Err(StoreError::NotRegular)
        ));
        assert!(d.open_read("missing").unwrap().is_none());
        assert_eq!(d.create_excl("link", 0o600).unwrap_err(), Errno::EXIST);
        assert_eq!(d.create_excl("f", 0o600).unwrap_err(), Errno::EXIST);
        rustix::fs::mknodat(
            d.fd(),
            "fifo",
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert!(matches!(d.open_read("fifo"), Err(StoreError::NotRegular)));
        assert!(matches!(
            d.open_append("fifo", 0o644),
            Err(StoreError::NotRegular)
        ));
        let mut f = d.open_append("f", 0o644).unwrap();
        std::io::Write::write_all(&mut f, b"more\n").unwrap();
        assert_eq!(fs::read(tmp.path().join("f")).unwrap(), b"old\nmore\n");
        let mut f = d.open_append("new", 0o600).unwrap();
        std::io::Write::write_all(&mut f, b"x").unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(tmp.path().join("new"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let mut f = d.create_excl("made", 0o600).unwrap();
        std::io::Write::write_all(&mut f, b"y").unwrap();
        assert_eq!(fs::read(tmp.path().join("made")).unwrap(), b"y");
        assert!(matches!(d.open_read("."), Err(StoreError::NotRegular)));
    }

    /// `open_parent` opens the directory a path names, `.` for a bare
    /// name. Kills its guard's mutants (`true`: a bare name's directory
    /// shown as an empty path; `false`/`delete !`: every directory `.`).
    #[test]
    fn open_parent_opens_the_directory_a_path_names() {
        let (_t, p) = project();
        let (dir, name) = Dir::open_parent(&p.join(".planning/STATE.md")).unwrap();
        assert_eq!(
            (dir.shown(), name.as_str()),
            (p.join(".planning").as_path(), "STATE.md")
        );
        assert!(dir.open_read(&name).unwrap().is_some());
        let (dir, name) = Dir::open_parent(Path::new("bare.json")).unwrap();
        assert_eq!((dir.shown(), name.as_str()), (Path::new("."), "bare.json"));
        assert_eq!(dir.real_path(), std::env::current_dir().unwrap());
    }

    /// As a user that is not root, a link owned by another user cannot be
    /// made: `bench/mutants.sh` makes one as root before it drops to an
    /// unprivileged user and names it in `LOOPDECK_TEST_FOREIGN_LINK` (a
    /// link to a directory, owned by neither that user nor root). Kills
    /// the mutants of the owner check (`&&` → `||` kills itself through
    /// the user's own link above when not root) and of the flags that
    /// drop `O_NOFOLLOW` (the kernel would then follow the link unasked).
    #[test]
    fn a_link_owned_by_another_user_is_refused_when_not_root() {
        let Some(link) = std::env::var_os("LOOPDECK_TEST_FOREIGN_LINK").filter(|l| !l.is_empty())
        else {
            eprintln!(
                "SKIPPED: LOOPDECK_TEST_FOREIGN_LINK names no link owned by another user (bench/mutants.sh makes one)"
            );
            return;
        };
        let link = PathBuf::from(link);
        let st = fs::symlink_metadata(&link).unwrap();
        assert!(st.file_type().is_symlink());
        use std::os::unix::fs::MetadataExt;
        let me = rustix::process::geteuid().as_raw();
        assert!(
            st.uid() != me && st.uid() != 0,
            "{link:?} is not another user's"
        );
        assert!(
            fs::metadata(&link).unwrap().is_dir(),
            "{link:?} leads to a directory"
        );
        let err = Dir::open(&link).unwrap_err().to_string();
        assert!(err.contains(&format!("owned by uid {}", st.uid())), "{err}");
    }

    /// root's links are followed whoever runs loopdeck (`/bin -> usr/bin`
    /// on a merged-/usr system): kills `st_uid != 0` → `== 0` when not
    /// root.
    #[test]
    fn a_link_owned_by_root_is_followed() {
        let Ok(st) = fs::symlink_metadata("/bin") else {
            eprintln!("SKIPPED: no /bin");
            return;
        };
        use std::os::unix::fs::MetadataExt;
        if !st.file_type().is_symlink() || st.uid() != 0 {
            eprintln!("SKIPPED: /bin is not a link owned by root here");
            return;
        }
        let dir = Dir::open(Path::new("/bin")).unwrap();
        assert_eq!(dir.real_path(), fs::canonicalize("/bin").unwrap());
    }

    /// A chain of links: Linux's own limit (40) is followed, one more is
    /// refused, and a loop ends. Kills `links > MAX_LINKS` → `>=`/`==`
    /// (the 40th link refused) in `Dir::open` and `resolve`, and `+=` →
    /// `*=` (the loop never ends: a timeout).
    #[test]
    fn forty_links_are_followed_and_a_loop_is_not() {
        let (tmp, p) = project();
        let chain = tmp.path().join("chain");
        fs::create_dir(&chain).unwrap();
        // chain/l1 -> l2 -> ... -> l40 -> the project.
        symlink(&p, chain.join("l40")).unwrap();
        for i in (1..40).rev() {
            symlink(format!("l{}", i + 1), chain.join(format!("l{i}"))).unwrap();
        }
        assert!(Dir::open(&chain.join("l1/.planning")).is_ok());
        symlink("l1", chain.join("l0")).unwrap();
        assert!(matches!(
            Dir::open(&chain.join("l0/.planning")),
            Err(StoreError::OutsideProject)
        ));
        symlink("loop", chain.join("loop")).unwrap();
        assert!(Dir::open(&chain.join("loop")).is_err());

        // The same inside the project, for resolve.
        let root = Dir::open(&p).unwrap();
        symlink(".planning", p.join("r40")).unwrap();
        for i in (1..40).rev() {
            symlink(format!("r{}", i + 1), p.join(format!("r{i}"))).unwrap();
        }
        let (dir, name) = root.resolve("r1/STATE.md").unwrap();
        assert_eq!(
            (dir.shown(), name.as_str()),
            (p.join(".planning").as_path(), "STATE.md")
        );
        symlink("r1", p.join("r0")).unwrap();
        assert!(matches!(
            root.resolve("r0/STATE.md"),
            Err(StoreError::OutsideProject)
        ));
    }
}
