//! Reading the JSON agents write, tolerantly. Shared by every format:
//! scalars that may be strings or numbers, `null` for "none", and a
//! tolerant path that drops only the fields of the wrong type (reporting
//! each) so one bad field never hides the rest of a file.

use std::borrow::Cow;

use serde::de::{DeserializeOwned, IgnoredAny, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// A string or a number (`"4.5"` and `4.5` both occur in the wild).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub(crate) enum Scalar {
    Str(String),
    Num(serde_json::Number),
}

impl Scalar {
    pub(crate) fn text(&self) -> String {
        match self {
            Scalar::Str(s) => s.clone(),
            Scalar::Num(n) => n.to_string(),
        }
    }
}

/// Text written as a string, a number or a boolean (`"7"` and `7` are the
/// same id).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Text(pub String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Str(String),
            Num(serde_json::Number),
            Bool(bool),
        }
        Ok(Text(match Raw::deserialize(d)? {
            Raw::Str(s) => s,
            Raw::Num(n) => n.to_string(),
            Raw::Bool(b) => b.to_string(),
        }))
    }
}

impl Text {
    #[cfg(test)]
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

/// A JSON string borrowed from the bytes parsed when it has no escapes
/// (owned when it has): what `String` accepts, without an allocation per
/// string. serde's own `Cow<str>` borrows only as a bare field, never in
/// an `Option` or a `Vec`; this does in both (with `#[serde(borrow)]`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Str<'a>(pub Cow<'a, str>);

impl std::ops::Deref for Str<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(v)))
            }
            // As `String` takes them (no JSON parse gives bytes for a string).
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Str<'de>, E> {
                match std::str::from_utf8(v) {
                    Ok(s) => Ok(Str(Cow::Owned(s.to_owned()))),
                    Err(_) => Err(E::invalid_value(serde::de::Unexpected::Bytes(v), &self)),
                }
            }
            fn visit_borrowed_bytes<E: serde::de::Error>(
                self,
                v: &'de [u8],
            ) -> Result<Str<'de>, E> {
                match std::str::from_utf8(v) {
                    Ok(s) => Ok(Str(Cow::Borrowed(s))),
                    Err(_) => Err(E::invalid_value(serde::de::Unexpected::Bytes(v), &self)),
                }
            }
        }
        d.deserialize_string(V)
    }
}

/// For `#[serde(deserialize_with)]`: `null` reads as the empty value
/// (agents write `"depends_on": null` for "none").
pub(crate) fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Option::<T>::deserialize(d).map(Option::unwrap_or_default)
}

/// "a string", "an array"... for messages.
pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A user-facing reason for a JSON parse failure. Valid JSON beyond the
/// parser's limits (nested too deep, a number past a 64-bit float) says
/// so, in the same words wherever it is met: a reader and a decision.
pub(crate) fn reason(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    match limit(e) {
        Some(Limit::Nesting) => {
            return format!(
                "nested too deep (line {}, column {}): more than {} levels of arrays and \
                 objects, which loopdeck does not read",
                e.line(),
                e.column(),
                MAX_NESTING - 1
            );
        }
        Some(Limit::Number) => {
            return format!(
                "number out of range (line {}, column {}): larger than a 64-bit float \
                 holds (about 1.8e308), which loopdeck does not read",
                e.line(),
                e.column()
            );
        }
        None => {}
    }
    let what = match e.classify() {
        Category::Eof => "truncated JSON",
        Category::Syntax => "not valid JSON",
        Category::Data => "unexpected JSON shape",
        Category::Io => "read error",
    };
    format!("{what} (line {}, column {}): {e}", e.line(), e.column())
}

/// serde_json's nesting limit: a document nested this deep (the outermost
/// array or object is level 1) is refused by every parse of a `Value`.
pub(crate) const MAX_NESTING: usize = 128;

/// A limit of the parser that valid JSON can exceed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Limit {
    /// Nested [`MAX_NESTING`] levels deep or more.
    Nesting,
    /// A number beyond a 64-bit float (`1e999999`).
    Number,
}

/// Which limit `e` met, if it is one of them (serde_json gives no code
/// for them: its message is the only sign).
pub(crate) fn limit(e: &serde_json::Error) -> Option<Limit> {
    let text = e.to_string();
    if text.starts_with("recursion limit exceeded") {
        Some(Limit::Nesting)
    } else if text.starts_with("number out of range") {
        Some(Limit::Number)
    } else {
        None
    }
}

/// One parser limit for every reader and every decision. A decision edits
/// a file as a `Value`, which refuses JSON nested too deep and numbers
/// past a 64-bit float; a typed reading skips fields it does not know
/// without looking that deep, so it would show (and offer) what the
/// decision then calls corrupt. Every typed reading checks this first:
/// one linear pass, and only a document that comes near a limit is parsed
/// as a `Value` (whose error, if any, is returned: the same one a decision
/// meets). `bytes` without a byte-order mark.
pub(crate) fn within_limits(bytes: &[u8]) -> Result<(), serde_json::Error> {
    if !near_limits(bytes) {
        return Ok(());
    }
    serde_json::from_slice::<Value>(bytes).map(|_| ())
}

/// `serde_json::from_slice` within [`within_limits`]: for a record parsed
/// typed (an NDJSON line) that a decision may later parse as a `Value`,
/// so that both skip or both read it.
pub(crate) fn from_slice<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, serde_json::Error> {
    within_limits(bytes)?;
    serde_json::from_slice(bytes)
}

/// Does `bytes` nest nearly [`MAX_NESTING`] deep, or hold a number near a
/// 64-bit float's end? Generous on purpose: [`within_limits`] lets the
/// parser itself decide.
fn near_limits(bytes: &[u8]) -> bool {
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                i += 1;
                loop {
                    i = plain_run(bytes, i);
                    match bytes.get(i) {
                        Some(b'\\') => i += 2,
                        Some(b'"') | None => break,
                        Some(_) => i += 1,
                    }
                }
                i += 1;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth + 8 >= MAX_NESTING {
                    return true;
                }
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while bytes
                    .get(i)
                    .is_some_and(|c| matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                {
                    i += 1;
                }
                let token = &bytes[start..i];
                // Without an exponent, only 300 digits or more come near.
                if (token.len() > 300 || token.iter().any(|c| matches!(c, b'e' | b'E')))
                    && std::str::from_utf8(token)
                        .ok()
                        .and_then(|t| t.parse::<f64>().ok())
                        .is_some_and(|v| v.abs() >= 1e307)
                {
                    return true;
                }
            }
            _ => i += 1,
        }
    }
    false
}

/// The end of the run of bytes from `i` on that holds no `"` and no `\\`,
/// give or take the last 7 bytes (found 8 at a time: most of a document's
/// bytes are in its strings).
fn plain_run(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Non-zero exactly when some byte of `w` is `b`.
    let has = |w: u64, b: u8| {
        let x = w ^ (ONES * u64::from(b));
        x.wrapping_sub(ONES) & !x & HIGH
    };
    while let Some(word) = bytes.get(i..i + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let w = u64::from_le_bytes(w);
        if has(w, b'"') | has(w, b'\\') != 0 {
            break;
        }
        i += 8;
    }
    i
}

/// The UTF-8 byte-order mark some Windows editors put at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a leading UTF-8 byte-order mark. JSON forbids one, but
/// editors write it; like `STATE.md`, a JSON file is read past it.
pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// Project files are JSON objects. serde would accept a struct written as
/// an array, so anything else is refused first, with a reason.
pub(crate) fn must_be_object(bytes: &[u8]) -> Result<(), String> {
    let bytes = strip_bom(bytes);
    within_limits(bytes).map_err(|e| reason(&e))?;
    must_be_object_within_limits(bytes)
}

/// [`must_be_object`] of bytes (past a byte-order mark) already found
/// [`within_limits`]: they are not scanned again.
pub(crate) fn must_be_object_within_limits(bytes: &[u8]) -> Result<(), String> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first.is_some_and(|b| *b != b'{') {
        return Err(match serde_json::from_slice::<IgnoredAny>(bytes) {
            Ok(_) => "expected a JSON object".to_owned(),
            Err(e) => reason(&e),
        });
    }
    Ok(())
}

/// Parse bytes that must hold a JSON object into `T`, strictly.
pub(crate) fn object<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let bytes = strip_bom(bytes);
    must_be_object(bytes)?;
    serde_json::from_slice(bytes).map_err(|e| reason(&e))
}

/// Parse a JSON object file into `T`: one typed pass, and when a field has
/// the wrong type, the tolerant path. Returns the value and the fields it
/// had to drop, or why the file cannot be used at all (not JSON, not an
/// object).
pub(crate) fn parse_file<T: DeserializeOwned + Default>(
    bytes: &[u8],
) -> Result<(T, Vec<String>), String> {
    let bytes = strip_bom(bytes);
    match object::<T>(bytes) {
        Ok(t) => Ok((t, Vec::new())),
        Err(why) => {
            // Only a shape problem has a tolerant reading; bad syntax has none.
            let value: Value = serde_json::from_slice(bytes).map_err(|_| why.clone())?;
            if !value.is_object() {
                return Err(why);
            }
            let mut problems = Vec::new();
            let t = tolerant(value, "", &mut problems).unwrap_or_default();
            Ok((t, problems))
        }
    }
}

/// Read `value` (an object) as `T` (whose fields all have defaults),
/// dropping the fields that do not fit; `what` prefixes the problems
/// (`units[2]: `). `None` when `value` is not an object.
pub(crate) fn tolerant<T: DeserializeOwned + Default>(
    value: Value,
    what: &str,
    problems: &mut Vec<String>,
) -> Option<T> {
    if let Ok(t) = T::deserialize(&value) {
        return Some(t);
    }
    let Value::Object(map) = value else {
        problems.push(format!(
            "{what}ignored: expected an object, found {}",
            kind_of(&value)
        ));
        return None;
    };
    let mut kept = Map::new();
    for (key, v) in map {
        let mut single = Map::new();
        single.insert(key.clone(), v);
        let single = Value::Object(single);
        match T::deserialize(&single) {
            Ok(_) => {
                if let Value::Object(mut m) = single {
                    kept.append(&mut m);
                }
            }
            Err(e) => problems.push(format!("{what}field `{key}` ignored: {e}")),
        }
    }
    T::deserialize(&Value::Object(kept)).ok()
}

/// Each element of `items` as `T`; a bad element keeps what it can.
pub(crate) fn each<T: DeserializeOwned + Default>(
    items: Vec<Value>,
    what: &str,
    problems: &mut Vec<String>,
) -> Vec<T> {
    items
        .into_iter()
        .enumerate()
        .filter_map(|(i, v)| tolerant(v, &format!("{what}[{i}]: "), problems))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(default)]
    struct Node {
        id: Option<Text>,
        title: Option<String>,
        #[serde(deserialize_with = "nullable")]
        depends_on: Vec<Text>,
    }

    #[test]
    fn bad_fields_are_dropped_one_by_one() {
        let (n, problems): (Node, _) =
            parse_file(br#"{"id": 7, "title": ["x"], "depends_on": null}"#).unwrap();
        assert_eq!(
            n,
            Node {
                id: Some(Text("7".into())),
                title: None,
                depends_on: vec![]
            }
        );
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].starts_with("field `title` ignored"),
            "{problems:?}"
        );
    }

    fn nested(levels: usize) -> String {
        format!(
            "{{\"deep\": {}{}}}",
            "[".repeat(levels - 1),
            "]".repeat(levels - 1)
        )
    }

    /// The typed reading refuses exactly what a `Value` (a decision's
    /// edit) refuses, with the same words; right below the limits both
    /// read.
    #[test]
    fn readers_and_edits_share_one_limit_and_its_words() {
        let value = |s: &str| {
            serde_json::from_str::<Value>(s)
                .map(|_| ())
                .map_err(|e| reason(&e))
        };
        for (ok, text) in [
            (true, nested(MAX_NESTING - 1)),
            (false, nested(MAX_NESTING)),
            (false, nested(200)),
            (true, r#"{"n": 1.7e308, "s": "[[[[ 1e999999"}"#.to_owned()),
            (false, r#"{"n": 1e999999}"#.to_owned()),
            (false, r#"{"n": -1e309}"#.to_owned()),
            (false, format!(r#"{{"n": 1{}}}"#, "0".repeat(400))),
            (true, r#"{"n": 1e-999999}"#.to_owned()),
        ] {
            // The typed reading alone (unknown fields skipped) reads all.
            assert!(object::<Node>(text.as_bytes()).is_ok() || !ok);
            assert_eq!(value(&text).is_ok(), ok, "{text:.60}");
            assert_eq!(
                must_be_object(text.as_bytes()),
                value(&text),
                "the same verdict and words: {text:.60}"
            );
            assert_eq!(
                parse_file::<Node>(text.as_bytes()).map(|_| ()),
                value(&text)
            );
        }
        // A record parsed typed, one line of a log: the same verdict.
        let line = nested(200);
        assert!(serde_json::from_str::<Node>(&line).is_ok());
        assert_eq!(
            from_slice::<Node>(line.as_bytes())
                .map_err(|e| reason(&e))
                .map(|_| ()),
            value(&line)
        );
        let deep = must_be_object(nested(200).as_bytes()).unwrap_err();
        assert!(
            deep.starts_with("nested too deep (line 1, column "),
            "{deep}"
        );
        assert!(deep.contains("more than 127 levels"), "{deep}");
        let big = must_be_object(br#"{"n": 1e999999}"#).unwrap_err();
        assert!(
            big.starts_with("number out of range (line 1, column "),
            "{big}"
        );
    }

    /// The scan's strings, 8 bytes at a time, end where a byte at a time
    /// they did: escapes at every offset, brackets inside and after them.
    #[test]
    fn strings_are_skipped_as_byte_by_byte() {
        fn bytewise(bytes: &[u8]) -> bool {
            let mut depth = 0usize;
            let mut i = 0;
            while let Some(&b) = bytes.get(i) {
                match b {
                    b'"' => {
                        i += 1;
                        while let Some(&c) = bytes.get(i) {
                            match c {
                                b'\\' => i += 2,
                                b'"' => break,
                                _ => i += 1,
                            }
                        }
                        i += 1;
                    }
                    b'[' | b'{' => {
                        depth += 1;
                        if depth + 8 >= MAX_NESTING {
                            return true;
                        }
                        i += 1;
                    }
                    b']' | b'}' => {
                        depth = depth.saturating_sub(1);
                        i += 1;
                    }
                    _ => i += 1,
                }
            }
            false
        }
        let deep = "[".repeat(130);
        let mut seen = [0usize; 2];
        for pad in 0..20 {
            let p = "é".repeat(pad / 2) + &"x".repeat(pad % 2);
            for text in [
                format!(r#"{{"s": "{p}\"{deep}"}}"#),
                format!(r#"{{"s": "{p}\\", "d": {deep}"#),
                format!(r#"{{"s": "{p}\\\"{deep}", "t": "{p}"}}"#),
                format!(r#"{{"s": "{p}"}} {deep}"#),
                format!(r#"{{"s": "{p}\"#),
                format!(r#"{{"s": "{p}{deep}"#),
                format!(r#"["{p}", "{p}\u005c", {deep}"#),
            ] {
                let near = near_limits(text.as_bytes());
                assert_eq!(near, bytewise(text.as_bytes()), "{text}");
                seen[usize::from(near)] += 1;
            }
        }
        assert!(seen[0] > 0 && seen[1] > 0, "{seen:?}");
    }

    #[test]
    fn a_byte_order_mark_is_read_past() {
        let with_bom = b"\xEF\xBB\xBF{\"id\": 7}";
        assert_eq!(object::<Node>(with_bom).unwrap().id, Some(Text("7".into())));
        let (n, problems): (Node, _) = parse_file(with_bom).unwrap();
        assert_eq!(n.id, Some(Text("7".into())));
        assert!(problems.is_empty());
        assert!(must_be_object(with_bom).is_ok());
        // Only a leading mark: one inside the text is still an error.
        assert!(object::<Node>(b"{\"id\": 7}\xEF\xBB\xBF").is_err());
    }

    #[test]
    fn only_objects_are_files() {
        assert_eq!(
            object::<Node>(b"[1, 2]").unwrap_err(),
            "expected a JSON object"
        );
        assert!(
            parse_file::<Node>(br#"{"id": "#)
                .unwrap_err()
                .starts_with("truncated JSON")
        );
        let nodes: Vec<Node> = each(
            serde_json::from_str(r#"[{"id": 1}, 5, {"id": "b", "title": 2}]"#).unwrap(),
            "q",
            &mut Vec::new(),
        );
        assert_eq!(
            nodes.len(),
            2,
            "a node that is not an object is dropped; one with a bad field is kept"
        );
    }
}
