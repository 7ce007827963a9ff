//! Test runs: L1 unit runs at `units/{unitId}/runs/{runId}/result.json`
//! (seed 003's RunResult path; seed 004's `runs/{runId}/` shorthand is read
//! too), and L2 integration runs at `integration/runs/{runId}/` with their
//! `triage.json`.

use std::path::Path;

use super::read_json;
use super::schema::{
    self, FailureEntry, IntFailure, IntRunFile, RunFile, SpecFile, TriageFile, compact, count,
};
use crate::model::{Failure, Finding, Level, Project, Run};
use crate::store;

/// Runs attached to each unit, newest first.
pub(crate) const RUNS_PER_UNIT: usize = 3;
/// How many run directories are tried per unit before giving up on
/// unreadable ones.
const TRIES_PER_UNIT: usize = 8;
/// Project-level `runs/` directories read at most (newest first).
const FLAT_RUNS: usize = 200;
pub(crate) const INTEGRATION_RUNS: usize = 3;
/// Below this, the seed's LoopController reports a triage to a human (L3)
/// instead of applying it.
const TRIAGE_CONFIDENCE_FLOOR: f64 = 0.5;

/// A path component taken from a file: one plain name, nothing that could
/// climb or reach elsewhere.
pub(crate) fn safe_component(s: &str) -> bool {
    !s.is_empty() && s != "." && s != ".." && !s.contains(['/', '\\', '\0']) && s.len() <= 255
}

/// Run directory names, newest first (run ids embed their UTC time, so
/// their order is their age).
fn run_dirs(dir: &Path, rel: &str) -> Vec<String> {
    let Ok(Some(path)) = store::locate(dir, rel) else {
        return Vec::new();
    };
    let mut names = store::list_names(&path);
    names.retain(|n| safe_component(n) && !n.starts_with('.'));
    names.sort_by(|a, b| b.cmp(a));
    names
}

fn run_from(file: RunFile, dir_name: &str, unit: Option<&str>, p: &mut Project, rel: &str) -> Run {
    let summary = file.summary.unwrap_or_default();
    let mut problems = Vec::new();
    let failures: Vec<FailureEntry> = schema::each(file.failures, "failures", &mut problems);
    for problem in problems {
        p.problem(rel, problem);
    }
    let failed = count(summary.failed);
    Run {
        run_id: file
            .run_id
            .map(|t| t.0)
            .unwrap_or_else(|| dir_name.to_owned()),
        unit_id: file
            .unit_id
            .map(|t| t.0)
            .or_else(|| unit.map(str::to_owned)),
        loop_name: file.loop_name.map(|t| t.0),
        ok: file
            .ok
            .unwrap_or_else(|| failed == Some(0) && failures.is_empty()),
        total: count(summary.total).unwrap_or(0),
        passed: count(summary.passed).unwrap_or(0),
        failed: failed.unwrap_or(failures.len() as u64),
        failures: failures
            .into_iter()
            .map(|f| Failure {
                test: f.test.map(|t| t.0).unwrap_or_default(),
                expected: f.expected.as_ref().map(compact).unwrap_or_default(),
                got: f.got.as_ref().map(compact).unwrap_or_default(),
                hint: f.hint,
            })
            .collect(),
        next_action: file.next_action,
    }
}

/// The names under `units/` (the units that may have runs): one listing,
/// so a units.json of 200,000 units costs no lookup per unit.
pub(crate) fn unit_dirs(dir: &Path) -> Vec<String> {
    let Ok(Some(path)) = store::locate(dir, "units") else {
        return Vec::new();
    };
    let mut names = store::list_names(&path);
    names.retain(|n| safe_component(n));
    names
}

/// The newest runs of `unit` (at most [`RUNS_PER_UNIT`]), newest first.
pub(crate) fn unit_runs(p: &mut Project, dir: &Path, unit: &str) -> Vec<Run> {
    if !safe_component(unit) {
        return Vec::new();
    }
    let base = format!("units/{unit}/runs");
    let mut out = Vec::new();
    for name in run_dirs(dir, &base).into_iter().take(TRIES_PER_UNIT) {
        if out.len() == RUNS_PER_UNIT {
            break;
        }
        let rel = format!("{base}/{name}/result.json");
        if let Some(file) = read_json::<RunFile>(p, dir, &rel) {
            out.push(run_from(file, &name, Some(unit), p, &rel));
        }
    }
    out
}

/// Seed 004's shorthand layout, `runs/{runId}/result.json` at the project
/// level: the newest runs, each naming its unit.
pub(crate) fn flat_runs(p: &mut Project, dir: &Path) -> Vec<Run> {
    let mut out = Vec::new();
    for name in run_dirs(dir, "runs").into_iter().take(FLAT_RUNS) {
        let rel = format!("runs/{name}/result.json");
        if let Some(file) = read_json::<RunFile>(p, dir, &rel) {
            out.push(run_from(file, &name, None, p, &rel));
        }
    }
    out
}

/// A triage too unsure to apply (seed TriageJson: confidence below 0.5 is
/// reported to L3, a human).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unsure {
    /// `integration/runs/{runId}/triage.json`.
    pub file: String,
    pub run_id: String,
    pub category: String,
    pub confidence: f64,
    pub units: Vec<String>,
}

/// The time a run id names (`run-int-20260601-1000`, `run-20260601-1000`).
pub(crate) fn run_time(run_id: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    let digits: String = run_id
        .rsplitn(3, '-')
        .take(2)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join("");
    chrono::NaiveDateTime::parse_from_str(&digits, "%Y%m%d%H%M")
        .ok()
        .map(|t| t.and_utc())
}

/// The newest integration runs, newest first, with findings for the latest
/// one and its triage.
pub(crate) fn integration(p: &mut Project, dir: &Path) -> Vec<Run> {
    integration_and_triage(p, dir).0
}

/// [`integration`], and the latest run's triage when it is too unsure to
/// apply.
pub(crate) fn integration_and_triage(p: &mut Project, dir: &Path) -> (Vec<Run>, Option<Unsure>) {
    let names = run_dirs(dir, "integration/runs");
    if names.is_empty() {
        return (Vec::new(), None);
    }
    let mut unsure = None;
    let spec = match store::locate(dir, "integration/spec.json") {
        Ok(Some(_)) => read_json::<SpecFile>(p, dir, "integration/spec.json"),
        _ => None,
    };
    let mut out = Vec::new();
    for name in names.iter().take(TRIES_PER_UNIT) {
        if out.len() == INTEGRATION_RUNS {
            break;
        }
        let base = format!("integration/runs/{name}");
        let rel = format!("{base}/result.json");
        let Some(file) = read_json::<IntRunFile>(p, dir, &rel) else {
            continue;
        };
        let run = int_run(file, name, spec.as_ref(), p, &rel);
        if out.is_empty() {
            unsure = latest_findings(p, dir, &base, &run);
        }
        out.push(run);
    }
    (out, unsure)
}

fn int_run(
    file: IntRunFile,
    name: &str,
    spec: Option<&SpecFile>,
    p: &mut Project,
    rel: &str,
) -> Run {
    let mut problems = Vec::new();
    let failures: Vec<IntFailure> = schema::each(file.failures, "failures", &mut problems);
    for problem in problems {
        p.problem(rel, problem);
    }
    let case_count = spec.map(|s| s.cases.len() as u64);
    let failed = failures.len() as u64;
    Run {
        run_id: file.run_id.map(|t| t.0).unwrap_or_else(|| name.to_owned()),
        unit_id: None,
        loop_name: Some("L2".to_owned()),
        ok: file.ok.unwrap_or(failures.is_empty()),
        total: case_count.unwrap_or(failed).max(failed),
        passed: case_count.unwrap_or(failed).saturating_sub(failed),
        failed,
        failures: failures
            .into_iter()
            .map(|f| {
                let case = f.case.map(|t| t.0).unwrap_or_default();
                let step = count(f.failed_step);
                // What the spec expected of the failed step, when it says.
                let expected = spec
                    .and_then(|s| {
                        s.cases
                            .iter()
                            .find(|c| c.id.as_ref().is_some_and(|id| id.0 == case))
                    })
                    .zip(step)
                    .and_then(|(c, i)| c.steps.get(usize::try_from(i).ok()?))
                    .and_then(|s| s.expect.as_ref())
                    .map(compact)
                    .unwrap_or_default();
                let involves: Vec<String> = f.involves.into_iter().map(|t| t.0).collect();
                let mut test = case;
                if let Some(i) = step {
                    test.push_str(&format!(" step {i}"));
                }
                if !involves.is_empty() {
                    test.push_str(&format!(" ({})", involves.join(", ")));
                }
                Failure {
                    test,
                    expected,
                    got: f.got.as_ref().map(compact).unwrap_or_default(),
                    hint: f
                        .stderr_excerpt
                        .as_deref()
                        .and_then(|s| s.lines().next())
                        .map(str::to_owned),
                }
            })
            .collect(),
        next_action: None,
    }
}

/// Findings for the latest integration run and its triage; the triage when
/// it is below the confidence floor.
fn latest_findings(p: &mut Project, dir: &Path, base: &str, run: &Run) -> Option<Unsure> {
    if !run.ok {
        let cases: Vec<&str> = run.failures.iter().map(|f| f.test.as_str()).collect();
        p.findings.push(
            Finding::new(
                Level::Info,
                "devloop.l2-failed",
                format!(
                    "the latest integration run {} failed: {}",
                    run.run_id,
                    if cases.is_empty() {
                        "no failure recorded".to_owned()
                    } else {
                        cases.join("; ")
                    }
                ),
            )
            .at(format!("{base}/result.json")),
        );
    }
    let rel = format!("{base}/triage.json");
    if !matches!(store::locate(dir, &rel), Ok(Some(_))) {
        return None;
    }
    let t = read_json::<TriageFile>(p, dir, &rel)?;
    let category = t.category.clone().unwrap_or_else(|| "unknown".to_owned());
    let confidence = t.confidence.filter(|c| c.is_finite());
    let units: Vec<String> = t.affected_units.iter().map(|u| u.0.clone()).collect();
    let patch = t.proposed_sdd_patch.as_ref().filter(|v| !v.is_null());
    let target = patch
        .and_then(|v| v.get("target_section"))
        .and_then(|v| v.as_str());
    let mut msg = format!(
        "triage of {}: {category}, confidence {}",
        run.run_id,
        confidence.map_or("unknown".to_owned(), |c| format!("{c:.2}"))
    );
    if !units.is_empty() {
        msg.push_str(&format!("; affects {}", units.join(", ")));
    }
    if let Some(target) = target {
        msg.push_str(&format!("; SDD patch proposed for {target}"));
    }
    if let Some(cause) = t.root_cause.as_deref().filter(|c| !c.trim().is_empty()) {
        msg.push_str(&format!("; root cause: {}", cause.trim()));
    }
    p.findings
        .push(Finding::new(Level::Info, "devloop.triage", msg).at(rel.clone()));
    let mut unsure = None;
    if let Some(c) = confidence.filter(|&c| c < TRIAGE_CONFIDENCE_FLOOR) {
        unsure = Some(Unsure {
            file: rel.clone(),
            run_id: run.run_id.clone(),
            category: category.clone(),
            confidence: c,
            units: units.clone(),
        });
        p.findings.push(
            Finding::new(
                Level::Warning,
                "devloop.triage-low-confidence",
                format!(
                    "triage confidence {:.2} is below 0.5: the seed has it reported to a human (L3), not applied",
                    confidence.unwrap_or_default()
                ),
            )
            .at(rel.clone()),
        );
    }
    let inconsistent = match category.as_str() {
        "contract_mismatch" if patch.is_none() => {
            Some("category contract_mismatch requires a proposed_sdd_patch")
        }
        "impl_bug" if patch.is_some() => {
            Some("category impl_bug must not patch the SDD (proposed_sdd_patch must be null)")
        }
        _ => None,
    };
    if let Some(why) = inconsistent {
        p.findings
            .push(Finding::new(Level::Warning, "devloop.triage-inconsistent", why).at(rel));
    }
    unsure
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Format;
    use std::fs;

    fn write(dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn newest_three_runs_with_failures_as_compact_json() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        for (i, ok) in [(1, true), (2, true), (3, true), (4, false)] {
            let failures = if ok {
                "[]".to_owned()
            } else {
                r#"[{"test":"t","expected":{"qty": 48},"got":"45","hint":"round up","stack":"x"}]"#
                    .to_owned()
            };
            write(
                d,
                &format!("units/a-be/runs/run-2026060{i}-1000/result.json"),
                &format!(
                    r#"{{"run_id":"run-2026060{i}-1000","loop":"L1","unit_id":"a-be","ok":{ok},"summary":{{"total":2,"passed":{},"failed":{}}},"failures":{failures}}}"#,
                    if ok { 2 } else { 1 },
                    if ok { 0 } else { 1 }
                ),
            );
        }
        write(
            d,
            "units/a-be/runs/run-20260605-1000/result.json",
            "{broken",
        );
        let mut p = Project::new(Format::Devloop, d.to_path_buf(), "x".into());
        let runs = unit_runs(&mut p, d, "a-be");
        let ids: Vec<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
        assert_eq!(
            ids,
            vec![
                "run-20260604-1000",
                "run-20260603-1000",
                "run-20260602-1000"
            ]
        );
        assert!(!runs[0].ok);
        assert_eq!(runs[0].failures[0].expected, r#"{"qty":48}"#);
        assert_eq!(runs[0].failures[0].got, r#""45""#);
        assert_eq!(runs[0].failures[0].hint.as_deref(), Some("round up"));
        assert_eq!(p.problems.len(), 1, "the broken result is reported");
        assert!(unit_runs(&mut p, d, "../a-be").is_empty());
    }

    #[test]
    fn triage_findings() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        write(
            d,
            "integration/runs/run-int-20260601-1000/result.json",
            r#"{"run_id":"run-int-20260601-1000","ok":false,"failures":[{"case":"e2e","failed_step":1,"got":{"status":500},"involves":["a-be"],"stderr_excerpt":"boom\nat x"}]}"#,
        );
        write(
            d,
            "integration/runs/run-int-20260601-1000/triage.json",
            r#"{"category":"impl_bug","confidence":0.3,"affected_units":["a-be"],"proposed_sdd_patch":{"target_section":"a-be"}}"#,
        );
        write(
            d,
            "integration/spec.json",
            r#"{"cases":[{"id":"e2e","steps":[{"expect":{"status":200}},{"expect":{"status":201}}]}]}"#,
        );
        let mut p = Project::new(Format::Devloop, d.to_path_buf(), "x".into());
        let runs = integration(&mut p, d);
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].failures[0].test, "e2e step 1 (a-be)");
        assert_eq!(runs[0].failures[0].expected, r#"{"status":201}"#);
        assert_eq!(runs[0].failures[0].hint.as_deref(), Some("boom"));
        let codes: Vec<&str> = p.findings.iter().map(|f| f.code.as_str()).collect();
        assert_eq!(
            codes,
            vec![
                "devloop.l2-failed",
                "devloop.triage",
                "devloop.triage-low-confidence",
                "devloop.triage-inconsistent"
            ]
        );
    }
}
