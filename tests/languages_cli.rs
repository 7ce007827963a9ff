//! The headless commands' plain output in Chinese (issue 11 §2), through
//! the binary as a user runs it: the words come from the `cli` catalogue
//! (read here, never copied), the language from `language` in the config,
//! else LC_ALL / LC_MESSAGES / LANG; the columns of every table start at
//! the same display column on every row, Chinese headers and ages
//! (`3分钟`) included.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use common::{NOW, copy_dir, loopdeck, workspace};
use loopdeck_core::model::text::width;
use loopdeck_i18n::{Lang, fill};

const CHINESE: [(&str, &str); 1] = [("LC_ALL", "zh_CN.UTF-8")];

use common::run_with as run;

/// The text of `key` in `lang` (a plural entry: its `other` form).
fn text(lang: Lang, key: &str) -> String {
    loopdeck_i18n::text_in(lang, key)
        .unwrap_or_else(|| panic!("{key} is not in the {lang} catalogue"))
        .to_owned()
}

fn zh(key: &str) -> String {
    text(Lang::ZhCn, key)
}

fn en(key: &str) -> String {
    text(Lang::En, key)
}

/// `out` with the temporary workspace's path made stable for a snapshot.
fn stable(out: &str, ws: &Path) -> String {
    out.replace(ws.to_str().unwrap(), "[WS]")
}

/// Where each column starts (display columns): the header's cells, which
/// in Chinese hold no space, are separated by two spaces or more.
fn column_starts(header: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let (mut col, mut spaces, mut first) = (0, 0, true);
    for c in header.chars() {
        if c == ' ' {
            spaces += 1;
        } else {
            if first || spaces >= 2 {
                starts.push(col);
            }
            first = false;
            spaces = 0;
        }
        col += width(c.encode_utf8(&mut [0; 4]));
    }
    starts
}

/// The character that starts at display column `col` of `line`; `None`
/// when `col` falls inside a wide character or past the end.
fn char_at(line: &str, col: usize) -> Option<char> {
    let mut at = 0;
    for c in line.chars() {
        if at == col {
            return Some(c);
        }
        if at > col {
            return None;
        }
        at += width(c.encode_utf8(&mut [0; 4]));
    }
    None
}

/// Every row of the table (the lines between the header and the count)
/// has each column starting where the header's does: two spaces, then a
/// cell.
fn assert_aligned(table: &str, columns: usize) {
    let lines: Vec<&str> = table.lines().collect();
    let starts = column_starts(lines[0]);
    assert_eq!(starts.len(), columns, "header: {:?}", lines[0]);
    let rows = &lines[1..lines.len() - 1];
    assert!(!rows.is_empty(), "{table}");
    for row in rows {
        for &col in &starts[1..] {
            let before = (char_at(row, col - 2), char_at(row, col - 1));
            let cell = char_at(row, col);
            assert!(
                before == (Some(' '), Some(' ')) && cell.is_some_and(|c| c != ' '),
                "column at {col} misaligned in {row:?}\n{table}"
            );
        }
    }
}

#[test]
fn list_in_chinese_has_the_catalogue_headers_aligned() {
    let (_t, ws) = workspace();
    let (out, _, code) = run(&["list", ws.to_str().unwrap()], &CHINESE);
    assert_eq!(code, 0);
    let header = out.lines().next().unwrap();
    for key in ["cli.list.age", "cli.list.status", "cli.list.name"] {
        assert!(header.contains(&zh(key)), "{key}: {header}");
        assert!(!header.contains(&en(key)), "{key} still English: {header}");
    }
    let count = fill(&zh("cli.list.count"), &[("n", &20)]);
    assert_eq!(out.lines().last(), Some(count.as_str()));
    // Ages are Chinese, and their column is sized for them.
    assert!(out.contains(&fill(
        &text(Lang::ZhCn, "common.age.minutes"),
        &[("n", &30)]
    )));
    assert_aligned(&out, 8);
    insta::assert_snapshot!("list_zh", out);
}

#[test]
fn inbox_in_chinese_has_the_catalogue_headers_aligned() {
    let (_t, ws) = workspace();
    let (out, _, code) = run(&["inbox", ws.to_str().unwrap()], &CHINESE);
    assert_eq!(code, 0);
    let header = out.lines().next().unwrap();
    assert!(header.contains(&zh("cli.inbox.waiting_for")), "{header}");
    assert!(!header.contains(&en("cli.inbox.waiting_for")), "{header}");
    let count = fill(&zh("cli.inbox.count"), &[("n", &18)]);
    assert_eq!(out.lines().last(), Some(count.as_str()));
    assert_aligned(&out, 5);
    insta::assert_snapshot!("inbox_zh", out);
}

#[test]
fn check_in_chinese_has_the_catalogue_levels_and_summary() {
    let (_t, ws) = workspace();
    let (out, _, code) = run(&["check", ws.to_str().unwrap()], &CHINESE);
    assert_eq!(code, 1, "the workspace has error findings");
    let header = out.lines().next().unwrap();
    assert!(header.contains(&zh("cli.check.message")), "{header}");
    assert!(!header.contains(&en("cli.check.message")), "{header}");
    let levels: Vec<&str> = out
        .lines()
        .skip(1)
        .filter_map(|l| l.split(' ').next())
        .collect();
    assert!(levels.contains(&zh("cli.level.error").as_str()), "{out}");
    assert!(levels.contains(&zh("cli.level.warning").as_str()), "{out}");
    assert!(!levels.contains(&"warning"), "{out}");
    let summary = fill(
        &zh("cli.check.summary"),
        &[
            ("projects", &fill(&zh("cli.list.count"), &[("n", &20)])),
            ("errors", &fill(&zh("cli.check.errors"), &[("n", &28)])),
            ("warnings", &fill(&zh("cli.check.warnings"), &[("n", &18)])),
            ("info", &5),
        ],
    );
    assert_eq!(out.lines().last(), Some(summary.as_str()));
    assert_aligned(&out, 5);
    insta::assert_snapshot!("check_zh", out);
}

/// One project of each format, in full.
#[test]
fn show_in_chinese_for_each_format() {
    let (_t, ws) = workspace();
    for (name, dir) in [
        ("show_prd_master_zh", "prd-master/stale-snapshot"),
        ("show_gsd_zh", "gsd/paused-waiting"),
        ("show_dwp_zh", "dwp/shop-api/.dwp/plans/PLAN_search_index"),
        (
            "show_devloop_zh",
            "devloop/data/companies/acme/projects/p-over-budget",
        ),
    ] {
        let (out, err, code) = run(&["show", ws.join(dir).to_str().unwrap()], &CHINESE);
        assert_eq!(code, 0, "{dir}: {err}");
        // The heading after the summary (and its stall and token lines).
        let resume_heading = out.lines().skip_while(|l| !l.is_empty()).nth(1).unwrap();
        let heading = zh("cli.show.resume");
        let (before, _) = heading.split_once("{scenario}").unwrap();
        assert!(resume_heading.starts_with(before), "{dir}: {out}");
        assert!(!out.contains("Resume (scenario"), "{dir}: {out}");
        // The resume card's values start at one column.
        let labels = [
            "cli.show.stopped_at",
            "cli.show.why",
            "cli.show.waiting_for",
            "cli.show.completed",
            "cli.show.read_first",
        ]
        .map(zh);
        let starts: Vec<usize> = out
            .lines()
            .filter_map(|l| {
                let label = labels.iter().find(|w| l.starts_with(&format!("  {w} ")))?;
                let rest = l[2 + label.len()..].trim_start_matches(' ');
                Some(width(&l[..l.len() - rest.len()]))
            })
            .collect();
        assert!(starts.len() >= 2, "{dir}: {out}");
        assert!(
            starts.windows(2).all(|w| w[0] == w[1]),
            "{dir}: {starts:?}\n{out}"
        );
        insta::assert_snapshot!(name, stable(&out, &ws));
    }
    // A directory of several projects is refused in Chinese on stderr.
    let shop = ws.join("dwp/shop-api");
    let (_, err, code) = run(&["show", shop.to_str().unwrap()], &CHINESE);
    assert_eq!(code, 2);
    let said = fill(
        &zh("cli.show.several"),
        &[
            ("dir", &shop.display()),
            ("n", &2),
            ("id", &".dwp/plans/PLAN_search_index"),
        ],
    );
    assert_eq!(err, format!("loopdeck: {said}\n"));
}

/// `language = "zh-CN"` in the config speaks Chinese whatever the
/// environment; LC_ALL=C wins over LANG=zh_CN.
#[test]
fn the_config_then_lc_all_then_lang_choose_the_language() {
    let (_t, ws) = workspace();
    let ws = ws.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "language = \"zh-CN\"\n").unwrap();
    let (configured, _, _) = run(&["list", ws, "--config", cfg.to_str().unwrap()], &[]);
    let (by_env, _, _) = run(&["list", ws], &CHINESE);
    assert!(configured.starts_with(&zh("cli.list.age")), "{configured}");
    assert!(!configured.starts_with(&en("cli.list.age")), "{configured}");
    assert_eq!(configured, by_env);
    let (c_wins, _, _) = run(&["list", ws], &[("LC_ALL", "C"), ("LANG", "zh_CN.UTF-8")]);
    assert!(c_wins.starts_with(&en("cli.list.age")), "{c_wins}");
    let (lang, _, _) = run(&["list", ws], &[("LC_ALL", ""), ("LANG", "zh_CN.UTF-8")]);
    assert_eq!(lang, by_env);
}

/// The CLI's own usage errors, in Chinese, from the config's language too.
#[test]
fn usage_errors_in_chinese() {
    let (_, err, code) = run(&["lsit"], &CHINESE);
    assert_eq!(code, 2);
    let said = fill(
        &zh("cli.error.not_a_command"),
        &[("word", &"lsit"), ("command", &"list")],
    );
    assert_eq!(err, format!("loopdeck: {said}\n"));
    assert!(!err.contains("is neither a command"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "language = \"zh-CN\"\n").unwrap();
    let d = dir.path().to_str().unwrap();
    let (_, err, code) = run(&["--config", cfg.to_str().unwrap(), d, "list"], &[]);
    assert_eq!(code, 2);
    assert_eq!(err, format!("loopdeck: {}\n", zh("cli.error.roots_after")));
    assert_ne!(err, format!("loopdeck: {}\n", en("cli.error.roots_after")));

    let missing = dir.path().join("missing");
    let (_, err, code) = run(&["act", missing.to_str().unwrap(), "approve"], &CHINESE);
    assert_eq!(code, 2);
    let said = fill(&zh("cli.act.not_a_dir"), &[("dir", &missing.display())]);
    assert_eq!(err, format!("loopdeck: {said}\n"));
}

/// `act --dry-run` says what it would do in Chinese (the diff is the
/// file's own text).
#[test]
fn act_dry_run_in_chinese() {
    let (_t, ws) = workspace();
    let p = ws.join("gsd/paused-waiting");
    let (out, err, code) = run(
        &[
            "act",
            p.to_str().unwrap(),
            "add-blocker",
            "等测试账号",
            "--dry-run",
        ],
        &CHINESE,
    );
    assert_eq!(code, 0, "{err}");
    let said = fill(
        &zh("cli.act.dry_run"),
        &[("verb", &"add-blocker"), ("n", &1)],
    );
    assert_eq!(out.lines().last(), Some(said.as_str()), "{out}");
    assert!(!out.contains("dry run:"), "{out}");
}

/// `watch` without `--json` in Chinese: the `list` table, the watcher
/// line, then a line per change whose text starts at one column whatever
/// the word in front of it.
#[test]
fn watch_plain_in_chinese() {
    let (_t, ws) = workspace();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("loopdeck"))
        .arg("watch")
        .arg(ws.join("gsd"))
        .args(["--now", NOW])
        .env("NO_COLOR", "1")
        .env("LC_ALL", "zh_CN.UTF-8")
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let next = || rx.recv_timeout(Duration::from_secs(30)).ok();
    let header = next().unwrap();
    assert!(header.starts_with(&zh("cli.list.age")), "{header}");
    assert!(!header.starts_with(&en("cli.list.age")), "{header}");
    let watching = zh("cli.watch.watching").replace("{watcher}", "");
    let mut before = vec![header];
    while !before.last().unwrap().starts_with(&watching) {
        before.push(next().expect("the watcher line"));
    }
    // A GSD project waiting for a human arrives whole (made outside the
    // watched root, then renamed in: a copy made in place can be read half
    // made, its WAITING.json not there yet): added, then waiting.
    copy_dir(&ws.join("gsd/paused-waiting"), &ws.join("paused-copy"));
    fs::rename(ws.join("paused-copy"), ws.join("gsd/paused-copy")).unwrap();
    let mut changes = Vec::new();
    while changes.len() < 2 {
        let line = next().expect("a change line");
        if line.contains("paused-copy") {
            changes.push(line);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let words = [zh("cli.watch.added"), zh("cli.watch.waiting")];
    let mut starts = Vec::new();
    for (line, word) in changes.iter().zip(&words) {
        // `12:00:00 WORD   text`
        let after = &line[9..];
        assert!(after.starts_with(word.as_str()), "{line}");
        let rest = after[word.len()..].trim_start_matches(' ');
        starts.push(width(&line[..line.len() - rest.len()]));
    }
    assert_eq!(starts[0], starts[1], "{changes:?}");
}

/// A project updated after "now" has no resume scenario: `show` says a
/// clock is wrong, in either language, instead of "updated future ago" and
/// the scenario's Rust name.
#[test]
fn show_says_a_clock_is_wrong_for_an_update_in_the_future() {
    let (_t, ws) = workspace();
    let dir = ws.join("prd-master/fba-smart-restock");
    let dir = dir.to_str().unwrap();
    let before = ["show", dir, "--now", "2026-01-01T00:00:00Z"];
    for (lang, env) in [(Lang::En, &[][..]), (Lang::ZhCn, &CHINESE[..])] {
        let mut c = loopdeck();
        c.args(before);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = String::from_utf8(c.output().unwrap().stdout).unwrap();
        for key in ["cli.show.resume_future", "cli.advice.future"] {
            let want = text(lang, key);
            assert!(out.contains(&want), "{lang}: no {want:?}:\n{out}");
        }
        assert!(
            !out.contains("Future") && !out.contains("future ago"),
            "{out}"
        );
    }
}

/// What loopdeck says about a project in its own words (issue 20 §7) is
/// Chinese in the plain `inbox` and `list`, and in `show` of every example
/// project:
/// no sentence a reader used to word in English is left (the JSON keeps
/// them, see `tests/languages.rs`), and no fixed words of an English
/// `phrase` entry of the catalogue appear. What the files say (questions,
/// reasons, status words) stays as written; so do findings' messages.
#[test]
fn chinese_inbox_and_show_say_no_generated_english() {
    let (_t, ws) = workspace();
    let root = ws.to_str().unwrap();
    let (inbox, _, code) = run(&["inbox", root], &CHINESE);
    assert_eq!(code, 0);
    let (list, _, code) = run(&["list", root], &CHINESE);
    assert_eq!(code, 0);
    let mut outputs = vec![("inbox".to_owned(), inbox), ("list".to_owned(), list)];
    let listed: serde_json::Value =
        serde_json::from_str(&run(&["list", root, "--json"], &[]).0).unwrap();
    for p in listed["projects"].as_array().unwrap() {
        let (out, err, code) = run(&["show", p["path"].as_str().unwrap()], &CHINESE);
        assert_eq!(code, 0, "{err}");
        // Findings keep their English message beside their code (as
        // `check` does), the same words as the JSON's.
        let findings = zh("cli.show.findings");
        let mut kept = String::new();
        let mut skipping = false;
        for line in out.lines() {
            if line == findings {
                skipping = true;
            } else if line.is_empty() {
                skipping = false;
            }
            if !skipping {
                kept.push_str(line);
                kept.push('\n');
            }
        }
        outputs.push((format!("show {}", p["id"]), kept));
    }
    // What the readers said in English before.
    let before = [
        "shipped, awaiting sign-off",
        "over token budget",
        "stopped at:",
        "paused:",
        "last input:",
        "units passed",
        "running at",
        "paused at",
        "resume token",
        "needs a human",
        "— evidence:",
        "— needs:",
        "approve the plan",
        "README and state.json disagree",
        "finalization was interrupted",
        "PRD conflict:",
        "blocked:",
        "retries used",
        "approval of the plan",
        "inspect the interrupted finalization",
        "state.json is missing",
        "confirm the rebuilt state",
        "stage 1 (",
        "(rebuilt)",
        "[Phase 3] 超过",
        "task 2 (",
        ", step ",
        "task 2/4",
        "Phase 3 of",
    ];
    // Every run of two words or more an English `phrase` entry says
    // itself (between its placeholders).
    let en = loopdeck_i18n::catalog(Lang::En);
    let mut fixed: Vec<String> = Vec::new();
    for key in en.keys().filter(|k| k.starts_with("phrase.")) {
        let template = text(Lang::En, key);
        let mut rest = template.as_str();
        while !rest.is_empty() {
            let (part, tail) = match rest.find('{') {
                Some(i) => {
                    let end = rest[i..].find('}').map_or(rest.len(), |e| i + e + 1);
                    (&rest[..i], &rest[end..])
                }
                None => (rest, ""),
            };
            let words = part
                .split(|c: char| !c.is_ascii_alphabetic())
                .filter(|w| w.len() > 1)
                .count();
            if words >= 2 {
                fixed.push(part.trim().to_owned());
            }
            rest = tail;
        }
    }
    let left = |words: &[String]| {
        let mut found = Vec::new();
        for (what, out) in &outputs {
            for said in words.iter().filter(|w| out.contains(w.as_str())) {
                found.push(format!("{what}: {said:?}"));
            }
        }
        found
    };
    let before: Vec<String> = before.iter().map(|s| s.to_string()).collect();
    let found = left(&before);
    assert!(found.is_empty(), "English left:\n{}", found.join("\n"));
    assert!(fixed.len() > 50, "{fixed:?}");
    let found = left(&fixed);
    assert!(found.is_empty(), "English left:\n{}", found.join("\n"));
}
