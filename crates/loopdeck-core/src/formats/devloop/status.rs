//! The light read of `loopdeck status`: the statusline's facts only. The
//! units are counted from one borrowed pass over `units.json` (ids and
//! statuses point into the file's bytes); the graph and the contract hashes
//! are checked only when every unit passed (the only case where they change
//! the phase). Any unit this pass cannot read sends the caller to the full
//! reader, so both always print the same line.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde::Deserialize;

use super::*;

#[derive(Deserialize)]
struct CountFile {
    #[serde(default)]
    units: Counts,
}

/// Distinct ids (the first entry of each counting) and how many passed,
/// counted while the array is read: nothing is kept but the ids, borrowed.
#[derive(Default)]
struct Counts {
    total: usize,
    passed: usize,
}

#[derive(Deserialize)]
struct CountUnit<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
}

impl<'de> Deserialize<'de> for Counts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Counts;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of units")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Counts, E> {
                Ok(Counts::default())
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Counts, A::Error> {
                let mut seen: HashSet<Cow<'de, str>> = HashSet::new();
                let mut c = Counts::default();
                while let Some(u) = seq.next_element::<CountUnit<'de>>()? {
                    let Some(id) = u.id.filter(|id| !id.trim().is_empty()) else {
                        continue;
                    };
                    if seen.insert(id) {
                        c.total += 1;
                        if u.status.as_deref() == Some("passed") {
                            c.passed += 1;
                        }
                    }
                }
                Ok(c)
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
struct SlimFile<'a> {
    #[serde(borrow, default)]
    units: Option<Vec<SlimUnit<'a>>>,
}

#[derive(Deserialize)]
struct SlimUnit<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    depends_on: Option<Vec<Cow<'a, str>>>,
    #[serde(borrow, default)]
    contract_hash: Option<Cow<'a, str>>,
}

impl dag::Node for SlimUnit<'_> {
    fn id(&self) -> &str {
        self.id.as_deref().unwrap_or("")
    }
    fn deps(&self) -> impl Iterator<Item = &str> {
        self.depends_on.iter().flatten().map(|d| d.as_ref())
    }
}

/// The summary of the project at `dir`; `None` when `units.json` has a
/// shape this pass does not read (the full reader then decides).
pub(super) fn read(dir: &Path, meta: &ProjectMeta) -> Option<Project> {
    let (name, short) = names(meta, dir);
    let mut p = Project::new(Format::Devloop, dir.to_path_buf(), name);
    p.status = meta
        .status
        .clone()
        .filter(nonempty)
        .unwrap_or_else(|| "unknown".to_owned());
    p.status_kind = kinds::project(&p.status);
    p.updated_at = meta
        .updated_at
        .as_ref()
        .and_then(|t| t.at())
        .or_else(|| store::mtime(&dir.join(PROJECT_FILE)));
    // Files read only for a fact; their problems are the full reader's.
    let mut scratch = Project::new(Format::Devloop, dir.to_path_buf(), String::new());

    let bytes = match store::read_in(dir, UNITS_FILE, store::STATE_FILE_LIMIT) {
        Ok(b) => Some(b),
        Err(StoreError::Vanished) => None,
        // Unreadable: the full reader has no units either.
        Err(_) => None,
    };
    // First pass: count, holding only the distinct ids (borrowed).
    let counted: Option<CountFile> = match &bytes {
        Some(b) => Some(serde_json::from_slice(b).ok()?),
        None => None,
    };
    let (total, passed) = counted.map_or((0, 0), |c| (c.units.total, c.units.passed));
    let all_passed = total > 0 && passed == total;
    let sdd = if total == 0 || all_passed {
        docs::sdd(&mut scratch, dir, None)
    } else {
        None
    };
    // Only when every unit passed do the graph and the hashes matter.
    let gate_open = all_passed && {
        let file: SlimFile<'_> = serde_json::from_slice(bytes.as_deref().unwrap_or(b"{}")).ok()?;
        let units: Vec<SlimUnit<'_>> = file
            .units
            .unwrap_or_default()
            .into_iter()
            .filter(|u| u.id.as_deref().is_some_and(|id| !id.trim().is_empty()))
            .collect();
        let a = dag::analyze(&units);
        let sane = a.cycles.is_empty() && a.unknown_refs.is_empty() && a.duplicates.is_empty();
        sane && sdd.as_ref().is_some_and(|s| all_current(&units, s))
    };
    let prd = docs::prd(&mut scratch, dir).present;
    let l2_passed = runs::integration(&mut scratch, dir)
        .first()
        .is_some_and(|r| r.ok);
    let facts = progress::Facts {
        status: &p.status,
        prd,
        sdd: sdd.as_ref().is_some_and(|s| !s.units.is_empty()) || total > 0,
        passed,
        total,
        gate_open,
        l2_passed,
    };
    let progress = progress::compute(&facts);
    apply_progress(&mut p, &short, &progress, passed, total);
    Some(p)
}

/// Does every distinct unit's hash match its contract in the SDD (the
/// first section of its id, as the full reader checks)?
fn all_current(units: &[SlimUnit<'_>], sdd: &html::Sdd) -> bool {
    let mut sections: HashMap<&str, &html::SddUnit> = HashMap::new();
    for s in &sdd.units {
        sections.entry(s.id.as_str()).or_insert(s);
    }
    let mut seen = HashSet::new();
    units
        .iter()
        .filter(|u| seen.insert(u.id.as_deref().unwrap_or("")))
        .all(|u| {
            let section = sections.get(u.id.as_deref().unwrap_or(""));
            match (section.and_then(|s| s.contract.as_ref()), &u.contract_hash) {
                (Some(c), Some(h)) => docs::contract_matches(c, h),
                _ => false,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn same_line(dir: &Path) {
        let full = load(dir).unwrap();
        let light = read_status(dir).unwrap();
        assert_eq!(light.statusline, full.statusline, "{}", dir.display());
        assert_eq!(light.status_kind, full.status_kind);
        assert_eq!(light.progress_percent, full.progress_percent);
    }

    #[test]
    fn the_light_read_prints_the_full_readers_line() {
        let ws = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("examples/workspace/devloop/data/companies/acme/projects");
        for name in store::list_names(&ws) {
            same_line(&ws.join(name));
        }
        // Edge cases: duplicates, no ids, a cycle with every unit passed,
        // numeric ids (the light pass hands over), no units.json at all.
        let tmp = tempfile::tempdir().unwrap();
        let meta = r#"{"id":"p-x","company_id":"c","status":"running"}"#;
        for units in [
            r#"{"units":[{"id":"a-be","status":"passed"},{"id":"a-be","status":"failed"},{"status":"passed"},{"id":" ","status":"passed"}]}"#,
            r#"{"units":[{"id":"a-be","status":"passed","depends_on":["b-be"]},{"id":"b-be","status":"passed","depends_on":["a-be"]}]}"#,
            r#"{"units":[{"id":7,"status":"passed"}]}"#,
            r#"{"units":null}"#,
            r#"{"units":[{"id":"a-be","status":"passed","contract_hash":"sha256:0000000000000000"}]}"#,
            "not json",
        ] {
            let d = tmp.path().join("p");
            let _ = fs::remove_dir_all(&d);
            fs::create_dir_all(&d).unwrap();
            fs::write(d.join(PROJECT_FILE), meta).unwrap();
            fs::write(d.join(UNITS_FILE), units).unwrap();
            same_line(&d);
            fs::write(d.join("sdd.html"), "<article data-doc=\"sdd\"><section data-unit-id=\"a-be\"><pre data-contract>x</pre></section></article>").unwrap();
            same_line(&d);
        }
    }
}
