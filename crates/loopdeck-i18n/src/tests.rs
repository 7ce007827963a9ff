//! The catalogues are complete (issue 11 §2): both languages have the same
//! keys with the same placeholders, every key the sources use (in `t!` and
//! `phrase!`) exists, and no key is left unused.

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

/// The argument names of a `t!` call whose text after the key is `rest`
/// (`, a = x, b = f(y, z))…`): the identifiers before a lone `=` at the
/// call's own depth.
fn argument_names(rest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut depth = 0usize;
    let mut chars = rest.char_indices().peekable();
    let mut start = true;
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                // A string literal: skip to its closing quote.
                let mut escaped = false;
                for (_, d) in chars.by_ref() {
                    match d {
                        '\\' if !escaped => escaped = true,
                        '"' if !escaped => break,
                        _ => escaped = false,
                    }
                }
            }
            '\'' => {
                // A char literal ('(', '\'') or a lifetime: skip a literal.
                let lit: String = rest[i..].chars().take(4).collect();
                if lit.chars().nth(2) == Some('\'') || lit.starts_with("'\\") {
                    let skip = if lit.starts_with("'\\") { 3 } else { 2 };
                    for _ in 0..skip {
                        chars.next();
                    }
                }
            }
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => break,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => start = true,
            c if c.is_whitespace() => {}
            _ if start && depth == 0 => {
                start = false;
                let ident: String = rest[i..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let after = rest[i + ident.len()..].trim_start();
                if !ident.is_empty() && after.starts_with('=') && !after.starts_with("==") {
                    names.push(ident);
                }
            }
            _ => {}
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Every key the sources name in `t!(…)`, with where.
fn used_keys() -> Vec<(String, String)> {
    used_calls().into_iter().map(|(k, f, _)| (k, f)).collect()
}

/// Every `t!(…)` call of the sources: its key, its file, its argument names.
fn used_calls() -> Vec<(String, String, Vec<String>)> {
    // Every crate of the workspace, and the binary's own sources.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    for c in std::fs::read_dir(root.join("crates")).unwrap() {
        rust_files(&c.unwrap().path().join("src"), &mut files);
    }
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        // `t!(…)` and `phrase!(…)` (a `model::Phrase`) name keys alike.
        let calls = ["t!(", "phrase!("]
            .into_iter()
            .flat_map(|m| text.match_indices(m).map(move |(i, _)| (i, m.len())));
        for (i, len) in calls {
            let before = text[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // assert!(, print!(
            }
            let line_start = text[..i].rfind('\n').map_or(0, |n| n + 1);
            if text[line_start..i].trim_start().starts_with("//") {
                continue; // documentation
            }
            let rest = text[i + len..].trim_start();
            let Some(lit) = rest.strip_prefix('"') else {
                continue;
            };
            let Some(end) = lit.find('"') else { continue };
            let key = &lit[..end];
            if key.contains(['(', ')', ' ', '{']) {
                continue; // this file's own search for `t!(`
            }
            let args = argument_names(&lit[end + 1..]);
            out.push((key.to_owned(), f.display().to_string(), args));
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

/// A placeholder no call fills would be shown as `{name}`; an argument no
/// placeholder takes is a typo (only `n`, which picks a plural form, may
/// go unshown).
#[test]
fn every_call_fills_exactly_its_placeholders() {
    let mut wrong = Vec::new();
    for (key, file, args) in used_calls() {
        let Some(entry) = catalog(Lang::En).get(&key) else {
            continue;
        };
        let wanted = entry_placeholders(entry);
        let extra: Vec<&String> = args
            .iter()
            .filter(|a| !wanted.contains(a) && a.as_str() != "n")
            .collect();
        if !extra.is_empty() || wanted.iter().any(|w| !args.contains(w)) {
            wrong.push(format!("{file}: {key} takes {wanted:?}, given {args:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn argument_names_are_read_at_the_calls_depth() {
    assert_eq!(
        argument_names(", a = f(x, y = 2), b = \"s, c = 3\", c = ')', d == e)"),
        ["a", "b", "c"]
    );
    assert_eq!(argument_names(")"), Vec::<String>::new());
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
        Lang::choose(Some(Lang::ZhCn), env(&[("LANG", "C")])),
        Lang::ZhCn
    );
    assert_eq!(
        Lang::choose(Some(Lang::En), env(&[("LANG", "zh_CN")])),
        Lang::En
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
