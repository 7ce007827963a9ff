//! A human decision, format-neutral: what `loopdeck act` is asked to do and
//! what an inbox item or an actionable row offers. The console and the
//! command line build the same [`Request`] and hand it to the same format
//! code (`formats::act`), so one decision is always made by one piece of code.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One decision verb with its arguments, as `loopdeck act DIR VERB ...`
/// spells it. Each format accepts the verbs its rules allow and refuses the
/// others with a message naming the format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verb", rename_all = "kebab-case")]
pub enum Verb {
    /// PRD-master: answer question `id` (GSD: answer WAITING.json, no id).
    Answer {
        /// The question's id (PRD-master); `None` for GSD's one waiting
        /// question.
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The answer, as the human typed it (several lines allowed).
        text: String,
        /// PRD-master: also record the answer as a key decision
        /// (`key_decisions_made`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        key_decision: bool,
        /// Why, recorded with the key decision.
        #[serde(skip_serializing_if = "Option::is_none")]
        rationale: Option<String>,
    },
    /// PRD-master: supply evidence for a fact node owned by a human role.
    Evidence {
        /// The fact node's id.
        id: String,
        /// The evidence, as the human typed it.
        text: String,
    },
    /// PRD-master: pick one of `next_action.askuserquestion_options`.
    Choose {
        /// The option's label or its 1-based number in the list offered.
        option: String,
    },
    /// PRD-master: start a new project in a workspace directory (Step 3b).
    NewProject {
        /// The project's name, which is also its directory's.
        name: String,
        /// `feature` or `bugfix`.
        work_type: String,
        /// A feature's flow mode (`standard`, `quick`, `tech-constrained`;
        /// standard when `None`); a bugfix takes none.
        #[serde(skip_serializing_if = "Option::is_none")]
        mode: Option<String>,
    },
    /// GSD: `- [Phase N]: summary — rationale` under Decisions.
    AddDecision {
        /// The decision, one line.
        text: String,
        /// The phase it belongs to (the `[Phase N]` prefix), when given.
        #[serde(skip_serializing_if = "Option::is_none")]
        phase: Option<String>,
        /// Why, written after ` — `.
        #[serde(skip_serializing_if = "Option::is_none")]
        rationale: Option<String>,
    },
    /// GSD: add a blocker.
    AddBlocker {
        /// The blocker, one line.
        text: String,
    },
    /// GSD: resolve a blocker (matched by its text; every blocker holding
    /// the text only with `all`).
    ResolveBlocker {
        /// Text the blocker holds (the whole blocker, or a part that only
        /// one blocker holds).
        text: String,
        /// Resolve every blocker holding `text`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        all: bool,
    },
    /// DWP: approve the plan.
    Approve,
    /// DWP: block a task.
    Block {
        /// The task's id.
        task: String,
        /// Why it is blocked.
        reason: String,
        /// What would unblock it, when said.
        #[serde(skip_serializing_if = "Option::is_none")]
        needs: Option<String>,
    },
    /// DWP: resolve the current task's blocker (task back to in_progress).
    Unblock {
        /// The blocked task's id.
        task: String,
    },
    /// DWP: reopen a task with a reason.
    Reopen {
        /// The task's id.
        task: String,
        /// Why it is reopened.
        reason: String,
    },
    /// DWP: state from the README's Markdown, recorded in PROGRESS.md.
    Reconcile,
    /// DWP: remove a stale lock (only with `confirm`).
    Unlock {
        /// The human confirmed the lock is stale; without it nothing is
        /// removed.
        confirm: bool,
    },
    /// devloop: move a bug along the seed's lifecycle.
    Bug {
        /// The bug's id.
        id: String,
        /// The status it moves to.
        status: String,
        /// Why, recorded with the move.
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        /// The bug it duplicates (moving to `duplicate`).
        #[serde(skip_serializing_if = "Option::is_none")]
        duplicate_of: Option<String>,
        /// A reference to the fix (a commit, a change), added to its
        /// `fix_refs`.
        #[serde(skip_serializing_if = "Option::is_none")]
        fix_ref: Option<String>,
    },
    /// devloop: resume or restart a paused agent.
    ResumeAgent {
        /// The paused agent's name.
        agent: String,
        /// `resume` (from its token) or `restart`.
        choice: String,
    },
    /// devloop: shipped → shipped-final.
    SignOff,
    /// devloop: abandon the project.
    Abandon,
    /// devloop: a new requirement (through the devloop server).
    Requirement {
        /// The requirement, as the human typed it.
        text: String,
    },
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

    /// Is the decision itself a record appended to an append-only log
    /// (devloop's `bugs.ndjson`, seed 003: its lines are never
    /// rewritten)? `loopdeck undo` refuses such a decision: the next
    /// decision on the same row is how it moves on.
    pub fn appends_its_record(&self) -> bool {
        matches!(self, Verb::Bug { .. })
    }
}

/// The longest free text over several lines a decision takes (an answer,
/// evidence, a requirement), in characters: a page of text, more than any
/// answer the formats' readers show whole.
pub(super) const MAX_TEXT: usize = 10_000;
/// The longest one-line text (a GSD decision or blocker, a reason, a
/// note), in characters: DWP's own state contract caps its longest text
/// field at 1,000, and a GSD entry is one Markdown list line that GSD's
/// tools and statusline read whole.
pub(super) const MAX_LINE: usize = 1_000;
/// The longest name or id (a question id, a task, an option, a project
/// name, a reference), in characters.
pub(super) const MAX_NAME: usize = 200;

impl Verb {
    /// Every text the verb carries: (what it is, the text, its limit in
    /// characters).
    fn texts(&self) -> Vec<(&'static str, &str, usize)> {
        fn opt<'a>(
            t: &mut Vec<(&'static str, &'a str, usize)>,
            what: &'static str,
            v: &'a Option<String>,
            max: usize,
        ) {
            if let Some(v) = v {
                t.push((what, v.as_str(), max));
            }
        }
        let mut t: Vec<(&'static str, &str, usize)> = Vec::new();
        match self {
            Verb::Answer {
                id,
                text,
                rationale,
                ..
            } => {
                opt(&mut t, "the question id", id, MAX_NAME);
                t.push(("the answer", text, MAX_TEXT));
                opt(&mut t, "--rationale", rationale, MAX_LINE);
            }
            Verb::Evidence { id, text } => {
                t.push(("the question id", id, MAX_NAME));
                t.push(("the evidence", text, MAX_TEXT));
            }
            Verb::Choose { option } => t.push(("the option", option, MAX_LINE)),
            Verb::NewProject {
                name,
                work_type,
                mode,
            } => {
                t.push(("the project name", name, MAX_NAME));
                t.push(("--work-type", work_type, MAX_NAME));
                opt(&mut t, "--mode", mode, MAX_NAME);
            }
            Verb::AddDecision {
                text,
                phase,
                rationale,
            } => {
                t.push(("the decision", text, MAX_LINE));
                opt(&mut t, "--phase", phase, MAX_NAME);
                opt(&mut t, "--rationale", rationale, MAX_LINE);
            }
            Verb::AddBlocker { text } => t.push(("the blocker", text, MAX_LINE)),
            Verb::ResolveBlocker { text, .. } => t.push(("the blocker's text", text, MAX_LINE)),
            Verb::Block {
                task,
                reason,
                needs,
            } => {
                t.push(("the task", task, MAX_NAME));
                t.push(("--reason", reason, MAX_LINE));
                opt(&mut t, "--needs", needs, MAX_LINE);
            }
            Verb::Unblock { task } => t.push(("the task", task, MAX_NAME)),
            Verb::Reopen { task, reason } => {
                t.push(("the task", task, MAX_NAME));
                t.push(("--reason", reason, MAX_LINE));
            }
            Verb::Bug {
                id,
                status,
                note,
                duplicate_of,
                fix_ref,
            } => {
                t.push(("the bug id", id, MAX_NAME));
                t.push(("the status", status, MAX_NAME));
                opt(&mut t, "--note", note, MAX_LINE);
                opt(&mut t, "--duplicate-of", duplicate_of, MAX_NAME);
                opt(&mut t, "--fix-ref", fix_ref, MAX_NAME);
            }
            Verb::ResumeAgent { agent, choice } => {
                t.push(("the agent", agent, MAX_NAME));
                t.push(("the choice", choice, MAX_NAME));
            }
            Verb::Requirement { text } => t.push(("the requirement", text, MAX_TEXT)),
            Verb::Approve
            | Verb::Reconcile
            | Verb::Unlock { .. }
            | Verb::SignOff
            | Verb::Abandon => {}
        }
        t
    }

    /// Is every text of the verb within its limit? `Err`: the refusal,
    /// naming the field, its length and the limit. A format may set a
    /// lower limit of its own (DWP's state contract).
    pub fn check_lengths(&self) -> Result<(), String> {
        for (what, text, max) in self.texts() {
            let n = text.chars().count();
            if n > max {
                return Err(format!(
                    "{what} is {n} characters long; `{verb}` takes at most {max}: shorten it (keep the detail in a document of the project and name it here); nothing written",
                    verb = self.name()
                ));
            }
        }
        Ok(())
    }
}

/// A decision to make: the verb, who makes it and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// What to do, with its arguments.
    pub verb: Verb,
    /// Who decides (`--by`, default the login name).
    pub by: String,
    /// "Now" for every timestamp written (`--now` fixes it for tests).
    pub now: DateTime<Utc>,
    /// The devloop server (`[devloop] api` in the config), when configured.
    pub devloop_api: Option<String>,
    /// The config file in force or the one that would be read (its real
    /// path), for refusals that say what to add to it.
    pub config_file: Option<String>,
}

impl Request {
    /// Who decides (`--by`, or the login name in the console), trimmed,
    /// under the one-line rule of every typed text (`one_line`) and the
    /// limit of a name (200 characters); `Err`:
    /// the refusal, in the decision texts' words.
    pub fn decider(by: &str) -> Result<String, String> {
        let what = "--by (who decides)";
        let by = one_line(what, by)?;
        let n = by.chars().count();
        if n > MAX_NAME {
            return Err(format!(
                "{what} is {n} characters long; a name takes at most {MAX_NAME}: shorten it; nothing written"
            ));
        }
        Ok(by)
    }
}

/// Where a waiting item or an actionable row is decided: the verb, the id
/// it acts on, and the options offered (an answer outside them is still
/// free text where the verb takes text). The console and `act` both build
/// their [`Verb`] from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Address {
    /// The verb as the command line spells it ([`Verb::name`]).
    pub verb: &'static str,
    /// What it acts on (a question, task, bug or agent id); `None` when the
    /// verb takes none (the project itself, GSD's waiting question).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The choices offered, when the decision has a fixed set.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
}

/// A file a reader read whole: its path relative to the project, and the
/// sha256 and length of exactly the bytes read. A decision made from the
/// reading is applied against those bytes (`--expect-sha256`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    /// Its path, relative to the project.
    pub file: String,
    /// The sha256 of the bytes read, in lowercase hex.
    pub sha256: String,
    /// How many bytes were read.
    pub len: u64,
}

/// A field a decision needs typed (an answer, a reason, a note).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// What the form calls it, in the language spoken (display only: the
    /// verb built from the field never carries it).
    pub label: &'static str,
    /// Refused empty.
    pub required: bool,
    /// Free text over several lines (an answer); else one line (an id).
    pub multiline: bool,
}

const fn field(label: &'static str, required: bool, multiline: bool) -> Field {
    Field {
        label,
        required,
        multiline,
    }
}

/// The free-text answer (several lines).
fn text_field() -> Field {
    field(crate::t!("model.field.answer"), true, true)
}

/// A verb as the console names it, in the language spoken (`answer` is
/// 回答 in Chinese); the verb itself when it has no translation. The verbs
/// `loopdeck act` takes stay as they are: this is for display only.
pub fn shown_verb(verb: &str) -> &str {
    match verb {
        "answer" => crate::t!("model.verb.answer"),
        "evidence" => crate::t!("model.verb.evidence"),
        "choose" => crate::t!("model.verb.choose"),
        "add-decision" => crate::t!("model.verb.add_decision"),
        "add-blocker" => crate::t!("model.verb.add_blocker"),
        "resolve-blocker" => crate::t!("model.verb.resolve_blocker"),
        "approve" => crate::t!("model.verb.approve"),
        "block" => crate::t!("model.verb.block"),
        "unblock" => crate::t!("model.verb.unblock"),
        "reopen" => crate::t!("model.verb.reopen"),
        "reconcile" => crate::t!("model.verb.reconcile"),
        "unlock" => crate::t!("model.verb.unlock"),
        "resume-agent" => crate::t!("model.verb.resume_agent"),
        "bug" => crate::t!("model.verb.bug"),
        "sign-off" => crate::t!("model.verb.sign_off"),
        "abandon" => crate::t!("model.verb.abandon"),
        "requirement" => crate::t!("model.verb.requirement"),
        other => other,
    }
}

impl Address {
    /// An address on `target` (a row) or on the project (`None`).
    pub fn new(verb: &'static str, target: Option<String>, options: Vec<String>) -> Self {
        Address {
            verb,
            target,
            options,
        }
    }

    /// Is this decision carried out by the project's server (a devloop
    /// requirement goes to its PM agent through `[devloop] api`), so that
    /// without one configured it cannot be made at all?
    pub fn needs_server(&self) -> bool {
        self.verb == "requirement"
    }

    /// Must one of the options be picked (no free text instead)? GSD's
    /// WAITING.json answer takes an option or free text; a choice, a bug
    /// status or a resume decision only an option.
    pub fn option_required(&self) -> bool {
        matches!(self.verb, "choose" | "bug" | "resume-agent" | "sign-off")
    }

    /// What can be picked: each option, then free text (`None`) where the
    /// verb takes it (or `None` alone for a decision without options).
    pub fn picks(&self) -> Vec<Option<&str>> {
        let mut out: Vec<Option<&str>> = self.options.iter().map(|o| Some(o.as_str())).collect();
        if out.is_empty() || !self.option_required() {
            out.push(None);
        }
        out
    }

    /// The fields the decision needs typed once `option` is picked
    /// (`None`: no option, so free text where the verb takes it).
    pub fn fields(&self, option: Option<&str>) -> Vec<Field> {
        use crate::t;
        match (self.verb, option) {
            // GSD's answer (addressed by WAITING.json's sha256) is one line
            // of STATE.md, as its decisions and blockers are.
            ("answer", None) if self.target.is_some() && self.row().is_none() => {
                vec![field(t!("model.field.answer"), true, false)]
            }
            // PRD-master: a rationale, when given, records the answer as a
            // key decision D-n (`act answer --key-decision --rationale`).
            ("answer", None) => vec![
                text_field(),
                field(t!("model.field.key_rationale"), false, true),
            ],
            ("evidence", None) => vec![text_field()],
            ("requirement", _) => vec![field(t!("model.field.requirement"), true, true)],
            ("add-decision", _) => vec![
                field(t!("model.field.decision"), true, false),
                field(t!("model.field.rationale"), false, false),
                field(t!("model.field.phase"), false, false),
            ],
            ("add-blocker", _) => vec![field(t!("model.field.blocker"), true, false)],
            ("block", _) => vec![
                field(t!("model.field.reason"), true, true),
                field(t!("model.field.needs"), false, true),
            ],
            ("reopen", _) => vec![field(t!("model.field.reason"), true, true)],
            ("bug", Some("duplicate")) => vec![
                field(t!("model.field.duplicate_of"), true, false),
                field(t!("model.field.note"), false, true),
            ],
            ("bug", Some("fixed")) => vec![
                field(t!("model.field.note"), false, true),
                field(t!("model.field.fix_ref"), false, false),
            ],
            ("bug", Some(_)) => vec![field(t!("model.field.note"), false, true)],
            _ => Vec::new(),
        }
    }

    /// The row the decision is on (a question, a task, a bug, an agent, a
    /// blocker), or `None` for the project's own. An answer bound to a
    /// file's sha256 (GSD's WAITING.json has no id) is the project's.
    pub fn row(&self) -> Option<&str> {
        self.target
            .as_deref()
            .filter(|t| !(self.verb == "answer" && is_sha256(t)))
    }

    /// What the decision does, in a few words ("answer OQ-3",
    /// "bug BUG-2 → fixed").
    pub fn describe(&self, option: Option<&str>) -> String {
        let target = self.row();
        let head = match (self.verb, option) {
            ("sign-off", Some("abandon")) => shown_verb("abandon").to_owned(),
            (verb, _) => shown_verb(verb).to_owned(),
        };
        let mut s = match target {
            Some(t) => format!("{head} {t}"),
            None => head,
        };
        match (self.verb, option) {
            ("sign-off", _) | (_, None) => {}
            ("bug", Some(o)) => s.push_str(&format!(" → {o}")),
            (_, Some(o)) => s = crate::t!("model.verb.with_option", what = s, option = o),
        }
        s
    }

    /// The verb for `option` (picked from `options`) and the typed
    /// `values` (one per [`Address::fields`], in order); `Err` says what is
    /// missing.
    pub fn build(&self, option: Option<&str>, values: &[String]) -> Result<Verb, String> {
        let fields = self.fields(option);
        for (i, f) in fields.iter().enumerate() {
            let v = values.get(i).map_or("", |v| v.trim());
            if f.required && v.is_empty() {
                return Err(crate::t!("model.build.empty", label = f.label));
            }
            let broken = if f.multiline {
                breaks_text(v)
            } else {
                breaks_one_line(v)
            };
            if broken {
                return Err(if f.multiline {
                    crate::t!("model.build.control", label = f.label)
                } else {
                    crate::t!("model.build.one_line", label = f.label)
                });
            }
        }
        if option.is_none() && self.option_required() {
            return Err(crate::t!("model.build.pick_option").to_owned());
        }
        let text = |i: usize| -> Option<String> {
            values
                .get(i)
                .map(|v| v.trim_end().to_owned())
                .filter(|v| !v.trim().is_empty())
        };
        let line = |i: usize| text(i).map(|v| v.trim().to_owned());
        let target = || self.target.clone().unwrap_or_default();
        let picked = || option.unwrap_or_default().to_owned();
        Ok(match self.verb {
            "answer" => {
                let rationale = option.is_none().then(|| text(1)).flatten();
                Verb::Answer {
                    id: self.target.clone(),
                    text: option.map_or_else(|| text(0).unwrap_or_default(), str::to_owned),
                    key_decision: rationale.is_some(),
                    rationale,
                }
            }
            "evidence" => Verb::Evidence {
                id: target(),
                text: text(0).unwrap_or_default(),
            },
            "choose" => Verb::Choose { option: picked() },
            "add-decision" => Verb::AddDecision {
                text: text(0).unwrap_or_default(),
                rationale: text(1),
                phase: line(2),
            },
            "add-blocker" => Verb::AddBlocker {
                text: text(0).unwrap_or_default(),
            },
            "resolve-blocker" => Verb::ResolveBlocker {
                text: target(),
                all: false,
            },
            "approve" => Verb::Approve,
            "block" => Verb::Block {
                task: target(),
                reason: text(0).unwrap_or_default(),
                needs: text(1),
            },
            "unblock" => Verb::Unblock { task: target() },
            "reopen" => Verb::Reopen {
                task: target(),
                reason: text(0).unwrap_or_default(),
            },
            "reconcile" => Verb::Reconcile,
            // The console's confirm dialog is the confirmation.
            "unlock" => Verb::Unlock { confirm: true },
            "bug" => {
                let (duplicate_of, note, fix_ref) = match option {
                    Some("duplicate") => (line(0), text(1), None),
                    Some("fixed") => (None, text(0), line(1)),
                    _ => (None, text(0), None),
                };
                Verb::Bug {
                    id: target(),
                    status: picked(),
                    note,
                    duplicate_of,
                    fix_ref,
                }
            }
            "resume-agent" => Verb::ResumeAgent {
                agent: target(),
                choice: picked(),
            },
            "sign-off" if option == Some("abandon") => Verb::Abandon,
            "sign-off" => Verb::SignOff,
            "abandon" => Verb::Abandon,
            "requirement" => Verb::Requirement {
                text: text(0).unwrap_or_default(),
            },
            other => return Err(crate::t!("model.build.not_a_decision", verb = other)),
        })
    }
}

/// The text rule for what a human types on one line (`--by`, a name, an
/// id, a GSD decision, blocker or phase), the one GSD's decision texts
/// follow (`formats::gsd::splice::one_line`): no line breaks or control
/// characters. A line or paragraph separator (U+2028, U+2029) is a line
/// break; a bidirectional control reorders what is shown. Text that
/// breaks it would end the line it is written on and start another (a
/// forged `## ` section in `conversation.md`, a forged list item).
pub(super) fn breaks_one_line(text: &str) -> bool {
    text.chars().any(crate::model::text::breaks_line)
}

/// The same rule for a text over several lines (an answer, a reason):
/// line breaks and tabs are its own, any other control character or
/// separator is not.
pub(super) fn breaks_text(text: &str) -> bool {
    text.chars()
        .any(|c| (c.is_control() && !matches!(c, '\n' | '\t')) || crate::model::text::reorders(c))
}

/// `text` trimmed under the one-line rule; `Err`: the refusal, in the
/// words of the decision texts' (`{what} is empty`, `{what} must be one
/// line of text (no line breaks or control characters)`).
pub(super) fn one_line(what: &str, text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err(format!("{what} is empty"));
    }
    if breaks_one_line(t) {
        return Err(format!(
            "{what} must be one line of text (no line breaks or control characters)"
        ));
    }
    Ok(t.to_owned())
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests;
