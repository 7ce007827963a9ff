//! `list`, `inbox` and `check` of other machines over ssh, end to end: a
//! real sshd on 127.0.0.1 (`common::sshd`), the system `ssh`, and the
//! binary under test on both sides. Each host's rows carry its name and
//! merge with the local ones in the views' order; a host that cannot be
//! read is one problem of the run (exit 1) and the others are still shown.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

use common::sshd::Sshd;
use common::{NOW, copy_dir, loopdeck, repo};

/// Three roots, each with copies of two example projects: `h1`'s, `h2`'s
/// and the local one.
struct Roots {
    _tmp: tempfile::TempDir,
    h1: PathBuf,
    h2: PathBuf,
    local: PathBuf,
    dir: PathBuf,
}

fn roots() -> Roots {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let ex = repo().join("examples/workspace");
    let fill = |root: &str, projects: &[&str]| {
        let r = dir.join(root);
        for p in projects {
            let name = Path::new(p).file_name().unwrap();
            copy_dir(&ex.join(p), &r.join(name));
        }
        r
    };
    Roots {
        h1: fill(
            "h1-root",
            &["prd-master/fba-smart-restock", "gsd/paused-waiting"],
        ),
        h2: fill("h2-root", &["dwp/shop-api", "prd-master/lint-synonyms"]),
        local: fill(
            "local-root",
            &["prd-master/restock-v1-review", "gsd/scene1-active-phase"],
        ),
        dir,
        _tmp: tmp,
    }
}

/// A config whose `[[host]]` tables say how to reach `names` (this sshd,
/// the binary under test there) with roots the command line replaces:
/// they do not exist. Then the `extra` tables.
fn reach_config(
    sshd: &Sshd,
    dir: &Path,
    names: &[&str],
    extra: &[loopdeck_core::fleet::HostSpec],
) -> PathBuf {
    let gone = Path::new("/nonexistent-root");
    let mut hosts: Vec<_> = names.iter().map(|n| sshd.host(n, &[gone])).collect();
    hosts.extend(extra.iter().cloned());
    let file = dir.join("config.toml");
    std::fs::write(&file, Sshd::config_toml(&hosts)).unwrap();
    file
}

/// `loopdeck ARGS --now NOW`: stdout, stderr, exit code.
fn run(args: &[&str]) -> (String, String, i32) {
    let out = loopdeck().args(args).args(["--now", NOW]).output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

fn parse(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// `loopdeck COMMAND ROOT --json` run here: what a host answers for it.
fn local_json(command: &str, root: &Path) -> Value {
    let (out, err, _) = run(&[command, root.to_str().unwrap(), "--json"]);
    assert!(err.is_empty() || !err.contains("host"), "{err}");
    parse(&out)
}

fn host_arg(name: &str, root: &Path) -> String {
    format!("--host={name}={name}:{}", root.display())
}

/// `row` without its `host`, and that host.
fn untagged(row: &Value) -> (Option<String>, Value) {
    let mut row = row.clone();
    let host = row
        .as_object_mut()
        .unwrap()
        .shift_remove("host")
        .map(|h| h.as_str().unwrap().to_owned());
    (host, row)
}

/// The rows of `key` in `v`, each with the host it is expected under.
fn expected(v: &Value, key: &str, host: Option<&str>) -> Vec<(Option<String>, Value)> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (host.map(str::to_owned), r.clone()))
        .collect()
}

fn sorted(mut v: Vec<(Option<String>, Value)>) -> Vec<(Option<String>, Value)> {
    v.sort_by_key(|(h, r)| format!("{h:?}{r}"));
    v
}

#[test]
fn list_merges_two_hosts_and_a_local_root_newest_first() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let r = roots();
    let config = reach_config(&sshd, &r.dir, &["h1", "h2"], &[]);
    let (h1, h2) = (host_arg("h1", &r.h1), host_arg("h2", &r.h2));
    let args = [
        "list",
        r.local.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        &h1,
        &h2,
    ];
    let (out, err, code) = run(&[&args[..], &["--json"]].concat());
    assert_eq!(code, 0, "{err}\n{out}\nsshd: {}", sshd.log());
    let v = parse(&out);
    // Exactly the rows each root gives on its own, each under its host.
    let got: Vec<(Option<String>, Value)> = v["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(untagged)
        .collect();
    let mut want = expected(&local_json("list", &r.local), "projects", None);
    want.extend(expected(&local_json("list", &r.h1), "projects", Some("h1")));
    want.extend(expected(&local_json("list", &r.h2), "projects", Some("h2")));
    assert_eq!(want.len(), 7, "{want:?}");
    assert_eq!(sorted(got.clone()), sorted(want));
    // `host` comes first in a host's row; local rows have none.
    for row in v["projects"].as_array().unwrap() {
        let keys: Vec<&String> = row.as_object().unwrap().keys().collect();
        match row.get("host") {
            Some(_) => assert_eq!(keys[0], "host"),
            None => assert_eq!(keys[0], "id"),
        }
    }
    // Newest first across machines; ties by id, format, then host (local
    // first).
    let key = |(h, r): &(Option<String>, Value)| {
        (
            std::cmp::Reverse(r["updated_at"].as_str().unwrap().to_owned()),
            r["id"].as_str().unwrap().to_owned(),
            r["format"].as_str().unwrap().to_owned(),
            h.clone().unwrap_or_default(),
        )
    };
    let mut in_order = got.clone();
    in_order.sort_by_key(key);
    assert_eq!(got, in_order);
    let hosts: Vec<&str> = got
        .iter()
        .map(|(h, _)| h.as_deref().unwrap_or("local"))
        .collect();
    assert_eq!(v["problems"], serde_json::json!([]));
    assert_eq!(v["roots"], serde_json::json!([r.local.to_str().unwrap()]));
    assert_eq!(
        v["hosts"],
        serde_json::json!([
            {"name": "h1", "roots": [r.h1.to_str().unwrap()]},
            {"name": "h2", "roots": [r.h2.to_str().unwrap()]},
        ])
    );
    // The table: a host's rows as `NAME · id`, in the same order.
    let (table, err, code) = run(&args);
    assert_eq!(code, 0, "{err}");
    let ids: Vec<&str> = table
        .lines()
        .skip(1)
        .filter(|l| l.contains("  "))
        .map(|l| {
            ["h1", "h2"]
                .into_iter()
                .find(|h| l.contains(&format!("{h} · ")))
                .unwrap_or("local")
        })
        .collect();
    assert_eq!(ids, hosts, "{table}");
    assert!(table.ends_with("7 projects\n"), "{table}");
}

#[test]
fn inbox_items_carry_their_host() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let r = roots();
    let config = reach_config(&sshd, &r.dir, &["h1", "h2"], &[]);
    let (h1, h2) = (host_arg("h1", &r.h1), host_arg("h2", &r.h2));
    let args = [
        "inbox",
        r.local.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        &h1,
        &h2,
    ];
    let (out, err, code) = run(&[&args[..], &["--json"]].concat());
    assert_eq!(code, 0, "{err}\n{out}");
    let v = parse(&out);
    let got: Vec<(Option<String>, Value)> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(untagged)
        .collect();
    let mut want = expected(&local_json("inbox", &r.local), "items", None);
    want.extend(expected(&local_json("inbox", &r.h1), "items", Some("h1")));
    want.extend(expected(&local_json("inbox", &r.h2), "items", Some("h2")));
    assert!(want.iter().any(|(h, _)| h.as_deref() == Some("h1")));
    assert!(want.iter().any(|(h, _)| h.as_deref() == Some("h2")));
    assert!(want.iter().any(|(h, _)| h.is_none()));
    assert_eq!(sorted(got.clone()), sorted(want));
    // Oldest first across machines (every item here has a time).
    let since: Vec<&str> = got
        .iter()
        .map(|(_, r)| r["since"].as_str().unwrap())
        .collect();
    let mut oldest = since.clone();
    oldest.sort();
    assert_eq!(since, oldest);
    let (table, err, code) = run(&args);
    assert_eq!(code, 0, "{err}");
    let h1_items = got
        .iter()
        .filter(|(h, _)| h.as_deref() == Some("h1"))
        .count();
    assert_eq!(table.matches("h1 · ").count(), h1_items, "{table}");
    assert!(
        table.contains(&format!("{} items waiting for a human", got.len())),
        "{table}"
    );
}

#[test]
fn check_counts_every_host() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let r = roots();
    let config = reach_config(&sshd, &r.dir, &["h1", "h2"], &[]);
    let (h1, h2) = (host_arg("h1", &r.h1), host_arg("h2", &r.h2));
    let args = [
        "check",
        r.local.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        &h1,
        &h2,
    ];
    let (out, err, code) = run(&[&args[..], &["--json"]].concat());
    let v = parse(&out);
    let parts = [
        local_json("check", &r.local),
        local_json("check", &r.h1),
        local_json("check", &r.h2),
    ];
    for key in ["projects", "errors", "warnings", "info"] {
        let sum: u64 = parts
            .iter()
            .map(|p| p["summary"][key].as_u64().unwrap())
            .sum();
        assert_eq!(v["summary"][key], sum, "{key}: {out}");
    }
    let errors = v["summary"]["errors"].as_u64().unwrap();
    assert_eq!(code, if errors > 0 { 1 } else { 0 }, "{err}");
    // The projects with findings: the local ones, then h1's, then h2's.
    let got: Vec<(Option<String>, Value)> = v["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(untagged)
        .collect();
    let mut want = expected(&parts[0], "projects", None);
    want.extend(expected(&parts[1], "projects", Some("h1")));
    want.extend(expected(&parts[2], "projects", Some("h2")));
    assert!(
        want.iter().any(|(h, _)| h.as_deref() == Some("h2")),
        "{want:?}"
    );
    assert_eq!(got, want);
    let (table, _, _) = run(&args);
    assert!(table.contains("h2 · "), "{table}");
}

/// `badkey`: sshd refuses the key. The problem says ssh's own words; the
/// other host and the local root are still listed; exit 1.
#[test]
fn a_host_that_refuses_the_key_is_a_problem_and_the_others_are_shown() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let r = roots();
    // `bad` gets its `-F` from a table of its own.
    let mut bad_table = sshd.host("bad", &[&r.h2]);
    bad_table.destination = "badkey".into();
    let config = reach_config(&sshd, &r.dir, &["h1"], &[bad_table]);
    let h1 = host_arg("h1", &r.h1);
    let bad = format!("--host=bad=badkey:{}", r.h2.display());
    let (out, err, code) = run(&[
        "list",
        r.local.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        &h1,
        &bad,
        "--json",
    ]);
    assert_eq!(code, 1, "{err}\n{out}");
    let v = parse(&out);
    let problems = v["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0]["file"], "host bad");
    let reason = problems[0]["reason"].as_str().unwrap();
    assert!(reason.contains("Permission denied"), "{reason}");
    assert!(err.contains("loopdeck: host bad: "), "{err}");
    assert!(err.contains("Permission denied"), "{err}");
    let hosts: Vec<Option<&str>> = v["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.get("host").map(|h| h.as_str().unwrap()))
        .collect();
    assert_eq!(hosts.iter().filter(|h| **h == Some("h1")).count(), 2);
    assert_eq!(hosts.iter().filter(|h| h.is_none()).count(), 2);
    assert_eq!(hosts.len(), 4, "{hosts:?}");
    // The table still lists them, the problem on stderr.
    let (table, err, code) = run(&[
        "list",
        r.local.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        &h1,
        &bad,
    ]);
    assert_eq!(code, 1);
    assert!(table.ends_with("4 projects\n"), "{table}");
    assert!(err.contains("Permission denied"), "{err}");
}

/// A host without `command`: the remote `PATH` has no loopdeck. The
/// problem is the shell's `command not found` and says what to do.
#[test]
fn a_host_without_loopdeck_says_to_install_it() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let r = roots();
    let mut bare = sshd.host("bare", &[&r.h2]);
    bare.command = None;
    let config = reach_config(&sshd, &r.dir, &["h1"], &[bare]);
    let h1 = host_arg("h1", &r.h1);
    for command in ["list", "inbox", "check"] {
        let (out, err, code) = run(&[
            command,
            "--config",
            config.to_str().unwrap(),
            &h1,
            "--host=bare=bare:/srv",
            "--json",
        ]);
        assert_eq!(code, 1, "{command}: {err}\n{out}");
        let v = parse(&out);
        let problems = v["problems"].as_array().unwrap();
        let bare: Vec<&Value> = problems
            .iter()
            .filter(|p| p["file"] == "host bare")
            .collect();
        assert_eq!(bare.len(), 1, "{command}: {problems:?}");
        let reason = bare[0]["reason"].as_str().unwrap();
        assert!(reason.contains("command not found"), "{reason}");
        assert!(
            reason.contains("install loopdeck there, or give its path as `command`"),
            "{reason}"
        );
        assert!(err.contains("command not found"), "{err}");
        // No local root given or configured: the hosts alone are read.
        assert_eq!(v["roots"], serde_json::json!([]));
        let key = if command == "inbox" {
            "items"
        } else {
            "projects"
        };
        let rows = v[key].as_array().unwrap();
        assert!(
            rows.iter().all(|p| p["host"] == "h1"),
            "{command}: {rows:?}"
        );
        if command == "list" {
            assert_eq!(rows.len(), 2, "{rows:?}");
        }
    }
}

/// The hosts all from the config's `[[host]]` tables, no `--host`.
#[test]
fn config_host_tables_are_read() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let r = roots();
    let config = r.dir.join("hosts.toml");
    std::fs::write(
        &config,
        format!(
            "roots = [{local:?}]\n\n{hosts}",
            local = r.local.to_str().unwrap(),
            hosts = Sshd::config_toml(&[sshd.host("h1", &[&r.h1, &r.h2])])
        ),
    )
    .unwrap();
    let (out, err, code) = run(&["list", "--config", config.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}\n{out}");
    let v = parse(&out);
    let hosts: Vec<Option<&str>> = v["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.get("host").map(|h| h.as_str().unwrap()))
        .collect();
    assert_eq!(hosts.iter().filter(|h| **h == Some("h1")).count(), 5);
    assert_eq!(hosts.iter().filter(|h| h.is_none()).count(), 2);
    assert_eq!(v["roots"], serde_json::json!([r.local.to_str().unwrap()]));
    assert_eq!(v["hosts"][0]["roots"][1], r.h2.to_str().unwrap());
    // A problem the host reports (a root there that is a dangling link)
    // comes back under its name, its rows still shown; exit 1.
    let dangling = r.dir.join("dangling");
    std::os::unix::fs::symlink("/nonexistent-target", &dangling).unwrap();
    std::fs::write(
        &config,
        Sshd::config_toml(&[sshd.host("h1", &[&r.h1, &dangling])]),
    )
    .unwrap();
    let (out, err, code) = run(&["list", "--config", config.to_str().unwrap(), "--json"]);
    assert_eq!(code, 1, "{err}\n{out}");
    let v = parse(&out);
    assert_eq!(
        v["problems"],
        serde_json::json!([{
            "file": format!("host h1: {}", dangling.display()),
            "reason": "does not exist",
        }])
    );
    assert_eq!(v["projects"].as_array().unwrap().len(), 2);
    assert!(
        err.contains(&format!(
            "loopdeck: host h1: {}: does not exist",
            dangling.display()
        )),
        "{err}"
    );
    // A remote root that does not exist: that host's usage error, said.
    std::fs::write(
        &config,
        Sshd::config_toml(&[sshd.host("h1", &[Path::new("/nonexistent-root")])]),
    )
    .unwrap();
    let (out, err, code) = run(&["list", "--config", config.to_str().unwrap(), "--json"]);
    assert_eq!(code, 1, "{err}\n{out}");
    assert_eq!(
        parse(&out)["problems"],
        serde_json::json!([{"file": "host h1", "reason": "loopdeck: /nonexistent-root does not exist"}])
    );
}

/// Without hosts the JSON is what it always was: no `host`, no `hosts`.
#[test]
fn local_only_json_has_no_host_field() {
    let r = roots();
    for (command, key) in [
        ("list", "projects"),
        ("inbox", "items"),
        ("check", "projects"),
    ] {
        let v = local_json(command, &r.local);
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert!(!keys.iter().any(|k| *k == "hosts"), "{command}: {keys:?}");
        assert!(!v.to_string().contains("\"host\""), "{command}: {v}");
        assert!(v[key].is_array(), "{command}");
    }
}

/// `dead` listens and never accepts: ssh gives up at its ConnectTimeout
/// and the run still answers, the others shown.
#[test]
fn a_host_that_never_answers_times_out_and_the_others_are_shown() {
    let Some(sshd) = Sshd::start_or_skip() else {
        return;
    };
    let r = roots();
    let mut dead = sshd.host("dead", &[&r.h2]);
    dead.destination = "dead".into();
    let config = reach_config(&sshd, &r.dir, &["h1"], &[dead]);
    let h1 = host_arg("h1", &r.h1);
    let start = std::time::Instant::now();
    let (out, err, code) = run(&["list", "--config", config.to_str().unwrap(), &h1, "--json"]);
    assert_eq!(code, 1, "{err}\n{out}");
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
    let v = parse(&out);
    let problems = v["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0]["file"], "host dead");
    assert!(
        problems[0]["reason"]
            .as_str()
            .unwrap()
            .contains("timed out"),
        "{problems:?}"
    );
    assert_eq!(v["projects"].as_array().unwrap().len(), 2);
    assert!(sshd.dead_port() > 0);
}
