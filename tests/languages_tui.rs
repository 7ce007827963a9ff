//! Languages in the console (issue 11 §2), end to end in tmux: the
//! console speaks Chinese when the environment says so (LC_ALL) or when
//! the config says so (`language = "zh-CN"`, whatever the environment),
//! and English when the config says `language = "en"` in a Chinese
//! environment.
//!
//! What is waited for is text only a translated console shows, taken from
//! the catalogues (`loopdeck_i18n::catalog`), or computed by the library
//! in the language asked (a config mistake said on stderr once the console
//! has refused to start): never a copy of a translation.
//!
//! Needs tmux; skipped, saying so, without it outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::NOW;
use common::tmux::{Tmux, skip_without_tmux};
use loopdeck_core::model::text::sanitize_line;
use loopdeck_i18n::{Lang, scoped};

const CHINESE_ENV: &str = "LC_ALL=zh_CN.UTF-8";

/// The text of `key` in `lang`.
fn text(lang: Lang, key: &str) -> String {
    loopdeck_i18n::text_in(lang, key)
        .unwrap_or_else(|| panic!("{key} is not in the {lang} catalogue"))
        .to_owned()
}

/// A copy of the example workspace, a config file holding `config`, a
/// state directory of its own, and the console started on the workspace
/// (`roots` replaces it) with `env` added.
struct Run {
    _tmp: tempfile::TempDir,
    config: PathBuf,
    tmux: Tmux,
}

impl Run {
    fn start(label: &str, config: &str, env: &[&str], root: Option<&Path>) -> Run {
        let (tmp, ws) = common::workspace();
        let state = tmp.path().join("state");
        fs::create_dir_all(&state).unwrap();
        let cfg = tmp.path().join("config.toml");
        fs::write(&cfg, config).unwrap();
        let tmux = Tmux::new(label);
        let state_env = format!("XDG_STATE_HOME={}", state.display());
        let mut all_env = vec![state_env.as_str()];
        all_env.extend_from_slice(env);
        let cfg_arg = cfg.display().to_string();
        // Wide: a message on stderr stays on one line of the pane.
        tmux.start_with(
            root.unwrap_or(&ws),
            NOW,
            "250",
            "45",
            &all_env,
            &["--config", &cfg_arg],
        );
        Run {
            _tmp: tmp,
            config: cfg,
            tmux,
        }
    }

    /// The answer form of PRD-master question OQ-6 (one free-text item:
    /// `a` opens its editor at once), from the inbox narrowed to it.
    fn answer_form(&self) {
        // The list is loaded (a project name the example workspace has).
        self.tmux.wait_for("fba-smart-restock");
        self.tmux.keys(&["i", "/", "C-u"]);
        self.tmux.keys(&["-l", "OQ-6"]);
        self.tmux.keys(&["Enter", "a"]);
    }

    /// The screen once the console has exited with `code`.
    fn exited(&self, code: i32) -> String {
        self.tmux.wait_for(&format!("EXITED:{code}"))
    }
}

/// The form's label for a PRD answer's rationale (a key decision D-n), in
/// each language.
fn rationale(lang: Lang) -> String {
    text(lang, "model.field.key_rationale")
}

#[test]
fn a_chinese_environment_gets_a_chinese_console() {
    if skip_without_tmux() {
        return;
    }
    let r = Run::start("lang-env-zh", "", &[CHINESE_ENV], None);
    r.answer_form();
    let s = r.tmux.wait_for(&rationale(Lang::ZhCn));
    assert!(!s.contains(&rationale(Lang::En)), "{s}");
    assert!(s.contains("OQ-6"), "the question's id stays: {s}");
}

#[test]
fn the_config_language_wins_over_an_english_environment() {
    if skip_without_tmux() {
        return;
    }
    // The harness runs the console with LC_ALL=C.UTF-8.
    let r = Run::start("lang-cfg-zh", "language = \"zh-CN\"\n", &[], None);
    r.answer_form();
    let s = r.tmux.wait_for(&rationale(Lang::ZhCn));
    assert!(!s.contains(&rationale(Lang::En)), "{s}");
}

#[test]
fn an_english_config_keeps_a_chinese_environment_english() {
    if skip_without_tmux() {
        return;
    }
    let r = Run::start("lang-cfg-en", "language = \"en\"\n", &[CHINESE_ENV], None);
    r.answer_form();
    let s = r.tmux.wait_for(&rationale(Lang::En));
    assert!(!s.contains(&rationale(Lang::ZhCn)), "{s}");
    drop(r);

    // So is what it says on stderr when it cannot start: a root that is
    // not there.
    let gone = PathBuf::from("/nonexistent-loopdeck-root");
    let r = Run::start(
        "lang-cfg-en-root",
        "language = \"en\"\n",
        &[CHINESE_ENV],
        Some(&gone),
    );
    let s = r.exited(2);
    let said = {
        let _en = scoped(Lang::En);
        let cfg = loopdeck::config::load(Some(&r.config)).unwrap();
        loopdeck::config::roots(std::slice::from_ref(&gone), &cfg)
            .unwrap_err()
            .to_string()
    };
    assert!(s.contains(&format!("loopdeck: {said}")), "{said}\n{s}");
    let chinese = {
        let _zh = scoped(Lang::ZhCn);
        let cfg = loopdeck::config::load(Some(&r.config)).unwrap();
        loopdeck::config::roots(std::slice::from_ref(&gone), &cfg)
            .unwrap_err()
            .to_string()
    };
    assert!(!s.contains(&chinese), "{s}");
}

/// A config mistake before the config could say anything: the
/// environment's language names the file, the line and the column.
#[test]
fn a_broken_config_is_explained_in_the_environments_language() {
    if skip_without_tmux() {
        return;
    }
    let r = Run::start(
        "lang-cfg-broken",
        "mouse = true\n[watch]\npoll_secs = 0\n",
        &[CHINESE_ENV],
        None,
    );
    let s = r.exited(2);
    let (zh, en) = {
        let said = |lang| {
            let _l = scoped(lang);
            loopdeck::config::load(Some(&r.config))
                .unwrap_err()
                .to_string()
        };
        (said(Lang::ZhCn), said(Lang::En))
    };
    assert_ne!(zh, en);
    assert!(
        s.contains(&format!("loopdeck: {}", sanitize_line(&zh))),
        "{zh}\n{s}"
    );
    assert!(!s.contains(&en), "{s}");
    assert!(s.contains(&r.config.display().to_string()), "{s}");
}

/// A theme the config names that does not exist, said in the config's
/// language (Chinese) although the environment is English.
#[test]
fn a_config_mistake_after_the_language_is_known_is_said_in_it() {
    if skip_without_tmux() {
        return;
    }
    let r = Run::start(
        "lang-cfg-theme",
        "language = \"zh-CN\"\ntheme = \"neon\"\n",
        &[],
        None,
    );
    let s = r.exited(2);
    let said = |lang| {
        let _l = scoped(lang);
        let cfg = loopdeck::config::load(Some(&r.config)).unwrap();
        match loopdeck::console::theme(&cfg, true) {
            Ok(_) => panic!("a theme named neon"),
            Err(e) => e.to_string(),
        }
    };
    let (zh, en) = (said(Lang::ZhCn), said(Lang::En));
    assert_ne!(zh, en);
    assert!(
        s.contains(&format!("loopdeck: {}", sanitize_line(&zh))),
        "{zh}\n{s}"
    );
    assert!(!s.contains(&en), "{s}");
}
