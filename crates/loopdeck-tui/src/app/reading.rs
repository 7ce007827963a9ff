//! What a fresh reading does to the projects on screen: a project keeps its
//! identity (host, path and format) across readings; a reading that breaks a
//! project which read well (a file caught mid-write) or loses it (a state
//! file missing for an editor's save) is held back, the last good reading
//! shown as re-reading, until the file reads well again or a settle time
//! passes. The runtime keeps the time: it answers `Effect::SettleAfter(n)`
//! with `Event::Settle(n)`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::{Effect, Model};
use crate::model::{Event as TimelineEvent, Format, HostName, Project};

/// A project's identity: its host (`None`: this machine), its path
/// there, its format.
pub type Identity = (Option<HostName>, PathBuf, Format);

pub(super) fn identity(p: &Project) -> Identity {
    (p.host.clone(), p.path.clone(), p.format)
}

/// Did a reading of exactly `dirs` and of everything under `trees` read
/// this machine's project `p`? Asked of every project, several times for
/// each reading: the paths are compared as bytes when both are spelt
/// plainly (as the walk spells them), which is what `Path`'s
/// component-wise comparison answers then, at a fraction of its cost.
pub(super) fn covers(dirs: &[PathBuf], trees: &[PathBuf], p: &Project) -> bool {
    p.host.is_none()
        && (dirs.iter().any(|d| same_path(&p.path, d))
            || trees.iter().any(|t| path_under(&p.path, t)))
}

/// Spelt plainly: not empty, without an empty component (`//`, a
/// trailing `/`) or a `.` one, so bytes compare as components do.
fn plain(path: &Path) -> bool {
    let b = path.as_os_str().as_encoded_bytes();
    if b == b"/" {
        return true;
    }
    // An absolute path's first component is the root, before its `/`.
    let b = b.strip_prefix(b"/").unwrap_or(b);
    // One look at each byte (asked of every project for each reading):
    // a component starts at 0 and after each `/`, and must be neither
    // empty nor `.`.
    let mut start = true;
    for (i, &c) in b.iter().enumerate() {
        if start {
            let next = b.get(i + 1);
            if c == b'/' || (c == b'.' && matches!(next, None | Some(b'/'))) {
                return false;
            }
        }
        start = c == b'/';
    }
    !b.is_empty() && !start
}

fn same_path(a: &Path, b: &Path) -> bool {
    let (x, y) = (
        a.as_os_str().as_encoded_bytes(),
        b.as_os_str().as_encoded_bytes(),
    );
    // Equal paths end with the same name, so with the same byte unless
    // one ends with a `/` or a `.` component: most are told apart here,
    // before their bytes are compared (a workspace's paths are often all
    // of one length, and differ at their end).
    let odd = |c: Option<&u8>| matches!(c, Some(b'/' | b'.'));
    if x.last() != y.last() && !odd(x.last()) && !odd(y.last()) {
        return false;
    }
    if x == y {
        return true;
    }
    if plain(a) && plain(b) {
        return false;
    }
    a == b
}

fn path_under(a: &Path, under: &Path) -> bool {
    let (x, y) = (
        a.as_os_str().as_encoded_bytes(),
        under.as_os_str().as_encoded_bytes(),
    );
    if plain(under) {
        // Its bytes and then a separator: under it, however `a` goes on.
        if x.starts_with(y) && (x.len() == y.len() || y == b"/" || x[y.len()] == b'/') {
            return true;
        }
        if plain(a) {
            return false;
        }
    }
    a.starts_with(under)
}

/// Is `p` the project `id` names? (No key built.)
pub(super) fn is(p: &Project, id: &Identity) -> bool {
    p.format == id.2 && p.host == id.0 && same_path(&p.path, &id.1)
}

/// How current what the console shows of a project is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    Current,
    /// As the last run left it (the state directory's snapshot), shown
    /// until this run's first reading of it arrives: its files may have
    /// changed since, so nothing is decided on it.
    Refreshing,
    /// The last good reading, shown while the file settles.
    Rereading,
    /// The project is gone from disk; its last reading is kept on screen
    /// while it is the selected project.
    Gone,
}

/// A held-back reading.
#[derive(Debug, Clone)]
pub enum Held {
    /// Showing the last good reading; `fresh` is the latest (broken)
    /// reading, `None` when the project was missing from it.
    Rereading {
        seq: u64,
        fresh: Option<Box<Project>>,
    },
    Gone,
}

/// Did a reading bring problems the shown reading did not have?
fn broke(shown: &Project, fresh: &Project) -> bool {
    fresh.problems.iter().any(|p| !shown.problems.contains(p))
}

impl Model {
    pub fn freshness(&self, p: &Project) -> Freshness {
        if self.is_cached(p) {
            return Freshness::Refreshing;
        }
        // Asked for every drawn row: nothing held (the usual case) costs
        // no key to build.
        if self.held.is_empty() {
            return Freshness::Current;
        }
        match self.held.get(&identity(p)) {
            None => Freshness::Current,
            Some(Held::Rereading { .. }) => Freshness::Rereading,
            Some(Held::Gone) => Freshness::Gone,
        }
    }

    /// Is `p` shown from the last run's snapshot, not read yet?
    pub fn is_cached(&self, p: &Project) -> bool {
        !self.cached.is_empty() && p.host.is_none() && self.cached.contains(&identity(p))
    }

    /// The last run's snapshot of this machine's projects, shown at once:
    /// taken only while no reading of them has come (a reading that came
    /// first is newer). Each is marked refreshing until its reading
    /// replaces it; nothing is merged, held or remembered from it.
    pub(super) fn absorb_cached(&mut self, cached: Vec<Project>) -> Vec<Effect> {
        if !self.loading || self.projects.iter().any(|p| p.host.is_none()) {
            return Vec::new();
        }
        for p in cached {
            if p.host.is_none() && self.cached.insert(identity(&p)) {
                self.projects.push(p);
            }
        }
        crate::model::sort_newest_first(&mut self.projects);
        Vec::new()
    }

    /// A reading came: the snapshot's rows give way to it. `in_scope`
    /// says which rows the reading covers (a full reading: all of them);
    /// those are dropped, not held: one the reading brings back is simply
    /// taken, one it lacks is gone from disk.
    fn drop_cached(&mut self, in_scope: impl Fn(&Project) -> bool) {
        if self.cached.is_empty() {
            return;
        }
        let cached = &mut self.cached;
        self.projects.retain(|p| {
            let id = identity(p);
            if cached.contains(&id) && in_scope(p) {
                cached.remove(&id);
                false
            } else {
                true
            }
        });
    }

    fn hold(&mut self, id: Identity, fresh: Option<Project>, effects: &mut Vec<Effect>) {
        let fresh = fresh.map(Box::new);
        match self.held.get_mut(&id) {
            Some(Held::Rereading { fresh: f, .. }) => *f = fresh,
            _ => {
                self.hold_seq += 1;
                let seq = self.hold_seq;
                self.held.insert(id, Held::Rereading { seq, fresh });
                effects.push(Effect::SettleAfter(seq));
            }
        }
    }

    /// The projects to show after a reading of `fresh`, every project of
    /// this machine's roots. Other hosts' projects are not in a local
    /// reading: they stay as they are.
    pub(super) fn absorb(&mut self, fresh: Vec<Project>) -> Vec<Effect> {
        self.drop_cached(|_| true);
        let mut effects = Vec::new();
        let (remote, old): (Vec<Project>, Vec<Project>) = std::mem::take(&mut self.projects)
            .into_iter()
            .partition(|p| p.host.is_some());
        let mut positions: HashMap<Identity, usize> = HashMap::new();
        let mut previous: HashMap<Identity, Project> = HashMap::new();
        for (i, p) in old.into_iter().enumerate() {
            positions.insert(identity(&p), i);
            previous.insert(identity(&p), p);
        }
        let mut shown = Vec::with_capacity(fresh.len());
        for mut p in fresh {
            let id = identity(&p);
            match previous.remove(&id) {
                Some(prev) if broke(&prev, &p) => {
                    self.hold(id, Some(p), &mut effects);
                    shown.push(prev);
                }
                Some(prev) => {
                    self.held.remove(&id);
                    carry(&mut self.timeline_back, &prev, &mut p);
                    shown.push(p);
                }
                None => {
                    self.held.remove(&id);
                    shown.push(p);
                }
            }
        }
        // Projects missing from the reading, in their old places.
        let mut missing: Vec<(usize, Project)> = previous
            .into_iter()
            .map(|(id, p)| (positions.get(&id).copied().unwrap_or(usize::MAX), p))
            .collect();
        missing.sort_by_key(|(at, _)| *at);
        for (at, p) in missing {
            let id = identity(&p);
            let keep = match self.held.get(&id) {
                Some(Held::Gone) => self.selected.as_ref() == Some(&id),
                _ => {
                    self.hold(id, None, &mut effects);
                    true
                }
            };
            if keep {
                shown.insert(at.min(shown.len()), p);
            }
        }
        if !remote.is_empty() {
            shown.extend(remote);
            crate::model::sort_newest_first(&mut shown);
        }
        self.projects = shown;
        effects
    }

    /// The projects to show after a reading of part of them: those in
    /// exactly `dirs` and every one under `trees`. Each project read is
    /// taken as `absorb` takes it; one shown there and missing from `fresh`
    /// is missing as `absorb` has it; the others stay as they are. The list
    /// is then ordered as a full reading orders it (newest first).
    pub(super) fn absorb_part(
        &mut self,
        dirs: &[PathBuf],
        trees: &[PathBuf],
        fresh: Vec<Project>,
    ) -> Vec<Effect> {
        self.absorb_scoped(|p| covers(dirs, trees, p), fresh)
    }

    /// The projects to show after a reading of those `in_scope` says:
    /// each project of `fresh` is taken as `absorb` takes it; one in scope
    /// and missing from `fresh` is missing as `absorb` has it; the others
    /// stay as they are. The list is then ordered newest first. A host's
    /// snapshot is the reading of everything on that host; one project's
    /// line, of that project alone.
    pub(super) fn absorb_scoped(
        &mut self,
        in_scope: impl Fn(&Project) -> bool,
        fresh: Vec<Project>,
    ) -> Vec<Effect> {
        // The snapshot's rows this reading covers, and those it brings.
        let read: HashSet<Identity> = fresh.iter().map(identity).collect();
        self.drop_cached(|p| in_scope(p) || read.contains(&identity(p)));
        let mut effects = Vec::new();
        // A few projects read (one saved): found by a look along the list,
        // not a map of every project's identity built for each reading.
        let mut at: Option<HashMap<Identity, usize>> = (fresh.len() > 16).then(|| {
            self.projects
                .iter()
                .enumerate()
                .map(|(i, p)| (identity(p), i))
                .collect()
        });
        let mut read: HashSet<Identity> = HashSet::new();
        for mut p in fresh {
            let id = identity(&p);
            read.insert(id.clone());
            let found = match &at {
                Some(at) => at.get(&id).copied(),
                None => self.projects.iter().position(|q| is(q, &id)),
            };
            match found {
                Some(i) if broke(&self.projects[i], &p) => self.hold(id, Some(p), &mut effects),
                Some(i) => {
                    self.held.remove(&id);
                    carry(&mut self.timeline_back, &self.projects[i], &mut p);
                    self.projects[i] = p;
                }
                None => {
                    self.held.remove(&id);
                    if let Some(at) = &mut at {
                        at.insert(id, self.projects.len());
                    }
                    self.projects.push(p);
                }
            }
        }
        let missing: Vec<Identity> = self
            .projects
            .iter()
            .filter(|p| in_scope(p))
            .map(identity)
            .filter(|id| !read.contains(id))
            .collect();
        for id in missing {
            let keep = match self.held.get(&id) {
                Some(Held::Gone) => self.selected.as_ref() == Some(&id),
                _ => {
                    self.hold(id.clone(), None, &mut effects);
                    true
                }
            };
            if !keep {
                self.projects.retain(|p| identity(p) != id);
            }
        }
        crate::model::sort_newest_first(&mut self.projects);
        effects
    }

    /// The settle time of hold `seq` (and older) passed: show what the
    /// file says now, problem and all; a project still missing is gone.
    pub(super) fn settle(&mut self, seq: u64) {
        let due: Vec<Identity> = self
            .held
            .iter()
            .filter(|(_, h)| matches!(h, Held::Rereading { seq: s, .. } if *s <= seq))
            .map(|(id, _)| id.clone())
            .collect();
        for id in due {
            let Some(Held::Rereading { fresh, .. }) = self.held.remove(&id) else {
                continue;
            };
            let at = self.projects.iter().position(|p| identity(p) == id);
            match (fresh, at) {
                (Some(p), Some(at)) => {
                    let prev = std::mem::replace(&mut self.projects[at], *p);
                    carry(&mut self.timeline_back, &prev, &mut self.projects[at]);
                }
                (None, Some(at)) => {
                    if self.selected.as_ref() == Some(&id) {
                        self.held.insert(id, Held::Gone);
                    } else {
                        self.projects.remove(at);
                    }
                }
                (_, None) => {}
            }
        }
    }

    /// Forget the gone projects other than the selected one.
    pub(super) fn drop_gone(&mut self) {
        let selected = self.selected.clone();
        let gone: Vec<Identity> = self
            .held
            .iter()
            .filter(|(id, h)| matches!(h, Held::Gone) && Some(*id) != selected.as_ref())
            .map(|(id, _)| id.clone())
            .collect();
        for id in gone {
            self.held.remove(&id);
            self.projects.retain(|p| identity(p) != id);
        }
    }
}

/// The Timeline read back beyond the loader's tail, per devloop project.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Back {
    /// The file's first event is on screen.
    pub at_start: bool,
    /// A read is under way.
    pub pending: bool,
}

/// What a fresh reading of a project keeps from the one it replaces: the
/// Timeline read back, and the section diffs already computed.
fn carry(back: &mut HashMap<PathBuf, Back>, prev: &Project, fresh: &mut Project) {
    extend_timeline(back, prev, fresh);
    keep_diffs(prev, fresh);
}

/// A revision's section diff (computed when its drawer opened) still holds
/// while the files it compared read the same: their stamps in the fresh
/// reading equal those in the one it was computed on (an archive in
/// `history/` is never read by a reading, nor rewritten; a new revision is
/// a new key; `r` forgets every diff). Without this, every reading of the
/// project (a timeline line appended) would compare the archives again.
fn keep_diffs(prev: &Project, fresh: &mut Project) {
    if prev.detail.revisions.iter().all(|r| r.sections.is_none()) {
        return;
    }
    let stamp = |files: &[crate::model::FileStamp], file: &Option<String>| {
        file.as_ref()
            .and_then(|f| files.iter().find(|s| &s.file == f))
            .map(|s| s.sha256.clone())
    };
    let done: HashMap<String, &crate::model::DocDiff> = prev
        .detail
        .revisions
        .iter()
        .filter_map(|r| Some((super::panes::revision_key(r), r.sections.as_ref()?)))
        .collect();
    let files = &fresh.files;
    for r in &mut fresh.detail.revisions {
        if r.sections.is_some() {
            continue;
        }
        let Some(d) = done.get(&super::panes::revision_key(r)) else {
            continue;
        };
        let same = |f: &Option<String>| stamp(&prev.files, f) == stamp(files, f);
        if same(&d.new) && same(&d.old) {
            r.sections = Some((*d).clone());
        }
    }
}

/// Keep the older events read back into `prev`'s timeline in front of the
/// fresh tail, when the tail continues them.
fn extend_timeline(back: &mut HashMap<PathBuf, Back>, prev: &Project, fresh: &mut Project) {
    if !back.contains_key(&prev.path) {
        return;
    }
    let Some(first) = fresh.detail.timeline.first() else {
        return;
    };
    match prev.detail.timeline.iter().rposition(|e| e == first) {
        Some(at) => {
            let mut all: Vec<TimelineEvent> = prev.detail.timeline[..at].to_vec();
            all.append(&mut fresh.detail.timeline);
            fresh.detail.timeline = all;
        }
        // More was appended than the tail holds: start over from it.
        None => {
            back.remove(&prev.path);
        }
    }
}

#[cfg(test)]
mod path_tests {
    use super::*;

    /// `plain` says what a split into components says, byte by byte.
    #[test]
    fn plain_is_no_empty_and_no_dot_component() {
        let by_split = |b: &[u8]| {
            if b == b"/" {
                return true;
            }
            let b = b.strip_prefix(b"/").unwrap_or(b);
            b.split(|c| *c == b'/')
                .all(|part| !part.is_empty() && part != b".")
        };
        let parts = [
            "",
            "/",
            ".",
            "..",
            ".a",
            "a.",
            "a",
            "ab",
            ".planning",
            "a.b",
        ];
        for x in parts {
            for y in parts {
                for z in ["", "/", "//", "/."] {
                    let s = format!("{x}/{y}{z}");
                    for t in [s.clone(), format!("/{s}"), x.to_owned(), format!("{x}{z}")] {
                        assert_eq!(plain(Path::new(&t)), by_split(t.as_bytes()), "{t:?}");
                    }
                }
            }
        }
    }

    /// The byte comparisons answer what `Path`'s component-wise ones do,
    /// for plain spellings and the others alike.
    #[test]
    fn bytes_compare_as_components_do() {
        let spellings = [
            "/ws/a", "/ws/a/", "/ws//a", "/ws/./a", "/ws/a/.", "/ws/ab", "/ws/a/b", "/ws", "/",
            "ws/a", "./ws/a", "/ws/a/b/", "/wsa", "/ws/b",
        ];
        for a in spellings {
            for b in spellings {
                let (pa, pb) = (Path::new(a), Path::new(b));
                assert_eq!(same_path(pa, pb), pa == pb, "{a} == {b}");
                assert_eq!(path_under(pa, pb), pa.starts_with(pb), "{a} under {b}");
            }
        }
    }
}
