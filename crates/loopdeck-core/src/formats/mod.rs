//! One module per on-disk format. Each knows how to recognise its projects in
//! a directory, read them into the shared model, and (later) apply the
//! decisions it allows. Nothing outside a format's module knows its file
//! names.

pub(crate) mod act;
pub(crate) mod audit;
mod cached;
testing_pub!(
    pub mod devloop;
);
testing_pub!(
    pub mod dwp;
);
testing_pub!(
    pub mod gsd;
);
pub(crate) mod json;
testing_pub!(
    pub mod jsonedit;
);
testing_pub!(
    pub mod prd_master;
);
mod dated;
mod excerpt;
mod markdown;
mod shape;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

use crate::guard;
use crate::model::{Excerpt, FileStamp, Problem, Project, sort_newest_first};
use crate::store::{self, StoreError, WalkEntry};

testing_pub!(
    pub use cached::{discover_cached, read_under_cached};
);

/// Every project in the directory `entry` describes, and the names of its
/// sub-directories the walk need not enter (a format's own state).
fn detect(entry: &WalkEntry<'_>) -> (Vec<Project>, Vec<String>) {
    let mut found = Vec::new();
    let mut skip: Vec<String> = OWN_DIRS.iter().map(|d| (*d).to_owned()).collect();
    found.extend(stamped(|| prd_master::discover(entry)));
    found.extend(stamped(|| gsd::discover(entry)));
    found.extend(stamped(|| dwp::discover(entry)));
    found.extend(stamped(|| devloop::unlisted(entry)));
    let devloop = stamped(|| devloop::discover(entry));
    if !devloop.is_empty() {
        found.extend(devloop);
        skip.extend(devloop::OWN_DIRS.iter().map(|d| (*d).to_owned()));
    }
    (found, skip)
}

/// Run one format's reader and give each project it found the stamps of
/// the files it read whole (`Project.files`): one format at a time, so a
/// file one format read is never another's stamp in the same directory.
fn stamped<I: IntoIterator<Item = Project>>(read: impl FnOnce() -> I) -> Vec<Project> {
    let (found, stamps) = store::stamps::collect(read);
    let mut found: Vec<Project> = found.into_iter().collect();
    assign_stamps(&mut found, stamps);
    found
}

/// Each stamp goes to the project whose directory holds the file (the
/// deepest, when one project's directory holds another's), named
/// relative to it; a file under none of them is nobody's. Sorted by name.
fn assign_stamps(projects: &mut [Project], stamps: Vec<store::stamps::Stamp>) {
    if projects.is_empty() || stamps.is_empty() {
        return;
    }
    let dirs: Vec<(PathBuf, usize)> = projects
        .iter()
        .map(|p| {
            let d = store::stamps::normalize(&p.path);
            let depth = d.components().count();
            (d, depth)
        })
        .collect();
    for st in stamps {
        let owner = dirs
            .iter()
            .enumerate()
            .filter_map(|(i, (d, depth))| {
                store::stamps::relative_to(&st.path, d).map(|rel| (i, rel, *depth))
            })
            .max_by_key(|(_, _, depth)| *depth);
        if let Some((i, file, _)) = owner {
            projects[i].files.push(FileStamp {
                file,
                sha256: st.sha256,
                len: st.len,
            });
        }
    }
    for p in projects {
        p.files.sort_by(|a, b| a.file.cmp(&b.file));
        p.files.dedup_by(|a, b| a.file == b.file);
    }
}

/// Directories that belong to a format's own state and never hold another
/// project: the walk does not enter them.
const OWN_DIRS: &[&str] = &[gsd::PLANNING_DIR, dwp::DWP_DIR];

/// What a discovery found: the projects, and the directories (roots
/// included) that could not be read, as problems of the run. A problem's
/// `file` is the directory's path as the walk met it.
#[derive(Debug, Default)]
pub struct Discovery {
    /// Every project found, newest update first.
    pub projects: Vec<Project>,
    /// The directories that could not be read.
    pub problems: Vec<Problem>,
}

/// Find and read every project under `roots`, newest update first. A root
/// that is itself a project is listed with the id `.`. A root that is
/// missing, a directory that cannot be listed, and a directory whose reading
/// panicked are problems of the run; the other roots and directories are
/// read as usual.
///
/// The walk and the reads run on every core: listing is bound by system
/// calls, and those run in parallel.
pub fn discover(roots: &[PathBuf]) -> Discovery {
    discover_with(roots, &detect)
}

type Detector<'a> = dyn Fn(&WalkEntry<'_>) -> (Vec<Project>, Vec<String>) + Sync + 'a;

fn discover_with(roots: &[PathBuf], detect: &Detector<'_>) -> Discovery {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let projects = Mutex::new(Vec::new());
    let problems = Mutex::new(Vec::new());
    for root in roots {
        if let Err(reason) = root_reason(root) {
            lock(&problems).push(Problem {
                file: root.to_string_lossy().into_owned(),
                reason,
            });
            continue;
        }
        let unreadable = store::walk(root, threads, &|entry| match guard::caught(|| {
            store::with_dir_cache(|| detect(entry))
        }) {
            Ok((found, skip)) => {
                if !found.is_empty() {
                    let mut all = lock(&projects);
                    for mut p in found {
                        p.id = id_under(root, &p.path);
                        all.push(p);
                    }
                }
                skip
            }
            Err(panic) => {
                lock(&problems).push(panicked(entry.path, &panic));
                OWN_DIRS.iter().map(|d| (*d).to_owned()).collect()
            }
        });
        lock(&problems).extend(unreadable.into_iter().map(|u| Problem {
            file: u.path.to_string_lossy().into_owned(),
            reason: io_reason(&u.error),
        }));
    }
    let mut projects = projects.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut problems = problems.into_inner().unwrap_or_else(|e| e.into_inner());
    if roots.len() > 1 {
        // Overlapping or repeated roots: one row per project, the first
        // root's. Only then is each path resolved (it costs system calls).
        let mut seen = std::collections::HashSet::new();
        projects.retain(|p| {
            seen.insert((
                p.path.canonicalize().unwrap_or_else(|_| p.path.clone()),
                p.format,
            ))
        });
        let mut seen = std::collections::HashSet::new();
        problems.retain(|p| {
            let path = Path::new(&p.file);
            seen.insert(path.canonicalize().unwrap_or_else(|_| path.to_path_buf()))
        });
    }
    problems.sort_by(|a, b| a.file.cmp(&b.file));
    mark_interrupted(&mut projects);
    sort_newest_first(&mut projects);
    Discovery { projects, problems }
}

/// A decision interrupted part way on a project (its intent record is
/// still in the state directory) is a problem on the project until a
/// write settles it: a reading never writes.
fn mark_interrupted(projects: &mut [Project]) {
    let interrupted = store::intent::interrupted();
    if interrupted.is_empty() {
        return;
    }
    for p in projects.iter_mut() {
        let real = store::intent::real_path(&p.path);
        for (project, file, reason) in &interrupted {
            if *project == real && !p.problems.iter().any(|q| q.reason == *reason) {
                p.problems.push(Problem {
                    file: file.clone(),
                    reason: reason.clone(),
                });
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Why `root` cannot be walked, if it cannot.
fn root_reason(root: &Path) -> Result<(), String> {
    match std::fs::metadata(root) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err("not a directory".to_owned()),
        Err(e) => Err(io_reason(&e)),
    }
}

/// A reason a user understands for a directory that cannot be read.
fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "does not exist".to_owned(),
        std::io::ErrorKind::PermissionDenied => {
            "permission denied: cannot list this directory, so its projects cannot be seen"
                .to_owned()
        }
        // loopdeck's own words (the depth limit): shown as they are.
        std::io::ErrorKind::Other if e.raw_os_error().is_none() => e.to_string(),
        _ => format!("cannot list this directory: {e}"),
    }
}

/// The problem of a directory whose reading panicked.
fn panicked(dir: &Path, panic: &str) -> Problem {
    Problem {
        file: dir.to_string_lossy().into_owned(),
        reason: format!(
            "reading this directory failed on a bug in loopdeck ({panic}); please report it"
        ),
    }
}

/// A project's id: its path relative to the root it was found under (`.`
/// for the root itself).
fn id_under(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

/// Read the project(s) in exactly `dir` (no walk below it). A directory
/// that cannot be listed, or whose reading panicked, is a problem.
pub fn load_dir(dir: &Path) -> Discovery {
    load_dir_with(dir, &detect)
}

fn load_dir_with(dir: &Path, detect: &Detector<'_>) -> Discovery {
    let names = match store::list_dir(dir) {
        Ok(names) => names,
        Err(e) => {
            return Discovery {
                projects: Vec::new(),
                problems: vec![Problem {
                    file: dir.to_string_lossy().into_owned(),
                    reason: io_reason(&e),
                }],
            };
        }
    };
    let (dirs, files): (Vec<String>, Vec<String>) = names
        .into_iter()
        .partition(|n| store::is_dir(&dir.join(n)) && !is_symlink(&dir.join(n)));
    let entry = WalkEntry {
        path: dir,
        files: &files,
        dirs: &dirs,
    };
    match guard::caught(|| store::with_dir_cache(|| detect(&entry))) {
        Ok((mut found, _)) => {
            for p in &mut found {
                p.id = id_under(dir, &p.path);
            }
            mark_interrupted(&mut found);
            Discovery {
                projects: found,
                problems: Vec::new(),
            }
        }
        Err(panic) => Discovery {
            projects: Vec::new(),
            problems: vec![panicked(dir, &panic)],
        },
    }
}

/// The directories of a format's own state, which never hold another
/// project (the walk does not enter them).
pub(crate) fn own_dirs() -> &'static [&'static str] {
    OWN_DIRS
}

/// Read part of `root` again: the project(s) in exactly `dir` or, with
/// `tree`, every project under `dir` (walked as discovery walks). Ids are
/// relative to `root`, as `discover` sets them. A `dir` that is missing, a
/// file or a link yields nothing (the walk would not find projects there)
/// and no problem.
pub fn read_under(root: &Path, dir: &Path, tree: bool) -> Discovery {
    read_under_with(root, dir, tree, &detect)
}

fn read_under_with(root: &Path, dir: &Path, tree: bool, detect: &Detector<'_>) -> Discovery {
    // A root may be a link; below it, the walk follows none.
    let walkable = if dir == root {
        std::fs::metadata(dir).is_ok_and(|m| m.is_dir())
    } else {
        std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir())
    };
    if !walkable {
        return Discovery::default();
    }
    let mut found = if tree {
        discover_with(&[dir.to_path_buf()], detect)
    } else {
        load_dir_with(dir, detect)
    };
    for p in &mut found.projects {
        p.id = id_under(root, &p.path);
    }
    found
}

fn is_symlink(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

/// How much of a file an excerpt looks at.
const EXCERPT_BYTES: usize = 16 * 1024;

/// Fill in what a reading leaves out because only some views need it: the
/// section diffs of a devloop project's newest PRD and SDD revisions (and
/// the findings of archives that cannot be read), for `show` and `check`.
/// The console compares one revision when its drawer opens
/// ([`compare_revision`]).
pub fn complete(p: &mut Project) {
    if p.format == crate::model::Format::Devloop {
        let dir = p.path.clone();
        devloop::revisions::compare_documents(p, &dir, devloop::revisions::archived(&dir));
    }
}

/// What only `check` looks for, on top of [`complete`]: it reads whole
/// what the views read the tail of (a devloop project's NDJSON logs, for
/// records torn mid-file), so `show` keeps the cost of a tail.
pub fn check(p: &mut Project) {
    if p.format == crate::model::Format::Devloop {
        let dir = p.path.clone();
        devloop::timeline::check_logs(p, &dir);
    }
}

/// The section diff of revision `index` of the project (a devloop PRD or
/// SDD revision) against the one before it; `None` for any other.
pub fn compare_revision(p: &Project, index: usize) -> Option<crate::model::DocDiff> {
    if p.format != crate::model::Format::Devloop {
        return None;
    }
    let archived = devloop::revisions::archived(&p.path);
    devloop::revisions::compare_revision(&p.detail.revisions, index, &p.path, archived)
        .map(|(diff, _)| diff)
}

/// What you meant then, for a resume card: the first `lines` meaningful
/// lines of up to `files` of the project's read-first files that have any
/// (see `formats::excerpt`: the words people and agents wrote, never frontmatter,
/// markup or JSON; the sections of a format's own file that carry the
/// intent). Only files inside the project are read.
pub fn excerpts(p: &Project, files: usize, lines: usize) -> Vec<Excerpt> {
    p.resume
        .read_first
        .iter()
        .filter_map(|rel| {
            let head = store::read_prefix_in(&p.path, rel, EXCERPT_BYTES).ok()?;
            let text = String::from_utf8_lossy(&head);
            let chosen = match p.format {
                crate::model::Format::Gsd => gsd::meant(rel, &text),
                crate::model::Format::Dwp => dwp::meant(rel, &text),
                _ => None,
            };
            let mut picked = chosen.unwrap_or_else(|| excerpt::generic(rel, &text));
            picked.truncate(lines);
            (!picked.is_empty()).then(|| Excerpt {
                file: rel.clone(),
                lines: picked,
            })
        })
        .take(files)
        .collect()
}

/// The last component of `dir`, for a project without a name of its own.
pub fn file_name(dir: &Path) -> String {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    // Only a path like `.` or `..` needs resolving to have a name.
    name(dir)
        .filter(|n| n != "." && n != "..")
        .or_else(|| dir.canonicalize().ok().as_deref().and_then(name))
        .unwrap_or_else(|| dir.display().to_string())
}

/// Read a text file inside a project (bounded). Invalid UTF-8 is replaced,
/// and reported by the returned flag.
pub(crate) fn read_text(dir: &Path, relative: &str) -> Result<(String, bool), StoreError> {
    // Inside a cached reading, a file that did not change is not read
    // again.
    store::cache::memo_in(dir, relative, store::STATE_FILE_LIMIT, |bytes| {
        text_of(bytes)
    })
}

/// Bytes as text; invalid UTF-8 is replaced, and reported by the flag.
pub(crate) fn text_of(bytes: Vec<u8>) -> (String, bool) {
    match String::from_utf8(bytes) {
        Ok(s) => (s, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    }
}

/// The ASCII digits at the end of `s` (`"rev3"` → `"3"`, `"40"` → `"40"`).
pub(crate) fn trailing_digits(s: &str) -> &str {
    let start = s.len() - s.bytes().rev().take_while(u8::is_ascii_digit).count();
    &s[start..]
}

/// Timestamps as agents write them: RFC 3339, without a zone (taken as UTC),
/// or a bare date (midnight UTC).
pub(crate) fn parse_time(raw: &str) -> Option<DateTime<Utc>> {
    let s = raw.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(t.and_utc());
        }
    }
    if let Ok(t) = DateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S %z") {
        return Some(t.with_timezone(&Utc));
    }
    NaiveDate::parse_from_str(s.get(..10)?, "%Y-%m-%d")
        .ok()
        .filter(|_| s.len() == 10)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc())
}

/// The light read behind `loopdeck status` for a directory that holds only
/// a devloop project: the statusline's facts, not the whole project (a
/// 12 MB `units.json` is counted, never built). `None` when `dir` holds
/// another format's state too, or no devloop project: the full read decides.
pub fn light_status(dir: &Path) -> Option<Project> {
    let names = store::list_names(dir);
    let other = names
        .iter()
        .any(|n| n == prd_master::STATE_FILE || n == gsd::PLANNING_DIR || n == dwp::DWP_DIR);
    if other {
        return None;
    }
    let mut p = stamped(|| devloop::read_status(dir)).pop()?;
    p.id = ".".to_owned();
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that panics in the directory `b` and finds a project in
    /// each other directory holding `marker`.
    fn panics_in_b(entry: &WalkEntry<'_>) -> (Vec<Project>, Vec<String>) {
        assert!(
            !entry.path.ends_with("b"),
            "forced panic in {:?}",
            entry.path
        );
        let found = entry.files.iter().any(|f| f == "marker").then(|| {
            Project::new(
                crate::model::Format::Gsd,
                entry.path.to_path_buf(),
                "p".into(),
            )
        });
        (found.into_iter().collect(), Vec::new())
    }

    #[test]
    fn a_panic_in_one_directory_is_a_problem_there_and_the_walk_goes_on() {
        crate::guard::quiet_hook();
        let tmp = tempfile::tempdir().unwrap();
        for d in ["a", "b", "c"] {
            std::fs::create_dir_all(tmp.path().join(d)).unwrap();
            std::fs::write(tmp.path().join(d).join("marker"), "").unwrap();
        }
        let gone = tmp.path().join("gone");
        let found = discover_with(&[tmp.path().to_path_buf(), gone.clone()], &panics_in_b);
        let mut ids: Vec<&str> = found.projects.iter().map(|p| p.id.as_str()).collect();
        ids.sort();
        assert_eq!(ids, ["a", "c"]);
        let problems: Vec<(String, &str)> = found
            .problems
            .iter()
            .map(|p| (p.file.clone(), p.reason.as_str()))
            .collect();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(problems[0].0, tmp.path().join("b").to_string_lossy());
        assert!(problems[0].1.contains("forced panic"), "{problems:?}");
        assert_eq!(
            problems[1],
            (gone.to_string_lossy().into_owned(), "does not exist")
        );

        let one = load_dir_with(&tmp.path().join("b"), &panics_in_b);
        assert!(one.projects.is_empty());
        assert!(
            one.problems[0].reason.contains("forced panic"),
            "{:?}",
            one.problems
        );
    }

    fn stamp(path: &str, body: &[u8]) -> store::stamps::Stamp {
        store::stamps::Stamp {
            path: store::stamps::normalize(Path::new(path)),
            sha256: store::sha256_hex(body),
            len: body.len() as u64,
        }
    }

    #[test]
    fn each_stamp_goes_to_the_deepest_project_holding_its_file() {
        let mut ps: Vec<Project> = ["w/p", "w/p/sub", "w/./q/../r"]
            .iter()
            .map(|d| Project::new(crate::model::Format::Dwp, PathBuf::from(d), "x".into()))
            .collect();
        assign_stamps(
            &mut ps,
            vec![
                stamp("w/p/state.json", b"a"),
                stamp("w/p/sub/state.json", b"b"),
                stamp("w/p/sub/../README.md", b"c"),
                stamp("w/r/x/y.json", b"d"),
                stamp("w/elsewhere/z", b"e"),
            ],
        );
        let names =
            |p: &Project| -> Vec<String> { p.files.iter().map(|f| f.file.clone()).collect() };
        assert_eq!(names(&ps[0]), ["README.md", "state.json"]);
        assert_eq!(names(&ps[1]), ["state.json"]);
        assert_eq!(names(&ps[2]), ["x/y.json"]);
        assert_eq!(ps[1].files[0].sha256, store::sha256_hex(b"b"));
        assert_eq!(ps[1].files[0].len, 1);
    }

    /// Two formats in one directory: each project gets the stamps of the
    /// files its own reader read, none of the other's.
    #[test]
    fn stamps_stay_with_the_format_that_read_them() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let ws =
            Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("examples/workspace");
        std::fs::create_dir_all(d.join(".planning")).unwrap();
        std::fs::copy(
            ws.join("gsd/paused-waiting/.planning/STATE.md"),
            d.join(".planning/STATE.md"),
        )
        .unwrap();
        let state = std::fs::read(ws.join("prd-master/fba-smart-restock/state.json")).unwrap();
        std::fs::write(d.join("state.json"), &state).unwrap();
        let found = load_dir(d);
        let files = |f: crate::model::Format| -> Vec<(String, String, u64)> {
            let p = found.projects.iter().find(|p| p.format == f).unwrap();
            p.files
                .iter()
                .map(|s| (s.file.clone(), s.sha256.clone(), s.len))
                .collect()
        };
        let disk = |rel: &str| {
            let b = std::fs::read(d.join(rel)).unwrap();
            (rel.to_owned(), store::sha256_hex(&b), b.len() as u64)
        };
        assert_eq!(files(crate::model::Format::PrdMaster), [disk("state.json")]);
        assert_eq!(
            files(crate::model::Format::Gsd),
            [disk(".planning/STATE.md")]
        );
        // The light status read of a devloop project stamps too.
        let dev = ws.join("devloop/data/companies/acme/projects/p-restock");
        let light = light_status(&dev).unwrap();
        let names: Vec<&str> = light.files.iter().map(|f| f.file.as_str()).collect();
        assert!(names.contains(&"project.json"), "{names:?}");
        assert!(names.contains(&"units.json"), "{names:?}");
    }

    /// A root spelt with `.` and `..` (as a user may type it): every
    /// project still gets the stamps of its files, named from its
    /// directory.
    #[test]
    fn stamps_under_a_root_spelt_with_dots() {
        let root = PathBuf::from("../../examples/./workspace/gsd/../gsd");
        let found = discover(std::slice::from_ref(&root));
        assert!(found.projects.len() >= 5);
        for p in &found.projects {
            let names: Vec<&str> = p.files.iter().map(|f| f.file.as_str()).collect();
            assert!(names.contains(&".planning/STATE.md"), "{}: {names:?}", p.id);
            for f in &p.files {
                let bytes = std::fs::read(p.path.join(&f.file)).unwrap();
                assert_eq!(f.sha256, store::sha256_hex(&bytes), "{}", f.file);
            }
        }
    }

    #[test]
    fn times_in_the_forms_agents_write() {
        let want = "2026-06-01T12:00:00+00:00";
        for s in [
            "2026-06-01T12:00:00Z",
            "2026-06-01T14:00:00+02:00",
            "2026-06-01T12:00:00",
            "2026-06-01 12:00:00",
            "2026-06-01T12:00:00.000Z",
        ] {
            assert_eq!(parse_time(s).unwrap().to_rfc3339(), want, "{s}");
        }
        assert_eq!(
            parse_time("2026-06-01").unwrap().to_rfc3339(),
            "2026-06-01T00:00:00+00:00"
        );
        assert_eq!(parse_time("yesterday"), None);
        assert_eq!(parse_time("2026-06-01 — notes"), None);
    }
}
