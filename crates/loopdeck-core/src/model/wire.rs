//! A whole [`Project`] as one JSON value and back, for the feed another
//! machine's loopdeck sends (`watch --json --model`). Lossless: what the
//! receiver rebuilds equals what the sender read.
//!
//! The value is the project's `Serialize` output (the shape `show --json`
//! knows) written in wire mode, which differs in four ways, and only while
//! [`to_value`] runs (a thread-local flag, as `i18n::scoped` scopes the
//! language), so the public JSON views do not change by a byte:
//!
//! - what the views leave out is in: `activity` (the project's and each
//!   agent's claim of work going on, `{"last": TIME, "limit": [SECS,
//!   NANOS]}`) and `acts` (the decisions offered beside the inbox);
//! - a [`Phrase`] loopdeck said carries its catalogue key and arguments,
//!   so the receiver says it in its own language: `{"en": "blocked: x",
//!   "key": "phrase.devloop.blocked_reason", "args": [["blockers", ARG]]}`,
//!   an argument being text (a string), `{"phrase": PHRASE}` or `{"age":
//!   SECONDS}`; several phrases joined are `{"joined": [PHRASE, …]}`; text
//!   quoted from a file stays a string. A key (or an argument's name) this
//!   build's English catalogue does not know reads back as the text quoted
//!   from `en`;
//! - a unit whose extras are present but all empty says so (`"more":
//!   true`), which the flat shape cannot tell;
//! - a path that is not UTF-8 is its bytes (an array of numbers), where
//!   the views would fail.
//!
//! `host` is never carried: the receiver sets it. An act whose verb this
//! build does not know is dropped (an inbox item keeps its other fields);
//! anything else that does not fit is an `Err`, never a panic.
//!
//! The shape is pinned by a snapshot (`wire/snapshots`): when that
//! snapshot changes, [`MODEL_SCHEMA`] must be bumped.

use std::cell::Cell;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Address, Arg, HostName, Phrase, Project};
use crate::i18n::{self, Entry, Lang};

/// The version of this encoding; a receiver refuses any other. Bump it
/// whenever the pinned wire snapshot changes.
pub const MODEL_SCHEMA: u32 = 1;

/// Every verb an [`Address`] may name ([`super::Verb::name`]'s words).
const VERBS: [&str; 18] = [
    "answer",
    "evidence",
    "choose",
    "new-project",
    "add-decision",
    "add-blocker",
    "resolve-blocker",
    "approve",
    "block",
    "unblock",
    "reopen",
    "reconcile",
    "unlock",
    "bug",
    "resume-agent",
    "sign-off",
    "abandon",
    "requirement",
];

thread_local! {
    /// Serializing the wire value on this thread.
    static WIRE: Cell<bool> = const { Cell::new(false) };
    /// ... without a phrase's English words (`en`), for a reader of this
    /// very build, which knows every key (the state directory's snapshot).
    static COMPACT: Cell<bool> = const { Cell::new(false) };
}

/// Wire mode on this thread until dropped (restores what was before).
struct Scope(bool);

impl Scope {
    fn enter() -> Scope {
        Scope(WIRE.replace(true))
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        WIRE.set(self.0);
    }
}

/// Is the wire value being written on this thread?
pub(crate) fn on() -> bool {
    WIRE.get()
}

/// `skip_serializing_if` of a field only the wire value carries (when set).
pub(crate) fn off_or_none<T>(v: &Option<T>) -> bool {
    !on() || v.is_none()
}

/// `skip_serializing_if` of a list only the wire value carries (when not
/// empty).
pub(crate) fn off_or_empty<T>(v: &[T]) -> bool {
    !on() || v.is_empty()
}

/// `skip_serializing_if` of [`Project::host`]: in the views when set,
/// never on the wire.
pub(crate) fn no_host(h: &Option<HostName>) -> bool {
    h.is_none() || on()
}

/// Run `f` with this thread in wire mode (phrases with their keys, the
/// fields only the wire carries), as [`to_value`] does, and a said
/// phrase without its English words (`en`), written so and read so: the
/// state directory's snapshot (`store::snapshot`) keeps its rows so, for
/// the same build only (its header says which), which knows every key.
/// Elsewhere a said phrase without `en` is an error.
pub(crate) fn in_wire_compact<T>(f: impl FnOnce() -> T) -> T {
    let _wire = Scope::enter();
    let was = COMPACT.replace(true);
    let out = f();
    COMPACT.set(was);
    out
}

/// `project` as one JSON value (`Null` if it cannot be one, which no
/// reader's project is: the receiver refuses it).
pub fn to_value(project: &Project) -> Value {
    let _wire = Scope::enter();
    serde_json::to_value(project).unwrap_or(Value::Null)
}

/// The project `value` encodes; `Err`: why it is not one.
pub fn project_from_value(value: Value) -> Result<Project, String> {
    Project::deserialize(value).map_err(|e| e.to_string())
}

/// A project's directory as [`to_value`] writes it (`project_removed`
/// names a project by it).
pub fn path_to_value(path: &Path) -> Value {
    let _wire = Scope::enter();
    ser_path(path, serde_json::value::Serializer).unwrap_or(Value::Null)
}

/// The directory `value` encodes ([`path_to_value`]'s).
pub fn path_from_value(value: Value) -> Result<PathBuf, String> {
    de_path(value).map_err(|e| e.to_string())
}

/// A path: as the views write it (text); on the wire, a path that is not
/// UTF-8 is its bytes.
pub(crate) fn ser_path<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    if on() && path.to_str().is_none() {
        return path_bytes(path).serialize(s);
    }
    path.serialize(s)
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> Vec<u8> {
    path.to_string_lossy().into_owned().into_bytes()
}

#[cfg(unix)]
fn path_of_bytes(bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn path_of_bytes(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

/// A path written by [`ser_path`].
pub(crate) fn de_path<'de, D: Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum WirePath {
        Text(String),
        Bytes(Vec<u8>),
    }
    Ok(match WirePath::deserialize(d)? {
        WirePath::Text(t) => PathBuf::from(t),
        WirePath::Bytes(b) => path_of_bytes(b),
    })
}

/// An optional duration as `[seconds, nanoseconds]` (the wire's
/// [`super::Activity::limit`]).
pub(crate) mod delta {
    use chrono::TimeDelta;
    use serde::de::{self, Deserializer};
    use serde::{Deserialize, Serialize, Serializer};

    pub(crate) fn serialize<S: Serializer>(d: &Option<TimeDelta>, s: S) -> Result<S::Ok, S::Error> {
        d.map(|d| (d.num_seconds(), d.subsec_nanos())).serialize(s)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<TimeDelta>, D::Error> {
        Option::<(i64, i32)>::deserialize(d)?
            .map(|(secs, nanos)| {
                TimeDelta::try_seconds(secs)
                    .and_then(|t| t.checked_add(&TimeDelta::nanoseconds(i64::from(nanos))))
                    .ok_or_else(|| de::Error::custom("a duration out of range"))
            })
            .transpose()
    }
}

/// An [`Address`] as written, its verb not yet checked.
#[derive(Deserialize)]
struct WireAddress {
    verb: String,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    options: Vec<String>,
}

impl WireAddress {
    /// The address, if this build knows its verb.
    fn known(self) -> Option<Address> {
        let verb = VERBS.iter().copied().find(|v| *v == self.verb)?;
        Some(Address {
            verb,
            target: self.target,
            options: self.options,
        })
    }
}

/// An address naming a verb this build does not know is an error (see
/// `de_opt_address` for where it is dropped instead).
impl<'de> Deserialize<'de> for Address {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Address, D::Error> {
        let w = WireAddress::deserialize(d)?;
        let verb = w.verb.clone();
        w.known()
            .ok_or_else(|| de::Error::custom(format!("unknown verb `{verb}`")))
    }
}

/// An item's address; `None` when its verb is unknown here.
pub(crate) fn de_opt_address<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Address>, D::Error> {
    Ok(Option::<WireAddress>::deserialize(d)?.and_then(WireAddress::known))
}

/// A project's acts, those whose verb is unknown here left out.
pub(crate) fn de_addresses<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Address>, D::Error> {
    Ok(Vec::<WireAddress>::deserialize(d)?
        .into_iter()
        .filter_map(WireAddress::known)
        .collect())
}

/// A [`Phrase`] on the wire (see the module's doc).
pub(crate) fn ser_phrase<S: Serializer>(p: &Phrase, s: S) -> Result<S::Ok, S::Error> {
    match p {
        Phrase::Quoted(text) => s.serialize_str(text),
        Phrase::Said { key, args } => {
            let mut m = s.serialize_map(None)?;
            if !COMPACT.get() {
                m.serialize_entry("en", &p.en())?;
            }
            m.serialize_entry("key", key)?;
            if !args.is_empty() {
                m.serialize_entry("args", &Args(args))?;
            }
            m.end()
        }
        Phrase::Joined(parts) => {
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry("joined", parts)?;
            m.end()
        }
    }
}

/// A phrase's arguments: `[name, value]` pairs, in order.
struct Args<'a>(&'a [(&'static str, Arg)]);

impl Serialize for Args<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for (name, arg) in self.0 {
            seq.serialize_element(&(name, WireArgOut(arg)))?;
        }
        seq.end()
    }
}

struct WireArgOut<'a>(&'a Arg);

impl Serialize for WireArgOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Arg::Text(text) => s.serialize_str(text),
            Arg::Phrase(p) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("phrase", p)?;
                m.end()
            }
            Arg::Age(seconds) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("age", seconds)?;
                m.end()
            }
        }
    }
}

/// A phrase as read: a string is text quoted from a file (which is also
/// what the JSON views write); a map with `key` is said (its `en`, absent
/// only in the snapshot's compact form, and its `args`); a map with
/// `joined`, several phrases. Read by hand, not as an untagged enum: the
/// state directory's snapshot reads ten thousand of them before the
/// console's first frame, and an untagged enum buffers each one first.
enum WirePhrase {
    Quoted(String),
    Said {
        en: String,
        key: String,
        args: Vec<(String, WireArg)>,
    },
    Joined {
        joined: Vec<Phrase>,
    },
}

impl<'de> Deserialize<'de> for WirePhrase {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<WirePhrase, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = WirePhrase;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a phrase: a string, or a map with `key` or `joined`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<WirePhrase, E> {
                Ok(WirePhrase::Quoted(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<WirePhrase, E> {
                Ok(WirePhrase::Quoted(v))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<WirePhrase, A::Error> {
                let (mut en, mut key, mut args, mut joined) = (None, None, None, None);
                while let Some(field) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*field {
                        "en" => en = Some(map.next_value::<String>()?),
                        "key" => key = Some(map.next_value::<String>()?),
                        "args" => args = Some(map.next_value::<Vec<(String, WireArg)>>()?),
                        "joined" => joined = Some(map.next_value::<Vec<Phrase>>()?),
                        _ => {
                            map.next_value::<de::IgnoredAny>()?;
                        }
                    }
                }
                match (key, joined) {
                    // Without its words only in the snapshot's compact
                    // form (read under `in_wire_compact`).
                    (Some(_), _) if en.is_none() && !COMPACT.get() => {
                        Err(de::Error::missing_field("en"))
                    }
                    (Some(key), _) => Ok(WirePhrase::Said {
                        en: en.unwrap_or_default(),
                        key,
                        args: args.unwrap_or_default(),
                    }),
                    (None, Some(joined)) => Ok(WirePhrase::Joined { joined }),
                    (None, None) => Err(de::Error::custom(
                        "a phrase's map has neither `key` nor `joined`",
                    )),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// A phrase's argument as read: text (a string), `{"phrase": PHRASE}` or
/// `{"age": SECONDS}` (read by hand, as [`WirePhrase`]).
enum WireArg {
    Text(String),
    Tagged(TaggedArg),
}

enum TaggedArg {
    Phrase(Phrase),
    Age(i64),
}

impl<'de> Deserialize<'de> for WireArg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<WireArg, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = WireArg;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an argument: a string, `{\"phrase\": …}` or `{\"age\": SECONDS}`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<WireArg, E> {
                Ok(WireArg::Text(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<WireArg, E> {
                Ok(WireArg::Text(v))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<WireArg, A::Error> {
                let Some(tag) = map.next_key::<std::borrow::Cow<'de, str>>()? else {
                    return Err(de::Error::custom("an argument's map is empty"));
                };
                let arg = match &*tag {
                    "phrase" => TaggedArg::Phrase(map.next_value::<Phrase>()?),
                    "age" => TaggedArg::Age(map.next_value::<i64>()?),
                    other => {
                        return Err(de::Error::unknown_variant(other, &["phrase", "age"]));
                    }
                };
                if map.next_key::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::custom("an argument's map has more than one key"));
                }
                Ok(WireArg::Tagged(arg))
            }
        }
        d.deserialize_any(V)
    }
}

impl From<WireArg> for Arg {
    fn from(a: WireArg) -> Arg {
        match a {
            WireArg::Text(text) => Arg::Text(text),
            WireArg::Tagged(TaggedArg::Phrase(p)) => Arg::Phrase(p),
            WireArg::Tagged(TaggedArg::Age(seconds)) => Arg::Age(seconds),
        }
    }
}

/// Every key of the English catalogue, as the catalogue holds it.
static KEYS: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| i18n::catalog(Lang::En).keys().collect());

/// Every placeholder name of the English catalogue (and `n`, which
/// chooses a plural form), as the catalogue holds it.
static NAMES: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    let catalog = i18n::catalog(Lang::En);
    let mut names: HashSet<&'static str> = HashSet::from(["n"]);
    for key in catalog.keys() {
        for t in catalog.get(key).map(Entry::texts).unwrap_or_default() {
            names.extend(i18n::placeholders(t));
        }
    }
    names
});

impl From<WirePhrase> for Phrase {
    fn from(w: WirePhrase) -> Phrase {
        match w {
            WirePhrase::Quoted(text) => Phrase::Quoted(text),
            WirePhrase::Joined { joined } => Phrase::Joined(joined),
            WirePhrase::Said { en, key, args } => {
                let said = || -> Option<Phrase> {
                    let key = KEYS.get(key.as_str()).copied()?;
                    let args = args
                        .into_iter()
                        .map(|(name, a)| Some((NAMES.get(name.as_str()).copied()?, a.into())))
                        .collect::<Option<Vec<_>>>()?;
                    Some(Phrase::Said { key, args })
                };
                said().unwrap_or(Phrase::Quoted(en))
            }
        }
    }
}

/// A phrase from the wire value, or text as the JSON views write it
/// (quoted).
impl<'de> Deserialize<'de> for Phrase {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Phrase, D::Error> {
        WirePhrase::deserialize(d).map(Phrase::from)
    }
}

#[cfg(test)]
mod tests;
