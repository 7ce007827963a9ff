//! Walking a root directory tree to find projects.
//!
//! Directory symlinks are never followed, so a walk never leaves its root and
//! never loops through a link; the depth is capped, which also bounds the
//! one loop a link-free walk can meet (a bind mount of an ancestor, a
//! network or FUSE file system that shows a directory inside itself).
//! Where the cap leaves directories unsearched, the walk says so: one
//! problem naming the first such directory (and how many more), never a
//! silent loss. Heavy directories that never hold project state are not
//! entered.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};

/// Directories that never hold project state and can be huge: the walk
/// does not enter them, and the console's watcher ignores their churn.
pub(super) const NOISE_DIRS: &[&str] = &[
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

/// Is `name` one of the [`NOISE_DIRS`]?
pub(crate) fn is_noise_dir(name: &str) -> bool {
    NOISE_DIRS.contains(&name)
}

/// A directory the walk met but could not list (its projects, if any,
/// cannot be seen): the caller reports it, never drops it silently.
#[derive(Debug)]
pub(crate) struct Unreadable {
    pub path: PathBuf,
    pub error: std::io::Error,
}

/// How deep below a root the walk goes.
pub(crate) const MAX_DEPTH: usize = 24;

/// One directory met during a walk.
pub(crate) struct WalkEntry<'a> {
    pub path: &'a Path,
    /// Names of everything directly inside that is not a directory
    /// (regular files, symlinks, FIFOs...).
    pub files: &'a [String],
    /// Names of the sub-directories directly inside (not symlinks).
    pub dirs: &'a [String],
}

/// Visit every directory under `root` (the root included) on `threads`
/// worker threads; the order of visits is not fixed. `visit` returns the
/// names of the sub-directories it does not want entered (e.g. a format's
/// own state directory). Returns the directories that could not be listed
/// (the root included), in no fixed order.
pub(crate) fn walk(
    root: &Path,
    threads: usize,
    visit: &(dyn Fn(&WalkEntry<'_>) -> Vec<String> + Sync),
) -> Vec<Unreadable> {
    let queue = Queue {
        state: Mutex::new((vec![(root.to_path_buf(), 0)], 0)),
        ready: Condvar::new(),
    };
    let unreadable = Mutex::new(Vec::new());
    let cut = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                while let Some((dir, depth)) = queue.take() {
                    // Marks the job done even if `visit` panics, so the other
                    // workers stop waiting and the panic reaches the caller
                    // instead of hanging the walk.
                    let mut done = Done {
                        queue: &queue,
                        children: Vec::new(),
                    };
                    done.children = visit_one(&dir, depth, visit, &unreadable, &cut);
                }
            });
        }
    });
    let mut unreadable = unreadable.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut cut = cut.into_inner().unwrap_or_else(|e| e.into_inner());
    cut.sort();
    if let Some(first) = cut.first() {
        unreadable.push(too_deep(first, cut.len() - 1));
    }
    unreadable
}

/// The problem of the directories the depth cap left unsearched: `dir`,
/// and `more` others as deep.
fn too_deep(dir: &Path, more: usize) -> Unreadable {
    let others = match more {
        0 => String::new(),
        1 => ", as is 1 other directory".to_owned(),
        n => format!(", as are {n} other directories"),
    };
    Unreadable {
        path: dir.to_path_buf(),
        error: std::io::Error::other(format!(
            "it is more than {MAX_DEPTH} levels below the root, deeper than loopdeck \
             looks{others}, so no project in it is listed; give it as a root to list them"
        )),
    }
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
        let more = children.len();
        let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
        g.0.extend(children);
        g.1 -= 1;
        let done = g.0.is_empty() && g.1 == 0;
        drop(g);
        // Wake a waiter only for new work (this worker takes one job
        // itself) or for the end of the walk: waking on every directory
        // costs a futex round trip per directory.
        if done {
            self.ready.notify_all();
        } else if more > 1 {
            self.ready.notify_one();
        }
    }
}

struct Done<'a> {
    queue: &'a Queue,
    children: Vec<(PathBuf, usize)>,
}

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.queue.finish(std::mem::take(&mut self.children));
    }
}

fn visit_one(
    dir: &Path,
    depth: usize,
    visit: &(dyn Fn(&WalkEntry<'_>) -> Vec<String> + Sync),
    unreadable: &Mutex<Vec<Unreadable>>,
    cut: &Mutex<Vec<PathBuf>>,
) -> Vec<(PathBuf, usize)> {
    let report = |error| {
        unreadable
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Unreadable {
                path: dir.to_path_buf(),
                error,
            });
    };
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            report(e);
            return Vec::new();
        }
    };
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    let mut subdirs: Vec<OsString> = Vec::new();
    let mut failed = None;
    for entry in rd {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                // Listing stopped midway (an I/O error): what was listed
                // is still visited, and the directory is reported.
                failed.get_or_insert(e);
                continue;
            }
        };
        let Ok(ft) = entry.file_type() else { continue };
        let os_name = entry.file_name();
        // Names are compared as text (format file names are ASCII); a name
        // that is not UTF-8 is still walked into, by its exact bytes.
        let name = os_name.to_string_lossy().into_owned();
        if ft.is_dir() {
            dirs.push(name);
            subdirs.push(os_name);
        } else {
            // Files, links, and also FIFOs or sockets: a reader must see a
            // `state.json` that is not a regular file to report it.
            files.push(name);
        }
    }
    if let Some(e) = failed {
        report(e);
    }
    files.sort();
    dirs.sort();
    let skip = visit(&WalkEntry {
        path: dir,
        files: &files,
        dirs: &dirs,
    });
    let enter = subdirs.into_iter().filter(|name| {
        let text = name.to_string_lossy();
        !is_noise_dir(&text) && !skip.iter().any(|s| *s == text)
    });
    if depth >= MAX_DEPTH {
        // Every directory left unsearched is counted, never lost silently.
        let unsearched: Vec<PathBuf> = enter.map(|name| dir.join(name)).collect();
        if !unsearched.is_empty() {
            cut.lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend(unsearched);
        }
        return Vec::new();
    }
    enter.map(|name| (dir.join(name), depth + 1)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path of `e` relative to the walk's `root` (empty for the root).
    fn relative<'a>(root: &Path, e: &WalkEntry<'a>) -> &'a Path {
        e.path.strip_prefix(root).unwrap()
    }

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
            let _ = walk(root, threads, &|e| {
                seen.lock()
                    .unwrap()
                    .push(relative(root, e).to_string_lossy().into_owned());
                Vec::new()
            });
            let mut seen = seen.into_inner().unwrap();
            seen.sort();
            assert_eq!(seen, vec!["", "a", "a/b"]);
        }
    }

    #[test]
    fn every_noise_directory_is_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        for d in NOISE_DIRS {
            fs::create_dir_all(tmp.path().join("p").join(d).join("inner")).unwrap();
        }
        let seen = Mutex::new(Vec::new());
        let unreadable = walk(tmp.path(), 2, &|e| {
            seen.lock().unwrap().push(relative(tmp.path(), e).to_path_buf());
            Vec::new()
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        assert_eq!(seen, [PathBuf::new(), PathBuf::from("p")]);
        assert!(unreadable.is_empty());
        assert!(is_noise_dir("node_modules") && !is_noise_dir("src"));
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_are_walked_into() {
        use std::os::unix::ffi::OsStrExt;
        let tmp = tempfile::tempdir().unwrap();
        let odd = tmp.path().join(std::ffi::OsStr::from_bytes(b"bad\xff"));
        fs::create_dir_all(odd.join("inner")).unwrap();
        let seen = Mutex::new(Vec::new());
        let _ = walk(tmp.path(), 2, &|e| {
            seen.lock().unwrap().push(e.path.to_path_buf());
            Vec::new()
        });
        assert!(seen.into_inner().unwrap().contains(&odd.join("inner")));
    }

    /// A chain deeper than the cap: the walk stops at the cap and says
    /// where, once per directory it left unsearched.
    #[test]
    fn the_depth_cap_is_reported_where_it_cuts() {
        let tmp = tempfile::tempdir().unwrap();
        let mut deep = tmp.path().to_path_buf();
        for i in 0..MAX_DEPTH + 6 {
            deep.push(format!("d{i}"));
        }
        fs::create_dir_all(&deep).unwrap();
        // A second branch cut at the same depth; one that ends at the cap
        // (nothing left unsearched) is not a problem.
        let mut other = tmp.path().to_path_buf();
        for i in 0..=MAX_DEPTH {
            other.push(format!("e{i}"));
        }
        fs::create_dir_all(other.join("below")).unwrap();
        let mut ends = tmp.path().to_path_buf();
        for i in 0..MAX_DEPTH {
            ends.push(format!("f{i}"));
        }
        fs::create_dir_all(&ends).unwrap();
        let problems = walk(tmp.path(), 2, &|_| Vec::new());
        assert_eq!(problems.len(), 1, "{problems:?}");
        let cut_at: PathBuf = (0..=MAX_DEPTH).map(|i| format!("d{i}")).collect();
        assert_eq!(problems[0].path, tmp.path().join(cut_at));
        let why = problems[0].error.to_string();
        assert!(why.contains("more than 24 levels below the root"), "{why}");
        assert!(why.contains(", as is 1 other directory,"), "{why}");
    }

    #[test]
    fn a_panicking_visitor_fails_the_walk_instead_of_hanging_it() {
        let tmp = tempfile::tempdir().unwrap();
        for d in ["a", "b", "c"] {
            fs::create_dir_all(tmp.path().join(d)).unwrap();
        }
        let result = std::panic::catch_unwind(|| {
            let _ = walk(tmp.path(), 2, &|e| {
                assert!(!relative(tmp.path(), e).ends_with("b"), "boom");
                Vec::new()
            });
        });
        assert!(result.is_err());
    }
}
