//! The fault suite: the real binary under the faults a decision must
//! survive — a directory swapped for a link while `act` runs, SIGKILL at
//! spread instants with the user's retry after it, a full disk (a tmpfs
//! sized to fail), immutable and append-only files (`chattr`). Parts that
//! need root (mount, chattr) say so and skip elsewhere; CI runs as root.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{NOW, copy_dir, repo};

/// The binary under test; `LOOPDECK_FAULTS_BIN` runs the suite against
/// another build (e.g. the previous release, to see it fail).
fn bin() -> PathBuf {
    std::env::var_os("LOOPDECK_FAULTS_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("loopdeck"))
}

/// `loopdeck act DIR ARGS --now NOW --by alice` with its own state dir.
fn act_cmd(state: &Path, dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.env("XDG_STATE_HOME", state)
        .env("LC_ALL", "C.UTF-8")
        .env("NO_COLOR", "1")
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .arg("act")
        .arg(dir)
        .args(args)
        .args(["--now", NOW, "--by", "alice"])
        .stdin(Stdio::null());
    c
}

/// `LOOPDECK_FAULTS_SCALE=N` runs N times as many kills, swaps and
/// seconds (15 gives the sizes issue 18 asks figures for: 360 kills).
fn scale() -> u32 {
    common::faults_scale()
}

fn run(mut c: Command) -> Output {
    c.output().unwrap()
}

fn recover(state: &Path) -> Output {
    let mut c = Command::new(bin());
    c.env("XDG_STATE_HOME", state)
        .env("LC_ALL", "C.UTF-8")
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .arg("recover");
    c.output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn audit_records(state: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(state.join("loopdeck/audit.ndjson"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every file below `dir` with its bytes.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                todo.push(p);
            } else {
                let bytes = if m.is_file() {
                    fs::read(&p).unwrap()
                } else {
                    Vec::new()
                };
                out.push((p, bytes));
            }
        }
    }
    out.sort();
    out
}

fn gsd_project(tmp: &Path) -> PathBuf {
    let dir = tmp.join("proj");
    copy_dir(
        &repo().join("examples/workspace/gsd/scene1-active-phase"),
        &dir,
    );
    dir
}

/// Swap `a` and `b` in `dir` in one step, again and again, until `stop`.
fn swapper(
    dir: PathBuf,
    a: &'static str,
    b: &'static str,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let d = fs::File::open(&dir).unwrap();
        let mut swaps = 0;
        let swap = || rustix::fs::renameat_with(&d, a, &d, b, rustix::fs::RenameFlags::EXCHANGE);
        while !stop.load(Ordering::Relaxed) {
            // The link is in place for short moments only, so a decision
            // usually finds the real directory when it checks, and may
            // meet the link when it writes.
            if swap().is_ok() {
                swaps += 1;
                std::thread::sleep(Duration::from_micros(50));
                let _ = swap();
            }
            std::thread::sleep(Duration::from_micros(400));
        }
        // Leave the real directory in place.
        if fs::symlink_metadata(dir.join(a))
            .unwrap()
            .file_type()
            .is_symlink()
        {
            rustix::fs::renameat_with(&d, a, &d, b, rustix::fs::RenameFlags::EXCHANGE).unwrap();
        }
        swaps
    })
}

/// A process that can write the project swaps `.planning` for a link to
/// another directory while decisions run: no decision writes there (no
/// state file, no lock, no temp file), each decision that says "done" is
/// in the project's own file exactly once, and the audit log agrees.
#[test]
fn a_directory_swapped_for_a_link_during_act_is_never_written_through() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = gsd_project(tmp.path());
    let state = tmp.path().join("state");
    let outside = tmp.path().join("outside");
    copy_dir(&dir.join(".planning"), &outside);
    std::os::unix::fs::symlink(&outside, dir.join(".planning-swap")).unwrap();
    let before = tree(&outside);
    let stop = Arc::new(AtomicBool::new(false));
    let t = swapper(dir.clone(), ".planning", ".planning-swap", stop.clone());
    let mut done = Vec::new();
    let runs = 40 * scale();
    for i in 0..runs {
        let text = format!("Swap decision {i}");
        let out = run(act_cmd(
            &state,
            &dir,
            &["add-decision", &text, "--phase", "1"],
        ));
        match out.status.code() {
            Some(0) => done.push(text),
            // Refused: the project's .planning led out of it at that
            // moment (not a project then, exit 2), or the walk met the link
            // (exit 1), or the lock or the bytes moved (exit 3).
            Some(1..=3) => {}
            other => panic!("exit {other:?}: {}", stderr(&out)),
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = t.join().unwrap();
    assert!(swaps > 100, "the swap raced the decisions ({swaps} swaps)");
    assert_eq!(
        tree(&outside),
        before,
        "nothing written outside the project"
    );
    let ours = fs::read_to_string(dir.join(".planning/STATE.md")).unwrap();
    for i in 0..runs {
        let text = format!("Swap decision {i}");
        let n = ours.matches(&format!("{text}\n")).count();
        let said_done = done.contains(&text);
        assert_eq!(
            n,
            usize::from(said_done),
            "{text}: {n} times, said done: {said_done}"
        );
    }
    assert!(!done.is_empty(), "some decisions landed between swaps");
    eprintln!(
        "swap race: {} of {runs} decisions written, 0 outside the project",
        done.len()
    );
    let records = audit_records(&state);
    assert_eq!(records.len(), done.len());
    for r in &records {
        assert_eq!(r["files"][0]["file"], ".planning/STATE.md");
        assert_eq!(
            Path::new(r["project"].as_str().unwrap()),
            fs::canonicalize(&dir).unwrap()
        );
    }
}

/// One decision per kill instant: `kill -9` after `delay`, then the
/// user's retry, then `loopdeck recover`. Returns how the first run ended.
fn kill_then_retry(
    mut first: Command,
    retry: Command,
    state: &Path,
    delay: Duration,
) -> Option<i32> {
    let mut child = first
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    let _ = child.kill();
    let status = child.wait().unwrap();
    if intents(state) > 0 {
        INTERRUPTED.fetch_add(1, Ordering::Relaxed);
    }
    let out = run(retry);
    // Done, or refused as already answered (1) or as a question that is
    // gone (3): never an error of another kind.
    assert!(
        matches!(out.status.code(), Some(0 | 1 | 3)),
        "retry: exit {:?}: {}",
        out.status.code(),
        stderr(&out)
    );
    let r = recover(state);
    assert!(r.status.success(), "recover: {}", stderr(&r));
    status.code()
}

/// Kills that left a decision part way (an intent record behind).
static INTERRUPTED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Intent records left in the state directory.
fn intents(state: &Path) -> usize {
    fs::read_dir(state.join("loopdeck/intents"))
        .map(|d| {
            d.filter(|e| {
                let n = e.as_ref().unwrap().file_name();
                let n = n.to_string_lossy();
                n.ends_with(".json") && !n.starts_with('.')
            })
            .count()
        })
        .unwrap_or(0)
}

/// The median time of a clean run, to spread the kills over.
fn clean_time(make: impl Fn(&Path) -> (PathBuf, Command)) -> Duration {
    let mut times: Vec<Duration> = (0..3)
        .map(|_| {
            let tmp = tempfile::tempdir().unwrap();
            let (_, mut c) = make(tmp.path());
            let t = Instant::now();
            assert!(c.output().unwrap().status.success());
            t.elapsed()
        })
        .collect();
    times.sort();
    times[1]
}

const WAITING: &str = r#"{
  "status": "waiting",
  "type": "decision_point",
  "question": "Which database?",
  "options": ["SQLite", "Postgres"],
  "since": "2026-06-01T09:00:00.000Z",
  "phase": "1"
}"#;

fn gsd_waiting(tmp: &Path) -> (PathBuf, Command) {
    let dir = gsd_project(tmp);
    fs::write(dir.join(".planning/WAITING.json"), WAITING).unwrap();
    fs::create_dir_all(dir.join(".gsd")).unwrap();
    fs::write(dir.join(".gsd/WAITING.json"), WAITING).unwrap();
    let sha = loopdeck_core::store::sha256_hex(WAITING.as_bytes());
    let c = act_cmd(&tmp.join("state"), &dir, &["answer", &sha, "2"]);
    (dir, c)
}

/// GSD's answer writes STATE.md and removes two WAITING.json files:
/// killed at any instant and retried, the answer is in STATE.md exactly
/// once, both signals are gone, STATE.md reads, one audit record.
#[test]
fn a_killed_gsd_answer_retried_is_applied_exactly_once() {
    let t = clean_time(gsd_waiting);
    let n = 24 * scale();
    for i in 0..n {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, first) = gsd_waiting(tmp.path());
        let (_, retry) = {
            let sha = loopdeck_core::store::sha256_hex(WAITING.as_bytes());
            (
                (),
                act_cmd(&tmp.path().join("state"), &dir, &["answer", &sha, "2"]),
            )
        };
        let state = tmp.path().join("state");
        let ended = kill_then_retry(first, retry, &state, t * i / n);
        let text = fs::read_to_string(dir.join(".planning/STATE.md")).unwrap();
        assert_eq!(
            text.matches("answered by alice").count(),
            1,
            "kill {i}/{n} (first run ended {ended:?}):\n{text}"
        );
        assert!(!dir.join(".planning/WAITING.json").exists(), "kill {i}");
        assert!(!dir.join(".gsd/WAITING.json").exists(), "kill {i}");
        assert!(
            loopdeck_core::formats::gsd::load(&dir).is_some(),
            "kill {i}"
        );
        let answers: Vec<_> = audit_records(&state)
            .into_iter()
            .filter(|r| r["decision"]["verb"] == "answer")
            .collect();
        assert_eq!(answers.len(), 1, "kill {i}: {answers:?}");
        assert_ne!(answers[0]["partial"], true, "kill {i}");
        assert_eq!(intents(&state), 0, "kill {i}: an intent left unsettled");
    }
    eprintln!(
        "killed decisions (all tests so far): {} left a decision part way, all settled once",
        INTERRUPTED.load(Ordering::Relaxed)
    );
}

fn prd_project(tmp: &Path) -> (PathBuf, Command) {
    let dir = tmp.join("fba-smart-restock");
    copy_dir(&repo().join("tests/fixtures/prd-act/stage1/before"), &dir);
    let c = act_cmd(
        &tmp.join("state"),
        &dir,
        &["answer", "OQ-7", "进入 MVP，只导出 CSV"],
    );
    (dir, c)
}

/// PRD-master's answer writes conversation.md, then state.json: killed at
/// any instant and retried, conversation.md holds the answer once.
#[test]
fn a_killed_prd_answer_retried_is_applied_exactly_once() {
    let t = clean_time(prd_project);
    let n = 24 * scale();
    for i in 0..n {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, first) = prd_project(tmp.path());
        let (_, retry) = prd_project_again(tmp.path(), &dir);
        let state = tmp.path().join("state");
        let ended = kill_then_retry(first, retry, &state, t * i / n);
        let conv = fs::read_to_string(dir.join("conversation.md")).unwrap();
        assert_eq!(
            conv.matches("进入 MVP，只导出 CSV").count(),
            1,
            "kill {i}/{n} (first run ended {ended:?})"
        );
        let state_json: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.join("state.json")).unwrap()).unwrap();
        assert!(state_json.is_object());
        let answers: Vec<_> = audit_records(&state)
            .into_iter()
            .filter(|r| r["decision"]["verb"] == "answer")
            .collect();
        assert_eq!(answers.len(), 1, "kill {i}: {answers:?}");
    }
}

fn prd_project_again(tmp: &Path, dir: &Path) -> ((), Command) {
    (
        (),
        act_cmd(
            &tmp.join("state"),
            dir,
            &["answer", "OQ-7", "进入 MVP，只导出 CSV"],
        ),
    )
}

fn is_root() -> bool {
    // SAFETY: no arguments.
    unsafe { libc::geteuid() == 0 }
}

/// `chattr +i` on the primary after the secondary could be written: the
/// decision is refused before anything is written, naming the immutable
/// file, and a 0444 file is refused even for root.
#[test]
fn immutable_and_read_only_files_are_refused_whole() {
    if !is_root() {
        eprintln!("SKIPPED: chattr and root's view of 0444 need root (CI runs as root)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (dir, c) = prd_project(tmp.path());
    let before = tree(&dir);
    let chattr = |flag: &str| {
        Command::new("chattr")
            .arg(flag)
            .arg(dir.join("state.json"))
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    if !chattr("+i") {
        eprintln!("SKIPPED: chattr +i is not supported here");
        return;
    }
    let out = run(c);
    chattr("-i");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("immutable"), "{}", stderr(&out));
    assert!(stderr(&out).contains("state.json"), "{}", stderr(&out));
    assert_eq!(tree(&dir), before, "nothing written");

    assert!(chattr("+a"));
    let (_, c) = prd_project_again(tmp.path(), &dir);
    let out = run(c);
    chattr("-a");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("append-only"), "{}", stderr(&out));
    assert_eq!(tree(&dir), before, "nothing written");

    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(dir.join("state.json"), fs::Permissions::from_mode(0o444)).unwrap();
    let (_, c) = prd_project_again(tmp.path(), &dir);
    let out = run(c);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("read-only file (mode 0444"),
        "{}",
        stderr(&out)
    );
    assert_eq!(tree(&dir), before, "root replaced a 0444 file");
}

/// A full disk at each write of a decision: a tmpfs sized so the project
/// fills at a different write each time. Every time, the decision is
/// written whole or not at all, and the retry (with room) applies it once.
#[test]
fn a_full_disk_at_any_write_leaves_the_decision_whole_or_absent() {
    if !is_root() {
        eprintln!("SKIPPED: mounting a tmpfs needs root (CI runs as root)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mnt = tmp.path().join("mnt");
    fs::create_dir(&mnt).unwrap();
    let mount = |size: u64| {
        Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&mnt)
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    let umount = || {
        let _ = Command::new("umount").arg(&mnt).status();
    };
    if !mount(1 << 20) {
        eprintln!("SKIPPED: cannot mount a tmpfs here");
        return;
    }
    umount();
    let state = tmp.path().join("state");
    let mut outcomes = Vec::new();
    // Room for the project and then some more pages each round: the
    // decision's writes meet ENOSPC at different steps.
    let base: u64 = {
        let (dir, _) = prd_project(&tmp.path().join("probe"));
        tree(&dir).iter().map(|(_, b)| b.len() as u64).sum()
    };
    for extra_pages in 0..12u64 {
        assert!(mount(base + 16 * 4096 + extra_pages * 4096));
        let dir = mnt.join("fba-smart-restock");
        copy_dir(&repo().join("tests/fixtures/prd-act/stage1/before"), &dir);
        // Fill what is left but `extra_pages` pages.
        let filler = mnt.join("filler");
        let mut f = fs::File::create(&filler).unwrap();
        let chunk = vec![b'x'; 4096];
        while std::io::Write::write_all(&mut f, &chunk).is_ok() {}
        drop(f);
        let len = fs::metadata(&filler).unwrap().len();
        let keep = len.saturating_sub(extra_pages * 4096);
        fs::OpenOptions::new()
            .write(true)
            .open(&filler)
            .unwrap()
            .set_len(keep)
            .unwrap();
        let before = tree(&dir);
        let out = run(act_cmd(
            &state,
            &dir,
            &["answer", "OQ-7", "进入 MVP，只导出 CSV"],
        ));
        let code = out.status.code();
        let conv = fs::read_to_string(dir.join("conversation.md")).unwrap();
        let n = conv.matches("进入 MVP，只导出 CSV").count();
        match code {
            Some(0) => assert_eq!(n, 1),
            Some(1) => {
                assert_eq!(tree(&dir), before, "refused, yet written: {}", stderr(&out));
            }
            other => panic!("exit {other:?}: {}", stderr(&out)),
        }
        outcomes.push(code);
        // The retry, with room.
        fs::remove_file(&filler).unwrap();
        let out = run(act_cmd(
            &state,
            &dir,
            &["answer", "OQ-7", "进入 MVP，只导出 CSV"],
        ));
        let conv = fs::read_to_string(dir.join("conversation.md")).unwrap();
        assert_eq!(
            conv.matches("进入 MVP，只导出 CSV").count(),
            1,
            "{extra_pages} pages: exit {:?}: {}",
            out.status.code(),
            stderr(&out)
        );
        umount();
    }
    assert!(
        outcomes.contains(&Some(1)),
        "the disk was full at some write: {outcomes:?}"
    );
    assert!(
        outcomes.contains(&Some(0)),
        "and had room at last: {outcomes:?}"
    );
}

/// An agent that saves STATE.md at 50 Hz without a lock (write a temp
/// file, rename it over) beside decisions made with `act`: no agent save
/// is ever replaced by a decision computed on an older one. The agent
/// counts up in a line of its own and, before each save, checks the
/// count it finds is the last it saved: a lower one is a save lost.
#[test]
fn an_unlocked_agent_saving_at_50_hz_loses_no_save_to_a_decision() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = gsd_project(tmp.path());
    let state = tmp.path().join("state");
    let file = dir.join(".planning/STATE.md");
    let mut text = fs::read_to_string(&file).unwrap();
    text.push_str("\nAgent counter: 0\n");
    fs::write(&file, &text).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let agent = {
        let stop = stop.clone();
        let file = file.clone();
        std::thread::spawn(move || {
            let (mut saved, mut lost, mut saves) = (0u64, 0u64, 0u64);
            let tmp = file.with_file_name(".STATE.md.agent-tmp");
            while !stop.load(Ordering::Relaxed) {
                let now = fs::read_to_string(&file).unwrap();
                let (head, count) = now.rsplit_once("Agent counter: ").unwrap();
                let count: u64 = count.trim().parse().unwrap();
                if count < saved {
                    lost += 1;
                }
                saved = saved.max(count) + 1;
                fs::write(&tmp, format!("{head}Agent counter: {saved}\n")).unwrap();
                fs::rename(&tmp, &file).unwrap();
                saves += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            (saves, lost)
        })
    };
    let started = Instant::now();
    let (mut done, mut refused) = (0, 0);
    let mut i = 0;
    while started.elapsed() < Duration::from_secs(3 * u64::from(scale())) {
        let out = run(act_cmd(
            &state,
            &dir,
            &["add-decision", &format!("Decision {i}"), "--phase", "1"],
        ));
        match out.status.code() {
            Some(0) => done += 1,
            Some(3) => refused += 1,
            other => panic!("exit {other:?}: {}", stderr(&out)),
        }
        i += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let (saves, lost) = agent.join().unwrap();
    eprintln!(
        "agent saves {saves}, lost {lost}; decisions {done} written, {refused} refused as changed on disk"
    );
    assert!(saves > 50, "the agent saved throughout ({saves})");
    assert!(done > 0, "decisions landed between saves");
    assert_eq!(lost, 0, "agent saves lost to decisions");
}

fn loopdeck_in(state: &Path, args: &[&str]) -> Output {
    let mut c = Command::new(bin());
    c.env("XDG_STATE_HOME", state)
        .env("LC_ALL", "C.UTF-8")
        .env("NO_COLOR", "1")
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .args(args)
        .args(["--now", NOW]);
    c.output().unwrap()
}

/// A decision killed after writing every file but before its audit
/// record (the intent record is all that is left): `list`, `show` and
/// `check` show it as a problem on the project and change nothing;
/// `loopdeck recover` records it, and then `undo` finds it.
#[test]
fn an_interrupted_decision_is_a_problem_until_a_write_settles_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, c) = prd_project(tmp.path());
    let state = tmp.path().join("state");
    assert!(run(c).status.success());
    // What a kill right before the audit record leaves: the intent only.
    let log = state.join("loopdeck/audit.ndjson");
    let record: loopdeck_core::decide::audit::Record =
        serde_json::from_str(fs::read_to_string(&log).unwrap().trim()).unwrap();
    fs::remove_file(&log).unwrap();
    let n = record.files.len();
    let intent = loopdeck_core::decide::intent::Intent {
        record: record.clone(),
        pid: 4_000_000,
        start: Some(1),
        added: vec![None; n],
    };
    fs::create_dir_all(state.join("loopdeck/intents")).unwrap();
    let planted = state.join(format!("loopdeck/intents/{}.json", record.id));
    fs::write(&planted, serde_json::to_vec(&intent).unwrap()).unwrap();
    let before = tree(&dir);

    let root = tmp.path().to_str().unwrap();
    let list = loopdeck_in(&state, &["list", root, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let problems = v["projects"][0]["problems"].to_string();
    assert!(problems.contains("was interrupted"), "{v}");
    assert!(problems.contains(&record.id), "{problems}");
    let check = loopdeck_in(&state, &["check", root]);
    assert_eq!(check.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&check.stdout).contains("was interrupted"));
    assert!(planted.exists(), "a reading settles nothing");
    assert_eq!(tree(&dir), before, "a reading writes nothing");

    let r = recover(&state);
    let said = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "{}", stderr(&r));
    assert!(said.contains("it had written every file"), "{said}");
    assert!(!planted.exists());
    let v: serde_json::Value =
        serde_json::from_slice(&loopdeck_in(&state, &["list", root, "--json"]).stdout).unwrap();
    assert!(
        !v["projects"][0]["problems"]
            .to_string()
            .contains("interrupted"),
        "{v}"
    );
    let undo = loopdeck_in(&state, &["undo", &record.id]);
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!(
        fs::read(dir.join("state.json")).unwrap(),
        fs::read(repo().join("tests/fixtures/prd-act/stage1/before/state.json")).unwrap()
    );
}

/// A DWP plan directory swapped for another user's link to a plan
/// elsewhere while `block`/`unblock` run on it: nothing is written there.
#[test]
fn a_plan_directory_swapped_for_a_link_is_never_written_through() {
    if !is_root() {
        eprintln!("SKIPPED: a link owned by another user needs root to make (CI runs as root)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let plans = tmp.path().join("ws/.dwp/plans");
    let src = repo().join("tests/fixtures/dwp-real-world");
    let group = fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("PLAN_full_migration_fixture").is_dir())
        .unwrap();
    let plan = plans.join("PLAN_full_migration_fixture");
    copy_dir(&group.join("PLAN_full_migration_fixture"), &plan);
    let state = tmp.path().join("state");
    assert!(run(act_cmd(&state, &plan, &["approve"])).status.success());
    let outside = tmp.path().join("outside");
    copy_dir(&plan, &outside);
    let link = plans.join("PLAN_full_migration_fixture-swap");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    std::os::unix::fs::lchown(&link, Some(65534), Some(65534)).unwrap();
    let before = tree(&outside);
    let stop = Arc::new(AtomicBool::new(false));
    let t = swapper(
        plans.clone(),
        "PLAN_full_migration_fixture",
        "PLAN_full_migration_fixture-swap",
        stop.clone(),
    );
    let mut done = 0;
    for i in 0..40 * scale() {
        let args: &[&str] = if i % 2 == 0 {
            &["block", "1", "--reason", "swap"]
        } else {
            &["unblock", "1"]
        };
        let out = run(act_cmd(&state, &plan, args));
        match out.status.code() {
            Some(0) => done += 1,
            Some(1..=3) => {}
            other => panic!("exit {other:?}: {}", stderr(&out)),
        }
    }
    stop.store(true, Ordering::Relaxed);
    t.join().unwrap();
    eprintln!(
        "plan swap race: {done} of {} decisions written, 0 outside the project",
        40 * scale()
    );
    assert!(done > 0, "decisions landed between swaps");
    let after = tree(&outside);
    let names = |t: &[(PathBuf, Vec<u8>)]| t.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&after),
        names(&before),
        "no file created outside the project"
    );
    assert!(after == before, "a file outside the project was rewritten");
    let records = audit_records(&state);
    assert_eq!(
        records.len(),
        done + 1,
        "the approval, then each decision said done"
    );
    // The record names the directory written by its name at that moment
    // (the swapper renames it back and forth), never the outside one.
    let real = fs::canonicalize(&plan).unwrap();
    let renamed = real.with_file_name("PLAN_full_migration_fixture-swap");
    for r in &records {
        let p = Path::new(r["project"].as_str().unwrap());
        assert!(p == real || p == renamed, "{}", p.display());
    }
}

fn devloop_shipped(tmp: &Path) -> (PathBuf, Command) {
    let dir = tmp.join("p-shipped");
    copy_dir(
        &repo().join("examples/workspace/devloop/data/companies/acme/projects/p-shipped"),
        &dir,
    );
    common::settle_prd_conflict(&dir);
    let c = act_cmd(&tmp.join("state"), &dir, &["sign-off"]);
    (dir, c)
}

/// devloop's sign-off replaces project.json and appends to the timeline:
/// killed at any instant and retried, one signed-off event, project.json
/// says shipped-final, every timeline line parses.
#[test]
fn a_killed_devloop_sign_off_retried_is_applied_exactly_once() {
    let t = clean_time(devloop_shipped);
    let n = 24 * scale();
    for i in 0..n {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, first) = devloop_shipped(tmp.path());
        let retry = act_cmd(&tmp.path().join("state"), &dir, &["sign-off"]);
        let state = tmp.path().join("state");
        let ended = kill_then_retry(first, retry, &state, t * i / n);
        let timeline = fs::read_to_string(dir.join("timeline.ndjson")).unwrap();
        for l in timeline.lines() {
            serde_json::from_str::<serde_json::Value>(l)
                .unwrap_or_else(|e| panic!("kill {i}: a torn line: {e}: {l}"));
        }
        assert_eq!(
            timeline.matches("project_signed_off").count(),
            1,
            "kill {i}/{n} (first run ended {ended:?})"
        );
        let meta = fs::read_to_string(dir.join("project.json")).unwrap();
        assert!(meta.contains("shipped-final"), "kill {i}");
        assert_eq!(intents(&state), 0, "kill {i}");
    }
    eprintln!(
        "killed decisions (all tests so far): {} left a decision part way, all settled once",
        INTERRUPTED.load(Ordering::Relaxed)
    );
}

/// A full disk while a decision appends to an NDJSON log: the file ends
/// near a page boundary, the disk has no page left, so the append is cut
/// short by the kernel. The short append is cut back: no torn line is
/// left in the middle of the log, every line parses, and the retry (with
/// room) appends the event once.
#[test]
fn a_full_disk_during_an_append_leaves_no_torn_line() {
    if !is_root() {
        eprintln!("SKIPPED: mounting a tmpfs needs root (CI runs as root)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mnt = tmp.path().join("mnt");
    fs::create_dir(&mnt).unwrap();
    let state = tmp.path().join("state");
    let mut refused = 0;
    for room in [1u64, 8, 40, 90, 150, 300] {
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
            .arg(&mnt)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !mounted {
            eprintln!("SKIPPED: cannot mount a tmpfs here");
            return;
        }
        let dir = mnt.join("p-shipped");
        copy_dir(
            &repo().join("examples/workspace/devloop/data/companies/acme/projects/p-shipped"),
            &dir,
        );
        common::settle_prd_conflict(&dir);
        // Pad the timeline with a valid event so that it ends `room`
        // bytes before a page boundary.
        let tl = dir.join("timeline.ndjson");
        let len = fs::metadata(&tl).unwrap().len();
        let wrapper = r#"{"ts":"2026-05-20T00:00:00Z","source":"agent","type":"note","summary":""}"#
            .len() as u64
            + 1;
        let want = (len / 4096 + 2) * 4096 - room;
        let pad = "x".repeat((want - len - wrapper) as usize);
        let mut f = fs::OpenOptions::new().append(true).open(&tl).unwrap();
        std::io::Write::write_all(
            &mut f,
            format!(
                "{{\"ts\":\"2026-05-20T00:00:00Z\",\"source\":\"agent\",\"type\":\"note\",\"summary\":\"{pad}\"}}\n"
            )
            .as_bytes(),
        )
        .unwrap();
        drop(f);
        assert_eq!(fs::metadata(&tl).unwrap().len() % 4096, 4096 - room);
        let filler = mnt.join("filler");
        let mut f = fs::File::create(&filler).unwrap();
        let chunk = vec![b'x'; 4096];
        while std::io::Write::write_all(&mut f, &chunk).is_ok() {}
        drop(f);
        // One page left: the lock file takes it, the append finds none.
        let full = fs::metadata(&filler).unwrap().len();
        fs::OpenOptions::new()
            .write(true)
            .open(&filler)
            .unwrap()
            .set_len(full - 4096)
            .unwrap();
        let before = tree(&dir);
        let out = run(act_cmd(&state, &dir, &["sign-off"]));
        eprintln!(
            "room {room}: exit {:?}: {}",
            out.status.code(),
            stderr(&out).trim()
        );
        let lines = fs::read_to_string(&tl).unwrap();
        for l in lines.lines() {
            serde_json::from_str::<serde_json::Value>(l)
                .unwrap_or_else(|e| panic!("room {room}: a torn line is left: {e}: {l}"));
        }
        match out.status.code() {
            Some(0) => assert_eq!(lines.matches("project_signed_off").count(), 1),
            Some(1) => {
                refused += 1;
                assert_eq!(tree(&dir), before, "room {room}: {}", stderr(&out));
            }
            other => panic!("room {room}: exit {other:?}: {}", stderr(&out)),
        }
        fs::remove_file(&filler).unwrap();
        let out = run(act_cmd(&state, &dir, &["sign-off"]));
        let lines = fs::read_to_string(&tl).unwrap();
        assert_eq!(
            lines.matches("project_signed_off").count(),
            1,
            "room {room}: exit {:?}: {}",
            out.status.code(),
            stderr(&out)
        );
        let _ = Command::new("umount").arg(&mnt).status();
    }
    assert!(refused > 0, "the disk was full at some append");
}
