//! Finding plans and reading their files: `.dwp/plans/PLAN_*` under a
//! repository, a plan directory given itself, or a bare `PLAN_*` directory
//! whose JSON declares a Deep Work Plan. A directory that cannot be listed
//! stays a plan with its problem.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use super::markdown::Readme;
use super::schema::{self, Manifest, State};
use super::{DWP_DIR, MANIFEST, PLAN_PREFIX, PLANS_DIR, Plan, README, STATE, fill, plan_kind};
use crate::formats::{file_name, json, read_text};
use crate::model::{Format, Project};
use crate::store::{self, StoreError, WalkEntry};

/// Every plan of the repository `entry` describes (it holds `.dwp/`), or the
/// plan `entry` itself is: a `PLAN_*` directory under `.dwp/plans/`, or a
/// bare `PLAN_*` directory (a plan given directly, as DWP's own test
/// fixtures lay plans out) whose JSON says it is a Deep Work Plan.
pub(crate) fn discover(entry: &WalkEntry<'_>) -> Vec<Project> {
    let mut found = Vec::new();
    if entry.dirs.iter().any(|d| d == DWP_DIR) {
        found.extend(plans_under(entry.path));
    }
    if !file_name(entry.path).starts_with(PLAN_PREFIX) {
        return found;
    }
    if is_plan_dir(entry.path) {
        found.extend(load(entry.path));
    } else if has_projection(entry) {
        found.extend(load_bare(entry.path));
    }
    found
}

/// Does the directory hold `manifest.json` or `state.json` (a bare plan
/// needs its JSON projection to be recognised)?
fn has_projection(entry: &WalkEntry<'_>) -> bool {
    let listed = |n: &str| entry.files.iter().any(|f| f == n);
    listed(MANIFEST)
        || listed(STATE)
        || [MANIFEST, STATE]
            .iter()
            .any(|f| store::contained_file(entry.path, f).is_some())
}

/// The names in `dir`, or why they cannot be listed.
fn names_in(dir: &Path) -> Result<Vec<String>, StoreError> {
    let mut names: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names)
}

/// A plan (or the plans directory) that cannot be listed: still a project,
/// with a problem that names the directory and the reason.
/// `label` names the directory in the problem (`PLAN_x/`, `.dwp/plans/`).
fn unreadable(dir: &Path, name: String, label: &str, what: &str, reason: &StoreError) -> Project {
    let mut p = Project::new(Format::Dwp, dir.to_path_buf(), name);
    p.problem(
        label,
        format!("cannot list {what} {}: {reason}", dir.display()),
    );
    p.status = "unreadable".to_owned();
    p.status_kind = plan_kind(&p.status);
    p.updated_at = store::mtime(dir);
    p.statusline = format!("{} · unreadable", p.name);
    p
}

/// `.dwp/plans` that cannot be read, named after its repository.
fn unreadable_plans(repo: &Path, plans: &Path, reason: &StoreError) -> Project {
    let name = format!("{}/{DWP_DIR}/{PLANS_DIR}", file_name(repo));
    let label = format!("{DWP_DIR}/{PLANS_DIR}/");
    unreadable(plans, name, &label, "the plans directory", reason)
}

/// The plans in `repo/.dwp/plans/`. Links are followed only inside `repo`.
/// A plans directory that cannot be read is listed as one unreadable
/// project, so its plans never vanish silently.
fn plans_under(repo: &Path) -> Vec<Project> {
    let plans_rel = format!("{DWP_DIR}/{PLANS_DIR}");
    let plans = match store::locate(repo, &plans_rel) {
        Ok(Some(plans)) => plans,
        // `locate` reads a path it may not search as missing: ask why.
        Ok(None) => {
            let path = repo.join(&plans_rel);
            return match std::fs::symlink_metadata(&path).map_err(StoreError::from) {
                Err(StoreError::Vanished) | Ok(_) => Vec::new(),
                Err(e) => vec![unreadable_plans(repo, &path, &e)],
            };
        }
        Err(StoreError::OutsideProject) => return Vec::new(),
        Err(e) => return vec![unreadable_plans(repo, &repo.join(&plans_rel), &e)],
    };
    let names = match names_in(&plans) {
        Ok(names) => names,
        Err(StoreError::Vanished) => return Vec::new(),
        Err(e) => return vec![unreadable_plans(repo, &plans, &e)],
    };
    names
        .into_iter()
        .filter(|n| n.starts_with(PLAN_PREFIX))
        .filter_map(|n| match store::locate(repo, &format!("{plans_rel}/{n}")) {
            Ok(Some(dir)) if store::is_dir(&dir) => load(&dir),
            _ => None,
        })
        .collect()
}

/// Is `dir` itself a plan directory (`…/.dwp/plans/PLAN_*`)?
fn is_plan_dir(dir: &Path) -> bool {
    if !file_name(dir).starts_with(PLAN_PREFIX) {
        return false;
    }
    let Ok(abs) = dir.canonicalize() else {
        return false;
    };
    let name = |p: Option<&Path>| {
        p.and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
    };
    let parent = abs.parent();
    name(parent).as_deref() == Some(PLANS_DIR)
        && name(parent.and_then(Path::parent)).as_deref() == Some(DWP_DIR)
}

/// Read the plan at `dir`; `None` when it holds none of `manifest.json`,
/// `state.json` or `README.md`. A directory that cannot be listed is a
/// plan with that problem.
pub(super) fn load(dir: &Path) -> Option<Project> {
    read_plan(dir, false)
}

/// Read a bare `PLAN_*` directory: a plan only when its manifest or state
/// names a DWP schema (`deepworkplan.com/schema/plan-…`) or a `PLAN_*` plan.
fn load_bare(dir: &Path) -> Option<Project> {
    read_plan(dir, true)
}

/// Does the JSON projection say this is a Deep Work Plan?
fn declares_dwp(manifest: Option<&Manifest>, state: Option<&State>) -> bool {
    let dwp_schema = |url: Option<&str>| url.is_some_and(|u| u.contains(DWP_SCHEMA_URL));
    let plan_name = |n: Option<&str>| n.is_some_and(|n| n.starts_with(PLAN_PREFIX));
    manifest.is_some_and(|m| dwp_schema(m.schema.as_deref()) || plan_name(m.name.as_deref()))
        || state.is_some_and(|s| dwp_schema(s.schema.as_deref()) || plan_name(s.plan.as_deref()))
}

/// Every DWP schema URL starts so (`…/plan-state/v2.json`, `…/plan-manifest/v1.json`).
const DWP_SCHEMA_URL: &str = "deepworkplan.com/schema/plan-";

fn read_plan(dir: &Path, bare: bool) -> Option<Project> {
    let names = match names_in(dir) {
        Ok(names) => names,
        Err(StoreError::Vanished) => return None,
        // A bare directory is a plan only by what its files say.
        Err(_) if bare => return None,
        Err(e) => {
            let name = file_name(dir);
            let label = format!("{name}/");
            return Some(unreadable(dir, name, &label, "the plan directory", &e));
        }
    };
    let has = |n: &str| names.iter().any(|x| x == n);
    if !(has(MANIFEST) || has(STATE) || has(README)) {
        return None;
    }
    let mut p = Project::new(Format::Dwp, dir.to_path_buf(), file_name(dir));
    let manifest: Option<Manifest> = if has(MANIFEST) {
        read_json(&mut p, dir, MANIFEST, false).map(|(m, _)| m)
    } else {
        None
    };
    let (state, state_json): (Option<State>, Option<Arc<Value>>) = if has(STATE) {
        match read_json(&mut p, dir, STATE, true) {
            Some((s, raw)) => (Some(s), raw),
            None => (None, None),
        }
    } else {
        (None, None)
    };
    if bare && !declares_dwp(manifest.as_ref(), state.as_ref()) {
        return None;
    }
    let (readme, readme_text) = match has(README).then(|| read_readme(&mut p, dir)).flatten() {
        Some((r, text)) => (Some(r), text),
        None => (None, None),
    };
    let plan = Plan {
        dir,
        names: &names,
        manifest: manifest.as_ref(),
        state: state.as_ref(),
        readme: readme.as_ref(),
        state_json: state_json.as_deref(),
        readme_bytes: readme_text.as_deref().map(str::as_bytes),
        log_pending: Default::default(),
        task_files: Default::default(),
    };
    fill(&mut p, &plan);
    Some(p)
}

/// `file` parsed as `T`, and, with `raw`, as the JSON value the decisions
/// take it for (`JsonDoc`'s reading: what `act` judges). The parser's
/// limits are checked once for both.
fn read_json<T: schema::Tolerant + Clone + Send + Sync + 'static>(
    p: &mut Project,
    dir: &Path,
    file: &str,
    raw: bool,
) -> Option<(T, Option<Arc<Value>>)> {
    // Inside a cached reading, a file that did not change is not parsed
    // again.
    let parsed = match store::cache::memo_in(dir, file, store::STATE_FILE_LIMIT, move |bytes| {
        let body = json::strip_bom(&bytes);
        if json::within_limits(body).is_err() {
            // Refused by both; the typed reading says why.
            return (schema::parse::<T>(&bytes), None);
        }
        let value = raw.then(|| decided(body)).flatten();
        // The typed reading from that value, when there is one: the bytes
        // are not parsed again.
        let typed = match &value {
            Some(v) if v.is_object() => schema::parse_value::<T>(v),
            _ => schema::parse_within_limits::<T>(&bytes),
        };
        (typed, value.map(Arc::new))
    }) {
        Ok(parsed) => parsed,
        Err(StoreError::Vanished) => return None,
        Err(e) => {
            p.problem(file, e.to_string());
            return None;
        }
    };
    match parsed {
        (Ok((v, problems)), value) => {
            for problem in problems {
                p.problem(file, problem);
            }
            Some((v, value))
        }
        (Err(reason), _) => {
            p.problem(file, reason);
            None
        }
    }
}

/// The value a decision takes `body` (a JSON file past its byte-order
/// mark, found [`json::within_limits`]) for: what
/// `JsonDoc::parse(bytes)?.into_value()` gives, the document as serde_json
/// reads it, in one pass.
fn decided(body: &[u8]) -> Option<Value> {
    serde_json::from_slice(body).ok()
}

/// The README, parsed, and its text when it is valid UTF-8 (the bytes the
/// decisions read).
fn read_readme(p: &mut Project, dir: &Path) -> Option<(Readme, Option<String>)> {
    match read_text(dir, README) {
        Ok((text, lossy)) => {
            if lossy {
                p.problem(README, "not valid UTF-8; invalid bytes shown as �");
            }
            let readme = Readme::parse(&text);
            Some((readme, (!lossy).then_some(text)))
        }
        Err(StoreError::Vanished) => None,
        Err(e) => {
            p.problem(README, e.to_string());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::jsonedit::JsonDoc;

    /// The reading's value of a state is the decisions' (`JsonDoc`'s), for
    /// every real state and the documents a parser may read differently.
    #[test]
    fn a_state_reads_as_the_decisions_read_it() {
        let root = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let mut docs: Vec<Vec<u8>> = Vec::new();
        for dir in ["tests/fixtures/dwp-real-world", "examples/workspace/dwp"] {
            let mut stack = vec![root.join(dir)];
            while let Some(d) = stack.pop() {
                for e in std::fs::read_dir(&d).unwrap() {
                    let path = e.unwrap().path();
                    if path.is_dir() {
                        stack.push(path);
                    } else if path.extension().is_some_and(|x| x == "json") {
                        docs.push(std::fs::read(&path).unwrap());
                    }
                }
            }
        }
        assert!(docs.len() > 8, "{}", docs.len());
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(127), "]".repeat(127));
        for edge in [
            "\u{feff}{\"a\": 1, \"b\": [1, 2]}\n",
            "{\"a\": 1, \"a\": 2}",
            "{\"a\": {\"x\": 1, \"y\": 2, \"x\": 3}, \"b\": null}",
            "{}",
            "[1, {\"a\": 2}]",
            "\"text\"",
            "{\"n\": 1e999999}",
            "{\"n\": 1.7e308, \"big\": 123456789012345678901234567890, \"f\": 1.50}",
            "{\"s\": \"\\ud83d\\ude00 \\u00e9\"}",
            "{\"s\": \"\\ud800\"}",
            "{\"a\": 1} x",
            "{\"status\": \"in_progress\", \"status\": 3, \"tasks\": [{\"id\": 1, \"id\": \"2\", \"title\": 5}]}",
            "{\"tasks\": [{\"id\": 1.5, \"gates\": [{\"passes\": \"yes\", \"exit_code\": -0}]}, [1, \"t\"], 7], \"task_count\": -1}",
            "{\"tasks\": null, \"checkpoint\": {\"task\": 2, \"step\": 1e2}, \"blocked\": [], \"promotion\": {\"x\": 1, \"x\": 2}}",
            "{\"tasks\": [{\"outcome\": {\"tried\": \"one\", \"failed\": [\"a\", 2]}}], \"completed_count\": 18446744073709551616}",
            "{\"a\": ",
            "",
            &deep,
        ] {
            docs.push(edge.as_bytes().to_vec());
        }
        docs.push(b"{\"s\": \"\xff\"}".to_vec());
        for bytes in docs {
            let body = json::strip_bom(&bytes);
            let ours = json::within_limits(body)
                .is_ok()
                .then(|| decided(body))
                .flatten();
            let theirs = JsonDoc::parse(&bytes).ok().map(JsonDoc::into_value);
            assert_eq!(ours, theirs, "{}", String::from_utf8_lossy(&bytes));
            // The typed reading from the value is the one from the bytes.
            if let Some(v) = ours.filter(Value::is_object) {
                assert_eq!(
                    format!("{:?}", schema::parse_value::<State>(&v)),
                    format!("{:?}", schema::parse::<State>(&bytes)),
                    "{}",
                    String::from_utf8_lossy(&bytes)
                );
                assert_eq!(
                    format!("{:?}", schema::parse_value::<Manifest>(&v)),
                    format!("{:?}", schema::parse::<Manifest>(&bytes)),
                );
            }
        }
    }
}
