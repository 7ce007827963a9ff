//! `loopdeck audit`: every decision, newest first, with where it stands
//! (undone, redone, in force), filtered by project, person and time, as a
//! table or one JSON object per line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::{loopdeck, repo};

fn run(state: &Path, args: &[&str]) -> (i32, String, String) {
    let out = loopdeck()
        .env("XDG_STATE_HOME", state)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn audit_lists_every_decision_newest_first_with_its_standing() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    let a = tmp.path().join("alpha");
    let b = tmp.path().join("beta");
    for p in [&a, &b] {
        common::copy_dir(&repo().join("examples/workspace/gsd/paused-waiting"), p);
    }
    let (a_s, b_s) = (a.to_str().unwrap(), b.to_str().unwrap());
    let decide = |p: &str, text: &str, by: &str| {
        let (code, _, err) = run(&state, &["act", p, "add-blocker", text, "--by", by]);
        assert_eq!(code, 0, "{err}");
    };
    decide(a_s, "alpha one", "ann");
    decide(b_s, "beta one", "bob");
    decide(a_s, "alpha two", "ann");
    let (code, _, err) = run(&state, &["undo", "--last", a_s]);
    assert_eq!(code, 0, "{err}");

    let (code, out, err) = run(&state, &["audit", "--json"]);
    assert_eq!(code, 0, "{err}");
    let all = lines(&out);
    assert_eq!(all.len(), 4, "{out}");
    assert!(all.iter().all(|l| l["schema_version"] == 1));
    let ids: Vec<&str> = all.iter().map(|l| l["id"].as_str().unwrap()).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable_by(|x, y| y.cmp(x));
    assert_eq!(ids, sorted, "newest first");
    // The undo, then alpha two (undone by it), beta one, alpha one.
    assert_eq!(all[0]["decision"]["verb"], "undo");
    assert_eq!(all[0]["standing"], "reversal");
    assert_eq!(all[1]["decision"]["text"], "alpha two");
    assert_eq!(all[1]["standing"], "undone");
    assert_eq!(all[1]["standing_by"], all[0]["id"]);
    assert_eq!(all[2]["decision"]["text"], "beta one");
    assert_eq!(all[2]["standing"], "in-force");
    assert_eq!(all[2]["by"], "bob");
    assert_eq!(all[3]["files"][0]["file"], ".planning/STATE.md");
    assert_eq!(all[3]["files"][0]["op"], "replace");
    let real = |p: &Path| p.canonicalize().unwrap().display().to_string();
    assert_eq!(all[3]["project"], real(&a).as_str());

    // Filters: a project, a person, a time.
    let (_, out, _) = run(&state, &["audit", b_s, "--json"]);
    let only_b = lines(&out);
    assert_eq!(only_b.len(), 1);
    assert_eq!(only_b[0]["decision"]["text"], "beta one");
    let (_, out, _) = run(&state, &["audit", "--by", "ann", "--json"]);
    assert_eq!(lines(&out).len(), 2, "{out}");
    let (_, out, _) = run(&state, &["audit", "--since", "1h", "--json"]);
    assert_eq!(lines(&out).len(), 4);
    let (_, out, _) = run(
        &state,
        &["audit", "--since", "2099-01-01T00:00:00Z", "--json"],
    );
    assert_eq!(lines(&out).len(), 0);
    let (code, _, err) = run(&state, &["audit", "--since", "yesterday"]);
    assert_eq!(code, 2);
    assert!(err.contains("`yesterday` is neither"), "{err}");

    // The table says the same in words.
    let (code, out, _) = run(&state, &["audit"]);
    assert_eq!(code, 0);
    let rows: Vec<&str> = out.lines().collect();
    assert!(
        rows[0].starts_with("AGE") && rows[0].contains("STANDING"),
        "{out}"
    );
    assert!(rows[1].contains("undo of"), "{out}");
    assert!(
        rows[2].contains("add-blocker: alpha two") && rows[2].contains("undone by"),
        "{out}"
    );
    assert!(
        rows[3].contains("beta") && rows[3].contains("in force"),
        "{out}"
    );
    assert!(out.ends_with("4 decisions\n"), "{out}");
}
