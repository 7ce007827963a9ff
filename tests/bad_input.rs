//! Bad input never crashes and never writes: each broken file becomes a
//! problem on its project, naming the file and the reason; every other
//! project is unaffected; nothing from a file reaches the terminal raw.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::Path;

use common::{NOW, loopdeck, snapshot, write};
use serde_json::Value;

const GOOD: &str = r#"{"workflow_version":"0.6","state_schema_version":3,"project_name":"good","current_stage":"2","last_updated_at_utc":"2026-05-31T12:00:00Z"}"#;

fn build(root: &Path) {
    write(&root.join("good/state.json"), GOOD);
    write(
        &root.join("truncated/state.json"),
        r#"{"workflow_version": "0.6", "current_stage": "1", "open_q"#,
    );
    write(
        &root.join("wrong-types/state.json"),
        r#"{"workflow_version":"0.6","current_stage":"1","project_name":42,"open_questions":"none","last_updated_at_utc":"2026-05-01T00:00:00Z"}"#,
    );
    write(
        &root.join("invalid-utf8/state.json"),
        b"{\"workflow_version\":\"0.6\",\"project_name\":\"\xff\xfe\"}".as_slice(),
    );
    let mut huge = br#"{"workflow_version":"0.6","current_stage":"1","x":""#.to_vec();
    huge.resize(50 * 1024 * 1024, b'a');
    huge.extend_from_slice(b"\"}");
    write(&root.join("huge-line/state.json"), huge);
    let junk: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    write(&root.join("binary-junk/state.json"), &junk);
    write(&root.join("binary-junk/scene-anchor.md"), "# 场景");
    write(&root.join("gsd-junk/.planning/STATE.md"), &junk);
    write(
        &root.join("gsd-bad-waiting/.planning/STATE.md"),
        "---\nstatus: executing\n---\n",
    );
    write(
        &root.join("gsd-bad-waiting/.planning/WAITING.json"),
        "[1, 2",
    );
    write(&root.join("dangling/conversation.md"), "对话");
    write(&root.join("outside/state.json"), GOOD);
    write(
        &root.join("null-deps/state.json"),
        r#"{"workflow_version":"0.6","current_stage":"1","last_updated_at_utc":"2026-05-01T00:00:00Z",
            "next_action":{"type":"stage1_frontier","question_ids":[1],"research_ids":null},
            "open_questions":[
              {"id":1,"kind":"decision","owner":"user","status":"pending_user","depends_on":null},
              {"id":"OQ-2","kind":"decision","owner":"user","status":"pending_user","title":["not","text"],"depends_on":["OQ-3"]},
              {"id":"OQ-3","kind":"decision","owner":"user","status":"pending_user","depends_on":["OQ-2"],"priority":7}
            ]}"#,
    );
    write(
        &root.join("future-version/state.json"),
        r#"{"workflow_version":"0.10","current_stage":"3.2","last_updated_at_utc":"2026-05-01T00:00:00Z"}"#,
    );
    write(
        &root.join("deliverable-escape/state.json"),
        r#"{"workflow_version":"0.6","current_stage":"1","last_updated_at_utc":"2026-05-01T00:00:00Z","deliverables":{"scene_anchor":"../../../../etc/passwd","evidence":["/etc/shadow"]}}"#,
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink("gone.json", root.join("dangling/state.json")).unwrap();
        fs::create_dir_all(root.join("escape")).unwrap();
        symlink(
            root.join("outside/state.json"),
            root.join("escape/state.json"),
        )
        .unwrap();
        write(&root.join("escape/scene-anchor.md"), "x");
        symlink(root, root.join("good/loop")).unwrap();
        // A `state.json` nobody can tell is ours, with no deliverables beside
        // it: never a project.
        fs::create_dir_all(root.join("unrelated-link")).unwrap();
        symlink("/etc/hostname", root.join("unrelated-link/state.json")).unwrap();
        fs::create_dir_all(root.join("unrelated-dir-link")).unwrap();
        symlink(
            root.join("good"),
            root.join("unrelated-dir-link/state.json"),
        )
        .unwrap();
        fs::create_dir_all(root.join("fifo")).unwrap();
        let fifo = root.join("fifo/state.json");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc_mkfifo(c.as_ptr(), 0o644) }, 0);
        write(&root.join("fifo/conversation.md"), "x");
        fs::create_dir_all(root.join("unrelated-fifo")).unwrap();
        let c = std::ffi::CString::new(root.join("unrelated-fifo/state.json").to_str().unwrap())
            .unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc_mkfifo(c.as_ptr(), 0o644) }, 0);
    }
}

#[cfg(unix)]
unsafe extern "C" {
    #[link_name = "mkfifo"]
    fn libc_mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}

fn problems(row: &Value) -> Vec<(String, String)> {
    row["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["file"].as_str().unwrap().to_owned(),
                p["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn every_bad_file_is_a_problem_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    build(&root);
    let before = snapshot(&root);
    let out = loopdeck()
        .args(["list", root.to_str().unwrap(), "--json", "--now", NOW])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(snapshot(&root), before, "reading wrote nothing");

    let rows = v["projects"].as_array().unwrap();
    let row = |id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} missing: {v}"))
    };
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids.iter().filter(|i| **i == "good").count(),
        1,
        "a symlink loop lists nothing twice: {ids:?}"
    );

    let good = row("good");
    assert_eq!(
        (good["status"].as_str(), good["stage"].as_str()),
        (Some("active"), Some("2"))
    );
    assert!(problems(good).is_empty());

    let has = |id: &str, file: &str, needle: &str| {
        let ps = problems(row(id));
        assert!(
            ps.iter().any(|(f, r)| f == file && r.contains(needle)),
            "{id}: wanted {file} / {needle}, got {ps:?}"
        );
    };
    has("truncated", "state.json", "truncated JSON");
    assert_eq!(row("truncated")["status"], "rebuilt");
    has("wrong-types", "state.json", "project_name");
    has("wrong-types", "state.json", "open_questions");
    assert_eq!(
        row("wrong-types")["updated_at"],
        "2026-05-01T00:00:00Z",
        "the good fields survive"
    );
    has("invalid-utf8", "state.json", "not valid JSON");
    has("huge-line", "state.json", "too large");
    has("binary-junk", "state.json", "not valid JSON");
    has("gsd-junk", ".planning/STATE.md", "UTF-8");
    has(
        "gsd-bad-waiting",
        ".planning/WAITING.json",
        "truncated JSON",
    );
    has("dangling", "state.json", "disappeared");
    has("escape", "state.json", "leaves the project");
    #[cfg(unix)]
    has("fifo", "state.json", "not a regular file");
    let v = common::json(&["show", root.join("null-deps").to_str().unwrap()]);
    let ids_of = |k: &str| {
        v["frontier"][k]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q["id"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ids_of("questions"),
        vec!["1"],
        "null depends_on is none; a numeric id is an id"
    );
    assert_eq!(
        ids_of("blocked"),
        vec!["OQ-2", "OQ-3"],
        "nodes with a bad field keep their place and their dependencies"
    );
    assert_eq!(v["frontier"]["snapshot_stale"], false);
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "prd.dependency-cycle")
    );
    let v = common::json(&["show", root.join("future-version").to_str().unwrap()]);
    assert_eq!(
        v["project"]["stage"], "3.2",
        "0.10 is newer than 0.6: no legacy mapping"
    );
    assert!(
        !v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "prd.legacy-state")
    );
    let escape = loopdeck()
        .args([
            "show",
            root.join("deliverable-escape").to_str().unwrap(),
            "--json",
            "--now",
            NOW,
        ])
        .output()
        .unwrap();
    let escape: Value = serde_json::from_slice(&escape.stdout).unwrap();
    let outside: Vec<&Value> = escape["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "prd.deliverable-outside")
        .collect();
    assert_eq!(outside.len(), 2, "{}", escape["findings"]);
    assert!(
        !escape["resume"]["read_first"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f.as_str().unwrap().contains("passwd"))
    );
}

#[test]
fn hostile_strings_never_reach_the_terminal_raw() {
    let tmp = tempfile::tempdir().unwrap();
    let name = "evil\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\u{202e}gnp.exe\u{7f}";
    let state = serde_json::json!({
        "workflow_version": "0.6", "current_stage": "1", "project_name": name,
        "last_updated_at_utc": "2026-06-01T11:00:00Z",
        "open_questions": [{"id": "OQ-\u{1b}[31m1", "title": name, "kind": "decision", "owner": "user", "status": "pending_user", "depends_on": []}]
    });
    write(
        &tmp.path().join("p/state.json"),
        serde_json::to_vec(&state).unwrap(),
    );
    write(
        &tmp.path().join("g/.planning/STATE.md"),
        format!("---\nmilestone: {name}\nstatus: executing\n---\n"),
    );
    let root = tmp.path().to_str().unwrap();
    let is_raw = |c: char| {
        (c.is_control() && c != '\n')
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    for args in [
        vec!["list", root],
        vec!["inbox", root],
        vec!["list", root, "--json"],
        vec!["inbox", root, "--json"],
        vec!["show", &format!("{root}/p")],
        vec!["show", &format!("{root}/p"), "--json"],
        vec!["status", &format!("{root}/g")],
    ] {
        let out = loopdeck()
            .args(&args)
            .args(["--now", NOW])
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            !text.chars().any(is_raw),
            "{args:?} printed a raw control: {text:?}"
        );
        if args.contains(&"--json") {
            let v: Value = serde_json::from_str(&text).unwrap();
            assert!(v.to_string().contains("pwned"));
        } else {
            assert!(
                text.contains("^[]0;pwned^G"),
                "{args:?}: escapes are shown, not dropped: {text}"
            );
        }
    }
    let json: Value = serde_json::from_slice(
        &loopdeck()
            .args(["list", root, "--json", "--now", NOW])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let names: Vec<&str> = json["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&name),
        "JSON keeps the data exact, escaped: {names:?}"
    );
}
