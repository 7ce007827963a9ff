//! DWP plans that cannot be read stay listed with their problem. Root
//! ignores file modes, so the binary runs as `nobody` (uid 65534) through
//! `setpriv`, on a temp dir made world-readable except the part under test.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{NOW, repo};
use serde_json::Value;

fn as_nobody(setpriv: &Path, args: &[&str]) -> Output {
    Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(assert_cmd::cargo::cargo_bin("loopdeck"))
        .args(args)
        .args(["--now", NOW, "--json"])
        .env("NO_COLOR", "1")
        .env("LC_ALL", "C.UTF-8")
        .output()
        .unwrap()
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Every directory 0755 and file 0644 under `dir` (and `dir` itself).
fn open_up(dir: &Path) {
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            open_up(&e.path());
        } else {
            fs::set_permissions(e.path(), fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
}

/// The example repository with two plans, in a world-readable temp dir.
fn shop_api() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    common::copy_dir(
        &repo().join("examples/workspace/dwp/shop-api"),
        &root.join("shop-api"),
    );
    open_up(tmp.path());
    (tmp, root)
}

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

fn row<'a>(list: &'a Value, id: &str) -> &'a Value {
    list["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("{id} not listed: {list}"))
}

const SEARCH: &str = "shop-api/.dwp/plans/PLAN_search_index";
const CHECKOUT: &str = "shop-api/.dwp/plans/PLAN_checkout_refactor";

#[test]
fn an_unreadable_plan_directory_stays_listed_with_its_problem() {
    let Some(setpriv) = common::setpriv() else {
        return;
    };
    let (_t, root) = shop_api();
    let plan = root.join(SEARCH);
    // Baseline: as nobody, both plans read without a problem.
    let v = json_of(&as_nobody(&setpriv, &["list", root.to_str().unwrap()]));
    assert_eq!(row(&v, SEARCH)["problems"], serde_json::json!([]));

    for mode in [0o000, 0o644] {
        chmod(&plan, mode);
        let v = json_of(&as_nobody(&setpriv, &["list", root.to_str().unwrap()]));
        assert_eq!(v["projects"].as_array().unwrap().len(), 2, "{mode:o}: {v}");
        assert_eq!(row(&v, CHECKOUT)["problems"], serde_json::json!([]));
        let r = row(&v, SEARCH);
        assert_eq!(r["format"], "dwp");
        let problems = r["problems"].as_array().unwrap();
        assert!(!problems.is_empty(), "{mode:o}: {r}");
        let text = r["problems"].to_string();
        assert!(text.contains("permission denied"), "{mode:o}: {text}");
        if mode == 0 {
            // The directory itself cannot be listed: the problem names it.
            assert_eq!(problems.len(), 1, "{text}");
            assert_eq!(problems[0]["file"], "PLAN_search_index/", "{text}");
            assert!(text.contains("PLAN_search_index"), "{text}");
            assert_eq!(r["status"], "unreadable");
            // Given directly, the plan is shown with the same problem.
            let out = as_nobody(&setpriv, &["show", plan.to_str().unwrap()]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let s = json_of(&out);
            assert_eq!(s["project"]["status"], "unreadable");
            assert!(s.to_string().contains("permission denied"));
        }
        chmod(&plan, 0o755);
    }
}

#[test]
fn an_unreadable_plans_directory_is_listed_with_its_problem() {
    let Some(setpriv) = common::setpriv() else {
        return;
    };
    let (_t, root) = shop_api();
    for dir in [".dwp/plans", ".dwp"] {
        let path = root.join("shop-api").join(dir);
        chmod(&path, 0o000);
        let v = json_of(&as_nobody(&setpriv, &["list", root.to_str().unwrap()]));
        let rows = v["projects"].as_array().unwrap();
        assert_eq!(rows.len(), 1, "{dir}: {v}");
        let r = &rows[0];
        assert_eq!(r["format"], "dwp");
        assert_eq!(r["id"], "shop-api/.dwp/plans", "{dir}");
        assert_eq!(r["status"], "unreadable");
        assert_eq!(r["problems"][0]["file"], ".dwp/plans/", "{dir}");
        let text = r["problems"].to_string();
        assert!(
            text.contains(".dwp/plans") && text.contains("permission denied"),
            "{dir}: {text}"
        );
        chmod(&path, 0o755);
    }
}
