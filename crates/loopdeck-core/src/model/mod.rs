//! Format-neutral domain types. No I/O lives here: every value is built by a
//! reader in `formats/` and consumed by `cli/`, `app/` and `ui/`.

mod audit;
pub mod changes;
mod detail;
pub mod escalate;
#[cfg(any(test, feature = "testing"))]
pub mod every_string;
pub mod first_seen;
mod phrase;
mod resume;
pub mod seen;
mod shape;
mod stall;
mod status;
pub mod text;
mod verb;
pub mod wire;

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

pub use audit::{AuditEntry, AuditStanding};
pub use detail::{
    Agent, Bug, BugStats, BugTransition, ChangeSummary, Checkpoint, Dag, Detail, DiffLine, DocDiff,
    Event, Failure, Gate, L1Status, L2Status, L3Status, LineKind, Loops, Outcome, Progress,
    ProgressPart, Revision, Run, SectionChange, SectionKind, Task, Tokens, Unit, UnitMore,
    UnknownRef,
};
pub use phrase::{Arg, Phrase};
pub use resume::{
    Age, CLOCK_SKEW, Excerpt, ResumeCard, SKEW_TOLERANCE_SECONDS, Scenario, ago, clock_skew,
    relative_age, short_time, short_time_seconds, since_seconds,
};
pub use shape::{Part, Place, Shape};
pub use stall::{Activity, Stall, StallLimit, StallLimits, parse_duration};
pub use status::StatusKind;
pub use verb::{Address, Field, FileStamp, Request, Verb, shown_verb};

/// A host's name as the user gave it (`[[host]] name`, `--host NAME=…`):
/// shared, since every project of that host carries it.
pub type HostName = std::sync::Arc<str>;

/// The four on-disk formats loopdeck understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// PRD-master: a `state.json` of stages, open questions and decisions.
    PrdMaster,
    /// GSD: `.planning/STATE.md`.
    Gsd,
    /// Deep Work Plan: a `PLAN_*` directory (`manifest.json`, `state.json`,
    /// `README.md`).
    Dwp,
    /// devloop: `project.json` with its units, runs, agents, bugs and
    /// timeline.
    Devloop,
}

impl Format {
    /// Every format, in the order the console groups them.
    pub const ALL: [Format; 4] = [Format::PrdMaster, Format::Gsd, Format::Dwp, Format::Devloop];

    /// The format's name in the JSON, the config and the command line
    /// (`prd-master`, `gsd`, `dwp`, `devloop`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::PrdMaster => "prd-master",
            Format::Gsd => "gsd",
            Format::Dwp => "dwp",
            Format::Devloop => "devloop",
        }
    }
}

/// How serious a finding is. `check` exits 1 when any finding is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Worth knowing; nothing is wrong.
    Info,
    /// Something is off, but the project still reads.
    Warning,
    /// The files break their format's rules; `check` fails.
    Error,
}

/// A conformance observation about a project's files (a lint result).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// How serious it is.
    pub level: Level,
    /// Stable machine-readable code, e.g. `prd.fact-field-synonym`.
    pub code: String,
    /// What is wrong, in one English sentence.
    pub message: String,
    /// What the finding points at: a question id, a file, a field.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
}

impl Finding {
    /// A finding that points at nothing in particular.
    pub fn new(level: Level, code: &str, message: impl Into<String>) -> Self {
        Finding {
            level,
            code: code.to_owned(),
            message: message.into(),
            reference: None,
        }
    }

    /// The same finding, pointing at `reference` (a question id, a file, a
    /// field).
    pub fn at(mut self, reference: impl Into<String>) -> Self {
        self.reference = Some(reference.into());
        self
    }
}

/// A file that could not be read or parsed. The project is still listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Path relative to the project directory.
    pub file: String,
    /// Why it could not be used, in one sentence.
    pub reason: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.reason)
    }
}

/// What kind of human attention an inbox item asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum InboxKind {
    /// A decision question for the human.
    Question,
    /// A fact the human (or a named human role) must bring evidence for.
    Evidence,
    /// A choice among offered options.
    Choice,
    /// An agent is blocked until a human answers (GSD WAITING.json).
    Waiting,
    /// A blocked task or project, with its reason and needs.
    Blocked,
    /// A plan waits for approval.
    Approval,
    /// Files disagree (README against state): a human reconciles.
    Desync,
    /// A finalization was interrupted and must be inspected.
    Finalization,
    /// A paused agent: resume or restart.
    Resume,
    /// New input conflicts with an earlier revision.
    Conflict,
    /// Over its token budget.
    Budget,
    /// Shipped, waiting for sign-off.
    SignOff,
    /// A unit out of retries (or blocked): it needs a human to go on.
    RetriesSpent,
    /// A triage too unsure to be applied (confidence below 0.5): the loop
    /// reports it to a human (devloop L3).
    Triage,
}

impl InboxKind {
    /// Every kind.
    pub const ALL: [InboxKind; 14] = [
        InboxKind::Question,
        InboxKind::Evidence,
        InboxKind::Choice,
        InboxKind::Waiting,
        InboxKind::Blocked,
        InboxKind::Approval,
        InboxKind::Desync,
        InboxKind::Finalization,
        InboxKind::Resume,
        InboxKind::Conflict,
        InboxKind::Budget,
        InboxKind::SignOff,
        InboxKind::RetriesSpent,
        InboxKind::Triage,
    ];

    /// The kind as the console and the plain inbox show it, in the
    /// language spoken ([`InboxKind::label`] is its stable English word).
    pub fn shown(self) -> &'static str {
        match self {
            InboxKind::Question => crate::t!("model.kind.question"),
            InboxKind::Evidence => crate::t!("model.kind.evidence"),
            InboxKind::Choice => crate::t!("model.kind.choice"),
            InboxKind::Waiting => crate::t!("model.kind.waiting"),
            InboxKind::Blocked => crate::t!("model.kind.blocked"),
            InboxKind::Approval => crate::t!("model.kind.approval"),
            InboxKind::Desync => crate::t!("model.kind.desync"),
            InboxKind::Finalization => crate::t!("model.kind.finalization"),
            InboxKind::Resume => crate::t!("model.kind.resume"),
            InboxKind::Conflict => crate::t!("model.kind.conflict"),
            InboxKind::Budget => crate::t!("model.kind.budget"),
            InboxKind::SignOff => crate::t!("model.kind.sign_off"),
            InboxKind::RetriesSpent => crate::t!("model.kind.retries"),
            InboxKind::Triage => crate::t!("model.kind.triage"),
        }
    }

    /// The kind's stable English word (the since-you-looked memory keeps
    /// it; the JSON has its own kebab-case name).
    pub fn label(self) -> &'static str {
        match self {
            InboxKind::Question => "question",
            InboxKind::Evidence => "evidence",
            InboxKind::Choice => "choice",
            InboxKind::Waiting => "waiting",
            InboxKind::Blocked => "blocked",
            InboxKind::Approval => "approval",
            InboxKind::Desync => "desync",
            InboxKind::Finalization => "finalize",
            InboxKind::Resume => "resume",
            InboxKind::Conflict => "conflict",
            InboxKind::Budget => "budget",
            InboxKind::SignOff => "sign-off",
            InboxKind::RetriesSpent => "retries",
            InboxKind::Triage => "triage",
        }
    }
}

/// One thing waiting for a human, in one project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InboxItem {
    /// What kind of attention it asks for.
    pub kind: InboxKind,
    /// The id the format uses for it (question id, file name...).
    #[serde(rename = "ref")]
    pub reference: String,
    /// What waits, as loopdeck says it (the question itself, when a file
    /// asks one).
    pub title: Phrase,
    /// Since when it waits, as its files tell (a question's or pause's time,
    /// the event that raised it); `None` when they do not.
    pub since: Option<DateTime<Utc>>,
    /// Choices offered, when the item has a fixed set.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// The id of the thing it is about in the project's views (a question,
    /// a task, an agent), so a view can open on it without knowing how the
    /// format spells its references.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// Where this item is decided (`loopdeck act DIR VERB TARGET`), when a
    /// human decision settles it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub act: Option<Address>,
    /// Without `act`: why no decision can be made here, and what will
    /// resolve it (the command to run, the file to edit), in one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_not: Option<Phrase>,
}

/// An inbox item the human has answered, waiting for the agent to act on
/// the answer (a PRD-master `next_action` chosen, a devloop agent's resume
/// decision the server has not carried out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnsweredItem {
    /// What kind of item was answered.
    pub kind: InboxKind,
    /// The id the format uses for the item (as [`InboxItem::reference`]).
    #[serde(rename = "ref")]
    pub reference: String,
    /// What was asked, as the item said it.
    pub title: Phrase,
    /// What was answered (an option's label, `restart`...).
    pub answer: String,
    /// When, as the file says it.
    pub at: Option<DateTime<Utc>>,
    /// By whom, as the file says it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// What it is about in the project's views (as [`InboxItem::subject`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// The decision that can still change the answer before the agent acts
    /// (a devloop pause decided `resume` can still be turned to `restart`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub act: Option<Address>,
}

/// A question or research node on a frontier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Question {
    /// Its `id` as text; `#N` (its 0-based index in `open_questions`) when
    /// it has none.
    pub id: String,
    /// Its `title` (empty when absent).
    pub title: String,
    /// `decision` or `fact`: its `kind`, else guessed from its status
    /// (research statuses make a fact).
    pub kind: String,
    /// Its `priority`, as written.
    pub priority: Option<String>,
    /// Who answers it (`owner`: a human role, an agent), as written.
    pub owner: Option<String>,
    /// Its `status`, as written.
    pub status: Option<String>,
    /// Open nodes this one still waits on (non-empty only for blocked nodes).
    pub waiting_on: Vec<String>,
    /// What evidence a fact needs, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_needed: Option<String>,
    /// When that evidence is enough, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acceptance_threshold: Option<String>,
    /// When it is due, as written (not parsed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub due_by: Option<String>,
}

/// The questions a project can act on now, and the ones it cannot yet.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Frontier {
    /// Eligible decision questions waiting for the human.
    pub questions: Vec<Question>,
    /// Eligible fact nodes: research by an agent or evidence from a human role.
    pub research: Vec<Question>,
    /// Nodes whose dependencies are still open.
    pub blocked: Vec<Question>,
    /// True when the saved `next_action` snapshot names a node that is not an
    /// eligible question any more.
    pub snapshot_stale: bool,
    /// The ids that made the snapshot stale.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale_ids: Vec<String>,
}

/// A decision recorded in the project's own files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// Its id in the file (PRD-master); `None` for GSD's Markdown list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// What was decided.
    pub summary: String,
    /// Why (PRD-master's `rationale`; GSD: the text after ` — `).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rationale: Option<String>,
    /// When in the project it was taken (PRD-master's `stage`; GSD: the
    /// `[Phase N]` prefix).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
}

/// One project, as every view sees it, whatever its format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Project {
    /// The machine it is on, by the `[[host]]` name the user gave it;
    /// `None` for this machine's projects. Part of a project's identity:
    /// two hosts may have projects at the same path. Set by the receiver
    /// of a host's feed, never by a reader.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<HostName>,
    /// Path relative to the root it was found under (`.` for the root itself).
    pub id: String,
    /// Its name, as its files give it (a title, a `name`), else its
    /// directory's name.
    pub name: String,
    /// The format its files are in.
    pub format: Format,
    /// Its directory, under the root it was found in.
    pub path: PathBuf,
    /// When its files say it last changed (the format's own timestamp, else a
    /// file's modification time); `None` when neither is known.
    pub updated_at: Option<DateTime<Utc>>,
    /// The format's own status word, as the file holds it (see each format's docs).
    pub status: String,
    /// What the status means, set by the reader from the format's own enum.
    pub status_kind: StatusKind,
    /// Where the project is (a PRD stage, a GSD phase, a DWP task), as
    /// its files say it or as loopdeck words it.
    pub stage: Option<Phrase>,
    /// Percent done, 0-100, where the format measures it; `None` otherwise.
    pub progress_percent: Option<u8>,
    /// Everything in this project that waits for a human.
    pub inbox: Vec<InboxItem>,
    /// What the human has answered and the agent has not yet acted on: no
    /// longer waiting for the human, so never counted with `inbox`; it
    /// leaves when the agent consumes the answer.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub answered: Vec<AnsweredItem>,
    /// Files that could not be read or parsed.
    pub problems: Vec<Problem>,
    /// What breaks or bends its format's rules (`check`).
    pub findings: Vec<Finding>,
    /// The questions it can act on now (PRD-master; empty for the others).
    pub frontier: Frontier,
    /// Decisions its files record (PRD-master, GSD), in the files' order.
    pub decisions: Vec<Decision>,
    /// What blocks the project, as its files say or as loopdeck words it.
    pub blockers: Vec<Phrase>,
    /// How many todos wait, where the format keeps a count (GSD's Pending Todos).
    pub pending_todos: Option<usize>,
    /// Facts for the resume card, independent of "now".
    pub resume: ResumeCard,
    /// Tasks, units, agents, bugs, timeline, progress (where the format has them).
    pub detail: Detail,
    /// The project's own claim of work going on (its status says it runs
    /// and nothing waits for a human), set by the reader; judged against
    /// "now" by [`Project::stall`]. Agents carry their own
    /// ([`Agent::activity`]).
    #[serde(skip)]
    pub activity: Option<Activity>,
    /// One line for a shell prompt or tmux status bar.
    pub statusline: String,
    /// Every file read whole, with the sha256 and length of the bytes read.
    pub files: Vec<FileStamp>,
    /// The decisions this project offers beside its inbox items and bugs:
    /// on a row (a task, an agent, a blocker: `target` names it) or on the
    /// project itself (`target` is `None`). Set by the reader, which alone
    /// knows the format's rules; the console offers exactly these.
    #[serde(skip)]
    pub acts: Vec<Address>,
}

impl Project {
    /// An empty project of `format` at `path`; readers fill it in.
    pub fn new(format: Format, path: PathBuf, name: String) -> Self {
        Project {
            host: None,
            id: String::new(),
            name,
            format,
            path,
            updated_at: None,
            status: "unknown".to_owned(),
            status_kind: StatusKind::Unknown,
            stage: None,
            progress_percent: None,
            inbox: Vec::new(),
            answered: Vec::new(),
            problems: Vec::new(),
            findings: Vec::new(),
            frontier: Frontier::default(),
            decisions: Vec::new(),
            blockers: Vec::new(),
            pending_todos: None,
            resume: ResumeCard::default(),
            detail: Detail::default(),
            activity: None,
            statusline: String::new(),
            files: Vec::new(),
            acts: Vec::new(),
        }
    }

    /// The options `item` offers at `now`. One rule for every view: a
    /// paused agent's `resume` lapses with its resume token (seed 003,
    /// Process.StatePersistence: older than 24 h, it can only restart).
    pub fn options_at(&self, item: &InboxItem, now: DateTime<Utc>) -> Vec<String> {
        let lapsed = item.kind == InboxKind::Resume
            && item.subject.as_deref().is_some_and(|name| {
                self.detail
                    .agents
                    .iter()
                    .find(|a| a.agent == name)
                    .is_some_and(|a| a.resume_expired(now))
            });
        item.options
            .iter()
            .filter(|o| !(lapsed && o.as_str() == "resume"))
            .cloned()
            .collect()
    }

    /// Every decision the project offers at `now`, each (verb, target)
    /// once: its inbox items', its bugs', and its rows' and its own
    /// (`acts`).
    pub fn addresses_at(&self, now: DateTime<Utc>) -> Vec<Address> {
        let mut all: Vec<Address> = Vec::new();
        let found = self
            .inbox_at(now)
            .into_iter()
            .filter_map(|i| i.act)
            .chain(self.detail.bugs.iter().filter_map(|b| b.act.clone()))
            .chain(self.acts.iter().cloned());
        for a in found {
            if !all.iter().any(|b| b.verb == a.verb && b.target == a.target) {
                all.push(a);
            }
        }
        all
    }

    /// The inbox as it stands at `now` (see [`Project::options_at`]).
    pub fn inbox_at(&self, now: DateTime<Utc>) -> Vec<InboxItem> {
        self.inbox
            .iter()
            .map(|i| {
                let options = self.options_at(i, now);
                // The decision address offers what the item offers.
                // A resume with no option left (its token lapsed after a
                // restart was recorded) can no longer be decided.
                let act = i
                    .act
                    .clone()
                    .map(|mut a| {
                        if i.kind == InboxKind::Resume {
                            a.options.retain(|o| options.contains(o));
                        }
                        a
                    })
                    .filter(|a| i.kind != InboxKind::Resume || !a.options.is_empty());
                InboxItem {
                    options,
                    act,
                    ..i.clone()
                }
            })
            .collect()
    }

    /// How many items wait for a human (the inbox's length).
    pub fn needs_human(&self) -> usize {
        self.inbox.len()
    }

    /// Record that `file` (relative to the project) could not be used, and
    /// why.
    pub fn problem(&mut self, file: &str, reason: impl Into<String>) {
        self.problems.push(Problem {
            file: file.to_owned(),
            reason: reason.into(),
        });
    }
}

/// The inbox's order: the longest-waiting item first; items without a
/// known time last. One rule for the console and the headless `inbox`.
pub fn oldest_first(a: Option<DateTime<Utc>>, b: Option<DateTime<Utc>>) -> std::cmp::Ordering {
    match (a, b) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    }
}

/// Newest update first; projects without a known update time last; ties by id.
pub fn sort_newest_first(projects: &mut [Project]) {
    projects.sort_by(|a, b| {
        b.updated_at
            .cmp(&a.updated_at)
            .then_with(|| a.id.cmp(&b.id))
            .then_with(|| a.format.cmp(&b.format))
    });
}
