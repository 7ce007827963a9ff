//! devloop: `data/companies/{cid}/projects/{pid}/` (seeds 003 and 004).
//!
//! A project is a directory holding a `project.json` whose object has
//! `company_id` and `status`. Around it: `units.json` (the units DAG),
//! `prd.html` or `prd/`, `sdd.html` (unit contracts, whose hashes the units
//! carry), unit and integration runs, `agent-state/`, and three NDJSON logs
//! (`timeline.ndjson`, `bugs.ndjson`, `changelog.ndjson`) that are read
//! from their end. Its last update is the later of `project.updated_at` and
//! the last timeline event.
//!
//! Resolved ambiguities (see also the example workspace's README):
//! - A contract's hash is `sha256:` + the first 16 hex digits of the sha256
//!   of its `<pre data-contract>` text. The text is read as a browser reads
//!   it (one newline after `<pre>` dropped, tags removed, entities decoded);
//!   a hash of that text trimmed, or of the raw bytes, also matches.
//! - Duplicate unit ids: every entry is listed; the graph merges their
//!   dependencies; progress counts the id once, by its first entry.
//! - The L2 gate (seed `l2GateOpen`) also stays closed for an empty or
//!   broken graph (no units, a cycle, an unknown dependency, a duplicate).
//! - A resume token lives 24 h from the paused state's `updated_at`
//!   (`Agent::resume_expires_at`). Every view judges it at its own "now"
//!   with `Project::options_at` / `Agent::resume_expired`; the reader
//!   itself only knows it expired when the files show the project moved on
//!   past the expiry (a later event), and then offers only a restart.
//! - A `project.json` that cannot be read (a dangling link, a directory, no
//!   permission, not JSON) is still a project, shown with its problem, when
//!   other devloop files sit beside it or it sits where the seed puts
//!   projects (`companies/{cid}/projects/{pid}`); so is a project directory
//!   that cannot be listed there (see [`unlisted`]).

pub(crate) mod act;
pub(crate) mod activity;
pub(crate) mod agents;
testing_pub!(
    pub mod bugfold;
);
pub(crate) mod bugs;
pub(crate) mod dag;
testing_pub!(
    pub mod html;
);
pub(crate) mod older;
pub(crate) mod progress;
pub(crate) mod revisions;
pub(crate) mod runs;
pub(crate) mod schema;
testing_pub!(
    pub mod timeline;
);

mod docs;
mod inbox;
pub(crate) mod kinds;
pub(crate) mod lifecycle;
mod meta;
mod status;
mod units;

#[cfg(test)]
use docs::contract_hash;
use docs::{PrdInfo, contracts, prd, sdd};
#[cfg(test)]
use inbox::rfc3339;
use inbox::{Budget, inbox, resume};
use meta::{ParsedMeta, parse_meta};
use units::units;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::{file_name, read_text};
use crate::model::{
    Agent, Dag, Finding, Format, InboxItem, InboxKind, L1Status, L2Status, L3Status, Level, Loops,
    Project, Run, Unit,
};
use crate::store::{self, StoreError, WalkEntry};
use schema::{ProjectMeta, UnitsFile};

pub(crate) const PROJECT_FILE: &str = "project.json";
/// The bug log (seed 003 BugsNdjson), one JSON line per bug state.
pub(crate) const BUGS: &str = "bugs.ndjson";
pub(crate) const UNITS_FILE: &str = "units.json";
const PRD_FILE: &str = "prd.html";
const PRD_DIR: &str = "prd";
const PRD_INDEX: &str = "prd/index.html";
const SDD_FILE: &str = "sdd.html";
/// PRD-site pages read for revisions and conflicts, at most.
const PRD_PAGES: usize = 64;
/// The seed's default token budget.
const DEFAULT_TOKEN_BUDGET: f64 = 5_000_000.0;
/// Archived SDD revisions searched for a stale contract hash, newest first.
const HISTORY_SEARCH: usize = 10;

const PROJECT_STATUSES: &[&str] = &[
    "prd_drafting",
    "running",
    "blocked",
    "shipped",
    "shipped-final",
    "abandoned",
];
const UNIT_STATUSES: &[&str] = &[
    "pending", "coding", "testing", "failed", "passed", "blocked",
];

/// Sub-directories of a devloop project that never hold another project;
/// the walk does not enter them once the project is found.
pub(crate) const OWN_DIRS: &[&str] = &[
    "units",
    "runs",
    "integration",
    "history",
    "agent-state",
    "memory",
    "prd",
];

/// The devloop project in the directory `entry` describes, if it holds a
/// `project.json` with `company_id` and `status` (or a `project.json` that
/// cannot be read where a devloop project is expected).
pub(crate) fn discover(entry: &WalkEntry<'_>) -> Option<Project> {
    let named = |names: &[String]| names.iter().any(|f| f == PROJECT_FILE);
    if !(named(entry.files) || named(entry.dirs)) {
        // A project directory asked for directly (`show`, `status`) that
        // cannot be listed: shown with its problem, as `unlisted` does in
        // a walk.
        if entry.files.is_empty() && entry.dirs.is_empty() && in_projects_dir(entry.path) {
            let err = std::fs::read_dir(entry.path).err()?;
            return Some(unlisted_project(
                entry.path,
                "the project directory cannot be listed",
                err,
            ));
        }
        return None;
    }
    load(entry.path)
}

fn unlisted_project(path: &Path, what: &str, err: std::io::Error) -> Project {
    let mut p = unreadable(path, String::new());
    p.problems.clear();
    p.problem(".", format!("{what}: {}", StoreError::from(err)));
    p
}

/// What `project.json` gave: its fields, or a project shown with the
/// reason it cannot be read.
#[allow(clippy::large_enum_variant)] // one per project read, never stored
enum Meta {
    Read(ProjectMeta, Vec<String>),
    Unreadable(Project),
}

fn open_meta(dir: &Path) -> Option<Meta> {
    let unreadable_here =
        |reason: String| recognised(dir).then(|| Meta::Unreadable(unreadable(dir, reason)));
    // Inside a cached reading, a project.json that did not change is not
    // parsed again.
    let parsed = match store::cache::memo_in(dir, PROJECT_FILE, store::STATE_FILE_LIMIT, |b| {
        parse_meta(&b)
    }) {
        Ok(parsed) => parsed,
        Err(StoreError::Vanished) => {
            // A link to nothing is still a project.json someone wrote.
            let link = std::fs::symlink_metadata(dir.join(PROJECT_FILE))
                .is_ok_and(|m| m.file_type().is_symlink());
            return if link {
                unreadable_here("a symlink to a file that does not exist".to_owned())
            } else {
                None
            };
        }
        Err(StoreError::NotRegular) if store::is_dir(&dir.join(PROJECT_FILE)) => {
            return unreadable_here("is a directory, not a file".to_owned());
        }
        Err(e) => return unreadable_here(e.to_string()),
    };
    match parsed {
        ParsedMeta::Read(meta, problems) => Some(Meta::Read(meta, problems)),
        ParsedMeta::NotOurs => None,
        ParsedMeta::Bad(reason) => unreadable_here(reason),
    }
}

fn strip_bom(b: &[u8]) -> &[u8] {
    b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b)
}

testing_pub!(
    /// Read the devloop project at `dir`; `None` when `dir` holds none.
    pub fn load(dir: &Path) -> Option<Project> {
        Some(match open_meta(dir)? {
            Meta::Read(meta, problems) => read(dir, meta, problems),
            Meta::Unreadable(p) => p,
        })
    }
);

testing_pub!(
    /// The light read behind `loopdeck status`: only what the statusline
    /// (`name · L1 4/6 units · 63%`) needs, equal to [`load`]'s statusline. No
    /// logs, agents, runs or findings are read, and the units are counted from
    /// a borrowed pass over `units.json`, never built.
    pub fn read_status(dir: &Path) -> Option<Project> {
        Some(match open_meta(dir)? {
            Meta::Read(meta, problems) => match status::read(dir, &meta) {
                Some(p) => p,
                // A units.json the light pass cannot read: the full reader
                // decides (it keeps what it can of every unit).
                None => read(dir, meta, problems),
            },
            Meta::Unreadable(p) => p,
        })
    }
);

/// Is `dir` a devloop project even though its `project.json` cannot be
/// read? Yes beside other devloop files, or where the seed puts projects
/// (`companies/{cid}/projects/{pid}`).
fn recognised(dir: &Path) -> bool {
    has_devloop_files(dir) || in_projects_dir(dir)
}

/// `…/companies/{cid}/projects/{pid}`.
pub(crate) fn in_projects_dir(dir: &Path) -> bool {
    let mut up = dir.ancestors().skip(1).map(|a| a.file_name());
    matches!(
        (up.next(), up.next(), up.next()),
        (Some(Some(p)), Some(Some(_)), Some(Some(c))) if p == "projects" && c == "companies"
    )
}

/// The directories under `companies/{cid}/projects/` (and `projects/`
/// itself) that cannot be listed: each is shown as a devloop project with
/// its problem, never dropped. The walk meets them as sub-directories of
/// the directory above and cannot enter them.
pub(crate) fn unlisted(entry: &WalkEntry<'_>) -> Vec<Project> {
    let name = entry.path.file_name().and_then(|n| n.to_str());
    let parent = entry
        .path
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str());
    let candidates: Vec<&String> = match (name, parent) {
        // `companies/{cid}/projects/`: each project directory.
        (Some("projects"), _) if in_company(entry.path) => entry.dirs.iter().collect(),
        // `companies/{cid}/`: its `projects/`.
        (_, Some("companies")) => entry.dirs.iter().filter(|d| *d == "projects").collect(),
        _ => Vec::new(),
    };
    candidates
        .into_iter()
        .filter_map(|d| {
            let path = entry.path.join(d);
            let err = std::fs::read_dir(&path).err()?;
            let what = if d == "projects" {
                "the projects directory cannot be listed, so its projects cannot be read"
            } else {
                "the project directory cannot be listed"
            };
            Some(unlisted_project(&path, what, err))
        })
        .collect()
}

/// `…/companies/{cid}/projects`.
fn in_company(projects: &Path) -> bool {
    projects
        .parent()
        .and_then(|p| p.parent())
        .and_then(|p| p.file_name())
        .is_some_and(|n| n == "companies")
}

/// A `project.json` that cannot be read beside other devloop files is still
/// a devloop project, shown with its problem.
fn has_devloop_files(dir: &Path) -> bool {
    [UNITS_FILE, timeline::TIMELINE, BUGS]
        .iter()
        .any(|f| store::contained_file(dir, f).is_some())
}

pub(crate) fn unreadable(dir: &Path, reason: String) -> Project {
    let mut p = Project::new(Format::Devloop, dir.to_path_buf(), file_name(dir));
    p.problem(PROJECT_FILE, reason);
    p.status = "unreadable".to_owned();
    p.status_kind = kinds::project(&p.status);
    p.updated_at = store::mtime(&dir.join(PROJECT_FILE));
    p.statusline = format!("{} · unreadable", p.name);
    p
}

/// Read a JSON object file inside the project; a missing file is `None`
/// without a problem, anything else unreadable is a problem.
pub(crate) fn read_json<T>(p: &mut Project, dir: &Path, rel: &str) -> Option<T>
where
    T: serde::de::DeserializeOwned + Default + Clone + Send + Sync + 'static,
{
    // Inside a cached reading, a file that did not change is not parsed
    // again.
    match store::cache::memo_in(dir, rel, store::STATE_FILE_LIMIT, |bytes| {
        schema::parse_file::<T>(&bytes)
    }) {
        Ok(parsed) => match parsed {
            Ok((t, problems)) => {
                for problem in problems {
                    p.problem(rel, problem);
                }
                Some(t)
            }
            Err(reason) => {
                p.problem(rel, reason);
                None
            }
        },
        Err(StoreError::Vanished) => None,
        Err(e) => {
            p.problem(rel, e.to_string());
            None
        }
    }
}

/// `p-restock · L1 4/6 units · 63%` (`· 0%` without units).
/// The computed progress written into the project's stage, percent and
/// statusline: one rule for the full and the light (`status`) reads.
fn apply_progress(
    p: &mut Project,
    short: &str,
    progress: &crate::model::Progress,
    passed: usize,
    total: usize,
) {
    p.stage = Some(crate::model::Phrase::quoted(progress.phase.clone()));
    p.progress_percent = Some(progress.percent.round().clamp(0.0, 100.0) as u8);
    p.statusline = statusline(short, &progress.phase, passed, total, p.progress_percent);
}

fn statusline(short: &str, phase: &str, passed: usize, total: usize, pct: Option<u8>) -> String {
    let pct = pct.unwrap_or(0);
    if total > 0 {
        format!("{short} · {phase} {passed}/{total} units · {pct}%")
    } else {
        format!("{short} · {phase} · {pct}%")
    }
}

/// The name and the short name (for the statusline) of a project.
fn names(meta: &ProjectMeta, dir: &Path) -> (String, String) {
    let dir_name = file_name(dir);
    let pid = meta.id.clone().map(|t| t.0).filter(nonempty);
    let name = meta
        .name
        .clone()
        .filter(nonempty)
        .or_else(|| meta.title.clone().filter(nonempty))
        .or_else(|| pid.clone())
        .unwrap_or_else(|| dir_name.clone());
    (name, pid.unwrap_or(dir_name))
}

fn nonempty(s: &impl AsRef<str>) -> bool {
    !s.as_ref().trim().is_empty()
}

fn read(dir: &Path, meta: ProjectMeta, meta_problems: Vec<String>) -> Project {
    let (name, short) = names(&meta, dir);
    let pid = meta.id.clone().map(|t| t.0).filter(nonempty);
    let mut p = Project::new(Format::Devloop, dir.to_path_buf(), name);
    for problem in meta_problems {
        p.problem(PROJECT_FILE, problem);
    }
    p.status = meta
        .status
        .clone()
        .filter(nonempty)
        .unwrap_or_else(|| "unknown".to_owned());
    p.status_kind = kinds::project(&p.status);
    if !PROJECT_STATUSES.contains(&p.status.as_str()) {
        p.findings.push(
            Finding::new(
                Level::Warning,
                "devloop.unknown-status",
                format!(
                    "project status `{}` is not one of {}",
                    p.status,
                    PROJECT_STATUSES.join(", ")
                ),
            )
            .at(PROJECT_FILE),
        );
    }
    let meta_updated = meta.updated_at.as_ref().and_then(|t| t.at());
    if let (Some(raw), None) = (&meta.updated_at, meta_updated) {
        p.findings.push(
            Finding::new(
                Level::Warning,
                "devloop.bad-timestamp",
                format!("updated_at `{}` is not a time", raw.text()),
            )
            .at(PROJECT_FILE),
        );
    }

    // The logs first: their events date the inbox items.
    let last_event = timeline::read(&mut p, dir);
    p.updated_at = match (meta_updated, last_event) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b).or_else(|| store::mtime(&dir.join(PROJECT_FILE))),
    };
    let changes = timeline::changelog(&mut p, dir);
    bugs::read(&mut p, dir);

    let units_file = read_json::<UnitsFile>(&mut p, dir, UNITS_FILE);
    let units_missing = units_file.is_none();
    let units = units(&mut p, dir, units_file, pid.as_deref());
    if units_missing
        && store::contained_file(dir, UNITS_FILE).is_none()
        && p.status != "prd_drafting"
    {
        p.findings.push(
            Finding::new(
                Level::Info,
                "devloop.units-missing",
                format!("no units.json although the project is {}", p.status),
            )
            .at(UNITS_FILE),
        );
    }
    let prd = prd(&mut p, dir);
    let sdd = sdd(&mut p, dir, prd.rev);
    contracts(&mut p, dir, sdd.as_ref(), &changes);

    let (integration_runs, unsure) = runs::integration_and_triage(&mut p, dir);
    p.detail.integration_runs = integration_runs;
    let agents = agents::read(&mut p, dir);
    p.detail.agents = agents.iter().map(|(_, a)| a.clone()).collect();

    // The L2 gate and progress, over distinct unit ids (first entry wins).
    let mut seen = HashSet::new();
    let distinct: Vec<&Unit> = p
        .detail
        .units
        .iter()
        .filter(|u| seen.insert(u.id.as_str()))
        .collect();
    let total = distinct.len();
    let passed = distinct.iter().filter(|u| u.status == "passed").count();
    let all_current = distinct.iter().all(|u| u.contract_ok() == Some(true));
    let sane = units.cycles.is_empty() && units.unknown_refs.is_empty() && units.duplicates == 0;
    let gate_open = total > 0 && passed == total && all_current && sane;
    let l2_passed = p.detail.integration_runs.first().is_some_and(|r| r.ok);
    let facts = progress::Facts {
        status: &p.status,
        prd: prd.present,
        sdd: sdd.as_ref().is_some_and(|s| !s.units.is_empty()) || total > 0,
        passed,
        total,
        gate_open,
        l2_passed,
    };
    let progress = progress::compute(&facts);
    apply_progress(&mut p, &short, &progress, passed, total);
    p.detail.dag = Some(Dag {
        cycles: units.cycles,
        unknown_refs: units.unknown_refs,
        l2_gate_open: gate_open,
        layers: units.layer_count,
    });
    let budget = Budget {
        used: meta.token_used.filter(|v| v.is_finite()).unwrap_or(0.0),
        limit: meta
            .token_budget
            .filter(|v| v.is_finite() && *v > 0.0)
            .unwrap_or(DEFAULT_TOKEN_BUDGET),
    };
    let l2_spent = Some(units.l2)
        .filter(|(rounds, budget)| *budget > 0 && rounds >= budget)
        .filter(|_| !l2_passed && !progress::is_shipped(&p.status) && p.status != "abandoned");
    let waiting = inbox::Waiting {
        l2_spent,
        stuck: &units.stuck,
        unsure: unsure.as_ref(),
    };
    inbox(&mut p, &prd, &budget, &waiting, &agents);
    project_acts(&mut p, !prd.conflicts.is_empty());
    activity::fill(&mut p, &meta);
    let mut loops = inbox::loops(&p, &prd, &changes, &waiting, units.l2);
    // Whole tokens (a file may write a fraction, or more than u64 holds).
    let whole = |v: f64| v.max(0.0).min(u64::MAX as f64) as u64;
    loops.tokens = Some(crate::model::Tokens::new(
        whole(budget.used),
        whole(budget.limit),
    ));
    p.detail.loops = Some(loops);
    resume(&mut p, dir, &prd, &progress.phase, passed, total);
    p.detail.progress = Some(progress);
    p
}

/// The decisions on the project itself, as `act` takes them without a
/// server (seed 004's REST.signOff/abandon): sign-off (or abandon, its
/// other option) once shipped, as the inbox item offers; abandon on any
/// project not finished (shipped-final, abandoned); a requirement always
/// (it needs the devloop server, and `act` says so when none is
/// configured). `status` is `project.json`'s own word, as `act` reads it.
/// While a PRD conflict pauses the project (`conflict`), a shipped project
/// is not signed off: only abandoned.
fn project_acts(p: &mut Project, conflict: bool) {
    let status = p.status.as_str();
    if status == "shipped" && !conflict {
        p.acts.push(crate::model::Address::new(
            "sign-off",
            None,
            vec!["sign-off".to_owned(), "abandon".to_owned()],
        ));
    } else if !act::FINISHED.contains(&status) {
        p.acts
            .push(crate::model::Address::new("abandon", None, Vec::new()));
    }
    p.acts
        .push(crate::model::Address::new("requirement", None, Vec::new()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, Option<Project>) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("p-demo");
        fs::create_dir_all(&dir).unwrap();
        for (name, text) in files {
            let path = dir.join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        let p = load(&dir);
        (tmp, p)
    }

    const META: &str = r#"{"id":"p-demo","company_id":"acme","status":"running","updated_at":"2026-06-01T10:00:00Z","token_budget":100,"token_used":10}"#;

    #[test]
    fn found_by_company_id_and_status_and_named_sensibly() {
        assert!(
            project(&[(PROJECT_FILE, r#"{"name":"web app","version":"1.0.0"}"#)])
                .1
                .is_none()
        );
        assert!(project(&[(PROJECT_FILE, "not json")]).1.is_none());
        assert!(
            project(&[(PROJECT_FILE, r#"{"company_id":"acme"}"#)])
                .1
                .is_none()
        );
        let (_t, p) = project(&[(PROJECT_FILE, r#"{"company_id":"acme","status":"running"}"#)]);
        assert_eq!(p.unwrap().name, "p-demo", "the directory's name");
        let (_t, p) = project(&[(
            PROJECT_FILE,
            r#"{"id":"p-1","title":"T","company_id":"acme","status":"running"}"#,
        )]);
        assert_eq!(p.unwrap().name, "T");
        let (_t, p) = project(&[(
            PROJECT_FILE,
            r#"{"id":"p-1","company_id":"acme","status":"running"}"#,
        )]);
        let p = p.unwrap();
        assert_eq!(p.name, "p-1");
        assert!(p.statusline.starts_with("p-1 · "), "{}", p.statusline);
        // Corrupt, but beside devloop files: still a project, with a problem.
        let (_t, p) = project(&[(PROJECT_FILE, "{\"company_id\":"), (UNITS_FILE, "{}")]);
        let p = p.unwrap();
        assert_eq!(p.status, "unreadable");
        assert_eq!(p.problems[0].file, PROJECT_FILE);
    }

    #[test]
    fn the_last_update_is_the_later_of_project_and_timeline() {
        let (_t, p) = project(&[
            (PROJECT_FILE, META),
            (
                timeline::TIMELINE,
                "{\"ts\":1780300800,\"source\":\"system\",\"kind\":\"k\",\"summary\":\"s\"}\n",
            ),
        ]);
        // 1780300800 is 2026-06-01T08:00:00Z: project.json is later.
        let p = p.unwrap();
        assert_eq!(
            p.updated_at.map(rfc3339).as_deref(),
            Some("2026-06-01T10:00:00Z")
        );
        let (_t, p) = project(&[
            (PROJECT_FILE, META),
            (
                timeline::TIMELINE,
                "{\"ts\":\"2026-06-01T11:00:00Z\",\"source\":\"system\",\"kind\":\"k\"}\n",
            ),
        ]);
        assert_eq!(
            p.unwrap().updated_at.map(rfc3339).as_deref(),
            Some("2026-06-01T11:00:00Z")
        );
    }

    #[test]
    fn a_fresh_resume_token_offers_resume_and_restart() {
        let (_t, p) = project(&[
            (PROJECT_FILE, META),
            (
                "agent-state/tester.json",
                r#"{"agent":"tester","status":"paused","call_id":"c","current_step":1,"total_steps":3,"resume_token":"rt","updated_at":"2026-06-01T09:00:00Z"}"#,
            ),
        ]);
        let p = p.unwrap();
        assert_eq!(p.inbox.len(), 1);
        let item = &p.inbox[0];
        assert_eq!(item.kind, InboxKind::Resume);
        assert_eq!(item.reference, "agent-state/tester.json");
        assert_eq!(item.options, vec!["resume", "restart"]);
        assert!(item.title.en().contains("2/3"), "{:?}", item.title);
        assert!(
            item.title.en().contains("2026-06-02T09:00:00Z"),
            "{:?}",
            item.title
        );
        assert!(
            !p.findings
                .iter()
                .any(|f| f.code == "devloop.resume-token-expired")
        );
    }

    type Offer = (&'static str, Option<String>, Vec<String>);

    fn acts(p: &Project) -> Vec<Offer> {
        p.acts
            .iter()
            .map(|a| (a.verb, a.target.clone(), a.options.clone()))
            .collect()
    }

    const PAUSED: &str = r#"{"agent":"tester","status":"paused","resume_token":"rt","updated_at":"2026-06-01T09:00:00Z"}"#;

    #[test]
    fn an_agent_row_offers_what_the_act_takes() {
        let row = |agent: &str, options: &[&'static str]| {
            (
                "resume-agent",
                Some(agent.to_owned()),
                options.iter().map(|o| (*o).to_owned()).collect::<Vec<_>>(),
            )
        };
        let rows = |p: &Project| -> Vec<Offer> {
            acts(p)
                .into_iter()
                .filter(|a| a.0 == "resume-agent")
                .collect()
        };
        // Paused with a fresh token: resume or restart, as the inbox item.
        let (_t, p) = project(&[(PROJECT_FILE, META), ("agent-state/tester.json", PAUSED)]);
        let p = p.unwrap();
        assert_eq!(rows(&p), vec![row("tester", &["resume", "restart"])]);
        assert_eq!(p.inbox[0].act.as_ref(), p.acts.first());
        // The project moved on past the token's expiry: only restart.
        let later = META.replace("2026-06-01T10:00:00Z", "2026-06-03T10:00:00Z");
        let (_t, p) = project(&[(PROJECT_FILE, &later), ("agent-state/tester.json", PAUSED)]);
        assert_eq!(rows(&p.unwrap()), vec![row("tester", &["restart"])]);
        // A restart already decided for this pause: the act refuses it
        // again; resume is left.
        let decided = PAUSED.replace(
            "\"updated_at\"",
            r#""resume_decision":{"choice":"restart","by":"yibo","at":"2026-06-01T09:30:00Z"},"updated_at""#,
        );
        let (_t, p) = project(&[(PROJECT_FILE, META), ("agent-state/tester.json", &decided)]);
        let p = p.unwrap();
        assert_eq!(rows(&p), vec![row("tester", &["resume"])]);
        // The pause is answered: it waits for the server, not for the
        // human, so it is not in the inbox but shown apart, with when and
        // by whom, and what can still change it.
        assert!(p.inbox.is_empty(), "{:?}", p.inbox);
        let a = &p.answered[0];
        assert_eq!(
            (
                a.answer.as_str(),
                a.by.as_deref(),
                a.at.map(|t| t.to_rfc3339())
            ),
            (
                "restart",
                Some("yibo"),
                Some("2026-06-01T09:30:00+00:00".to_owned())
            )
        );
        assert_eq!(
            a.act.as_ref().map(|x| x.options.clone()),
            Some(vec!["resume".to_owned()])
        );
        // ... and once expired, nothing is left to decide.
        let (_t, p) = project(&[
            (PROJECT_FILE, &later),
            ("agent-state/tester.json", &decided),
        ]);
        let p = p.unwrap();
        assert!(rows(&p).is_empty() && p.inbox.is_empty() && p.answered[0].act.is_none());
        // A running agent offers nothing.
        let running = PAUSED.replace("paused", "running");
        let (_t, p) = project(&[(PROJECT_FILE, META), ("agent-state/tester.json", &running)]);
        assert!(rows(&p.unwrap()).is_empty());
        // An agent whose state names it otherwise than its file: the row
        // (named `Agent.agent`) offers nothing the act would not find; the
        // inbox item, on the file's name, still does.
        let (_t, p) = project(&[(PROJECT_FILE, META), ("agent-state/qa.json", PAUSED)]);
        let p = p.unwrap();
        assert!(rows(&p).is_empty());
        let act = p.inbox[0].act.as_ref().unwrap();
        assert_eq!(act.target.as_deref(), Some("qa"));
    }

    #[test]
    fn the_project_offers_sign_off_abandon_and_a_requirement_by_its_status() {
        let with = |status: &str| {
            let (_t, p) = project(&[(PROJECT_FILE, &META.replace("running", status))]);
            acts(&p.unwrap())
        };
        let plain = |v: &'static str| (v, None, Vec::<String>::new());
        assert_eq!(
            with("running"),
            vec![plain("abandon"), plain("requirement")]
        );
        assert_eq!(
            with("blocked"),
            vec![plain("abandon"), plain("requirement")]
        );
        assert_eq!(
            with("shipped"),
            vec![
                (
                    "sign-off",
                    None,
                    vec!["sign-off".to_owned(), "abandon".to_owned()]
                ),
                plain("requirement")
            ]
        );
        assert_eq!(with("shipped-final"), vec![plain("requirement")]);
        assert_eq!(with("abandoned"), vec![plain("requirement")]);
        // A PRD conflict pauses the project (seed 003): a shipped project
        // is then not offered a sign-off, nor a paused agent a resume.
        let conflict = r#"<article data-doc="prd"><aside data-conflict>x</aside></article>"#;
        let (_t, p) = project(&[
            (PROJECT_FILE, &META.replace("running", "shipped")),
            (PRD_FILE, conflict),
            ("agent-state/tester.json", PAUSED),
        ]);
        let p = p.unwrap();
        assert_eq!(acts(&p), vec![plain("abandon"), plain("requirement")]);
        let resume = p
            .inbox
            .iter()
            .find(|i| i.kind == InboxKind::Resume)
            .unwrap();
        assert!(resume.act.is_none(), "{resume:?}");
    }

    /// A conflict aside's entities show decoded in the inbox (`&mdash;`
    /// used to stay raw).
    #[test]
    fn a_conflict_shows_its_entities_decoded() {
        let conflict = r#"<article data-doc="prd"><aside data-conflict>rev 2 &mdash; rev 3 &#8212; 请确认</aside></article>"#;
        let (_t, p) = project(&[(PROJECT_FILE, META), (PRD_FILE, conflict)]);
        let p = p.unwrap();
        let item = p
            .inbox
            .iter()
            .find(|i| i.kind == InboxKind::Conflict)
            .unwrap();
        let title = item.title.en();
        assert!(title.contains("rev 2 — rev 3 — 请确认"), "{title}");
        assert!(!title.contains('&'), "{title}");
    }

    #[test]
    fn a_lone_bug_is_not_offered_as_a_duplicate() {
        let bug = |id: &str| {
            format!(
                "{{\"id\":\"{id}\",\"status\":\"open\",\"title\":\"t\",\"severity\":\"P2\",\"created_at\":\"2026-06-01T09:00:00Z\"}}\n"
            )
        };
        let options = |p: &Project| -> Vec<Vec<String>> {
            p.detail
                .bugs
                .iter()
                .map(|b| {
                    b.act
                        .as_ref()
                        .map(|a| a.options.clone())
                        .unwrap_or_default()
                })
                .collect()
        };
        let (_t, p) = project(&[(PROJECT_FILE, META), ("bugs.ndjson", &bug("B-1"))]);
        assert_eq!(options(&p.unwrap()), vec![vec!["fixing", "wontfix"]]);
        let two = format!("{}{}", bug("B-1"), bug("B-2"));
        let (_t, p) = project(&[(PROJECT_FILE, META), ("bugs.ndjson", &two)]);
        let p = p.unwrap();
        assert!(
            options(&p)
                .iter()
                .all(|o| o.contains(&"duplicate".to_owned()))
        );
        assert_eq!(options(&p).len(), 2);
    }

    #[test]
    fn blocked_and_l2_budget_spent_wait_for_a_human() {
        let units = r#"{"project_id":"p-demo","units":[{"id":"a-be","type":"be","status":"passed","depends_on":[],"contract_hash":"sha256:0000000000000000"}],"l2_rounds":3,"l2_budget":3}"#;
        let (_t, p) = project(&[
            (PROJECT_FILE, &META.replace("running", "blocked")),
            (UNITS_FILE, units),
        ]);
        let p = p.unwrap();
        let kinds: Vec<InboxKind> = p.inbox.iter().map(|i| i.kind).collect();
        assert_eq!(kinds, vec![InboxKind::Blocked, InboxKind::Blocked]);
        assert_eq!(p.inbox[0].title, "project blocked: no reason recorded");
        assert_eq!(p.inbox[1].reference, UNITS_FILE);
        assert!(p.findings.iter().any(|f| f.code == "devloop.l2-exhausted"));
        assert_eq!(p.stage.as_ref().map(|s| s.en()).as_deref(), Some("blocked"));
    }

    #[test]
    fn hashes_gate_and_progress_from_a_prd_site() {
        let contract = "GET /x\n  200 { ok }";
        let units = format!(
            r#"{{"project_id":"p-demo","units":[
                {{"id":"a-db","type":"db","status":"passed","depends_on":[],"contract_hash":"{}"}},
                {{"id":"b-be","type":"be","status":"passed","depends_on":["a-db"],"contract_hash":"{}"}}]}}"#,
            contract_hash("CREATE TABLE a"),
            contract_hash(contract)
        );
        let sdd = format!(
            "<article data-doc=\"sdd\" data-derived-from=\"prd@rev1\">\n<section data-unit-id=\"a-db\" data-depends=\"\"><pre data-contract=\"sql\">\nCREATE TABLE a</pre><ul data-acceptance><li>ok</li></ul></section>\n<section data-unit-id=\"b-be\" data-depends=\"a-db\"><pre data-contract>{contract}</pre><ul data-acceptance><li>x</li></ul></section></article>"
        );
        let (_t, p) = project(&[
            (PROJECT_FILE, META),
            (UNITS_FILE, &units),
            ("sdd.html", &sdd),
            (
                "prd/index.html",
                "<article data-doc=\"prd\" data-rev=\"1\"><section data-rev=\"1\"><h3>a</h3><p>b</p></section></article>",
            ),
            (
                "prd/product/scope.html",
                "<article data-doc=\"prd\" data-rev=\"2\"><section data-rev=\"2\"></section></article>",
            ),
        ]);
        let p = p.unwrap();
        assert!(
            p.detail.units.iter().all(|u| u.contract_ok() == Some(true)),
            "{:?}",
            p.findings
        );
        let dag = p.detail.dag.as_ref().unwrap();
        assert!(dag.l2_gate_open);
        assert_eq!(dag.layers, 2);
        // All passed, L2 not run: PRD 10 + SDD 20 + Units 50.
        let progress = p.detail.progress.as_ref().unwrap();
        assert_eq!((progress.percent, progress.phase.as_str()), (80.0, "L2"));
        // The site's newest page is at rev 2; the SDD derives from rev 1.
        assert!(
            p.findings
                .iter()
                .any(|f| f.code == "devloop.sdd-behind-prd")
        );
        assert_eq!(p.resume.read_first, vec!["sdd.html", "prd/index.html"]);
        assert_eq!(p.statusline, "p-demo · L2 2/2 units · 80%");
    }
}
