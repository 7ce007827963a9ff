//! `loopdeck act PROJECT_DIR VERB ...` and `loopdeck undo`: the decisions,
//! headless. The verbs parse into [`crate::model::Verb`]; the project's
//! format makes the decision (`formats::act`), the store writes it.
//! `loopdeck call` (hidden) is the same two for another machine's console:
//! one JSON call on stdin, one JSON answer on stdout
//! (`loopdeck_core::decide::remote`).

use std::io::{self, Read, Write};
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use clap::{Args, Subcommand};
use serde::Serialize;

use crate::config::Config;

use crate::model::text::{sanitize_line, sanitize_text};
use crate::model::{Project, Request, Verb};
use loopdeck_core::decide::audit;
use loopdeck_core::decide::remote::{self, Answer, Call, Op};
use loopdeck_core::decide::{ActError, FileChange, Outcome, Refusal, WriteOptions};

use super::views::{SCHEMA_VERSION, rfc3339};
use super::{EXIT_OK, Pick, enclosing_project, json};

/// The flags every verb takes.
#[derive(Debug, Clone, Default, Args)]
pub struct ActFlags {
    /// Act only if the file the decision edits (state.json, STATE.md,
    /// project.json, bugs.ndjson…) still has this sha256 (exit 3 if not).
    #[arg(
        long = "expect-sha256",
        alias = "expected-sha256",
        value_name = "HEX",
        global = true
    )]
    pub expect_sha256: Option<String>,
    /// Who decides (default: the login name).
    #[arg(long, value_name = "NAME", global = true)]
    pub by: Option<String>,
    /// Print the unified diff of every file it would change; change nothing.
    #[arg(long, global = true)]
    pub dry_run: bool,
    /// Print JSON ("schema_version": 1): the decision, each file's sha256
    /// before and after, the audit id.
    #[arg(long, global = true)]
    pub json: bool,
}

/// The decisions, by format.
#[derive(Debug, Clone, Subcommand)]
pub enum ActVerb {
    /// PRD-master: answer question OQ-ID (refused while its dependencies are
    /// open). GSD: answer the question waiting in WAITING.json.
    #[command(after_help = loopdeck_core::decide::ANSWER_FORMS)]
    Answer {
        /// `OQ-ID TEXT` (PRD-master) or `[SHA256] TEXT|N|LETTER` (GSD): see
        /// below.
        #[arg(
            value_name = "[OQ-ID|SHA256] TEXT",
            num_args = 1..=2,
            required = true
        )]
        args: Vec<String>,
        /// Also record the answer as a key decision `D-n`.
        #[arg(long)]
        key_decision: bool,
        /// Why (with --key-decision).
        #[arg(long, value_name = "TEXT")]
        rationale: Option<String>,
    },
    /// PRD-master: supply evidence for a fact node owned by a human role.
    Evidence {
        /// The question whose fact node the evidence is for (`OQ-7`).
        #[arg(value_name = "OQ-ID")]
        id: String,
        /// The evidence, as the human gives it.
        text: String,
    },
    /// PRD-master: choose one of next_action.askuserquestion_options.
    Choose {
        /// The option's text, or its number (1 for the first).
        #[arg(value_name = "OPTION")]
        option: String,
    },
    /// PRD-master: start a new project in a workspace directory (Step 3b).
    NewProject {
        /// The project's name: its directory in the workspace.
        name: String,
        /// feature or bugfix.
        #[arg(long, value_name = "feature|bugfix")]
        work_type: String,
        /// standard, quick or tech-constrained.
        #[arg(long, value_name = "standard|quick|tech-constrained")]
        mode: Option<String>,
    },
    /// GSD: add `- [Phase N]: summary — rationale` under Decisions.
    AddDecision {
        /// The decision, one line.
        text: String,
        /// The phase it belongs to, a phase number (3, 3.1, 01-02);
        /// default: the current phase when it reads as one, else `?`.
        #[arg(long, value_name = "N")]
        phase: Option<String>,
        /// Why, one line (written after ` — `).
        #[arg(long, value_name = "TEXT")]
        rationale: Option<String>,
    },
    /// GSD: add a blocker.
    AddBlocker {
        /// The blocker, one line.
        text: String,
    },
    /// GSD: resolve the blocker holding TEXT (refused when several do,
    /// naming them, unless --all).
    ResolveBlocker {
        /// Text of the blocker to resolve (a part of it is enough when only
        /// that blocker holds it).
        text: String,
        /// Resolve every blocker holding TEXT.
        #[arg(long)]
        all: bool,
    },
    /// DWP: approve the plan.
    Approve,
    /// DWP: block TASK with a reason (and what it needs).
    Block {
        /// The task's number in the plan (1 for the first).
        task: String,
        /// Why it is blocked.
        #[arg(long, value_name = "TEXT")]
        reason: String,
        /// What would unblock it (a person, a decision, an input).
        #[arg(long, value_name = "TEXT")]
        needs: Option<String>,
    },
    /// DWP: resolve TASK's blocker (only the current task's); back to in_progress.
    Unblock {
        /// The blocked task's number in the plan.
        task: String,
    },
    /// DWP: reopen TASK with a reason.
    Reopen {
        /// The completed task's number in the plan.
        task: String,
        /// Why it must be done again (recorded with the reopen).
        #[arg(long, value_name = "TEXT")]
        reason: String,
    },
    /// DWP: take task state from the README's Markdown, noted in PROGRESS.md.
    Reconcile,
    /// DWP: remove a stale state lock (needs --confirm).
    Unlock {
        /// Remove it (without: say what holds it, remove nothing).
        #[arg(long)]
        confirm: bool,
    },
    /// devloop: move bug BUG-ID to STATUS by the seed's lifecycle.
    Bug {
        /// The bug's id (`BUG-12`).
        #[arg(value_name = "BUG-ID")]
        id: String,
        /// The status to move it to, by the seed's lifecycle: open,
        /// fixing, fixed, verified, wontfix or duplicate.
        status: String,
        /// A note recorded with the move.
        #[arg(long, value_name = "TEXT")]
        note: Option<String>,
        /// The bug this one duplicates (with `duplicate`).
        #[arg(long, value_name = "BUG-ID")]
        duplicate_of: Option<String>,
        /// The fix's reference, a commit or pull request (added to the
        /// bug's fix_refs).
        #[arg(long, value_name = "REF")]
        fix_ref: Option<String>,
    },
    /// devloop: resume or restart a paused agent.
    ResumeAgent {
        /// The agent's name (its file in the project's agent state).
        agent: String,
        /// `resume` where it stopped, or `restart` its step.
        #[arg(value_parser = ["resume", "restart"])]
        choice: String,
    },
    /// devloop: sign off a shipped project (shipped → shipped-final).
    SignOff,
    /// devloop: abandon the project.
    Abandon,
    /// devloop: a new requirement (needs `[devloop] api` in the config).
    Requirement {
        /// The requirement, as the human gives it.
        text: String,
    },
}

impl ActVerb {
    /// The model's verb, or a usage message.
    fn verb(&self) -> Result<Verb, String> {
        Ok(match self.clone() {
            ActVerb::Answer {
                mut args,
                key_decision,
                rationale,
            } => {
                if rationale.is_some() && !key_decision {
                    return Err(crate::t!("cli.act.rationale").to_owned());
                }
                let text = args.pop().unwrap_or_default();
                Verb::Answer {
                    id: args.pop(),
                    text,
                    key_decision,
                    rationale,
                }
            }
            ActVerb::Evidence { id, text } => Verb::Evidence { id, text },
            ActVerb::Choose { option } => Verb::Choose { option },
            ActVerb::NewProject {
                name,
                work_type,
                mode,
            } => Verb::NewProject {
                name,
                work_type,
                mode,
            },
            ActVerb::AddDecision {
                text,
                phase,
                rationale,
            } => Verb::AddDecision {
                text,
                phase,
                rationale,
            },
            ActVerb::AddBlocker { text } => Verb::AddBlocker { text },
            ActVerb::ResolveBlocker { text, all } => Verb::ResolveBlocker { text, all },
            ActVerb::Approve => Verb::Approve,
            ActVerb::Block {
                task,
                reason,
                needs,
            } => Verb::Block {
                task,
                reason,
                needs,
            },
            ActVerb::Unblock { task } => Verb::Unblock { task },
            ActVerb::Reopen { task, reason } => Verb::Reopen { task, reason },
            ActVerb::Reconcile => Verb::Reconcile,
            ActVerb::Unlock { confirm } => Verb::Unlock { confirm },
            ActVerb::Bug {
                id,
                status,
                note,
                duplicate_of,
                fix_ref,
            } => Verb::Bug {
                id,
                status,
                note,
                duplicate_of,
                fix_ref,
            },
            ActVerb::ResumeAgent { agent, choice } => Verb::ResumeAgent { agent, choice },
            ActVerb::SignOff => Verb::SignOff,
            ActVerb::Abandon => Verb::Abandon,
            ActVerb::Requirement { text } => Verb::Requirement { text },
        })
    }
}

/// `--json`'s answer.
#[derive(Serialize)]
struct ActView<'a> {
    schema_version: u32,
    decision: &'a Verb,
    by: &'a str,
    at: Option<String>,
    project: String,
    #[serde(flatten)]
    outcome: &'a Outcome,
}

#[derive(Serialize)]
struct UndoView<'a> {
    schema_version: u32,
    undone: String,
    #[serde(flatten)]
    outcome: &'a Outcome,
}

/// The options every write takes from the flags, the config and the globals.
fn write_options(flags: &ActFlags, config: &Config, readonly: bool) -> WriteOptions {
    WriteOptions {
        expect_sha256: flags
            .expect_sha256
            .as_ref()
            .map(|h| h.trim().to_ascii_lowercase()),
        dry_run: flags.dry_run,
        readonly: readonly || config.readonly,
        audit_dir: audit::default_dir(),
        ..WriteOptions::default()
    }
}

/// `loopdeck act`.
#[allow(clippy::too_many_arguments)]
pub fn run_act(
    project_dir: &std::path::Path,
    verb: &ActVerb,
    flags: &ActFlags,
    config: &Config,
    readonly: bool,
    now: DateTime<Utc>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let verb = match verb.verb() {
        Ok(v) => v,
        Err(msg) => return Ok(super::usage(err, &msg)),
    };
    if !project_dir.is_dir() {
        return Ok(super::usage(
            err,
            &crate::t!("cli.act.not_a_dir", dir = project_dir.display()),
        ));
    }
    // Who decides is written into the files (conversation.md, STATE.md,
    // the audit log): the one-line rule of every typed text, refused in
    // the same words.
    let by = match Request::decider(
        &flags
            .by
            .clone()
            .unwrap_or_else(loopdeck_core::who::login_name),
    ) {
        Ok(by) => by,
        Err(msg) => return Ok(refused(err, &ActError::Refused(Refusal::new(msg)))),
    };
    let req = Request {
        verb,
        by,
        now,
        devloop_api: config.devloop.api.clone(),
        config_file: crate::config::shown_path(config),
    };
    let opts = write_options(flags, config, readonly);
    let (result, shown) = if matches!(req.verb, Verb::NewProject { .. }) {
        (
            loopdeck_core::decide::act_on_workspace(project_dir, &req, &opts),
            project_dir.to_path_buf(),
        )
    } else {
        match enclosing_project(project_dir, Pick::Refuse) {
            Ok(p) => (loopdeck_core::decide::act(&p, &req, &opts), p.path.clone()),
            Err(problems) => {
                for p in &problems {
                    let _ = writeln!(err, "loopdeck: {}", sanitize_line(&p.to_string()));
                }
                return Ok(super::usage(
                    err,
                    &crate::t!("cli.act.not_a_project", dir = project_dir.display()),
                ));
            }
        }
    };
    match result {
        Ok(outcome) => {
            if flags.json {
                json::write(
                    out,
                    &ActView {
                        schema_version: SCHEMA_VERSION,
                        decision: &req.verb,
                        by: &req.by,
                        at: rfc3339(Some(req.now)),
                        project: absolute(&shown),
                        outcome: &outcome,
                    },
                )?;
            } else {
                write_outcome(out, req.verb.name(), &outcome)?;
                say_undo(
                    out,
                    req.verb.name(),
                    req.verb.appends_its_record(),
                    &outcome,
                )?;
            }
            Ok(EXIT_OK)
        }
        Err(e) => Ok(refused(err, &e)),
    }
}

/// The project an `undo --last` or `redo` is about: the one `dir` is in
/// (given: it must be in one), else the one the current directory is in,
/// else none (every project).
pub fn scope(dir: Option<&std::path::Path>) -> Result<Option<PathBuf>, String> {
    let here = std::path::Path::new(".");
    match enclosing_project(dir.unwrap_or(here), Pick::Refuse) {
        Ok(p) => Ok(Some(p.path.canonicalize().unwrap_or(p.path))),
        Err(_) if dir.is_none() => Ok(None),
        Err(_) => Err(format!(
            "{} is not in one project loopdeck can read (a directory holding several names none of them): give the project's own directory",
            sanitize_line(&dir.unwrap_or(here).to_string_lossy())
        )),
    }
}

/// `loopdeck undo`.
pub fn run_undo(
    which: audit::Which,
    flags: &ActFlags,
    config: &Config,
    readonly: bool,
    now: Option<DateTime<Utc>>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let mut opts = write_options(flags, config, readonly);
    let by = match Request::decider(
        &flags
            .by
            .clone()
            .unwrap_or_else(loopdeck_core::who::login_name),
    ) {
        Ok(by) => by,
        Err(msg) => return Ok(refused(err, &ActError::Refused(Refusal::new(msg)))),
    };
    opts.by = Some(by);
    opts.now = now;
    let Some(dir) = opts.audit_dir.clone() else {
        return Ok(super::usage(err, crate::t!("cli.act.no_state_dir")));
    };
    // A decision interrupted part way is settled first: `undo --last`
    // then finds it (recorded) or finds it gone (rolled back).
    if !opts.readonly {
        match loopdeck_core::decide::intent::recover(&dir, None, opts.wait) {
            Ok(settled) => {
                for s in settled {
                    writeln!(err, "loopdeck: {}", sanitize_line(&s.message()))?;
                }
            }
            Err(e) => return Ok(refused(err, &e)),
        }
    }
    let verb = if matches!(which, audit::Which::Redo(_)) {
        "redo"
    } else {
        "undo"
    };
    match audit::undo_found(&dir, &which, &opts) {
        Ok((rec, outcome)) => {
            let undone = rec.id;
            if flags.json {
                json::write(
                    out,
                    &UndoView {
                        schema_version: SCHEMA_VERSION,
                        undone,
                        outcome: &outcome,
                    },
                )?;
            } else {
                write_outcome(out, verb, &outcome)?;
                // An undo is itself a decision in the log: it can be undone.
                say_undo(out, verb, false, &outcome)?;
            }
            Ok(EXIT_OK)
        }
        Err(e) => Ok(refused(err, &e)),
    }
}

/// `loopdeck call`: one decision another machine's console asks for over
/// ssh, a [`Call`] read whole from `input` (at most
/// [`remote::MAX_CALL`] bytes), decided by the code `act` and `undo`
/// run, its [`Answer`] written on `out` as one line of JSON. Exit codes
/// as theirs; a call that does not read is a usage mistake (2), answered
/// too.
pub fn run_call(
    input: &mut dyn Read,
    config: &Config,
    readonly: bool,
    now: Option<DateTime<Utc>>,
    out: &mut dyn Write,
) -> io::Result<i32> {
    let (answer, code) = call(input, config, readonly, now);
    writeln!(out, "{}", answer.to_json())?;
    Ok(code)
}

/// The answer to the call on `input`, and the exit code.
fn call(
    input: &mut dyn Read,
    config: &Config,
    readonly: bool,
    now: Option<DateTime<Utc>>,
) -> (Answer, i32) {
    let usage = |message: String| (Answer::refused(message), crate::exit::EXIT_USAGE);
    let mut bytes = Vec::new();
    if let Err(e) = input
        .take(remote::MAX_CALL as u64 + 1)
        .read_to_end(&mut bytes)
    {
        return usage(format!("cannot read the call: {e}"));
    }
    let call = match Call::from_json(&bytes) {
        Ok(c) => c,
        Err(e) => return usage(e.to_string()),
    };
    let decided = |result: Result<Outcome, ActError>| {
        let code = result
            .as_ref()
            .map_or_else(crate::exit::of_decision, |_| EXIT_OK);
        (remote::answer_of(result), code)
    };
    // Who decides is written into the files: the rule `--by` follows.
    let by = match Request::decider(&call.by) {
        Ok(by) => by,
        Err(msg) => return decided(Err(ActError::Refused(Refusal::new(msg)))),
    };
    let now = call.now.or(now);
    let flags = ActFlags {
        dry_run: call.dry_run,
        ..ActFlags::default()
    };
    let mut opts = write_options(&flags, config, readonly);
    match call.op {
        Op::Act {
            path,
            format,
            verb,
            expect,
        } => {
            let dir = PathBuf::from(path);
            if !dir.is_dir() {
                return usage(crate::t!("cli.act.not_a_dir", dir = dir.display()));
            }
            let req = Request {
                verb,
                by,
                now: now.unwrap_or_else(Utc::now),
                devloop_api: config.devloop.api.clone(),
                config_file: crate::config::shown_path(config),
            };
            opts.expect_files = expect;
            decided(if matches!(req.verb, Verb::NewProject { .. }) {
                loopdeck_core::decide::act_on_workspace(&dir, &req, &opts)
            } else {
                let project = Project::new(format, dir, String::new());
                loopdeck_core::decide::act(&project, &req, &opts)
            })
        }
        Op::Undo { id } => {
            opts.by = Some(by);
            opts.now = now;
            let Some(dir) = opts.audit_dir.clone() else {
                return usage(crate::t!("cli.act.no_state_dir").to_owned());
            };
            // As `undo`: a decision interrupted part way is settled first.
            let mut recovered = Vec::new();
            if !opts.readonly {
                match loopdeck_core::decide::intent::recover(&dir, None, opts.wait) {
                    Ok(settled) => recovered.extend(settled.iter().map(|s| s.message())),
                    Err(e) => return decided(Err(e)),
                }
            }
            let (mut answer, code) = decided(
                audit::undo_found(&dir, &audit::Which::Id(id), &opts).map(|(_, outcome)| outcome),
            );
            if let Answer::Done { recovered: r, .. } = &mut answer {
                recovered.append(r);
                *r = recovered;
            }
            (answer, code)
        }
    }
}

fn refused(err: &mut dyn Write, e: &ActError) -> i32 {
    let _ = writeln!(err, "loopdeck: {}", sanitize_text(&e.to_string()));
    crate::exit::of_decision(e)
}

fn absolute(p: &std::path::Path) -> String {
    std::path::absolute(p)
        .unwrap_or_else(|_| PathBuf::from(p))
        .to_string_lossy()
        .into_owned()
}

/// The plain report: the diff under `--dry-run`, else one line per file.
fn write_outcome(out: &mut dyn Write, verb: &str, o: &Outcome) -> io::Result<()> {
    for r in o.recovered.iter().chain(&o.said) {
        writeln!(out, "{}", sanitize_line(r))?;
    }
    if o.dry_run {
        for f in &o.files {
            out.write_all(sanitize_text(&f.diff).as_bytes())?;
        }
        writeln!(
            out,
            "{}",
            crate::t!("cli.act.dry_run", verb = verb, n = o.files.len())
        )?;
        return Ok(());
    }
    for f in &o.files {
        let short = |s: &Option<loopdeck_core::decide::Stamp>| {
            s.as_ref().map_or_else(
                || crate::t!("cli.act.none").to_owned(),
                |s| s.sha256.chars().take(12).collect(),
            )
        };
        writeln!(
            out,
            "{}  {} → {}",
            sanitize_line(&f.file),
            short(&f.before),
            short(&f.after)
        )?;
    }
    Ok(())
}

/// The last line of a write: done, and what `loopdeck undo` does for it
/// (`store::audit::undo`): it puts back the files it replaced; it never
/// rewrites an append-only log, so a line appended beside them stays, and
/// a decision that is itself such a line (`appended`) is refused.
fn say_undo(out: &mut dyn Write, name: &str, appended: bool, o: &Outcome) -> io::Result<()> {
    if o.dry_run {
        return Ok(());
    }
    let Some(id) = &o.audit_id else {
        return writeln!(out, "{}", crate::t!("cli.act.done", verb = name));
    };
    let (logs, replaced): (Vec<&FileChange>, Vec<&FileChange>) =
        o.files.iter().partition(|f| f.appended);
    let (logs, replaced): (Vec<&str>, Vec<&str>) = (
        logs.iter().map(|f| f.file.as_str()).collect(),
        replaced.iter().map(|f| f.file.as_str()).collect(),
    );
    // The log an appended decision's record went to: the file it is
    // recorded against (the timeline's event beside it is appended too).
    let record_log = o.primary.as_str();
    let line = if appended {
        let file = sanitize_line(record_log);
        crate::t!("cli.act.done_final", verb = name, id = id, file = file)
    } else if logs.is_empty() {
        crate::t!("cli.act.done_audit", verb = name, id = id)
    } else {
        crate::t!(
            "cli.act.done_audit_kept",
            verb = name,
            id = id,
            files = sanitize_line(&replaced.join(", ")),
            logs = sanitize_line(&logs.join(", "))
        )
    };
    writeln!(out, "{line}")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use clap::CommandFactory;

    /// Every argument and option of every `act` verb, and of `undo` and
    /// `redo`, says in `--help` what it is (`reopen --help` showed `<TASK>`
    /// and `--reason` with no words).
    #[test]
    fn every_act_verb_describes_every_argument() {
        let cli = super::super::Cli::command();
        let act = cli.find_subcommand("act").unwrap();
        let mut commands: Vec<(String, &clap::Command)> = act
            .get_subcommands()
            .map(|c| (format!("act {}", c.get_name()), c))
            .collect();
        for name in ["undo", "redo"] {
            commands.push((name.to_owned(), cli.find_subcommand(name).unwrap()));
        }
        assert!(commands.len() > 18, "{}", commands.len());
        let mut silent = Vec::new();
        for (name, c) in &commands {
            if c.get_about().is_none() {
                silent.push(name.clone());
            }
            for a in c.get_arguments() {
                if a.get_id() == "help" {
                    continue;
                }
                if a.get_help().is_none_or(|h| h.to_string().trim().is_empty()) {
                    silent.push(format!("{name} {}", a.get_id()));
                }
            }
        }
        assert!(silent.is_empty(), "no help words: {silent:?}");
    }
}
