//! Temp files left by a killed writer: `.<name>.loopdeck-<pid>-<random>.tmp`
//! (a replace's temp file, a broken lock set aside) older than a minute,
//! or whose pid is gone, are removed from a directory before loopdeck
//! writes there.

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use super::atomic::{TEMP_MARK, TEMP_SUFFIX};

/// A temp file older than this is a leftover whatever its pid says.
pub(crate) const TEMP_MAX_AGE: Duration = Duration::from_secs(60);

/// The pid a loopdeck temp file name carries (`None`: not one of ours).
pub(crate) fn temp_pid(name: &str) -> Option<u32> {
    if !name.starts_with('.') {
        return None;
    }
    let rest = name.strip_suffix(TEMP_SUFFIX)?;
    let at = rest.rfind(TEMP_MARK)?;
    let tail = &rest[at + TEMP_MARK.len()..];
    let (pid, random) = tail.split_once('-')?;
    if random.is_empty() || !random.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    pid.parse().ok()
}

/// Remove the leftovers in `dir`; returns how many were removed.
pub(crate) fn sweep(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let now = SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temp_pid) else {
            continue;
        };
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > TEMP_MAX_AGE);
        if (old || !super::process::pid_alive(pid)) && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn names_are_ours_only_with_pid_and_random() {
        assert_eq!(temp_pid(".state.json.loopdeck-123-00ff.tmp"), Some(123));
        assert_eq!(temp_pid(".a.loopdeck-b.loopdeck-7-ab.tmp"), Some(7));
        assert_eq!(temp_pid("state.json.loopdeck-123-00ff.tmp"), None);
        assert_eq!(temp_pid(".state.json.loopdeck-123-.tmp"), None);
        assert_eq!(temp_pid(".state.json.loopdeck-x-ff.tmp"), None);
        assert_eq!(temp_pid(".state.json.tmp"), None);
    }

    #[test]
    fn dead_writers_temps_go_live_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let dead = dir
            .path()
            .join(format!(".s.json{TEMP_MARK}{}-ab.tmp", dead_pid()));
        let live = dir
            .path()
            .join(format!(".s.json{TEMP_MARK}{}-cd.tmp", std::process::id()));
        let other = dir.path().join(".s.json.tmp");
        for p in [&dead, &live, &other] {
            fs::write(p, "x").unwrap();
        }
        assert_eq!(sweep(dir.path()), 1);
        assert!(!dead.exists());
        assert!(live.exists() && other.exists());
        // An old one goes even when its pid is alive.
        let old = SystemTime::now() - Duration::from_secs(120);
        fs::File::options()
            .write(true)
            .open(&live)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert_eq!(sweep(dir.path()), 1);
        assert!(!live.exists() && other.exists());
    }

    /// A pid no process has: a child that has exited and been waited for.
    pub(crate) fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }
}
