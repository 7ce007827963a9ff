//! Readings through a [`ReadCache`]: what the console and `watch` use, so
//! a project read again costs what changed (see [`crate::store::cache`]).

use std::path::{Path, PathBuf};

use super::{Discovery, OWN_DIRS, detect, devloop, discover_with, read_under_with};
use crate::store::cache::ReadCache;

testing_pub!(
    /// [`discover`], keeping what `cache` allows between readings (the console
    /// and `watch` read through one cache for their whole run): files that did
    /// not change are not parsed again, NDJSON logs are read from the offset
    /// last read. What the cache holds for files this reading did not meet
    /// (projects removed) is dropped.
    pub fn discover_cached(roots: &[PathBuf], cache: &ReadCache) -> Discovery {
        let pass = cache.begin_pass();
        let found = discover_with(roots, &|entry| cache.enter(pass, || detect(entry)));
        cache.sweep(pass, None);
        found
    }
);

testing_pub!(
    /// [`read_under`], keeping what `cache` allows between readings; what it
    /// holds for files under `dir` this reading did not meet is dropped.
    pub fn read_under_cached(
        root: &Path,
        dir: &Path,
        tree: bool,
        cache: &ReadCache,
    ) -> Discovery {
        let pass = cache.begin_pass();
        let found = read_under_with(root, dir, tree, &|entry| {
            cache.enter(pass, || detect(entry))
        });
        if tree {
            cache.sweep(pass, Some(dir));
        } else {
            // Only what the reading of `dir` itself reads: its files and its
            // formats' own directories, not the projects below it.
            cache.sweep_where(pass, |path| {
                let Ok(rel) = path.strip_prefix(dir) else {
                    return false;
                };
                let mut parts = rel.components();
                match (parts.next(), parts.next()) {
                    (Some(_), None) => true,
                    (Some(first), Some(_)) => {
                        let first = first.as_os_str();
                        OWN_DIRS
                            .iter()
                            .chain(devloop::OWN_DIRS)
                            .any(|d| first == *d)
                    }
                    _ => false,
                }
            });
        }
        found
    }
);
