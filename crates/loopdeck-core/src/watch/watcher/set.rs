//! Which directories are watched: the ones discovery walks (noise
//! directories and links left out, the depth capped) plus the formats' own
//! directories the readers read (`.planning`, `.dwp/plans/PLAN_*`, a
//! devloop project's `units`...). Directories only, never files: a watch
//! on a file dies after the first rename-over save.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use crate::store::{MAX_DEPTH, is_noise_dir};

/// `path` made absolute as notify spells event paths (the working
/// directory joined, `.` components dropped, links not resolved).
pub(super) fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    joined.components().collect()
}

/// How deep below its root `dir` is, when the walk would enter it: under
/// a root, no noise directory on the way, not deeper than the walk goes.
/// (That it is a directory and not a link is for the caller to check.)
pub(super) fn depth_in(dir: &Path, roots: &[PathBuf]) -> Option<usize> {
    let root = roots
        .iter()
        .filter(|r| dir.starts_with(r))
        .max_by_key(|r| r.components().count())?;
    let rel = dir.strip_prefix(root).ok()?;
    let mut depth = 0;
    for c in rel.components() {
        match c {
            Component::Normal(name) if !is_noise_dir(&name.to_string_lossy()) => depth += 1,
            _ => return None,
        }
    }
    (depth <= MAX_DEPTH).then_some(depth)
}

/// Does the walk enter a sub-directory named `name` of a directory at
/// `depth`?
pub(super) fn enters(name: &str, depth: usize) -> bool {
    depth < MAX_DEPTH && !is_noise_dir(name)
}

/// The watched directories: what to add, what a removal drops.
#[derive(Debug, Default)]
pub(super) struct WatchSet {
    dirs: BTreeSet<PathBuf>,
}

impl WatchSet {
    pub(super) fn len(&self) -> usize {
        self.dirs.len()
    }

    pub(super) fn contains(&self, dir: &Path) -> bool {
        self.dirs.contains(dir)
    }

    /// `dir` is watched now; false when it already was.
    pub(super) fn insert(&mut self, dir: PathBuf) -> bool {
        self.dirs.insert(dir)
    }

    /// `path` is gone (removed, renamed away): it and every watched
    /// directory below it are dropped, and returned (to unwatch them).
    pub(super) fn drop_under(&mut self, path: &Path) -> Vec<PathBuf> {
        let gone: Vec<PathBuf> = self
            .dirs
            .range(path.to_path_buf()..)
            .take_while(|d| d.starts_with(path))
            .cloned()
            .collect();
        for d in &gone {
            self.dirs.remove(d);
        }
        gone
    }

    /// Every watched directory, in order.
    pub(super) fn all(&self) -> Vec<PathBuf> {
        self.dirs.iter().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    #[test]
    fn a_directory_is_watched_when_the_walk_enters_it() {
        let roots = [p("/w"), p("/w/nested")];
        assert_eq!(depth_in(&p("/w"), &roots), Some(0));
        assert_eq!(depth_in(&p("/w/a/.planning/phases"), &roots), Some(3));
        // The deepest root counts (nested roots).
        assert_eq!(depth_in(&p("/w/nested/x"), &roots), Some(1));
        assert_eq!(depth_in(&p("/w/a/node_modules/x"), &roots), None);
        assert_eq!(depth_in(&p("/w/a/target"), &roots), None);
        assert_eq!(depth_in(&p("/elsewhere/a"), &roots), None);
        let deep: PathBuf = std::iter::once("/w".to_owned())
            .chain((0..=MAX_DEPTH).map(|i| format!("d{i}")))
            .collect();
        assert_eq!(depth_in(&deep, &roots), None);
        assert_eq!(depth_in(deep.parent().unwrap(), &roots), Some(MAX_DEPTH));
        assert!(enters(".planning", 1) && enters(".dwp", 1) && enters("units", 2));
        assert!(!enters(".git", 1) && !enters("node_modules", 1));
        assert!(!enters("a", MAX_DEPTH));
    }

    #[test]
    fn a_removal_drops_the_directory_and_its_subtree_only() {
        let mut set = WatchSet::default();
        for d in ["/w", "/w/a", "/w/a/b", "/w/ab", "/w/a/b/c", "/w/z"] {
            assert!(set.insert(p(d)));
        }
        assert!(!set.insert(p("/w/a")));
        assert_eq!(set.len(), 6);
        assert_eq!(
            set.drop_under(&p("/w/a")),
            [p("/w/a"), p("/w/a/b"), p("/w/a/b/c")]
        );
        // `/w/ab` shares the prefix as text, not as a path: kept.
        assert_eq!(set.all(), [p("/w"), p("/w/ab"), p("/w/z")]);
        assert!(set.drop_under(&p("/w/gone")).is_empty());
        assert_eq!(set.drop_under(&p("/w")).len(), 3);
        assert_eq!(set.len(), 0);
    }

    #[test]
    fn paths_are_spelled_as_notify_spells_them() {
        assert_eq!(absolute(&p("."), &p("/cwd")), p("/cwd"));
        assert_eq!(absolute(&p("./ws/"), &p("/cwd")), p("/cwd/ws"));
        assert_eq!(absolute(&p("/a/./b"), &p("/cwd")), p("/a/b"));
    }
}
