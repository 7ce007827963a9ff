//! `[keys]` in the config (issue 11 §3), as a user meets it: a mistake
//! stops the console at start (exit 2) with the file, the line and both
//! actions of a conflict; a value of the wrong shape stops every command.
//! The console with a remapped key, in tmux: the new key acts, the old one
//! not, help and the hint bar name the new key.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;

use common::tmux::{Tmux, skip_without_tmux};
use common::{NOW, loopdeck};
use predicates::str::contains;

#[test]
fn a_mistake_in_keys_stops_the_console_at_start_with_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("bad.toml");
    let c = cfg.to_str().unwrap();
    let cases = [
        (
            "mouse = false\n[keys]\nquit = \"Q\"\nquitt = \"x\"\n",
            "line 4, column 1: unknown action `quitt` in [keys] (actions: audit, back,",
        ),
        (
            "[keys]\nquit = \"x\"\n\n\"list.reload\" = [\"r\", \"x\"]\n",
            "line 4, column 1: `list.reload`: x is also quit (line 2) in the list\n",
        ),
        (
            "[keys]\nquit = \"j\"\n",
            "line 2, column 1: `quit`: j is also move-down in the list\n",
        ),
        (
            "[keys]\n\"inbox.decide\" = \"enter\"\n",
            "line 2, column 1: `inbox.decide`: Enter is also open in the inbox\n",
        ),
        (
            "[keys]\nhelp = \"ctrl+h\"\n",
            "line 2, column 8: `help`: `ctrl+h` is not a key (a character, ctrl-x,",
        ),
        (
            "[keys]\n\"lst.quit\" = \"Q\"\n",
            "line 2, column 1: unknown view `lst` in `lst.quit` (views: list, detail,",
        ),
    ];
    for (text, message) in cases {
        fs::write(&cfg, text).unwrap();
        // The console checks the keys before it asks for a terminal.
        loopdeck()
            .args(["--config", c, tmp.path().to_str().unwrap()])
            .assert()
            .code(2)
            .stdout("")
            .stderr(contains(format!("loopdeck: config file {c}, {message}")));
    }
    // A value that is no key at all is the config's shape: every command
    // refuses it.
    fs::write(&cfg, "[keys]\nquit = 5\n").unwrap();
    for args in [vec!["list"], vec![]] {
        loopdeck()
            .args(&args)
            .args(["--config", c, tmp.path().to_str().unwrap()])
            .assert()
            .code(2)
            .stderr(contains(format!(
                "loopdeck: config file {c}, line 2, column 8: expected a key (\"q\"), a list of keys"
            )));
    }
    // A good table lets the console go on (to ask for a terminal).
    fs::write(&cfg, "[keys]\nquit = \"Q\"\n\"inbox.open\" = \"z\"\n\"inbox.decide\" = \"enter\"\nreload = \"\"\n").unwrap();
    loopdeck()
        .args(["--config", c, tmp.path().to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(contains("the console needs a terminal"));
}

#[test]
fn a_default_written_back_is_accepted_and_a_dotted_view_is_said_quoted() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("keys.toml");
    let c = cfg.to_str().unwrap();
    let root = tmp.path().to_str().unwrap();
    // y is the inbox's yes and copy elsewhere in the defaults: writing it
    // back (with another key) is no conflict; the console goes on (to ask
    // for a terminal).
    for text in ["[keys]\ncopy = [\"y\", \"c\"]\n", "[keys]\nyes = \"y\"\n"] {
        fs::write(&cfg, text).unwrap();
        loopdeck()
            .args(["--config", c, root])
            .assert()
            .code(2)
            .stderr(contains("the console needs a terminal"));
    }
    // A new overlap still is refused.
    fs::write(&cfg, "[keys]\n\"inbox.copy\" = [\"y\", \"n\"]\n").unwrap();
    loopdeck()
        .args(["--config", c, root])
        .assert()
        .code(2)
        .stderr(contains(format!(
            "loopdeck: config file {c}, line 2, column 1: `inbox.copy`: n is also no in the inbox\n"
        )));
    // `list.sort = "z"` unquoted is a table `list` to TOML: every command
    // says how to write it, at its line.
    fs::write(&cfg, "[keys]\nquit = \"Q\"\nlist.sort = \"z\"\n").unwrap();
    for args in [vec!["list"], vec![]] {
        loopdeck()
            .args(&args)
            .args(["--config", c, root])
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!(
                "loopdeck: config file {c}, line 3, column 1: a view's action is written quoted: \"list.sort\" = \"z\"\n"
            ));
    }
}

#[test]
fn a_remapped_key_in_the_console() {
    if skip_without_tmux() {
        return;
    }
    let (tmp, ws) = common::workspace();
    let (_, env) = common::state_dir(tmp.path());
    let cfg = tmp.path().join("keys.toml");
    fs::write(
        &cfg,
        "[keys]\nquit = \"Q\"\nmove-down = [\"J\", \"down\"]\n",
    )
    .unwrap();
    let config = format!("--config {}", cfg.display());
    let t = Tmux::new("keys");
    t.start_with(&ws, NOW, "100", "30", &[&env], &[&config]);
    let s = t.wait_for("Q quit");
    assert!(s.contains("J/k move"), "{s}");
    assert!(!s.contains("q quit"), "{s}");
    // q is nothing now: the console is still there to open its help, which
    // names the new keys.
    t.keys(&["q"]);
    t.keys(&["?"]);
    // A capture can catch a frame half drawn: wait for the rows themselves
    // (CI caught the help's first nine rows drawn and not the J row).
    let s = t.wait_until("the help naming Q and J", |s| {
        s.contains("Keys & symbols")
            && s.contains(" Q       quit")
            && s.contains(" J ↓     move down")
    });
    assert!(!s.contains(" q       quit"), "{s}");
    t.keys(&["Escape"]);
    t.wait_gone("Keys & symbols");
    t.keys(&["Q"]);
    t.wait_for("EXITED:0");
}
