//! `sign-off`, `abandon` and `requirement` through the devloop server
//! (`[devloop] api`), against a one-request HTTP listener inside the test
//! that records the request it received.

use std::fs;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;

use serde_json::Value;

use super::{Ws, code, err, tree};

/// A one-request HTTP server answering `status` and `body`; sends back what
/// it received.
fn server(status: &str, body: &'static str) -> (String, mpsc::Receiver<String>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = format!("http://{}", l.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    let status = status.to_owned();
    thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = s.read(&mut buf).unwrap();
            got.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&got).into_owned();
            if let Some(end) = text.find("\r\n\r\n") {
                let len: usize = text
                    .lines()
                    .find_map(|l| l.strip_prefix("Content-Length: "))
                    .map_or(0, |v| v.trim().parse().unwrap());
                if got.len() >= end + 4 + len || n == 0 {
                    break;
                }
            }
            if n == 0 {
                break;
            }
        }
        let answer = format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        s.write_all(answer.as_bytes()).unwrap();
        tx.send(String::from_utf8(got).unwrap()).unwrap();
    });
    (addr, rx)
}

fn config(dir: &Path, api: &str) -> PathBuf {
    let p = dir.join("loopdeck.toml");
    fs::write(&p, format!("[devloop]\napi = \"{api}\"\n")).unwrap();
    p
}

fn request_parts(req: &str) -> (String, Value) {
    let (head, body) = req.split_once("\r\n\r\n").unwrap();
    (
        head.lines().next().unwrap().to_owned(),
        serde_json::from_str(body).unwrap(),
    )
}

#[test]
fn with_a_server_sign_off_abandon_and_requirements_go_through_its_api() {
    let w = Ws::new();
    let dir = w.dir("p-shipped");
    // Its PRD conflict settled: a conflict pauses sign-off (see pause.rs).
    super::pause::settle_conflict(&dir);
    let before = tree(&dir);

    let (api, got) = server("200 OK", r#"{"status":"shipped-final"}"#);
    let cfg = config(w.state.path(), &api);
    let o = w.act(&dir, &["sign-off"], &["--config", cfg.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", err(&o));
    let (line, body) = request_parts(&got.recv().unwrap());
    assert_eq!(line, "POST /projects/p-shipped/sign-off HTTP/1.1");
    assert_eq!(body, serde_json::json!({"origin": "yibo"}));
    assert_eq!(tree(&dir), before, "the server owns the files");

    let (api, got) = server("202 Accepted", r#"{"accepted":true,"queued":true}"#);
    let cfg = config(w.state.path(), &format!("{api}/api/devloop/"));
    let o = w.act(
        &dir,
        &["requirement", "差异超过 500 元只提醒，不自动扣款"],
        &["--config", cfg.to_str().unwrap()],
    );
    assert_eq!(code(&o), 0, "{}", err(&o));
    let (line, body) = request_parts(&got.recv().unwrap());
    assert_eq!(
        line,
        "POST /api/devloop/projects/p-shipped/requirement HTTP/1.1"
    );
    assert_eq!(
        body,
        serde_json::json!({"text": "差异超过 500 元只提醒，不自动扣款", "origin": "yibo"})
    );

    let (api, got) = server("200 OK", r#"{"status":"abandoned"}"#);
    let cfg = config(w.state.path(), &api);
    let o = w.act(&dir, &["abandon"], &["--config", cfg.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", err(&o));
    assert_eq!(
        request_parts(&got.recv().unwrap()).0,
        "POST /projects/p-shipped/abandon HTTP/1.1"
    );
    assert_eq!(tree(&dir), before);
}

#[test]
fn a_finished_project_409_and_an_absent_server_are_clear_refusals() {
    let w = Ws::new();
    let dir = w.dir("p-shipped");
    // Its PRD conflict settled: a conflict pauses sign-off (see pause.rs).
    super::pause::settle_conflict(&dir);
    let before = tree(&dir);
    let (api, got) = server("409 Conflict", r#"{"error":"project is shipped-final"}"#);
    let cfg = config(w.state.path(), &api);
    let o = w.act(
        &dir,
        &["requirement", "再加一个功能"],
        &["--config", cfg.to_str().unwrap()],
    );
    assert_eq!(code(&o), 1);
    assert!(
        err(&o).contains("409") && err(&o).contains("finished"),
        "{}",
        err(&o)
    );
    assert!(err(&o).contains("project is shipped-final"), "{}", err(&o));
    got.recv().unwrap();

    // Nobody listening.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cfg = config(w.state.path(), &format!("http://127.0.0.1:{port}"));
    let o = w.act(&dir, &["sign-off"], &["--config", cfg.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    assert!(err(&o).contains("cannot reach"), "{}", err(&o));
    // --readonly stops it before any request.
    let o = w.act(
        &dir,
        &["sign-off"],
        &["--config", cfg.to_str().unwrap(), "--readonly"],
    );
    assert_eq!(code(&o), 1);
    assert!(err(&o).contains("read-only"), "{}", err(&o));
    assert_eq!(tree(&dir), before);
}

#[test]
fn dry_run_with_a_server_sends_nothing() {
    let w = Ws::new();
    let dir = w.dir("p-shipped");
    // Its PRD conflict settled: a conflict pauses sign-off (see pause.rs).
    super::pause::settle_conflict(&dir);
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.set_nonblocking(true).unwrap();
    let cfg = config(
        w.state.path(),
        &format!("http://{}", l.local_addr().unwrap()),
    );
    let before = tree(&dir);
    let o = w.act(
        &dir,
        &["sign-off"],
        &["--config", cfg.to_str().unwrap(), "--dry-run"],
    );
    assert_eq!(code(&o), 0, "{}", err(&o));
    assert!(l.accept().is_err(), "a dry run connected to the server");
    assert_eq!(tree(&dir), before);
    // It says what it would send, and where (the console's confirm shows
    // this in place of a diff).
    let said = String::from_utf8_lossy(&o.stdout);
    let url = format!("POST http://{}/projects/", l.local_addr().unwrap());
    assert!(said.contains(&url) && said.contains("/sign-off"), "{said}");
    assert!(said.contains("\"origin\""), "{said}");
}
