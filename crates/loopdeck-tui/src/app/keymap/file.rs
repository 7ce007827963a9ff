//! `[keys]` as the config file writes it: `action = "key"`,
//! `action = ["k1", "k2"]`, `"view.action" = …`, `action = ""` (unbind),
//! in the order of the file, each with its line and column. Only the shape
//! is read here (the binary's config reader embeds [`Keys`] in its file);
//! the names and keys are checked by [`super::build`], which reports a
//! mistake at the entry's line.

use std::fmt;

use serde::Deserialize;

/// `[keys]`: `action = "key"`, `action = ["k1", "k2"]`, `"view.action" = …`,
/// `action = ""` (unbind), in the order of the file. Only the shape is
/// checked here; the names and keys are the console's (`app::keymap`), which
/// reports a mistake at the entry's line.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Keys(pub Vec<KeyEntry>);

/// One entry of `[keys]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyEntry {
    /// `action` or `view.action`, as written.
    pub name: String,
    /// The keys as written (none: unbound).
    pub keys: Vec<String>,
    /// 1-based line and column of the name, and of the value.
    pub at: (usize, usize),
    pub value_at: (usize, usize),
    /// Byte offsets of the name and the value (turned into `at` and
    /// `value_at` once the text is known).
    spans: (usize, usize),
}

/// `"q"` or `["q", "Q"]`.
enum KeyValue {
    One(String),
    Many(Vec<String>),
}

/// Reads the value of the entry `name` (a `list.sort` written unquoted is
/// a table `list` to TOML: say how to write it).
struct KeyValueOf<'a>(&'a str);

impl<'de> serde::de::DeserializeSeed<'de> for KeyValueOf<'_> {
    /// The value and where it starts.
    type Value = (KeyValue, usize);

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let bad = || serde::de::Error::custom(crate::t!("runtime.config.key_value"));
        let value = toml::Spanned::<toml::Value>::deserialize(d)?;
        let start = value.span().start;
        let value = value.into_inner();
        if let toml::Value::Table(table) = &value {
            // The first key path down to a value: `list.sort = "z"`.
            let mut name = self.0.to_owned();
            let mut at = table;
            while let Some((key, v)) = at.iter().next() {
                name = format!("{name}.{key}");
                match v {
                    toml::Value::Table(t) => at = t,
                    v => {
                        return Err(serde::de::Error::custom(crate::t!(
                            "runtime.config.key_dotted",
                            entry = toml::Value::String(name).to_string(),
                            value = v.to_string()
                        )));
                    }
                }
            }
            return Err(bad());
        }
        KeyValue::from_value(value)
            .map(|v| (v, start))
            .ok_or_else(bad)
    }
}

impl KeyValue {
    fn from_value(value: toml::Value) -> Option<KeyValue> {
        match value {
            toml::Value::String(s) => Some(KeyValue::One(s)),
            toml::Value::Array(a) => a
                .into_iter()
                .map(|v| match v {
                    toml::Value::String(s) => Some(s),
                    _ => None,
                })
                .collect::<Option<_>>()
                .map(KeyValue::Many),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(KeysVisitor)
    }
}

struct KeysVisitor;

impl<'de> serde::de::Visitor<'de> for KeysVisitor {
    type Value = Keys;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a table of keys")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
        let mut entries: Vec<KeyEntry> = Vec::new();
        while let Some(name) = map.next_key::<toml::Spanned<String>>()? {
            let (value, value_start) = map.next_value_seed(KeyValueOf(name.get_ref()))?;
            let spans = (name.span().start, value_start);
            let keys = match value {
                KeyValue::One(k) if k.is_empty() => Vec::new(),
                KeyValue::One(k) => vec![k],
                KeyValue::Many(ks) => ks,
            };
            entries.push(KeyEntry {
                name: name.into_inner(),
                keys,
                at: (0, 0),
                value_at: (0, 0),
                spans,
            });
        }
        entries.sort_by_key(|e| e.spans.0);
        Ok(Keys(entries))
    }
}

impl Keys {
    /// Turn the entries' byte offsets into 1-based lines and columns of
    /// `text`, the file they were read from.
    pub fn locate(&mut self, text: &str) {
        for e in &mut self.0 {
            e.at = line_column(text, e.spans.0);
            e.value_at = line_column(text, e.spans.1);
        }
    }

    /// The `[keys]` table of a config file's `text` (tests: what the
    /// config reader reads, without the rest of the file).
    #[cfg(test)]
    pub fn of(text: &str) -> Keys {
        #[derive(Deserialize)]
        struct File {
            #[serde(default)]
            keys: Keys,
        }
        #[allow(clippy::expect_used)]
        let mut keys = toml::from_str::<File>(text).expect("a [keys] table").keys;
        keys.locate(text);
        keys
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}
