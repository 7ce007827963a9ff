//! "Since you looked" (issue 11 §1): what the user last saw of each
//! project, and what changed since. Pure: the runtime loads and saves the
//! memory (`store::seen`), the console records into it.
//!
//! When is a project *seen*?
//! - Its first reading ever is its baseline: a run with no memory marks
//!   nothing as changed, and a project that appears later is compared
//!   with how it first appeared.
//! - After that, only when the user looks at it: a key is pressed while
//!   its detail has the focus (the key that opens it included, and the
//!   `q` that quits from it). Selecting a row in the list, or a reading
//!   arriving while the user is away from the keyboard, does not make it
//!   seen.
//! - The Overview compares with what was seen *before the detail was
//!   opened*, for as long as it stays open, so the section does not vanish
//!   under the user's eyes at the first key.
//!
//! The memory is bounded: a project not found by a full reading, and not
//! seen for [`FORGET_DAYS`], is forgotten; at most [`MAX_PROJECTS`] are
//! kept (the least recently seen go first).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Event, InboxItem, Project};

/// A project not found and not seen for this long is forgotten.
pub const FORGET_DAYS: i64 = 90;
/// The most projects remembered.
pub const MAX_PROJECTS: usize = 20_000;
/// Longest title kept for a waiting item (characters).
const TITLE_CHARS: usize = 120;

/// One waiting item as seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waiting {
    /// Its kind's stable English word ([`super::InboxKind::label`]).
    pub kind: String,
    /// The id its format uses for it (`ref`).
    #[serde(rename = "ref")]
    pub reference: String,
    /// Its title in English, cut to 120 characters (the last one `…`).
    pub title: String,
}

impl Waiting {
    fn of(item: &InboxItem) -> Self {
        Waiting {
            kind: item.kind.label().to_owned(),
            reference: item.reference.clone(),
            // In English, as the JSON says it (`since_you_looked`).
            title: {
                let title = item.title.en();
                if title.chars().count() > TITLE_CHARS {
                    let mut t: String = title.chars().take(TITLE_CHARS - 1).collect();
                    t.push('…');
                    t
                } else {
                    title.into_owned()
                }
            },
        }
    }

    /// The item's stable key in its project (kind and reference).
    pub fn key(&self) -> (&str, &str) {
        (&self.kind, &self.reference)
    }
}

/// The last Timeline event as seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastEvent {
    /// When the event happened, as the timeline says.
    pub at: Option<DateTime<Utc>>,
    /// sha256 (first 16 hex digits) of the event's source, kind, summary
    /// and unit: finds it again in a later tail.
    pub hash: String,
}

fn event_hash(e: &Event) -> String {
    let mut h = Sha256::new();
    for part in [
        e.source.as_str(),
        e.kind.as_str(),
        e.summary.as_str(),
        e.unit.as_deref().unwrap_or(""),
    ] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    h.finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl LastEvent {
    fn of(e: &Event) -> Self {
        LastEvent {
            at: e.at,
            hash: event_hash(e),
        }
    }

    fn is(&self, e: &Event) -> bool {
        self.at == e.at && self.hash == event_hash(e)
    }
}

/// What the user last saw of one project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    /// When it was recorded.
    pub at: DateTime<Utc>,
    /// The project's status word.
    pub status: String,
    /// Its stage, in English.
    pub stage: Option<String>,
    /// Percent done, when the format measures it.
    pub progress_percent: Option<u8>,
    /// Its waiting items, in the project's order.
    #[serde(default)]
    pub waiting: Vec<Waiting>,
    /// Bug id → status.
    #[serde(default)]
    pub bugs: BTreeMap<String, String>,
    /// The newest timeline event (`None`: the timeline was empty).
    pub last_event: Option<LastEvent>,
}

impl Seen {
    /// `p` as it is now, seen at `at`.
    pub fn of(p: &Project, at: DateTime<Utc>) -> Self {
        Seen {
            at,
            status: p.status.clone(),
            // In English, as `since_you_looked` says it.
            stage: p.stage.as_ref().map(|s| s.en().into_owned()),
            progress_percent: p.progress_percent,
            waiting: p.inbox.iter().map(Waiting::of).collect(),
            bugs: p
                .detail
                .bugs
                .iter()
                .map(|b| (b.id.clone(), b.status.clone()))
                .collect(),
            last_event: p.detail.timeline.last().map(LastEvent::of),
        }
    }

    /// Does `p` look as this snapshot saw it (the time aside)?
    fn same(&self, p: &Project) -> bool {
        let mut now = Seen::of(p, self.at);
        now.at = self.at;
        *self == now
    }
}

/// A bug whose status moved (`before` `None`: a new bug; `after` `None`:
/// gone from the project).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BugMove {
    /// The bug's id.
    pub id: String,
    /// Its status when seen.
    pub before: Option<String>,
    /// Its status now.
    pub after: Option<String>,
}

/// A value before and after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change<T> {
    /// When seen.
    pub before: T,
    /// Now.
    pub after: T,
}

/// What changed in a project since it was seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Since {
    /// When it was seen.
    pub looked_at: DateTime<Utc>,
    /// The status word, when it moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<Change<String>>,
    /// The stage (in English), when it moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<Change<Option<String>>>,
    /// Percent done, when it moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress_percent: Option<Change<Option<u8>>>,
    /// Items waiting now that were not then.
    pub new_items: Vec<Waiting>,
    /// Items waiting then that are not now (answered, or withdrawn).
    pub answered: Vec<Waiting>,
    /// Bugs opened, moved or gone, by id.
    pub bugs: Vec<BugMove>,
    /// Timeline events after the last one seen.
    pub new_events: usize,
    /// The last event seen is no longer in the tail read: `new_events`
    /// counts the tail's events after it by time, and there may be more.
    pub more_events: bool,
}

impl Since {
    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.status.is_none()
            && self.stage.is_none()
            && self.progress_percent.is_none()
            && self.new_items.is_empty()
            && self.answered.is_empty()
            && self.bugs.is_empty()
            && self.new_events == 0
            && !self.more_events
    }
}

fn change<T: PartialEq + Clone>(before: &T, after: &T) -> Option<Change<T>> {
    (before != after).then(|| Change {
        before: before.clone(),
        after: after.clone(),
    })
}

/// What changed in `now` since `before` was seen.
pub fn since(before: &Seen, now: &Project) -> Since {
    let after = Seen::of(now, before.at);
    // The same item is the same key asking the same thing: a new question
    // under the same reference (GSD's WAITING.json) is an answered one and
    // a new one.
    let same = |a: &Waiting, b: &Waiting| a.key() == b.key() && a.title == b.title;
    let new_items = after
        .waiting
        .iter()
        .filter(|w| !before.waiting.iter().any(|b| same(b, w)))
        .cloned()
        .collect();
    let answered = before
        .waiting
        .iter()
        .filter(|b| !after.waiting.iter().any(|w| same(w, b)))
        .cloned()
        .collect();
    let mut bugs: Vec<BugMove> = after
        .bugs
        .iter()
        .filter(|(id, status)| before.bugs.get(*id) != Some(status))
        .map(|(id, status)| BugMove {
            id: id.clone(),
            before: before.bugs.get(id).cloned(),
            after: Some(status.clone()),
        })
        .collect();
    bugs.extend(
        before
            .bugs
            .iter()
            .filter(|(id, _)| !after.bugs.contains_key(*id))
            .map(|(id, status)| BugMove {
                id: id.clone(),
                before: Some(status.clone()),
                after: None,
            }),
    );
    bugs.sort_by(|a, b| a.id.cmp(&b.id));
    let (new_events, more_events) = events_after(before.last_event.as_ref(), &now.detail.timeline);
    Since {
        looked_at: before.at,
        status: change(&before.status, &after.status),
        stage: change(&before.stage, &after.stage),
        progress_percent: change(&before.progress_percent, &after.progress_percent),
        new_items,
        answered,
        bugs,
        new_events,
        more_events,
    }
}

/// How many events of `timeline` (a tail, oldest first) came after `last`.
fn events_after(last: Option<&LastEvent>, timeline: &[Event]) -> (usize, bool) {
    let Some(last) = last else {
        // Nothing then: everything read is new.
        return (timeline.len(), false);
    };
    if let Some(i) = timeline.iter().rposition(|e| last.is(e)) {
        return (timeline.len() - 1 - i, false);
    }
    // Not in the tail: gone (a rewritten file), or pushed out by newer
    // events. Count what is later by time; if the whole tail is, there
    // may be more before it.
    match last.at {
        Some(at) => {
            let n = timeline
                .iter()
                .filter(|e| e.at.is_some_and(|t| t > at))
                .count();
            (n, n > 0 && n == timeline.len())
        }
        None => (0, !timeline.is_empty()),
    }
}

/// `path` joined to `base` unless absolute, its `.` and `..` folded
/// lexically (no disk looked at).
pub(crate) fn absolute_folded(base: &Path, path: &Path) -> PathBuf {
    let joined = base.join(path);
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The memory's key of a project: its format and its absolute path
/// (relative paths joined to `base`, the working directory), `.` and `..`
/// folded, so `loopdeck .` and `loopdeck /abs/path` share it. Another
/// host's project: `host:NAME:FORMAT:PATH` (its path is that machine's).
pub fn key(base: &Path, p: &Project) -> String {
    let out = absolute_folded(base, &p.path);
    match &p.host {
        // Another machine's path: the same path here is another project.
        Some(host) => format!(
            "host:{host}:{}:{}",
            p.format.as_str(),
            p.path.to_string_lossy()
        ),
        None => format!("{}:{}", p.format.as_str(), out.to_string_lossy()),
    }
}

/// What the console remembers of every project, and of the one open.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    /// The working directory, for [`key`].
    pub base: PathBuf,
    /// Per project key, what was last seen (what is saved).
    pub projects: BTreeMap<String, Seen>,
    /// The project whose detail is open, and what had been seen of it
    /// before it was opened (the Overview compares with that).
    pub opened: Option<(String, Option<Seen>)>,
    /// Changed since the last save (the runtime clears it when it saves).
    pub dirty: bool,
    /// The keys of the projects changed since seen (kept by [`Memory::refresh`]).
    changed: HashSet<String>,
    /// A full reading has pruned the memory.
    pruned: bool,
}

impl Memory {
    /// A memory of `projects` (as loaded), keyed against the working directory
    /// `base`.
    pub fn new(base: PathBuf, projects: BTreeMap<String, Seen>) -> Self {
        Memory {
            base,
            projects,
            ..Memory::default()
        }
    }

    /// `p`'s key in this memory (see [`key`]).
    pub fn key(&self, p: &Project) -> String {
        key(&self.base, p)
    }

    /// What the user had seen of `p` before: while its detail is open,
    /// what was seen before it was opened.
    pub fn before(&self, p: &Project) -> Option<&Seen> {
        let k = self.key(p);
        match &self.opened {
            Some((open, before)) if *open == k => before.as_ref(),
            _ => self.projects.get(&k),
        }
    }

    /// What changed in `p` since the user looked (`None`: never seen).
    pub fn since(&self, p: &Project) -> Option<Since> {
        self.before(p).map(|s| since(s, p))
    }

    /// Has `p` changed since it was last seen (the list's mark)? As of
    /// the last [`Memory::refresh`].
    pub fn changed(&self, p: &Project) -> bool {
        !self.changed.is_empty() && self.changed.contains(&self.key(p))
    }

    /// Is any project changed since seen?
    pub fn any_changed(&self) -> bool {
        !self.changed.is_empty()
    }

    /// Compare `projects` (as shown now) with what was seen of them;
    /// `all`: they are every project shown (the others are forgotten).
    pub fn refresh<'a>(&mut self, projects: impl IntoIterator<Item = &'a Project>, all: bool) {
        if all {
            self.changed.clear();
        }
        for p in projects {
            let k = self.key(p);
            if self.projects.get(&k).is_some_and(|s| !s.same(p)) {
                self.changed.insert(k);
            } else {
                self.changed.remove(&k);
            }
        }
    }

    /// A reading brought `projects`: a project never seen gets its
    /// baseline. `full`: every project was read; the first full reading
    /// forgets projects not found and not seen for [`FORGET_DAYS`].
    pub fn read(&mut self, projects: &[Project], full: bool, now: DateTime<Utc>) {
        let found: HashMap<String, &Project> = projects.iter().map(|p| (self.key(p), p)).collect();
        for (k, p) in &found {
            if !self.projects.contains_key(k) {
                self.projects.insert(k.clone(), Seen::of(p, now));
                self.dirty = true;
            }
        }
        if full && !self.pruned {
            self.pruned = true;
            let before = self.projects.len();
            forget(&mut self.projects, |k| found.contains_key(k), now);
            self.dirty |= self.projects.len() != before;
        }
    }

    /// The user is looking at `p`'s detail (`None`: at no detail).
    pub fn look(&mut self, p: Option<&Project>, now: DateTime<Utc>) {
        let Some(p) = p else {
            self.opened = None;
            return;
        };
        let k = self.key(p);
        let opening = self.opened.as_ref().is_none_or(|(open, _)| *open != k);
        if opening {
            self.opened = Some((k.clone(), self.projects.get(&k).cloned()));
        }
        // Recorded when opened (the time says when it was last looked at)
        // and when it changed under the user's eyes.
        let was = self.projects.get(&k);
        if opening || was.is_none_or(|s| !s.same(p)) {
            self.projects.insert(k.clone(), Seen::of(p, now));
            self.dirty = true;
        }
        self.changed.remove(&k);
    }
}

/// Forget what is not `kept` (found by this reading, or held by this
/// console) and not looked at for [`FORGET_DAYS`]; keep at most
/// [`MAX_PROJECTS`], the latest looked at. The console's first full
/// reading does it, and so does every save, to what another console left.
pub fn forget(
    projects: &mut BTreeMap<String, Seen>,
    kept: impl Fn(&str) -> bool,
    now: DateTime<Utc>,
) {
    let cutoff = now - Duration::days(FORGET_DAYS);
    projects.retain(|k, s| kept(k) || s.at >= cutoff);
    if projects.len() > MAX_PROJECTS {
        let mut ats: Vec<DateTime<Utc>> = projects.values().map(|s| s.at).collect();
        ats.sort_unstable_by(|a, b| b.cmp(a));
        let keep_from = ats[MAX_PROJECTS - 1];
        projects.retain(|_, s| s.at >= keep_from);
    }
}

#[cfg(test)]
mod tests;
