//! `loopdeck list --cached`: the projects as the last reading kept them
//! (the snapshot the console and `watch` write in the state directory,
//! `loopdeck_core::memory::snapshot`), in milliseconds, for a shell prompt
//! or a script. Possibly stale, and says so: the JSON's `cached`
//! (`written_at`, `age_seconds`) and each row's `changed_since` (its main
//! files no longer match what the snapshot recorded); the table says the
//! age on stderr. Nothing is read of the projects but a stat of their
//! main files; no host is asked. No usable snapshot (none yet, or one in
//! doubt): why on stderr, nothing on stdout, exit 5
//! ([`crate::exit::EXIT_NO_SNAPSHOT`]).

use std::io::{self, Write};
use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::views::{Cached, ListView, Policy, Row, SCHEMA_VERSION, rfc3339};
use super::{json, roots_text, table};
use crate::exit::{EXIT_NO_SNAPSHOT, EXIT_OK};
use crate::model::text::sanitize_line;
use loopdeck_core::memory::snapshot;

/// Print the snapshot of `roots` as `list` prints a reading.
pub(super) fn list(
    roots: &[PathBuf],
    as_json: bool,
    now: DateTime<Utc>,
    stamp: Option<String>,
    policy: &Policy,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let found = match loopdeck_core::memory::state_dir() {
        None => Err(snapshot::SnapshotError::NoStateDir),
        Some(dir) => snapshot::load(&dir, roots),
    };
    let found = match found {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(
                err,
                "loopdeck: {}",
                crate::t!("cli.list.no_cached", why = sanitize_line(&e.to_string()))
            );
            return Ok(EXIT_NO_SNAPSHOT);
        }
    };
    let age = (Utc::now() - found.written_at).num_seconds().max(0);
    let changed = snapshot::changed_since(&found.entries);
    let findings: Vec<usize> = found.entries.iter().map(|e| e.findings).collect();
    let mut projects: Vec<crate::model::Project> =
        found.entries.into_iter().map(|e| e.project).collect();
    // A rule's `waited` needs every item's waiting time, as `list` has it
    // (read only: `--cached` writes nothing).
    if !policy.rules.is_empty() {
        super::first_seen(&mut projects, now, true, err);
    }
    let rows: Vec<Row<'_>> = projects
        .iter()
        .zip(findings.iter().zip(&changed))
        .map(|(p, (&findings, &changed))| Row {
            findings,
            changed_since: Some(changed),
            ..Row::at(p, now, policy)
        })
        .collect();
    if as_json {
        json::write(
            out,
            &ListView {
                schema_version: SCHEMA_VERSION,
                now: stamp,
                roots: roots_text(roots),
                cached: Some(Cached {
                    written_at: rfc3339(Some(found.written_at)),
                    age_seconds: age,
                }),
                problems: &[],
                projects: rows,
            },
        )?;
    } else {
        out.write_all(table::list(&rows).as_bytes())?;
        let n = changed.iter().filter(|c| **c).count();
        let _ = writeln!(
            err,
            "loopdeck: {}",
            crate::t!(
                "cli.list.cached_note",
                age = crate::i18n::age(Some(age)),
                n = n
            )
        );
    }
    Ok(EXIT_OK)
}
