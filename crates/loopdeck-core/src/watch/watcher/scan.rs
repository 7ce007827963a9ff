//! The reconciliation scan's view of a watched directory: its entries'
//! stat (never their contents), and what differs from the last look.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::store::is_noise_dir;

/// One entry of a directory as stat sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    pub name: OsString,
    pub dir: bool,
    pub len: u64,
    pub mtime: Option<SystemTime>,
    pub ino: u64,
}

/// The entries of `dir`, sorted by name (noise directories left out: their
/// churn never changes a project). `None`: it cannot be listed (gone).
pub(super) fn list(dir: &Path) -> Option<Vec<Entry>> {
    let rd = fs::read_dir(dir).ok()?;
    let mut out = Vec::new();
    for e in rd.flatten() {
        let name = e.file_name();
        // Not followed: a link is an entry like a file.
        let Ok(meta) = e.metadata() else { continue };
        let is_dir = meta.is_dir();
        if is_dir && is_noise_dir(&name.to_string_lossy()) {
            continue;
        }
        out.push(Entry {
            name,
            dir: is_dir,
            // A directory's size and time change with its entries, which
            // are compared one by one instead.
            len: if is_dir { 0 } else { meta.len() },
            mtime: if is_dir { None } else { meta.modified().ok() },
            ino: inode(&meta),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Some(out)
}

#[cfg(unix)]
fn inode(meta: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_: &fs::Metadata) -> u64 {
    0
}

/// What a scan found different in one directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Change {
    /// A new entry (`dir`: a directory, to be watched).
    Added { path: PathBuf, dir: bool },
    /// An entry that is gone (`dir`: its watches go).
    Removed { path: PathBuf, dir: bool },
    /// Same name, other size, time or inode (`dir`: a directory replaced).
    Changed { path: PathBuf, dir: bool },
}

impl Change {
    pub(super) fn path(&self) -> &Path {
        match self {
            Change::Added { path, .. }
            | Change::Removed { path, .. }
            | Change::Changed { path, .. } => path,
        }
    }
}

/// The differences between two sorted listings of `dir`.
pub(super) fn diff(dir: &Path, old: &[Entry], new: &[Entry]) -> Vec<Change> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        let order = match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) => a.name.cmp(&b.name),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                let a = &old[i];
                out.push(Change::Removed {
                    path: dir.join(&a.name),
                    dir: a.dir,
                });
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                let b = &new[j];
                out.push(Change::Added {
                    path: dir.join(&b.name),
                    dir: b.dir,
                });
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                let (a, b) = (&old[i], &new[j]);
                if a.dir != b.dir {
                    out.push(Change::Removed {
                        path: dir.join(&a.name),
                        dir: a.dir,
                    });
                    out.push(Change::Added {
                        path: dir.join(&b.name),
                        dir: b.dir,
                    });
                } else if a != b {
                    out.push(Change::Changed {
                        path: dir.join(&b.name),
                        dir: b.dir,
                    });
                }
                i += 1;
                j += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn e(name: &str, dir: bool, len: u64, ino: u64) -> Entry {
        Entry {
            name: name.into(),
            dir,
            len,
            mtime: None,
            ino,
        }
    }

    #[test]
    fn added_removed_changed_and_replaced_entries_are_told_apart() {
        let d = Path::new("/w/p");
        let old = [
            e("a", false, 1, 1),
            e("b", false, 1, 2),
            e("d", true, 0, 3),
            e("s", false, 5, 4),
        ];
        let new = [
            e("a", false, 1, 1),
            e("c", true, 0, 9),
            e("d", true, 0, 8),
            e("s", false, 6, 4),
        ];
        assert_eq!(
            diff(d, &old, &new),
            [
                Change::Removed {
                    path: d.join("b"),
                    dir: false
                },
                Change::Added {
                    path: d.join("c"),
                    dir: true
                },
                Change::Changed {
                    path: d.join("d"),
                    dir: true
                },
                Change::Changed {
                    path: d.join("s"),
                    dir: false
                },
            ]
        );
        assert!(diff(d, &new, &new).is_empty());
    }

    #[test]
    fn a_listing_stats_entries_and_leaves_noise_out() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("state.json"), "{}").unwrap();
        fs::create_dir(tmp.path().join(".planning")).unwrap();
        fs::create_dir(tmp.path().join("node_modules")).unwrap();
        let got = list(tmp.path()).unwrap();
        let names: Vec<_> = got
            .iter()
            .map(|e| (e.name.to_str().unwrap(), e.dir, e.len))
            .collect();
        assert_eq!(names, [(".planning", true, 0), ("state.json", false, 2)]);
        assert!(list(&tmp.path().join("gone")).is_none());
    }
}
