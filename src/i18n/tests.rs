//! The catalogues are complete (issue 11 §2): both languages have the same
//! keys with the same placeholders, every key the sources use exists, and
//! no key is left unused.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::*;

fn keys(lang: Lang) -> BTreeSet<String> {
    catalog(lang).keys().map(str::to_owned).collect()
}

#[test]
fn both_catalogues_read_without_problems() {
    for lang in Lang::ALL {
        assert_eq!(catalog(lang).problems(), &[] as &[String], "{lang}");
        assert!(catalog(lang).keys().count() > 0, "{lang} has keys");
    }
}

#[test]
fn both_languages_have_the_same_keys() {
    let en = keys(Lang::En);
    let zh = keys(Lang::ZhCn);
    let only_en: Vec<_> = en.difference(&zh).collect();
    let only_zh: Vec<_> = zh.difference(&en).collect();
    assert!(
        only_en.is_empty() && only_zh.is_empty(),
        "missing in zh-CN: {only_en:?}\nmissing in en: {only_zh:?}"
    );
}

#[test]
fn translations_keep_every_placeholder() {
    let mut wrong = Vec::new();
    for key in keys(Lang::En) {
        let (Some(en), Some(zh)) = (catalog(Lang::En).get(&key), catalog(Lang::ZhCn).get(&key))
        else {
            continue;
        };
        let (a, b) = (entry_placeholders(en), entry_placeholders(zh));
        if a != b {
            wrong.push(format!("{key}: en {a:?}, zh-CN {b:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every key the sources name in `t!(…)`, with where.
fn used_keys() -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, _) in text.match_indices("t!(") {
            let before = text[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // assert!(, print!(
            }
            let line_start = text[..i].rfind('\n').map_or(0, |n| n + 1);
            if text[line_start..i].trim_start().starts_with("//") {
                continue; // documentation
            }
            let rest = text[i + 3..].trim_start();
            let Some(lit) = rest.strip_prefix('"') else {
                continue;
            };
            let Some(end) = lit.find('"') else { continue };
            let key = &lit[..end];
            if key.contains(['(', ')', ' ', '{']) {
                continue; // this file's own search for `t!(`
            }
            out.push((key.to_owned(), f.display().to_string()));
        }
    }
    out
}

#[test]
fn every_key_the_sources_use_exists() {
    let en = keys(Lang::En);
    let missing: Vec<_> = used_keys()
        .into_iter()
        .filter(|(k, _)| !en.contains(k))
        .collect();
    assert!(
        missing.is_empty(),
        "keys used but not in the catalogues: {missing:?}"
    );
}

#[test]
fn every_key_is_used() {
    let used: BTreeSet<String> = used_keys().into_iter().map(|(k, _)| k).collect();
    let unused: Vec<_> = keys(Lang::En)
        .into_iter()
        .filter(|k| !used.contains(k))
        .collect();
    assert!(unused.is_empty(), "keys no source uses: {unused:?}");
}

#[test]
fn the_language_comes_from_the_config_then_the_environment() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |k: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| (*v).to_owned())
        }
    };
    assert_eq!(Lang::choose(None, env(&[])), Lang::En);
    assert_eq!(
        Lang::choose(None, env(&[("LANG", "zh_CN.UTF-8")])),
        Lang::ZhCn
    );
    // LC_ALL before LC_MESSAGES before LANG; empty values do not count.
    let both = env(&[("LC_ALL", "C"), ("LC_MESSAGES", "zh_CN.UTF-8")]);
    assert_eq!(Lang::choose(None, both), Lang::En);
    let empty = env(&[
        ("LC_ALL", ""),
        ("LC_MESSAGES", "zh_TW.UTF-8"),
        ("LANG", "en_US"),
    ]);
    assert_eq!(Lang::choose(None, empty), Lang::ZhCn);
    assert_eq!(
        Lang::choose(None, env(&[("LANG", "fr_FR.UTF-8")])),
        Lang::En
    );
    // The config wins, unless it says auto.
    assert_eq!(
        Lang::choose(Some("zh-CN"), env(&[("LANG", "C")])),
        Lang::ZhCn
    );
    assert_eq!(
        Lang::choose(Some("en"), env(&[("LANG", "zh_CN")])),
        Lang::En
    );
    assert_eq!(
        Lang::choose(Some("auto"), env(&[("LANG", "zh_CN")])),
        Lang::ZhCn
    );
    assert_eq!(Lang::parse("zh-Hans"), Some(Lang::ZhCn));
    assert_eq!(Lang::parse("de"), None);
}

#[test]
fn placeholders_are_filled_by_name_and_braces_escape() {
    let n = 3;
    let s = fill("{n} of {{total}} {missing} }}", &[("n", &n)]);
    assert_eq!(s, "3 of {total} {missing} }");
    assert_eq!(placeholders("{b} {a} {{c}} {a}"), ["a", "b"]);
}

#[test]
fn a_test_thread_speaks_its_own_language() {
    let seconds = Some(3 * 3600);
    assert_eq!(age(seconds), "3h");
    {
        let _zh = scoped(Lang::ZhCn);
        assert_eq!(current(), Lang::ZhCn);
        assert_eq!(age(seconds), "3小时");
        assert_eq!(ago(-7200), "在未来（超前2小时）");
    }
    assert_eq!(current(), Lang::En, "the guard restores the language");
    assert_eq!(ago(180), "3m ago");
    assert_eq!(age(None), "?");
    // An unknown key is shown as itself rather than as nothing.
    assert_eq!(text("key"), "key");
}
