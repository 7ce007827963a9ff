//! Progress by the seed's weights (LoopController.getProgress): PRD 10 +
//! SDD 20 + Units 50 × passed/total + L2 15 + Ship 5 = 100, and the current
//! phase (`prd_drafting`, `sdd_drafting`, `L1`, `L2`, `shipped`, `blocked`).

use crate::model::{Progress, ProgressPart};

/// What progress is computed from.
#[derive(Debug, Default, Clone)]
pub(crate) struct Facts<'a> {
    /// `project.json` status.
    pub status: &'a str,
    /// A PRD exists (`prd.html` or `prd/`).
    pub prd: bool,
    /// An SDD exists (`sdd.html` with unit sections, or units derived from it).
    pub sdd: bool,
    /// Units (distinct ids) with status `passed`, and all of them.
    pub passed: usize,
    pub total: usize,
    /// The L2 gate (every unit passed, every contract hash current).
    pub gate_open: bool,
    /// The latest integration run passed.
    pub l2_passed: bool,
}

pub(crate) fn is_shipped(status: &str) -> bool {
    matches!(status, "shipped" | "shipped-final")
}

pub(crate) fn compute(f: &Facts<'_>) -> Progress {
    // The seed: "shipped → percent = 100".
    let shipped = is_shipped(f.status);
    let units = if shipped {
        1.0
    } else if f.total == 0 {
        0.0
    } else {
        f.passed.min(f.total) as f64 / f.total as f64
    };
    let prd = shipped || f.prd;
    let sdd = shipped || f.sdd;
    let l2 = shipped || (f.gate_open && f.l2_passed);
    let part = |name: &str, weight: f64, share: f64| ProgressPart {
        part: name.to_owned(),
        weight,
        points: (weight * share * 100.0).round() / 100.0,
    };
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    let raw =
        10.0 * flag(prd) + 20.0 * flag(sdd) + 50.0 * units + 15.0 * flag(l2) + 5.0 * flag(shipped);
    let phase = match f.status {
        "blocked" => "blocked",
        "abandoned" => "abandoned",
        s if is_shipped(s) => "shipped",
        "prd_drafting" => "prd_drafting",
        _ if !prd => "prd_drafting",
        _ if !sdd => "sdd_drafting",
        _ if !f.gate_open => "L1",
        _ => "L2",
    };
    Progress {
        percent: (raw * 10.0).round() / 10.0,
        phase: phase.to_owned(),
        breakdown: vec![
            part("prd", 10.0, flag(prd)),
            part("sdd", 20.0, flag(sdd)),
            part("units", 50.0, units),
            part("l2", 15.0, flag(l2)),
            part("ship", 5.0, flag(shipped)),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_cases() {
        // An empty project.
        let p = compute(&Facts {
            status: "prd_drafting",
            ..Facts::default()
        });
        assert_eq!((p.percent, p.phase.as_str()), (0.0, "prd_drafting"));
        // Every unit passed, L2 not run yet: about 80.
        let p = compute(&Facts {
            status: "running",
            prd: true,
            sdd: true,
            passed: 3,
            total: 3,
            gate_open: true,
            l2_passed: false,
        });
        assert_eq!((p.percent, p.phase.as_str()), (80.0, "L2"));
        // Shipped: 100.
        let p = compute(&Facts {
            status: "shipped",
            ..Facts::default()
        });
        assert_eq!((p.percent, p.phase.as_str()), (100.0, "shipped"));
    }

    #[test]
    fn units_count_by_share() {
        // p-restock: PRD 10 + SDD 20 + 50 × 4/6.
        let p = compute(&Facts {
            status: "running",
            prd: true,
            sdd: true,
            passed: 4,
            total: 6,
            ..Facts::default()
        });
        assert_eq!(p.percent, 63.3);
        assert_eq!(p.phase, "L1");
        let points: Vec<f64> = p.breakdown.iter().map(|b| b.points).collect();
        assert_eq!(points, vec![10.0, 20.0, 33.33, 0.0, 0.0]);
        let p = compute(&Facts {
            status: "blocked",
            prd: true,
            sdd: false,
            passed: 2,
            total: 6,
            ..Facts::default()
        });
        assert_eq!((p.percent, p.phase.as_str()), (26.7, "blocked"));
        let p = compute(&Facts {
            status: "running",
            prd: true,
            ..Facts::default()
        });
        assert_eq!(p.phase, "sdd_drafting");
    }
}
