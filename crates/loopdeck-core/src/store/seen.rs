//! The "since you looked" memory on disk: `seen.json` beside the audit
//! log, in `$XDG_STATE_HOME/loopdeck` (directory 0700, file 0600), written
//! by atomic replacement:
//! `{"version": 1, "projects": {"FORMAT:/abs/path": Seen, …}}`
//! (see `model::seen::Seen`). A missing file is an empty memory; an
//! unreadable or corrupt one too, said once (and replaced by the next
//! save). Never a crash.
//!
//! The directory, the file and its lock are trusted only when this user
//! owns them and no one else may write them, and never through a link
//! (see [`audit::Untrusted`]): another user's memory is not read, and
//! nothing is saved into another user's directory.
//!
//! Two consoles may be open at once: a save merges with what is on disk
//! under the store's own lock (`seen.json.loopdeck-lock`), each project
//! keeping the look taken later, so neither console forgets what the other
//! recorded.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::audit::{self, ReadError, Untrusted};
use super::{StoreError, atomic};
use crate::model::seen::Seen;

/// The memory's file name in the state directory.
pub const FILE: &str = "seen.json";
/// The largest memory file read.
const LIMIT: u64 = 64 * 1024 * 1024;
const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct OnDisk {
    version: u32,
    projects: BTreeMap<String, Seen>,
}

/// The lock of the memory file, in the state directory.
fn lock_name() -> String {
    super::lock::lock_name(FILE, super::txn::LockKind::Owner)
}

/// The memory file in the state directory `dir`.
pub fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// The memory in `dir`, and a warning to show once when it could not be
/// read (then the memory starts empty).
pub fn load(dir: &Path) -> (BTreeMap<String, Seen>, Option<String>) {
    let file = path(dir);
    match audit::trusted_dir(dir) {
        Ok(true) => {}
        Ok(false) => return (BTreeMap::new(), None),
        Err(e) => return (BTreeMap::new(), Some(untrusted(&e))),
    }
    let bytes = match audit::read_trusted(&file, LIMIT) {
        Ok(Some(b)) => b,
        Ok(None) | Err(ReadError::Store(StoreError::Vanished)) => return (BTreeMap::new(), None),
        Err(ReadError::Untrusted(e)) => return (BTreeMap::new(), Some(untrusted(&e))),
        Err(ReadError::Store(e)) => {
            return (BTreeMap::new(), Some(unreadable(&file, &e.to_string())));
        }
    };
    match serde_json::from_slice::<OnDisk>(&bytes) {
        Ok(d) if d.version == VERSION => (d.projects, None),
        Ok(d) => (
            BTreeMap::new(),
            Some(unreadable(&file, &format!("version {} unknown", d.version))),
        ),
        Err(e) => (BTreeMap::new(), Some(unreadable(&file, &e.to_string()))),
    }
}

fn unreadable(file: &Path, why: &str) -> String {
    format!(
        "{} could not be read ({why}): what you last looked at starts afresh",
        file.display()
    )
}

fn untrusted(e: &Untrusted) -> String {
    format!("{e}; what you last looked at is not read from it, nor saved")
}

/// How long a save waits for another console's save to finish.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Write the memory to `dir` (made 0700 if missing), atomically, 0600,
/// merged with what another console saved there meanwhile: per project,
/// the later look wins; what neither holds and no one looked at for
/// `FORGET_DAYS` (before `now`) is forgotten.
pub fn save(
    dir: &Path,
    projects: &BTreeMap<String, Seen>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), StoreError> {
    let refuse = |e: Untrusted| StoreError::Io(std::io::Error::other(untrusted(&e)));
    audit::make_state_dir(dir).map_err(refuse)?;
    let file = path(dir);
    // The lock another console left, and the memory replaced, are this
    // user's own (a planted one would block every save, or be replaced as
    // its owner).
    audit::trust_file(&dir.join(lock_name())).map_err(refuse)?;
    audit::trust_file(&file).map_err(refuse)?;
    let _lock = super::lock::acquire(dir, FILE, super::txn::LockKind::Owner, LOCK_WAIT)
        .map_err(|e| StoreError::Io(std::io::Error::other(e.to_string())))?;
    let mut merged = load(dir).0;
    for (key, seen) in projects {
        if merged.get(key).is_none_or(|on_disk| on_disk.at <= seen.at) {
            merged.insert(key.clone(), seen.clone());
        }
    }
    // What this console forgot stays forgotten unless another console
    // looked at it lately (it saves it again if it still holds it).
    crate::model::seen::forget(&mut merged, |k| projects.contains_key(k), now);
    let bytes = serde_json::to_vec(&OnDisk {
        version: VERSION,
        projects: merged,
    })
    .map_err(|e| StoreError::Io(std::io::Error::other(e)))?;
    write_private(&file, &bytes)
}

/// Replace `file` in the state directory with `bytes` atomically, the file
/// readable and writable by this user alone (0600).
pub(super) fn write_private(file: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    // A new file is created 0600 first: the replacement keeps its mode.
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let _ = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(super::custom_flags(rustix::fs::OFlags::NOFOLLOW))
            .open(file);
    }
    atomic::replace(file, bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(file, fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::model::{Format, Project};
    use chrono::{TimeZone, Utc};

    fn memory() -> BTreeMap<String, Seen> {
        let mut p = Project::new(Format::Gsd, PathBuf::from("/w/a"), "a".to_owned());
        p.status = "执行中".to_owned();
        p.stage = Some("3".to_owned().into());
        let at = Utc.with_ymd_and_hms(2026, 6, 1, 10, 0, 0).unwrap();
        BTreeMap::from([("gsd:/w/a".to_owned(), Seen::of(&p, at))])
    }

    #[test]
    fn a_missing_file_is_an_empty_memory_without_a_word() {
        let dir = tempfile::tempdir().unwrap();
        let (m, warning) = load(&dir.path().join("none"));
        assert!(m.is_empty());
        assert_eq!(warning, None);
    }

    #[test]
    fn the_memory_round_trips_private() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state/loopdeck");
        save(&state, &memory(), now()).unwrap();
        let (back, warning) = load(&state);
        assert_eq!(warning, None);
        assert_eq!(back, memory());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(path(&state)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let mode = fs::metadata(&state).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        // Saved again over itself: still one file (the lock is gone), 0600.
        save(&state, &memory(), now()).unwrap();
        assert_eq!(load(&state).0, memory());
        assert_eq!(fs::read_dir(&state).unwrap().count(), 1);
    }

    /// "Now" for the saves: the looks below are a few hours old.
    fn now() -> chrono::DateTime<chrono::Utc> {
        Utc.with_ymd_and_hms(2026, 6, 1, 23, 0, 0).unwrap()
    }

    /// A save forgets what neither console holds and no one looked at for
    /// 90 days (another console's, or one this console pruned), and keeps
    /// it otherwise.
    #[test]
    fn a_save_forgets_old_looks_no_console_holds() {
        let dir = tempfile::tempdir().unwrap();
        let (old_key, mut old) = look("old", 1);
        old.at = now() - chrono::Duration::days(91);
        let (recent_key, mut recent) = look("recent", 2);
        recent.at = now() - chrono::Duration::days(89);
        let disk = BTreeMap::from([(old_key.clone(), old.clone()), (recent_key.clone(), recent)]);
        save(dir.path(), &disk, now()).unwrap();
        let mine = BTreeMap::from([look("mine", 10)]);
        save(dir.path(), &mine, now()).unwrap();
        let keys: Vec<String> = load(dir.path()).0.into_keys().collect();
        assert_eq!(keys, vec!["gsd:/w/mine".to_owned(), recent_key]);
        // An old look this console still holds is kept.
        save(dir.path(), &BTreeMap::from([(old_key.clone(), old)]), now()).unwrap();
        assert!(load(dir.path()).0.contains_key(&old_key));
    }

    /// What a console saw of `name` at `hour`.
    fn look(name: &str, hour: u32) -> (String, Seen) {
        let mut p = Project::new(
            Format::Gsd,
            PathBuf::from(format!("/w/{name}")),
            name.into(),
        );
        p.status = format!("seen at {hour}");
        let at = Utc.with_ymd_and_hms(2026, 6, 1, hour, 0, 0).unwrap();
        (format!("gsd:/w/{name}"), Seen::of(&p, at))
    }

    #[test]
    fn two_consoles_saving_keep_each_projects_later_look() {
        let dir = tempfile::tempdir().unwrap();
        // Console one looked at a (10h) and b (11h); console two, started
        // before one saved, looked at b later (12h) and at c, and still
        // remembers a from an older run (9h).
        let one = BTreeMap::from([look("a", 10), look("b", 11)]);
        let two = BTreeMap::from([look("a", 9), look("b", 12), look("c", 8)]);
        save(dir.path(), &one, now()).unwrap();
        save(dir.path(), &two, now()).unwrap();
        let want = BTreeMap::from([look("a", 10), look("b", 12), look("c", 8)]);
        assert_eq!(load(dir.path()), (want.clone(), None));
        // Console one saves again what it knows: nothing two recorded is lost.
        save(dir.path(), &one, now()).unwrap();
        assert_eq!(load(dir.path()).0, want);
    }

    #[test]
    fn a_corrupt_file_starts_afresh_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(path(dir.path()), b"{\"version\":1,\"projects\":{\"x\":").unwrap();
        let (m, warning) = load(dir.path());
        assert!(m.is_empty());
        let warning = warning.expect("a warning");
        assert!(warning.contains("seen.json could not be read"), "{warning}");
        assert!(warning.contains("starts afresh"), "{warning}");
        // A save replaces it.
        save(dir.path(), &memory(), now()).unwrap();
        assert_eq!(load(dir.path()), (memory(), None));
        // A future version is not misread.
        fs::write(path(dir.path()), b"{\"version\":9,\"projects\":{}}").unwrap();
        assert!(load(dir.path()).1.is_some_and(|w| w.contains("version 9")));
    }

    /// Another user may write the directory: nothing is saved there, and
    /// what is there is not read; a planted link to the lock is refused,
    /// its target untouched.
    #[cfg(unix)]
    #[test]
    fn an_untrusted_directory_is_neither_read_nor_written() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("loopdeck");
        save(&dir, &memory(), now()).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
        let err = save(&dir, &memory(), now()).unwrap_err().to_string();
        assert!(
            err.contains("writable by group or others (mode 0777)"),
            "{err}"
        );
        assert!(err.contains("chmod go-w"), "{err}");
        let (m, warning) = load(&dir);
        assert!(m.is_empty());
        let warning = warning.expect("a warning");
        assert!(warning.contains(&dir.display().to_string()), "{warning}");
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
        let target = tmp.path().join("target");
        fs::write(&target, "mine").unwrap();
        std::os::unix::fs::symlink(&target, dir.join(lock_name())).unwrap();
        let err = save(&dir, &memory(), now()).unwrap_err().to_string();
        assert!(err.contains("is a symbolic link"), "{err}");
        assert_eq!(fs::read(&target).unwrap(), b"mine");
    }
}
