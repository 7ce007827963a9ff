//! Walking a root directory tree to find projects.
//!
//! Directory symlinks are never followed, so a walk never leaves its root and
//! never loops through a link; the depth is capped, which also bounds the
//! one loop a link-free walk can meet (a bind mount of an ancestor). Heavy
//! directories that never hold project state are not entered.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};

/// Directories that never hold project state and can be huge.
const SKIPPED: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".next",
    ".cache",
    ".gradle",
];

/// How deep below a root the walk goes.
const MAX_DEPTH: usize = 24;

/// One directory met during a walk.
pub struct WalkEntry<'a> {
    pub path: &'a Path,
    /// Path relative to the root (empty for the root itself).
    pub relative: &'a Path,
    /// Names of everything directly inside that is not a directory
    /// (regular files, symlinks, FIFOs...).
    pub files: &'a [String],
    /// Names of the sub-directories directly inside (not symlinks).
    pub dirs: &'a [String],
}

/// Visit every directory under `root` (the root included) on `threads`
/// worker threads; the order of visits is not fixed. `visit` returns the
/// names of the sub-directories it does not want entered (e.g. a format's
/// own state directory).
pub fn walk(root: &Path, threads: usize, visit: &(dyn Fn(&WalkEntry<'_>) -> Vec<String> + Sync)) {
    let queue = Queue {
        state: Mutex::new((vec![(root.to_path_buf(), 0)], 0)),
        ready: Condvar::new(),
    };
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                while let Some((dir, depth)) = queue.take() {
                    let children = visit_one(root, &dir, depth, visit);
                    queue.finish(children);
                }
            });
        }
    });
}

/// Pending directories and how many are being visited right now. The walk
/// ends when both are zero.
struct Queue {
    state: Mutex<(Vec<(PathBuf, usize)>, usize)>,
    ready: Condvar,
}

impl Queue {
    fn take(&self) -> Option<(PathBuf, usize)> {
        let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(job) = g.0.pop() {
                g.1 += 1;
                return Some(job);
            }
            if g.1 == 0 {
                return None;
            }
            g = self.ready.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn finish(&self, children: Vec<(PathBuf, usize)>) {
        let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
        g.0.extend(children);
        g.1 -= 1;
        self.ready.notify_all();
    }
}

fn visit_one(
    root: &Path,
    dir: &Path,
    depth: usize,
    visit: &(dyn Fn(&WalkEntry<'_>) -> Vec<String> + Sync),
) -> Vec<(PathBuf, usize)> {
    let Ok(rd) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for entry in rd.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Ok(ft) = entry.file_type() else { continue };
        if ft.is_dir() {
            dirs.push(name);
        } else {
            // Files, links, and also FIFOs or sockets: a reader must see a
            // `state.json` that is not a regular file to report it.
            files.push(name);
        }
    }
    files.sort();
    dirs.sort();
    let relative = dir.strip_prefix(root).unwrap_or(Path::new(""));
    let skip = visit(&WalkEntry {
        path: dir,
        relative,
        files: &files,
        dirs: &dirs,
    });
    if depth >= MAX_DEPTH {
        return Vec::new();
    }
    dirs.into_iter()
        .filter(|name| !SKIPPED.contains(&name.as_str()) && !skip.iter().any(|s| s == name))
        .map(|name| (dir.join(name), depth + 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_skips_heavy_dirs_and_symlinked_dirs() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::create_dir_all(root.join("node_modules/x")).unwrap();
        fs::create_dir_all(root.join(".git/y")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root, root.join("a/loop")).unwrap();
        for threads in [1, 2, 4] {
            let seen = Mutex::new(Vec::new());
            walk(root, threads, &|e| {
                seen.lock()
                    .unwrap()
                    .push(e.relative.to_string_lossy().into_owned());
                Vec::new()
            });
            let mut seen = seen.into_inner().unwrap();
            seen.sort();
            assert_eq!(seen, vec!["", "a", "a/b"]);
        }
    }
}
