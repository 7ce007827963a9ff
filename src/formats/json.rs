//! Reading the JSON agents write, tolerantly. Shared by every format:
//! scalars that may be strings or numbers, `null` for "none", and a
//! tolerant path that drops only the fields of the wrong type (reporting
//! each) so one bad field never hides the rest of a file.

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// A string or a number (`"4.5"` and `4.5` both occur in the wild).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    Str(String),
    Num(serde_json::Number),
}

impl Scalar {
    pub fn text(&self) -> String {
        match self {
            Scalar::Str(s) => s.clone(),
            Scalar::Num(n) => n.to_string(),
        }
    }
}

/// Text written as a string, a number or a boolean (`"7"` and `7` are the
/// same id).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text(pub String);

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
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// For `#[serde(deserialize_with)]`: `null` reads as the empty value
/// (agents write `"depends_on": null` for "none").
pub fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Option::<T>::deserialize(d).map(Option::unwrap_or_default)
}

/// "a string", "an array"... for messages.
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A user-facing reason for a JSON parse failure.
pub fn reason(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let what = match e.classify() {
        Category::Eof => "truncated JSON",
        Category::Syntax => "not valid JSON",
        Category::Data => "unexpected JSON shape",
        Category::Io => "read error",
    };
    format!("{what} (line {}, column {}): {e}", e.line(), e.column())
}

/// The UTF-8 byte-order mark some Windows editors put at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a leading UTF-8 byte-order mark. JSON forbids one, but
/// editors write it; like `STATE.md`, a JSON file is read past it.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// Project files are JSON objects. serde would accept a struct written as
/// an array, so anything else is refused first, with a reason.
pub fn must_be_object(bytes: &[u8]) -> Result<(), String> {
    let bytes = strip_bom(bytes);
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
pub fn object<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let bytes = strip_bom(bytes);
    must_be_object(bytes)?;
    serde_json::from_slice(bytes).map_err(|e| reason(&e))
}

/// Parse a JSON object file into `T`: one typed pass, and when a field has
/// the wrong type, the tolerant path. Returns the value and the fields it
/// had to drop, or why the file cannot be used at all (not JSON, not an
/// object).
pub fn parse_file<T: DeserializeOwned + Default>(bytes: &[u8]) -> Result<(T, Vec<String>), String> {
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
pub fn tolerant<T: DeserializeOwned + Default>(
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
pub fn each<T: DeserializeOwned + Default>(
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
