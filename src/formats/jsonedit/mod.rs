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

mod splice;

use serde::Serialize;
use serde_json::Value;
use serde_json::ser::{Formatter, PrettyFormatter};

/// A parsed JSON document and the style to write it back in.
#[derive(Debug, Clone)]
pub struct JsonDoc {
    pub value: Value,
    style: Style,
    /// The bytes as read (BOM included) and their parse.
    original: Vec<u8>,
    parsed: Value,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Style {
    /// One indentation step (`None`: the document is on one line).
    indent: Option<Vec<u8>>,
    ascii_only: bool,
    final_newline: bool,
    bom: bool,
    crlf: bool,
}

impl JsonDoc {
    /// Parse `bytes` (a UTF-8 BOM allowed). Errors say why in one line,
    /// in the words the readers use for the same file
    /// ([`crate::formats::json::reason`]: the same limits, the same text).
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        let bom = bytes.starts_with(b"\xEF\xBB\xBF");
        let body = if bom { &bytes[3..] } else { bytes };
        let value: Value =
            serde_json::from_slice(body).map_err(|e| crate::formats::json::reason(&e))?;
        Ok(JsonDoc {
            parsed: value.clone(),
            value,
            style: Style::detect(body, bom),
            original: bytes.to_vec(),
        })
    }

    /// The document as read with `value`'s changes spliced in; the whole
    /// document in its original style when the splice cannot say it.
    pub fn to_bytes(&self) -> Vec<u8> {
        if splice::same(&self.value, &self.parsed) {
            return self.original.clone();
        }
        splice::splice(
            &self.original,
            &self.parsed,
            &self.value,
            self.style.ascii_only,
        )
        .unwrap_or_else(|| self.rewrite())
    }

    /// The whole document re-serialised in its original style.
    fn rewrite(&self) -> Vec<u8> {
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
                self.value.serialize(&mut ser)
            }
            None => {
                let mut ser = serde_json::Serializer::with_formatter(
                    &mut body,
                    Styled {
                        inner: serde_json::ser::CompactFormatter,
                        ascii_only: self.style.ascii_only,
                    },
                );
                self.value.serialize(&mut ser)
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
        String::from_utf8(JsonDoc::parse(s.as_bytes()).unwrap().to_bytes()).unwrap()
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
        doc.value["alpha"] = Value::from("文");
        doc.value["new"] = Value::from(true);
        let out = String::from_utf8(doc.to_bytes()).unwrap();
        assert_eq!(
            out,
            "\u{feff}{\n  \"zeta\": 1,\n  \"unknown\": {\"k\": [1, 2]},\n  \"alpha\": \"文\",\n  \"new\": true\n}\n"
        );
    }
}
