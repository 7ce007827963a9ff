//! The command line a user meets: one config for every command, messages
//! that say what is wrong and what to type instead, `status` and `show`
//! answering for the directory asked. Each case runs the binary.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;

use common::{NOW, json, loopdeck, workspace, write};
use predicates::prelude::*;
use predicates::str::contains;

#[test]
fn every_command_reads_the_config_file() {
    let (_t, ws) = workspace();
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("loopdeck.toml");
    let gsd = ws.join("gsd");
    fs::write(&cfg, format!("roots = [{:?}]\n", gsd.to_str().unwrap())).unwrap();
    let c = cfg.to_str().unwrap();
    let with_config = json(&["list", "--config", c]);
    let direct = json(&["list", gsd.to_str().unwrap()]);
    assert_eq!(with_config["projects"], direct["projects"]);
    assert_eq!(
        with_config["roots"],
        serde_json::json!([gsd.to_str().unwrap()])
    );
    // The default location ($XDG_CONFIG_HOME/loopdeck/config.toml) too.
    let xdg = tempfile::tempdir().unwrap();
    write(
        &xdg.path().join("loopdeck/config.toml"),
        format!("roots = [{:?}]\n", gsd.to_str().unwrap()),
    );
    for cmd in ["list", "inbox", "check"] {
        let out = loopdeck()
            .env("XDG_CONFIG_HOME", xdg.path())
            .current_dir(tmp.path())
            .args([cmd, "--json", "--now", NOW])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            v["roots"],
            serde_json::json!([gsd.to_str().unwrap()]),
            "{cmd}"
        );
    }

    // A broken config stops every command (exit 2) with the file, the line
    // and the reason, the console included.
    fs::write(&cfg, "mouse = true\nrots = [\"/x\"]\n").unwrap();
    for args in [
        vec!["list"],
        vec!["inbox"],
        vec!["check"],
        vec!["show", ws.join("gsd/paused-waiting").to_str().unwrap()],
        vec!["status", ws.join("gsd/paused-waiting").to_str().unwrap()],
        vec![],
    ] {
        loopdeck()
            .args(&args)
            .args(["--config", c])
            .assert()
            .code(2)
            .stdout("")
            .stderr(contains(format!(
                "loopdeck: config file {c}, line 2, column 1: unknown field `rots`"
            )));
    }
    loopdeck()
        .args(["list", "--config", "/nonexistent/loopdeck.toml"])
        .assert()
        .code(2)
        .stderr(contains(
            "cannot read the config file /nonexistent/loopdeck.toml",
        ));
}

#[test]
fn a_root_that_does_not_exist_is_named_as_such() {
    for cmd in ["list", "inbox", "check", "show", "status"] {
        loopdeck()
            .args([cmd, "/nonexistent"])
            .assert()
            .code(2)
            .stderr("loopdeck: /nonexistent does not exist\n");
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("notes.txt");
    fs::write(&file, "x").unwrap();
    loopdeck()
        .args(["list", file.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(format!("loopdeck: {} is not a directory\n", file.display()));
}

/// A root that does not exist beside one that does is a problem of the
/// run, as a dangling link there is: exit 1, the root in `problems` and on
/// stderr, the other root's rows all there. Only when no root given
/// exists is the command line wrong (exit 2, nothing on stdout).
#[test]
fn a_missing_root_beside_a_good_one_is_a_problem_not_a_usage_error() {
    let (_t, ws) = workspace();
    let gsd = ws.join("gsd");
    let good = gsd.to_str().unwrap();
    let gone = ws.join("gone");
    let missing = gone.to_str().unwrap();
    let dangling = ws.join("dangling");
    std::os::unix::fs::symlink(ws.join("nowhere"), &dangling).unwrap();
    for (cmd, key, row) in [
        ("list", "projects", "scene1-active-phase"),
        ("inbox", "items", "paused-waiting"),
        ("check", "projects", "scene4-fallback"),
    ] {
        let alone = loopdeck()
            .args([cmd, good, "--json", "--now", NOW])
            .output()
            .unwrap();
        let alone: serde_json::Value = serde_json::from_slice(&alone.stdout).unwrap();
        assert!(!alone[key].as_array().unwrap().is_empty(), "{cmd}");
        for bad in [missing, dangling.to_str().unwrap()] {
            let out = loopdeck()
                .args([cmd, bad, good, "--json", "--now", NOW])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{cmd} {bad}: {stderr}");
            let v: serde_json::Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("{cmd} {bad}: {e}: {stderr}"));
            assert_eq!(
                v["problems"],
                serde_json::json!([{"file": bad, "reason": "does not exist"}]),
                "{cmd} {bad}"
            );
            assert_eq!(v["roots"], serde_json::json!([bad, good]), "{cmd}");
            assert_eq!(v[key], alone[key], "{cmd} {bad}: the good root's rows");
            assert_eq!(
                stderr,
                format!("loopdeck: {bad}: does not exist\n"),
                "{cmd}"
            );
        }
        // The plain table too: the good root's rows, the problem on stderr.
        loopdeck()
            .args([cmd, missing, good, "--now", NOW])
            .assert()
            .code(1)
            .stdout(contains(row))
            .stderr(format!("loopdeck: {missing}: does not exist\n"));
        // Nothing given exists: the command line is wrong, the first named.
        loopdeck()
            .args([cmd, missing, ws.join("gone2").to_str().unwrap(), "--json"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!("loopdeck: {missing} does not exist\n"));
        // A link to nothing exists no more than a path to nothing, alone
        // or beside one.
        let dangling = dangling.to_str().unwrap();
        for args in [vec![cmd, dangling], vec![cmd, dangling, missing]] {
            loopdeck()
                .args(&args)
                .args(["--json"])
                .assert()
                .code(2)
                .stdout("")
                .stderr(format!("loopdeck: {dangling} does not exist\n"));
        }
    }
}

#[test]
fn a_mistyped_command_gets_a_suggestion() {
    let tmp = tempfile::tempdir().unwrap();
    for (typed, meant) in [
        ("lsit", "list"),
        ("inbx", "inbox"),
        ("chekc", "check"),
        ("shwo", "show"),
    ] {
        loopdeck()
            .current_dir(tmp.path())
            .arg(typed)
            .assert()
            .code(2)
            .stderr(format!(
                "loopdeck: {typed} is neither a command nor a directory; did you mean `loopdeck {meant}`?\n"
            ));
    }
    // A word far from every command is a root that does not exist.
    loopdeck()
        .current_dir(tmp.path())
        .arg("projects")
        .assert()
        .code(2)
        .stderr("loopdeck: projects does not exist\n");
    // A directory named like a command is a root, as typed.
    fs::create_dir(tmp.path().join("lsit")).unwrap();
    loopdeck()
        .current_dir(tmp.path())
        .arg("lsit")
        .assert()
        .code(2)
        .stderr(contains("the console needs a terminal"));
}

#[test]
fn show_on_a_workspace_counts_its_projects_and_points_to_list() {
    let (_t, ws) = workspace();
    let gsd = ws.join("gsd");
    let n = json(&["list", gsd.to_str().unwrap()])["projects"]
        .as_array()
        .unwrap()
        .len();
    loopdeck()
        .args(["show", gsd.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(contains(format!(
            "loopdeck: {} holds {n} projects and is not one itself: `loopdeck list {}` lists them",
            gsd.display(),
            gsd.display()
        )));
}

#[test]
fn show_accepts_a_path_inside_a_project_and_names_it() {
    let (_t, ws) = workspace();
    let project = ws.join("gsd/paused-waiting");
    let whole = json(&["show", project.to_str().unwrap()]);
    let inside = json(&["show", project.join(".planning").to_str().unwrap()]);
    assert_eq!(inside, whole);
    assert_eq!(whole["project"]["id"], "paused-waiting", "not \".\"");
    assert_eq!(whole["project"]["path"], project.to_str().unwrap());
    let out = loopdeck()
        .current_dir(&project)
        .args(["show", ".", "--json", "--now", NOW])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["project"]["id"], "paused-waiting");
    // A devloop project, from one of its run directories.
    let p = ws.join("devloop/data/companies/acme/projects/p-restock");
    let inside = json(&["show", p.join("units/sku-db/runs").to_str().unwrap()]);
    assert_eq!(inside["project"]["id"], "p-restock");
}

#[test]
fn status_answers_for_the_directory_asked_never_a_sibling() {
    let (_t, ws) = workspace();
    let plans = ws.join("dwp/shop-api/.dwp/plans");
    // A plan directory holding nothing a plan is read from.
    let empty = plans.join("PLAN_empty");
    fs::create_dir(&empty).unwrap();
    for dir in [&empty, &plans] {
        loopdeck()
            .args(["status", dir.to_str().unwrap()])
            .assert()
            .code(1)
            .stdout("")
            .stderr(format!(
                "loopdeck: {} is not in a project loopdeck can read\n",
                dir.display()
            ));
    }
    // From inside a real plan, that plan's own line.
    let plan = plans.join("PLAN_search_index");
    let own = json(&["show", plan.to_str().unwrap()])["statusline"]
        .as_str()
        .unwrap()
        .to_owned();
    let sub = plan.join("notes");
    fs::create_dir(&sub).unwrap();
    loopdeck()
        .args(["status", sub.to_str().unwrap()])
        .assert()
        .success()
        .stdout(format!("{own}\n"));
    // An unrelated directory.
    let tmp = tempfile::tempdir().unwrap();
    loopdeck()
        .args(["status", tmp.path().to_str().unwrap()])
        .assert()
        .code(1)
        .stdout("");
}

#[test]
fn help_describes_every_flag_and_shows_roots_as_optional() {
    let out = loopdeck().arg("--help").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Usage: loopdeck [OPTIONS] [ROOT]...\n"),
        "{text}"
    );
    for cmd in ["list", "inbox", "check", "show", "status"] {
        let out = loopdeck().args([cmd, "--help"]).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let section = |name: &str| -> Vec<String> {
            text.split(name)
                .nth(1)
                .map(|rest| {
                    rest.lines()
                        .skip(1)
                        .take_while(|l| !l.is_empty())
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        let entries: Vec<String> = section("Arguments:")
            .into_iter()
            .chain(section("Options:"))
            .collect();
        assert!(!entries.is_empty(), "{cmd}: {text}");
        for l in &entries {
            // "  --json    Print JSON…": a name, two spaces, a description.
            let described = l
                .trim_start()
                .split_once("  ")
                .is_some_and(|(_, d)| !d.trim().is_empty());
            let continuation = l.starts_with("          ");
            assert!(described || continuation, "{cmd}: undescribed `{l}`");
        }
        if cmd != "show" {
            assert!(
                predicate::str::is_match(r"Usage: loopdeck \w+ \[OPTIONS\] \[(ROOT|DIR)\]")
                    .unwrap()
                    .eval(&text),
                "{cmd}: {text}"
            );
        }
    }
}

/// `act DIR answer --help` documents both forms as they work: PRD-master's
/// `OQ-ID TEXT`, GSD's `[SHA256] TEXT|N|LETTER` (an option's number or
/// letter, or free text; SHA256 pins WAITING.json's bytes). The forms are
/// after the options, so every argument and option keeps its one line.
#[test]
fn answer_help_documents_the_prd_and_the_gsd_forms() {
    let out = loopdeck()
        .args(["act", ".", "answer", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for said in [
        "Usage: loopdeck act <PROJECT_DIR> answer [OPTIONS] <[OQ-ID|SHA256] TEXT>...\n",
        "\n  <[OQ-ID|SHA256] TEXT>...  `OQ-ID TEXT` (PRD-master) or `[SHA256] TEXT|N|LETTER` (GSD): see below\n",
        "\n      --key-decision           Also record the answer as a key decision `D-n`\n",
        "\nPRD-master: answer OQ-ID TEXT\n  TEXT answers question OQ-ID (`OQ-7`).\n",
        "\nGSD: answer [SHA256] TEXT|N|LETTER\n  Answers the question in .planning/WAITING.json",
        "N picks the one numbered N (1 for the first),\n  LETTER the one it keys (`B` for `B. ...`)",
        "any other TEXT is recorded as written.\n",
        "SHA256 (the sha256 of that WAITING.json, or its first 8 or more hex digits",
        "bytes (exit 3 if not).\n",
    ] {
        assert!(text.contains(said), "missing {said:?} in:\n{text}");
    }
}

/// `--readonly` stays a global flag, but a command that makes no decision
/// says what it means there: nothing at all is written (`check`,
/// `status`, `audit`), or no project file, only loopdeck's own state
/// (`list`, `inbox`, `show`, `watch`). The commands that decide, and the
/// console, keep the plain text.
#[test]
fn readonly_help_says_when_the_command_never_writes() {
    let readonly = |args: &[&str]| -> String {
        let out = loopdeck().args(args).arg("--help").output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with("--readonly"));
        line.unwrap_or_else(|| panic!("{args:?}: no --readonly in {text}"))
            .to_owned()
    };
    let line = |help: &str| format!("      --readonly               {help}");
    for cmd in ["check", "status", "audit"] {
        assert_eq!(
            readonly(&[cmd]),
            line("Refuse every write (this command never writes)"),
            "{cmd}"
        );
    }
    for cmd in ["list", "inbox", "show", "watch"] {
        assert_eq!(
            readonly(&[cmd]),
            line(
                "Refuse every write (this command writes no project file; --readonly only keeps \
                 it from saving loopdeck's own state, such as when items were first seen)"
            ),
            "{cmd}"
        );
    }
    for args in [
        &[][..],
        &["act"],
        &["act", ".", "answer"],
        &["undo"],
        &["redo"],
        &["recover"],
    ] {
        assert_eq!(readonly(args), line("Refuse every write"), "{args:?}");
    }
}

/// Globals go before the command as well as after it (`loopdeck --readonly
/// act ...`), and directories given before a command are a usage error,
/// never silently dropped.
#[test]
fn globals_before_the_command_apply_to_it() {
    let ws = common::repo().join("examples/workspace");
    let before = loopdeck()
        .args(["--now", common::NOW, "list", ws.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let after = loopdeck()
        .args(["list", ws.to_str().unwrap(), "--json", "--now", common::NOW])
        .output()
        .unwrap();
    assert!(
        before.status.success(),
        "{}",
        String::from_utf8_lossy(&before.stderr)
    );
    assert_eq!(before.stdout, after.stdout);
    // --readonly before `act` refuses the write.
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("repo");
    common::copy_dir(
        &common::repo().join("examples/workspace/gsd/paused-waiting"),
        &project,
    );
    let state = fs::read(project.join(".planning/STATE.md")).unwrap();
    let out = loopdeck()
        .env("XDG_STATE_HOME", tmp.path().join("state"))
        .args([
            "--readonly",
            "act",
            project.to_str().unwrap(),
            "add-blocker",
            "x",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("read-only"));
    assert_eq!(fs::read(project.join(".planning/STATE.md")).unwrap(), state);
    // A root before a command.
    loopdeck()
        .args([ws.to_str().unwrap(), "list"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("go after it"));
}
