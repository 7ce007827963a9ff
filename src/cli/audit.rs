//! `loopdeck audit`: every decision made (by whom, when, on which project
//! and item, which files) and where it stands now (in force, undone,
//! redone), newest first; `--json` writes one object per line for export.
//! Read from the audit log and its set-aside logs, never written.

use std::io::{self, Write};
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::views::SCHEMA_VERSION;
use crate::exit::{EXIT_FINDINGS, EXIT_OK};
use crate::model::text::sanitize_line;
use crate::t;
use loopdeck_core::decide::audit::{self, Op, Record, Standing};

/// One decision as `--json` writes it (one line each).
#[derive(Serialize)]
struct Line<'a> {
    schema_version: u32,
    id: &'a str,
    at: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    now: Option<&'a str>,
    by: &'a str,
    host: &'a str,
    project: String,
    decision: &'a serde_json::Value,
    files: Vec<FileLine<'a>>,
    /// `in-force`, `undone`, `redone`, or `reversal` (an undo or redo).
    standing: &'static str,
    /// The undo or redo that left it so.
    #[serde(skip_serializing_if = "Option::is_none")]
    standing_by: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    partial: bool,
}

#[derive(Serialize)]
struct FileLine<'a> {
    file: &'a str,
    op: Op,
}

/// What `loopdeck audit` keeps.
pub struct Filter {
    /// The project's directory, as found on disk.
    pub project: Option<PathBuf>,
    pub since: Option<DateTime<Utc>>,
    pub by: Option<String>,
}

/// `--since`: a time (RFC 3339) or how long before `now` (`30m`, `24h`,
/// `7d`, `2w`, `90s`).
pub fn since(value: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    if let Ok(t) = DateTime::parse_from_rfc3339(value) {
        return Ok(t.with_timezone(&Utc));
    }
    let bad = || t!("cli.audit.since", value = sanitize_line(value));
    let unit = value.chars().last().ok_or_else(bad)?;
    let n: i64 = value[..value.len() - unit.len_utf8()]
        .parse()
        .map_err(|_| bad())?;
    let seconds = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3_600,
        'd' => 86_400,
        'w' => 604_800,
        _ => return Err(bad()),
    };
    n.checked_mul(seconds)
        .and_then(chrono::Duration::try_seconds)
        .and_then(|d| now.checked_sub_signed(d))
        .ok_or_else(bad)
}

/// Run `loopdeck audit`.
pub fn run(
    filter: &Filter,
    now: DateTime<Utc>,
    json_out: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let Some(dir) = audit::default_dir() else {
        writeln!(err, "loopdeck: {}", sanitize_line(audit::NO_DIR))?;
        return Ok(EXIT_FINDINGS);
    };
    let at = |r: &Record| {
        DateTime::parse_from_rfc3339(&r.at)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    };
    let keep = |r: &Record| {
        filter
            .project
            .as_deref()
            .is_none_or(|p| audit::of_project(r, p))
            && filter.by.as_deref().is_none_or(|b| r.by == b)
            && filter.since.is_none_or(|s| at(r).is_some_and(|t| t >= s))
    };
    let found = match audit::history(&dir, keep) {
        Ok(found) => found,
        Err(e) => {
            writeln!(err, "loopdeck: {}", sanitize_line(&e.to_string()))?;
            return Ok(EXIT_FINDINGS);
        }
    };
    if json_out {
        for (r, standing) in &found {
            let (word, by) = standing_words(standing);
            let line = Line {
                schema_version: SCHEMA_VERSION,
                id: &r.id,
                at: &r.at,
                now: r.now.as_deref(),
                by: &r.by,
                host: &r.host,
                project: r.project_dir().to_string_lossy().into_owned(),
                decision: &r.decision,
                files: r
                    .files
                    .iter()
                    .map(|f| FileLine {
                        file: &f.file,
                        op: f.op,
                    })
                    .collect(),
                standing: word,
                standing_by: by,
                partial: r.partial,
            };
            serde_json::to_writer(&mut *out, &line).map_err(io::Error::other)?;
            writeln!(out)?;
        }
        return Ok(EXIT_OK);
    }
    let rows: Vec<Vec<String>> = found
        .iter()
        .map(|(r, standing)| {
            let e = audit::entry(r, standing);
            vec![
                crate::i18n::age(e.at.map(|t| (now - t).num_seconds())),
                sanitize_line(&e.by).into_owned(),
                sanitize_line(&e.project_name()).into_owned(),
                sanitize_line(&e.summary).into_owned(),
                e.standing.shown(),
                e.id,
            ]
        })
        .collect();
    let header = [
        t!("cli.audit.age"),
        t!("cli.audit.by"),
        t!("cli.audit.project"),
        t!("cli.audit.decision"),
        t!("cli.audit.standing"),
        t!("cli.audit.id"),
    ];
    out.write_all(super::table::grid(&header, &rows).as_bytes())?;
    writeln!(out, "{}", t!("cli.audit.count", n = rows.len()))?;
    Ok(EXIT_OK)
}

fn standing_words(s: &Standing) -> (&'static str, Option<&str>) {
    match s {
        Standing::InForce => ("in-force", None),
        Standing::Undone { by } => ("undone", Some(by.as_str())),
        Standing::Redone { by } => ("redone", Some(by.as_str())),
        Standing::Reversal => ("reversal", None),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn since_takes_a_time_or_how_long_ago() {
        let now = DateTime::parse_from_rfc3339("2026-06-10T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let at = |s: &str| since(s, now).unwrap().to_rfc3339();
        assert_eq!(at("2026-06-01T10:00:00Z"), "2026-06-01T10:00:00+00:00");
        assert_eq!(at("90s"), "2026-06-10T11:58:30+00:00");
        assert_eq!(at("30m"), "2026-06-10T11:30:00+00:00");
        assert_eq!(at("24h"), "2026-06-09T12:00:00+00:00");
        assert_eq!(at("7d"), "2026-06-03T12:00:00+00:00");
        assert_eq!(at("1w"), "2026-06-03T12:00:00+00:00");
        for bad in ["", "d", "7x", "yesterday", "7 d", "99999999999999999d"] {
            assert!(since(bad, now).is_err(), "{bad}");
        }
    }
}
