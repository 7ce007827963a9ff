//! Reading the config file: every table, its mistakes named with their
//! line, and which roots must exist.

use super::*;

mod chinese;
mod hosts;
mod keys;

#[test]
fn a_full_config_reads() {
    let c = parse(
        "roots = [\"/srv/agents\"]\ntheme = \"solarized-dark\"\nmouse = true\n",
        "c.toml",
    )
    .unwrap();
    assert_eq!(c.roots, vec![PathBuf::from("/srv/agents")]);
    assert!(c.mouse);
    assert_eq!(c.theme.as_deref(), Some("solarized-dark"));
}

#[test]
fn mistakes_are_explained_with_their_line() {
    let e = parse(
        "mouse = true\nrots = [\"/x\"]\n",
        "/home/u/.config/loopdeck/config.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with(
            "config file /home/u/.config/loopdeck/config.toml, line 2, column 1: unknown field `rots`, expected one of"
        ),
        "{e}"
    );
    let e = parse("roots = \"/x\"\n", "c.toml").unwrap_err().to_string();
    assert_eq!(
        e,
        "config file c.toml, line 1, column 9: invalid type: string \"/x\", expected a sequence"
    );
    let e = load(Some(Path::new("/nonexistent/loopdeck.toml")))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("cannot read the config file /nonexistent/loopdeck.toml:"),
        "{e}"
    );
}

#[test]
fn the_notify_table_reads_and_its_mistakes_name_their_line() {
    assert_eq!(parse("", "c.toml").unwrap().notify, NotifyConfig::default());
    let c = parse(
        "[notify]\nbell = false\ndesktop = \"osc777\"\nwhen_readonly = false\n",
        "c.toml",
    )
    .unwrap();
    assert_eq!(
        c.notify,
        NotifyConfig {
            bell: false,
            desktop: Desktop::Osc777,
            when_readonly: false,
            ..NotifyConfig::default()
        }
    );
    assert_eq!(
        parse("[notify]\ndesktop = \"osc9\"\n", "c.toml")
            .unwrap()
            .notify
            .desktop,
        Desktop::Osc9
    );
    let e = parse("[notify]\nbell = true\ndesktop = \"growl\"\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("config file c.toml, line 3, column 11: unknown variant `growl`"),
        "{e}"
    );
    let e = parse("[notify]\nbell = \"yes\"\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("config file c.toml, line 2, column 8:"),
        "{e}"
    );
    let e = parse("[notify]\nsound = true\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("config file c.toml, line 2, column 1: unknown field `sound`"),
        "{e}"
    );
}

#[test]
fn the_watch_table_sets_the_watcher_and_bad_values_are_explained() {
    use loopdeck_core::follow::Mode;
    use std::time::Duration;
    let c = parse(
        "[watch]\npoll_secs = 3\nreconcile_secs = 30\nmode = \"poll\"\n",
        "c.toml",
    )
    .unwrap();
    let o = watch_options(&c);
    assert_eq!(o.poll_every, Duration::from_secs(3));
    assert_eq!(o.reconcile_every, Duration::from_secs(30));
    assert_eq!(o.mode, Mode::Poll);
    let d = watch_options(&Config::default());
    assert_eq!(
        (d.poll_every, d.reconcile_every, d.mode, d.max_watches),
        (
            Duration::from_secs(10),
            Duration::from_secs(45),
            Mode::Auto,
            None
        )
    );
    let e = parse("[watch]\nmode = \"inotify\"\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "config file c.toml, line 2, column 8: unknown variant `inotify`, expected `auto` or `poll`"
    );
    let e = parse("[watch]\npoll_secs = 0\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "config file c.toml, line 2, column 13: must be at least 1 (seconds)"
    );
    let e = parse("[watch]\npoll = 5\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2, column 1: unknown field `poll`"), "{e}");
}

#[test]
fn command_line_roots_must_exist_config_roots_may_not() {
    let tmp = tempfile::tempdir().unwrap();
    let gone = tmp.path().join("gone");
    let file = tmp.path().join("f");
    std::fs::write(&file, "x").unwrap();
    assert_eq!(
        roots(std::slice::from_ref(&gone), &Config::default()),
        Err(RootError::Missing(gone.clone()))
    );
    // Beside a root that exists, a missing one is the walk's problem;
    // only when none exists is the command line wrong (the first named).
    let both = [gone.clone(), tmp.path().to_path_buf()];
    assert_eq!(roots(&both, &Config::default()).unwrap(), both);
    let gone2 = tmp.path().join("gone2");
    assert_eq!(
        roots(&[gone.clone(), gone2], &Config::default()),
        Err(RootError::Missing(gone.clone()))
    );
    assert_eq!(
        roots(std::slice::from_ref(&file), &Config::default())
            .unwrap_err()
            .to_string(),
        format!("{} is not a directory", file.display())
    );
    let cfg = Config {
        roots: vec![gone.clone(), tmp.path().to_path_buf()],
        ..Config::default()
    };
    assert_eq!(roots(&[], &cfg).unwrap(), cfg.roots);
    assert_eq!(
        roots(&[], &Config::default()).unwrap(),
        vec![PathBuf::from(".")]
    );
}
