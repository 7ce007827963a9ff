//! Issue 7 on devloop projects: memory proportional to the input, projects
//! never dropped, the seed rules read right. Real files in temp dirs, the
//! binary run as a user runs it (and, for memory, the reader in-process
//! under a counting allocator).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::common::{NOW, json, loopdeck, write};
use super::show;

/// Heap bytes live on the current thread, and their peak: each test thread
/// measures only its own allocations.
mod heap {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static LIVE: Cell<isize> = const { Cell::new(0) };
        static PEAK: Cell<isize> = const { Cell::new(0) };
    }

    pub struct Counting;

    /// What glibc's malloc takes for `size` bytes: a 16-byte aligned chunk
    /// with an 8-byte header, 32 bytes at least (small strings cost that).
    fn chunk(size: usize) -> isize {
        ((size + 8 + 15) & !15).max(32) as isize
    }

    fn add(n: isize) {
        let _ = LIVE.try_with(|l| {
            let v = l.get() + n;
            l.set(v);
            let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
        });
    }

    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            add(chunk(layout.size()));
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            add(-chunk(layout.size()));
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
            add(chunk(new) - chunk(layout.size()));
            unsafe { System.realloc(ptr, layout, new) }
        }
    }

    /// The peak heap growth while `f` runs.
    pub fn peak<T>(f: impl FnOnce() -> T) -> (T, usize) {
        let base = LIVE.with(Cell::get);
        PEAK.with(|p| p.set(base));
        let t = f();
        (t, (PEAK.with(Cell::get) - base).max(0) as usize)
    }
}

#[global_allocator]
static HEAP: heap::Counting = heap::Counting;

fn meta(pid: &str) -> String {
    format!(
        r#"{{"id":"{pid}","company_id":"acme","name":"{pid}","status":"running","updated_at":"2026-06-01T10:00:00Z"}}"#
    )
}

/// A units.json of `n` small units (ids as the seed spells them), as in
/// the issue: about 60 bytes a unit.
fn many_units(n: usize) -> String {
    let name = |mut i: usize| {
        let mut s = String::new();
        for _ in 0..5 {
            s.insert(0, (b'a' + (i % 26) as u8) as char);
            i /= 26;
        }
        s
    };
    let mut out = String::from("{\"project_id\":\"p-units\",\"units\":[\n");
    for i in 0..n {
        let dep = if i % 10 == 0 {
            String::new()
        } else {
            format!("\"u-{}-be\"", name(i - 1))
        };
        let status = ["passed", "passed", "testing", "failed"][i % 4];
        out.push_str(&format!(
            "{}{{\"id\":\"u-{}-be\",\"type\":\"be\",\"status\":\"{status}\",\"depends_on\":[{dep}]}}\n",
            if i == 0 { "" } else { "," },
            name(i)
        ));
    }
    out.push_str("]}\n");
    out
}

#[test]
fn memory_stays_proportional_to_the_input() {
    use loopdeck::formats::devloop;
    let tmp = tempfile::tempdir().unwrap();
    let units_dir = tmp.path().join("data/companies/acme/projects/p-units");
    let units = many_units(50_000);
    write(&units_dir.join("project.json"), meta("p-units"));
    write(&units_dir.join("units.json"), &units);
    let input = units.len();

    // The statusline's light read: at most 4 bytes of heap per byte read
    // (it was 40x through the full reader: a tree of values, then a copy).
    let (light, light_peak) = heap::peak(|| devloop::read_status(&units_dir).unwrap());
    let (full, full_peak) = heap::peak(|| devloop::load(&units_dir).unwrap());
    assert_eq!(light.statusline, full.statusline);
    assert_eq!(full.detail.units.len(), 50_000);
    assert!(
        light_peak <= 4 * input,
        "status: {light_peak} bytes of heap for {input} bytes of units.json"
    );
    // The full read keeps every unit in the model (about 140 bytes each:
    // short ids inline, the rare fields boxed) next to the file's bytes
    // while it parses; no value tree, no copies on top of that (7.7x of
    // the input before units were compacted, by heaptrack on 200k units).
    assert!(
        full_peak <= 4 * input,
        "show: {full_peak} bytes of heap for {input} bytes of units.json"
    );

    // bugs.ndjson: one line per bug, every id distinct.
    let bugs_dir = tmp.path().join("data/companies/acme/projects/p-bugs");
    let mut bugs = String::new();
    for i in 0..200_000 {
        let status = ["open", "fixing", "fixed", "verified"][i % 4];
        bugs.push_str(&format!(
            "{{\"id\":\"bug-{i:08}\",\"status\":\"{status}\",\"severity\":\"high\"}}\n"
        ));
    }
    write(&bugs_dir.join("project.json"), meta("p-bugs"));
    write(&bugs_dir.join("bugs.ndjson"), &bugs);
    let (p, bugs_peak) = heap::peak(|| devloop::load(&bugs_dir).unwrap());
    assert_eq!(p.detail.bug_stats.as_ref().unwrap().total, 200_000);
    assert_eq!(
        p.detail.bug_stats.as_ref().unwrap().by_status.get("fixed"),
        Some(&50_000)
    );
    // Distinct ids are remembered in an arena set (about 16 bytes a key
    // plus the key), the file is read in 1 MB steps: never the file itself.
    assert!(
        bugs_peak <= bugs.len() * 3 / 2,
        "bugs: {bugs_peak} bytes of heap for {} bytes of bugs.ndjson",
        bugs.len()
    );
    // The statusline never reads the bugs.
    let (_, status_peak) = heap::peak(|| devloop::read_status(&bugs_dir).unwrap());
    assert!(status_peak < 1024 * 1024, "{status_peak}");
    let ratio = |peak: usize, input: usize| peak as f64 / input as f64;
    eprintln!(
        "heap peak / input: units status {:.2}, units full {:.2}, bugs full {:.2}, bugs status {} bytes",
        ratio(light_peak, input),
        ratio(full_peak, input),
        ratio(bugs_peak, bugs.len()),
        status_peak
    );
}

fn paused_project(root: &Path) -> PathBuf {
    let dir = root.join("data/companies/acme/projects/p-paused");
    write(&dir.join("project.json"), meta("p-paused"));
    write(
        &dir.join("agent-state/coder.json"),
        r#"{"agent":"coder","status":"paused","call_id":"c1","current_step":1,"total_steps":3,"resume_token":"rt","updated_at":"2026-05-20T09:00:00Z"}"#,
    );
    dir
}

fn inbox_at(root: &Path, now: &str) -> Vec<Value> {
    let out = loopdeck()
        .args(["inbox", root.to_str().unwrap(), "--json", "--now", now])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["items"].as_array().unwrap().clone()
}

#[test]
fn a_resume_token_is_judged_against_now_in_every_view() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = paused_project(tmp.path());
    // Paused 2026-05-20T09:00Z, and nothing happened since: the token lives
    // until 2026-05-21T09:00Z. Before the fix, the reader compared the
    // expiry with the project's last update (the pause itself), so it
    // offered resume forever.
    fs::write(
        dir.join("project.json"),
        meta("p-paused").replace("2026-06-01T10:00:00Z", "2026-05-20T09:00:00Z"),
    )
    .unwrap();
    let resume = |items: &[Value]| -> Vec<String> {
        items.iter().find(|i| i["kind"] == "resume").unwrap()["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        resume(&inbox_at(tmp.path(), "2026-05-20T20:00:00Z")),
        vec!["resume", "restart"]
    );
    assert_eq!(
        resume(&inbox_at(tmp.path(), "2026-05-21T09:00:00Z")),
        vec!["restart"]
    );
    // Six days after expiry.
    assert_eq!(
        resume(&inbox_at(tmp.path(), "2026-05-27T09:00:00Z")),
        vec!["restart"]
    );
    // `show` carries the same rule, and the agent its expiry.
    let out = loopdeck()
        .args(["show", dir.to_str().unwrap(), "--json"])
        .args(["--now", "2026-05-27T09:00:00Z"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["inbox"][0]["options"], serde_json::json!(["restart"]));
    assert_eq!(v["agents"][0]["resume_expires_at"], "2026-05-21T09:00:00Z");
}

#[test]
fn units_out_of_retries_and_an_unsure_triage_reach_the_inbox_and_the_loops() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data/companies/acme/projects/p-loops");
    write(&dir.join("project.json"), meta("p-loops"));
    write(
        &dir.join("units.json"),
        r#"{"units":[
            {"id":"a-be","type":"be","status":"failed","depends_on":[],"retries":5,"retry_budget":5},
            {"id":"b-be","type":"be","status":"passed","depends_on":[]},
            {"id":"c-fe","type":"fe","status":"testing","depends_on":["b-be"]}],
          "l2_rounds":2,"l2_budget":3}"#,
    );
    write(
        &dir.join("integration/runs/run-int-20260601-0930/result.json"),
        r#"{"run_id":"run-int-20260601-0930","ok":false,"failures":[{"case":"e2e","failed_step":0,"involves":["b-be"]},{"case":"e2e-2","failed_step":1}]}"#,
    );
    write(
        &dir.join("integration/runs/run-int-20260601-0930/triage.json"),
        r#"{"run_id":"run-int-20260601-0930","category":"spec_ambiguous","confidence":0.3,"affected_units":["b-be"],"proposed_sdd_patch":null,"root_cause":"the spec does not say which status a duplicate gets"}"#,
    );
    write(
        &dir.join("prd.html"),
        r#"<article data-doc="prd" data-rev="3"><section data-rev="3"><h3>x</h3><p>y</p></section></article>"#,
    );
    let v = show(&dir);
    let items = v["inbox"].as_array().unwrap();
    let retries = items.iter().find(|i| i["kind"] == "retries-spent").unwrap();
    assert_eq!(retries["ref"], "a-be");
    assert_eq!(retries["subject"], "a-be");
    assert!(
        retries["title"]
            .as_str()
            .unwrap()
            .contains("5/5 retries used")
    );
    let triage = items.iter().find(|i| i["kind"] == "triage").unwrap();
    assert_eq!(triage["subject"], "b-be");
    assert!(triage["title"].as_str().unwrap().contains("0.30"));
    // The LoopStatusBar's data, from the files.
    let loops = &v["loops"];
    assert_eq!(loops["l1"]["passed"], 1);
    assert_eq!(loops["l1"]["failed"], 1);
    assert_eq!(loops["l1"]["testing"], 1);
    assert_eq!(loops["l2"]["status"], "failed");
    assert_eq!(loops["l2"]["rounds"], 2);
    assert_eq!(loops["l2"]["budget"], 3);
    assert_eq!(loops["l2"]["last_run"], "run-int-20260601-0930");
    assert_eq!(loops["l2"]["last_run_at"], "2026-06-01T09:30:00Z");
    assert_eq!(loops["l2"]["failures"], 2);
    assert_eq!(loops["l3"]["rev"], 3);
    assert_eq!(loops["l3"]["awaiting_feedback"], true);
    // Status kinds from the seed's words, not guessed.
    assert_eq!(v["units"][0]["status_kind"], "failed");
    assert_eq!(v["units"][2]["status_kind"], "running");
}

fn list(root: &Path) -> Value {
    json(&["list", root.to_str().unwrap()])
}

#[cfg(unix)]
#[test]
fn a_project_json_that_cannot_be_read_keeps_the_project_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("data/companies/acme/projects");
    // A dangling symlink, and a directory named project.json.
    fs::create_dir_all(base.join("p-link")).unwrap();
    std::os::unix::fs::symlink("gone.json", base.join("p-link/project.json")).unwrap();
    fs::create_dir_all(base.join("p-dir/project.json")).unwrap();
    let v = list(tmp.path());
    let rows = v["projects"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{v}");
    for r in rows {
        assert_eq!(r["format"], "devloop");
        assert_eq!(r["status"], "unreadable");
        assert_eq!(r["problems"][0]["file"], "project.json");
    }
    let reasons: Vec<&str> = rows
        .iter()
        .map(|r| r["problems"][0]["reason"].as_str().unwrap())
        .collect();
    assert!(reasons.iter().any(|r| r.contains("symlink")), "{reasons:?}");
    assert!(
        reasons.iter().any(|r| r.contains("directory")),
        "{reasons:?}"
    );
}

/// `loopdeck ARGS` as user 65534 (root reads every file whatever its
/// mode). `None` when `setpriv` is missing outside CI.
fn as_nobody(args: &[&str]) -> Option<std::process::Output> {
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    let Some(setpriv) = setpriv else {
        assert!(std::env::var_os("CI").is_none(), "setpriv is needed in CI");
        return None;
    };
    let bin = assert_cmd::cargo::cargo_bin("loopdeck");
    Some(
        std::process::Command::new(setpriv)
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(bin)
            .args(args)
            .env("NO_COLOR", "1")
            .env("LC_ALL", "C.UTF-8")
            .output()
            .unwrap(),
    )
}

#[cfg(unix)]
#[test]
fn unreadable_directories_are_problems_not_silence() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    let base = root.join("data/companies/acme/projects");
    let dir = paused_project(&root);
    write(&base.join("p-locked/project.json"), meta("p-locked"));
    // World-readable, except what is under test.
    let mut stack = vec![tmp.path().to_path_buf()];
    while let Some(d) = stack.pop() {
        fs::set_permissions(&d, fs::Permissions::from_mode(0o755)).unwrap();
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                fs::set_permissions(e.path(), fs::Permissions::from_mode(0o644)).unwrap();
            }
        }
    }
    fs::set_permissions(dir.join("agent-state"), fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(base.join("p-locked"), fs::Permissions::from_mode(0o000)).unwrap();
    let Some(out) = as_nobody(&["list", root.to_str().unwrap(), "--json", "--now", NOW]) else {
        return;
    };
    // A directory the walk cannot list makes `list` exit 1 (and say so),
    // with every project it could see still listed.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["projects"].as_array().unwrap();
    let row = |id: &str| {
        rows.iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(id))
            .unwrap_or_else(|| panic!("{id} missing: {v}"))
    };
    let paused = row("p-paused");
    assert_eq!(paused["problems"][0]["file"], "agent-state");
    assert!(
        paused["problems"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("permission denied")
    );
    let locked = row("p-locked");
    assert_eq!(locked["status"], "unreadable");
    assert!(
        locked["problems"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("cannot be listed")
    );
    // Asked for directly.
    let out = as_nobody(&["show", base.join("p-locked").to_str().unwrap(), "--json"]).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["project"]["status"], "unreadable");
    // The projects directory itself.
    fs::set_permissions(base.join("p-locked"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&base, fs::Permissions::from_mode(0o000)).unwrap();
    let out = as_nobody(&["list", root.to_str().unwrap(), "--json", "--now", NOW]).unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["projects"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{v}");
    assert!(rows[0]["path"].as_str().unwrap().ends_with("projects"));
    assert!(
        rows[0]["problems"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("projects directory cannot be listed")
    );
    fs::set_permissions(&base, fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(dir.join("agent-state"), fs::Permissions::from_mode(0o755)).unwrap();
}
