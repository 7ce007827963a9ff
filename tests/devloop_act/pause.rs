//! Seed 003: a `<aside data-conflict>` in the PRD pauses the whole project
//! for a human. While it is there, sign-off and an agent's resume are
//! refused, naming the conflict and what settles it (a requirement that
//! says which side wins); abandoning and the requirement itself stay
//! possible. The inbox offers only what the act then accepts.

use std::fs;
use std::path::Path;

use super::{NOW, Ws, code, err, show, tree};

pub(super) use super::common::settle_prd_conflict as settle_conflict;

/// A conflict aside put at the top of the article of `dir`'s `prd.html`.
fn raise_conflict(dir: &Path) {
    let path = dir.join("prd.html");
    let html = fs::read_to_string(&path).unwrap();
    let at = html.find("<article").unwrap();
    let end = at + html[at..].find('>').unwrap() + 1;
    let with = format!(
        "{}\n  <aside data-conflict>新反馈与 rev 3 冲突：请确认</aside>{}",
        &html[..end],
        &html[end..]
    );
    fs::write(&path, with).unwrap();
}

/// Every decision the inbox offers for `dir`, each option made dry through
/// the binary: all accepted.
fn every_offer_is_accepted(w: &Ws, dir: &Path) -> Vec<Vec<String>> {
    let v = show(dir, NOW);
    let mut offered = Vec::new();
    for item in v["inbox"].as_array().unwrap() {
        let Some(a) = item.get("act") else { continue };
        let verb = a["verb"].as_str().unwrap();
        let options: Vec<Option<&str>> = match a["options"].as_array() {
            Some(o) => o.iter().map(|o| o.as_str()).collect(),
            None => vec![None],
        };
        for option in options {
            let mut args: Vec<String> = match (verb, option) {
                ("sign-off", Some(o)) => vec![o.to_owned()],
                (v, o) => std::iter::once(v.to_owned())
                    .chain(a["target"].as_str().map(str::to_owned))
                    .chain(o.map(str::to_owned))
                    .collect(),
            };
            if verb == "requirement" {
                // Needs the server; its refusal says so.
                continue;
            }
            args.push("--dry-run".to_owned());
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = w.act(dir, &args, &[]);
            assert_eq!(code(&o), 0, "offered {args:?}: {}", err(&o));
            offered.push(args.iter().map(|s| (*s).to_owned()).collect());
        }
    }
    offered
}

#[test]
fn sign_off_is_refused_while_a_prd_conflict_pauses_the_project() {
    let w = Ws::new();
    let dir = w.dir("p-shipped");
    let before = tree(&dir);
    let o = w.act(&dir, &["sign-off"], &[]);
    assert_eq!(code(&o), 1, "{}", err(&o));
    let said = err(&o);
    for needle in [
        "PRD conflict",
        "prd.html",
        "对账差异超过 500 元",
        "requirement",
    ] {
        assert!(said.contains(needle), "`{needle}` not in {said}");
    }
    assert_eq!(tree(&dir), before);
    // Not offered either; what is offered (abandon) is accepted.
    let offered = every_offer_is_accepted(&w, &dir);
    assert!(
        !offered.iter().any(|a| a[0] == "sign-off"),
        "sign-off offered during the conflict: {offered:?}"
    );
    assert!(offered.iter().any(|a| a[0] == "abandon"), "{offered:?}");
    // Settled (the aside gone): sign-off is offered and taken.
    settle_conflict(&dir);
    let offered = every_offer_is_accepted(&w, &dir);
    assert!(offered.iter().any(|a| a[0] == "sign-off"), "{offered:?}");
    let o = w.act(&dir, &["sign-off"], &[]);
    assert_eq!(code(&o), 0, "{}", err(&o));
}

#[test]
fn an_agent_is_not_resumed_while_a_prd_conflict_pauses_the_project() {
    let w = Ws::new();
    let dir = w.dir("p-restock");
    raise_conflict(&dir);
    let before = tree(&dir);
    for choice in ["resume", "restart"] {
        let o = w.act(&dir, &["resume-agent", "integrator", choice], &[]);
        assert_eq!(code(&o), 1, "{choice}: {}", err(&o));
        let said = err(&o);
        for needle in [
            "PRD conflict",
            "prd.html",
            "新反馈与 rev 3 冲突",
            "requirement",
        ] {
            assert!(said.contains(needle), "`{needle}` not in {said}");
        }
    }
    assert_eq!(tree(&dir), before);
    let offered = every_offer_is_accepted(&w, &dir);
    assert!(
        !offered.iter().any(|a| a[0] == "resume-agent"),
        "{offered:?}"
    );
    let v = show(&dir, NOW);
    let resume = v["inbox"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "resume")
        .unwrap();
    assert!(
        resume["title"].as_str().unwrap().contains("PRD conflict"),
        "{resume}"
    );
    // Abandoning ends the project: the pause does not hold it.
    let o = w.act(&dir, &["abandon"], &["--dry-run"]);
    assert_eq!(code(&o), 0, "{}", err(&o));
}

#[test]
fn with_a_server_the_sign_off_is_refused_before_anything_is_sent() {
    let w = Ws::new();
    let dir = w.dir("p-shipped");
    // Nothing listens there: a request would fail with another message.
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let api = format!("http://{}", l.local_addr().unwrap());
    drop(l);
    let cfg = w.state.path().join("loopdeck.toml");
    fs::write(&cfg, format!("[devloop]\napi = \"{api}\"\n")).unwrap();
    let o = w.act(&dir, &["sign-off"], &["--config", cfg.to_str().unwrap()]);
    assert_eq!(code(&o), 1, "{}", err(&o));
    assert!(err(&o).contains("PRD conflict in prd.html"), "{}", err(&o));
}
