//! Stamps: the sha256 and length of every file a reading read whole, so a
//! decision made from that reading is applied against exactly those bytes.
//!
//! The readers do not carry stamps themselves: while a reading runs inside
//! [`collect`] (on this thread), every whole read through the store
//! ([`super::read_in`], [`super::read_in_real_subdir`],
//! [`super::read_bounded`]) is recorded here, once per path (the first
//! read wins). Partial reads (a prefix, an NDJSON tail) are not whole
//! reads and leave no stamp. Outside [`collect`] a read costs nothing more.

use std::cell::RefCell;
use std::path::{Component, Path, PathBuf};

use super::sha256_hex;

/// A file read whole: its path as the reader named it (lexically
/// normalised, see [`normalize`]), and the sha256 and length of the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub path: PathBuf,
    pub sha256: String,
    pub len: u64,
}

thread_local! {
    static STAMPS: RefCell<Option<Vec<Stamp>>> = const { RefCell::new(None) };
}

/// Run `work` (one reading) and return, with its answer, every file it read
/// whole, in the order first read. A `collect` inside another keeps its
/// stamps to itself; the outer one goes on after it. The collection ends
/// with `work`, panic or not.
pub(crate) fn collect<T>(work: impl FnOnce() -> T) -> (T, Vec<Stamp>) {
    struct Reset(Option<Vec<Stamp>>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let previous = self.0.take();
            STAMPS.with(|s| *s.borrow_mut() = previous);
        }
    }
    let reset = Reset(STAMPS.with(|s| s.borrow_mut().replace(Vec::new())));
    let out = work();
    let stamps = STAMPS.with(|s| s.borrow_mut().take()).unwrap_or_default();
    drop(reset);
    (out, stamps)
}

/// Is a collection running on this thread?
fn active() -> bool {
    STAMPS.with(|s| s.borrow().is_some())
}

/// Record that the file at `path()` was read whole as `bytes` (hashed only
/// when a collection runs and the path is not stamped yet).
pub(super) fn record(path: impl FnOnce() -> PathBuf, bytes: &[u8]) {
    if !active() {
        return;
    }
    let path = path();
    let path = if is_normal(&path) {
        path
    } else {
        normalize(&path)
    };
    STAMPS.with(|s| {
        if let Some(v) = s.borrow_mut().as_mut()
            && !v.iter().any(|st| st.path.as_os_str() == path.as_os_str())
        {
            v.push(Stamp {
                sha256: sha256_hex(bytes),
                len: bytes.len() as u64,
                path,
            });
        }
    });
}

/// Record the stamp of a file whose bytes this reading did not read again
/// (the read cache knows them unchanged: see [`super::cache`]).
pub(super) fn record_known(path: &Path, sha256: &str, len: u64) {
    if !active() {
        return;
    }
    let path = if is_normal(path) {
        path.to_path_buf()
    } else {
        normalize(path)
    };
    STAMPS.with(|s| {
        if let Some(v) = s.borrow_mut().as_mut()
            && !v.iter().any(|st| st.path.as_os_str() == path.as_os_str())
        {
            v.push(Stamp {
                sha256: sha256.to_owned(),
                len,
                path,
            });
        }
    });
}

/// Is `path` already as [`normalize`] spells it (no `.` or `..`
/// component, no doubled or trailing separator)? Checked on its bytes:
/// nearly every path a reader builds is, and then costs no allocation.
fn is_normal(path: &Path) -> bool {
    if !cfg!(unix) {
        // Drive prefixes and two separators: let `normalize` decide.
        return false;
    }
    let bytes = path.as_os_str().as_encoded_bytes();
    if bytes.is_empty() || bytes == b"/" {
        return true;
    }
    let body = bytes.strip_prefix(b"/").unwrap_or(bytes);
    body.split(|&b| b == b'/')
        .all(|part| !part.is_empty() && part != b"." && part != b"..")
}

/// The stamp this reading took of `path`, if it read it whole.
fn stamp_of(path: &Path) -> Option<Stamp> {
    STAMPS.with(|s| {
        s.borrow()
            .as_ref()
            .and_then(|v| v.iter().find(|st| st.path == path).cloned())
    })
}

/// The sha256 of the file `relative` inside `project` as this reading
/// read it: its stamp when the reading read it whole, else (outside a
/// collection, or a file not read yet) the sha256 of a fresh bounded read.
/// `None` when it cannot be read.
pub(crate) fn sha256_in(project: &Path, relative: &str) -> Option<String> {
    if let Some(st) = stamp_of(&normalize(&project.join(relative))) {
        return Some(st.sha256);
    }
    super::read_in(project, relative, super::STATE_FILE_LIMIT)
        .ok()
        .map(|b| sha256_hex(&b))
}

/// `path` with `.` dropped and `..` folded into the component before it
/// (lexically: a path is compared with the project it lies in as both were
/// spelt, never resolved). A `..` with nothing before it to fold stays.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other),
        }
    }
    out
}

/// `path` relative to `dir` (both normalised), spelt with `/`: the name a
/// project's stamp carries. `None` when `path` is not below `dir`.
pub(crate) fn relative_to(path: &Path, dir: &Path) -> Option<String> {
    // On the bytes: both are normalised, so a prefix ending at a
    // separator is a parent directory.
    let (p, d) = (
        path.as_os_str().as_encoded_bytes(),
        dir.as_os_str().as_encoded_bytes(),
    );
    let rest = p.strip_prefix(d)?;
    let rest = match rest.split_first() {
        Some((&b, rest)) if std::path::is_separator(char::from(b)) => rest,
        // `dir` is the root (`/`) or empty (the current directory).
        _ if d.is_empty()
            || d.last()
                .is_some_and(|&b| std::path::is_separator(char::from(b))) =>
        {
            rest
        }
        _ => return None,
    };
    if rest.is_empty() {
        return None;
    }
    let rel = String::from_utf8_lossy(rest);
    Some(if std::path::MAIN_SEPARATOR == '/' {
        rel.into_owned()
    } else {
        rel.replace(std::path::MAIN_SEPARATOR, "/")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn whole_reads_are_stamped_once_and_partial_reads_never() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        fs::create_dir_all(p.join(".planning")).unwrap();
        fs::write(p.join("state.json"), b"{\"a\":1}\n").unwrap();
        fs::write(p.join(".planning/STATE.md"), b"# State\n").unwrap();
        fs::write(p.join("big.md"), b"0123456789").unwrap();
        let ((), stamps) = collect(|| {
            super::super::read_in(p, "state.json", 100).unwrap();
            super::super::read_in(p, "./state.json", 100).unwrap();
            super::super::read_in_real_subdir(p, ".planning", "STATE.md", 100).unwrap();
            super::super::read_prefix_in(p, "big.md", 4).unwrap();
            assert!(super::super::read_in(p, "missing", 100).is_err());
            super::super::read_bounded(&p.join("big.md"), 5).unwrap_err();
        });
        let names: Vec<String> = stamps
            .iter()
            .map(|s| relative_to(&s.path, &normalize(p)).unwrap())
            .collect();
        assert_eq!(names, ["state.json", ".planning/STATE.md"]);
        assert_eq!(stamps[0].sha256, sha256_hex(b"{\"a\":1}\n"));
        assert_eq!(stamps[0].len, 8);
        assert_eq!(stamps[1].sha256, sha256_hex(b"# State\n"));
    }

    #[test]
    fn no_collection_no_cost_and_nesting_keeps_each_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        fs::write(p.join("a"), b"a").unwrap();
        fs::write(p.join("b"), b"b").unwrap();
        super::super::read_in(p, "a", 10).unwrap();
        assert!(!active());
        let ((), outer) = collect(|| {
            super::super::read_in(p, "a", 10).unwrap();
            let ((), inner) = collect(|| {
                super::super::read_in(p, "b", 10).unwrap();
            });
            assert_eq!(inner.len(), 1);
            assert!(inner[0].path.ends_with("b"));
            super::super::read_bounded(&p.join("b"), 10).unwrap();
        });
        let names: Vec<_> = outer.iter().map(|s| s.path.clone()).collect();
        assert_eq!(names, [normalize(&p.join("a")), normalize(&p.join("b"))]);
        assert!(!active(), "the collection ended with its work");
    }

    #[test]
    fn a_panic_ends_the_collection() {
        let r = std::panic::catch_unwind(|| {
            collect(|| panic!("boom"));
        });
        assert!(r.is_err());
        assert!(!active());
    }

    #[test]
    fn the_stamp_answers_for_the_bytes_read_not_the_file_now() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        fs::write(p.join("state.json"), b"old").unwrap();
        let (sha, _) = collect(|| {
            super::super::read_in(p, "state.json", 10).unwrap();
            fs::write(p.join("state.json"), b"new").unwrap();
            sha256_in(p, "state.json")
        });
        assert_eq!(sha, Some(sha256_hex(b"old")));
        assert_eq!(sha256_in(p, "state.json"), Some(sha256_hex(b"new")));
        assert_eq!(sha256_in(p, "gone"), None);
    }

    #[test]
    fn paths_are_folded_lexically() {
        assert_eq!(normalize(Path::new("a/./b/../c")), Path::new("a/c"));
        assert_eq!(normalize(Path::new("../x/./y")), Path::new("../x/y"));
        assert_eq!(normalize(Path::new("/../x")), Path::new("/x"));
        assert_eq!(
            relative_to(Path::new("w/p/.planning/STATE.md"), Path::new("w/p")),
            Some(".planning/STATE.md".to_owned())
        );
        assert_eq!(relative_to(Path::new("w/q/s"), Path::new("w/p")), None);
        assert_eq!(relative_to(Path::new("w/p"), Path::new("w/p")), None);
        assert_eq!(relative_to(Path::new("w/pq/s"), Path::new("w/p")), None);
        assert_eq!(
            relative_to(Path::new("/s.json"), Path::new("/")),
            Some("s.json".to_owned())
        );
        assert_eq!(
            relative_to(Path::new("s.json"), Path::new("")),
            Some("s.json".to_owned())
        );
        for (p, normal) in [
            ("a/b/c.json", true),
            ("/abs/b", true),
            ("/", true),
            ("a", true),
            ("", true),
            ("a/./b", false),
            ("./a", false),
            ("a/..", false),
            ("../a", false),
            ("a//b", false),
            ("a/b/", false),
            ("a/.b/..c", true),
        ] {
            assert_eq!(is_normal(Path::new(p)), normal, "{p}");
            if normal {
                assert_eq!(normalize(Path::new(p)), Path::new(p), "{p}");
            }
        }
    }
}
