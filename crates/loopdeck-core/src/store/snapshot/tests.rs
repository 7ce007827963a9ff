#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::*;

/// A copy of the example workspace (every format) under `tmp`, its files
/// dated a month back (a file changed just before a snapshot is checked
/// harder: see `RACY`).
fn workspace(tmp: &Path) -> PathBuf {
    let ws = tmp.join("ws");
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workspace"),
        &ws,
    );
    age(&ws);
    ws
}

fn copy(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy(&e.path(), &target);
        } else {
            fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn age(dir: &Path) {
    let then = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_777_593_600);
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            age(&e.path());
        } else {
            let f = fs::File::options().append(true).open(e.path()).unwrap();
            f.set_modified(then).unwrap();
        }
    }
}

fn read(roots: &[PathBuf]) -> Vec<Project> {
    let mut ps = crate::formats::discover(roots).projects;
    crate::model::sort_newest_first(&mut ps);
    ps
}

/// The fields a row shows, of a project read and of the same kept (its
/// stalls too, from the claims of work kept).
fn row(p: &Project) -> String {
    let now = DateTime::parse_from_rfc3339("2026-06-02T12:00:00Z")
        .unwrap()
        .to_utc();
    let stalls = p.stalls(now, &crate::model::StallLimits::default());
    format!(
        "{} {} {:?} {} {:?} {:?} {} {:?} {:?} {:?} {:?} {:?} {:?} {stalls:?}",
        p.id,
        p.name,
        p.format,
        p.path.display(),
        p.updated_at,
        p.stage,
        p.status,
        p.status_kind,
        p.progress_percent,
        p.inbox,
        p.answered,
        p.problems,
        p.activity,
    )
}

/// Taken from a reading, written, read back: every row as read (the
/// findings counted), newest first, not changed since; a file rewritten
/// after is changed since, its neighbours not.
#[test]
fn a_snapshot_reads_back_as_written_and_tells_what_changed_since() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let state = tmp.path().join("state/loopdeck");
    let roots = vec![ws.clone()];
    let read = read(&roots);
    assert!(read.len() >= 20, "{}", read.len());
    let taken = take(&roots, &read, Utc::now());
    assert_eq!(taken.len(), read.len());
    let bytes = save(&state, taken).unwrap();
    assert!(bytes > 1000);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(file_for(&state, &roots))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let back = load(&state, &roots).unwrap();
    let rows: Vec<String> = back.entries.iter().map(|e| row(&e.project)).collect();
    let want: Vec<String> = read.iter().map(row).collect();
    assert_eq!(rows, want);
    assert!(
        rows.iter().any(|r| r.contains("agent: Some(")),
        "an agent's stall is among them"
    );
    let findings: Vec<usize> = back.entries.iter().map(|e| e.findings).collect();
    assert_eq!(
        findings,
        read.iter().map(|p| p.findings.len()).collect::<Vec<_>>()
    );
    // A phrase keeps its catalogue key (it is said in the language spoken).
    assert!(
        back.entries
            .iter()
            .flat_map(|e| &e.project.inbox)
            .any(|i| matches!(i.title, Phrase::Said { .. }))
    );
    let changed: Vec<&str> = back
        .entries
        .iter()
        .filter(|e| e.changed_since())
        .map(|e| e.project.id.as_str())
        .collect();
    assert!(changed.is_empty(), "{changed:?}");
    // A state file rewritten after the snapshot: that project alone.
    let state_json = ws.join("prd-master/fba-smart-restock/state.json");
    let text = fs::read_to_string(&state_json).unwrap();
    fs::write(&state_json, text.replace("\"2\"", "\"3\"")).unwrap();
    // An agent's state replaced by rename (not a watched file itself).
    let agent = ws.join("devloop/data/companies/acme/projects/p-restock/agent-state/coder.json");
    let tmp_agent = agent.with_extension("tmp");
    fs::copy(&agent, &tmp_agent).unwrap();
    fs::rename(&tmp_agent, &agent).unwrap();
    let mut changed: Vec<&str> = back
        .entries
        .iter()
        .filter(|e| e.changed_since())
        .map(|e| e.project.id.as_str())
        .collect();
    changed.sort_unstable();
    assert_eq!(
        changed,
        [
            "devloop/data/companies/acme/projects/p-restock",
            "prd-master/fba-smart-restock"
        ]
    );
}

/// The same roots spelled otherwise (relative, a trailing `/.`) find the
/// same snapshot, and its paths come back spelled as given now; other
/// roots find none.
#[test]
fn roots_are_the_key_however_spelled() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let state = tmp.path().join("state");
    let roots = vec![ws.clone()];
    save(&state, take(&roots, &read(&roots), Utc::now())).unwrap();
    let other = vec![ws.join("."), ws.join("gsd/..")];
    assert_eq!(file_for(&state, &roots), file_for(&state, &other));
    let back = load(&state, &other).unwrap();
    assert!(
        back.entries
            .iter()
            .all(|e| e.project.path.starts_with(ws.join(".")))
    );
    let sub = vec![ws.join("gsd")];
    assert_ne!(file_for(&state, &roots), file_for(&state, &sub));
    assert!(matches!(
        load(&state, &sub),
        Err(SnapshotError::Missing { .. })
    ));
}

/// Every doubt: the snapshot is not read, and why is said.
#[test]
fn a_snapshot_in_doubt_is_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let state = tmp.path().join("state");
    let roots = vec![ws.clone()];
    save(&state, take(&roots, &read(&roots), Utc::now())).unwrap();
    let file = file_for(&state, &roots);
    let good = fs::read(&file).unwrap();
    let nl = good.iter().position(|&b| b == b'\n').unwrap();
    let header = String::from_utf8(good[..nl].to_vec()).unwrap();
    let payload = good[nl + 1..].to_vec();
    let with = |header: &str, payload: &[u8]| {
        let mut b = header.as_bytes().to_vec();
        b.push(b'\n');
        b.extend_from_slice(payload);
        fs::write(&file, b).unwrap();
        load(&state, &roots)
    };
    // Truncated (a write cut short by a full disk, a crash).
    let cut = &good[..good.len() - 10];
    fs::write(&file, cut).unwrap();
    assert!(
        matches!(load(&state, &roots), Err(SnapshotError::Truncated { .. })),
        "{:?}",
        load(&state, &roots)
    );
    fs::write(&file, &good[..nl / 2]).unwrap();
    assert!(matches!(
        load(&state, &roots),
        Err(SnapshotError::Corrupt { .. })
    ));
    // One byte of the payload changed: the checksum.
    let mut flipped = payload.clone();
    let at = flipped.len() / 2;
    flipped[at] ^= 1;
    assert!(matches!(
        with(&header, &flipped),
        Err(SnapshotError::Checksum { .. })
    ));
    // Other versions.
    for (from, to) in [
        (
            format!("\"snapshot\":{VERSION}"),
            format!("\"snapshot\":{}", VERSION + 1),
        ),
        (
            format!("\"model_schema\":{}", wire::MODEL_SCHEMA),
            format!("\"model_schema\":{}", wire::MODEL_SCHEMA + 1),
        ),
        (
            format!("\"loopdeck\":\"{LOOPDECK_VERSION}\""),
            "\"loopdeck\":\"0.0.0-other\"".to_owned(),
        ),
    ] {
        assert!(header.contains(&from), "{header}");
        let r = with(&header.replace(&from, &to), &payload);
        assert!(matches!(r, Err(SnapshotError::Version { .. })), "{r:?}");
    }
    // Another set of roots' snapshot under this name.
    let ws_text = serde_json::to_string(&ws.canonicalize().unwrap().to_string_lossy()).unwrap();
    let r = with(&header.replace(&ws_text, "\"/elsewhere\""), &payload);
    assert!(matches!(r, Err(SnapshotError::OtherRoots { .. })), "{r:?}");
    // A payload whose checksum matches but which names a path out of
    // its root (written by hand, or by a bug).
    let json = miniz_oxide::inflate::decompress_to_vec(&payload).unwrap();
    let text = String::from_utf8(json).unwrap();
    assert!(text.starts_with("[{"), "the payload is deflated JSON");
    let evil = text.replacen("\"id\":\"", "\"id\":\"../../", 1);
    let evil = miniz_oxide::deflate::compress_to_vec(evil.as_bytes(), 6);
    let evil_header = header
        .replace(
            &format!("\"payload_len\":{}", payload.len()),
            &format!("\"payload_len\":{}", evil.len()),
        )
        .replace(&sha256_hex(&payload), &sha256_hex(&evil));
    let r = with(&evil_header, &evil);
    assert!(matches!(r, Err(SnapshotError::Corrupt { .. })), "{r:?}");
    // Not JSON at all, and nothing.
    fs::write(&file, b"\x00\x01garbage").unwrap();
    assert!(load(&state, &roots).is_err());
    fs::write(&file, b"").unwrap();
    assert!(load(&state, &roots).is_err());
    // Whole again: read.
    fs::write(&file, &good).unwrap();
    assert!(load(&state, &roots).is_ok());
}

/// A file rewritten (same length) after its reading and before the
/// snapshot is written: the row is changed since from the start.
#[test]
fn a_file_changed_between_the_reading_and_the_write_is_never_current() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    let dir = root.join("p");
    fs::create_dir_all(&dir).unwrap();
    let state_json = |stage: &str| {
        format!(
            r#"{{"workflow_version":"0.6","current_stage":"{stage}","project_name":"p","last_updated_at_utc":"2026-06-01T11:59:00Z"}}"#
        )
    };
    fs::write(dir.join("state.json"), state_json("2")).unwrap();
    let roots = vec![root.clone()];
    let read = read(&roots);
    let taken = take(&roots, &read, Utc::now());
    fs::write(dir.join("state.json"), state_json("3")).unwrap();
    let state = tmp.path().join("state");
    save(&state, taken).unwrap();
    let back = load(&state, &roots).unwrap();
    assert_eq!(back.entries.len(), 1);
    assert!(back.entries[0].changed_since());
    // Written again from a reading of the new bytes: current.
    save(&state, take(&roots, &crate::formats::discover(&roots).projects, Utc::now())).unwrap();
    let back = load(&state, &roots).unwrap();
    assert!(!back.entries[0].changed_since());
    assert_eq!(back.entries[0].project.stage.as_ref().unwrap().en(), "3");
}

/// Another host's projects are not kept; nor is a project whose path is
/// not its root joined with its id.
#[test]
fn only_this_machines_projects_under_the_roots_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let roots = vec![ws.clone()];
    let mut ps = read(&roots);
    let n = ps.len();
    ps[0].host = Some("build-1".into());
    ps[1].path = tmp.path().join("elsewhere");
    assert_eq!(take(&roots, &ps, Utc::now()).len(), n - 2);
}

/// The writer: nothing before a full reading, then at once, then no more
/// than once per gap; at the end, once more if something changed; the
/// snapshot is on disk when `finish` returns.
#[test]
fn the_writer_waits_for_a_full_reading_and_keeps_its_gap() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let state = tmp.path().join("state");
    let roots = vec![ws.clone()];
    let ps = read(&roots);
    let t0 = Instant::now();
    let gap = Duration::from_secs(60);
    let mut w = Writer::new(Some(state.clone()), roots.clone()).with_gap(gap);
    assert!(!w.due(t0));
    w.read(false);
    assert!(!w.due(t0), "a part before any full reading");
    w.read(true);
    assert!(w.due(t0));
    w.write(&ps, t0);
    assert!(!w.due(t0));
    w.read(false);
    assert!(!w.due(t0 + Duration::from_secs(59)));
    assert!(w.due(t0 + gap));
    let outcome = w.finish(&ps[1..]);
    assert!(matches!(outcome, Some(Ok(n)) if n > 1000), "{outcome:?}");
    assert_eq!(load(&state, &roots).unwrap().entries.len(), ps.len() - 1);
    // Without a state directory (read-only): nothing, ever.
    let mut w = Writer::new(None, roots.clone());
    w.read(true);
    assert!(!w.due(t0));
    assert!(w.finish(&ps).is_none());
}
