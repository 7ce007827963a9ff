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
//! - A resume token lives 24 h from the paused state's `updated_at`. The
//!   CLI judges its age against "now"; the reader already knows it has
//!   expired when the project has moved on past the expiry (a later
//!   timeline event), and then offers only a restart.

pub mod agents;
pub mod bugs;
pub mod dag;
pub mod html;
pub mod older;
pub mod progress;
pub mod runs;
pub mod schema;
pub mod timeline;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::json::reason as json_reason;
use super::{file_name, read_text};
use crate::model::{Agent, Dag, Finding, Format, InboxItem, InboxKind, Level, Project, Run, Unit};
use crate::store::{self, StoreError, WalkEntry};
use schema::{ProjectMeta, UnitEntry, UnitsFile};

pub const PROJECT_FILE: &str = "project.json";
const UNITS_FILE: &str = "units.json";
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
pub const OWN_DIRS: &[&str] = &[
    "units",
    "runs",
    "integration",
    "history",
    "agent-state",
    "memory",
    "prd",
];

/// The devloop project in the directory `entry` describes, if it holds a
/// `project.json` with `company_id` and `status`.
pub fn discover(entry: &WalkEntry<'_>) -> Option<Project> {
    if !entry.files.iter().any(|f| f == PROJECT_FILE) {
        return None;
    }
    load(entry.path)
}

/// Read the devloop project at `dir`; `None` when `dir` holds none.
pub fn load(dir: &Path) -> Option<Project> {
    let bytes = match store::read_in(dir, PROJECT_FILE, store::STATE_FILE_LIMIT) {
        Ok(b) => b,
        Err(StoreError::Vanished) => return None,
        Err(e) => return has_devloop_files(dir).then(|| unreadable(dir, e.to_string())),
    };
    let map = match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(map)) => map,
        // Some other tool's project.json.
        Ok(_) => return None,
        Err(e) => return has_devloop_files(dir).then(|| unreadable(dir, json_reason(&e))),
    };
    if !(map.contains_key("company_id") && map.contains_key("status")) {
        return None;
    }
    let mut problems = Vec::new();
    let meta: ProjectMeta =
        schema::tolerant(Value::Object(map), "", &mut problems).unwrap_or_default();
    Some(read(dir, meta, problems))
}

/// A `project.json` that cannot be read beside other devloop files is still
/// a devloop project, shown with its problem.
fn has_devloop_files(dir: &Path) -> bool {
    [UNITS_FILE, timeline::TIMELINE, bugs::BUGS]
        .iter()
        .any(|f| store::contained_file(dir, f).is_some())
}

fn unreadable(dir: &Path, reason: String) -> Project {
    let mut p = Project::new(Format::Devloop, dir.to_path_buf(), file_name(dir));
    p.problem(PROJECT_FILE, reason);
    p.status = "unreadable".to_owned();
    p.updated_at = store::mtime(&dir.join(PROJECT_FILE));
    p.statusline = format!("{} · unreadable", p.name);
    p
}

/// Read a JSON object file inside the project; a missing file is `None`
/// without a problem, anything else unreadable is a problem.
pub(crate) fn read_json<T: serde::de::DeserializeOwned + Default>(
    p: &mut Project,
    dir: &Path,
    rel: &str,
) -> Option<T> {
    match store::read_in(dir, rel, store::STATE_FILE_LIMIT) {
        Ok(bytes) => match schema::parse_file::<T>(&bytes) {
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

fn nonempty(s: &impl AsRef<str>) -> bool {
    !s.as_ref().trim().is_empty()
}

fn read(dir: &Path, meta: ProjectMeta, meta_problems: Vec<String>) -> Project {
    let dir_name = file_name(dir);
    let pid = meta.id.clone().map(|t| t.0).filter(nonempty);
    let name = meta
        .name
        .clone()
        .filter(nonempty)
        .or_else(|| meta.title.clone().filter(nonempty))
        .or_else(|| pid.clone())
        .unwrap_or_else(|| dir_name.clone());
    let short = pid.clone().unwrap_or(dir_name);
    let mut p = Project::new(Format::Devloop, dir.to_path_buf(), name);
    for problem in meta_problems {
        p.problem(PROJECT_FILE, problem);
    }
    p.status = meta
        .status
        .clone()
        .filter(nonempty)
        .unwrap_or_else(|| "unknown".to_owned());
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
    let units = units(&mut p, dir, units_file.as_ref(), pid.as_deref());
    if units_file.is_none()
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

    p.detail.integration_runs = runs::integration(&mut p, dir);
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
    let all_current = distinct.iter().all(|u| u.contract_ok == Some(true));
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
    p.detail.dag = Some(Dag {
        cycles: units.cycles,
        unknown_refs: units.unknown_refs,
        l2_gate_open: gate_open,
        layers: units.layer_count,
    });
    p.stage = Some(progress.phase.clone());
    p.progress_percent = Some(progress.percent.round().clamp(0.0, 100.0) as u8);

    let budget = Budget {
        used: meta.token_used.filter(|v| v.is_finite()).unwrap_or(0.0),
        limit: meta
            .token_budget
            .filter(|v| v.is_finite() && *v > 0.0)
            .unwrap_or(DEFAULT_TOKEN_BUDGET),
    };
    let l2_spent = units
        .l2
        .filter(|(rounds, budget)| *budget > 0 && rounds >= budget)
        .filter(|_| !l2_passed && !progress::is_shipped(&p.status) && p.status != "abandoned");
    inbox(&mut p, &prd, &budget, l2_spent, &agents, meta_updated);
    resume(&mut p, dir, &prd, &progress.phase, passed, total);
    p.statusline = if total > 0 {
        format!(
            "{short} · {} {passed}/{total} units · {}%",
            progress.phase,
            p.progress_percent.unwrap_or(0)
        )
    } else {
        format!(
            "{short} · {} · {}%",
            progress.phase,
            p.progress_percent.unwrap_or(0)
        )
    };
    p.detail.progress = Some(progress);
    p
}

/// What `units.json` gave beyond the units themselves.
#[derive(Default)]
struct UnitsInfo {
    cycles: Vec<Vec<String>>,
    unknown_refs: Vec<crate::model::UnknownRef>,
    duplicates: usize,
    layer_count: usize,
    /// `(l2_rounds, l2_budget)`.
    l2: Option<(u64, u64)>,
}

/// `units.json` into `p.detail.units`, with the graph's findings and each
/// unit's newest runs.
fn units(p: &mut Project, dir: &Path, file: Option<&UnitsFile>, pid: Option<&str>) -> UnitsInfo {
    let Some(file) = file else {
        return UnitsInfo::default();
    };
    let mut problems = Vec::new();
    let entries: Vec<UnitEntry> = schema::each(file.units.clone(), "units", &mut problems);
    for problem in problems {
        p.problem(UNITS_FILE, problem);
    }
    let mut listed: Vec<(String, UnitEntry)> = Vec::with_capacity(entries.len());
    for (i, e) in entries.into_iter().enumerate() {
        match e.id.clone().map(|t| t.0).filter(nonempty) {
            Some(id) => listed.push((id, e)),
            None => p.problem(UNITS_FILE, format!("units[{i}] has no id; ignored")),
        }
    }
    if let (Some(owner), Some(pid)) = (file.project_id.as_ref(), pid)
        && owner.0 != pid
    {
        p.findings.push(
            Finding::new(
                Level::Warning,
                "devloop.project-mismatch",
                format!("units.json belongs to project {}, not {pid}", owner.0),
            )
            .at(UNITS_FILE),
        );
    }
    let pairs: Vec<(String, Vec<String>)> = listed
        .iter()
        .map(|(id, e)| {
            (
                id.clone(),
                e.depends_on.iter().map(|d| d.0.clone()).collect(),
            )
        })
        .collect();
    let a = dag::analyze(&pairs);
    let mut found = Vec::new();
    let mut add = |level, code: &str, msg: String, at: &str| {
        found.push(Finding::new(level, code, msg).at(at));
    };
    for c in &a.cycles {
        let mut path = c.clone();
        path.extend(c.first().cloned());
        add(
            Level::Error,
            "devloop.dag-cycle",
            format!("dependency cycle: {}", path.join(" → ")),
            c.first().map_or(UNITS_FILE, String::as_str),
        );
    }
    for r in &a.unknown_refs {
        add(
            Level::Error,
            "devloop.unknown-dependency",
            format!(
                "{} depends on {}, which is not a unit of units.json",
                r.unit, r.depends_on
            ),
            &r.unit,
        );
    }
    // Counted once: a units.json of 40,000 copies of one id must not cost
    // 40,000 scans of itself.
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (id, _) in &listed {
        *counts.entry(id.as_str()).or_default() += 1;
    }
    for d in &a.duplicates {
        let n = counts.get(d.as_str()).copied().unwrap_or(0);
        add(
            Level::Error,
            "devloop.duplicate-unit",
            format!("unit id {d} occurs {n} times in units.json"),
            d,
        );
    }
    let mut checked = HashSet::new();
    for (id, e) in &listed {
        if !checked.insert(id.as_str()) {
            continue;
        }
        if !dag::valid_unit_id(id) {
            add(
                Level::Warning,
                "devloop.bad-unit-id",
                format!("unit id {id} does not match ^[a-z]+(-[a-z]+)*-(be|fe|mw|db)$"),
                id,
            );
        }
        if let Some(h) = e
            .contract_hash
            .as_deref()
            .filter(|h| !dag::valid_contract_hash(h))
        {
            add(
                Level::Warning,
                "devloop.bad-contract-hash",
                format!("contract_hash {h} of {id} does not match ^sha256:[a-f0-9]{{16}}$"),
                id,
            );
        }
        let status = e.status.as_deref().unwrap_or("");
        if !UNIT_STATUSES.contains(&status) {
            add(
                Level::Warning,
                "devloop.unknown-unit-status",
                format!(
                    "{id} has status `{status}`, not one of {}",
                    UNIT_STATUSES.join(", ")
                ),
                id,
            );
        }
        let retries = schema::count(e.retries);
        let retry_budget = schema::count(e.retry_budget);
        let spent = matches!((retries, retry_budget), (Some(r), Some(b)) if r >= b);
        if status == "blocked" || (spent && status != "passed") {
            let used = match (retries, retry_budget) {
                (Some(r), Some(b)) => format!(" ({r}/{b} retries used)"),
                _ => String::new(),
            };
            p.blockers.push(format!("{id}: {status}{used}"));
            add(
                Level::Warning,
                "devloop.unit-blocked",
                format!("{id} is {status}{used}: it needs a human to go on"),
                id,
            );
        }
    }
    p.findings.extend(found);

    // Runs, once per id: `units/{id}/runs/`, plus seed 004's `runs/`.
    let mut flat: HashMap<String, Vec<Run>> = HashMap::new();
    for r in runs::flat_runs(p, dir) {
        if let Some(u) = r.unit_id.clone() {
            flat.entry(u).or_default().push(r);
        }
    }
    let mut by_id: HashMap<String, Vec<Run>> = HashMap::new();
    for (id, _) in &listed {
        if by_id.contains_key(id) {
            continue;
        }
        let mut runs = runs::unit_runs(p, dir, id);
        if let Some(more) = flat.remove(id) {
            runs.extend(more);
            runs.sort_by(|a, b| b.run_id.cmp(&a.run_id));
            runs.dedup_by(|a, b| a.run_id == b.run_id);
            runs.truncate(runs::RUNS_PER_UNIT);
        }
        by_id.insert(id.clone(), runs);
    }
    p.detail.units = listed
        .into_iter()
        .zip(&a.layers)
        .map(|((id, e), layer)| Unit {
            status_kind: crate::model::StatusKind::Unknown,
            runs: by_id.get(&id).cloned().unwrap_or_default(),
            kind: e.kind.unwrap_or_default(),
            status: e
                .status
                .filter(nonempty)
                .unwrap_or_else(|| "unknown".to_owned()),
            depends_on: e.depends_on.into_iter().map(|d| d.0).collect(),
            downstream: Vec::new(),
            layer: *layer,
            retries: schema::count(e.retries),
            retry_budget: schema::count(e.retry_budget),
            contract_hash: e.contract_hash,
            contract_ok: None,
            last_run: e.last_run.map(|t| t.0),
            contract: None,
            acceptance: Vec::new(),
            id,
        })
        .collect();
    // Who depends on whom, once: the Units pane shows both directions.
    let mut dependents: HashMap<String, Vec<String>> = HashMap::new();
    for u in &p.detail.units {
        for d in &u.depends_on {
            dependents.entry(d.clone()).or_default().push(u.id.clone());
        }
    }
    for u in &mut p.detail.units {
        if let Some(mut down) = dependents.get(&u.id).cloned() {
            down.dedup();
            u.downstream = down;
        }
    }
    UnitsInfo {
        cycles: a.cycles,
        unknown_refs: a.unknown_refs,
        duplicates: a.duplicates.len(),
        layer_count: a.layer_count,
        l2: schema::count(file.l2_rounds).zip(schema::count(file.l2_budget)),
    }
}

/// The PRD: `prd.html`, else the PRD site under `prd/`.
#[derive(Default)]
struct PrdInfo {
    present: bool,
    /// The page to read first (`prd.html` or `prd/index.html`).
    file: Option<String>,
    rev: Option<u64>,
    /// `(page, text)` of each `<aside data-conflict>`.
    conflicts: Vec<(String, String)>,
}

fn prd_pages(dir: &Path) -> Vec<String> {
    if store::contained_file(dir, PRD_FILE).is_some() {
        return vec![PRD_FILE.to_owned()];
    }
    let Ok(Some(site)) = store::locate(dir, PRD_DIR) else {
        return Vec::new();
    };
    if !store::is_dir(&site) {
        return Vec::new();
    }
    let mut pages = Vec::new();
    if store::contained_file(dir, PRD_INDEX).is_some() {
        pages.push(PRD_INDEX.to_owned());
    }
    for name in store::list_names(&site) {
        if !runs::safe_component(&name) || name.starts_with('.') {
            continue;
        }
        let rel = format!("{PRD_DIR}/{name}");
        if name.ends_with(".html") {
            if rel != PRD_INDEX {
                pages.push(rel);
            }
        } else if name != "assets" && store::is_dir(&site.join(&name)) {
            for sub in store::list_names(&site.join(&name)) {
                if sub.ends_with(".html") && runs::safe_component(&sub) {
                    pages.push(format!("{rel}/{sub}"));
                }
            }
        }
        if pages.len() >= PRD_PAGES {
            break;
        }
    }
    pages.truncate(PRD_PAGES);
    pages
}

fn prd(p: &mut Project, dir: &Path) -> PrdInfo {
    let pages = prd_pages(dir);
    let mut info = PrdInfo {
        file: pages.first().cloned(),
        ..PrdInfo::default()
    };
    for page in pages {
        let text = match read_text(dir, &page) {
            Ok((text, lossy)) => {
                if lossy {
                    p.problem(&page, "not valid UTF-8; invalid bytes shown as �");
                }
                text
            }
            Err(StoreError::Vanished) => continue,
            Err(e) => {
                p.problem(&page, e.to_string());
                continue;
            }
        };
        info.present = true;
        let doc = html::prd(&text);
        if !doc.article {
            p.findings.push(
                Finding::new(
                    Level::Warning,
                    "devloop.prd-structure",
                    format!("{page} has no <article data-doc=\"prd\">"),
                )
                .at(page.as_str()),
            );
        }
        let max_section = doc.section_revs.iter().max().copied();
        if let (Some(a), Some(m)) = (doc.rev, max_section)
            && a != m
        {
            p.findings.push(
                Finding::new(
                    Level::Warning,
                    "devloop.prd-rev-mismatch",
                    format!("{page}: the article's data-rev is {a}, its newest section's is {m}"),
                )
                .at(page.as_str()),
            );
        }
        if doc.section_revs.windows(2).any(|w| w[1] < w[0]) {
            p.findings.push(
                Finding::new(
                    Level::Warning,
                    "devloop.prd-rev-order",
                    format!(
                        "{page}: section data-rev values go down ({:?})",
                        doc.section_revs
                    ),
                )
                .at(page.as_str()),
            );
        }
        let rev = doc.rev.or(max_section);
        info.rev = info.rev.max(rev);
        for c in doc.conflicts {
            p.findings.push(
                Finding::new(
                    Level::Warning,
                    "devloop.prd-conflict",
                    format!("{page} marks a conflict; the project waits for a human: {c}"),
                )
                .at(page.as_str()),
            );
            info.conflicts.push((page.clone(), c));
        }
    }
    info
}

fn sdd(p: &mut Project, dir: &Path, prd_rev: Option<u64>) -> Option<html::Sdd> {
    let text = match read_text(dir, SDD_FILE) {
        Ok((text, lossy)) => {
            if lossy {
                p.problem(SDD_FILE, "not valid UTF-8; invalid bytes shown as �");
            }
            text
        }
        Err(StoreError::Vanished) => return None,
        Err(e) => {
            p.problem(SDD_FILE, e.to_string());
            return None;
        }
    };
    let doc = html::sdd(&text);
    let mut add = |level, code: &str, msg: String| {
        p.findings.push(Finding::new(level, code, msg).at(SDD_FILE));
    };
    if !doc.article {
        add(
            Level::Warning,
            "devloop.sdd-structure",
            "sdd.html has no <article data-doc=\"sdd\">".to_owned(),
        );
    }
    for u in &doc.units {
        let mut missing = Vec::new();
        if u.contract.is_none() {
            missing.push("<pre data-contract>");
        }
        if !u.has_acceptance {
            missing.push("<ul data-acceptance>");
        }
        if !missing.is_empty() {
            add(
                Level::Warning,
                "devloop.sdd-section-incomplete",
                format!("the section of {} has no {}", u.id, missing.join(" and ")),
            );
        }
        if u.contract.as_ref().is_some_and(|c| c.unclosed) {
            add(
                Level::Warning,
                "devloop.sdd-structure",
                format!(
                    "the contract of {} has no </pre>; it is read up to the end of its section",
                    u.id
                ),
            );
        }
    }
    let derived = doc.derived_from.as_deref().and_then(html::rev_number);
    if let (Some(d), Some(r)) = (derived, prd_rev)
        && d < r
    {
        add(
            Level::Info,
            "devloop.sdd-behind-prd",
            format!("sdd.html derives from prd@rev{d}, but the PRD is at rev {r}"),
        );
    }
    Some(doc)
}

/// `sha256:` + the first 16 hex digits of the sha256 of `text`.
pub fn contract_hash(text: &str) -> String {
    let hex = store::sha256_hex(text.as_bytes());
    format!("sha256:{}", &hex[..16])
}

/// Does one reading of `contract` hash to `hash`?
fn contract_matches(contract: &html::Contract, hash: &str) -> bool {
    contract.readings().iter().any(|r| contract_hash(r) == hash)
}

/// An archived SDD (its file, its contents, its units by id).
type Archive = (String, html::Sdd, HashMap<String, usize>);

/// Contracts from the SDD into the units, and the hash check.
fn contracts(p: &mut Project, dir: &Path, sdd: Option<&html::Sdd>, changes: &timeline::Changes) {
    let Some(sdd) = sdd else {
        if !p.detail.units.is_empty() {
            p.findings.push(
                Finding::new(
                    Level::Info,
                    "devloop.sdd-missing",
                    "no sdd.html: contract hashes cannot be checked, and the L2 gate stays closed",
                )
                .at(SDD_FILE),
            );
        }
        return;
    };
    let mut sections: HashMap<&str, &html::SddUnit> = HashMap::new();
    for s in &sdd.units {
        sections.entry(s.id.as_str()).or_insert(s);
    }
    let mut findings = Vec::new();
    let mut archives: Option<Vec<Archive>> = None;
    let mut checked = HashSet::new();
    let units = std::mem::take(&mut p.detail.units);
    let mut out = Vec::with_capacity(units.len());
    for mut u in units {
        let first = checked.insert(u.id.clone());
        let Some(s) = sections.get(u.id.as_str()) else {
            if first {
                findings.push(
                    Finding::new(
                        Level::Warning,
                        "devloop.contract-missing",
                        format!(
                            "sdd.html has no section for {}; its contract cannot be checked",
                            u.id
                        ),
                    )
                    .at(u.id.as_str()),
                );
            }
            out.push(u);
            continue;
        };
        u.acceptance = s.acceptance.clone();
        u.contract = s.contract.as_ref().map(|c| c.text.clone());
        if let (Some(sdd_deps), true) = (&s.depends, first) {
            let a: HashSet<&String> = u.depends_on.iter().collect();
            let b: HashSet<&String> = sdd_deps.iter().collect();
            if a != b {
                findings.push(
                    Finding::new(
                        Level::Warning,
                        "devloop.depends-mismatch",
                        format!(
                            "{}: units.json depends on [{}], sdd.html on [{}]",
                            u.id,
                            u.depends_on.join(", "),
                            sdd_deps.join(", ")
                        ),
                    )
                    .at(u.id.as_str()),
                );
            }
        }
        let Some(contract) = &s.contract else {
            out.push(u);
            continue;
        };
        let Some(hash) = u.contract_hash.clone() else {
            u.contract_ok = Some(false);
            if first {
                findings.push(
                    Finding::new(
                        Level::Warning,
                        "devloop.contract-hash-missing",
                        format!("{} has no contract_hash to check against sdd.html", u.id),
                    )
                    .at(u.id.as_str()),
                );
            }
            out.push(u);
            continue;
        };
        let ok = contract_matches(contract, &hash);
        u.contract_ok = Some(ok);
        if !ok && first {
            let mut msg = format!(
                "{}: units.json has {hash}, but its contract in sdd.html hashes to {}",
                u.id,
                contract_hash(&contract.text)
            );
            // Each archive read once, with its units indexed by id: a
            // lookup per stale unit, not a scan (60,000 units: 11 s before).
            let archives = archives.get_or_insert_with(|| {
                archived_sdds(p, dir)
                    .into_iter()
                    .map(|(file, doc)| {
                        let by_id: HashMap<String, usize> = doc
                            .units
                            .iter()
                            .enumerate()
                            .rev()
                            .map(|(i, s)| (s.id.clone(), i))
                            .collect();
                        (file, doc, by_id)
                    })
                    .collect::<Vec<_>>()
            });
            if let Some((file, _, _)) = archives.iter().find(|(_, doc, by_id)| {
                by_id
                    .get(&u.id)
                    .and_then(|&i| doc.units.get(i))
                    .and_then(|s| s.contract.as_ref())
                    .is_some_and(|c| contract_matches(c, &hash))
            }) {
                msg.push_str(&format!("; {hash} is its contract in {file}"));
            }
            if let Some((sdd_rev, units_rev)) = changes.missed_resets.get(&u.id) {
                msg.push_str(&format!(
                    "; sdd rev {sdd_rev} changed it, units rev {units_rev} did not reset it"
                ));
            }
            if u.status == "passed" {
                msg.push_str("; it passed against an older contract, so the L2 gate stays closed");
            }
            findings.push(
                Finding::new(Level::Warning, "devloop.contract-hash-mismatch", msg)
                    .at(u.id.as_str()),
            );
        }
        out.push(u);
    }
    let listed: HashSet<&str> = out.iter().map(|u| u.id.as_str()).collect();
    for s in &sdd.units {
        if !listed.contains(s.id.as_str()) && !out.is_empty() {
            findings.push(
                Finding::new(
                    Level::Warning,
                    "devloop.sdd-unit-unlisted",
                    format!(
                        "sdd.html has a section for {}, which units.json does not list",
                        s.id
                    ),
                )
                .at(s.id.as_str()),
            );
        }
    }
    p.detail.units = out;
    p.findings.extend(findings);
}

/// The newest archived SDD revisions, parsed (for a stale hash's origin).
fn archived_sdds(p: &mut Project, dir: &Path) -> Vec<(String, html::Sdd)> {
    let mut files: Vec<timeline::Archived> = timeline::history(dir)
        .into_iter()
        .filter(|a| a.kind == "sdd")
        .collect();
    files.sort_by_key(|a| std::cmp::Reverse(a.rev));
    files
        .into_iter()
        .take(HISTORY_SEARCH)
        .filter_map(|a| match read_text(dir, &a.file) {
            Ok((text, _)) => Some((a.file, html::sdd(&text))),
            Err(StoreError::Vanished) => None,
            Err(e) => {
                p.problem(&a.file, e.to_string());
                None
            }
        })
        .collect()
}

struct Budget {
    used: f64,
    limit: f64,
}

impl Budget {
    fn over(&self) -> bool {
        self.used > self.limit
    }
}

/// `5231774` → `5,231,774`.
fn thousands(n: f64) -> String {
    let digits = format!("{:.0}", n.max(0.0));
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn last_event<'a>(p: &'a Project, kind: &str) -> Option<&'a crate::model::Event> {
    p.detail.timeline.iter().rev().find(|e| e.kind == kind)
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// What waits for a human, most pressing first.
fn inbox(
    p: &mut Project,
    prd: &PrdInfo,
    budget: &Budget,
    l2_spent: Option<(u64, u64)>,
    agents: &[(String, Agent)],
    meta_updated: Option<DateTime<Utc>>,
) {
    let mut items = Vec::new();
    for (page, text) in &prd.conflicts {
        items.push(InboxItem {
            kind: InboxKind::Conflict,
            reference: page.clone(),
            title: format!("PRD conflict: {text}"),
            since: last_event(p, "prd_conflict")
                .and_then(|e| e.at)
                .or_else(|| store::mtime(&p.path.join(page))),
            options: Vec::new(),
            subject: None,
        });
    }
    let blocked_event = last_event(p, "project_blocked").cloned();
    let blocked_since = blocked_event.as_ref().and_then(|e| e.at).or(meta_updated);
    if budget.over() {
        let title = format!(
            "over token budget: {} of {} tokens used ({:.1}%){}",
            thousands(budget.used),
            thousands(budget.limit),
            budget.used / budget.limit * 100.0,
            if p.status == "blocked" {
                "; the project is suspended"
            } else {
                ""
            }
        );
        p.findings.push(
            Finding::new(Level::Warning, "devloop.over-budget", title.clone()).at(PROJECT_FILE),
        );
        items.push(InboxItem {
            kind: InboxKind::Budget,
            reference: PROJECT_FILE.to_owned(),
            title,
            since: blocked_since,
            options: Vec::new(),
            subject: None,
        });
    } else if p.status == "blocked" {
        let reason = blocked_event
            .as_ref()
            .map(|e| e.summary.clone())
            .filter(nonempty)
            .or_else(|| (!p.blockers.is_empty()).then(|| p.blockers.join("; ")))
            .unwrap_or_else(|| "no reason recorded".to_owned());
        items.push(InboxItem {
            kind: InboxKind::Blocked,
            reference: PROJECT_FILE.to_owned(),
            title: format!("project blocked: {reason}"),
            since: blocked_since,
            options: Vec::new(),
            subject: None,
        });
    }
    if p.status == "blocked"
        && let Some(e) = blocked_event.as_ref().filter(|e| nonempty(&e.summary))
    {
        p.blockers.insert(0, e.summary.clone());
    }
    if let Some((rounds, limit)) = l2_spent {
        let title = format!(
            "L2 budget spent: {rounds} of {limit} integration rounds used without a pass; the loop waits for a human"
        );
        p.findings.push(
            Finding::new(Level::Warning, "devloop.l2-exhausted", title.clone()).at(UNITS_FILE),
        );
        items.push(InboxItem {
            kind: InboxKind::Blocked,
            reference: UNITS_FILE.to_owned(),
            title,
            since: p.updated_at,
            options: Vec::new(),
            subject: None,
        });
    }
    for (rel, a) in agents.iter().filter(|(_, a)| a.status == "paused") {
        let mut at = a.agent.clone();
        at.push_str(" paused");
        if let Some(step) = &a.step {
            at.push_str(&format!(" at step {step}"));
        }
        if let Some(doing) = &a.doing {
            at.push_str(&format!(" ({doing})"));
        }
        let expiry = agents::token_expiry(a);
        // The project moved on past the expiry: whatever "now" is, the
        // token is older than 24 h.
        let expired = expiry.zip(p.updated_at).is_some_and(|(e, u)| u >= e);
        let (title, options) = match expiry {
            Some(e) if expired => {
                p.findings.push(
                    Finding::new(
                        Level::Warning,
                        "devloop.resume-token-expired",
                        format!(
                            "{}'s resume token expired at {} (24 h after it paused); it can only restart",
                            a.agent,
                            rfc3339(e)
                        ),
                    )
                    .at(rel.as_str()),
                );
                (
                    format!(
                        "{at}: its resume token is older than 24 h (expired {}), so it can only restart",
                        rfc3339(e)
                    ),
                    vec!["restart".to_owned()],
                )
            }
            Some(e) => (
                format!(
                    "{at}: resume or restart (after {} the resume token is older than 24 h and it can only restart)",
                    rfc3339(e)
                ),
                vec!["resume".to_owned(), "restart".to_owned()],
            ),
            None => (
                format!("{at}: no resume token, so it can only restart"),
                vec!["restart".to_owned()],
            ),
        };
        items.push(InboxItem {
            kind: InboxKind::Resume,
            reference: rel.clone(),
            title,
            since: a.paused_at,
            options,
            subject: Some(a.agent.clone()),
        });
    }
    if p.status == "shipped" {
        items.push(InboxItem {
            kind: InboxKind::SignOff,
            reference: PROJECT_FILE.to_owned(),
            title: "shipped, awaiting sign-off: sign off (shipped-final) or abandon".to_owned(),
            since: last_event(p, "project_shipped")
                .and_then(|e| e.at)
                .or(meta_updated),
            options: vec!["sign-off".to_owned(), "abandon".to_owned()],
            subject: None,
        });
    }
    p.inbox = items;
}

/// The resume card: where the loop stopped, why, what it waits for, what to
/// read first.
fn resume(p: &mut Project, dir: &Path, prd: &PrdInfo, phase: &str, passed: usize, total: usize) {
    let mut stopped = format!("{phase} · {passed}/{total} units passed");
    for a in p.detail.agents.iter().filter(|a| a.status == "running") {
        stopped.push_str(&format!("; {} running", a.agent));
        if let Some(step) = &a.step {
            stopped.push_str(&format!(" at {step}"));
        }
        if let Some(unit) = &a.unit {
            stopped.push_str(&format!(" on {unit}"));
        }
        if let Some(doing) = &a.doing {
            stopped.push_str(&format!(": {doing}"));
        }
    }
    p.resume.stopped_at = Some(stopped);
    let paused: Vec<String> = p
        .detail
        .agents
        .iter()
        .filter(|a| a.status == "paused")
        .map(|a| match a.paused_at {
            Some(t) => format!("{} paused at {}", a.agent, rfc3339(t)),
            None => format!("{} paused", a.agent),
        })
        .collect();
    p.resume.reason = if p.status == "blocked" && !p.blockers.is_empty() {
        Some(format!("blocked: {}", p.blockers.join("; ")))
    } else if let Some((_, c)) = prd.conflicts.first() {
        Some(format!("PRD conflict: {c}"))
    } else if !paused.is_empty() {
        Some(paused.join("; "))
    } else {
        p.detail
            .timeline
            .last()
            .map(|e| format!("last event: {} {}: {}", e.source, e.kind, e.summary))
    };
    p.resume.waiting_for = p.inbox.first().map(|i| i.title.clone());

    let mut candidates: Vec<String> = Vec::new();
    if !prd.conflicts.is_empty() {
        candidates.extend(prd.conflicts.iter().map(|(page, _)| page.clone()));
    }
    if let Some((u, r)) = p
        .detail
        .units
        .iter()
        .find_map(|u| u.runs.first().filter(|r| !r.ok).map(|r| (u, r)))
    {
        candidates.push(format!("units/{}/runs/{}/result.json", u.id, r.run_id));
    }
    if let Some(r) = p.detail.integration_runs.first().filter(|r| !r.ok) {
        candidates.push(format!("integration/runs/{}/triage.json", r.run_id));
    }
    candidates.push(SDD_FILE.to_owned());
    candidates.extend(prd.file.clone());
    let mut seen = HashSet::new();
    p.resume.read_first = candidates
        .into_iter()
        .filter(|c| runs_path_ok(c) && seen.insert(c.clone()))
        .filter(|c| store::contained_file(dir, c).is_some())
        .take(4)
        .collect();
}

/// Paths built from ids read in files: no climbing.
fn runs_path_ok(rel: &str) -> bool {
    rel.split('/').all(runs::safe_component)
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
        assert!(item.title.contains("2/3"), "{}", item.title);
        assert!(
            item.title.contains("2026-06-02T09:00:00Z"),
            "{}",
            item.title
        );
        assert!(
            !p.findings
                .iter()
                .any(|f| f.code == "devloop.resume-token-expired")
        );
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
        assert_eq!(p.stage.as_deref(), Some("blocked"));
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
            p.detail.units.iter().all(|u| u.contract_ok == Some(true)),
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
