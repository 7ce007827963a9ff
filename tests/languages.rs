//! Languages (issue 11 §2), through the binary as a user runs it: the
//! language comes from the config, else LC_ALL / LC_MESSAGES / LANG; the
//! JSON output is the same in every language; a wrong `language` is
//! refused at its line.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use common::workspace;

use common::run_with as run;

const CHINESE: [(&str, &str); 1] = [("LC_ALL", "zh_CN.UTF-8")];

#[test]
fn json_output_is_the_same_in_every_language() {
    let (_t, ws) = workspace();
    let ws = ws.to_str().unwrap();
    for args in [
        vec!["list", ws, "--json"],
        vec!["inbox", ws, "--json"],
        vec!["check", ws, "--json"],
        vec!["list", ws, "--json", "--changed"],
    ] {
        let (en, _, code_en) = run(&args, &[]);
        let (zh, _, code_zh) = run(&args, &CHINESE);
        assert!(!en.is_empty(), "{args:?} printed nothing");
        assert_eq!(code_en, code_zh, "{args:?}");
        assert_eq!(en, zh, "{args:?}: the JSON changed with the language");
    }
    // One project of each format, in full.
    let listed: serde_json::Value =
        serde_json::from_str(&run(&["list", ws, "--json"], &[]).0).unwrap();
    let mut formats = std::collections::BTreeSet::new();
    for p in listed["projects"].as_array().unwrap() {
        if formats.insert(p["format"].as_str().unwrap().to_owned()) {
            let path = p["path"].as_str().unwrap();
            let (en, _, _) = run(&["show", path, "--json"], &[]);
            let (zh, _, _) = run(&["show", path, "--json"], &CHINESE);
            assert_eq!(en, zh, "show {path}: the JSON changed with the language");
        }
    }
    assert_eq!(formats.len(), 4, "{formats:?}");
}

#[test]
fn a_language_the_config_does_not_know_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "theme = \"default\"\nlanguage = \"fr\"\n").unwrap();
    let (_, err, code) = run(&["list", "--config", cfg.to_str().unwrap()], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("line 2"), "{err}");
    assert!(
        err.contains("unknown language `fr`") && err.contains("\"zh-CN\""),
        "{err}"
    );
}

#[test]
fn the_config_takes_the_language_names_the_environment_takes() {
    let dir = tempfile::tempdir().unwrap();
    let (_t, ws) = workspace();
    let header = loopdeck_i18n::text_in(loopdeck_i18n::Lang::ZhCn, "cli.list.age").unwrap();
    for name in ["zh-CN", "zh_CN", "zh-TW", "zh_CN.UTF-8"] {
        let cfg = dir.path().join("config.toml");
        std::fs::write(&cfg, format!("language = \"{name}\"\n")).unwrap();
        let (out, err, code) = run(
            &[
                "list",
                ws.to_str().unwrap(),
                "--config",
                cfg.to_str().unwrap(),
            ],
            &[],
        );
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.starts_with(header), "{name}:\n{out}");
    }
    // "auto" leaves it to the environment.
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "language = \"auto\"\n").unwrap();
    let args = [
        "list",
        ws.to_str().unwrap(),
        "--config",
        cfg.to_str().unwrap(),
    ];
    assert!(run(&args, &CHINESE).0.starts_with(header));
    assert!(!run(&args, &[]).0.starts_with(header));
}

/// The JSON keeps the English words it always had, byte for byte, while
/// the console and the plain output say them in the language spoken: the
/// full `inbox --json`, and for every project of the example workspace the
/// fields that hold loopdeck's own sentences (the resume card, the inbox,
/// what is answered, the blockers) in a snapshot, and its whole
/// `show --json` by its sha256, so any change to it is seen.
#[test]
fn json_keeps_the_english_words_it_had() {
    let (_t, ws) = workspace();
    let root = ws.to_str().unwrap();
    let stable = |out: &str| out.replace(root, "[WS]");
    let (inbox, _, code) = run(&["inbox", root, "--json"], &CHINESE);
    assert_eq!(code, 0);
    insta::assert_snapshot!("inbox_json_english", stable(&inbox));
    let listed: serde_json::Value =
        serde_json::from_str(&run(&["list", root, "--json"], &[]).0).unwrap();
    let mut words = serde_json::Map::new();
    let mut sums = String::new();
    for p in listed["projects"].as_array().unwrap() {
        let path = p["path"].as_str().unwrap();
        let (out, _, code) = run(&["show", path, "--json"], &CHINESE);
        assert_eq!(code, 0, "{path}");
        let out = stable(&out);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let id = p["id"].as_str().unwrap().to_owned();
        sums.push_str(&format!(
            "{}  {id}\n",
            loopdeck_core::store::sha256_hex(out.as_bytes())
        ));
        let mut said = serde_json::Map::new();
        for k in ["resume", "inbox", "answered", "blockers"] {
            said.insert(k.to_owned(), v[k].clone());
        }
        words.insert(id, serde_json::Value::Object(said));
    }
    insta::assert_snapshot!(
        "show_json_english_words",
        serde_json::to_string_pretty(&words).unwrap()
    );
    insta::assert_snapshot!("show_json_sha256", sums);
}
