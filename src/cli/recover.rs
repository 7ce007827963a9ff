//! `loopdeck recover`: settle every decision that was interrupted (a
//! killed `act` or console, a full disk, a failed audit record) from its
//! intent record in the state directory. The next decision on a project,
//! and `undo`, do the same for that project on their own; this command
//! settles them all at once, e.g. after a crash.

use std::io::{self, Write};
use std::time::Duration;

use serde::Serialize;

use super::json;
use super::views::SCHEMA_VERSION;
use crate::exit::{EXIT_FINDINGS, EXIT_OK, EXIT_PARTIAL};
use crate::model::text::sanitize_line;
use loopdeck_core::decide::intent::{self, Settled};
use loopdeck_core::decide::{self as txn, audit};

#[derive(Serialize)]
struct RecoverView<'a> {
    schema_version: u32,
    settled: &'a [Settled],
}

/// Run `loopdeck recover`.
pub fn run(
    readonly: bool,
    json_out: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    if let Err(e) = txn::gate(readonly, false) {
        writeln!(err, "loopdeck: {}", sanitize_line(&e.to_string()))?;
        return Ok(EXIT_FINDINGS);
    }
    let Some(dir) = audit::default_dir() else {
        writeln!(err, "loopdeck: {}", sanitize_line(audit::NO_DIR))?;
        return Ok(EXIT_FINDINGS);
    };
    let settled = match intent::recover(&dir, None, Duration::from_secs(10)) {
        Ok(s) => s,
        Err(e) => {
            writeln!(err, "loopdeck: {}", sanitize_line(&e.to_string()))?;
            return Ok(crate::exit::of_decision(&e));
        }
    };
    if json_out {
        json::write(
            out,
            &RecoverView {
                schema_version: SCHEMA_VERSION,
                settled: &settled,
            },
        )?;
    } else if settled.is_empty() {
        writeln!(
            out,
            "no interrupted decision in {}",
            sanitize_line(&dir.to_string_lossy())
        )?;
    } else {
        for s in &settled {
            writeln!(out, "{}", sanitize_line(&s.message()))?;
        }
    }
    Ok(
        if settled.iter().any(|s| matches!(s, Settled::Stuck { .. })) {
            EXIT_PARTIAL
        } else {
            EXIT_OK
        },
    )
}
