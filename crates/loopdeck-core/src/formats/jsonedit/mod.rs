//! Editing a JSON file the way its writer wrote it: an order-preserving
//! `Value` (unknown fields kept), and on the way back the same indentation
//! (spaces, tabs, or one line), the same treatment of non-ASCII text
//! (`\uXXXX` escapes as Python's `json.dump` writes by default, or raw
//! UTF-8), the same final newline, byte-order mark and line endings.
//!
//! An edit is written as an edit: `to_bytes` splices the changed values
//! into the bytes as read (see `splice`), so untouched parts keep every
//! byte (big integers, `1.50`, `1e3`, escapes, duplicate keys, one-line
//! objects). Only a change the splice cannot express (keys reordered) is
//! written by re-serialising the whole document.
//!
//! Hand-written on purpose: the JSON crates (serde_json with
//! `preserve_order` included) parse to a value and print a new document,
//! which loses number spellings, escapes, duplicate keys and the writer's
//! spacing; a decision must change only its entry (ARCHITECTURE.md,
//! "The rules for every write", 4 and 7), and the formats' own tools diff and re-read these
//! files. It leans only on serde_json (for values) and `formats::json`'s
//! limits, and `fuzz/fuzz_targets/jsonedit.rs` drives it (every edit must
//! parse back to its value): ready to become a crate of its own.

mod splice;

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use serde::Serialize;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::ser::{Formatter, PrettyFormatter};
use serde_json::{Map, Value};

use splice::Top;

testing_pub!(
    /// A parsed JSON document and the style to write it back in.
    ///
    /// An object document (distinct keys) is read member by member: a member
    /// is parsed only when an edit asks for it (`get_mut`), and an array can
    /// be appended to without parsing it (`push`), so a decision on a large
    /// state holds its bytes and the parts it edits, not a tree of the whole.
    /// Anything else, or [`JsonDoc::value_mut`], holds the whole `Value`.
    #[derive(Debug, Clone)]
    pub struct JsonDoc {
        style: Style,
        /// The bytes as read (BOM included), shared with whoever read them.
        original: Arc<Vec<u8>>,
        /// The top-level members in their order, each read when needed
        /// (`None`: the document is held whole, in `whole`).
        members: Option<Vec<Member>>,
        whole: Value,
    }
);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Style {
    /// One indentation step (`None`: the document is on one line).
    indent: Option<Vec<u8>>,
    ascii_only: bool,
    final_newline: bool,
    bom: bool,
    crlf: bool,
}

#[derive(Debug, Clone)]
struct Member {
    key: String,
    /// Where its value is in the bytes read (`None`: added since).
    at: Option<Range<usize>>,
    state: Slot,
}

#[derive(Debug, Clone)]
enum Slot {
    /// Not looked into: the bytes read say it.
    Raw,
    /// Parsed for an edit: its value now.
    Parsed(Value),
    /// An array not looked into, with these entries appended.
    Appended(Vec<Value>),
}

/// The kind of a member's value, as [`JsonDoc::shape`] tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Null,
    Array,
    Object,
    Other,
}

/// A document that parsed once and not again: never written.
const UNREADABLE: &str = "a member no longer parses as it did; nothing is written";

impl JsonDoc {
    testing_pub!(
        /// Parse `bytes` (a UTF-8 BOM allowed). Errors say why in one line,
        /// in the words the readers use for the same file
        /// ([`crate::formats::json::reason`]: the same limits, the same text).
        /// The whole document is checked as `serde_json` parses a `Value`
        /// (the same errors), without building one.
        pub fn parse(bytes: &[u8]) -> Result<Self, String> {
            Self::parse_shared(Arc::new(bytes.to_vec()))
        }
    );

    /// [`Self::parse`] of bytes held elsewhere too (a transaction's
    /// snapshot): they are shared, not copied.
    pub(crate) fn parse_shared(original: Arc<Vec<u8>>) -> Result<Self, String> {
        let bytes = original.as_slice();
        let bom = bytes.starts_with(b"\xEF\xBB\xBF");
        let body = if bom { &bytes[3..] } else { bytes };
        let reason = |e: serde_json::Error| crate::formats::json::reason(&e);
        crate::formats::json::within_limits(body).map_err(reason)?;
        serde_json::from_slice::<Valid>(body).map_err(reason)?;
        let style = Style::detect(body, bom);
        let members = splice::members(bytes).filter(|m| {
            !m.is_empty()
                && m.iter()
                    .enumerate()
                    .all(|(i, (k, _))| m[..i].iter().all(|(other, _)| other != k))
        });
        let (members, whole) = match members {
            Some(members) => (
                Some(
                    members
                        .into_iter()
                        .map(|(key, at)| Member {
                            key,
                            at: Some(at),
                            state: Slot::Raw,
                        })
                        .collect(),
                ),
                Value::Null,
            ),
            None => (None, serde_json::from_slice(body).map_err(reason)?),
        };
        Ok(JsonDoc {
            style,
            original,
            members,
            whole,
        })
    }

    testing_pub!(
        /// The value of top-level member `key` (parsed for the asking when it
        /// was not; `None`: no such member, or the document is not an object).
        pub fn get(&self, key: &str) -> Option<Cow<'_, Value>> {
            match &self.members {
                None => self.whole.get(key).map(Cow::Borrowed),
                Some(ms) => {
                    let m = ms.iter().find(|m| m.key == key)?;
                    match &m.state {
                        Slot::Parsed(v) => Some(Cow::Borrowed(v)),
                        Slot::Raw => self.read_member(m).map(Cow::Owned),
                        Slot::Appended(items) => {
                            let mut v = self.read_member(m)?;
                            if let Value::Array(a) = &mut v {
                                a.extend(items.iter().cloned());
                            }
                            Some(Cow::Owned(v))
                        }
                    }
                }
            }
        }
    );

    /// Member `key`'s value, to edit (`None`: no such member).
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        let i = match &self.members {
            None => return self.whole.get_mut(key),
            Some(ms) => ms.iter().position(|m| m.key == key)?,
        };
        self.parse_member(i)
    }

    /// What kind of value member `key` is (`None`: no such member), told
    /// without parsing it.
    pub(crate) fn shape(&self, key: &str) -> Option<Shape> {
        let of = |v: &Value| match v {
            Value::Null => Shape::Null,
            Value::Array(_) => Shape::Array,
            Value::Object(_) => Shape::Object,
            _ => Shape::Other,
        };
        let Some(ms) = &self.members else {
            return self.whole.get(key).map(of);
        };
        let m = ms.iter().find(|m| m.key == key)?;
        match (&m.state, &m.at) {
            (Slot::Parsed(v), _) => Some(of(v)),
            (Slot::Appended(_), _) => Some(Shape::Array),
            (Slot::Raw, Some(r)) => Some(match self.original.get(r.start) {
                Some(b'n') => Shape::Null,
                Some(b'[') => Shape::Array,
                Some(b'{') => Shape::Object,
                _ => Shape::Other,
            }),
            (Slot::Raw, None) => None,
        }
    }

    /// Has the document a top-level member `key`?
    pub(crate) fn contains_key(&self, key: &str) -> bool {
        match &self.members {
            None => self.whole.get(key).is_some(),
            Some(ms) => ms.iter().any(|m| m.key == key),
        }
    }

    testing_pub!(
        /// Set member `key` (in its place when there, else last), as
        /// `Map::insert`; nothing when the document is not an object.
        pub fn insert(&mut self, key: &str, value: Value) {
            if let Some(ms) = &mut self.members {
                if let Some(m) = ms.iter_mut().find(|m| m.key == key) {
                    m.state = Slot::Parsed(value);
                } else {
                    ms.push(Member {
                        key: key.to_owned(),
                        at: None,
                        state: Slot::Parsed(value),
                    });
                }
            } else if let Some(map) = self.whole.as_object_mut() {
                map.insert(key.to_owned(), value);
            }
        }
    );

    /// Set member `key` in its place when there, else at `index` (or
    /// last), as `Map::shift_insert` of a new key.
    pub(crate) fn insert_at(&mut self, index: usize, key: &str, value: Value) {
        if self.contains_key(key) {
            return self.insert(key, value);
        }
        if let Some(ms) = &mut self.members {
            let member = Member {
                key: key.to_owned(),
                at: None,
                state: Slot::Parsed(value),
            };
            ms.insert(index.min(ms.len()), member);
        } else if let Some(map) = self.whole.as_object_mut() {
            map.shift_insert(index.min(map.len()), key.to_owned(), value);
        }
    }

    testing_pub!(
        /// Append `entry` to the array `key`, made a one-entry array when it is
        /// missing or not an array. An array never parsed stays unparsed.
        pub fn push(&mut self, key: &str, entry: Value) {
            if let Some(ms) = &mut self.members
                && let Some(m) = ms.iter_mut().find(|m| m.key == key)
            {
                let raw_array =
                    m.at.as_ref()
                        .is_some_and(|r| self.original.get(r.start) == Some(&b'['));
                match &mut m.state {
                    Slot::Appended(items) => return items.push(entry),
                    Slot::Raw if raw_array => {
                        m.state = Slot::Appended(vec![entry]);
                        return;
                    }
                    _ => {}
                }
            }
            match self.get_mut(key) {
                Some(Value::Array(items)) => items.push(entry),
                _ => self.insert(key, Value::Array(vec![entry])),
            }
        }
    );

    testing_pub!(
        /// The whole document as a value, to edit as one.
        pub fn value_mut(&mut self) -> &mut Value {
            if self.members.is_some() {
                self.whole = self.materialise();
                self.members = None;
            }
            &mut self.whole
        }
    );

    testing_pub!(
        /// The whole document as a value.
        pub fn into_value(mut self) -> Value {
            std::mem::take(self.value_mut())
        }
    );

    testing_pub!(
        #[cfg(any(test, feature = "testing"))]
        /// The document as read with the edits spliced in (see [`splice`]);
        /// the whole document in its original style when the splice cannot
        /// say it. `Err`: the document cannot be written (never for one that
        /// parsed, but it is not guessed at).
        pub fn to_bytes(&self) -> Result<Vec<u8>, String> {
            self.clone().into_bytes()
        }
    );

    testing_pub!(
        /// [`Self::to_bytes`], consuming the document: the edited members move
        /// into the writing rather than being copied.
        pub fn into_bytes(mut self) -> Result<Vec<u8>, String> {
            let Some(mut ms) = self.members.take() else {
                return Ok(self.whole_bytes(&self.whole));
            };
            let untouched = |m: &Member| m.at.is_some() && matches!(m.state, Slot::Raw);
            let all_read = splice::members(&self.original).map_or(0, |m| m.len());
            if ms.len() == all_read && ms.iter().all(untouched) {
                return Ok(Arc::unwrap_or_clone(self.original));
            }
            // The edited values move into the new members (and back if the
            // splice cannot say them), never copied.
            let mut n = Map::new();
            for m in &mut ms {
                let v = match &mut m.state {
                    Slot::Parsed(v) => std::mem::take(v),
                    Slot::Raw | Slot::Appended(_) => Value::Null,
                };
                n.insert(m.key.clone(), v);
            }
            let how: Vec<Top<'_>> = ms
                .iter()
                .map(|m| match &m.state {
                    Slot::Raw => Top::Kept,
                    Slot::Parsed(_) => Top::Edited,
                    Slot::Appended(items) => Top::Appended(items),
                })
                .collect();
            if let Some(out) = splice::splice_top(&self.original, &n, &how, self.style.ascii_only) {
                return Ok(out);
            }
            drop(how);
            for m in &mut ms {
                if let (Slot::Parsed(v), Some(back)) = (&mut m.state, n.get_mut(&m.key)) {
                    *v = std::mem::take(back);
                }
            }
            self.members = Some(ms);
            let whole = self.materialise();
            if matches!(whole, Value::Null) {
                return Err(UNREADABLE.to_owned());
            }
            Ok(self.whole_bytes(&whole))
        }
    );

    /// `value` written over the bytes read: spliced, else rewritten.
    fn whole_bytes(&self, value: &Value) -> Vec<u8> {
        let body = self
            .original
            .strip_prefix(b"\xEF\xBB\xBF")
            .unwrap_or(&self.original);
        let Ok(parsed) = serde_json::from_slice::<Value>(body) else {
            return self.rewrite(value);
        };
        if splice::same(value, &parsed) {
            return self.original.to_vec();
        }
        splice::splice(&self.original, &parsed, value, self.style.ascii_only)
            .unwrap_or_else(|| self.rewrite(value))
    }

    /// The whole document, edits made (`Null`: a member no longer parses).
    fn materialise(&self) -> Value {
        match &self.members {
            None => self.whole.clone(),
            Some(ms) => {
                let mut map = Map::new();
                for m in ms {
                    let Some(v) = self.get(&m.key) else {
                        return Value::Null;
                    };
                    map.insert(m.key.clone(), v.into_owned());
                }
                Value::Object(map)
            }
        }
    }

    /// Member `m` parsed from the bytes read (`None`: added since, or, never
    /// after [`Self::parse`] checked it, it does not parse).
    fn read_member(&self, m: &Member) -> Option<Value> {
        let r = m.at.clone()?;
        serde_json::from_slice(self.original.get(r)?).ok()
    }

    /// Member `i` parsed for an edit.
    fn parse_member(&mut self, i: usize) -> Option<&mut Value> {
        let m = self.members.as_ref()?.get(i)?;
        if !matches!(m.state, Slot::Parsed(_)) {
            let v = self.get(&m.key)?.into_owned();
            self.members.as_mut()?.get_mut(i)?.state = Slot::Parsed(v);
        }
        match &mut self.members.as_mut()?.get_mut(i)?.state {
            Slot::Parsed(v) => Some(v),
            _ => None,
        }
    }

    /// The whole document re-serialised in its original style.
    fn rewrite(&self, value: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        if self.style.bom {
            out.extend_from_slice(b"\xEF\xBB\xBF");
        }
        let mut body = Vec::new();
        let written = match &self.style.indent {
            Some(step) => {
                let mut ser = serde_json::Serializer::with_formatter(
                    &mut body,
                    Styled {
                        inner: PrettyFormatter::with_indent(step),
                        ascii_only: self.style.ascii_only,
                    },
                );
                value.serialize(&mut ser)
            }
            None => {
                let mut ser = serde_json::Serializer::with_formatter(
                    &mut body,
                    Styled {
                        inner: serde_json::ser::CompactFormatter,
                        ascii_only: self.style.ascii_only,
                    },
                );
                value.serialize(&mut ser)
            }
        };
        // Serialising a `Value` into a Vec cannot fail; keep the bytes
        // written so far if it ever did.
        let _ = written;
        if self.style.crlf {
            for &b in &body {
                if b == b'\n' {
                    out.extend_from_slice(b"\r\n");
                } else {
                    out.push(b);
                }
            }
        } else {
            out.extend_from_slice(&body);
        }
        if self.style.final_newline {
            out.extend_from_slice(if self.style.crlf { b"\r\n" } else { b"\n" });
        }
        out
    }
}

/// A JSON value checked the way `serde_json` parses a `Value` (the same
/// deserializer calls, so the same errors and limits) and dropped as it
/// is read: nothing is built.
struct Valid;

impl<'de> Deserialize<'de> for Valid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValidVisitor)
    }
}

struct ValidVisitor;

impl<'de> Visitor<'de> for ValidVisitor {
    type Value = Valid;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Valid, E> {
        Ok(Valid)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Valid, E> {
        Ok(Valid)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Valid, E> {
        Ok(Valid)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Valid, E> {
        Ok(Valid)
    }
    fn visit_str<E>(self, _: &str) -> Result<Valid, E> {
        Ok(Valid)
    }
    fn visit_unit<E>(self) -> Result<Valid, E> {
        Ok(Valid)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Valid, A::Error> {
        while seq.next_element::<Valid>()?.is_some() {}
        Ok(Valid)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Valid, A::Error> {
        while map.next_entry::<Valid, Valid>()?.is_some() {}
        Ok(Valid)
    }
}

impl Style {
    fn detect(body: &[u8], bom: bool) -> Self {
        let text = String::from_utf8_lossy(body);
        let trimmed_end = text.trim_end_matches([' ', '\t']);
        let final_newline = trimmed_end.ends_with('\n');
        let crlf = text.contains("\r\n");
        // The indentation of the first indented line is one step.
        let indent = text
            .trim_end()
            .contains('\n')
            .then(|| {
                text.lines().skip(1).find_map(|l| {
                    let ws: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
                    (!ws.is_empty()).then(|| ws.into_bytes())
                })
            })
            .flatten();
        let ascii_only = body.is_ascii() && text.contains("\\u");
        Style {
            indent,
            ascii_only,
            final_newline,
            bom,
            crlf,
        }
    }
}

/// A formatter that escapes non-ASCII text as `\uXXXX` when asked.
struct Styled<F> {
    inner: F,
    ascii_only: bool,
}

impl<F: Formatter> Formatter for Styled<F> {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        if !self.ascii_only || fragment.is_ascii() {
            return writer.write_all(fragment.as_bytes());
        }
        let mut buf = [0u16; 2];
        for c in fragment.chars() {
            if c.is_ascii() {
                writer.write_all(&[c as u8])?;
            } else {
                for unit in c.encode_utf16(&mut buf) {
                    write!(writer, "\\u{unit:04x}")?;
                }
            }
        }
        Ok(())
    }

    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.begin_array(w)
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.end_array(w)
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.inner.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.end_array_value(w)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.begin_object(w)
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.end_object(w)
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.inner.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.inner.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(s: &str) -> String {
        String::from_utf8(JsonDoc::parse(s.as_bytes()).unwrap().to_bytes().unwrap()).unwrap()
    }

    #[test]
    fn untouched_documents_come_back_byte_for_byte() {
        for s in [
            "{\n  \"b\": 1,\n  \"a\": [\n    \"x\"\n  ]\n}\n",
            "{\n    \"b\": 1,\n    \"a\": {}\n}",
            "{\n\t\"z\": \"ü\",\n\t\"a\": null\n}\n",
            "{\"z\":1,\"a\":[1,2]}",
            "{\n  \"q\": \"\\u4e2d\\u6587\"\n}\n",
            "{\r\n  \"a\": 1\r\n}\r\n",
        ] {
            assert_eq!(round(s), s);
        }
    }

    #[test]
    fn an_edit_keeps_order_unknown_fields_and_style() {
        let src =
            "\u{feff}{\n  \"zeta\": 1,\n  \"unknown\": {\"k\": [1, 2]},\n  \"alpha\": \"中\"\n}\n";
        let mut doc = JsonDoc::parse(src.as_bytes()).unwrap();
        let mut whole = doc.clone();
        doc.insert("alpha", Value::from("文"));
        doc.insert("new", Value::from(true));
        whole.value_mut()["alpha"] = Value::from("文");
        whole.value_mut()["new"] = Value::from(true);
        let want = "\u{feff}{\n  \"zeta\": 1,\n  \"unknown\": {\"k\": [1, 2]},\n  \"alpha\": \"文\",\n  \"new\": true\n}\n";
        assert_eq!(String::from_utf8(doc.into_bytes().unwrap()).unwrap(), want);
        assert_eq!(
            String::from_utf8(whole.into_bytes().unwrap()).unwrap(),
            want
        );
    }

    /// Member edits give the bytes the same edits on the whole value give
    /// (the splice of the whole document is the reference).
    #[test]
    fn member_edits_write_what_whole_edits_write() {
        let docs = [
            "{\n    \"a\": [\n        {\n            \"id\": 1,\n            \"s\": \"x\"\n        },\n        {\n            \"id\": 2,\n            \"s\": \"y\"\n        }\n    ],\n    \"log\": [\n        {\"t\": 1.50}\n    ],\n    \"big\": 123456789012345678901234567890,\n    \"n\": null\n}\n",
            "{\"a\": [{\"id\": 1, \"s\": \"x\"}], \"log\": [], \"big\": 1e3, \"n\": null}",
            "{\r\n\t\"a\": [],\r\n\t\"log\": [\"\\u4e2d\"],\r\n\t\"n\": {}\r\n}\r\n",
            "{\n  \"a\": [],\n  \"log\": [],\n  \"n\": null\n}\n",
        ];
        for src in docs {
            let lazy = JsonDoc::parse(src.as_bytes()).unwrap();
            let mut whole = lazy.clone();
            let mut lazy = lazy;
            // The same edits both ways.
            if let Some(Value::Array(a)) = lazy.get_mut("a") {
                a.push(serde_json::json!({"id": 3, "s": "新"}));
            }
            lazy.push("log", serde_json::json!({"t": 2, "who": "é"}));
            lazy.push("missing", Value::from(1));
            lazy.insert("n", serde_json::json!({"k": [1, 2]}));
            lazy.insert_at(0, "first", Value::from("v"));
            let v = whole.value_mut();
            v["a"]
                .as_array_mut()
                .unwrap()
                .push(serde_json::json!({"id": 3, "s": "新"}));
            v["log"]
                .as_array_mut()
                .unwrap()
                .push(serde_json::json!({"t": 2, "who": "é"}));
            let map = v.as_object_mut().unwrap();
            map.insert("missing".into(), serde_json::json!([1]));
            map.insert("n".into(), serde_json::json!({"k": [1, 2]}));
            map.shift_insert(0, "first".into(), Value::from("v"));
            let want = whole.into_bytes().unwrap();
            let got = lazy.into_bytes().unwrap();
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "{src}"
            );
            let body = got.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&got);
            let back: Value = serde_json::from_slice(body).unwrap();
            assert_eq!(back["log"].as_array().unwrap().last().unwrap()["who"], "é");
        }
    }

    #[test]
    fn an_append_keeps_every_byte_before_it_and_parses_back() {
        let src = "{\n  \"log\": [\n    {\"t\": 1.50, \"x\": \"\\/\"},\n    {\"t\": 2}\n  ],\n  \"k\": 1\n}\n";
        let mut doc = JsonDoc::parse(src.as_bytes()).unwrap();
        assert_eq!(doc.shape("log"), Some(Shape::Array));
        assert_eq!(doc.shape("k"), Some(Shape::Other));
        assert_eq!(doc.shape("none"), None);
        doc.push("log", serde_json::json!({"t": 3}));
        doc.push("log", serde_json::json!({"t": 4}));
        assert_eq!(doc.get("log").unwrap().as_array().unwrap().len(), 4);
        let mut whole = JsonDoc::parse(src.as_bytes()).unwrap();
        let log = whole.value_mut()["log"].as_array_mut().unwrap();
        log.push(serde_json::json!({"t": 3}));
        log.push(serde_json::json!({"t": 4}));
        let out = String::from_utf8(doc.into_bytes().unwrap()).unwrap();
        assert_eq!(out, String::from_utf8(whole.into_bytes().unwrap()).unwrap());
        // Every byte up to the last old entry stays; the new ones follow it.
        let kept = "{\n  \"log\": [\n    {\"t\": 1.50, \"x\": \"\\/\"},\n    {\"t\": 2},\n";
        assert!(out.starts_with(kept), "{out}");
        assert!(out.ends_with("\n  ],\n  \"k\": 1\n}\n"), "{out}");
    }

    #[test]
    fn parse_refuses_what_a_value_parse_refuses() {
        for bad in [
            "{\"a\": \"\\ud800\"}",
            "{\"a\": 1e999999}",
            "{\"a\": [1, 2,]}",
            "{\"a\": 1} x",
        ] {
            let value = serde_json::from_str::<Value>(bad).is_err();
            assert!(value, "{bad}: serde_json refuses it too");
            assert!(JsonDoc::parse(bad.as_bytes()).is_err(), "{bad}");
        }
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(200), "]".repeat(200));
        assert!(
            JsonDoc::parse(deep.as_bytes()).is_err(),
            "nested past the limit"
        );
    }
}
