//! The JSON shapes of the headless commands (`"schema_version": 1`), built
//! from the model and a fixed "now". Key order is the order of the fields.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

use crate::model::escalate::{self, Rule};
use crate::model::seen::Since;
use crate::model::{
    Agent, Bug, BugStats, Checkpoint, Dag, Decision, Event, Excerpt, FileStamp, Finding, Frontier,
    InboxItem, InboxKind, Level, Loops, Phrase, Problem, Progress, Project, Revision, Run,
    Scenario, Stall, StallLimits, Task, Unit, oldest_first, since_seconds,
};
use loopdeck_core::read;

pub const SCHEMA_VERSION: u32 = 1;

/// What the config adds to what the files say: the `[[escalate]]` rules,
/// and, without `[devloop] api`, the config file a decision only a server
/// makes would need it in (such an item says so instead of offering it).
#[derive(Debug, Default)]
pub struct Policy {
    pub rules: Vec<Rule>,
    pub no_server: Option<String>,
    /// How long each format's work may be silent (`[stall]`).
    pub stall: StallLimits,
}

impl Policy {
    pub fn new(config: &crate::config::Config) -> Self {
        let server = config
            .devloop
            .api
            .as_deref()
            .is_some_and(|a| !a.trim().is_empty());
        Policy {
            stall: config.stall.limits(),
            rules: crate::config::escalation_rules(&config.escalate),
            no_server: (!server).then(|| {
                crate::config::shown_path(config).unwrap_or_else(|| "--config FILE".to_owned())
            }),
        }
    }

    /// Why `item` offers no decision here: its reader's words, or, for a
    /// decision only a server makes with none configured, what to add
    /// where (in English, as the JSON's other texts).
    pub fn why_not<'i>(&self, item: &'i InboxItem) -> Option<std::borrow::Cow<'i, Phrase>> {
        match (&item.act, &self.no_server) {
            (Some(a), Some(file)) if a.needs_server() => {
                Some(std::borrow::Cow::Owned(Phrase::said(
                    "app.decide.needs_server",
                    vec![("file", crate::model::Arg::Text(file.clone()))],
                )))
            }
            (Some(_), _) => None,
            (None, _) => item.why_not.as_ref().map(std::borrow::Cow::Borrowed),
        }
    }
}

pub fn rfc3339(t: Option<DateTime<Utc>>) -> Option<String> {
    t.map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true))
}

#[derive(Serialize)]
pub struct Row<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub format: &'static str,
    pub path: String,
    pub updated_at: Option<String>,
    pub age_seconds: Option<i64>,
    pub status: &'a str,
    pub stage: Option<&'a Phrase>,
    pub progress_percent: Option<u8>,
    pub needs_human: usize,
    pub findings: usize,
    pub problems: &'a [Problem],
    /// Work that says it runs while its files have been silent past the
    /// limit (`[stall]`), at "now": the longest such silence; `null` when
    /// none. It changes with time alone: `watch` sends the row again when
    /// it starts.
    pub stalled: Option<StallRow>,
    /// `list --changed`: what changed since the user last looked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since_you_looked: Option<Since>,
    /// The `[[escalate]]` rules that fire on its items, by name, in the
    /// config's order (see `project_escalations`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub escalated_by: Vec<String>,
    /// `list --cached`: the project's main files no longer match what
    /// the snapshot recorded (or did not when it was written): this row
    /// may be behind them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_since: Option<bool>,
}

/// A stall as the JSON says it ([`crate::model::Stall`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StallRow {
    /// The agent whose state says it runs; `null`: the project's status.
    pub agent: Option<String>,
    /// The last sign of life in its files.
    pub since: Option<String>,
    /// How long they have been silent at "now".
    pub silent_seconds: i64,
    /// The limit that silence passed (`[stall]`, else the format's own).
    pub limit_seconds: i64,
}

impl StallRow {
    /// `stalled 40m`, in the language spoken.
    pub fn shown(&self) -> String {
        crate::t!(
            "common.stall.short",
            age = crate::i18n::age(Some(self.silent_seconds))
        )
    }

    pub fn new(s: Stall) -> StallRow {
        StallRow {
            agent: s.agent,
            since: rfc3339(Some(s.since)),
            silent_seconds: s.silent_seconds,
            limit_seconds: s.limit_seconds,
        }
    }
}

impl<'a> Row<'a> {
    /// The row under the config's `policy`: its stall judged by its
    /// limits, with the `[[escalate]]` rules that fire on `p` (its items,
    /// and a stall rule on its silence).
    pub fn at(p: &'a Project, now: DateTime<Utc>, policy: &Policy) -> Self {
        Row {
            escalated_by: project_escalations(policy, p, now),
            ..Row::new(p, now, &policy.stall)
        }
    }

    /// `p`'s row at `now`, its stall judged by `limits`.
    pub fn new(p: &'a Project, now: DateTime<Utc>, limits: &StallLimits) -> Self {
        Row {
            id: &p.id,
            name: &p.name,
            format: p.format.as_str(),
            path: display_path(&p.path),
            updated_at: rfc3339(p.updated_at),
            age_seconds: since_seconds(p.updated_at, now),
            status: &p.status,
            stage: p.stage.as_ref(),
            progress_percent: p.progress_percent,
            needs_human: p.needs_human(),
            findings: p.findings.len(),
            problems: &p.problems,
            stalled: p.stall(now, limits).map(StallRow::new),
            since_you_looked: None,
            escalated_by: Vec::new(),
            changed_since: None,
        }
    }
}

/// The names of the rules that fire on any item of `p`, or on its stall,
/// each once, in the config's order.
pub fn project_escalations(policy: &Policy, p: &Project, now: DateTime<Utc>) -> Vec<String> {
    if policy.rules.is_empty() {
        return Vec::new();
    }
    let silent = p
        .stall(now, &policy.stall)
        .map(|s| chrono::TimeDelta::seconds(s.silent_seconds));
    policy
        .rules
        .iter()
        .filter(|r| {
            p.inbox.iter().any(|i| r.fires(p, i, now))
                || silent.is_some_and(|s| r.fires_on_stall(p, s))
        })
        .map(|r| r.name.clone())
        .collect()
}

pub fn display_path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

#[derive(Serialize)]
pub struct ListView<'a> {
    pub schema_version: u32,
    pub now: Option<String>,
    pub roots: Vec<String>,
    /// `list --cached`: the rows are the snapshot's, taken then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached: Option<Cached>,
    /// Roots and directories that could not be read (the run exits 1).
    pub problems: &'a [Problem],
    pub projects: Vec<Row<'a>>,
}

/// When the snapshot `list --cached` printed was taken, and how long ago
/// (by the clock, whatever `--now` says).
#[derive(Debug, Clone, Serialize)]
pub struct Cached {
    pub written_at: Option<String>,
    pub age_seconds: i64,
}

#[derive(Serialize)]
pub struct Resume<'a> {
    pub scenario: Option<Scenario>,
    pub since_seconds: Option<i64>,
    pub stopped_at: Option<&'a Phrase>,
    pub reason: Option<&'a Phrase>,
    pub waiting_for: Option<&'a Phrase>,
    pub last_session: Option<&'a str>,
    /// Step 3a's "已完成": the stages already done.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub completed: &'a [String],
    pub read_first: &'a [String],
    /// What the seed's scenario says to do on return.
    pub advice: String,
    /// Scenario C: the opening lines of the files to reread.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub excerpts: Vec<Excerpt>,
}

impl<'a> Resume<'a> {
    pub fn new(p: &'a Project, now: DateTime<Utc>) -> Self {
        let since = since_seconds(p.updated_at, now);
        let scenario = since.map(Scenario::for_age);
        let advice = match (scenario, since) {
            (Some(Scenario::A), _) => "back within the hour: act on the next action directly".to_owned(),
            (Some(Scenario::B), _) => {
                "back after a while: review this card, then decide whether to read the history first".to_owned()
            }
            (Some(Scenario::C), Some(s)) => {
                let days = s / 86_400;
                format!(
                    "back after {days} days: reread what you meant then (below) and the open questions; what has changed in these {days} days?"
                )
            }
            _ => "last update unknown: read the files below first".to_owned(),
        };
        Resume {
            scenario,
            since_seconds: since,
            stopped_at: p.resume.stopped_at.as_ref(),
            reason: p.resume.reason.as_ref(),
            waiting_for: p.resume.waiting_for.as_ref(),
            last_session: p.resume.last_session.as_deref(),
            completed: &p.resume.completed,
            read_first: &p.resume.read_first,
            advice,
            excerpts: if scenario == Some(Scenario::C) {
                read::excerpts(p, 2, 6)
            } else {
                Vec::new()
            },
        }
    }
}

#[derive(Serialize)]
pub struct ShowView<'a> {
    pub schema_version: u32,
    pub now: Option<String>,
    pub project: Row<'a>,
    pub resume: Resume<'a>,
    /// Every stall at "now": each agent that says it runs and is silent
    /// past its limit, then the project itself (`project.stalled` is the
    /// longest of them).
    pub stalls: Vec<StallRow>,
    pub frontier: &'a Frontier,
    /// The inbox at "now" (a lapsed resume token offers only restart).
    pub inbox: Vec<InboxItem>,
    /// What the human answered and the agent has not acted on yet, apart
    /// from `inbox` (as `inbox --json` shows it), newest answer first.
    pub answered: Vec<AnsweredRow<'a>>,
    pub decisions: &'a [Decision],
    pub blockers: &'a [Phrase],
    pub pending_todos: Option<usize>,
    pub findings: &'a [Finding],
    pub statusline: &'a str,
    pub tasks: &'a [Task],
    pub checkpoint: Option<&'a Checkpoint>,
    pub units: &'a [Unit],
    pub dag: Option<&'a Dag>,
    pub agents: &'a [Agent],
    pub bugs: &'a [Bug],
    pub bug_stats: Option<&'a BugStats>,
    pub timeline: &'a [Event],
    pub progress: Option<&'a Progress>,
    pub integration_runs: &'a [Run],
    pub revisions: &'a [Revision],
    /// devloop's L1/L2/L3 loops (the seed's LoopStatusBar).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loops: Option<&'a Loops>,
    pub skipped_lines: &'a BTreeMap<String, usize>,
    /// Every file the reading read whole, with the sha256 and length of
    /// the bytes read: what a decision is applied against
    /// (`act --expect-sha256`).
    pub files: &'a [FileStamp],
    /// What changed since the user last looked at it in the console;
    /// `null` when it was never seen (or no state directory).
    pub since_you_looked: Option<Since>,
}

impl<'a> ShowView<'a> {
    pub fn new(
        p: &'a Project,
        now: DateTime<Utc>,
        stamp: Option<String>,
        limits: &StallLimits,
    ) -> Self {
        let d = &p.detail;
        ShowView {
            schema_version: SCHEMA_VERSION,
            now: stamp,
            project: Row::new(p, now, limits),
            resume: Resume::new(p, now),
            stalls: p
                .stalls(now, limits)
                .into_iter()
                .map(StallRow::new)
                .collect(),
            frontier: &p.frontier,
            inbox: p.inbox_at(now),
            answered: answered_rows(std::slice::from_ref(p), now),
            decisions: &p.decisions,
            blockers: &p.blockers,
            pending_todos: p.pending_todos,
            findings: &p.findings,
            statusline: &p.statusline,
            tasks: &d.tasks,
            checkpoint: d.checkpoint.as_ref(),
            units: &d.units,
            dag: d.dag.as_ref(),
            agents: &d.agents,
            bugs: &d.bugs,
            bug_stats: d.bug_stats.as_ref(),
            timeline: &d.timeline,
            progress: d.progress.as_ref(),
            integration_runs: &d.integration_runs,
            revisions: &d.revisions,
            loops: d.loops.as_ref(),
            skipped_lines: &d.skipped_lines,
            files: &p.files,
            since_you_looked: None,
        }
    }
}

#[derive(Serialize)]
pub struct InboxRow<'a> {
    pub project: &'a str,
    pub project_name: &'a str,
    pub format: &'static str,
    pub path: String,
    pub kind: InboxKind,
    #[serde(rename = "ref")]
    pub reference: &'a str,
    pub title: &'a Phrase,
    pub since: Option<String>,
    pub age_seconds: Option<i64>,
    /// Since when the item waits (= `since`), and where that comes from:
    /// `file` (the project's files say it) or `first_seen` (the first
    /// reading that showed it).
    pub waiting_since: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting_since_source: Option<&'static str>,
    /// At "now" (see `Project::options_at`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// Where the item is decided (`loopdeck act PATH VERB TARGET`), with
    /// the options offered at "now".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub act: Option<crate::model::Address>,
    /// Without `act`: why no decision can be made here and what resolves it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_not: Option<std::borrow::Cow<'a, Phrase>>,
    /// The `[[escalate]]` rules that fire on it, by name, in the config's
    /// order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub escalated_by: Vec<String>,
    /// The same rules as the plain inbox names them (`name (> 2d)`).
    #[serde(skip)]
    pub escalated_shown: Vec<String>,
    /// A rule that ranks first fires on it.
    #[serde(skip)]
    pub first: bool,
    /// `since` as a time, for the order.
    #[serde(skip)]
    pub since_at: Option<DateTime<Utc>>,
}

#[derive(Serialize)]
pub struct InboxView<'a> {
    pub schema_version: u32,
    pub now: Option<String>,
    pub roots: Vec<String>,
    /// Roots and directories that could not be read (the run exits 1).
    pub problems: &'a [Problem],
    pub items: Vec<InboxRow<'a>>,
    /// What the human answered and the agent has not acted on yet: not
    /// waiting for a human, so never among `items`. Newest answer first.
    pub answered: Vec<AnsweredRow<'a>>,
}

/// An answered item waiting for the agent (`inbox --json`'s `answered`).
#[derive(Serialize)]
pub struct AnsweredRow<'a> {
    pub project: &'a str,
    pub project_name: &'a str,
    pub format: &'static str,
    pub path: String,
    pub kind: InboxKind,
    #[serde(rename = "ref")]
    pub reference: &'a str,
    pub title: &'a Phrase,
    pub answer: &'a str,
    pub answered_at: Option<String>,
    pub answered_by: Option<&'a str>,
    /// How long ago it was answered.
    pub age_seconds: Option<i64>,
    /// A decision that can still change the answer before the agent acts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub act: Option<&'a crate::model::Address>,
    #[serde(skip)]
    pub at: Option<DateTime<Utc>>,
}

/// Every answered item of `projects` waiting for its agent, newest first.
pub fn answered_rows(projects: &[Project], now: DateTime<Utc>) -> Vec<AnsweredRow<'_>> {
    let mut rows: Vec<AnsweredRow<'_>> = projects
        .iter()
        .flat_map(|p| {
            p.answered.iter().map(move |a| AnsweredRow {
                project: &p.id,
                project_name: &p.name,
                format: p.format.as_str(),
                path: display_path(&p.path),
                kind: a.kind,
                reference: &a.reference,
                title: &a.title,
                answer: &a.answer,
                answered_at: rfc3339(a.at),
                answered_by: a.by.as_deref(),
                age_seconds: since_seconds(a.at, now),
                act: a.act.as_ref(),
                at: a.at,
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        oldest_first(b.at, a.at)
            .then_with(|| a.project.cmp(b.project))
            .then_with(|| a.reference.cmp(b.reference))
    });
    rows
}

/// Every inbox item of `projects`: those an `[[escalate]]` rule ranks
/// first, then the rest, each oldest first (unknown times last).
pub fn inbox_rows<'a>(
    projects: &'a [Project],
    now: DateTime<Utc>,
    first: Option<&crate::model::first_seen::FirstSeen>,
    policy: &'a Policy,
) -> Vec<InboxRow<'a>> {
    let rules = &policy.rules;
    let mut rows: Vec<InboxRow<'_>> = projects
        .iter()
        .flat_map(|p| {
            p.inbox.iter().map(move |i| {
                let fired = escalate::fired(rules, p, i, now);
                InboxRow {
                    project: &p.id,
                    project_name: &p.name,
                    format: p.format.as_str(),
                    path: display_path(&p.path),
                    kind: i.kind,
                    reference: &i.reference,
                    title: &i.title,
                    since: rfc3339(i.since),
                    age_seconds: since_seconds(i.since, now),
                    waiting_since: rfc3339(i.since),
                    waiting_since_source: first
                        .and_then(|f| f.source(p, i))
                        .map(crate::model::first_seen::Source::as_str),
                    options: p.options_at(i, now),
                    // A decision only a server makes, with none: not offered
                    // (`why_not` says what to add).
                    act: i
                        .act
                        .as_ref()
                        .filter(|a| !(a.needs_server() && policy.no_server.is_some()))
                        .map(|a| crate::model::Address {
                            options: if a.options == i.options {
                                p.options_at(i, now)
                            } else {
                                a.options.clone()
                            },
                            ..a.clone()
                        }),
                    why_not: policy.why_not(i),
                    escalated_by: fired.iter().map(|r| r.name.clone()).collect(),
                    escalated_shown: fired.iter().map(|r| r.shown()).collect(),
                    first: fired.iter().any(|r| r.first),
                    since_at: i.since,
                }
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        b.first
            .cmp(&a.first)
            .then_with(|| oldest_first(a.since_at, b.since_at))
            .then_with(|| a.project.cmp(b.project))
            .then_with(|| a.reference.cmp(b.reference))
    });
    rows
}

#[derive(Serialize, Default)]
pub struct CheckSummary {
    pub projects: usize,
    /// Error findings plus files and directories that could not be read.
    pub errors: usize,
    pub warnings: usize,
    pub info: usize,
}

#[derive(Serialize)]
pub struct CheckRow<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub format: &'static str,
    pub path: String,
    pub findings: &'a [Finding],
    pub problems: &'a [Problem],
}

/// `check`: every finding of every project, for CI.
#[derive(Serialize)]
pub struct CheckView<'a> {
    pub schema_version: u32,
    pub now: Option<String>,
    pub roots: Vec<String>,
    /// Roots and directories that could not be read (counted as errors).
    pub problems: &'a [Problem],
    pub summary: CheckSummary,
    /// Projects with at least one finding or problem, newest first.
    pub projects: Vec<CheckRow<'a>>,
}

impl<'a> CheckView<'a> {
    pub fn new(
        projects: &'a [Project],
        problems: &'a [Problem],
        now: Option<String>,
        roots: Vec<String>,
    ) -> Self {
        let mut summary = CheckSummary {
            projects: projects.len(),
            errors: problems.len(),
            ..CheckSummary::default()
        };
        for p in projects {
            summary.errors += p.problems.len();
            for f in &p.findings {
                match f.level {
                    Level::Error => summary.errors += 1,
                    Level::Warning => summary.warnings += 1,
                    Level::Info => summary.info += 1,
                }
            }
        }
        CheckView {
            schema_version: SCHEMA_VERSION,
            now,
            roots,
            problems,
            summary,
            projects: projects
                .iter()
                .filter(|p| !p.findings.is_empty() || !p.problems.is_empty())
                .map(|p| CheckRow {
                    id: &p.id,
                    name: &p.name,
                    format: p.format.as_str(),
                    path: display_path(&p.path),
                    findings: &p.findings,
                    problems: &p.problems,
                })
                .collect(),
        }
    }
}
