//! Walking a root directory tree to find projects.
//!
//! Directory symlinks are never followed (so a walk never leaves its root and
//! never loops through a link); on Unix, directories already visited (by
//! device and inode, e.g. through bind mounts) are skipped too. Heavy
//! directories that never hold project state are not entered.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

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
    /// Names of the regular files and file symlinks directly inside.
    pub files: &'a [String],
    /// Names of the sub-directories directly inside (not symlinks).
    pub dirs: &'a [String],
}

/// Visit every directory under `root` (the root included), parents before
/// children, siblings in name order. `visit` returns the names of the
/// sub-directories it does not want entered (e.g. a format's own state
/// directory).
pub fn walk(root: &Path, visit: &mut dyn FnMut(&WalkEntry<'_>) -> Vec<String>) {
    let mut seen = HashSet::new();
    let mut stack: Vec<(PathBuf, usize)> = vec![(root.to_path_buf(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        if !first_visit(&mut seen, &dir) {
            continue;
        }
        let Ok(rd) = fs::read_dir(&dir) else {
            continue;
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
            } else if ft.is_file() || ft.is_symlink() {
                files.push(name);
            }
        }
        files.sort();
        dirs.sort();
        let relative = dir.strip_prefix(root).unwrap_or(Path::new(""));
        let skip = visit(&WalkEntry {
            path: &dir,
            relative,
            files: &files,
            dirs: &dirs,
        });
        if depth >= MAX_DEPTH {
            continue;
        }
        for name in dirs.iter().rev() {
            if SKIPPED.contains(&name.as_str()) || skip.iter().any(|s| s == name) {
                continue;
            }
            stack.push((dir.join(name), depth + 1));
        }
    }
}

#[cfg(unix)]
fn first_visit(seen: &mut HashSet<(u64, u64)>, dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match fs::metadata(dir) {
        Ok(m) => seen.insert((m.dev(), m.ino())),
        Err(_) => false,
    }
}

#[cfg(not(unix))]
fn first_visit(_seen: &mut HashSet<(u64, u64)>, _dir: &Path) -> bool {
    true
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
        let mut seen = Vec::new();
        walk(root, &mut |e| {
            seen.push(e.relative.to_string_lossy().into_owned());
            Vec::new()
        });
        assert_eq!(seen, vec!["", "a", "a/b"]);
    }
}
