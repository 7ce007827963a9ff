//! When each waiting item was first seen (`model::first_seen`), on disk:
//! `first-seen.json` beside the since-you-looked memory in
//! `$XDG_STATE_HOME/loopdeck` (directory 0700, file 0600), written by
//! atomic replacement: `{"version": 1, "items": {"PATH#KIND:REF":
//! RFC3339, …}}`. A missing file is an empty memory; an unreadable or
//! corrupt one too, said once (and replaced by the next save). The same
//! trust rules as `seen.json` (see [`super::seen`]); a save merges with
//! what another process saved meanwhile, under the file's own lock.

use std::collections::{BTreeMap, BTreeSet};
#[cfg(test)]
use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::StoreError;
use super::audit::{self, ReadError, Untrusted};
use crate::model::first_seen::FirstSeen;

/// The memory's file name in the state directory.
pub const FILE: &str = "first-seen.json";
/// The largest memory file read.
const LIMIT: u64 = 64 * 1024 * 1024;
const VERSION: u32 = 1;
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

#[derive(Serialize, Deserialize)]
struct OnDisk {
    version: u32,
    items: BTreeMap<String, DateTime<Utc>>,
    /// Item key → the `[[escalate]]` rules that notified for it (absent
    /// in files written before rules existed).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    notified: BTreeMap<String, BTreeSet<String>>,
}

/// What the file holds.
#[derive(Default)]
struct Held {
    items: BTreeMap<String, DateTime<Utc>>,
    notified: BTreeMap<String, BTreeSet<String>>,
}

/// The memory file in the state directory `dir`.
pub fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// The memory in `dir`, and a warning to show once when it could not be
/// read (then it starts empty: items wait from now).
pub fn load(dir: &Path) -> (FirstSeen, Option<String>) {
    let existed = audit::trusted_dir(dir).unwrap_or(false) && path(dir).is_file();
    let (held, warning) = read(dir);
    // Relative project paths are keyed from the working directory, as
    // `seen.json`'s are, so every spelling of a root shares one clock.
    let base = std::env::current_dir().unwrap_or_default();
    let mut mem = FirstSeen::new(held.items, base);
    // What was notified for an item still remembered, or for a stall
    // (`PATH#stalled`, no item's key: kept until the stall ends).
    for (k, rules) in held.notified {
        let k = mem.keyed(&k);
        if mem.at.contains_key(&k) || k.ends_with("#stalled") {
            mem.notified.entry(k).or_default().extend(rules);
        }
    }
    mem.remembered = existed && warning.is_none();
    (mem, warning)
}

fn read(dir: &Path) -> (Held, Option<String>) {
    let file = path(dir);
    let unreadable = |why: &str| {
        format!(
            "{} could not be read ({why}): items without a time in their files wait from now",
            file.display()
        )
    };
    match audit::trusted_dir(dir) {
        Ok(true) => {}
        Ok(false) => return (Held::default(), None),
        Err(e) => return (Held::default(), Some(untrusted(&e))),
    }
    let bytes = match audit::read_trusted(&file, LIMIT) {
        Ok(Some(b)) => b,
        Ok(None) | Err(ReadError::Store(StoreError::Vanished)) => return (Held::default(), None),
        Err(ReadError::Untrusted(e)) => return (Held::default(), Some(untrusted(&e))),
        Err(ReadError::Store(e)) => return (Held::default(), Some(unreadable(&e.to_string()))),
    };
    match serde_json::from_slice::<OnDisk>(&bytes) {
        Ok(d) if d.version == VERSION => (
            Held {
                items: d.items,
                notified: d.notified,
            },
            None,
        ),
        Ok(d) => (
            Held::default(),
            Some(unreadable(&format!("version {} unknown", d.version))),
        ),
        Err(e) => (Held::default(), Some(unreadable(&e.to_string()))),
    }
}

fn untrusted(e: &Untrusted) -> String {
    format!("{e}; when items were first seen is not read from it, nor saved")
}

/// Write `mem` to `dir` (made 0700 if missing), atomically, 0600, merged
/// with what another process saved meanwhile (see [`FirstSeen::merged`]);
/// what it forgot is then settled.
pub fn save(dir: &Path, mem: &mut FirstSeen) -> Result<(), StoreError> {
    let refuse = |e: Untrusted| StoreError::Io(std::io::Error::other(untrusted(&e)));
    audit::make_state_dir(dir).map_err(refuse)?;
    let file = path(dir);
    let lock = super::lock::lock_name(FILE, super::txn::LockKind::Owner);
    audit::trust_file(&dir.join(lock)).map_err(refuse)?;
    audit::trust_file(&file).map_err(refuse)?;
    let _lock = super::lock::acquire(dir, FILE, super::txn::LockKind::Owner, LOCK_WAIT)
        .map_err(|e| StoreError::Io(std::io::Error::other(e.to_string())))?;
    let held = read(dir).0;
    let items = mem.merged(held.items);
    let mut notified = mem.merged_notified(held.notified);
    // A stall's key (`PATH#stalled`) is no item's: kept until it ends.
    notified.retain(|k, _| items.contains_key(k) || k.ends_with("#stalled"));
    let bytes = serde_json::to_vec(&OnDisk {
        version: VERSION,
        items,
        notified,
    })
    .map_err(|e| StoreError::Io(std::io::Error::other(e)))?;
    super::seen::write_private(&file, &bytes)?;
    mem.forgotten.clear();
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 6, 1, h, 0, 0).unwrap()
    }

    /// Saved 0600, read back; what another process saved meanwhile is
    /// merged (the earlier time wins), what this one forgot stays gone; a
    /// corrupt file is said and starts empty, never remembered.
    #[test]
    fn saved_private_merged_and_a_corrupt_file_said() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("loopdeck");
        let (mut mem, warning) = load(&dir);
        assert!(warning.is_none() && !mem.remembered);
        mem.at.insert("/p#question:OQ-1".into(), at(10));
        mem.at.insert("/p#question:OQ-2".into(), at(10));
        save(&dir, &mut mem).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(path(&dir)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // Another process: OQ-1 seen earlier, OQ-3 new.
        let (mut other, _) = load(&dir);
        assert!(other.remembered);
        other.at.insert("/p#question:OQ-1".into(), at(9));
        other.at.insert("/p#question:OQ-3".into(), at(11));
        save(&dir, &mut other).unwrap();
        // This one forgot OQ-2 (answered) and saves.
        mem.at.remove("/p#question:OQ-2");
        mem.forgotten.insert("/p#question:OQ-2".into());
        save(&dir, &mut mem).unwrap();
        let (back, _) = load(&dir);
        let keys: Vec<(&str, DateTime<Utc>)> =
            back.at.iter().map(|(k, t)| (k.as_str(), *t)).collect();
        assert_eq!(
            keys,
            [("/p#question:OQ-1", at(9)), ("/p#question:OQ-3", at(11))]
        );
        fs::write(path(&dir), b"{not json").unwrap();
        let (bad, warning) = load(&dir);
        assert!(bad.at.is_empty() && !bad.remembered);
        assert!(warning.unwrap().contains("could not be read"));
    }

    /// What a rule notified is kept across runs: for an item remembered,
    /// and for a stall (`PATH#stalled`, no item's key), so a restart does
    /// not notify again. A key older versions saved by a relative path is
    /// read from the working directory, as the new ones are made.
    #[test]
    fn what_was_notified_survives_a_restart_stalls_included() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("loopdeck");
        let cwd = std::env::current_dir().unwrap();
        let (mut mem, _) = load(&dir);
        mem.at.insert("/p#question:OQ-1".into(), at(10));
        mem.at.insert("q#question:OQ-1".into(), at(9));
        for key in ["/p#question:OQ-1", "/p#stalled", "host:b:/w#stalled", "q#stalled", "/gone#question:X"] {
            assert!(mem.notify_once(key, "rule"), "{key}");
        }
        save(&dir, &mut mem).unwrap();
        let (mut back, _) = load(&dir);
        let q = cwd.join("q").display().to_string();
        let mut want_at = vec!["/p#question:OQ-1".to_owned(), format!("{q}#question:OQ-1")];
        want_at.sort();
        let got_at: Vec<String> = back.at.keys().cloned().collect();
        assert_eq!(got_at, want_at);
        assert_eq!(back.at[&format!("{q}#question:OQ-1")], at(9));
        let mut want: Vec<String> = ["/p#question:OQ-1", "/p#stalled", "host:b:/w#stalled"]
            .map(str::to_owned)
            .into();
        want.push(format!("{q}#stalled"));
        want.sort();
        let got: Vec<String> = back.notified.keys().cloned().collect();
        assert_eq!(got, want, "an item forgotten takes its notices with it");
        assert!(!back.notify_once("/p#stalled", "rule"), "notified again");
        assert!(!back.notify_once(&format!("{q}#stalled"), "rule"), "notified again");
    }
}
