//! The words of the console and of the plain output, in English and
//! Simplified Chinese (issue 11 §2).
//!
//! Every catalogue lives in `lang/<language>/<area>.toml` beside this crate,
//! embedded in the binary. A file's keys are named after it: `lang/en/ui.toml`'s
//! `[list] title = "…"` is `ui.list.title`. Text is looked up with [`t!`]:
//!
//! ```
//! # use loopdeck_i18n::t;
//! let unknown: &str = t!("common.age.unknown");
//! let ago = t!("common.age.ago", age = "3m");
//! ```
//!
//! Arguments fill `{name}` placeholders (`{{` and `}}` are braces). A value
//! written as a table `{ one = "…", other = "…" }` is chosen by the argument
//! `n` (English needs it, Chinese does not). A missing key falls back to the
//! English text, then to the key itself; `tests` prove neither happens.
//!
//! The language is chosen once per process ([`set`]: `language` in the
//! config, else LC_ALL / LC_MESSAGES / LANG); a test picks one for its own
//! thread with [`scoped`], so tests in both languages run side by side.
//! JSON keys, codes, file names and the data read from projects are never
//! translated.

#![warn(unreachable_pub)]

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt::{self, Display, Write as _};
use std::sync::LazyLock;
use std::sync::atomic::{AtomicU8, Ordering};

#[cfg(test)]
mod tests;

/// A language loopdeck speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    #[default]
    En,
    /// Simplified Chinese.
    ZhCn,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::ZhCn];

    /// The name in the config and in `lang/`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::ZhCn => "zh-CN",
        }
    }

    /// `en`, `zh-CN`, and the locale names the environment carries
    /// (`zh_CN.UTF-8`, `en_GB`, `C`, `POSIX`). Any Chinese locale reads
    /// Simplified Chinese (the only Chinese catalogue). `None`: unknown.
    pub fn parse(name: &str) -> Option<Lang> {
        let base = name
            .split(['.', '@'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let language = base.split(['_', '-']).next().unwrap_or_default();
        match language {
            "zh" => Some(Lang::ZhCn),
            "en" | "c" | "posix" => Some(Lang::En),
            _ => None,
        }
    }

    /// From the environment as POSIX orders it: the first set and non-empty
    /// of LC_ALL, LC_MESSAGES, LANG decides; a language without a catalogue
    /// (`fr_FR`) reads English.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Lang {
        ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .find_map(|k| var(k).filter(|v| !v.is_empty()))
            .and_then(|v| Lang::parse(&v))
            .unwrap_or_default()
    }

    /// The config's `language` if it names one (`"auto"` reads as
    /// none), else the environment's.
    pub fn choose(configured: Option<Lang>, var: impl Fn(&str) -> Option<String>) -> Lang {
        configured.unwrap_or_else(|| Lang::from_env(var))
    }

    fn index(self) -> u8 {
        match self {
            Lang::En => 0,
            Lang::ZhCn => 1,
        }
    }
}

impl Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// The process's language (set once the config is read).
static GLOBAL: AtomicU8 = AtomicU8::new(0);

thread_local! {
    /// A test's language for its own thread.
    static SCOPED: Cell<Option<Lang>> = const { Cell::new(None) };
}

/// Speak `lang` from now on, in every thread.
pub fn set(lang: Lang) {
    GLOBAL.store(lang.index(), Ordering::Relaxed);
}

/// The language in force on this thread.
pub fn current() -> Lang {
    SCOPED.get().unwrap_or_else(global)
}

/// What [`set`] chose. The library's own tests ignore it and speak English
/// unless they say otherwise, whatever the machine's locale or a test that
/// ran a command set.
fn global() -> Lang {
    if cfg!(test) {
        return Lang::En;
    }
    match GLOBAL.load(Ordering::Relaxed) {
        1 => Lang::ZhCn,
        _ => Lang::En,
    }
}

/// Speak `lang` on this thread until the guard is dropped (tests).
pub fn scoped(lang: Lang) -> Scoped {
    Scoped(SCOPED.replace(Some(lang)))
}

/// Restores the thread's language when dropped.
pub struct Scoped(Option<Lang>);

impl Drop for Scoped {
    fn drop(&mut self) {
        SCOPED.set(self.0);
    }
}

/// One catalogue file: its area (the key prefix) and its text per language.
struct File {
    area: &'static str,
    en: &'static str,
    zh_cn: &'static str,
}

macro_rules! files {
    ($($area:literal),* $(,)?) => {
        [$(File {
            area: $area,
            en: include_str!(concat!("../lang/en/", $area, ".toml")),
            zh_cn: include_str!(concat!("../lang/zh-CN/", $area, ".toml")),
        }),*]
    };
}

/// Every catalogue file, in both languages: `common` (words several areas
/// share), `model` (the domain's own labels), `phrase` (what the readers
/// say about a project: inbox titles, resume lines, see
/// `model::Phrase`), `ui` (the console's frame, dialogs, list and
/// inbox), `panes` (a project's tabs), `app` (hints, help, the palette,
/// status messages), `cli` (the headless commands' plain output),
/// `runtime` (the console's start, config and watcher messages).
const FILES: [File; 8] = files![
    "common", "model", "phrase", "ui", "panes", "app", "cli", "runtime"
];

/// A catalogue entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Text(String),
    /// Chosen by the argument `n`: `one` when it is 1.
    Plural {
        one: String,
        other: String,
    },
}

impl Entry {
    /// Its text, or both plural forms.
    pub fn texts(&self) -> Vec<&str> {
        match self {
            Entry::Text(t) => vec![t],
            Entry::Plural { one, other } => vec![one, other],
        }
    }
}

/// A language's catalogue: every key of every file.
#[derive(Debug, Default)]
pub struct Catalog {
    entries: HashMap<String, Entry>,
    /// What could not be read (tests report it; a run uses what it could).
    problems: Vec<String>,
}

impl Catalog {
    fn parse(lang: Lang) -> Catalog {
        let mut c = Catalog::default();
        for f in &FILES {
            let text = match lang {
                Lang::En => f.en,
                Lang::ZhCn => f.zh_cn,
            };
            match toml::from_str::<toml::Table>(text) {
                Ok(table) => c.add(f.area, &table),
                Err(e) => {
                    c.problems
                        .push(format!("{}/{}.toml: {}", lang.code(), f.area, e.message()))
                }
            }
        }
        c
    }

    fn add(&mut self, prefix: &str, table: &toml::Table) {
        for (k, v) in table {
            let key = format!("{prefix}.{k}");
            let plural = |t: &toml::Table| -> Option<Entry> {
                let one = t.get("one")?.as_str()?.to_owned();
                let other = t.get("other")?.as_str()?.to_owned();
                (t.len() == 2).then_some(Entry::Plural { one, other })
            };
            match v {
                toml::Value::String(s) => {
                    self.entries.insert(key, Entry::Text(s.clone()));
                }
                toml::Value::Table(t) => match plural(t) {
                    Some(p) => {
                        self.entries.insert(key, p);
                    }
                    None => self.add(&key, t),
                },
                _ => self.problems.push(format!("{key}: not text")),
            }
        }
    }

    /// Every key.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.get(key)
    }

    /// What could not be read.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

static EN: LazyLock<Catalog> = LazyLock::new(|| Catalog::parse(Lang::En));
static ZH_CN: LazyLock<Catalog> = LazyLock::new(|| Catalog::parse(Lang::ZhCn));

/// A language's catalogue.
pub fn catalog(lang: Lang) -> &'static Catalog {
    match lang {
        Lang::En => &EN,
        Lang::ZhCn => &ZH_CN,
    }
}

/// The text of `key` in `lang` as written in its catalogue (a plural
/// entry: its `other` form), placeholders unfilled; `None` when the key is
/// not there. For checking what a screen or an output says.
pub fn text_in(lang: Lang, key: &str) -> Option<&'static str> {
    match catalog(lang).get(key)? {
        Entry::Text(t) => Some(t),
        Entry::Plural { other, .. } => Some(other),
    }
}

/// The entry for `key` in the current language, else in English.
fn entry(key: &str) -> Option<&'static Entry> {
    entry_in(current(), key)
}

/// The entry for `key` in `lang`, else in English.
fn entry_in(lang: Lang, key: &str) -> Option<&'static Entry> {
    catalog(lang).get(key).or_else(|| EN.get(key))
}

/// The text of `key` (no arguments). A plural entry gives its `other` form.
pub fn text(key: &'static str) -> &'static str {
    match entry(key) {
        Some(Entry::Text(t)) => t,
        Some(Entry::Plural { other, .. }) => other,
        None => key,
    }
}

/// The text of `key` with its `{name}` placeholders filled.
pub fn format(key: &'static str, args: &[(&str, &dyn Display)]) -> String {
    format_in(current(), key, args)
}

/// The text of `key` in `lang` with its `{name}` placeholders filled,
/// whatever language is spoken (a `model::Phrase` in English for
/// the JSON).
pub fn format_in(lang: Lang, key: &str, args: &[(&str, &dyn Display)]) -> String {
    let template = match entry_in(lang, key) {
        Some(Entry::Text(t)) => t.as_str(),
        Some(Entry::Plural { one, other }) => {
            let is_one = args
                .iter()
                .find(|(name, _)| *name == "n")
                .is_some_and(|(_, v)| v.to_string() == "1");
            if is_one { one } else { other }
        }
        None => key,
    };
    fill(template, args)
}

/// `template` with `{name}` replaced by the argument of that name; `{{`
/// and `}}` are braces; an unknown name is left as written.
pub fn fill(template: &str, args: &[(&str, &dyn Display)]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        if let Some(name) = tail.strip_prefix('{')
            && let Some(end) = name.find('}')
            && let Some((_, value)) = args.iter().find(|(n, _)| *n == &name[..end])
        {
            let _ = write!(out, "{value}");
            rest = &name[end + 1..];
            continue;
        }
        out.push_str(&tail[..1]);
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

/// The `{name}` placeholders of a template, sorted, borrowed from it
/// (`{{`, `}}`: braces).
pub fn placeholders(template: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            rest = &tail[2..];
            continue;
        }
        if let Some(name) = tail.strip_prefix('{')
            && let Some(end) = name.find('}')
        {
            out.push(&name[..end]);
            rest = &name[end + 1..];
            continue;
        }
        rest = &tail[1..];
    }
    out.sort();
    out.dedup();
    out
}

/// Every placeholder of an entry (both plural forms).
pub fn entry_placeholders(e: &Entry) -> Vec<String> {
    let mut all: Vec<String> = e
        .texts()
        .into_iter()
        .flat_map(placeholders)
        .map(str::to_owned)
        .collect();
    all.sort();
    all.dedup();
    all
}

/// Text from the catalogues: `t!("ui.list.title")` is a `&'static str`;
/// `t!("ui.list.count", n = rows.len())` fills `{n}` and is a `String`.
/// Keys are literals, so a test can find every key the sources use.
#[macro_export]
macro_rules! t {
    ($key:literal) => {
        $crate::text($key)
    };
    ($key:literal, $($name:ident = $value:expr),+ $(,)?) => {
        $crate::format(
            $key,
            &[$((stringify!($name), &$value as &dyn ::std::fmt::Display)),+],
        )
    };
}

/// How far ahead of "now" a time may be and still read as "just now"
/// (clocks of machines that write the files differ a little).
pub const SKEW_TOLERANCE_SECONDS: i64 = 60;

/// An age in the one unit it is shown in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Age {
    /// Ahead of now by more than [`SKEW_TOLERANCE_SECONDS`].
    Future,
    Seconds(i64),
    Minutes(i64),
    Hours(i64),
    Days(i64),
    Weeks(i64),
}

impl Age {
    /// The unit an age of `seconds` is shown in (never `0s` ahead: a time
    /// within the tolerance is "just now").
    pub fn of(seconds: i64) -> Age {
        if seconds < -SKEW_TOLERANCE_SECONDS {
            return Age::Future;
        }
        let s = seconds.max(0);
        match s {
            0..=59 => Age::Seconds(s),
            60..=3599 => Age::Minutes(s / 60),
            3600..=86_399 => Age::Hours(s / 3600),
            86_400..=1_209_599 => Age::Days(s / 86_400),
            _ => Age::Weeks(s / 604_800),
        }
    }
}

/// An age for the console and the tables: `3m` in English, `3分钟` in Chinese;
/// `None` (no time) is `?`.
pub fn age(seconds: Option<i64>) -> String {
    match seconds.map(Age::of) {
        None => t!("common.age.unknown").to_owned(),
        Some(Age::Future) => t!("common.age.future").to_owned(),
        Some(Age::Seconds(n)) => t!("common.age.seconds", n = n),
        Some(Age::Minutes(n)) => t!("common.age.minutes", n = n),
        Some(Age::Hours(n)) => t!("common.age.hours", n = n),
        Some(Age::Days(n)) => t!("common.age.days", n = n),
        Some(Age::Weeks(n)) => t!("common.age.weeks", n = n),
    }
}

/// `5,231,774`: a count with its thousands marked.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// An age as prose: `3m ago`, or `in the future (2h ahead)`.
pub fn ago(seconds: i64) -> String {
    match Age::of(seconds) {
        Age::Future => t!("common.age.ahead", age = age(Some(-seconds))),
        _ => t!("common.age.ago", age = age(Some(seconds))),
    }
}

/// What the tests of every module use to read the catalogues.
#[cfg(any(test, feature = "testing"))]
pub mod testing {
    use super::{Lang, text_in};

    /// The text of `key` in `lang`; a test fails when it is missing.
    pub fn text(lang: Lang, key: &str) -> String {
        text_in(lang, key)
            .unwrap_or_else(|| panic!("no {key} in {lang}"))
            .to_owned()
    }

    pub fn zh(key: &str) -> String {
        text(Lang::ZhCn, key)
    }

    pub fn en(key: &str) -> String {
        text(Lang::En, key)
    }
}
