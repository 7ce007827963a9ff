//! Stall detection: work whose files say it is going on, silent for longer
//! than its format allows.
//!
//! A reader never judges a stall (it would need "now"): it records the
//! claim, an [`Activity`] — the files say an agent or the project runs, when
//! they last showed it moving, and the longest silence the format's own
//! rules allow for it. A view asks at its own "now", with the limits the
//! config sets ([`StallLimits`]), as [`super::Project::inbox_at`] does for
//! the inbox: [`super::Project::stall`] (the worst, for a row),
//! [`super::Project::stalls`] (every one), [`super::Project::agent_stall`]
//! (one agent's, for the Agents tab) and [`super::Project::next_stall_at`]
//! (when the next one starts: a feed's one timer).

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use super::{Agent, Format, Project};

/// What the files say of work going on now: set by a reader only when
/// they claim it (a devloop agent `running`, a GSD project `executing`...),
/// with the last sign of life they hold. Serialized only in
/// [`super::wire`]'s value (the JSON views leave it out).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Activity {
    /// The last time the files showed the work moving (a write, an event);
    /// `None`: they say no time, and no stall can be told.
    pub last: Option<DateTime<Utc>>,
    /// The longest silence the format's rules allow this work, as the
    /// reader knows them (devloop: the project's `agent_wallclock_ms`);
    /// `None`: the format sets none, so it is never stalled unless the
    /// config sets a limit ([`StallLimit::After`]).
    #[serde(default, with = "super::wire::delta")]
    pub limit: Option<TimeDelta>,
}

/// The silence one format's work may keep, as the config's `[stall]` sets it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StallLimit {
    /// The format's own ([`Activity::limit`]).
    #[default]
    Default,
    /// Never stalled.
    Off,
    /// Stalled once silent for longer than this.
    After(TimeDelta),
}

/// The `[stall]` limit of each format (the defaults: each format's own).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StallLimits {
    /// For PRD-master projects.
    pub prd_master: StallLimit,
    /// For GSD projects.
    pub gsd: StallLimit,
    /// For Deep Work Plans.
    pub dwp: StallLimit,
    /// For devloop projects and their agents.
    pub devloop: StallLimit,
}

impl StallLimits {
    /// The limit set for `format`.
    pub fn of(&self, format: Format) -> StallLimit {
        match format {
            Format::PrdMaster => self.prd_master,
            Format::Gsd => self.gsd,
            Format::Dwp => self.dwp,
            Format::Devloop => self.devloop,
        }
    }

    /// The limit set for `format`, mutably (the config fills it).
    pub fn of_mut(&mut self, format: Format) -> &mut StallLimit {
        match format {
            Format::PrdMaster => &mut self.prd_master,
            Format::Gsd => &mut self.gsd,
            Format::Dwp => &mut self.dwp,
            Format::Devloop => &mut self.devloop,
        }
    }

    /// The silence `activity` of a `format` project may keep: the
    /// config's, else the format's own; `None`: never stalled.
    pub fn limit(&self, format: Format, activity: &Activity) -> Option<TimeDelta> {
        match self.of(format) {
            StallLimit::Default => activity.limit,
            StallLimit::Off => None,
            StallLimit::After(d) => Some(d),
        }
    }
}

/// Work that says it runs while its files have been silent past its limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stall {
    /// The agent whose state says it runs (devloop); `None`: the project's
    /// own status says so.
    pub agent: Option<String>,
    /// The last sign of life in its files.
    pub since: DateTime<Utc>,
    /// How long its files have been silent at "now", in seconds.
    pub silent_seconds: i64,
    /// The limit that silence passed, in seconds.
    pub limit_seconds: i64,
}

impl Activity {
    /// The stall of this work at `now` under `limit`, if it is one: silent
    /// for longer than the limit. A last sign ahead of `now` (a clock is
    /// wrong) is no silence.
    pub fn stall_at(
        &self,
        now: DateTime<Utc>,
        limit: Option<TimeDelta>,
        agent: Option<&str>,
    ) -> Option<Stall> {
        let (since, limit) = (self.last?, limit?);
        let silent = (now - since).num_seconds();
        (silent > limit.num_seconds()).then(|| Stall {
            agent: agent.map(str::to_owned),
            since,
            silent_seconds: silent,
            limit_seconds: limit.num_seconds(),
        })
    }

    /// When this work is first stalled (one second past its limit), if it
    /// can be.
    pub fn stalls_at(&self, limit: Option<TimeDelta>) -> Option<DateTime<Utc>> {
        self.last?
            .checked_add_signed(limit?)?
            .checked_add_signed(TimeDelta::seconds(1))
    }
}

impl Project {
    /// The claims of work going on: each agent's that says it runs, then
    /// the project's own.
    fn activities(&self) -> impl Iterator<Item = (Option<&str>, &Activity)> {
        self.detail
            .agents
            .iter()
            .filter_map(|a| a.activity.as_ref().map(|w| (Some(a.agent.as_str()), w)))
            .chain(self.activity.as_ref().map(|w| (None, w)))
    }

    /// Every stall at `now`: each agent that says it runs and is silent
    /// past its limit, then the project itself.
    pub fn stalls(&self, now: DateTime<Utc>, limits: &StallLimits) -> Vec<Stall> {
        self.activities()
            .filter_map(|(agent, w)| w.stall_at(now, limits.limit(self.format, w), agent))
            .collect()
    }

    /// The project's stall at `now`, if any: the longest silence among
    /// [`Project::stalls`] (the first of equals: an agent before the
    /// project). What a row shows and a rule matches.
    pub fn stall(&self, now: DateTime<Utc>, limits: &StallLimits) -> Option<Stall> {
        self.stalls(now, limits).into_iter().reduce(|a, b| {
            if b.silent_seconds > a.silent_seconds {
                b
            } else {
                a
            }
        })
    }

    /// `agent`'s stall at `now` (an agent of this project), if it says it
    /// runs and is silent past its limit.
    pub fn agent_stall(
        &self,
        agent: &Agent,
        now: DateTime<Utc>,
        limits: &StallLimits,
    ) -> Option<Stall> {
        let w = agent.activity.as_ref()?;
        w.stall_at(now, limits.limit(self.format, w), Some(&agent.agent))
    }

    /// The first time after `now` at which a claim not stalled at `now`
    /// becomes one (nothing changing on disk meanwhile): a feed arms one
    /// timer there instead of looking again and again.
    pub fn next_stall_at(&self, now: DateTime<Utc>, limits: &StallLimits) -> Option<DateTime<Utc>> {
        self.activities()
            .filter_map(|(_, w)| w.stalls_at(limits.limit(self.format, w)))
            .filter(|&at| at > now)
            .min()
    }
}

/// The duration a `[stall]` value writes: whole numbers each followed by
/// a unit, `s`, `m`, `h`, `d` or `w` (`40m`, `2h`, `1h30m`), above zero.
/// `None` when it is not one.
pub fn parse_duration(text: &str) -> Option<TimeDelta> {
    let mut total: i64 = 0;
    let mut digits = String::new();
    let mut parts = 0;
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit: i64 = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'w' => 604_800,
            _ => return None,
        };
        let n: i64 = digits.parse().ok()?;
        digits.clear();
        total = total.checked_add(n.checked_mul(unit)?)?;
        parts += 1;
    }
    if !digits.is_empty() || parts == 0 || total == 0 {
        return None;
    }
    // Beyond a century it is no limit anyone means (and chrono's range
    // ends not far after).
    (total <= 100 * 365 * 86_400).then(|| TimeDelta::seconds(total))
}

#[cfg(test)]
mod tests;

impl Stall {
    /// As a row marks it: `stalled 40m` (`停滞40分钟`).
    pub fn shown(&self) -> String {
        crate::t!(
            "common.stall.short",
            age = crate::i18n::age(Some(self.silent_seconds))
        )
    }

    /// In a sentence: who says it runs, how long its files have been
    /// silent, since when (a short time against `now`) and the limit. The
    /// agent's name is as the file holds it: made safe where it is shown.
    pub fn sentence(&self, now: DateTime<Utc>) -> String {
        use crate::i18n::age;
        let (silent, since, limit) = (
            age(Some(self.silent_seconds)),
            super::short_time(self.since, now),
            age(Some(self.limit_seconds)),
        );
        match &self.agent {
            Some(agent) => crate::t!(
                "common.stall.agent",
                agent = agent,
                age = silent,
                since = since,
                limit = limit
            ),
            None => crate::t!(
                "common.stall.project",
                age = silent,
                since = since,
                limit = limit
            ),
        }
    }
}
