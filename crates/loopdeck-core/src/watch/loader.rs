//! The readings, on worker threads: every project, or only the projects
//! of some directories; and what changed paths ask to read.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread;

use super::schedule::{self, Target};
use super::{Msg, Reading, Sink};
use crate::formats;
use crate::guard::{self, WORKER};
use crate::store::cache::ReadCache;

/// Run `job` on a [`WORKER`] thread and `send` its answer; when it
/// panics ([`guard::guarded`]), or the thread cannot start, send
/// `failed(why)`.
pub fn job_worker<M: Send + 'static>(
    send: impl Fn(M) -> bool + Clone + Send + 'static,
    what: &'static str,
    job: impl FnOnce() -> M + Send + 'static,
    failed: impl Fn(String) -> M + Clone + Send + 'static,
) {
    let send_here = send.clone();
    let failed_here = failed.clone();
    let spawned = thread::Builder::new()
        .name(WORKER.to_owned())
        .spawn(move || {
            let msg = guard::guarded(what, job).unwrap_or_else(failed);
            let _ = send(msg);
        });
    if let Err(e) = spawned {
        let _ = send_here(failed_here(format!("{what}: {e}")));
    }
}

/// Run reading `id` on a worker thread; a panic is `Reading::Failed`.
fn reading(sink: Sink, id: u64, job: impl FnOnce() -> Msg + Send + 'static) {
    job_worker(
        move |m| sink.send(m),
        "reading the projects",
        move || {
            // Timed here, on the worker: the engine spaces polls by it.
            let started = std::time::Instant::now();
            let mut msg = job();
            if let Msg::Read { took, .. } = &mut msg {
                *took = started.elapsed();
            }
            msg
        },
        move |why| Msg::Read {
            id,
            reading: Reading::Failed(why),
            escalate: false,
            took: std::time::Duration::ZERO,
        },
    );
}

/// Read every project in the background (read `id` of the schedule).
/// Strings stay as the files hold them (a decision made from them writes
/// them back unchanged); the view makes them safe when it draws them.
pub(super) fn load(roots: Vec<PathBuf>, cache: Arc<ReadCache>, sink: Sink, id: u64) {
    let problems_to = sink.clone();
    reading(sink, id, move || {
        let found = formats::discover_cached(&roots, &cache);
        let problems = found.problems.iter().map(ToString::to_string).collect();
        let _ = problems_to.send(Msg::RootProblems(problems));
        Msg::Read {
            id,
            reading: Reading::All(found.projects),
            escalate: false,
            took: std::time::Duration::ZERO,
        }
    });
}

/// Read only `targets` in the background (read `id` of the schedule): the
/// project(s) of a directory, or every project under one; ids relative to
/// the first root holding each.
pub(super) fn read_some(
    roots: Vec<PathBuf>,
    targets: Vec<Target>,
    cache: Arc<ReadCache>,
    sink: Sink,
    id: u64,
) {
    reading(sink, id, move || {
        let mut dirs = Vec::new();
        let mut trees = Vec::new();
        let mut projects = Vec::new();
        let mut escalate = false;
        for t in targets {
            let (dir, tree) = match t {
                Target::Dir(d) => (d, false),
                Target::Tree(d) => (d, true),
            };
            let root = roots
                .iter()
                .find(|r| dir.starts_with(r))
                .unwrap_or(&dir)
                .clone();
            let found = formats::read_under_cached(&root, &dir, tree, &cache);
            escalate |= !found.problems.is_empty();
            projects.extend(found.projects);
            if tree {
                trees.push(dir);
            } else {
                dirs.push(dir);
            }
        }
        Msg::Read {
            id,
            reading: Reading::Part {
                dirs,
                trees,
                projects,
            },
            escalate,
            took: std::time::Duration::ZERO,
        }
    });
}

/// Each root as the watcher spells it (absolute), with the root as given
/// (as the projects' paths spell it).
pub(super) fn spellings(roots: &[PathBuf]) -> Vec<(PathBuf, PathBuf)> {
    let cwd = std::env::current_dir().unwrap_or_default();
    roots
        .iter()
        .map(|r| {
            let abs = if r.is_absolute() {
                r.clone()
            } else {
                cwd.join(r)
            };
            (abs, r.clone())
        })
        .collect()
}

/// What changed `paths` ask the schedule to read (`None`: everything).
/// `spelled` is `spellings(roots)`.
pub(super) fn targets(
    paths: &[PathBuf],
    spelled: &[(PathBuf, PathBuf)],
    roots: &[PathBuf],
    known: &BTreeSet<PathBuf>,
) -> Option<Vec<Target>> {
    let mut out = Vec::new();
    if paths.is_empty() {
        return None;
    }
    for p in paths {
        // A path under a root is spelled as the root is.
        let p = spelled
            .iter()
            .find_map(|(abs, root)| p.strip_prefix(abs).ok().map(|rel| root.join(rel)))
            .unwrap_or_else(|| p.clone());
        out.extend(schedule::targets_of(&p, roots, known, formats::own_dirs())?);
    }
    Some(out)
}
