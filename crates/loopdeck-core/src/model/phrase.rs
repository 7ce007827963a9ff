//! What loopdeck says about a project in its own words (issue 20 §7): an
//! inbox item's title, why no decision can be made, a resume card's lines,
//! a blocker. A reader records each one as a [`Phrase`]: a catalogue key of
//! the `phrase` area and its arguments, never a finished English sentence.
//!
//! The view says it in the language spoken ([`Phrase::shown`]); the JSON,
//! `loopdeck status` and everything a script reads say it in English
//! ([`Phrase::en`], which is also what `Serialize` writes outside
//! [`super::wire`]'s value), from the same
//! catalogue entry, so the two never drift. What a project's files hold
//! (a question, a reason an agent wrote, an id, a status word) is an
//! argument, and is never translated.
//!
//! ```
//! # use loopdeck_core::{model::Phrase, phrase};
//! # use loopdeck_i18n::{self as i18n, Lang};
//! let p = phrase!("phrase.gsd.stopped_at", at = "Phase 2 context gathered");
//! assert_eq!(p.en(), "stopped at: Phase 2 context gathered");
//! let _zh = i18n::scoped(Lang::ZhCn);
//! assert_eq!(p.shown(), "上次停在：Phase 2 context gathered");
//! ```

use std::borrow::Cow;
use std::fmt::Display;

use serde::{Serialize, Serializer};

use crate::i18n::{self, Lang};

/// Words about a project: quoted from its files, or loopdeck's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phrase {
    /// Text as a file holds it (a question, an agent's reason), or text
    /// that is the same in every language (a command): shown as it is.
    Quoted(String),
    /// loopdeck's own words: the key of a catalogue entry
    /// (`phrase.devloop.over_budget`) and the values of its placeholders.
    Said {
        /// The catalogue entry's key.
        key: &'static str,
        /// Each placeholder's name and value.
        args: Vec<(&'static str, Arg)>,
    },
    /// Several, one after another, joined the language's way (`; `, `；`).
    Joined(Vec<Phrase>),
}

/// The value of a placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// Text from a file, an id, a number: the same in every language
    /// (empty: an optional part left out).
    Text(String),
    /// loopdeck's own words inside the sentence, said in its language.
    Phrase(Phrase),
    /// An age in seconds, in the language's units (`3h`, `3小时`).
    Age(i64),
}

impl Phrase {
    /// Text as a file holds it.
    pub fn quoted(text: impl Into<String>) -> Phrase {
        Phrase::Quoted(text.into())
    }

    /// The entry `key` with `args` (see [`phrase!`](crate::phrase)).
    pub fn said(key: &'static str, args: Vec<(&'static str, Arg)>) -> Phrase {
        Phrase::Said { key, args }
    }

    /// `parts` one after another (`a; b`).
    pub fn joined(parts: Vec<Phrase>) -> Phrase {
        Phrase::Joined(parts)
    }

    /// In English: what the JSON says, byte for byte as before.
    pub fn en(&self) -> Cow<'_, str> {
        self.in_lang(Lang::En)
    }

    /// In the language spoken: what the console and the plain output show
    /// (unsanitized: a view sanitizes it as any text from a file).
    pub fn shown(&self) -> Cow<'_, str> {
        self.in_lang(i18n::current())
    }

    /// In `lang`.
    pub fn in_lang(&self, lang: Lang) -> Cow<'_, str> {
        match self {
            Phrase::Quoted(text) => Cow::Borrowed(text),
            Phrase::Said { key, args } => {
                let values: Vec<(&str, String)> =
                    args.iter().map(|(n, a)| (*n, a.in_lang(lang))).collect();
                let refs: Vec<(&str, &dyn Display)> = values
                    .iter()
                    .map(|(n, v)| (*n, v as &dyn Display))
                    .collect();
                Cow::Owned(i18n::format_in(lang, key, &refs))
            }
            Phrase::Joined(parts) => {
                let sep = {
                    let _in = i18n::scoped(lang);
                    crate::t!("phrase.list_separator")
                };
                let parts: Vec<Cow<'_, str>> = parts.iter().map(|p| p.in_lang(lang)).collect();
                Cow::Owned(parts.join(sep))
            }
        }
    }

    /// The catalogue key, when loopdeck said it.
    pub fn key(&self) -> Option<&'static str> {
        match self {
            Phrase::Quoted(_) | Phrase::Joined(_) => None,
            Phrase::Said { key, .. } => Some(key),
        }
    }

    /// Replace the argument `name` (a reader that learns the end of a
    /// sentence later, as a DWP desync learns whether reconcile is
    /// refused).
    pub fn set(&mut self, name: &str, value: impl Into<Arg>) {
        if let Phrase::Said { args, .. } = self
            && let Some((_, a)) = args.iter_mut().find(|(n, _)| *n == name)
        {
            *a = value.into();
        }
    }

    /// Every text from a file it holds, for tests that make each one
    /// hostile (`model::every_string`).
    pub fn each_text_mut(&mut self, f: &mut dyn FnMut(&mut String)) {
        match self {
            Phrase::Quoted(text) => f(text),
            Phrase::Said { args, .. } => {
                for (_, a) in args {
                    match a {
                        Arg::Text(text) => f(text),
                        Arg::Phrase(p) => p.each_text_mut(f),
                        Arg::Age(_) => {}
                    }
                }
            }
            Phrase::Joined(parts) => parts.iter_mut().for_each(|p| p.each_text_mut(f)),
        }
    }
}

impl Arg {
    fn in_lang(&self, lang: Lang) -> String {
        match self {
            Arg::Text(text) => text.clone(),
            Arg::Phrase(p) => p.in_lang(lang).into_owned(),
            Arg::Age(seconds) => {
                let _in = i18n::scoped(lang);
                i18n::age(Some(*seconds))
            }
        }
    }
}

/// The JSON writes the English words (`"title": "over token budget: …"`);
/// the wire value ([`super::wire`]) the key and the arguments.
impl Serialize for Phrase {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if super::wire::on() {
            return super::wire::ser_phrase(self, s);
        }
        s.serialize_str(&self.en())
    }
}

/// Its English words are `other` (what the JSON says): how a test checks
/// what a reader said.
impl PartialEq<&str> for Phrase {
    fn eq(&self, other: &&str) -> bool {
        self.en() == *other
    }
}

impl From<String> for Phrase {
    fn from(text: String) -> Phrase {
        Phrase::Quoted(text)
    }
}

impl From<&str> for Phrase {
    fn from(text: &str) -> Phrase {
        Phrase::Quoted(text.to_owned())
    }
}

impl From<String> for Arg {
    fn from(text: String) -> Arg {
        Arg::Text(text)
    }
}

impl From<&String> for Arg {
    fn from(text: &String) -> Arg {
        Arg::Text(text.clone())
    }
}

impl From<&str> for Arg {
    fn from(text: &str) -> Arg {
        Arg::Text(text.to_owned())
    }
}

impl From<Phrase> for Arg {
    fn from(p: Phrase) -> Arg {
        Arg::Phrase(p)
    }
}

impl From<&Phrase> for Arg {
    fn from(p: &Phrase) -> Arg {
        Arg::Phrase(p.clone())
    }
}

impl From<Vec<Phrase>> for Arg {
    fn from(parts: Vec<Phrase>) -> Arg {
        Arg::Phrase(Phrase::Joined(parts))
    }
}

/// An optional part of a sentence: nothing when absent.
impl From<Option<Phrase>> for Arg {
    fn from(p: Option<Phrase>) -> Arg {
        p.map_or_else(|| Arg::Text(String::new()), Arg::Phrase)
    }
}

macro_rules! number_args {
    ($($t:ty),*) => {
        $(impl From<$t> for Arg {
            fn from(n: $t) -> Arg {
                Arg::Text(n.to_string())
            }
        })*
    };
}
number_args!(u64, usize, i64, u32);

/// A [`Phrase`] loopdeck says: `phrase!("phrase.dwp.finalization")`, or
/// with arguments, `phrase!("phrase.gsd.paused", at = v)` (a value is
/// anything that is an [`Arg`]: text, a number, a phrase, a list of
/// phrases). Keys are literals, so the catalogue tests find every one.
#[macro_export]
macro_rules! phrase {
    ($key:literal) => {
        $crate::model::Phrase::said($key, ::std::vec::Vec::new())
    };
    ($key:literal, $($name:ident = $value:expr),+ $(,)?) => {
        $crate::model::Phrase::said(
            $key,
            ::std::vec![$((stringify!($name), $crate::model::Arg::from($value))),+],
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::scoped;

    #[test]
    fn english_and_chinese_come_from_one_entry() {
        let p = crate::phrase!("phrase.gsd.stopped_at", at = "Phase 6 verified");
        assert_eq!(p.en(), "stopped at: Phase 6 verified");
        assert_eq!(
            p.shown(),
            "stopped at: Phase 6 verified",
            "tests speak English"
        );
        let _zh = scoped(Lang::ZhCn);
        assert_eq!(p.shown(), "上次停在：Phase 6 verified");
        assert_eq!(
            p.en(),
            "stopped at: Phase 6 verified",
            "English whatever is spoken"
        );
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            "\"stopped at: Phase 6 verified\""
        );
    }

    #[test]
    fn quoted_text_is_the_same_in_every_language() {
        let p = Phrase::quoted("超过 3 级的审批是否允许加签？");
        let _zh = scoped(Lang::ZhCn);
        assert_eq!(p.shown(), p.en());
        assert_eq!(p.key(), None);
    }

    #[test]
    fn phrases_nest_and_lists_join_in_the_language_spoken() {
        let inner = crate::phrase!("phrase.gsd.paused", at = "x");
        let mut p = crate::phrase!(
            "phrase.devloop.blocked_reason",
            blockers = vec![inner.clone(), Phrase::quoted("b")]
        );
        assert_eq!(p.en(), "blocked: paused: x; b");
        {
            let _zh = scoped(Lang::ZhCn);
            assert_eq!(p.shown(), "受阻：已暂停：x；b");
        }
        p.set("blockers", vec![Phrase::quoted("c")]);
        assert_eq!(p.en(), "blocked: c");
        let mut texts = Vec::new();
        crate::phrase!("phrase.devloop.blocked_reason", blockers = vec![inner])
            .each_text_mut(&mut |t| texts.push(t.clone()));
        assert_eq!(texts, ["x"]);
    }

    #[test]
    fn optional_parts_and_ages_are_said_in_the_language_spoken() {
        let paused = |step: Option<&str>| {
            crate::phrase!(
                "phrase.devloop.paused",
                agent = "integrator",
                step = step.map(|s| crate::phrase!("phrase.devloop.paused_step", step = s)),
                doing = None,
            )
        };
        assert_eq!(paused(Some("3/5")).en(), "integrator paused at step 3/5");
        assert_eq!(paused(None).en(), "integrator paused");
        let lock = crate::phrase!("phrase.dwp.stale_lock", age = Arg::Age(3 * 3600));
        assert!(
            lock.en().starts_with("state.json.lock held for 3h:"),
            "{lock:?}"
        );
        let _zh = scoped(Lang::ZhCn);
        assert_eq!(paused(Some("3/5")).shown(), "integrator 在第 3/5 步暂停");
        assert_eq!(paused(None).shown(), "integrator 暂停");
        assert!(lock.shown().contains("3小时"), "{}", lock.shown());
        assert_eq!(
            lock,
            "state.json.lock held for 3h: a writer probably crashed; once no writer is active, remove it with `unlock --confirm`"
        );
    }
}
