//! The headless interface (README.md, "Commands"): every view is also a command, with
//! `--json` (`"schema_version": 1`) or a plain table.
//!
//! Exit codes ([`crate::exit`]): 0 ok; 1 findings, a directory or root that
//! cannot be read (a problem of the run, listed on stderr and in the JSON's
//! top-level `problems`), or `status` on a directory that is in no project;
//! 2 usage (command-line roots none of which exists, a project directory
//! that does not exist, a broken config file); 3 conflict. A command-line
//! root that does not exist beside one that does is a problem of the run
//! (exit 1), the others read: one rule for every command, in
//! [`config::roots`].

pub mod act;
mod audit;
mod cached;
mod hosts;
mod json;
mod recover;
mod table;
pub mod views;
mod watch;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::Utc;
use clap::{CommandFactory, Parser, Subcommand};

use crate::config::{self, Config};
use crate::model::text::sanitize_line;
use crate::model::{Problem, Project};
use loopdeck_core::read::{self, Discovery};
use views::{InboxView, ListView, Resume, Row, SCHEMA_VERSION, ShowView, rfc3339};

pub use crate::exit::{EXIT_CONFLICT, EXIT_FINDINGS, EXIT_NO_SNAPSHOT, EXIT_OK, EXIT_USAGE};
pub use crate::options::Global;

#[derive(Debug, Parser)]
#[command(
    name = "loopdeck",
    version,
    about = "A terminal console for the humans who supervise AI-agent software projects",
    subcommand_precedence_over_arg = true,
    override_usage = "loopdeck [OPTIONS] [ROOT]...\n       loopdeck [OPTIONS] <COMMAND>"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Directories to open in the console, searched for projects of every
    /// format (default: the config's roots, else the current directory).
    #[arg(value_name = "ROOT")]
    pub roots: Vec<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Projects under the roots, newest update first.
    #[command(arg(crate::options::readonly_saying(crate::options::WRITES_NO_PROJECT)))]
    List {
        /// Directories searched for projects (default: the config's roots,
        /// else the current directory).
        #[arg(value_name = "ROOT")]
        roots: Vec<PathBuf>,
        /// Print JSON ("schema_version": 1) instead of a table.
        #[arg(long)]
        json: bool,
        /// Only the projects changed since you last looked at them in the
        /// console (each with its `since_you_looked` in JSON).
        #[arg(long)]
        changed: bool,
        /// At once, from the snapshot the console (or `watch`) keeps of
        /// the last reading of these roots: possibly stale (JSON: `cached`
        /// with its `written_at` and `age_seconds`, and each row's
        /// `changed_since`: its main files moved on since). Never reads
        /// the projects nor asks a host; no usable snapshot: exit 5.
        #[arg(long, conflicts_with = "changed")]
        cached: bool,
    },
    /// One project in full: resume card, frontier, findings.
    /// `HOST:DIR` shows a configured host's project (its own loopdeck
    /// reads it, over ssh).
    #[command(arg(crate::options::readonly_saying(crate::options::WRITES_NO_PROJECT)))]
    Show {
        /// The project's directory, or any directory inside it.
        #[arg(value_name = "PROJECT_DIR")]
        project_dir: PathBuf,
        /// Print JSON ("schema_version": 1) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Every decision waiting for a human, oldest first.
    #[command(arg(crate::options::readonly_saying(crate::options::WRITES_NO_PROJECT)))]
    Inbox {
        /// Directories searched for projects (default: the config's roots,
        /// else the current directory).
        #[arg(value_name = "ROOT")]
        roots: Vec<PathBuf>,
        /// Print JSON ("schema_version": 1) instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// One line for a shell prompt or tmux (GSD: byte-identical to GSD's
    /// statusline); exit 1 when the directory is in no project.
    #[command(arg(crate::options::readonly_saying(crate::options::NEVER_WRITES)))]
    Status {
        /// A project's directory or any directory inside it (default: the
        /// current directory).
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Every finding of every project; exit 1 when any is an error.
    #[command(arg(crate::options::readonly_saying(crate::options::NEVER_WRITES)))]
    Check {
        /// Directories searched for projects (default: the config's roots,
        /// else the current directory).
        #[arg(value_name = "ROOT")]
        roots: Vec<PathBuf>,
        /// Print JSON ("schema_version": 1) instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// The projects, then one line per change as it happens (until
    /// SIGTERM/SIGINT or the reader goes away; exit 0).
    #[command(arg(crate::options::readonly_saying(crate::options::WRITES_NO_PROJECT)))]
    Watch {
        /// Directories searched for projects (default: the config's roots,
        /// else the current directory).
        #[arg(value_name = "ROOT")]
        roots: Vec<PathBuf>,
        /// One JSON object per line ("schema_version": 1) instead of text.
        #[arg(long)]
        json: bool,
        /// Whole projects instead of rows, for loopdeck's own hosts (the
        /// model feed: not a stable interface; see `cli::watch`).
        #[arg(long, hide = true, requires = "json")]
        model: bool,
        /// With `--model`: a `heartbeat` line after SECS seconds without a
        /// line.
        #[arg(
            long,
            hide = true,
            value_name = "SECS",
            requires = "model",
            value_parser = clap::value_parser!(u64).range(1..)
        )]
        heartbeat: Option<u64>,
    },
    /// Make a decision: write the human's answer back as a legal transition
    /// (exit 1 refused, 3 changed on disk or locked). `loopdeck act DIR
    /// VERB --help` for each verb.
    Act {
        /// The project's directory (a workspace for `new-project`).
        #[arg(value_name = "PROJECT_DIR")]
        project_dir: PathBuf,
        #[command(subcommand)]
        verb: act::ActVerb,
        #[command(flatten)]
        flags: act::ActFlags,
    },
    /// Put back the bytes a decision replaced (exit 3 when the file has
    /// moved on since). Undo is a stack: run again, it steps further back;
    /// `loopdeck redo` puts back what the last undo took back.
    Undo {
        /// The decision's audit id (an undo's id redoes it). Default:
        /// `--last`.
        #[arg(value_name = "AUDIT_ID", conflicts_with = "last")]
        id: Option<String>,
        /// The newest decision not yet undone of the project DIR (default:
        /// the project the current directory is in, else every project);
        /// it says which project it touched.
        #[arg(long, value_name = "DIR", num_args = 0..=1)]
        last: Option<Option<PathBuf>>,
        #[command(flatten)]
        flags: act::ActFlags,
    },
    /// Put back the decision the newest undo took back (exit 3 when the
    /// file has moved on since).
    Redo {
        /// The project whose newest undo is redone (default: the project
        /// the current directory is in, else every project).
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
        #[command(flatten)]
        flags: act::ActFlags,
    },
    /// Every decision made, newest first: when, by whom, on which project
    /// and item, and whether it is undone (`--json`: one object per line).
    #[command(arg(crate::options::readonly_saying(crate::options::NEVER_WRITES)))]
    Audit {
        /// Only the decisions of the project DIR is in.
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Only decisions made since this time (RFC 3339) or this long ago
        /// (30m, 24h, 7d, 2w).
        #[arg(long, value_name = "WHEN")]
        since: Option<String>,
        /// Only decisions made by this person (`--by` of the decision).
        #[arg(long, value_name = "NAME")]
        by: Option<String>,
        /// One JSON object per line ("schema_version": 1), for export.
        #[arg(long)]
        json: bool,
    },
    /// Make one decision for another machine's console (run over ssh): a
    /// JSON call on stdin, a JSON answer on stdout, exit codes as `act`.
    #[command(hide = true)]
    Call,
    /// Settle every decision that was interrupted (killed, a full disk, an
    /// audit record that failed): one that had written every file is
    /// recorded, any other is rolled back. Exit 4 when one cannot be.
    Recover {
        /// Print JSON ("schema_version": 1).
        #[arg(long)]
        json: bool,
    },
}

/// A user mistake: printed on stderr, exit 2.
fn usage(err: &mut dyn Write, msg: &str) -> i32 {
    let _ = writeln!(err, "loopdeck: {}", sanitize_line(msg));
    EXIT_USAGE
}

fn roots_text(roots: &[PathBuf]) -> Vec<String> {
    roots
        .iter()
        .map(|r| r.to_string_lossy().into_owned())
        .collect()
}

/// The problems of a run, on stderr; the exit code they call for.
fn report(problems: &[Problem], err: &mut dyn Write) -> i32 {
    for p in problems {
        let _ = writeln!(err, "loopdeck: {}", sanitize_line(&p.to_string()));
    }
    if problems.is_empty() {
        EXIT_OK
    } else {
        EXIT_FINDINGS
    }
}

/// The subcommand `word` was probably meant as, when it is close to one
/// (`lsit` → `list`): at most two edits, or one for a short word.
pub fn suggest_command(word: &str) -> Option<String> {
    let word = word.to_lowercase();
    Cli::command()
        .get_subcommands()
        // A hidden command (`call`, for another machine's console) is
        // never suggested.
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name().to_owned())
        .filter(|name| name != "help")
        .map(|name| (edit_distance(&word, &name), name))
        .filter(|(d, name)| *d > 0 && *d <= if name.len() <= 4 { 1 } else { 2 })
        .min()
        .map(|(_, name)| name)
}

/// Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// Run a headless command, writing to `out` and `err`; returns the exit code.
pub fn run(
    global: &Global,
    command: &Command,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    config::speak(None);
    let config = match config::load(global.config.as_deref()) {
        Ok(c) => c,
        Err(e) => return Ok(usage(err, &e.to_string())),
    };
    config::speak(Some(&config));
    let now = global.now.unwrap_or_else(Utc::now);
    let stamp = global.now.map(|n| rfc3339(Some(n))).unwrap_or(None);
    // The `[[escalate]]` rules, what a server-only decision needs, and
    // how long each format's work may be silent (`[stall]`).
    let policy = views::Policy::new(&config);
    let rules = &policy.rules;
    let limits = policy.stall;
    // `list`, `inbox`, `check`: the hosts are asked first (each over its
    // own ssh, in a thread) and the local roots read meanwhile.
    let fleet = |roots: &[PathBuf], command: &'static str, changed: bool, err: &mut dyn Write| {
        let hosts = config::hosts(global, &config).map_err(|e| usage(err, &e))?;
        let local =
            config::local_roots(roots, &config, &hosts).map_err(|e| usage(err, &e.to_string()))?;
        let flags = hosts::Flags {
            now: global.now.and_then(|n| rfc3339(Some(n))),
            readonly: global.readonly || config.readonly,
            changed,
        };
        let asked = hosts::ask(&hosts, command, &flags);
        let found = if local.is_empty() {
            Discovery::default()
        } else {
            read::discover(&local)
        };
        Ok::<_, i32>((local, found, hosts, asked))
    };
    match command {
        Command::Act {
            project_dir,
            verb,
            flags,
        } => {
            return act::run_act(
                project_dir,
                verb,
                flags,
                &config,
                global.readonly,
                now,
                out,
                err,
            );
        }
        Command::Undo { id, last, flags } => {
            use loopdeck_core::decide::audit::Which;
            let which = match (id, last) {
                (Some(id), _) => Which::Id(id.clone()),
                (None, last) => match act::scope(last.clone().flatten().as_deref()) {
                    Ok(scope) => Which::Last(scope),
                    Err(msg) => return Ok(usage(err, &msg)),
                },
            };
            return act::run_undo(which, flags, &config, global.readonly, global.now, out, err);
        }
        Command::Redo { dir, flags } => {
            let which = match act::scope(dir.as_deref()) {
                Ok(scope) => loopdeck_core::decide::audit::Which::Redo(scope),
                Err(msg) => return Ok(usage(err, &msg)),
            };
            return act::run_undo(which, flags, &config, global.readonly, global.now, out, err);
        }
        Command::Audit {
            dir,
            since,
            by,
            json,
        } => {
            let project = match dir {
                None => None,
                Some(d) => match act::scope(Some(d)) {
                    Ok(p) => p,
                    Err(msg) => return Ok(usage(err, &msg)),
                },
            };
            let since = match since.as_deref().map(|s| audit::since(s, now)) {
                None => None,
                Some(Ok(t)) => Some(t),
                Some(Err(msg)) => return Ok(usage(err, &msg)),
            };
            let filter = audit::Filter {
                project,
                since,
                by: by.clone(),
            };
            return audit::run(&filter, now, *json, out, err);
        }
        Command::Call => {
            return act::run_call(
                &mut io::stdin().lock(),
                &config,
                global.readonly,
                global.now,
                out,
            );
        }
        Command::Recover { json } => {
            return recover::run(global.readonly || config.readonly, *json, out, err);
        }
        Command::Watch {
            roots,
            json,
            model,
            heartbeat,
        } => {
            let model = model.then(|| watch::Model {
                heartbeat: heartbeat.map(std::time::Duration::from_secs),
            });
            return watch::run(global, &config, roots, *json, model, out, err);
        }
        Command::List {
            roots,
            json,
            changed: _,
            cached: true,
        } => {
            let hosts = match config::hosts(global, &config) {
                Ok(h) => h,
                Err(e) => return Ok(usage(err, &e)),
            };
            let local = match config::local_roots(roots, &config, &hosts) {
                Ok(l) => l,
                Err(e) => return Ok(usage(err, &e.to_string())),
            };
            return cached::list(&local, *json, now, stamp, &policy, out, err);
        }
        Command::List {
            roots,
            json,
            changed,
            cached: false,
        } => {
            let (roots, mut found, hosts, asked) = match fleet(roots, "list", *changed, err) {
                Ok(r) => r,
                Err(code) => return Ok(code),
            };
            // A rule's `waited` needs every item's waiting time, as the
            // inbox has it (items the files give no time wait from when
            // first seen).
            if !rules.is_empty() {
                let readonly = global.readonly || config.readonly;
                first_seen(&mut found.projects, now, readonly, err);
            }
            let rows: Vec<Row<'_>> = if *changed {
                let memory = seen_memory(&found.projects, err);
                found
                    .projects
                    .iter()
                    .filter(|p| memory.changed(p))
                    .map(|p| Row {
                        since_you_looked: memory.since(p),
                        ..Row::at(p, now, &policy)
                    })
                    .collect()
            } else {
                found
                    .projects
                    .iter()
                    .map(|p| Row::at(p, now, &policy))
                    .collect()
            };
            if !hosts.is_empty() {
                let problems = hosts::write_list(
                    out,
                    *json,
                    stamp,
                    roots_text(&roots),
                    &found.problems,
                    rows,
                    &asked.wait(),
                )?;
                return Ok(report(&problems, err));
            }
            if *json {
                json::write(
                    out,
                    &ListView {
                        schema_version: SCHEMA_VERSION,
                        now: stamp,
                        roots: roots_text(&roots),
                        cached: None,
                        problems: &found.problems,
                        projects: rows,
                    },
                )?;
            } else {
                out.write_all(table::list(&rows).as_bytes())?;
            }
            return Ok(report(&found.problems, err));
        }
        Command::Inbox { roots, json } => {
            let (roots, mut found, hosts, asked) = match fleet(roots, "inbox", false, err) {
                Ok(r) => r,
                Err(code) => return Ok(code),
            };
            let readonly = global.readonly || config.readonly;
            let first = first_seen(&mut found.projects, now, readonly, err);
            let items = views::inbox_rows(&found.projects, now, Some(&first), &policy);
            let answered = views::answered_rows(&found.projects, now);
            if !hosts.is_empty() {
                let problems = hosts::write_inbox(
                    out,
                    *json,
                    stamp,
                    roots_text(&roots),
                    &found.problems,
                    items,
                    answered,
                    &asked.wait(),
                )?;
                return Ok(report(&problems, err));
            }
            if *json {
                json::write(
                    out,
                    &InboxView {
                        schema_version: SCHEMA_VERSION,
                        now: stamp,
                        roots: roots_text(&roots),
                        problems: &found.problems,
                        items,
                        answered,
                    },
                )?;
            } else {
                out.write_all(table::inbox(&items, &answered).as_bytes())?;
            }
            return Ok(report(&found.problems, err));
        }
        Command::Show { project_dir, json } => {
            // `HOST:DIR`, HOST a configured host and no such local path:
            // that host's project, shown by its own loopdeck.
            if let Some((host, dir)) = remote_project(project_dir, global, &config) {
                let now = global.now.and_then(|n| rfc3339(Some(n)));
                return Ok(match hosts::show(&host, &dir, *json, now.as_deref()) {
                    Ok((text, code)) => {
                        out.write_all(text.as_bytes())?;
                        code
                    }
                    Err(why) => {
                        let _ = writeln!(
                            err,
                            "loopdeck: {}",
                            sanitize_line(&format!("host {}: {why}", host.name))
                        );
                        EXIT_FINDINGS
                    }
                });
            }
            let mut p = match project_for_show(project_dir, &config) {
                Ok(p) => p,
                Err((code, msg)) => {
                    let _ = writeln!(err, "loopdeck: {}", sanitize_line(&msg));
                    return Ok(code);
                }
            };
            read::complete(&mut p);
            let readonly = global.readonly || config.readonly;
            first_seen(std::slice::from_mut(&mut p), now, readonly, err);
            if *json {
                let memory = seen_memory(std::slice::from_ref(&p), err);
                let view = ShowView {
                    since_you_looked: memory.since(&p),
                    ..ShowView::new(&p, now, stamp, &limits)
                };
                json::write(out, &view)?;
            } else {
                let row = Row::new(&p, now, &limits);
                let resume = Resume::new(&p, now);
                out.write_all(table::show(&p, &row, &resume, now, &limits).as_bytes())?;
            }
        }
        Command::Check { roots, json } => {
            let (roots, mut found, hosts, asked) = match fleet(roots, "check", false, err) {
                Ok(r) => r,
                Err(code) => return Ok(code),
            };
            for p in &mut found.projects {
                read::complete(p);
                read::check(p);
            }
            let view =
                views::CheckView::new(&found.projects, &found.problems, stamp, roots_text(&roots));
            if !hosts.is_empty() {
                let (problems, failed) = hosts::write_check(out, *json, view, &asked.wait())?;
                let code = report(&problems, err);
                return Ok(if failed { EXIT_FINDINGS } else { code });
            }
            let failed = view.summary.errors > 0;
            if *json {
                json::write(out, &view)?;
            } else {
                out.write_all(table::check(&view).as_bytes())?;
            }
            let code = report(&found.problems, err);
            return Ok(if failed { EXIT_FINDINGS } else { code });
        }
        Command::Status { dir } => {
            let dir = dir.clone().unwrap_or_else(|| PathBuf::from("."));
            if let Err(e) = config::roots(std::slice::from_ref(&dir), &Config::default()) {
                return Ok(usage(err, &e.to_string()));
            }
            match enclosing_project(&dir, Pick::Newest) {
                Ok(p) => writeln!(out, "{}", sanitize_line(&p.statusline))?,
                Err(problems) => {
                    report(&problems, err);
                    let _ = writeln!(
                        err,
                        "loopdeck: {} is not in a project loopdeck can read",
                        sanitize_line(&dir.to_string_lossy())
                    );
                    return Ok(EXIT_FINDINGS);
                }
            }
        }
    }
    Ok(EXIT_OK)
}

/// The local roots of `list`, `inbox`, `check`: as [`config::roots`]
/// says, except that with hosts and no root given or configured, none (the
/// hosts alone are read, not `.`).
/// How far `status` climbs from its directory, as GSD's hook does.
const STATUS_CLIMB: usize = 10;

/// Which project answers for a directory that holds several (a repository
/// with several DWP plans).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pick {
    /// The most recently updated: the one a prompt most likely means.
    Newest,
    /// None: the caller asks the user to choose.
    Refuse,
}

/// The project that answers for `dir`: one whose directory is `dir`; else,
/// in `dir`, the only project there (or, with [`Pick::Newest`], the newest);
/// else the nearest project above `dir` that *contains* it (a prompt runs in
/// any subdirectory, as GSD's hook climbs out of `.planning`), stopping at
/// the home directory. A sibling (another plan of the same repository) never
/// answers for `dir`. `Err` holds the problems met on the way (unreadable
/// directories); with `Pick::Refuse` and several projects in `dir`, it is
/// empty and the caller lists them.
fn enclosing_project(dir: &Path, pick: Pick) -> Result<Project, Vec<Problem>> {
    let Ok(start) = dir.canonicalize() else {
        return Err(Vec::new());
    };
    let home = std::env::var_os("HOME").and_then(|h| PathBuf::from(h).canonicalize().ok());
    let mut problems = Vec::new();
    for (level, d) in start.ancestors().take(STATUS_CLIMB + 1).enumerate() {
        // `status` of a devloop project reads only what its line needs.
        if pick == Pick::Newest
            && let Some(p) = read::light_status(d)
            && (level == 0 || start.starts_with(&p.path))
        {
            return Ok(with_useful_id(p));
        }
        let found = read::load_dir(d);
        problems.extend(found.problems);
        let mut here: Vec<(PathBuf, Project)> = found
            .projects
            .into_iter()
            .map(|p| (p.path.canonicalize().unwrap_or_else(|_| p.path.clone()), p))
            .collect();
        here.sort_by_key(|(_, p)| p.format);
        // A project in exactly this directory (first in format order).
        if let Some(i) = here.iter().position(|(path, _)| path == d) {
            return Ok(with_useful_id(here.swap_remove(i).1));
        }
        if level == 0 {
            if here.len() == 1 || (pick == Pick::Newest && !here.is_empty()) {
                let mut ps: Vec<Project> = here.into_iter().map(|(_, p)| p).collect();
                crate::model::sort_newest_first(&mut ps);
                return Ok(with_useful_id(ps.swap_remove(0)));
            }
            if !here.is_empty() {
                return Err(Vec::new());
            }
        } else if let Some(i) = here.iter().position(|(path, _)| start.starts_with(path)) {
            return Ok(with_useful_id(here.swap_remove(i).1));
        }
        if home.as_deref() == Some(d) {
            break;
        }
    }
    Err(problems)
}

/// `show` names its project by its directory, not `.` (the id `list` gives
/// a root that is itself a project); `path` says where it is.
fn with_useful_id(mut p: Project) -> Project {
    if p.id == "." {
        p.id = read::file_name(&p.path);
    }
    p
}

/// What the console remembers the user saw, compared with `projects`
/// (read only: a headless command is not looking). An unreadable memory
/// is said on `err` and is empty.
/// When each waiting item of `projects` was first seen, filled into the
/// items whose files say no time (see `model::first_seen`), and saved
/// (unless read-only) when a reading showed something new or something
/// left. A memory that cannot be read or saved is said once on `err`.
pub(crate) fn first_seen(
    projects: &mut [crate::model::Project],
    now: chrono::DateTime<Utc>,
    readonly: bool,
    err: &mut dyn Write,
) -> crate::model::first_seen::FirstSeen {
    let dir = loopdeck_core::memory::state_dir();
    let (mut memory, warning) = dir
        .as_deref()
        .map(loopdeck_core::memory::first_seen::load)
        .unwrap_or_default();
    let mut say = |w: &str| {
        let _ = writeln!(
            err,
            "loopdeck: {}",
            crate::t!("cli.error.warning", message = sanitize_line(w))
        );
    };
    if let Some(w) = &warning {
        say(w);
    }
    let changed = memory.fill(projects, now);
    if changed
        && !readonly
        && warning.is_none()
        && let Some(dir) = dir
        && let Err(e) = loopdeck_core::memory::first_seen::save(&dir, &mut memory)
    {
        say(&e.to_string());
    }
    memory
}

fn seen_memory(
    projects: &[crate::model::Project],
    err: &mut dyn Write,
) -> crate::model::seen::Memory {
    let (saved, warning) = loopdeck_core::memory::state_dir()
        .as_deref()
        .map(loopdeck_core::memory::seen::load)
        .unwrap_or_default();
    if let Some(w) = warning {
        let _ = writeln!(
            err,
            "loopdeck: {}",
            crate::t!("cli.error.warning", message = sanitize_line(&w))
        );
    }
    let mut memory =
        crate::model::seen::Memory::new(std::env::current_dir().unwrap_or_default(), saved);
    memory.refresh(projects, true);
    memory
}

/// `HOST:DIR` names host HOST's project at DIR when HOST is a configured
/// host and no such path exists here.
fn remote_project(
    arg: &Path,
    global: &Global,
    config: &Config,
) -> Option<(loopdeck_core::fleet::HostSpec, String)> {
    if arg.exists() {
        return None;
    }
    let text = arg.to_str()?;
    let (name, dir) = text.split_once(':')?;
    let hosts = config::hosts(global, config).ok()?;
    let host = hosts.into_iter().find(|h| &*h.name == name)?;
    (!dir.is_empty()).then(|| (host, dir.to_owned()))
}

/// The project `show` is about (its id as `list` gives it, see
/// [`id_as_listed`]), or the exit code and message.
fn project_for_show(dir: &Path, config: &Config) -> Result<Project, (i32, String)> {
    config::roots(std::slice::from_ref(&dir.to_path_buf()), config)
        .map_err(|e| (EXIT_USAGE, e.to_string()))?;
    match enclosing_project(dir, Pick::Refuse) {
        Ok(mut p) => {
            if let Some(id) = id_as_listed(&p.path, config) {
                p.id = id;
            }
            Ok(p)
        }
        Err(problems) if !problems.is_empty() => Err((
            EXIT_FINDINGS,
            problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\nloopdeck: "),
        )),
        Err(_) => {
            let Discovery { projects, .. } = read::discover(&[dir.to_path_buf()]);
            let shown = dir.display();
            Err((
                EXIT_USAGE,
                match projects.len() {
                    0 => crate::t!("cli.show.no_project", dir = shown),
                    n => crate::t!("cli.show.several", dir = shown, n = n, id = projects[0].id),
                },
            ))
        }
    }
}

/// The id `list` gives the project at `path` when run as a user runs it,
/// without roots: its path under the first of the config's roots that
/// holds it (a root listed first wins, as `list` keeps the first root's
/// row), else under the current directory (where `list` looks without
/// configured roots). Paths are compared resolved, so a root or a
/// directory spelt through a link still matches. `None` when neither holds
/// it, or when the project is that root itself (`list` calls it `.`;
/// `show` keeps naming it by its directory): the id stays as read.
fn id_as_listed(path: &Path, config: &Config) -> Option<String> {
    let path = path.canonicalize().ok()?;
    let cwd = std::env::current_dir().ok();
    config
        .roots
        .iter()
        .cloned()
        .chain(cwd)
        .filter_map(|root| root.canonicalize().ok())
        .find_map(|root| path.strip_prefix(&root).ok().map(Path::to_path_buf))
        .filter(|rel| !rel.as_os_str().is_empty())
        .map(|rel| rel.to_string_lossy().into_owned())
}
