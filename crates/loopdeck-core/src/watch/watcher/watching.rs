//! The watcher thread's state: which directories are watched, their last
//! listing for the reconciliation scan, the paths events reported since
//! the last scan, and live or polling.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use notify::event::{CreateKind, ModifyKind, RenameMode};
use notify::{Event, EventKind};

use super::super::{Msg, Sink};
use super::scan::{self, Change, Entry};
use super::set::{self, WatchSet};
use super::status::{Cause, Scan, Status};

/// Why a watch could not be added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refused {
    /// The watch limit (inotify's ENOSPC).
    Limit,
    /// Anything else (the directory went away, no permission): skipped.
    Other,
}

/// Where watches are added: notify, or a test's stand-in.
pub(super) trait Backend {
    fn add(&mut self, dir: &Path) -> Result<(), Refused>;
    fn remove(&mut self, dir: &Path);
}

impl Backend for notify::RecommendedWatcher {
    fn add(&mut self, dir: &Path) -> Result<(), Refused> {
        use notify::Watcher;
        self.watch(dir, notify::RecursiveMode::NonRecursive)
            .map_err(|e| match e.kind {
                notify::ErrorKind::MaxFilesWatch => Refused::Limit,
                _ => Refused::Other,
            })
    }

    fn remove(&mut self, dir: &Path) {
        use notify::Watcher;
        // Already gone when the directory was deleted: nothing to undo.
        let _ = self.unwatch(dir);
    }
}

/// Does the walk enter `dir`, at `depth` below its root? A directory, not
/// a link to one, except the root itself: the walk lists a root given as
/// a link (`~/work -> /data/work`) through it, so its watches must too.
fn walked_dir(dir: &Path, depth: usize) -> bool {
    let meta = if depth == 0 {
        fs::metadata(dir)
    } else {
        fs::symlink_metadata(dir)
    };
    meta.is_ok_and(|m| m.is_dir())
}

/// At most this many paths are remembered between two scans; beyond, the
/// next scan does not judge whether events missed anything.
const SEEN_MAX: usize = 100_000;

/// What a scan found, waiting for the events still in flight before it is
/// judged.
pub(super) struct Pending {
    changes: Vec<Change>,
    seen_before: HashSet<PathBuf>,
    unjudged: bool,
}

pub(super) struct Watching<B> {
    backend: B,
    /// The roots, absolute, spelled as notify spells event paths.
    roots: Vec<PathBuf>,
    /// Each root's parent (or, while it is gone, its nearest ancestor that
    /// exists), watched so a recreated root is noticed.
    parents: BTreeSet<PathBuf>,
    set: WatchSet,
    listings: HashMap<PathBuf, Vec<Entry>>,
    seen: HashSet<PathBuf>,
    seen_full: bool,
    pub(super) status: Status,
    /// The watch limit stopped the watches short of the tree.
    incomplete: bool,
    max_watches: Option<usize>,
    /// The limit, as the user can change it (for the reason).
    limit: String,
    sink: Sink,
    every_secs: u64,
    stop: Arc<AtomicBool>,
}

impl<B: Backend> Watching<B> {
    pub(super) fn new(
        backend: B,
        roots: Vec<PathBuf>,
        sink: Sink,
        max_watches: Option<usize>,
        every_secs: u64,
        stop: Arc<AtomicBool>,
    ) -> Self {
        let limit = match max_watches {
            Some(n) => format!("{} = {n}, a testing limit", super::MAX_WATCHES_ENV),
            None => fs::read_to_string("/proc/sys/fs/inotify/max_user_watches").map_or_else(
                |_| "fs.inotify.max_user_watches".to_owned(),
                |n| format!("fs.inotify.max_user_watches = {}", n.trim()),
            ),
        };
        Self {
            backend,
            roots,
            parents: BTreeSet::new(),
            set: WatchSet::default(),
            listings: HashMap::new(),
            seen: HashSet::new(),
            seen_full: false,
            status: Status::default(),
            incomplete: false,
            max_watches,
            limit,
            sink,
            every_secs,
            stop,
        }
    }

    /// How many watches are held (directories and roots' parents).
    pub(super) fn watches(&self) -> usize {
        self.set.len() + self.parents.len()
    }

    /// Tell the front end how changes are noticed, when that changed
    /// (`recount`: also when only the count did). False: it is gone.
    pub(super) fn tell(&mut self, recount: bool) -> bool {
        match self.status.tell(self.watches(), self.every_secs, recount) {
            Some(l) => self.sink.send(Msg::Liveness(l)),
            None => true,
        }
    }

    fn add(&mut self, dir: &Path) -> Result<(), Refused> {
        if self.max_watches.is_some_and(|m| self.watches() >= m) {
            return Err(Refused::Limit);
        }
        self.backend.add(dir)
    }

    fn hit_limit(&mut self) {
        if !self.incomplete {
            // What the missing watches would have seen: read everything.
            let _ = self.sink.send(Msg::Changed(Vec::new()));
        }
        self.incomplete = true;
        self.status.fall_back(Cause::Limit(self.limit.clone()));
    }

    /// Watch each root's parent (once it exists) and each root's tree.
    pub(super) fn setup(&mut self) {
        self.watch_parents();
        for root in self.roots.clone() {
            if self.incomplete {
                break;
            }
            self.ensure(root);
        }
    }

    fn watch_parents(&mut self) {
        // The nearest existing ancestor of each root: its parent, or above
        // when the parent went away too (its return is then seen).
        let wanted: BTreeSet<PathBuf> = self
            .roots
            .iter()
            .filter_map(|r| r.ancestors().skip(1).find(|a| a.is_dir()))
            .map(Path::to_path_buf)
            .collect();
        for old in self.parents.clone() {
            if !wanted.contains(&old) {
                self.parents.remove(&old);
                self.backend.remove(&old);
            }
        }
        for parent in wanted {
            if self.incomplete || self.parents.contains(&parent) || self.set.contains(&parent) {
                continue;
            }
            match self.add(&parent) {
                Ok(()) => {
                    self.parents.insert(parent);
                }
                Err(Refused::Limit) => self.hit_limit(),
                Err(Refused::Other) => {}
            }
        }
    }

    /// Something above a root came or went: watch the nearest ancestor that
    /// is there now, and a root back already (made before that watch) is
    /// watched and read.
    fn above_a_root(&mut self) {
        self.watch_parents();
        for root in self.roots.clone() {
            self.appeared(&root);
        }
    }

    /// Watch `dir` and every directory the walk enters below it, each
    /// before it is listed (what is created meanwhile raises an event).
    /// Returns how many directories are newly watched.
    pub(super) fn ensure(&mut self, dir: PathBuf) -> usize {
        let Some(depth) = set::depth_in(&dir, &self.roots) else {
            return 0;
        };
        let mut stack = vec![(dir, depth)];
        let mut added = 0;
        while let Some((d, depth)) = stack.pop() {
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            // A link is not followed, a file is not watched.
            if !walked_dir(&d, depth) {
                continue;
            }
            if !self.set.contains(&d) {
                match self.add(&d) {
                    Ok(()) => {
                        self.set.insert(d.clone());
                        added += 1;
                    }
                    Err(Refused::Limit) => {
                        self.hit_limit();
                        break;
                    }
                    Err(Refused::Other) => continue,
                }
            }
            let Some(entries) = scan::list(&d) else {
                continue;
            };
            for e in entries.iter().filter(|e| e.dir) {
                if set::enters(&e.name.to_string_lossy(), depth) {
                    stack.push((d.join(&e.name), depth + 1));
                }
            }
            self.listings.insert(d, entries);
        }
        added
    }

    /// `path` is gone: its watches (and its subtree's) go.
    fn gone(&mut self, path: &Path) {
        for d in self.set.drop_under(path) {
            self.backend.remove(&d);
            self.listings.remove(&d);
        }
        // A root's parent that went: its watch died with it (one made
        // again at once under that name needs a watch of its own).
        if self.parents.iter().any(|a| a.starts_with(path)) {
            self.parents.retain(|a| !a.starts_with(path));
        }
    }

    /// `path` appeared: a directory the walk enters gets its watches now,
    /// and is read once they are in place (what was written inside before
    /// them raised no event).
    fn appeared(&mut self, path: &Path) {
        if self.set.contains(path) || set::depth_in(path, &self.roots).is_none() {
            return;
        }
        if set::depth_in(path, &self.roots).is_some_and(|depth| walked_dir(path, depth))
            && self.ensure(path.to_path_buf()) > 0
        {
            let _ = self.sink.send(Msg::Changed(vec![path.to_path_buf()]));
        }
    }

    /// A root created or renamed to while watched: another directory (a
    /// link pointed elsewhere, `ln -sfn`) is there now; the old one's
    /// watches go, so [`Watching::appeared`] watches the new one.
    fn replaced(&mut self, path: &Path) {
        if self.set.contains(path) && self.roots.iter().any(|r| r == path) {
            self.gone(path);
        }
    }

    fn note(&mut self, path: &Path) {
        if self.seen.len() < SEEN_MAX {
            self.seen.insert(path.to_path_buf());
        } else {
            self.seen_full = true;
        }
    }

    /// An event notify reported (the front end already has its paths).
    pub(super) fn on_event(&mut self, res: notify::Result<Event>) {
        let e = match res {
            Ok(e) => e,
            Err(err) => {
                match err.kind {
                    notify::ErrorKind::MaxFilesWatch => self.hit_limit(),
                    _ => self.status.fall_back(Cause::Failed(err.to_string())),
                }
                return;
            }
        };
        if e.need_rescan() {
            self.status.fall_back(Cause::Overflow);
            // Directories created while events were lost get their watches.
            let pending = self.scan();
            self.finish(pending, false);
            return;
        }
        for p in &e.paths {
            self.note(p);
        }
        let above = e
            .paths
            .iter()
            .any(|p| super::events::on_the_way(p, &self.roots));
        match e.kind {
            // A new file needs no watch (and no stat to tell).
            EventKind::Create(CreateKind::File) => {}
            EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(RenameMode::To)) => {
                for p in &e.paths {
                    self.replaced(p);
                    self.appeared(p);
                }
            }
            EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(RenameMode::From)) => {
                for p in &e.paths {
                    self.gone(p);
                }
            }
            // A directory made readable (chmod): one whose watch was
            // refused can have it now.
            EventKind::Modify(ModifyKind::Metadata(_)) => {
                for p in &e.paths {
                    self.appeared(p);
                }
            }
            EventKind::Modify(ModifyKind::Name(RenameMode::Any | RenameMode::Other)) => {
                for p in &e.paths {
                    if p.exists() {
                        self.appeared(p);
                    } else {
                        self.gone(p);
                    }
                }
            }
            _ => {}
        }
        if above {
            self.above_a_root();
        }
    }

    /// The reconciliation scan: stat every watched directory's entries and
    /// compare with the last listing (no file is read). Directories found
    /// new get their watches, gone ones drop them, a root that came back is
    /// watched again. Judged by [`Watching::finish`] once the events in
    /// flight are in.
    pub(super) fn scan(&mut self) -> Pending {
        let seen_before = std::mem::take(&mut self.seen);
        let unjudged = std::mem::take(&mut self.seen_full);
        self.watch_parents();
        let mut changes = Vec::new();
        let mut unwatched = Vec::new();
        for root in self.roots.clone() {
            if !self.set.contains(&root) && self.ensure(root.clone()) > 0 {
                changes.push(Change::Added {
                    path: root,
                    dir: true,
                });
            }
        }
        for dir in self.set.all() {
            if !self.set.contains(&dir) {
                continue;
            }
            match scan::list(&dir) {
                // Gone: its parent's listing tells, or it was a root.
                None => self.gone(&dir),
                Some(new) => {
                    // Directories whose watch was refused (no permission
                    // then): tried again.
                    if let Some(depth) = set::depth_in(&dir, &self.roots) {
                        unwatched.extend(
                            new.iter()
                                .filter(|e| e.dir && set::enters(&e.name.to_string_lossy(), depth))
                                .map(|e| dir.join(&e.name))
                                .filter(|p| !self.set.contains(p)),
                        );
                    }
                    if let Some(old) = self.listings.get(&dir) {
                        changes.extend(scan::diff(&dir, old, &new));
                    }
                    self.listings.insert(dir, new);
                }
            }
        }
        for c in &changes {
            match c {
                Change::Removed { path, dir: true } => self.gone(path),
                Change::Changed { path, dir: true } => {
                    self.gone(path);
                    self.ensure(path.clone());
                }
                Change::Added { path, dir: true } => {
                    self.ensure(path.clone());
                }
                _ => {}
            }
        }
        for d in unwatched {
            if !self.incomplete && !self.set.contains(&d) && self.ensure(d.clone()) > 0 {
                let _ = self.sink.send(Msg::Changed(vec![d]));
            }
        }
        if self.incomplete {
            // The limit may have room now (watches dropped, the limit raised).
            self.incomplete = false;
            self.setup();
        }
        Pending {
            changes,
            seen_before,
            unjudged,
        }
    }

    /// Send what the scan found that changed, and judge whether the events
    /// had missed it (`judge` false: right after an overflow, they did; such
    /// a scan does not bring the watcher back live either).
    pub(super) fn finish(&mut self, pending: Pending, judge: bool) -> Scan {
        let mut scan = Scan {
            complete: !self.incomplete,
            ..Scan::default()
        };
        for c in &pending.changes {
            if pending.seen_before.contains(c.path()) || self.seen.contains(c.path()) {
                scan.confirmed += 1;
            } else {
                scan.missed += 1;
            }
        }
        if pending.unjudged {
            scan.missed = 0;
        }
        if !pending.changes.is_empty() {
            let paths = pending
                .changes
                .iter()
                .map(|c| c.path().to_path_buf())
                .collect();
            let _ = self.sink.send(Msg::Changed(paths));
        }
        if judge {
            self.status.scanned(scan);
        }
        scan
    }
}

#[cfg(test)]
mod tests;
