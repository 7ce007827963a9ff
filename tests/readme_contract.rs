//! README.md's promises to scripts, checked against the binary: its table
//! of exit codes (each code made to happen, and the set equal to the
//! binary's own), and its table of JSON fields (every object of every
//! command run on the example workspace has exactly the fields the README
//! names: none missing, none undocumented, every optional one seen).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{NOW, loopdeck, repo};
use serde_json::{Value, json};

fn readme() -> String {
    fs::read_to_string(repo().join("README.md")).unwrap()
}

/// The cells of each row of the first Markdown table after `heading`,
/// the header and its rule left out.
fn table(readme: &str, heading: &str) -> Vec<Vec<String>> {
    let at = readme
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("README has no {heading:?}"));
    readme[at..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect()
}

/// `loopdeck ARGS` with this test's state and config; its exit code,
/// stdout and stderr.
fn run(env: &Env, args: &[&str]) -> (i32, String, String) {
    let out = loopdeck()
        .env("XDG_STATE_HOME", &env.state)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

struct Env {
    _tmp: tempfile::TempDir,
    ws: PathBuf,
    state: PathBuf,
}

fn env() -> Env {
    let (tmp, ws) = common::workspace();
    let state = tmp.path().join("state");
    fs::create_dir_all(&state).unwrap();
    Env {
        ws,
        state,
        _tmp: tmp,
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn every_documented_exit_code_is_the_binarys() {
    let readme = readme();
    let rows: BTreeMap<i32, String> = table(&readme, "### Exit codes")
        .into_iter()
        .map(|r| (r[0].parse().unwrap(), r[1].clone()))
        .collect();
    // The set of codes is the binary's own, each under its name.
    use loopdeck::exit::*;
    let binary = BTreeSet::from([
        EXIT_OK,
        EXIT_FINDINGS,
        EXIT_USAGE,
        EXIT_CONFLICT,
        EXIT_PARTIAL,
        EXIT_NO_SNAPSHOT,
    ]);
    assert_eq!(rows.keys().copied().collect::<BTreeSet<_>>(), binary);

    let e = env();
    let ws = s(&e.ws);
    let empty = tempfile::tempdir().unwrap();
    let missing = e.ws.join("no-such-root");
    let scene1 = e.ws.join("gsd/scene1-active-phase");
    let broken = e.ws.join("broken.toml");
    fs::write(&broken, "roots = [\n").unwrap();
    let gsd = e.ws.join("gsd/paused-waiting");
    let waiting = fs::read(gsd.join(".planning/WAITING.json")).unwrap();
    assert!(!waiting.is_empty());

    // (code, a phrase its README row must hold, the command that exits so).
    let cases: Vec<(i32, &str, Vec<&str>)> = vec![
        (0, "done as asked", vec!["list", ws, "--now", NOW]),
        (1, "`check` found an error", vec!["check", ws, "--now", NOW]),
        (
            1,
            "a root or directory that cannot be read while another given root can",
            vec!["inbox", s(&missing), ws, "--json", "--now", NOW],
        ),
        (
            1,
            "`status` found no project",
            vec!["status", s(empty.path())],
        ),
        (
            1,
            "a decision was refused",
            vec!["act", s(&scene1), "answer", "go"],
        ),
        (2, "a bad argument", vec!["list", "--no-such-flag"]),
        (2, "no given root exists", vec!["list", s(&missing)]),
        (
            2,
            "a project directory that does not exist",
            vec!["show", s(&missing)],
        ),
        (
            2,
            "a broken config file",
            vec!["--config", s(&broken), "list", ws],
        ),
        (
            3,
            "a file changed on disk since it was read (`--expect-sha256`",
            vec![
                "act",
                s(&gsd),
                "answer",
                "A",
                "--expect-sha256",
                "0000000000000000000000000000000000000000000000000000000000000000",
            ],
        ),
        (
            5,
            "`list --cached` found no usable snapshot",
            vec!["list", "--cached", ws],
        ),
    ];
    for (code, phrase, args) in &cases {
        let row = &rows[code];
        assert!(
            row.contains(phrase),
            "README's exit {code} omits {phrase:?}: {row}"
        );
        let (got, out, err) = run(&e, args);
        assert_eq!(got, *code, "loopdeck {args:?}\nstdout {out}\nstderr {err}");
    }
    // What exits 1 for one missing root still prints the other's rows.
    let (_, out, err) = run(&e, &cases[2].2);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["problems"][0]["file"], s(&missing), "{v}");
    assert!(!v["items"].as_array().unwrap().is_empty(), "{v}");
    assert!(err.contains("no-such-root"), "{err}");
    // Nothing was written by the refused and the conflicting decision.
    assert_eq!(
        fs::read(gsd.join(".planning/WAITING.json")).unwrap(),
        waiting
    );

    // 4 needs a fault part way through a write (a full disk: tests/faults.rs
    // makes one); here the README's words are held to the binary's name.
    assert_eq!(EXIT_PARTIAL, 4);
    assert!(rows[&4].contains("written in part"), "{}", rows[&4]);
    assert!(rows[&4].contains("`loopdeck recover`"), "{}", rows[&4]);
}

/// A documented object: which objects of a command's output it names,
/// and its fields (`name?`: only where it applies).
struct Documented {
    command: String,
    object: String,
    required: BTreeSet<String>,
    optional: BTreeSet<String>,
}

fn documented(readme: &str) -> Vec<Documented> {
    let rows = table(readme, "### JSON fields");
    let mut by_command: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    let mut out: Vec<Documented> = Vec::new();
    for r in rows {
        assert_eq!(r.len(), 3, "{r:?}");
        let command = r[0].trim_matches('`').to_owned();
        let object = r[1].clone();
        let mut fields: Vec<String> = Vec::new();
        let mut text = r[2].as_str();
        // "as `list`, and X": the list row's fields, then X.
        if let Some(rest) = text.strip_prefix("as `list`, and ") {
            fields.extend(by_command[&("list --json".into(), "each of `projects`".into())].clone());
            text = rest;
        }
        fields.extend(
            text.split(", ")
                .filter(|f| !f.is_empty())
                .map(|f| f.trim_matches('`').to_owned()),
        );
        by_command.insert(
            (command.clone(), object.clone()),
            fields.iter().cloned().collect(),
        );
        let (optional, required): (Vec<String>, Vec<String>) =
            fields.into_iter().partition(|f| f.ends_with('?'));
        let optional: BTreeSet<String> = optional
            .into_iter()
            .map(|f| f.trim_end_matches('?').to_owned())
            .collect();
        out.push(Documented {
            command,
            object,
            required: required.into_iter().collect(),
            optional,
        });
    }
    out
}

/// The objects `object` names in one output `doc`.
fn objects<'a>(doc: &'a Value, object: &str) -> Vec<&'a Value> {
    let each = |v: &'a Value| -> Vec<&'a Value> {
        v.as_array().map(|a| a.iter().collect()).unwrap_or_default()
    };
    match object {
        "the document" | "the first line" => vec![doc],
        "each finding" => each(&doc["projects"])
            .into_iter()
            .flat_map(|p: &Value| each(&p["findings"]))
            .collect(),
        "`since_you_looked`" => each(&doc["projects"])
            .into_iter()
            .map(|p: &Value| &p["since_you_looked"])
            .collect(),
        o if o.starts_with("each of `") => {
            each(&doc[o.trim_start_matches("each of `").trim_end_matches('`')])
        }
        o if o.starts_with('`') => vec![&doc[o.trim_matches('`')]],
        o => panic!("README names an object this test cannot find: {o}"),
    }
}

/// The outputs of `command` on the example workspace, one JSON document
/// each: the scenario makes every optional field happen somewhere.
fn outputs(e: &Env, config: &Path, command: &str) -> Vec<Value> {
    let ws = s(&e.ws);
    // A root that cannot be read (a link to nowhere), so `problems` holds one.
    let dangling = e.ws.join("../gone-root");
    if fs::symlink_metadata(&dangling).is_err() {
        std::os::unix::fs::symlink(e.ws.join("../nowhere"), &dangling).unwrap();
    }
    let json = |args: &[&str]| -> Value {
        let mut all = vec!["--config", s(config)];
        all.extend(args);
        let (code, out, err) = run(e, &all);
        assert!(
            code == 0 || code == 1,
            "loopdeck {all:?}: {code}\n{err}\n{:?}",
            fs::read_dir(e.state.join("loopdeck"))
                .map(|d| d.flatten().map(|f| f.file_name()).collect::<Vec<_>>())
        );
        serde_json::from_str(&out).unwrap_or_else(|x| panic!("{all:?}: {x}\n{out}"))
    };
    match command {
        "list --json" => vec![json(&["list", ws, s(&dangling), "--json", "--now", NOW])],
        "list --changed --json" => vec![json(&["list", "--changed", ws, "--json", "--now", NOW])],
        "list --cached --json" => vec![json(&["list", "--cached", ws, "--json"])],
        "inbox --json" => vec![json(&["inbox", ws, "--json", "--now", NOW])],
        "check --json" => vec![json(&["check", ws, "--json", "--now", NOW])],
        "show --json" => {
            let list = json(&["list", ws, "--json", "--now", NOW]);
            let mut shown = Vec::new();
            for p in list["projects"].as_array().unwrap() {
                let dir = p["path"].as_str().unwrap();
                // scenario C (long ago) as well as A and B
                for now in [NOW, "2027-01-01T00:00:00Z"] {
                    shown.push(json(&["show", dir, "--json", "--now", now]));
                }
            }
            shown
        }
        "watch --json" => vec![first_watch_line(e, config)],
        "act --json" => {
            let copy = e.ws.join("../act-copy");
            common::copy_dir(&e.ws.join("gsd/paused-waiting"), &copy);
            let dry = json(&[
                "act",
                s(&copy),
                "answer",
                "A",
                "--dry-run",
                "--json",
                "--now",
                NOW,
            ]);
            let done = json(&["act", s(&copy), "answer", "A", "--json", "--now", NOW]);
            vec![dry, done]
        }
        c => panic!("README documents a command this test does not run: {c}"),
    }
}

/// `watch --json`'s first line; it also leaves the snapshot `list
/// --cached` reads (waited for: written after the first full reading).
fn first_watch_line(e: &Env, config: &Path) -> Value {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("loopdeck"))
        .env("NO_COLOR", "1")
        .env("LC_ALL", "C.UTF-8")
        .env("XDG_STATE_HOME", &e.state)
        .args([
            "--config",
            s(config),
            "watch",
            s(&e.ws),
            "--json",
            "--now",
            NOW,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let dir = e.state.join("loopdeck");
    let start = Instant::now();
    let snapshot = || {
        fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|f| f.file_name().to_string_lossy().starts_with("snapshot-"))
    };
    while !snapshot() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "watch kept no snapshot"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    serde_json::from_str(&line).unwrap()
}

#[test]
fn every_documented_json_field_is_the_binarys() {
    let readme = readme();
    let docs = documented(&readme);
    let e = env();
    // An escalation rule, so `escalated_by` happens.
    let config = e.ws.join("../config.toml");
    fs::write(&config, "[[escalate]]\nname = \"old\"\nwaited = \"1h\"\n").unwrap();
    // A memory of two projects as they were a day before, so `--changed`
    // lists them: paused-waiting (an item escalated) and scene1 (none).
    // Each moved in some ways only, so `status?`, `stage?` and
    // `progress_percent?` are each seen present and absent.
    let was = |dir: &str, status: &str, stage: &str, progress: u32| {
        (
            format!("gsd:{}", e.ws.join(dir).display()),
            json!({"at": "2026-05-31T12:00:00Z", "status": status, "stage": stage,
                "progress_percent": progress, "waiting": [], "bugs": {}, "last_event": null}),
        )
    };
    let projects: serde_json::Map<String, Value> = [
        was("gsd/paused-waiting", "planning", "Phase 2", 45),
        was("gsd/scene1-active-phase", "executing", "Phase 4.5", 10),
    ]
    .into_iter()
    .collect();
    let memory = json!({"version": 1, "projects": projects});
    fs::create_dir_all(e.state.join("loopdeck")).unwrap();
    fs::write(e.state.join("loopdeck/seen.json"), memory.to_string()).unwrap();

    // watch first: it keeps the snapshot `list --cached` reads.
    let mut order: Vec<&str> = docs.iter().map(|d| d.command.as_str()).collect();
    order.dedup();
    order.sort_by_key(|c| *c != "watch --json");
    let mut out: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    for c in order {
        if !out.contains_key(c) {
            out.insert(c, outputs(&e, &config, c));
        }
    }

    for d in &docs {
        let mut seen_any = false;
        let mut optional_seen = BTreeSet::new();
        let mut optional_always = d.optional.clone();
        for doc in &out[d.command.as_str()] {
            for o in objects(doc, &d.object) {
                if o.is_null() {
                    continue;
                }
                let o = o
                    .as_object()
                    .unwrap_or_else(|| panic!("{} {}: {o}", d.command, d.object));
                seen_any = true;
                let keys: BTreeSet<String> = o.keys().cloned().collect();
                let missing: Vec<_> = d.required.difference(&keys).collect();
                assert!(
                    missing.is_empty(),
                    "{} {}: README names {missing:?}, absent from {o:?}",
                    d.command,
                    d.object
                );
                let extra: Vec<_> = keys
                    .iter()
                    .filter(|k| !d.required.contains(*k) && !d.optional.contains(*k))
                    .collect();
                assert!(
                    extra.is_empty(),
                    "{} {}: {extra:?} not in the README",
                    d.command,
                    d.object
                );
                optional_seen.extend(keys.intersection(&d.optional).cloned());
                optional_always.retain(|k| keys.contains(k));
            }
        }
        assert!(
            seen_any,
            "{} {}: no such object in the output",
            d.command, d.object
        );
        let never: Vec<_> = d.optional.difference(&optional_seen).collect();
        // `?` says "only where it applies": one always there is not.
        assert!(
            optional_always.is_empty(),
            "{} {}: {optional_always:?} are always there: not optional",
            d.command,
            d.object
        );
        assert!(
            never.is_empty(),
            "{} {}: {never:?} never happened",
            d.command,
            d.object
        );
    }
}
