//! The headless interface of PRODUCT.md: every view is also a command, with
//! `--json` (`"schema_version": 1`) or a plain table.
//!
//! Exit codes: 0 ok, 1 findings or a refused decision, 2 usage (including a
//! root or project directory that does not exist), 3 conflict.

mod json;
mod table;
pub mod views;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use clap::{Args, Parser, Subcommand};

use crate::formats;
use crate::model::text::sanitize_line;
use views::{InboxView, ListView, Resume, Row, SCHEMA_VERSION, ShowView, rfc3339};

pub const EXIT_OK: i32 = 0;
pub const EXIT_FINDINGS: i32 = 1;
pub const EXIT_USAGE: i32 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "loopdeck",
    version,
    about = "A terminal console for the humans who supervise AI-agent software projects"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Project roots for the interactive console (default: the current directory).
    pub roots: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct Global {
    /// Fix "now" (RFC 3339), so ages and resume scenarios are reproducible.
    #[arg(long, global = true, value_parser = parse_now)]
    pub now: Option<DateTime<Utc>>,
    /// Refuse every write.
    #[arg(long, global = true)]
    pub readonly: bool,
    /// Configuration file.
    #[arg(long, global = true)]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Projects under the roots, newest update first.
    List {
        roots: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// One project in full: resume card, frontier, findings.
    Show {
        project_dir: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Every decision waiting for a human, oldest first.
    Inbox {
        roots: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// One line for a shell prompt or tmux (GSD: byte-identical to GSD's statusline).
    Status { dir: Option<PathBuf> },
    /// Every finding of every project; exit 1 when any is an error.
    Check {
        roots: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
}

fn parse_now(s: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| format!("expected an RFC 3339 time such as 2026-06-01T12:00:00Z ({e})"))
}

/// A user mistake: printed on stderr, exit 2.
fn usage(err: &mut dyn Write, msg: &str) -> i32 {
    let _ = writeln!(err, "loopdeck: {}", sanitize_line(msg));
    EXIT_USAGE
}

fn check_roots(roots: &[PathBuf], err: &mut dyn Write) -> Result<Vec<PathBuf>, i32> {
    let roots = if roots.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        roots.to_vec()
    };
    for r in &roots {
        if !r.is_dir() {
            return Err(usage(err, &format!("{} is not a directory", r.display())));
        }
    }
    Ok(roots)
}

fn roots_text(roots: &[PathBuf]) -> Vec<String> {
    roots
        .iter()
        .map(|r| r.to_string_lossy().into_owned())
        .collect()
}

/// Run a headless command, writing to `out` and `err`; returns the exit code.
pub fn run(
    global: &Global,
    command: &Command,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let now = global.now.unwrap_or_else(Utc::now);
    let stamp = global.now.map(|n| rfc3339(Some(n))).unwrap_or(None);
    match command {
        Command::List { roots, json } => {
            let roots = match check_roots(roots, err) {
                Ok(r) => r,
                Err(code) => return Ok(code),
            };
            let projects = formats::discover(&roots);
            let rows: Vec<Row<'_>> = projects.iter().map(|p| Row::new(p, now)).collect();
            if *json {
                json::write(
                    out,
                    &ListView {
                        schema_version: SCHEMA_VERSION,
                        now: stamp,
                        roots: roots_text(&roots),
                        projects: rows,
                    },
                )?;
            } else {
                out.write_all(table::list(&rows).as_bytes())?;
            }
        }
        Command::Inbox { roots, json } => {
            let roots = match check_roots(roots, err) {
                Ok(r) => r,
                Err(code) => return Ok(code),
            };
            let projects = formats::discover(&roots);
            let items = views::inbox_rows(&projects, now);
            if *json {
                json::write(
                    out,
                    &InboxView {
                        schema_version: SCHEMA_VERSION,
                        now: stamp,
                        roots: roots_text(&roots),
                        items,
                    },
                )?;
            } else {
                out.write_all(table::inbox(&items).as_bytes())?;
            }
        }
        Command::Show { project_dir, json } => {
            let Some(p) = load_one(project_dir, err) else {
                return Ok(EXIT_USAGE);
            };
            if *json {
                json::write(out, &ShowView::new(&p, now, stamp))?;
            } else {
                let row = Row::new(&p, now);
                let resume = Resume::new(&p, now);
                out.write_all(table::show(&p, &row, &resume).as_bytes())?;
            }
        }
        Command::Check { roots, json } => {
            let roots = match check_roots(roots, err) {
                Ok(r) => r,
                Err(code) => return Ok(code),
            };
            let projects = formats::discover(&roots);
            let view = views::CheckView::new(&projects, stamp, roots_text(&roots));
            let failed = view.summary.errors > 0;
            if *json {
                json::write(out, &view)?;
            } else {
                out.write_all(table::check(&view).as_bytes())?;
            }
            return Ok(if failed { EXIT_FINDINGS } else { EXIT_OK });
        }
        Command::Status { dir } => {
            let dir = dir.clone().unwrap_or_else(|| PathBuf::from("."));
            let Some(p) = enclosing_project(&dir) else {
                return Ok(usage(
                    err,
                    &format!(
                        "{} is not inside a project loopdeck can read",
                        dir.display()
                    ),
                ));
            };
            writeln!(out, "{}", sanitize_line(&p.statusline))?;
        }
    }
    Ok(EXIT_OK)
}

/// How far `status` climbs from its directory, as GSD's hook does.
const STATUS_CLIMB: usize = 10;

/// The project in `dir` or the nearest directory above it (a prompt runs in
/// any subdirectory), stopping at the home directory.
fn enclosing_project(dir: &Path) -> Option<crate::model::Project> {
    let start = dir.canonicalize().ok()?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    for d in start.ancestors().take(STATUS_CLIMB + 1) {
        let mut found = formats::load_dir(d);
        if !found.is_empty() {
            found.sort_by_key(|p| p.format);
            return Some(found.swap_remove(0));
        }
        if home.as_deref() == Some(d) {
            break;
        }
    }
    None
}

/// The project in exactly `dir`; when a directory holds projects of several
/// formats, the first in format order.
fn load_one(dir: &Path, err: &mut dyn Write) -> Option<crate::model::Project> {
    if !dir.is_dir() {
        usage(err, &format!("{} is not a directory", dir.display()));
        return None;
    }
    let mut found = formats::load_dir(dir);
    found.sort_by_key(|p| p.format);
    if found.is_empty() {
        usage(
            err,
            &format!("{} holds no project loopdeck can read", dir.display()),
        );
        return None;
    }
    Some(found.swap_remove(0))
}
