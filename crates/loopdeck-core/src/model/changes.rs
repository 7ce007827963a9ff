//! What changed between two readings of the same roots: the events of the
//! `loopdeck watch` feed, computed from the previous and the new set of
//! projects (after a reading was applied). No I/O, no clock.
//!
//! - A project is known by its directory, format and id (a directory may
//!   hold several projects: one per format, several DWP plans).
//! - **Changed**: anything `show --json` shows differs (the projects are
//!   compared whole; neither holds a time relative to "now").
//! - **Timeline**: a project keeps the tail of its log (the last
//!   format-chosen number of events, oldest first). Appends
//!   scroll the old tail out: the longest suffix of the old tail that is a
//!   prefix of the new one is what both share, and the events after it are
//!   new. When they share nothing (the log was truncated or replaced, or
//!   more events than the tail holds were appended at once): if no event
//!   of the new tail is earlier than the old tail's last event, they are
//!   all new, and some before them may not have been read (a **gap**:
//!   more were appended than one reading holds, or the log was rotated);
//!   otherwise the tail is **reset**: one change says "the tail is now
//!   this", and no event of it is announced as new (a log cut back to its
//!   first lines, or restored from a copy, repeats nothing as news).
//! - **Bugs**: a new id is opened; a known id whose status differs moved
//!   from the old status to the new one.
//! - **Inbox**: an item is known by [`item_key`] (its kind and `ref`, as
//!   `inbox --json` gives them); a key that appears is added, one that goes
//!   is removed, one whose item differs is changed.
//! - A project that appears brings its inbox items (added); one that goes
//!   takes them (removed). Its timeline and bugs are not news: the project
//!   itself is.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::{Bug, Event, Format, InboxItem, Project};

/// One change between two readings. `old` is the previous reading's
/// project, `project` the new one's.
#[derive(Debug, Clone, PartialEq)]
pub enum Change<'a> {
    /// A project that was not in the previous reading.
    Added(&'a Project),
    /// A project of the previous reading that is gone.
    Removed(&'a Project),
    /// A project whose `show --json` differs.
    Changed {
        /// As the previous reading had it.
        old: &'a Project,
        /// As it is now.
        project: &'a Project,
    },
    /// Events appended to the timeline, oldest first. `gap`: events
    /// between the last ones known and these may not have been read.
    Events {
        /// The project whose timeline grew.
        project: &'a Project,
        /// The new events, oldest first.
        events: &'a [Event],
        /// Some events before these may not have been read.
        gap: bool,
    },
    /// The timeline was truncated or replaced: its tail is now
    /// `project.detail.timeline`.
    TimelineReset {
        /// The project whose timeline was replaced.
        project: &'a Project,
    },
    /// A bug id not in the previous reading.
    BugOpened {
        /// The project it is in.
        project: &'a Project,
        /// The bug, as it is now.
        bug: &'a Bug,
    },
    /// A known bug whose status differs.
    BugTransitioned {
        /// The project it is in.
        project: &'a Project,
        /// The bug, at its new status.
        bug: &'a Bug,
        /// Its status in the previous reading.
        from: &'a str,
    },
    /// An inbox item whose key is new.
    InboxAdded {
        /// The project it waits in.
        project: &'a Project,
        /// The item.
        item: &'a InboxItem,
        /// Its key ([`item_key`], `#N` for repeats).
        key: String,
    },
    /// `project` is the previous reading's (the project may be gone).
    InboxRemoved {
        /// The project it waited in, as the previous reading had it.
        project: &'a Project,
        /// The item, as it was.
        item: &'a InboxItem,
        /// Its key ([`item_key`], `#N` for repeats).
        key: String,
    },
    /// An inbox item whose key is known but whose content differs.
    InboxChanged {
        /// The project it waits in.
        project: &'a Project,
        /// The item, as it is now.
        item: &'a InboxItem,
        /// Its key ([`item_key`], `#N` for repeats).
        key: String,
    },
}

/// What the new tail of a log holds that the old one did not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// The events from this index of the new tail on are new (none when it
    /// is the tail's length).
    NewFrom(usize),
    /// Every event of the new tail is new, and some before them may be
    /// missing.
    Gap,
    /// The log was truncated or replaced: the new tail replaces the old.
    Reset,
}

/// Compare two tails of one log (oldest first); see the module doc.
pub fn tail(old: &[Event], new: &[Event]) -> Tail {
    if old.is_empty() {
        return Tail::NewFrom(0);
    }
    let most = old.len().min(new.len());
    if let Some(shared) = (1..=most).rev().find(|&n| old[old.len() - n..] == new[..n]) {
        return Tail::NewFrom(shared);
    }
    let last = old.last().and_then(|e| e.at);
    // Timestamps have a second's resolution: a busy log writes many in one.
    let none_earlier = !new.is_empty()
        && new
            .iter()
            .all(|e| matches!((e.at, last), (Some(t), Some(l)) if t >= l));
    if none_earlier { Tail::Gap } else { Tail::Reset }
}

/// An inbox item's identity within its project: its kind and `ref`
/// (`waiting:WAITING.json`, `question:Q-3`). The feed prefixes it with the
/// project's path, which is unique across roots.
pub fn item_key(item: &InboxItem) -> String {
    format!("{}:{}", item.kind.label(), item.reference)
}

/// `project`'s inbox by key; a key met again gets `#2`, `#3`... in order.
pub fn inbox_by_key(project: &Project) -> Vec<(String, &InboxItem)> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    project
        .inbox
        .iter()
        .map(|i| {
            let key = item_key(i);
            let n = seen.entry(key.clone()).or_insert(0);
            *n += 1;
            let key = if *n == 1 { key } else { format!("{key}#{n}") };
            (key, i)
        })
        .collect()
}

type Key<'a> = (&'a Path, Format, &'a str);

fn key(p: &Project) -> Key<'_> {
    (p.path.as_path(), p.format, p.id.as_str())
}

/// Every change from `old` to `new`: the projects gone first (with their
/// inbox items), then, in `new`'s order, each project added or changed
/// followed by its timeline, bug and inbox changes.
pub fn diff<'a>(old: &'a [Project], new: &'a [Project]) -> Vec<Change<'a>> {
    let before: BTreeMap<Key<'a>, &'a Project> = old.iter().map(|p| (key(p), p)).collect();
    let after: BTreeMap<Key<'a>, &'a Project> = new.iter().map(|p| (key(p), p)).collect();
    let mut out = Vec::new();
    for p in old {
        if !after.contains_key(&key(p)) {
            for (key, item) in inbox_by_key(p) {
                out.push(Change::InboxRemoved {
                    project: p,
                    item,
                    key,
                });
            }
            out.push(Change::Removed(p));
        }
    }
    for p in new {
        match before.get(&key(p)) {
            None => {
                out.push(Change::Added(p));
                for (key, item) in inbox_by_key(p) {
                    out.push(Change::InboxAdded {
                        project: p,
                        item,
                        key,
                    });
                }
            }
            Some(was) if *was != p => {
                out.push(Change::Changed {
                    old: was,
                    project: p,
                });
                within(was, p, &mut out);
            }
            Some(_) => {}
        }
    }
    out
}

/// The timeline, bug and inbox changes of one project that changed.
fn within<'a>(old: &'a Project, new: &'a Project, out: &mut Vec<Change<'a>>) {
    let timeline = &new.detail.timeline;
    match tail(&old.detail.timeline, timeline) {
        Tail::NewFrom(i) if i < timeline.len() => out.push(Change::Events {
            project: new,
            events: &timeline[i..],
            gap: false,
        }),
        Tail::Gap => out.push(Change::Events {
            project: new,
            events: timeline,
            gap: true,
        }),
        Tail::NewFrom(_) => {}
        Tail::Reset => out.push(Change::TimelineReset { project: new }),
    }
    let bugs: HashMap<&str, &Bug> = old.detail.bugs.iter().map(|b| (b.id.as_str(), b)).collect();
    for bug in &new.detail.bugs {
        match bugs.get(bug.id.as_str()) {
            None => out.push(Change::BugOpened { project: new, bug }),
            Some(was) if was.status != bug.status => out.push(Change::BugTransitioned {
                project: new,
                bug,
                from: &was.status,
            }),
            Some(_) => {}
        }
    }
    let was: Vec<(String, &InboxItem)> = inbox_by_key(old);
    let now: Vec<(String, &InboxItem)> = inbox_by_key(new);
    for (key, item) in &was {
        if !now.iter().any(|(k, _)| k == key) {
            out.push(Change::InboxRemoved {
                project: old,
                item,
                key: key.clone(),
            });
        }
    }
    for (key, item) in now {
        match was.iter().find(|(k, _)| *k == key) {
            None => out.push(Change::InboxAdded {
                project: new,
                item,
                key,
            }),
            Some((_, before)) if *before != item => out.push(Change::InboxChanged {
                project: new,
                item,
                key,
            }),
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests;
