//! `units.json`: the units, the graph's findings and each unit's newest runs.

use compact_str::CompactString;

use super::*;

/// What `units.json` gave beyond the units themselves.
#[derive(Default)]
pub(super) struct UnitsInfo {
    pub(super) cycles: Vec<Vec<String>>,
    pub(super) unknown_refs: Vec<crate::model::UnknownRef>,
    pub(super) duplicates: usize,
    pub(super) layer_count: usize,
    /// `(l2_rounds, l2_budget)`, with the seed's defaults (0 and 3).
    pub(super) l2: (u64, u64),
    /// Units out of retries (or blocked): `(id, what the inbox says)`.
    pub(super) stuck: Vec<(String, crate::model::Phrase)>,
}

/// The seed's defaults (UnitsJson): `retries` 0, `retry_budget` 5,
/// `l2_budget` 3.
const DEFAULT_L2_BUDGET: u64 = 3;
const DEFAULT_RETRY_BUDGET: u64 = 5;

/// `units.json` into `p.detail.units`, with the graph's findings and each
/// unit's newest runs. The units were built while the file was parsed (no
/// tree of values, no copies); the graph is analysed in place.
pub(super) fn units(
    p: &mut Project,
    dir: &Path,
    file: Option<UnitsFile>,
    pid: Option<&str>,
) -> UnitsInfo {
    let Some(file) = file else {
        return UnitsInfo::default();
    };
    let UnitsFile {
        project_id,
        units: list,
        l2_rounds,
        l2_budget,
        ..
    } = file;
    for problem in list.problems {
        p.problem(UNITS_FILE, problem);
    }
    let mut listed = list.units;
    if let (Some(owner), Some(pid)) = (project_id.as_ref(), pid)
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
    let a = dag::analyze(&listed);
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
    for d in &a.duplicates {
        counts.insert(d.as_str(), 0);
    }
    for u in &listed {
        if let Some(n) = counts.get_mut(u.id.as_str()) {
            *n += 1;
        }
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
    let mut stuck = Vec::new();
    for (e, u) in listed.iter().enumerate() {
        // Each id once, at its first entry.
        if a.node
            .get(e)
            .is_none_or(|&j| a.first.get(j as usize) != Some(&(e as u32)))
        {
            continue;
        }
        let id = &u.id;
        if !dag::valid_unit_id(id) {
            add(
                Level::Warning,
                "devloop.bad-unit-id",
                format!("unit id {id} does not match ^[a-z]+(-[a-z]+)*-(be|fe|mw|db)$"),
                id,
            );
        }
        if let Some(h) = u.contract_hash().filter(|h| !dag::valid_contract_hash(h)) {
            add(
                Level::Warning,
                "devloop.bad-contract-hash",
                format!("contract_hash {h} of {id} does not match ^sha256:[a-f0-9]{{16}}$"),
                id,
            );
        }
        let status = u.status.as_str();
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
        let retries = u.retries().unwrap_or(0);
        let budget = u.retry_budget().unwrap_or(DEFAULT_RETRY_BUDGET);
        let spent = retries >= budget;
        if status == "blocked" || (spent && status != "passed") {
            let used = (u.retries().is_some() || u.retry_budget().is_some() || spent).then(|| {
                crate::phrase!(
                    "phrase.devloop.retries_used",
                    retries = retries,
                    budget = budget
                )
            });
            p.blockers.push(crate::phrase!(
                "phrase.devloop.unit_blocker",
                id = id.as_str(),
                status = status,
                used = used.clone()
            ));
            let used_en = used
                .as_ref()
                .map(|u| u.en().into_owned())
                .unwrap_or_default();
            add(
                Level::Warning,
                "devloop.unit-blocked",
                format!("{id} is {status}{used_en}: it needs a human to go on"),
                id,
            );
            // The inbox names the unit in its reference column already.
            stuck.push((
                id.to_string(),
                crate::phrase!("phrase.devloop.unit_stuck", status = status, used = used),
            ));
        }
    }
    p.findings.extend(found);

    // Runs, once per id: `units/{id}/runs/`, plus seed 004's `runs/`.
    // Only the units with a directory under `units/` are looked up: one
    // listing, not a lookup per unit.
    let mut flat: HashMap<String, Vec<Run>> = HashMap::new();
    for r in runs::flat_runs(p, dir) {
        if let Some(u) = r.unit_id.clone() {
            flat.entry(u).or_default().push(r);
        }
    }
    let with_dirs: HashSet<String> = runs::unit_dirs(dir).into_iter().collect();
    let mut by_id: HashMap<&str, Vec<Run>> = HashMap::new();
    if !with_dirs.is_empty() || !flat.is_empty() {
        for u in &listed {
            let id = u.id.as_str();
            if by_id.contains_key(id) || !(with_dirs.contains(id) || flat.contains_key(id)) {
                continue;
            }
            let mut runs = if with_dirs.contains(id) {
                runs::unit_runs(p, dir, id)
            } else {
                Vec::new()
            };
            if let Some(more) = flat.remove(id) {
                runs.extend(more);
                runs.sort_by(|a, b| b.run_id.cmp(&a.run_id));
                runs.dedup_by(|a, b| a.run_id == b.run_id);
                runs.truncate(runs::RUNS_PER_UNIT);
            }
            by_id.insert(id, runs);
        }
    }
    // Runs by entry index (the map borrows the ids).
    let runs_of: Vec<(usize, Vec<Run>)> = if by_id.is_empty() {
        Vec::new()
    } else {
        listed
            .iter()
            .enumerate()
            .filter_map(|(e, u)| by_id.get(u.id.as_str()).map(|r| (e, r.clone())))
            .collect()
    };
    drop(by_id);
    for (e, runs) in runs_of {
        if !runs.is_empty() {
            listed[e].more_mut().runs = runs;
        }
    }
    // Layers, and who depends on whom (the Units pane shows both
    // directions), computed once: each list allocated at its exact size
    // (ids of up to 24 bytes are copied inline, no allocation each).
    for e in 0..listed.len() {
        let ds = a.downstream_of(e);
        let mut down: Vec<CompactString> = Vec::with_capacity(ds.len());
        for &d in ds {
            let id = &listed[d as usize].id;
            if down.last() != Some(id) {
                down.push(id.clone());
            }
        }
        let u = &mut listed[e];
        u.layer = a.layers.get(e).copied().flatten();
        u.downstream = down.into_boxed_slice();
    }
    listed.shrink_to_fit();
    p.detail.units = listed;
    UnitsInfo {
        cycles: a.cycles,
        unknown_refs: a.unknown_refs,
        duplicates: a.duplicates.len(),
        layer_count: a.layer_count,
        l2: (
            schema::count(l2_rounds).unwrap_or(0),
            schema::count(l2_budget).unwrap_or(DEFAULT_L2_BUDGET),
        ),
        stuck,
    }
}
