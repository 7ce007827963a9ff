//! The phases of [`update`](super::update) around `step`, in the order
//! they run. `step` does what the event means; these keep the console's
//! memories in step with it: when items were first seen, the marks on new
//! items, the "since you looked" memory, the escalations, a decision
//! waiting for a reading, the resume card's excerpts, a revision's diff.
//!
//! The order matters; each phase says why it runs where it does. Before
//! the step, a phase sees the model as the last frame showed it (what the
//! user saw when they pressed the key, what was known before the
//! reading); after it, the model the event made.

use std::path::PathBuf;

use crossterm::event::KeyEventKind;

use super::hosts::HostChange;
use super::reading::{self, Identity};
use super::{Drawer, Effect, Event, Focus, Model, Screen, decide, escalate, notice, panes};
use crate::model::{Scenario, since_seconds};

/// What a reading covered: `None` every project, else these directories
/// (their projects) and trees (every project under them).
type Covered = (Option<Vec<PathBuf>>, Vec<PathBuf>);

/// What one event is, as the phases see it (taken before `step` consumes
/// it), and what the phases before the step noted for those after it.
pub(super) struct Phases {
    /// The user's hand: a key pressed (not released) or a click.
    key: bool,
    /// A reading merged: every project, some, or a held one settled.
    reading: bool,
    /// A reading of every project.
    full: bool,
    /// The minute's clock.
    clock: bool,
    /// What a reading covered (`Event::Loaded`, `Event::Reread`).
    covered: Option<Covered>,
    /// The first-seen memory changed: to be saved.
    first_changed: bool,
    /// The key saw new items on screen (their marks went).
    seen_by_key: bool,
    /// The "since you looked" memory was already waiting to be saved.
    was_dirty: bool,
    /// The project whose detail had the focus before the key.
    looked: Option<Identity>,
    /// Another host's feed brought projects: that host, and whether it
    /// was a snapshot (the first of a run primes the host's items).
    host: Option<(crate::model::HostName, bool)>,
}

impl Phases {
    pub(super) fn of(event: &Event) -> Self {
        Phases {
            // A click is the user's hand as a key is.
            key: matches!(event, Event::Key(k) if k.kind != KeyEventKind::Release)
                || matches!(event, Event::Click(_)),
            reading: matches!(
                event,
                Event::Loaded(_) | Event::Reread { .. } | Event::Settle(_)
            ) || matches!(event, Event::Host { change, .. } if change.is_reading()),
            full: matches!(event, Event::Loaded(_)),
            clock: matches!(event, Event::Clock(_)),
            covered: match event {
                Event::Loaded(_) => Some((None, Vec::new())),
                Event::Reread { dirs, trees, .. } => Some((Some(dirs.clone()), trees.clone())),
                _ => None,
            },
            first_changed: false,
            seen_by_key: false,
            was_dirty: false,
            looked: None,
            host: match event {
                Event::Host { name, change } if change.is_reading() => {
                    Some((name.clone(), matches!(change, HostChange::Snapshot(_))))
                }
                _ => None,
            },
        }
    }

    // ---- before the step ----

    /// 1. Each waiting item without a time in its files waits from when a
    ///    reading first showed it: filled into the reading's projects
    ///    before they are merged, so the model never holds an item
    ///    without its age (and never re-ages it on another write).
    ///    Another host's projects are stamped with their host first: the
    ///    memories key them apart from this machine's.
    pub(super) fn fill_first_seen(&mut self, m: &mut Model, event: &mut Event) {
        self.first_changed = match event {
            Event::Loaded(ps) | Event::Reread { projects: ps, .. } => m.first_seen.fill(ps, m.now),
            Event::Host { name, change } => match change {
                HostChange::Snapshot(ps) => {
                    for p in ps.iter_mut() {
                        p.host = Some(name.clone());
                    }
                    m.first_seen.fill(ps, m.now)
                }
                HostChange::Project(p) => {
                    p.host = Some(name.clone());
                    m.first_seen.fill(std::slice::from_mut(&mut **p), m.now)
                }
                _ => false,
            },
            _ => false,
        };
    }

    /// 2. A key acts on what the last frame showed: the new items on that
    ///    screen are seen before the key moves anything.
    pub(super) fn see_before_key(&mut self, m: &mut Model) {
        self.seen_by_key = self.key && notice::before_key(m);
    }

    /// 3. A scrolled-up Timeline keeps its older events in front of the
    ///    fresh tail: taken from the project before the reading replaces
    ///    it.
    pub(super) fn keep_timeline(&self, m: &mut Model) {
        if self.reading {
            notice::before_reading(m);
        }
    }

    /// 4. Noted before anything below changes them: whether the "since you
    ///    looked" memory already waited for a save, and the project being
    ///    looked at before the key (the key that leaves it, Esc, i, n,
    ///    still counts as looking at it).
    pub(super) fn note_looking(&mut self, m: &Model) {
        self.was_dirty = m.seen.dirty;
        self.looked = if self.key { looking(m) } else { None };
    }

    /// 5. A reading gives a project never seen its baseline (`model::seen`)
    ///    from the projects as read, before they are merged.
    pub(super) fn seen_reading(&self, m: &mut Model, event: &Event) {
        match event {
            Event::Loaded(projects) => m.seen.read(projects, true, m.now),
            Event::Reread { projects, .. } => m.seen.read(projects, false, m.now),
            Event::Host { change, .. } => match change {
                HostChange::Snapshot(ps) => m.seen.read(ps, false, m.now),
                HostChange::Project(p) => m.seen.read(std::slice::from_ref(&**p), false, m.now),
                _ => {}
            },
            _ => {}
        }
    }

    // ---- 6. `step` ----

    // ---- after the step ----

    /// 7. What the merged reading brought that is new, and the
    ///    notification for it (compared with the notices of step 3).
    pub(super) fn notify_new(&self, m: &mut Model, effects: &mut Vec<Effect>) {
        if self.reading {
            // A host's first snapshot: what waits there waited before.
            let priming = self.host.as_ref().and_then(|(name, snapshot)| {
                let first = m.hosts.iter().any(|h| h.name == *name && h.snapshots == 1);
                (*snapshot && first).then_some(name)
            });
            let in_scope = |p: &crate::model::Project| self.in_scope(p);
            effects.extend(notice::after_reading(m, self.full, priming, &in_scope));
        }
    }

    /// Could the reading of this event have changed `p`? Only a project
    /// it read (or found missing) could: the others are as the last
    /// reading left them, so what is new is looked for among these alone
    /// (at 10,000 projects, one saved 50 times a second cost a core).
    fn in_scope(&self, p: &crate::model::Project) -> bool {
        if let Some((name, _)) = &self.host {
            return p.host.as_ref() == Some(name);
        }
        match &self.covered {
            Some((Some(dirs), trees)) => reading::covers(dirs, trees, p),
            _ => true,
        }
    }

    /// 8. The `[[escalate]]` rules that start firing on the merged
    ///    reading or at the minute's clock; after step 7, so new items and
    ///    escalations in one reading ring once.
    pub(super) fn escalate(&self, m: &mut Model, effects: &mut Vec<Effect>) {
        if self.reading || self.clock {
            effects.extend(escalate::check(m));
            coalesce_notify(effects);
        }
    }

    /// 9. A decision's retry held for a reading of its project goes ahead
    ///    once that reading is merged.
    pub(super) fn retry_decision(&self, m: &mut Model, effects: &mut Vec<Effect>) {
        if let Some((dirs, trees)) = &self.covered {
            effects.extend(decide::read(m, dirs.as_deref(), trees));
        }
    }

    /// 10. A key that opened a project's detail sees its items; the
    ///     Timeline's anchor follows where the step scrolled it.
    pub(super) fn see_after_step(&self, m: &mut Model) {
        notice::after_step(m, self.key);
    }

    /// 11. Compare what the reading changed with what was seen, and record
    ///     the looks: the project left (step 4) and the one now looked at.
    pub(super) fn seen_after(&self, m: &mut Model) {
        match &self.covered {
            Some((None, _)) => m.seen.refresh(&m.projects, true),
            Some((Some(_), _)) => m
                .seen
                .refresh(m.projects.iter().filter(|p| self.in_scope(p)), false),
            None => {}
        }
        if let Some((name, _)) = &self.host {
            m.seen.refresh(
                m.projects.iter().filter(|p| p.host.as_ref() == Some(name)),
                false,
            );
        }
        if self.key && !m.too_small() {
            // A row shown from the last run's snapshot is not looked at:
            // what is seen is what a reading showed.
            let index = |m: &Model, at: &Option<Identity>| {
                let id = at.as_ref()?;
                m.projects
                    .iter()
                    .position(|p| reading::is(p, id))
                    .filter(|&i| !m.is_cached(&m.projects[i]))
            };
            let now = looking(m);
            if self.looked.is_some()
                && self.looked != now
                && let Some(i) = index(m, &self.looked)
            {
                m.seen.look(Some(&m.projects[i]), m.now);
            }
            // On a snapshot's row: looking at nothing yet.
            let i = index(m, &now);
            m.seen.look(i.map(|i| &m.projects[i]), m.now);
        }
    }

    /// 12. Saves and the redraw, once every memory above has changed: the
    ///     first-seen memory (step 1), the "since you looked" memory when
    ///     this event made it wait (steps 4–11), and a frame when the key
    ///     only took marks away (step 2).
    pub(super) fn save(&self, m: &Model, effects: &mut Vec<Effect>) {
        if self.first_changed {
            effects.push(Effect::SaveFirstSeen);
        }
        if m.seen.dirty && !self.was_dirty {
            effects.push(Effect::SaveSeen);
        }
        if self.seen_by_key && !effects.contains(&Effect::Render) {
            effects.push(Effect::Render);
        }
    }

    /// 13. A project away more than a week shows what to reread: ask for
    ///     it once, for the project selected after the step.
    pub(super) fn excerpts(&self, m: &mut Model, effects: &mut Vec<Effect>) {
        if let Some(p) = m.selected_project()
            && p.host.is_none()
            && since_seconds(p.updated_at, m.now).map(Scenario::for_age) == Some(Scenario::C)
            && !p.resume.read_first.is_empty()
            && m.excerpts.as_ref().is_none_or(|(path, _)| path != &p.path)
        {
            let path = p.path.clone();
            m.excerpts = Some((path.clone(), Vec::new()));
            effects.push(Effect::ReadExcerpts(path));
        }
    }

    /// 14. Last, on the final selection and drawer: a reading replaces the
    ///     project, so its diffs are asked for again; an open Revisions
    ///     drawer asks for the diff it shows.
    pub(super) fn compare(&self, m: &mut Model, effects: &mut Vec<Effect>) {
        if self.reading {
            m.comparing = None;
        }
        effects.extend(compare_wanted(m));
    }
}

/// Several `Effect::Notify` in one update become one (the first's title,
/// the bodies joined), where the first was.
fn coalesce_notify(effects: &mut Vec<Effect>) {
    let mut first: Option<usize> = None;
    let mut i = 0;
    while i < effects.len() {
        if let Effect::Notify { body, .. } = &effects[i] {
            match first {
                None => first = Some(i),
                Some(f) => {
                    let more = body.clone();
                    effects.remove(i);
                    if let Effect::Notify { body, .. } = &mut effects[f] {
                        body.push_str(" · ");
                        body.push_str(&more);
                    }
                    continue;
                }
            }
        }
        i += 1;
    }
}

/// The open Revisions drawer shows a PRD or SDD revision not compared
/// yet: ask for its section diff, once per reading.
fn compare_wanted(m: &mut Model) -> Option<Effect> {
    let Some(Drawer::Revision(key)) = &m.drawer else {
        return None;
    };
    let p = m.selected_project()?;
    // Another host's files are not here to compare.
    if p.host.is_some() {
        return None;
    }
    let index = p
        .detail
        .revisions
        .iter()
        .position(|r| &panes::revision_key(r) == key)?;
    let r = &p.detail.revisions[index];
    let wanted = r.sections.is_none()
        && r.has_sections()
        && m.comparing.as_ref() != Some(&(p.path.clone(), key.clone()));
    if !wanted {
        return None;
    }
    let (path, key) = (p.path.clone(), key.clone());
    m.comparing = Some((path.clone(), key.clone()));
    Some(Effect::CompareRevision { path, index, key })
}

/// The project whose detail has the focus (what the user is looking at).
fn looking(m: &Model) -> Option<Identity> {
    (m.screen == Screen::Projects && m.focus == Focus::Detail)
        .then(|| m.selected.clone())
        .flatten()
}
