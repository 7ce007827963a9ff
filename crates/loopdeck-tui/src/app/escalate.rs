//! The console's side of `[[escalate]]` rules and `[notify] command`
//! (issue 20 §5); the rules themselves are `model::escalate`.
//!
//! Rules:
//! - After every reading and at every instant a rule starts firing by
//!   time alone (`Event::Clock`), each notifying rule that fires on an item
//!   for the first time notifies: one `Effect::Notify` for all of them, and
//!   one `Effect::Hook` per item when a command is configured. "The first
//!   time" is kept with the item in the first-seen memory, so a rule
//!   notifies once per item across runs, and again only for an item asked
//!   again after it was answered.
//! - Items that start waiting run the command too (`"event": "waiting"`),
//!   as they ring the bell.
//! - The command's stdin is one JSON object: what `inbox --json` says of
//!   the item, with `event`, `project` and `escalated_by`.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::json;

use super::{Effect, Model};
use crate::model::escalate::{self, Rule};
use crate::model::{InboxItem, Project};
use crate::t;

/// What the hook's stdin says happened to the item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEvent {
    /// It started waiting for a human.
    Waiting,
    /// A rule started firing on it.
    Escalated,
}

/// The JSON a `[notify] command` reads on stdin for `item` of `p`.
pub fn payload(
    event: HookEvent,
    p: &Project,
    item: &InboxItem,
    rules: &[Rule],
    now: DateTime<Utc>,
) -> String {
    let fired = escalate::fired(rules, p, item, now);
    let v = json!({
        "schema_version": 1,
        "event": match event {
            HookEvent::Waiting => "waiting",
            HookEvent::Escalated => "escalated",
        },
        "project": project_json(p),
        "item": {
            "kind": item.kind,
            "ref": item.reference,
            "title": item.title,
            "waiting_since": item.since.map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true)),
            "options": p.options_at(item, now),
            "act": item.act,
            "why_not": item.why_not.as_ref().filter(|_| item.act.is_none()),
        },
        "escalated_by": fired.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
    });
    v.to_string()
}

/// The project as a hook's JSON names it; `host` only for another
/// machine's project (this machine's payload is unchanged).
fn project_json(p: &Project) -> serde_json::Value {
    let mut v = json!({
        "id": p.id,
        "name": p.name,
        "format": p.format.as_str(),
        "path": p.path.to_string_lossy(),
    });
    if let (Some(host), Some(o)) = (&p.host, v.as_object_mut()) {
        o.insert("host".to_owned(), json!(host.as_ref()));
    }
    v
}

/// The JSON a `[notify] command` reads for a stall a rule fires on:
/// `"event": "stalled"`, the project, the stall, the rules.
pub fn stall_payload(p: &Project, stall: &crate::model::Stall, names: &[String]) -> String {
    json!({
        "schema_version": 1,
        "event": "stalled",
        "project": project_json(p),
        "stall": stall,
        "escalated_by": names,
    })
    .to_string()
}

/// The notifications of the rules that start firing now (see the module's
/// rules), recorded in the first-seen memory.
pub(super) fn check(m: &mut Model) -> Vec<Effect> {
    if m.rules.is_empty() {
        return Vec::new();
    }
    // A row of the last run's snapshot rings nothing, and forgets
    // nothing rung: its reading decides, when it comes.
    let cached = |p: &Project| {
        !m.cached.is_empty() && p.host.is_none() && m.cached.contains(&super::reading::identity(p))
    };
    let mut fresh: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for (pi, p) in m.projects.iter().enumerate() {
        if cached(p) {
            continue;
        }
        for (ii, item) in p.inbox.iter().enumerate() {
            let key = m.first_seen.key(p, item);
            let names: Vec<String> = m
                .rules
                .iter()
                .filter(|r| r.notify && r.fires(p, item, m.now))
                .filter(|r| m.first_seen.notify_once(&key, &r.name))
                .map(|r| r.name.clone())
                .collect();
            if !names.is_empty() {
                fresh.push((pi, ii, names));
            }
        }
    }
    // A rule naming `stalled`: once per stall of a project (forgotten
    // when the stall ends, so the next one notifies again).
    let mut stalled: Vec<(usize, Vec<String>)> = Vec::new();
    for (pi, p) in m.projects.iter().enumerate() {
        if cached(p) {
            continue;
        }
        let key = m.first_seen.stall_key(p);
        let Some(stall) = p.stall(m.now, &m.stall) else {
            m.first_seen.notified.remove(&key);
            continue;
        };
        let silent = chrono::TimeDelta::seconds(stall.silent_seconds);
        let names: Vec<String> = m
            .rules
            .iter()
            .filter(|r| r.notify && r.fires_on_stall(p, silent))
            .filter(|r| m.first_seen.notify_once(&key, &r.name))
            .map(|r| r.name.clone())
            .collect();
        if !names.is_empty() {
            stalled.push((pi, names));
        }
    }
    if fresh.is_empty() && stalled.is_empty() {
        return Vec::new();
    }
    let mut effects = Vec::new();
    if !fresh.is_empty() {
        effects.push(notice(m, &fresh));
    }
    for (pi, names) in &stalled {
        let p = &m.projects[*pi];
        let stall = p.stall(m.now, &m.stall);
        let silent = stall.as_ref().map_or(0, |s| s.silent_seconds);
        if m.hook
            && let Some(stall) = &stall
        {
            effects.push(Effect::Hook(stall_payload(p, stall, names)));
        }
        effects.push(Effect::Notify {
            title: format!("loopdeck · {}", p.label()),
            body: t!(
                "app.escalate.stalled",
                rules = names.join(", "),
                age = crate::i18n::age(Some(silent))
            ),
        });
    }
    if m.hook {
        effects.extend(fresh.iter().map(|&(pi, ii, _)| {
            let p = &m.projects[pi];
            Effect::Hook(payload(
                HookEvent::Escalated,
                p,
                &p.inbox[ii],
                &m.rules,
                m.now,
            ))
        }));
    }
    effects.push(Effect::SaveFirstSeen);
    effects
}

/// One notification for every item a rule started firing on.
fn notice(m: &Model, fresh: &[(usize, usize, Vec<String>)]) -> Effect {
    if let [(pi, ii, names)] = fresh {
        let p = &m.projects[*pi];
        let item = &p.inbox[*ii];
        return Effect::Notify {
            title: format!("loopdeck · {}", p.label()),
            body: t!(
                "app.escalate.one",
                rules = names.join(", "),
                kind = item.kind.shown(),
                title = item.title.shown()
            ),
        };
    }
    let mut rules: Vec<&str> = Vec::new();
    for (_, _, names) in fresh {
        for n in names {
            if !rules.contains(&n.as_str()) {
                rules.push(n);
            }
        }
    }
    Effect::Notify {
        title: "loopdeck".to_owned(),
        body: t!(
            "app.escalate.many",
            n = fresh.len(),
            rules = rules.join(", ")
        ),
    }
}

/// When a rule next starts firing on a shown item, or on a stall, by
/// time alone.
pub fn next_due(m: &Model) -> Option<DateTime<Utc>> {
    let items = escalate::next_due(&m.rules, &m.projects, m.now);
    // A stall rule's `waited` counts from the last sign of life; the
    // stall's own start wakes the console anyway.
    let stalls = m
        .rules
        .iter()
        .filter(|r| r.kinds.iter().any(|k| k == escalate::STALLED))
        .filter_map(|r| r.waited)
        .flat_map(|w| {
            m.projects.iter().filter_map(move |p| {
                let since = p.stall(m.now, &m.stall)?.since;
                let at = since + w + chrono::TimeDelta::seconds(1);
                (at > m.now).then_some(at)
            })
        })
        .min();
    items.into_iter().chain(stalls).min()
}

/// The `[[escalate]]` rules that fire on `p`'s stall at "now".
pub fn stall_rules<'m>(m: &'m Model, p: &Project) -> Vec<&'m Rule> {
    if m.rules.is_empty() {
        return Vec::new();
    }
    let Some(stall) = p.stall(m.now, &m.stall) else {
        return Vec::new();
    };
    let silent = chrono::TimeDelta::seconds(stall.silent_seconds);
    m.rules
        .iter()
        .filter(|r| r.fires_on_stall(p, silent))
        .collect()
}

/// How many shown items and stalls a rule fires on (the header's `N
/// escalated`).
pub fn escalated_total(m: &Model) -> usize {
    if m.rules.is_empty() {
        return 0;
    }
    m.projects
        .iter()
        .map(|p| {
            p.inbox
                .iter()
                .filter(|i| m.rules.iter().any(|r| r.fires(p, i, m.now)))
                .count()
                + usize::from(!stall_rules(m, p).is_empty())
        })
        .sum()
}

#[cfg(test)]
mod tests;
