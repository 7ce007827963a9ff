//! A human decision, format-neutral: what `loopdeck act` is asked to do and
//! what an inbox item or an actionable row offers. The console and the
//! command line build the same [`Request`] and hand it to the same format
//! code (`formats::act`), so one decision is always made by one piece of code.

use chrono::{DateTime, Utc};
use serde::Serialize;

/// One decision verb with its arguments, as `loopdeck act DIR VERB ...`
/// spells it. Each format accepts the verbs its rules allow and refuses the
/// others with a message naming the format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verb", rename_all = "kebab-case")]
pub enum Verb {
    /// PRD-master: answer question `id` (GSD: answer WAITING.json, no id).
    Answer {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        text: String,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        key_decision: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        rationale: Option<String>,
    },
    /// PRD-master: supply evidence for a fact node owned by a human role.
    Evidence { id: String, text: String },
    /// PRD-master: pick one of `next_action.askuserquestion_options`.
    Choose { option: String },
    /// PRD-master: start a new project in a workspace directory (Step 3b).
    NewProject {
        name: String,
        work_type: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        mode: Option<String>,
    },
    /// GSD: `- [Phase N]: summary — rationale` under Decisions.
    AddDecision {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        phase: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        rationale: Option<String>,
    },
    /// GSD: add a blocker.
    AddBlocker { text: String },
    /// GSD: resolve a blocker (matched by its text).
    ResolveBlocker { text: String },
    /// DWP: approve the plan.
    Approve,
    /// DWP: block a task.
    Block {
        task: String,
        reason: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        needs: Option<String>,
    },
    /// DWP: resolve the current task's blocker (task back to in_progress).
    Unblock { task: String },
    /// DWP: reopen a task with a reason.
    Reopen { task: String, reason: String },
    /// DWP: state from the README's Markdown, recorded in PROGRESS.md.
    Reconcile,
    /// DWP: remove a stale lock (only with `confirm`).
    Unlock { confirm: bool },
    /// devloop: move a bug along the seed's lifecycle.
    Bug {
        id: String,
        status: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        duplicate_of: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        fix_ref: Option<String>,
    },
    /// devloop: resume or restart a paused agent.
    ResumeAgent { agent: String, choice: String },
    /// devloop: shipped → shipped-final.
    SignOff,
    /// devloop: abandon the project.
    Abandon,
    /// devloop: a new requirement (through the devloop server).
    Requirement { text: String },
}

impl Verb {
    /// The verb as the command line spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Verb::Answer { .. } => "answer",
            Verb::Evidence { .. } => "evidence",
            Verb::Choose { .. } => "choose",
            Verb::NewProject { .. } => "new-project",
            Verb::AddDecision { .. } => "add-decision",
            Verb::AddBlocker { .. } => "add-blocker",
            Verb::ResolveBlocker { .. } => "resolve-blocker",
            Verb::Approve => "approve",
            Verb::Block { .. } => "block",
            Verb::Unblock { .. } => "unblock",
            Verb::Reopen { .. } => "reopen",
            Verb::Reconcile => "reconcile",
            Verb::Unlock { .. } => "unlock",
            Verb::Bug { .. } => "bug",
            Verb::ResumeAgent { .. } => "resume-agent",
            Verb::SignOff => "sign-off",
            Verb::Abandon => "abandon",
            Verb::Requirement { .. } => "requirement",
        }
    }
}

/// A decision to make: the verb, who makes it and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub verb: Verb,
    /// Who decides (`--by`, default the login name).
    pub by: String,
    /// "Now" for every timestamp written (`--now` fixes it for tests).
    pub now: DateTime<Utc>,
    /// The devloop server (`[devloop] api` in the config), when configured.
    pub devloop_api: Option<String>,
}

/// Where a waiting item or an actionable row is decided: the verb, the id
/// it acts on, and the options offered (an answer outside them is still
/// free text where the verb takes text). The console and `act` both build
/// their [`Verb`] from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Address {
    pub verb: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
}

/// A file a reader read whole: its path relative to the project, and the
/// sha256 and length of exactly the bytes read. A decision made from the
/// reading is applied against those bytes (`--expect-sha256`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileStamp {
    pub file: String,
    pub sha256: String,
    pub len: u64,
}
