//! Escalation without an LLM (issue 20 §5): the user's `[[escalate]]`
//! rules, matched on what the readers filled in. Pure: the config builds
//! the rules, the views and the console ask which fire at "now".
//!
//! Rules:
//! - A rule matches an inbox item when every criterion it sets holds: the
//!   item's kind is one of `kinds` (its stable label, `question`,
//!   `sign-off`…), its project's format one of `formats`, its project's
//!   id, name or path matches the `project` glob, and it has waited
//!   strictly longer than `waited` (an item with no known waiting time
//!   never matches a rule that sets `waited`). A criterion not set matches
//!   everything.
//! - The kind `stalled` is not an item's: a rule naming it also matches a
//!   project whose agents say they run while its files are silent, with
//!   the silence as the time waited.
//! - What a rule does is data for its callers: rank the item first
//!   (`first`), draw it in `colour`, notify once per item per rule
//!   (`notify`), and name the rule (`escalated_by`).
//! - Time alone makes a rule fire: [`next_due`] says when the next one
//!   will, so a console or a feed wakes exactly then and never polls.

use chrono::{DateTime, TimeDelta, Utc};

use super::{Format, InboxItem, InboxKind, Project};

/// The kind a rule names to match stalled projects.
pub const STALLED: &str = "stalled";

/// One `[[escalate]]` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// As the user named it (else `#N`, its place in the config).
    pub name: String,
    /// Item kinds by their stable label (`InboxKind::label`), or
    /// [`STALLED`]; empty: every item kind (never a stall).
    pub kinds: Vec<String>,
    /// A glob on the project's id, name, directory name or path.
    pub project: Option<glob::Pattern>,
    /// Empty: every format.
    pub formats: Vec<Format>,
    /// Fires once the item has waited strictly longer than this.
    pub waited: Option<TimeDelta>,
    /// A colour for the item's row (a colour name, an index or `#rrggbb`,
    /// as a theme writes them; checked by the console); none: the theme's
    /// own escalation style.
    pub colour: Option<String>,
    /// Rank the item before every item no such rule fires on.
    pub first: bool,
    /// Notify (bell, desktop, `[notify] command`) once per item.
    pub notify: bool,
}

impl Rule {
    /// A rule that matches every item at once: tests build on it.
    pub fn any(name: &str) -> Rule {
        Rule {
            name: name.to_owned(),
            kinds: Vec::new(),
            project: None,
            formats: Vec::new(),
            waited: None,
            colour: None,
            first: true,
            notify: true,
        }
    }

    /// The rule as the inbox names it: `name (waited > 2d)`.
    pub fn shown(&self) -> String {
        match self.waited {
            Some(w) => format!("{} (> {})", self.name, short_duration(w)),
            None => self.name.clone(),
        }
    }

    fn project_matches(&self, p: &Project) -> bool {
        let Some(glob) = &self.project else {
            return true;
        };
        glob.matches(&p.id)
            || glob.matches(&p.name)
            || p.path
                .file_name()
                .is_some_and(|d| glob.matches(&d.to_string_lossy()))
            || glob.matches_path(&p.path)
    }

    /// Everything but the time: could this rule ever fire on `item`?
    fn could_fire(&self, p: &Project, item: &InboxItem) -> bool {
        (self.kinds.is_empty() || self.kinds.iter().any(|k| k == item.kind.label()))
            && (self.formats.is_empty() || self.formats.contains(&p.format))
            && self.project_matches(p)
    }

    /// Does this rule fire on `item` of `p` at `now`?
    pub fn fires(&self, p: &Project, item: &InboxItem, now: DateTime<Utc>) -> bool {
        self.could_fire(p, item) && waited_past(self.waited, item.since, now)
    }

    /// When this rule will fire on `item`, if not yet (`None`: it already
    /// does, or never will by time alone).
    pub fn due(&self, p: &Project, item: &InboxItem, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let at = item.since? + self.waited?;
        (at >= now && self.could_fire(p, item)).then_some(at + TimeDelta::milliseconds(1))
    }

    /// Does this rule fire on project `p`, silent for `silent` while its
    /// agents say they run?
    pub fn fires_on_stall(&self, p: &Project, silent: TimeDelta) -> bool {
        self.kinds.iter().any(|k| k == STALLED)
            && (self.formats.is_empty() || self.formats.contains(&p.format))
            && self.project_matches(p)
            && self.waited.is_none_or(|w| silent > w)
    }
}

/// Has an item waiting since `since` waited strictly longer than `waited`
/// at `now`? (No `waited`: yes; no `since`: only without `waited`.)
fn waited_past(
    waited: Option<TimeDelta>,
    since: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> bool {
    match (waited, since) {
        (None, _) => true,
        (Some(w), Some(s)) => now - s > w,
        (Some(_), None) => false,
    }
}

/// The rules that fire on `item` of `p` at `now`, in the config's order.
pub fn fired<'r>(
    rules: &'r [Rule],
    p: &Project,
    item: &InboxItem,
    now: DateTime<Utc>,
) -> Vec<&'r Rule> {
    if rules.is_empty() {
        return Vec::new();
    }
    rules.iter().filter(|r| r.fires(p, item, now)).collect()
}

/// The names of the rules that fire on `item` (`escalated_by`).
pub fn names(rules: &[Rule], p: &Project, item: &InboxItem, now: DateTime<Utc>) -> Vec<String> {
    fired(rules, p, item, now)
        .into_iter()
        .map(|r| r.name.clone())
        .collect()
}

/// Does a rule that ranks first fire on `item`?
pub fn ranks_first(rules: &[Rule], p: &Project, item: &InboxItem, now: DateTime<Utc>) -> bool {
    rules.iter().any(|r| r.first && r.fires(p, item, now))
}

/// The first colour of the rules that fire on `item`.
pub fn colour<'r>(
    rules: &'r [Rule],
    p: &Project,
    item: &InboxItem,
    now: DateTime<Utc>,
) -> Option<&'r str> {
    fired(rules, p, item, now)
        .into_iter()
        .find_map(|r| r.colour.as_deref())
}

/// The next instant after `now` at which a rule starts to fire on an
/// item of `projects` by time alone (a console or a feed wakes then).
pub fn next_due(rules: &[Rule], projects: &[Project], now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    if !rules.iter().any(|r| r.waited.is_some()) {
        return None;
    }
    projects
        .iter()
        .flat_map(|p| {
            p.inbox
                .iter()
                .flat_map(move |i| rules.iter().filter_map(move |r| r.due(p, i, now)))
        })
        .min()
}

/// Every kind a rule may name: the items' stable labels and [`STALLED`].
pub fn known_kinds() -> Vec<&'static str> {
    InboxKind::ALL
        .iter()
        .map(|k| k.label())
        .chain([STALLED])
        .collect()
}

/// `2d`, `40m`, `1h30m`, `90s`: a duration as short as it says exactly.
pub fn short_duration(d: TimeDelta) -> String {
    let mut s = d.num_seconds().max(0);
    if s == 0 {
        return "0s".to_owned();
    }
    let mut out = String::new();
    for (unit, len) in [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] {
        if s >= len {
            out.push_str(&format!("{}{unit}", s / len));
            s %= len;
        }
    }
    out
}

#[cfg(test)]
mod tests;
