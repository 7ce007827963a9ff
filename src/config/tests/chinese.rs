//! The config's mistakes in Chinese: the file, the line and the column
//! named in Chinese around the toml crate's own words.

use crate::config::*;
use crate::i18n::{Lang, catalog, fill, scoped};

fn template(key: &str) -> String {
    match catalog(Lang::ZhCn).get(key) {
        Some(crate::i18n::Entry::Text(t)) => t.clone(),
        other => panic!("{key}: {other:?}"),
    }
}

#[test]
fn a_parse_mistake_names_file_line_and_column_in_chinese() {
    let text = "mouse = true\nrots = [\"/x\"]\n";
    let path = "/home/u/.config/loopdeck/config.toml";
    let english = parse(text, path).unwrap_err().to_string();
    let _zh = scoped(Lang::ZhCn);
    let e = parse(text, path).unwrap_err();
    let ConfigError::Parse {
        line: Some(2),
        column: Some(1),
        message,
        ..
    } = &e
    else {
        panic!("{e:?}");
    };
    // The toml crate's words are its own, in both languages.
    assert!(message.starts_with("unknown field `rots`"), "{message}");
    let said = e.to_string();
    assert_eq!(
        said,
        format!("配置文件 {path}，第2行，第1列：{message}"),
        "{english}"
    );
    assert_eq!(
        said,
        fill(
            &template("runtime.config.at_line_column"),
            &[
                ("path", &path),
                ("line", &2),
                ("column", &1),
                ("message", message)
            ]
        )
    );
    assert!(!said.contains("line 2") && !said.contains("config file"));
    assert_ne!(said, english);
}

#[test]
fn our_own_words_in_a_config_are_chinese_too() {
    let _zh = scoped(Lang::ZhCn);
    let e = parse("[watch]\npoll_secs = 0\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert_eq!(e, "配置文件 c.toml，第2行，第13列：至少为 1（秒）");
    let e = parse("language = \"fr\"\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("配置文件 c.toml，第1行，第12列：未知语言 `fr`"),
        "{e}"
    );
    let e = parse("[keys]\nhelp = 5\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert!(e.ends_with(&template("runtime.config.key_value")), "{e}");
    let e = load(Some(Path::new("/nonexistent/loopdeck.toml")))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("无法读取配置文件 /nonexistent/loopdeck.toml："),
        "{e}"
    );
    let theme = ConfigError::Theme {
        path: "c.toml".into(),
        message: "no theme named neon".into(),
    };
    assert_eq!(theme.to_string(), "配置文件 c.toml：no theme named neon");
    let no_column = ConfigError::Parse {
        path: "c.toml".into(),
        line: Some(4),
        column: None,
        message: "m".into(),
    };
    assert_eq!(no_column.to_string(), "配置文件 c.toml，第4行：m");
}

#[test]
fn a_root_that_cannot_be_one_is_said_in_chinese() {
    let tmp = tempfile::tempdir().unwrap();
    let gone = tmp.path().join("gone");
    let file = tmp.path().join("f");
    std::fs::write(&file, "x").unwrap();
    let _zh = scoped(Lang::ZhCn);
    let said = |r: &Path| {
        roots(&[r.to_path_buf()], &Config::default())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(said(&gone), format!("{} 不存在", gone.display()));
    assert_eq!(said(&file), format!("{} 不是目录", file.display()));
}
