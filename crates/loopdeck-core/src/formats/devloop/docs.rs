//! The documents: the PRD (`prd.html` or the `prd/` site), `sdd.html`, and
//! the contract hash check of each unit against its SDD section.

use super::*;

/// The PRD: `prd.html`, else the PRD site under `prd/`.
#[derive(Default)]
pub(super) struct PrdInfo {
    pub(super) present: bool,
    /// The page to read first (`prd.html` or `prd/index.html`).
    pub(super) file: Option<String>,
    pub(super) rev: Option<u64>,
    /// `(page, text)` of each `<aside data-conflict>`.
    pub(super) conflicts: Vec<(String, String)>,
}

pub(super) fn prd_pages(dir: &Path) -> Vec<String> {
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

pub(super) fn prd(p: &mut Project, dir: &Path) -> PrdInfo {
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

pub(super) fn sdd(p: &mut Project, dir: &Path, prd_rev: Option<u64>) -> Option<html::Sdd> {
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
pub(super) fn contract_hash(text: &str) -> String {
    let hex = store::sha256_hex(text.as_bytes());
    format!("sha256:{}", &hex[..16])
}

/// Does one reading of `contract` hash to `hash`?
pub(super) fn contract_matches(contract: &html::Contract, hash: &str) -> bool {
    contract.readings().iter().any(|r| contract_hash(r) == hash)
}

/// An archived SDD (its file, its contents, its units by id).
pub(super) type Archive = (String, html::Sdd, HashMap<String, usize>);

/// Contracts from the SDD into the units, and the hash check.
pub(super) fn contracts(
    p: &mut Project,
    dir: &Path,
    sdd: Option<&html::Sdd>,
    changes: &timeline::Changes,
) {
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
    // In place: a copy of 200,000 units would double the peak.
    let mut units = std::mem::take(&mut p.detail.units);
    // Each id's first entry (no copy of the ids).
    let firsts: Vec<bool> = {
        let mut seen = HashSet::new();
        units.iter().map(|u| seen.insert(u.id.as_str())).collect()
    };
    for (u, first) in units.iter_mut().zip(firsts) {
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
            continue;
        };
        let more = u.more_mut();
        more.acceptance = s.acceptance.clone();
        more.contract = s.contract.as_ref().map(|c| c.text.clone());
        if let (Some(sdd_deps), true) = (&s.depends, first) {
            let a: HashSet<&str> = u.depends_on.iter().map(|d| d.as_str()).collect();
            let b: HashSet<&str> = sdd_deps.iter().map(String::as_str).collect();
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
            continue;
        };
        let Some(hash) = u.contract_hash().map(str::to_owned) else {
            u.more_mut().contract_ok = Some(false);
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
            continue;
        };
        let ok = contract_matches(contract, &hash);
        u.more_mut().contract_ok = Some(ok);
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
                    .get(u.id.as_str())
                    .and_then(|&i| doc.units.get(i))
                    .and_then(|s| s.contract.as_ref())
                    .is_some_and(|c| contract_matches(c, &hash))
            }) {
                msg.push_str(&format!("; {hash} is its contract in {file}"));
            }
            if let Some((sdd_rev, units_rev)) = changes.missed_resets.get(u.id.as_str()) {
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
    }
    let listed: HashSet<&str> = units.iter().map(|u| u.id.as_str()).collect();
    for s in &sdd.units {
        if !listed.contains(s.id.as_str()) && !units.is_empty() {
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
    p.detail.units = units;
    p.findings.extend(findings);
}

/// The newest archived SDD revisions, parsed (for a stale hash's origin).
pub(super) fn archived_sdds(p: &mut Project, dir: &Path) -> Vec<(String, html::Sdd)> {
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
