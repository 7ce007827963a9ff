//! The manifest's own contract (seed 002, `manifest.json` and "格式、物化、
//! 批准与晋升"; the published schemas plan-manifest v1 and v2): its REQUIRED
//! fields, its enums, and the state's `format` against the manifest's
//! `plan_format`, which only a Lite → Full promotion may make differ.

use super::schema::{Manifest, schema_version};
use super::{MANIFEST, Plan, STATE, norm};
use crate::model::{Finding, Level};

/// REQUIRED in a v1 manifest (plan-manifest v1 has no `plan_format`).
const REQUIRED_V1: &[&str] = &[
    "schema",
    "spec_version",
    "name",
    "archetype",
    "rigor",
    "created_at",
    "task_count",
];
/// REQUIRED from v2 on (seed 002 and plan-manifest v2; v5 is the v2 shape).
const REQUIRED_V2: &[&str] = &[
    "schema",
    "spec_version",
    "name",
    "archetype",
    "rigor",
    "created_at",
    "task_count",
    "plan_format",
];

/// The manifest's enums, in the schemas' order.
pub(crate) const ENUMS: &[(&str, &[&str])] = &[
    (
        "archetype",
        &["individual", "orchestrator-hub", "agent-workspace"],
    ),
    ("rigor", &["micro", "standard", "deep"]),
    ("plan_format", &["lite", "full"]),
];

/// The state's `format` values.
const FORMATS: [&str; 2] = ["lite", "full"];

/// The REQUIRED fields of a manifest of schema version `era`: v1's own
/// list; any other (v2, v5, newer, none) the seed's.
pub(crate) fn required(era: Option<u32>) -> &'static [&'static str] {
    if era == Some(1) {
        REQUIRED_V1
    } else {
        REQUIRED_V2
    }
}

/// Whether the manifest holds a usable value for `field`.
fn has(m: &Manifest, field: &str) -> bool {
    match field {
        "schema" => m.schema.is_some(),
        "spec_version" => m.spec_version.is_some(),
        "name" => m.name.is_some(),
        "archetype" => m.archetype.is_some(),
        "rigor" => m.rigor.is_some(),
        "created_at" => m.created_at.is_some(),
        "task_count" => m.task_count.is_some(),
        "plan_format" => m.plan_format.is_some(),
        _ => true,
    }
}

fn value<'m>(m: &'m Manifest, field: &str) -> Option<&'m str> {
    match field {
        "archetype" => m.archetype.as_deref(),
        "rigor" => m.rigor.as_deref(),
        "plan_format" => m.plan_format.as_deref(),
        _ => None,
    }
}

fn push(findings: &mut Vec<Finding>, code: &str, msg: String, at: String) {
    findings.push(Finding::new(Level::Error, code, msg).at(at));
}

/// The manifest's required fields and enums, and the state's format.
pub(crate) fn check(findings: &mut Vec<Finding>, plan: &Plan<'_>) {
    if let Some(m) = plan.manifest {
        let era = m
            .schema
            .as_deref()
            .and_then(|u| schema_version(u, "manifest"));
        let schema = match era {
            Some(v) => format!("plan-manifest v{v}"),
            None => "the seed".to_owned(),
        };
        for field in required(era).iter().filter(|f| !has(m, f)) {
            push(
                findings,
                "dwp.manifest-required",
                format!("{MANIFEST} has no usable `{field}`, which {schema} requires"),
                format!("{MANIFEST}#{field}"),
            );
        }
        for (field, allowed) in ENUMS {
            let Some(v) = value(m, field).filter(|v| !allowed.contains(v)) else {
                continue;
            };
            push(
                findings,
                "dwp.manifest-enum",
                format!(
                    "{MANIFEST} `{field}` is `{v}`, not one of {}",
                    allowed.join(", ")
                ),
                format!("{MANIFEST}#{field}"),
            );
        }
    }
    format_agrees(findings, plan);
}

/// `state.format` is lite or full and equals the manifest's `plan_format`,
/// except lite → full (a promotion, recorded only in state.json).
fn format_agrees(findings: &mut Vec<Finding>, plan: &Plan<'_>) {
    let Some(format) = plan.state.and_then(|s| s.format.as_deref()).map(norm) else {
        return;
    };
    let at = format!("{STATE}#format");
    if !FORMATS.contains(&format.as_str()) {
        findings.push(
            Finding::new(
                Level::Warning,
                "dwp.format-unknown",
                format!("{STATE} format is `{format}`, not one of lite, full"),
            )
            .at(at),
        );
        return;
    }
    let Some(created) = plan
        .manifest
        .and_then(|m| m.plan_format.as_deref())
        .filter(|f| FORMATS.contains(f))
    else {
        return;
    };
    let promoted = created == "lite" && format == "full";
    if created != format && !promoted {
        push(
            findings,
            "dwp.format-mismatch",
            format!(
                "{STATE} format is `{format}` but {MANIFEST} plan_format is `{created}`: they must agree, and only a Lite → Full promotion may change the format"
            ),
            at,
        );
    }
}
