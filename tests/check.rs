//! `loopdeck check`: every finding of every project; exit 1 when any is an
//! error (or a file cannot be read), 0 otherwise: a linter for CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use common::{NOW, loopdeck, workspace, write};
use serde_json::Value;

fn check(root: &str) -> (i32, Value) {
    let out = loopdeck()
        .args(["check", root, "--json", "--now", NOW])
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        serde_json::from_slice(&out.stdout).unwrap(),
    )
}

#[test]
fn exit_code_follows_the_errors_it_reports() {
    let (_t, ws) = workspace();
    let (code, v) = check(ws.to_str().unwrap());
    assert_eq!(v["schema_version"], 1);
    let mut errors = 0;
    let mut warnings = 0;
    for p in v["projects"].as_array().unwrap() {
        errors += p["problems"].as_array().unwrap().len();
        for f in p["findings"].as_array().unwrap() {
            match f["level"].as_str().unwrap() {
                "error" => errors += 1,
                "warning" => warnings += 1,
                _ => {}
            }
        }
        // Each project's findings are exactly what `show` reports for it
        // (`check` also reads NDJSON logs whole for records torn mid-file,
        // which `show`, reading their tails, does not: the example has none).
        let shown = common::json(&["show", p["path"].as_str().unwrap()]);
        assert_eq!(shown["findings"], p["findings"], "{}", p["id"]);
    }
    assert_eq!(v["summary"]["errors"], errors);
    assert_eq!(v["summary"]["warnings"], warnings);
    assert!(warnings > 0, "the example workspace has lint findings");
    assert_eq!(code, i32::from(errors > 0));
}

#[test]
fn a_clean_root_passes_and_a_broken_one_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let good = r#"{"workflow_version":"0.6","current_stage":"2","last_updated_at_utc":"2026-05-31T12:00:00Z"}"#;
    write(&tmp.path().join("good/state.json"), good);
    let (code, v) = check(tmp.path().to_str().unwrap());
    assert_eq!((code, v["summary"]["errors"].as_u64()), (0, Some(0)));
    assert_eq!(
        v["projects"].as_array().unwrap().len(),
        0,
        "only projects with something to say"
    );

    write(
        &tmp.path().join("broken/state.json"),
        r#"{"workflow_version": "0.6", "current_st"#,
    );
    write(&tmp.path().join("broken/scene-anchor.md"), "# 场景");
    let (code, v) = check(tmp.path().to_str().unwrap());
    assert_eq!(code, 1);
    let broken = &v["projects"][0];
    assert_eq!(broken["id"], "broken");
    assert!(
        broken["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "prd.state-corrupt" && f["level"] == "error")
    );
    let plain = loopdeck()
        .args(["check", tmp.path().to_str().unwrap(), "--now", NOW])
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(1));
    let text = String::from_utf8(plain.stdout).unwrap();
    assert!(text.contains("prd.state-corrupt"));
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("2 projects: 2 errors"),
        "{text}"
    );
}

/// A devloop project (the example's p-shipped: no error findings) alone in
/// a temp dir.
fn devloop_project() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p-shipped");
    common::copy_dir(
        &common::repo().join("examples/workspace/devloop/data/companies/acme/projects/p-shipped"),
        &dir,
    );
    (tmp, dir)
}

fn findings_of(v: &Value, code: &str) -> Vec<Value> {
    v["projects"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["findings"].as_array().unwrap().clone())
        .filter(|f| f["code"] == code)
        .collect()
}

/// A timeline event of about 100 bytes.
fn event(i: usize) -> String {
    format!(
        "{{\"ts\":{},\"source\":\"tester\",\"kind\":\"unit_passed\",\"ref\":\"unit/recon-db\",\"summary\":\"PASS {i:08}\"}}\n",
        1_779_700_000 + i
    )
}

/// A record cut short (a full disk, a killed writer) and buried by the
/// appends after it, 2 MB above the end of the timeline: far outside the
/// tail the readers look at, and still reported, with its line number.
#[test]
fn a_torn_line_deep_in_a_timeline_is_reported_naming_its_line() {
    let (tmp, dir) = devloop_project();
    let path = dir.join("timeline.ndjson");
    let mut log = std::fs::read_to_string(&path).unwrap();
    assert!(log.ends_with('\n'));
    let torn_at = log.lines().count() + 1;
    log.push_str("{\"ts\":1779699999,\"source\":\"agent\",\"kind\":\"unit_pa\n");
    for i in 0..20_000 {
        log.push_str(&event(i));
    }
    std::fs::write(&path, &log).unwrap();

    let (code, v) = check(tmp.path().to_str().unwrap());
    let torn = findings_of(&v, "devloop.torn-mid-file");
    assert_eq!(torn.len(), 1, "{v:#}");
    assert_eq!(torn[0]["level"], "warning");
    assert_eq!(torn[0]["ref"], "timeline.ndjson");
    let said = torn[0]["message"].as_str().unwrap();
    assert!(
        said.starts_with(&format!("timeline.ndjson line {torn_at} is torn")),
        "{said}"
    );
    // A warning, as the readers' skipped lines: the log still reads.
    assert_eq!(code, 0);
    assert_eq!(v["summary"]["warnings"], 2, "{v:#}");
    let plain = loopdeck()
        .args(["check", tmp.path().to_str().unwrap(), "--now", NOW])
        .output()
        .unwrap();
    let text = String::from_utf8(plain.stdout).unwrap();
    assert!(
        text.contains(&format!("timeline.ndjson line {torn_at} is torn")),
        "{text}"
    );
}

/// In bugs.ndjson a torn line of a bug whose next line is whole is not
/// even counted as skipped by the fold (the bug's state is its later
/// line): only the whole-file check sees it. Several are counted and the
/// first listed by number.
#[test]
fn torn_lines_mid_bugs_ndjson_are_listed_by_number() {
    let (tmp, dir) = devloop_project();
    let path = dir.join("bugs.ndjson");
    let log = std::fs::read(&path).unwrap();
    let lines: Vec<&[u8]> = log
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert!(lines.len() >= 2, "the example has bugs");
    let mut out = Vec::new();
    for l in &lines {
        // Each bug's line, first cut short (at a byte, as a full disk
        // cuts it).
        out.extend_from_slice(&l[..l.len() / 2]);
        out.push(b'\n');
        out.extend_from_slice(l);
        out.push(b'\n');
    }
    std::fs::write(&path, out).unwrap();
    let (code, v) = check(tmp.path().to_str().unwrap());
    let torn = findings_of(&v, "devloop.torn-mid-file");
    assert_eq!(torn.len(), 1, "{v:#}");
    let said = torn[0]["message"].as_str().unwrap();
    let numbers: Vec<String> = (0..lines.len().min(8))
        .map(|i| (2 * i + 1).to_string())
        .collect();
    assert!(
        said.starts_with(&format!(
            "bugs.ndjson has {} torn lines mid-file (lines {}",
            lines.len(),
            numbers.join(", ")
        )),
        "{said}"
    );
    assert_eq!(code, 0);
    // The fold still reads every bug from its whole line.
    assert!(findings_of(&v, "devloop.skipped-lines").is_empty(), "{v:#}");
}

/// The last line of a log without its newline is an agent's append in
/// progress (or one that died there): it is not torn mid-file. As the
/// readers have always said, it is ignored, at level info; the check
/// passes.
#[test]
fn an_unterminated_last_line_is_not_torn_mid_file() {
    let (tmp, dir) = devloop_project();
    let path = dir.join("timeline.ndjson");
    let mut log = std::fs::read_to_string(&path).unwrap();
    log.push_str("{\"ts\":1779699999,\"source\":\"agent\",\"kind\":\"unit_pa");
    std::fs::write(&path, &log).unwrap();
    let (code, v) = check(tmp.path().to_str().unwrap());
    assert!(findings_of(&v, "devloop.torn-mid-file").is_empty(), "{v:#}");
    let tail = findings_of(&v, "devloop.torn-line");
    assert_eq!(tail.len(), 1, "{v:#}");
    assert_eq!(tail[0]["level"], "info");
    assert_eq!(code, 0, "{v:#}");
}

/// A 64 MB timeline with a torn line near its start: `check` streams it,
/// so its peak memory stays far below the file's size.
#[test]
fn checking_a_large_log_does_not_hold_it() {
    let (tmp, dir) = devloop_project();
    let path = dir.join("timeline.ndjson");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    std::io::Write::write_all(&mut f, event(0).as_bytes()).unwrap();
    std::io::Write::write_all(&mut f, b"{\"ts\":17797\n").unwrap();
    let mut i = 1;
    let mut len = 0;
    while len < 64 << 20 {
        let e = event(i);
        std::io::Write::write_all(&mut f, e.as_bytes()).unwrap();
        len += e.len();
        i += 1;
    }
    drop(f);
    // Reaped by `wait4` below, which also gives its peak memory.
    #[allow(clippy::zombie_processes)]
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("loopdeck"))
        .args([
            "check",
            tmp.path().to_str().unwrap(),
            "--json",
            "--now",
            NOW,
        ])
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut stdout = child.stdout.unwrap();
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut stdout, &mut out).unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it for the
    // child spawned above, which nothing else waits for.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid);
    let v: Value = serde_json::from_slice(&out).unwrap();
    let torn = findings_of(&v, "devloop.torn-mid-file");
    assert_eq!(torn.len(), 1, "{v:#}");
    assert!(
        torn[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("timeline.ndjson line 2 is torn"),
        "{torn:?}"
    );
    let peak_kib = usage.ru_maxrss as u64;
    eprintln!("check of a {} MiB log: peak {peak_kib} KiB", len >> 20);
    assert!(
        peak_kib < 32 * 1024,
        "check peaked at {peak_kib} KiB for a {} MiB log",
        len >> 20
    );
}
