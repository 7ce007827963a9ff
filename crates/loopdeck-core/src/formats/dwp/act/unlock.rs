//! `unlock --confirm`: remove a stale `state.json.lock` directory, left by
//! a writer that crashed. Shown with its age; removed only when a human
//! confirms that no writer is active (seed 002: a stale cooperative lock
//! needs that confirmation before removal).

use std::path::Path;
use std::time::Duration;

use super::{LOCK, STATE, refuse};
use crate::store::lock;
use crate::store::txn::{ActError, FileChange, Outcome, WriteOptions};

/// A writer holds the lock only while it writes; one younger than this may
/// still be held by a live writer, and is not removed even with --confirm.
const STALE_AFTER: Duration = Duration::from_secs(60);

pub(super) fn unlock(dir: &Path, confirm: bool, opts: &WriteOptions) -> Result<Outcome, ActError> {
    opts.gate()?;
    let Some(age) = lock::dir_lock_age(dir, STATE) else {
        return Err(refuse(
            "state.json is not locked: there is no state.json.lock to remove",
        ));
    };
    let shown = crate::model::relative_age(age.as_secs() as i64);
    if age < STALE_AFTER {
        return Err(ActError::Locked(format!(
            "state is locked; inspect interrupted writer before recovering lock: state.json.lock is only {shown} old, a writer may still hold it"
        )));
    }
    if !confirm {
        return Err(refuse(format!(
            "state.json.lock has been held for {shown}; a writer holds it only while it writes, so one probably crashed. Check that no writer is active, then run `loopdeck act {} unlock --confirm`",
            dir.display()
        )));
    }
    if !opts.dry_run {
        lock::remove_dir_lock(dir, STATE).map_err(store_err)?;
    }
    Ok(Outcome {
        dry_run: opts.dry_run,
        files: vec![FileChange {
            file: LOCK.to_owned(),
            before: None,
            after: None,
            diff: format!("removed stale {LOCK} (held for {shown})\n"),
            appended: false,
        }],
        primary: STATE.to_owned(),
        audit_id: None,
        read: Vec::new(),
        recovered: Vec::new(),
        said: Vec::new(),
    })
}

fn store_err(source: crate::store::StoreError) -> ActError {
    ActError::Store {
        file: LOCK.to_owned(),
        source,
    }
}
