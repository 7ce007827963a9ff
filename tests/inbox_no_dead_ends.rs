//! Issue 20 §4: no dead ends. Every item of the example workspace's inbox
//! either offers a decision or says, in one line, why none can be made
//! here and what resolves it; a decision only a server carries out names
//! the real config file to add it to.

mod common;

use common::{json, loopdeck, workspace};

#[test]
fn every_inbox_item_offers_a_decision_or_says_why_not() {
    let (_t, ws) = workspace();
    let inbox = json(&["inbox", ws.to_str().unwrap()]);
    let items = inbox["items"].as_array().unwrap();
    assert!(items.len() >= 15, "{inbox}");
    let mut explained = 0;
    for item in items {
        let act = item.get("act").is_some();
        let why = item.get("why_not").and_then(|w| w.as_str());
        assert!(
            act != why.is_some(),
            "an item offers a decision or says why not, never both or neither: {item}"
        );
        if let Some(why) = why {
            assert!(!why.trim().is_empty() && !why.contains('\n'), "{item}");
            explained += 1;
        }
    }
    // The example's finalization, retries, budget and desync items.
    let kinds: Vec<&str> = items
        .iter()
        .filter(|i| i.get("why_not").is_some())
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    for kind in ["finalization", "retries-spent", "budget", "desync"] {
        assert!(kinds.contains(&kind), "{kind} not explained: {kinds:?}");
    }
    assert_eq!(explained, kinds.len());
    // The interrupted finalization names the finalizer's recovery.
    let fin = items.iter().find(|i| i["kind"] == "finalization").unwrap();
    assert!(
        fin["why_not"]
            .as_str()
            .unwrap()
            .contains("finalize_plan.py")
            && fin["why_not"].as_str().unwrap().contains("--recover"),
        "{fin}"
    );
}

/// The PRD conflict is settled only by a requirement, which only the
/// devloop server takes: with no `[devloop] api`, the inbox says so and
/// what to add where, instead of offering it; with one, it offers it.
#[test]
fn a_server_only_item_says_what_to_configure_until_a_server_is() {
    let (_t, ws) = workspace();
    let config_home = tempfile::tempdir().unwrap();
    let conflict = |config: Option<&str>| {
        let mut c = loopdeck();
        c.env("XDG_CONFIG_HOME", config_home.path());
        if let Some(text) = config {
            let file = config_home.path().join("server.toml");
            std::fs::write(&file, text).unwrap();
            c.args(["--config", file.to_str().unwrap()]);
        }
        let out = c
            .args([
                "inbox",
                ws.to_str().unwrap(),
                "--json",
                "--now",
                common::NOW,
            ])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["kind"] == "conflict")
            .unwrap()
            .clone()
    };
    let item = conflict(None);
    assert!(item.get("act").is_none(), "{item}");
    let why = item["why_not"].as_str().unwrap();
    let file = config_home.path().join("loopdeck/config.toml");
    assert!(
        why.contains("no server is configured") && why.contains(&file.display().to_string()),
        "{why}"
    );
    let item = conflict(Some("[devloop]\napi = \"http://127.0.0.1:9\"\n"));
    assert_eq!(item["act"]["verb"], "requirement", "{item}");
    assert!(item.get("why_not").is_none(), "{item}");
}

#[test]
fn a_requirement_without_a_server_names_the_real_config_file() {
    let (_t, ws) = workspace();
    let config_home = tempfile::tempdir().unwrap();
    let dir = ws.join("devloop/data/companies/acme/projects/p-shipped");
    let out = loopdeck()
        .env("XDG_CONFIG_HOME", config_home.path())
        .args([
            "act",
            dir.to_str().unwrap(),
            "requirement",
            "keep the report only",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    let file = config_home.path().join("loopdeck/config.toml");
    assert!(
        err.contains(&file.display().to_string()) && err.contains("[devloop]"),
        "{err}"
    );
    assert!(!err.contains("~/.config"), "{err}");
}
