//! Writing a decision into `state.json` by splicing: only the values that
//! changed are replaced (and new keys inserted in the style of their
//! neighbours), so every other byte stays as the writer wrote it: inline
//! `{ "kind": ..., "value": ... }` objects, key spacing, final newline.
//! When a change is beyond what this does (a key removed or reordered), or
//! the result does not parse back to exactly the new value, the caller
//! falls back to `JsonDoc`'s whole-document writer.

use serde::Serialize;
use serde_json::Value;
use serde_json::ser::PrettyFormatter;

/// One value in the original bytes.
struct Node {
    start: usize,
    end: usize,
    kind: Kind,
}

enum Kind {
    Scalar,
    /// (key, byte where the key's quote starts, value)
    Object(Vec<(String, usize, Node)>),
    Array(Vec<Node>),
}

/// `bytes` (the file as read, `old` its parse) rewritten so that it parses
/// as `new`, touching only what changed. `None`: not done this way.
pub fn splice(bytes: &[u8], old: &Value, new: &Value) -> Option<Vec<u8>> {
    let mut p = Parser { b: bytes, i: 0 };
    p.ws();
    let root = p.value()?;
    let unit = indent_unit(bytes);
    let mut edits: Vec<(usize, usize, Vec<u8>)> = Vec::new();
    diff(bytes, &root, old, new, &unit, &mut edits)?;
    edits.sort_by_key(|e| e.0);
    let mut out = Vec::with_capacity(bytes.len() + 256);
    let mut at = 0;
    for (s, e, text) in edits {
        if s < at {
            return None;
        }
        out.extend_from_slice(&bytes[at..s]);
        out.extend_from_slice(&text);
        at = e;
    }
    out.extend_from_slice(&bytes[at..]);
    let body = out.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&out);
    let back: Value = serde_json::from_slice(body).ok()?;
    (back == *new).then_some(out)
}

fn diff(
    b: &[u8],
    node: &Node,
    old: &Value,
    new: &Value,
    unit: &str,
    edits: &mut Vec<(usize, usize, Vec<u8>)>,
) -> Option<()> {
    if old == new {
        return Some(());
    }
    match (&node.kind, old, new) {
        (Kind::Object(members), Value::Object(o), Value::Object(n)) => {
            // Every old key kept, in order, new ones only after them.
            let old_keys: Vec<&String> = o.keys().collect();
            let new_keys: Vec<&String> = n.keys().collect();
            if new_keys.len() < old_keys.len() || new_keys[..old_keys.len()] != old_keys[..] {
                return None;
            }
            for (key, _, child) in members {
                diff(b, child, o.get(key)?, n.get(key)?, unit, edits)?;
            }
            let added = &new_keys[old_keys.len()..];
            if !added.is_empty() {
                let (_, key_at, last) = members.last()?;
                let line = line_indent(b, *key_at);
                let inline = !b[node.start..node.end].contains(&b'\n');
                let sep = if inline {
                    " ".to_owned()
                } else {
                    format!("\n{line}")
                };
                let mut text = String::new();
                for k in added {
                    let v = render(n.get(*k)?, unit, &line, inline);
                    text.push_str(&format!(",{sep}{}: {v}", serde_json::to_string(k).ok()?));
                }
                edits.push((last.end, last.end, text.into_bytes()));
            }
            Some(())
        }
        (Kind::Array(items), Value::Array(o), Value::Array(n)) if o.len() == n.len() => {
            for ((child, ov), nv) in items.iter().zip(o).zip(n) {
                diff(b, child, ov, nv, unit, edits)?;
            }
            Some(())
        }
        _ => {
            let line = line_indent(b, node.start);
            let inline = !b[node.start..node.end].contains(&b'\n') && !old.is_null();
            let text = render(new, unit, &line, inline && !is_container(old));
            edits.push((node.start, node.end, text.into_bytes()));
            Some(())
        }
    }
}

fn is_container(v: &Value) -> bool {
    v.is_object() || v.is_array()
}

/// `v` as text: on one line when `inline`, else pretty with `unit`, its
/// later lines indented from `line`.
fn render(v: &Value, unit: &str, line: &str, inline: bool) -> String {
    if inline || !is_container(v) || unit.is_empty() {
        return serde_json::to_string(v).unwrap_or_default();
    }
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(
        &mut out,
        PrettyFormatter::with_indent(unit.as_bytes()),
    );
    if v.serialize(&mut ser).is_err() {
        return serde_json::to_string(v).unwrap_or_default();
    }
    String::from_utf8_lossy(&out).replace('\n', &format!("\n{line}"))
}

/// The whitespace that starts the line holding byte `at`.
fn line_indent(b: &[u8], at: usize) -> String {
    let start = b[..at]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    let ws = b[start..]
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t'))
        .count();
    String::from_utf8_lossy(&b[start..start + ws]).into_owned()
}

/// The file's indentation step: the indentation of its second line.
fn indent_unit(b: &[u8]) -> String {
    let Some(nl) = b.iter().position(|&c| c == b'\n') else {
        return String::new();
    };
    line_indent(b, nl + 1)
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
        if self.b[self.i..].starts_with(b"\xEF\xBB\xBF") {
            self.i += 3;
            self.ws();
        }
    }

    fn value(&mut self) -> Option<Node> {
        let start = self.i;
        let kind = match *self.b.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        let key_at = self.i;
                        let key = self.string()?;
                        self.ws();
                        (self.b.get(self.i) == Some(&b':')).then_some(())?;
                        self.i += 1;
                        self.ws();
                        let v = self.value()?;
                        members.push((key, key_at, v));
                        self.ws();
                        match self.b.get(self.i)? {
                            b',' => self.i += 1,
                            b'}' => {
                                self.i += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                Kind::Object(members)
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        items.push(self.value()?);
                        self.ws();
                        match self.b.get(self.i)? {
                            b',' => self.i += 1,
                            b']' => {
                                self.i += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                Kind::Array(items)
            }
            b'"' => {
                self.string()?;
                Kind::Scalar
            }
            _ => {
                while self.i < self.b.len()
                    && !matches!(
                        self.b[self.i],
                        b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    self.i += 1;
                }
                Kind::Scalar
            }
        };
        Some(Node {
            start,
            end: self.i,
            kind,
        })
    }

    /// A string token, decoded (for keys).
    fn string(&mut self) -> Option<String> {
        let start = self.i;
        (self.b.get(self.i) == Some(&b'"')).then_some(())?;
        self.i += 1;
        while *self.b.get(self.i)? != b'"' {
            if self.b[self.i] == b'\\' {
                self.i += 1;
            }
            self.i += 1;
        }
        self.i += 1;
        serde_json::from_slice(&self.b[start..self.i]).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(src: &str, f: impl FnOnce(&mut Value)) -> String {
        let old: Value = serde_json::from_str(src).unwrap();
        let mut new = old.clone();
        f(&mut new);
        String::from_utf8(splice(src.as_bytes(), &old, &new).unwrap()).unwrap()
    }

    #[test]
    fn only_changed_values_move() {
        let src =
            "{\n  \"a\": { \"k\": 1, \"v\": \"x\" },\n  \"s\": \"pending\",\n  \"n\": null\n}\n";
        let out = edit(src, |v| v["s"] = "approved".into());
        assert_eq!(out, src.replace("\"pending\"", "\"approved\""));
    }

    #[test]
    fn new_keys_follow_their_neighbours_style() {
        let src = "{\n  \"a\": { \"k\": 1 },\n  \"n\": null\n}\n";
        let out = edit(src, |v| {
            v["a"]["z"] = 2.into();
            v["n"] = serde_json::json!({"task": 1, "note": "é"});
            v["c"] = serde_json::json!({"t": 2});
        });
        assert_eq!(
            out,
            "{\n  \"a\": { \"k\": 1, \"z\": 2 },\n  \"n\": {\n    \"task\": 1,\n    \"note\": \"é\"\n  },\n  \"c\": {\n    \"t\": 2\n  }\n}\n"
        );
    }

    #[test]
    fn removed_keys_are_not_spliced() {
        let src = "{\"a\": 1, \"b\": 2}";
        let old: Value = serde_json::from_str(src).unwrap();
        let new = serde_json::json!({"a": 1});
        assert!(splice(src.as_bytes(), &old, &new).is_none());
    }
}
