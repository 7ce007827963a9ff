//! What arrived while the user looked elsewhere (issue 9 §4, §5): a
//! notification when items start waiting for a human, the marks on new
//! inbox items until they are seen, and the count of Timeline events that
//! arrived below a Timeline scrolled up.
//!
//! Rules:
//! - An item (project identity, kind, reference) is *new* when a reading
//!   shows it and the readings before did not. The first reading of a run
//!   brings nothing new: the console was not open to see it arrive.
//! - A reading held back (a file caught mid-write) shows the last good
//!   reading, so its items stay and nothing is new. A project that breaks
//!   (its reading brings problems the last one lacked) or leaves the disk
//!   keeps its items remembered: when it reads well again, or comes back,
//!   with the same item, that item is not new. An item is forgotten only
//!   when its project reads without it and no worse than before (it was
//!   answered); asked again later, it is new again.
//! - One `Effect::Notify` per reading, summing up its new items.
//! - A new item is marked until *seen*: a key is pressed while the inbox
//!   shows its row (the rows drawn in the last frame), or while its
//!   project's detail is open (focus on the detail), or the key opens it.
//!   A reading alone never makes an item seen: a user away from the
//!   keyboard finds the marks when back.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use super::reading::{Identity, identity};
use super::{Effect, Focus, Mode, Model, Screen, Tab, panes};
use crate::model::{Event as TimelineEvent, InboxItem, InboxKind, Problem, Project};
use crate::t;

/// The most Timeline events kept in front of the tail while scrolled up.
pub(super) const KEEP_MAX: usize = 2_000;

/// An item's identity inside its project.
pub fn item_key(item: &InboxItem) -> String {
    format!("{:?}|{}", item.kind, item.reference)
}

/// The items of one project as last believed.
#[derive(Debug, Clone, Default)]
struct Known {
    items: HashSet<String>,
    /// The problems of the reading that showed `items` well.
    problems: Vec<Problem>,
}

#[derive(Debug, Clone, Default)]
pub struct Notices {
    /// A full reading has been taken in: later ones can bring something new.
    primed: bool,
    /// The items believed waiting, per project (only projects with some).
    known: HashMap<Identity, Known>,
    /// The paths of `known`: a project without items and not known costs
    /// a reading no allocation (10,000 projects, 50 readings a second).
    known_paths: HashSet<PathBuf>,
    /// New items not seen yet, per project.
    unseen: HashMap<Identity, HashSet<String>>,
    /// The newest Timeline event when the user scrolled up from the end,
    /// and the project it belongs to.
    anchor: Option<(PathBuf, TimelineEvent)>,
    /// The Timeline whose older events are kept while scrolled up (so the
    /// rows on screen stay put as the tail moves on).
    kept: Option<PathBuf>,
}

impl Notices {
    /// Is `item` of `p` new and not seen yet?
    pub fn is_new(&self, p: &Project, item: &InboxItem) -> bool {
        !self.unseen.is_empty()
            && self
                .unseen
                .get(&identity(p))
                .is_some_and(|s| s.contains(&item_key(item)))
    }

    fn see(&mut self, p: &Project, item: &InboxItem) {
        let id = identity(p);
        if let Some(s) = self.unseen.get_mut(&id) {
            s.remove(&item_key(item));
            if s.is_empty() {
                self.unseen.remove(&id);
            }
        }
    }
}

/// Did `fresh` bring problems that `known` did not have?
fn broke(known: &[Problem], fresh: &[Problem]) -> bool {
    fresh.iter().any(|p| !known.contains(p))
}

impl Model {
    /// New items shown and not seen yet (the header's "N new").
    pub fn new_total(&self) -> usize {
        if self.notices.unseen.is_empty() {
            return 0;
        }
        self.projects
            .iter()
            .map(|p| p.inbox.iter().filter(|i| self.notices.is_new(p, i)).count())
            .sum()
    }

    /// Timeline events of the selected project that arrived below the
    /// rows on screen since the user scrolled up (0 while following).
    pub fn timeline_new_below(&self) -> usize {
        if self.follow_timeline {
            return 0;
        }
        let (Some(p), Some((path, anchor))) = (self.selected_project(), &self.notices.anchor)
        else {
            return 0;
        };
        if &p.path != path {
            return 0;
        }
        let ev = &p.detail.timeline;
        let rows = panes::timeline(p, &self.pane(Tab::Timeline).filter);
        match ev.iter().rposition(|e| e == anchor) {
            Some(at) => rows.iter().filter(|&&i| i > at).count(),
            // More arrived at once than the tail holds: count by time.
            None => rows
                .iter()
                .filter(|&&i| matches!((ev[i].at, anchor.at), (Some(a), Some(b)) if a > b))
                .count(),
        }
    }
}

/// Before a reading is merged: while the selected devloop Timeline is
/// scrolled up, keep its older events in front of the fresh tail, so the
/// rows on screen do not move.
pub(super) fn before_reading(m: &mut Model) {
    if m.follow_timeline {
        return;
    }
    let Some(p) = m.selected_project() else {
        return;
    };
    // A user away while an agent writes on: past this many events the
    // older ones go (the rows move once) rather than memory growing.
    if p.detail.timeline.len() > KEEP_MAX {
        if let Some(path) = m.notices.kept.take() {
            m.timeline_back.remove(&path);
        }
        return;
    }
    if !p.format.shape().older_events || m.timeline_back.contains_key(&p.path) {
        return;
    }
    let path = p.path.clone();
    m.timeline_back.insert(path.clone(), super::Back::default());
    m.notices.kept = Some(path);
}

/// After a reading is merged: what is new, and the notification for it.
/// `full`: a reading of every project (the first one of a run primes).
/// `priming`: a host's first snapshot, whose items are known, not new,
/// as this machine's are at the first full reading. `in_scope`: the
/// projects the reading could have changed (the others are as the last
/// reading left them).
pub(super) fn after_reading(
    m: &mut Model,
    full: bool,
    priming: Option<&crate::model::HostName>,
    in_scope: &dyn Fn(&Project) -> bool,
) -> Vec<Effect> {
    // The rows drawn belong to the last frame: not these.
    m.inbox.first.forget_shown();
    let n = &mut m.notices;
    let mut fresh: Vec<(&Project, &InboxItem)> = Vec::new();
    let cached = &m.cached;
    for p in m.projects.iter().filter(|p| in_scope(p)) {
        if p.inbox.is_empty() && !n.known_paths.contains(p.path.as_path()) {
            continue;
        }
        // A row of the last run's snapshot brings nothing: its reading
        // does, when it comes.
        if !cached.is_empty() && p.host.is_none() && cached.contains(&identity(p)) {
            continue;
        }
        let id = identity(p);
        match n.known.get_mut(&id) {
            None if p.inbox.is_empty() => {}
            None => {
                n.known_paths.insert(p.path.clone());
                fresh.extend(p.inbox.iter().map(|i| (p, i)));
                n.known.insert(
                    id,
                    Known {
                        items: p.inbox.iter().map(item_key).collect(),
                        problems: p.problems.clone(),
                    },
                );
            }
            Some(k) => {
                let keys: HashSet<String> = p.inbox.iter().map(item_key).collect();
                fresh.extend(
                    p.inbox
                        .iter()
                        .filter(|i| !k.items.contains(&item_key(i)))
                        .map(|i| (p, i)),
                );
                if broke(&k.problems, &p.problems) {
                    // Broken: remember what it showed when it read well.
                    k.items.extend(keys);
                } else {
                    if let Some(u) = n.unseen.get_mut(&id) {
                        u.retain(|key| keys.contains(key));
                        if u.is_empty() {
                            n.unseen.remove(&id);
                        }
                    }
                    if keys.is_empty() {
                        n.known.remove(&id);
                        if !n.known.keys().any(|(_, path, _)| path == &p.path) {
                            n.known_paths.remove(p.path.as_path());
                        }
                    } else {
                        k.items = keys;
                        if k.problems != p.problems {
                            k.problems = p.problems.clone();
                        }
                    }
                }
            }
        }
    }
    // Before the first full reading, the items read were there before
    // the console was: known, not new; unless the memory of an earlier
    // run (`first-seen.json`) did not hold them: those arrived while no
    // one looked, and are marked (no notification: the user is here).
    // A host's first snapshot primes its items as the first full reading
    // primes this machine's (arrivals while no one looked are marked).
    let (quiet, fresh): (Vec<_>, Vec<_>) = fresh
        .into_iter()
        .partition(|(p, _)| priming.is_some_and(|h| p.host.as_ref() == Some(h)));
    if m.first_seen.remembered {
        for (p, i) in &quiet {
            if m.first_seen.arrived.contains(&m.first_seen.key(p, i)) {
                n.unseen.entry(identity(p)).or_default().insert(item_key(i));
            }
        }
    }
    let primed = n.primed;
    n.primed |= full;
    if !primed && full && m.first_seen.remembered {
        for (p, i) in &fresh {
            if m.first_seen.arrived.contains(&m.first_seen.key(p, i)) {
                n.unseen.entry(identity(p)).or_default().insert(item_key(i));
            }
        }
    }
    // Another host's items are new once its first snapshot primed it,
    // whether or not this machine's first reading came yet.
    let fresh: Vec<_> = fresh
        .into_iter()
        .filter(|(p, _)| primed || p.host.is_some())
        .collect();
    if fresh.is_empty() {
        return Vec::new();
    }
    for (p, i) in &fresh {
        n.unseen.entry(identity(p)).or_default().insert(item_key(i));
    }
    let mut effects = vec![notice(&fresh)];
    // The `[notify] command` hears of each, as the terminal does.
    if m.hook {
        effects.extend(fresh.iter().map(|(p, i)| {
            Effect::Hook(super::escalate::payload(
                super::escalate::HookEvent::Waiting,
                p,
                i,
                &m.rules,
                m.now,
            ))
        }));
    }
    effects
}

/// The notification for `fresh` items (one, whatever their number).
fn notice(fresh: &[(&Project, &InboxItem)]) -> Effect {
    if let [(p, item)] = fresh {
        return Effect::Notify {
            title: format!("loopdeck · {}", p.label()),
            body: format!("{}: {}", item.kind.shown(), item.title.shown()),
        };
    }
    let mut names: Vec<String> = Vec::new();
    for (p, _) in fresh {
        let label = p.label();
        if !names.iter().any(|n| *n == label) {
            names.push(label.into_owned());
        }
    }
    let shown = names.len().min(3);
    let mut listed = names[..shown].join(t!("app.keymap.sep"));
    if names.len() > shown {
        listed = t!("app.notify.more", names = listed, n = names.len() - shown);
    }
    let n = fresh.len();
    let body = if fresh.iter().all(|(_, i)| i.kind == InboxKind::Question) {
        t!("app.notify.questions", n = n, names = listed)
    } else {
        t!("app.notify.items", n = n, names = listed)
    };
    Effect::Notify {
        title: "loopdeck".to_owned(),
        body,
    }
}

/// A key is about to act on what the last frame showed: the new items on
/// screen are seen. Did any mark go (the frame must be drawn again)?
pub(super) fn before_key(m: &mut Model) -> bool {
    if m.notices.unseen.is_empty() || matches!(m.mode, Mode::Help | Mode::Palette) {
        return false;
    }
    let before = m.new_total();
    match m.screen {
        Screen::Inbox => {
            let rows = panes::inbox(m);
            let drawn = m.inbox.first.shown();
            let (from, to) = (drawn.start.min(rows.len()), drawn.end.min(rows.len()));
            for &(pi, ii) in &rows[from..to] {
                let p = &m.projects[pi];
                m.notices.see(p, &p.inbox[ii]);
            }
        }
        Screen::Projects => see_open_project(m),
    }
    m.new_total() != before
}

/// After any event: a key that opened a project's detail sees its items;
/// the Timeline's anchor follows the scrolling.
pub(super) fn after_step(m: &mut Model, key: bool) {
    if key {
        see_open_project(m);
    }
    // The user read further back: those events are theirs to keep.
    if let Some(path) = &m.notices.kept
        && m.timeline_back
            .get(path)
            .is_none_or(|b| b.pending || b.at_start)
    {
        m.notices.kept = None;
    }
    if m.follow_timeline {
        m.notices.anchor = None;
        // Back at the end: the tail alone again (memory stays flat).
        if let Some(path) = m.notices.kept.take() {
            m.timeline_back.remove(&path);
        }
        return;
    }
    let Some(p) = m.selected_project() else {
        return;
    };
    if m.notices.anchor.as_ref().is_some_and(|(a, _)| a == &p.path) {
        return;
    }
    m.notices.anchor = p
        .detail
        .timeline
        .last()
        .map(|e| (p.path.clone(), e.clone()));
}

fn see_open_project(m: &mut Model) {
    if m.notices.unseen.is_empty() || m.screen != Screen::Projects || m.focus != Focus::Detail {
        return;
    }
    let Some(p) = m.selected_project() else {
        return;
    };
    let id = identity(p);
    m.notices.unseen.remove(&id);
}
