//! Projects deeper than the walk looks (24 directories below a root) used
//! to be left out of `list` and `check` without a word. The cap stays (it
//! bounds a walk through a file system that shows a directory inside
//! itself), but where it cuts is a problem of the run, naming the
//! directory. The real binary on a 30-level chain.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

/// `root` with a GSD project at `levels` directories below it.
fn chain(root: &Path, levels: usize) -> PathBuf {
    let dir: PathBuf = (0..levels).map(|i| format!("level-{i:02}")).collect();
    let project = root.join(&dir);
    common::copy_dir(
        &common::repo().join("examples/workspace/gsd/scene1-active-phase"),
        &project,
    );
    project
}

#[test]
fn a_project_beyond_the_depth_cap_is_a_problem_naming_where_the_walk_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    chain(&root, 30);
    // Within the cap, a project is listed as always.
    let near = chain(&root.join("near"), 20);

    let list = common::loopdeck()
        .args(["list", "--json", "--now", common::NOW])
        .arg(&root)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&list.stdout).unwrap();
    let ids: Vec<&str> = v["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [near.strip_prefix(&root).unwrap().to_str().unwrap()]);
    // The walk did not enter the chain's 25th level: that directory is
    // named, with why and what lists the project.
    let stopped: PathBuf = (0..25).map(|i| format!("level-{i:02}")).collect();
    let problems = v["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert_eq!(
        problems[0]["file"].as_str().unwrap(),
        root.join(&stopped).display().to_string()
    );
    let reason = problems[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("more than 24 levels below the root"),
        "{reason}"
    );
    assert!(reason.contains("give it as a root"), "{reason}");
    assert_eq!(list.status.code(), Some(1), "a problem of the run");

    // `check` says it too.
    let check = common::loopdeck()
        .args(["check", "--now", common::NOW])
        .arg(&root)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&check.stderr);
    assert!(
        err.contains(&root.join(&stopped).display().to_string())
            && err.contains("more than 24 levels below the root"),
        "{err}"
    );

    // Given as a root, the directory where the walk stopped lists it.
    let v = common::json(&["list", root.join(&stopped).to_str().unwrap()]);
    assert_eq!(v["projects"].as_array().unwrap().len(), 1, "{v}");
}
