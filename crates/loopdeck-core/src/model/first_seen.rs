//! When each waiting item was first seen (issue 20 §1), for the items
//! whose files do not say since when they wait. Pure: `store::first_seen`
//! loads and saves it beside the since-you-looked memory.
//!
//! Rules:
//! - An item's key is its project's absolute path (a relative one joined
//!   to the working directory, `.` and `..` folded, so `inbox ws` and
//!   `inbox /abs/ws` share one clock), its kind and its reference
//!   (`PATH#KIND:REF`).
//! - An item whose format reads its waiting time from a file keeps it
//!   (`file`); one without gets the first time a reading showed it
//!   (`first_seen`), which never moves because something else in the
//!   project changed.
//! - An item is forgotten when its project reads well (no problems)
//!   without it: it was answered, and if asked again it waits afresh. A
//!   project that reads with problems, or is not in a reading, keeps its
//!   items' times.
//! - At most [`MAX_ITEMS`] are kept; the oldest first seen go first.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::{InboxItem, Project};

/// The most items remembered.
pub const MAX_ITEMS: usize = 100_000;

/// Where an item's waiting time comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The project's files say it.
    File,
    /// The first reading that showed it.
    FirstSeen,
}

impl Source {
    /// As `inbox --json` says it.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::File => "file",
            Source::FirstSeen => "first_seen",
        }
    }
}

/// The part of an item's key that names its project, up to and with the
/// `#`: `PATH#` (`PATH` absolute: joined to `base` unless it is, `.` and
/// `..` folded), `host:NAME:PATH#` for another host's project (its path
/// is that machine's, as it sent it).
fn project_prefix(base: &Path, p: &Project) -> String {
    match p.host.as_deref() {
        Some(h) => format!("host:{h}:{}#", p.path.display()),
        None => format!("{}#", super::seen::absolute_folded(base, &p.path).display()),
    }
}

/// Is `key` one this memory keeps as it is: an absolute path's or another
/// host's (older versions saved a relative root's items by the path as
/// typed).
pub fn is_current(key: &str) -> bool {
    key.starts_with('/') || key.starts_with("host:")
}

/// `key` with its project's path made absolute from `base` (a key older
/// versions saved by a relative path: read as typed from `base`, where
/// loopdeck most likely runs again).
fn absolute_key(base: &Path, key: &str) -> String {
    match key.split_once('#') {
        Some((path, rest)) if !is_current(key) && !base.as_os_str().is_empty() => format!(
            "{}#{rest}",
            super::seen::absolute_folded(base, Path::new(path)).display()
        ),
        _ => key.to_owned(),
    }
}

/// Item key → when first seen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FirstSeen {
    /// Item key → when it was first seen waiting (what is saved).
    pub at: BTreeMap<String, DateTime<Utc>>,
    /// The keys whose time came from here in the last [`FirstSeen::fill`].
    filled: HashSet<String>,
    /// The keys forgotten since the last save (a save merged with what
    /// another process saved must not bring them back).
    pub forgotten: HashSet<String>,
    /// The keys the last [`FirstSeen::fill`] saw for the first time.
    pub arrived: HashSet<String>,
    /// The memory was read from an earlier run: what the first reading of
    /// this run sees for the first time arrived while no one looked.
    pub remembered: bool,
    /// Item key → the `[[escalate]]` rules already notified for it, so a
    /// rule notifies once per item, across runs; forgotten with the item.
    pub notified: BTreeMap<String, BTreeSet<String>>,
    /// What relative project paths are joined to (the working directory).
    pub base: PathBuf,
}

impl FirstSeen {
    /// A memory holding `at` (as loaded; a key by a relative path made
    /// absolute from `base`, the earlier time kept where two meet),
    /// relative project paths joined to `base`, with nothing filled,
    /// forgotten or arrived yet.
    pub fn new(loaded: BTreeMap<String, DateTime<Utc>>, base: PathBuf) -> Self {
        let mut at: BTreeMap<String, DateTime<Utc>> = BTreeMap::new();
        for (k, t) in loaded {
            at.entry(absolute_key(&base, &k))
                .and_modify(|e| *e = (*e).min(t))
                .or_insert(t);
        }
        FirstSeen {
            at,
            filled: HashSet::new(),
            forgotten: HashSet::new(),
            arrived: HashSet::new(),
            remembered: true,
            notified: BTreeMap::new(),
            base,
        }
    }

    /// `key` as this memory keys it (see [`FirstSeen::new`]).
    pub fn keyed(&self, key: &str) -> String {
        absolute_key(&self.base, key)
    }

    /// The key of `p`'s stall in [`FirstSeen::notified`]: `PATH#stalled`
    /// (`PATH` as in an item's key), kept until the stall ends.
    pub fn stall_key(&self, p: &Project) -> String {
        format!(
            "{}{}",
            project_prefix(&self.base, p),
            super::escalate::STALLED
        )
    }

    /// An item's key: `PATH#KIND:REF` (`PATH` absolute),
    /// `host:NAME:PATH#KIND:REF` for another host's project.
    pub fn key(&self, p: &Project, item: &InboxItem) -> String {
        format!(
            "{}{}:{}",
            project_prefix(&self.base, p),
            item.kind.label(),
            item.reference
        )
    }

    /// Give every item of `projects` without a waiting time the first time
    /// it was seen (`now` for one seen now), and forget the items of
    /// projects that read well without them. Returns whether the memory
    /// changed (to be saved).
    pub fn fill(&mut self, projects: &mut [Project], now: DateTime<Utc>) -> bool {
        let mut changed = false;
        self.arrived.clear();
        for p in projects.iter_mut() {
            let prefix = project_prefix(&self.base, p);
            let mut here = HashSet::new();
            for i in 0..p.inbox.len() {
                let k = self.key(p, &p.inbox[i]);
                here.insert(k.clone());
                // Every item is remembered (what arrived while no one
                // looked is told by it); only one without a time of its
                // own takes this one.
                let at = *self.at.entry(k.clone()).or_insert_with(|| {
                    changed = true;
                    self.arrived.insert(k.clone());
                    now
                });
                self.forgotten.remove(&k);
                if p.inbox[i].since.is_some() {
                    self.filled.remove(&k);
                    continue;
                }
                p.inbox[i].since = Some(at);
                self.filled.insert(k);
            }
            if p.problems.is_empty() {
                let gone: Vec<String> = self
                    .at
                    .range(prefix.clone()..)
                    .take_while(|(k, _)| k.starts_with(&prefix))
                    .filter(|(k, _)| !here.contains(*k))
                    .map(|(k, _)| k.clone())
                    .collect();
                for k in gone {
                    self.at.remove(&k);
                    self.notified.remove(&k);
                    self.filled.remove(&k);
                    self.forgotten.insert(k);
                    changed = true;
                }
            }
        }
        if self.at.len() > MAX_ITEMS {
            let mut by_age: Vec<(DateTime<Utc>, String)> =
                self.at.iter().map(|(k, t)| (*t, k.clone())).collect();
            by_age.sort();
            for (_, k) in by_age.into_iter().take(self.at.len() - MAX_ITEMS) {
                self.at.remove(&k);
                self.notified.remove(&k);
                self.forgotten.insert(k);
            }
            changed = true;
        }
        changed
    }

    /// Merge what another process saved (`on_disk`) into this memory:
    /// the earlier time of an item both hold wins; what this one forgot
    /// stays forgotten.
    pub fn merged(
        &self,
        on_disk: BTreeMap<String, DateTime<Utc>>,
    ) -> BTreeMap<String, DateTime<Utc>> {
        let mut out = on_disk;
        out.retain(|k, _| !self.forgotten.contains(k));
        for (k, t) in &self.at {
            let e = out.entry(k.clone()).or_insert(*t);
            *e = (*e).min(*t);
        }
        out
    }

    /// Merge the rules another process notified (`on_disk`) with this
    /// memory's: an item forgotten here stays forgotten.
    pub fn merged_notified(
        &self,
        on_disk: BTreeMap<String, BTreeSet<String>>,
    ) -> BTreeMap<String, BTreeSet<String>> {
        let mut out = on_disk;
        out.retain(|k, _| !self.forgotten.contains(k));
        for (k, rules) in &self.notified {
            out.entry(k.clone())
                .or_default()
                .extend(rules.iter().cloned());
        }
        out
    }

    /// Record that `rule` notified for the item `key`; false when it
    /// already had.
    pub fn notify_once(&mut self, key: &str, rule: &str) -> bool {
        if self.notified.get(key).is_some_and(|r| r.contains(rule)) {
            return false;
        }
        self.notified
            .entry(key.to_owned())
            .or_default()
            .insert(rule.to_owned());
        true
    }

    /// Where `item`'s waiting time came from in the last fill.
    pub fn source(&self, p: &Project, item: &InboxItem) -> Option<Source> {
        item.since?;
        Some(if self.filled.contains(&self.key(p, item)) {
            Source::FirstSeen
        } else {
            Source::File
        })
    }
}

#[cfg(test)]
mod tests;
