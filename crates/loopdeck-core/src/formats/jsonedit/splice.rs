//! Writing an edited JSON document by splicing: only the values that
//! changed are replaced, new keys and array elements are inserted in the
//! style of their neighbours, removed keys and elements are cut out with
//! their separators, so every other byte stays as the writer wrote it
//! (big integers, `1.50`, `1e3`, `"\/"` escapes, duplicate keys, inline
//! `{ "kind": ..., "value": ... }` objects, key spacing, line endings).
//! When a change is beyond what this does (keys reordered), or the result
//! does not parse back to exactly the new value, the caller falls back to
//! `JsonDoc`'s whole-document writer.

use std::ops::Range;

use serde::Serialize;
use serde_json::Value;
use serde_json::ser::{Formatter, PrettyFormatter};

use super::Styled;

/// One value in the original bytes.
struct Node {
    start: usize,
    end: usize,
    kind: Kind,
}

enum Kind {
    Scalar,
    Object(Vec<Member>),
    Array(Vec<Node>),
}

struct Member {
    key: String,
    /// Byte where the key's quote starts.
    key_at: usize,
    value: Node,
}

/// How the document writes what this may have to write anew.
struct Fmt {
    /// One indentation step (empty: the document is on one line).
    unit: String,
    /// The line break (`\n` or `\r\n`).
    nl: &'static str,
    /// Between a key and its value (`": "` as Python writes).
    colon: String,
    /// After a comma on one line (`" "` as Python writes).
    comma: String,
    ascii_only: bool,
}

type Edits = Vec<(usize, usize, Vec<u8>)>;

/// `bytes` (the file as read, `old` its parse) rewritten so that it parses
/// as `new`, touching only what changed. `None`: not done this way.
pub(super) fn splice(bytes: &[u8], old: &Value, new: &Value, ascii_only: bool) -> Option<Vec<u8>> {
    let (root, fmt) = read(bytes, usize::MAX, ascii_only)?;
    let mut edits: Edits = Vec::new();
    diff(bytes, &root, old, new, &fmt, &mut edits)?;
    let out = apply(bytes, edits)?;
    let body = out.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&out);
    let back: Value = serde_json::from_slice(body).ok()?;
    same(&back, new).then_some(out)
}

/// The nodes of `bytes` down to `depth` levels (deeper containers are one
/// node each, not looked into), and how the document writes what an edit
/// may have to write anew.
fn read(bytes: &[u8], depth: usize, ascii_only: bool) -> Option<(Node, Fmt)> {
    let mut p = Parser::new(bytes, 0, depth);
    p.ws();
    let root = p.value()?;
    let fmt = Fmt {
        unit: indent_unit(bytes),
        nl: if bytes.windows(2).any(|w| w == b"\r\n") {
            "\r\n"
        } else {
            "\n"
        },
        colon: p.colon.take().unwrap_or_else(|| ": ".to_owned()),
        comma: p.comma.take().unwrap_or_else(|| " ".to_owned()),
        ascii_only,
    };
    Some((root, fmt))
}

/// The value starting at byte `at`, read `depth` levels deep.
fn node_at(bytes: &[u8], at: usize, depth: usize) -> Option<Node> {
    Parser::new(bytes, at, depth).value()
}

/// `bytes` with `edits` made (`None`: two edits overlap).
fn apply(bytes: &[u8], mut edits: Edits) -> Option<Vec<u8>> {
    // Insertions (empty ranges) before a cut starting at the same byte.
    edits.sort_by_key(|e| (e.0, e.1));
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
    Some(out)
}

/// The top level of an object document (distinct keys): each member's
/// key and where its value's bytes are, values not looked into.
pub(super) fn members(bytes: &[u8]) -> Option<Vec<(String, Range<usize>)>> {
    let mut p = Parser::new(bytes, 0, 1);
    p.ws();
    let Kind::Object(members) = p.value()?.kind else {
        return None;
    };
    Some(
        members
            .into_iter()
            .map(|m| (m.key, m.value.start..m.value.end))
            .collect(),
    )
}

/// What became of one top-level member, for [`splice_top`].
pub(super) enum Top<'a> {
    /// Untouched: its bytes stay as they are.
    Kept,
    /// Edited: its value now is the one in the new members (and was, if
    /// the original has the key, parsed anew from the bytes).
    Edited,
    /// An array untouched but for these entries appended.
    Appended(&'a [Value]),
}

/// [`splice`] for an object document whose members were read only where
/// an edit needed them. `n` is the members in their new order (keys of
/// `bytes` missing from it are removed), each told by `how` (in the same
/// order): an edited member holds its value, the others `null`. Only the
/// members edited are parsed (once from `bytes`, once from the result to
/// check it), so a large document is never held as a tree. `None`: not
/// done this way.
pub(super) fn splice_top(
    bytes: &[u8],
    n: &serde_json::Map<String, Value>,
    how: &[Top<'_>],
    ascii_only: bool,
) -> Option<Vec<u8>> {
    if n.len() != how.len() {
        return None;
    }
    let new: Vec<(&str, &Top<'_>)> = n.keys().map(String::as_str).zip(how).collect();
    let (root, fmt) = read(bytes, 1, ascii_only)?;
    let Kind::Object(members) = &root.kind else {
        return None;
    };
    if members.is_empty() {
        return None;
    }
    let parse = |r: Range<usize>| serde_json::from_slice::<Value>(&bytes[r]).ok();
    // The members as objects of placeholders: a kept member is `null` on
    // both sides (so never compared or touched), an edited one its value.
    let mut o = serde_json::Map::new();
    let mut deep: Vec<Member> = Vec::with_capacity(members.len());
    for m in members {
        let edited = new
            .iter()
            .any(|(k, t)| *k == m.key && matches!(t, Top::Edited));
        let (value, node) = if edited {
            let node = node_at(bytes, m.value.start, usize::MAX)?;
            (parse(m.value.start..m.value.end)?, node)
        } else {
            (Value::Null, node_at(bytes, m.value.start, 0)?)
        };
        o.insert(m.key.clone(), value);
        deep.push(Member {
            key: m.key.clone(),
            key_at: m.key_at,
            value: node,
        });
    }
    let mut edits: Edits = Vec::new();
    object(bytes, &root, &deep, &o, n, &fmt, &mut edits)?;
    drop(o);
    for (k, t) in &new {
        if let Top::Appended(items) = t {
            let m = deep.iter().rfind(|m| m.key == *k)?;
            append(bytes, m.value.start, items, &fmt, &mut edits)?;
        }
    }
    drop((deep, root));
    let out = apply(bytes, edits)?;
    checked_top(bytes, &out, n, &new).then_some(out)
}

/// Entries appended to the array at byte `at`, after its last one in the
/// style of its entries (an empty array is written anew).
fn append(b: &[u8], at: usize, items: &[Value], fmt: &Fmt, edits: &mut Edits) -> Option<()> {
    let node = node_at(b, at, 1)?;
    let Kind::Array(old) = &node.kind else {
        return None;
    };
    let line = line_indent(b, node.start);
    if old.is_empty() {
        // As `diff` writes a container replaced whole: laid out as the
        // document lays out its containers.
        let text = render(&Value::Array(items.to_vec()), fmt, &line, false);
        edits.push((node.start, node.end, text.into_bytes()));
        return Some(());
    }
    let starts: Vec<usize> = old.iter().map(|i| i.start).collect();
    let ends: Vec<usize> = old.iter().map(|i| i.end).collect();
    let (sep, line) = separator(b, &node, &starts, &ends, fmt);
    let inline = !sep.contains('\n');
    let mut text = String::new();
    for v in items {
        text.push_str(&format!(",{sep}{}", render(v, fmt, &line, inline)));
    }
    edits.push((*ends.last()?, *ends.last()?, text.into_bytes()));
    Some(())
}

/// Does `out` (spliced from `bytes`) hold exactly `new`? Its members in
/// that order; a kept member byte for byte; an edited one parsing to its
/// value; an appended array its old entries byte for byte, then the new
/// ones parsing to theirs.
fn checked_top(
    bytes: &[u8],
    out: &[u8],
    n: &serde_json::Map<String, Value>,
    new: &[(&str, &Top<'_>)],
) -> bool {
    let body = out.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(out);
    if serde_json::from_slice::<super::Valid>(body).is_err() {
        return false;
    }
    let (Some(before), Some(after)) = (members(bytes), members(out)) else {
        return false;
    };
    if after.len() != new.len() {
        return false;
    }
    let was = |k: &str| {
        before
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, r)| r.clone())
    };
    let parses_to = |r: Range<usize>, v: &Value| {
        serde_json::from_slice::<Value>(&out[r]).is_ok_and(|back| same(&back, v))
    };
    after.iter().zip(new).all(|((key, r), (k, t))| {
        key == k
            && match t {
                Top::Kept => was(k).is_some_and(|w| bytes[w] == out[r.clone()]),
                Top::Edited => n.get(*k).is_some_and(|v| parses_to(r.clone(), v)),
                Top::Appended(items) => {
                    let (Some(w), Some(old), Some(now)) = (
                        was(k),
                        was(k).and_then(|w| node_at(bytes, w.start, 1)),
                        node_at(out, r.start, 1),
                    ) else {
                        return false;
                    };
                    let (Kind::Array(o), Kind::Array(n)) = (&old.kind, &now.kind) else {
                        return false;
                    };
                    n.len() == o.len() + items.len()
                        && o.last().is_none_or(|last| {
                            out.get(r.start..r.start + (last.end - w.start))
                                == Some(&bytes[w.start..last.end])
                        })
                        && n[o.len()..]
                            .iter()
                            .zip(items.iter())
                            .all(|(node, v)| parses_to(node.start..node.end, v))
                }
            }
    })
}

/// `a == b` with objects' keys in the same order too (`Value`'s own `==`
/// ignores the order, which the file shows).
pub(super) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(vx, vy)| same(vx, vy))
        }
        _ => a == b,
    }
}

fn diff(
    b: &[u8],
    node: &Node,
    old: &Value,
    new: &Value,
    fmt: &Fmt,
    edits: &mut Edits,
) -> Option<()> {
    if same(old, new) {
        return Some(());
    }
    let mark = edits.len();
    let done = match (&node.kind, old, new) {
        (Kind::Object(members), Value::Object(o), Value::Object(n))
            if !o.is_empty() && !n.is_empty() =>
        {
            object(b, node, members, o, n, fmt, edits)
        }
        (Kind::Array(items), Value::Array(o), Value::Array(n))
            if !o.is_empty() && !n.is_empty() =>
        {
            array(b, node, items, o, n, fmt, edits)
        }
        _ => None,
    };
    if done.is_none() {
        // The value as a whole, in the style of its place.
        edits.truncate(mark);
        let line = line_indent(b, node.start);
        let inline = !b[node.start..node.end].contains(&b'\n') && !old.is_null();
        let text = render(new, fmt, &line, inline && !is_container(old));
        edits.push((node.start, node.end, text.into_bytes()));
    }
    Some(())
}

/// An object edited member by member: removed members cut out, new ones
/// inserted after the member before them (`None`: kept keys reordered, or
/// none kept).
fn object(
    b: &[u8],
    node: &Node,
    members: &[Member],
    o: &serde_json::Map<String, Value>,
    n: &serde_json::Map<String, Value>,
    fmt: &Fmt,
    edits: &mut Edits,
) -> Option<()> {
    // The old keys kept keep their order; new ones go anywhere.
    let kept_old: Vec<&String> = o.keys().filter(|k| n.contains_key(*k)).collect();
    let kept_new: Vec<&String> = n.keys().filter(|k| o.contains_key(*k)).collect();
    if kept_old != kept_new || kept_old.is_empty() {
        return None;
    }
    let removed: Vec<bool> = members.iter().map(|m| !n.contains_key(&m.key)).collect();
    for (i, (m, gone)) in members.iter().zip(&removed).enumerate() {
        // Of a key written twice, the last one is the value.
        let last = !members[i + 1..].iter().any(|later| later.key == m.key);
        if !gone && last {
            diff(b, &m.value, o.get(&m.key)?, n.get(&m.key)?, fmt, edits)?;
        }
    }
    let starts: Vec<usize> = members.iter().map(|m| m.key_at).collect();
    let ends: Vec<usize> = members.iter().map(|m| m.value.end).collect();
    cut_runs(&removed, &starts, &ends, edits)?;
    // New keys: after the member of the key before them, or before
    // the first kept member.
    let (sep, line) = separator(b, node, &starts, &ends, fmt);
    let inline = !sep.contains('\n');
    let member = |k: &String| -> Option<String> {
        let v = render(n.get(k)?, fmt, &line, inline);
        Some(format!("{}{}{v}", render_key(k, fmt), fmt.colon))
    };
    let mut before_first = String::new();
    let mut pending: Option<usize> = None;
    let mut after = String::new();
    for k in n.keys() {
        if o.contains_key(k) {
            if let Some(at) = pending.take() {
                edits.push((at, at, std::mem::take(&mut after).into_bytes()));
            }
            // The last member holding this key is the one that counts.
            let last = members.iter().rposition(|m| &m.key == k)?;
            pending = Some(ends[last]);
        } else if pending.is_some() {
            after.push_str(&format!(",{sep}{}", member(k)?));
        } else {
            before_first.push_str(&format!("{},{sep}", member(k)?));
        }
    }
    if let Some(at) = pending {
        edits.push((at, at, after.into_bytes()));
    }
    if !before_first.is_empty() {
        let first = removed.iter().position(|gone| !gone)?;
        edits.push((starts[first], starts[first], before_first.into_bytes()));
    }
    Some(())
}

/// An array edited element by element: the elements equal in both (their
/// longest common subsequence) stay; between them, old and new elements
/// are paired and edited, the old ones left over cut out, the new ones
/// left over inserted after the last one paired.
fn array(
    b: &[u8],
    node: &Node,
    items: &[Node],
    o: &[Value],
    n: &[Value],
    fmt: &Fmt,
    edits: &mut Edits,
) -> Option<()> {
    if items.len() != o.len() {
        return None;
    }
    let anchors = common(o, n)?;
    let starts: Vec<usize> = items.iter().map(|i| i.start).collect();
    let ends: Vec<usize> = items.iter().map(|i| i.end).collect();
    let (sep, line) = separator(b, node, &starts, &ends, fmt);
    let inline = !sep.contains('\n');
    let mut removed = vec![false; o.len()];
    let (mut oi, mut ni) = (0, 0);
    for &(ao, an) in anchors.iter().chain(std::iter::once(&(o.len(), n.len()))) {
        let (og, ng) = (ao - oi, an - ni);
        let paired = og.min(ng);
        for k in 0..paired {
            diff(b, &items[oi + k], &o[oi + k], &n[ni + k], fmt, edits)?;
        }
        for r in removed.iter_mut().skip(oi + paired).take(og - paired) {
            *r = true;
        }
        if ng > og {
            let extra = &n[ni + paired..an];
            if oi + paired > 0 {
                // After the element before the gap's leftovers.
                let at = ends[oi + paired - 1];
                let mut text = String::new();
                for v in extra {
                    text.push_str(&format!(",{sep}{}", render(v, fmt, &line, inline)));
                }
                edits.push((at, at, text.into_bytes()));
            } else {
                // At the very start: before the first element.
                let at = *starts.first()?;
                let mut text = String::new();
                for v in extra {
                    text.push_str(&format!("{},{sep}", render(v, fmt, &line, inline)));
                }
                edits.push((at, at, text.into_bytes()));
            }
        }
        oi = ao + 1;
        ni = an + 1;
    }
    cut_runs(&removed, &starts, &ends, edits)
}

/// The pairs of indexes of a longest common subsequence of `o` and `n`:
/// their common start and end, and between them by dynamic programming
/// (`None` when that part is too big to compare this way).
fn common(o: &[Value], n: &[Value]) -> Option<Vec<(usize, usize)>> {
    let pre = o.iter().zip(n).take_while(|(a, b)| same(a, b)).count();
    let post = o[pre..]
        .iter()
        .rev()
        .zip(n[pre..].iter().rev())
        .take_while(|(a, b)| same(a, b))
        .count();
    let (om, nm) = (&o[pre..o.len() - post], &n[pre..n.len() - post]);
    if om.len().saturating_mul(nm.len()) > 4_000_000 {
        return None;
    }
    let w = nm.len() + 1;
    let mut t = vec![0u32; (om.len() + 1) * w];
    for i in (0..om.len()).rev() {
        for j in (0..nm.len()).rev() {
            t[i * w + j] = if same(&om[i], &nm[j]) {
                t[(i + 1) * w + j + 1] + 1
            } else {
                t[(i + 1) * w + j].max(t[i * w + j + 1])
            };
        }
    }
    let mut out: Vec<(usize, usize)> = (0..pre).map(|i| (i, i)).collect();
    let (mut i, mut j) = (0, 0);
    while i < om.len() && j < nm.len() {
        if same(&om[i], &nm[j]) {
            out.push((pre + i, pre + j));
            i += 1;
            j += 1;
        } else if t[(i + 1) * w + j] >= t[i * w + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    let (ot, nt) = (o.len() - post, n.len() - post);
    out.extend((0..post).map(|k| (ot + k, nt + k)));
    Some(out)
}

/// Cut each run of removed entries (`starts`/`ends`: their bytes) with
/// the separator before it, or, for a run at the start, the one after it.
fn cut_runs(removed: &[bool], starts: &[usize], ends: &[usize], edits: &mut Edits) -> Option<()> {
    let mut i = 0;
    while i < removed.len() {
        if !removed[i] {
            i += 1;
            continue;
        }
        let mut j = i;
        while j + 1 < removed.len() && removed[j + 1] {
            j += 1;
        }
        if i > 0 {
            edits.push((ends[i - 1], ends[j], Vec::new()));
        } else {
            edits.push((starts[i], *starts.get(j + 1)?, Vec::new()));
        }
        i = j + 1;
    }
    Some(())
}

/// What goes after a comma between two entries of `node`, and the
/// indentation of its entries' lines: as between its first two entries,
/// else a line break and the entry's indentation when it spans lines, else
/// the document's one-line comma.
fn separator(
    b: &[u8],
    node: &Node,
    starts: &[usize],
    ends: &[usize],
    fmt: &Fmt,
) -> (String, String) {
    let line = starts
        .first()
        .map_or_else(String::new, |&s| line_indent(b, s));
    if let (Some(&end), Some(&next)) = (ends.first(), starts.get(1)) {
        let between = &b[end..next];
        if let Some(comma) = between.iter().position(|&c| c == b',') {
            let after = String::from_utf8_lossy(&between[comma + 1..]).into_owned();
            let line = if after.contains('\n') {
                line_indent(b, next)
            } else {
                line
            };
            return (after, line);
        }
    }
    if b[node.start..node.end].contains(&b'\n') {
        (format!("{}{line}", fmt.nl), line)
    } else {
        (fmt.comma.clone(), line)
    }
}

fn is_container(v: &Value) -> bool {
    v.is_object() || v.is_array()
}

/// A key as the document writes strings.
fn render_key(k: &str, fmt: &Fmt) -> String {
    render(&Value::from(k), fmt, "", true)
}

/// `v` as text: on one line when `inline` (with the document's one-line
/// separators), else pretty with the document's step, its later lines
/// indented from `line`; strings escaped as the document escapes them.
fn render(v: &Value, fmt: &Fmt, line: &str, inline: bool) -> String {
    let mut out = Vec::new();
    let written = if inline || !is_container(v) || fmt.unit.is_empty() {
        let mut ser = serde_json::Serializer::with_formatter(
            &mut out,
            Styled {
                inner: OneLine {
                    comma: fmt.comma.as_bytes(),
                    colon: fmt.colon.as_bytes(),
                },
                ascii_only: fmt.ascii_only,
            },
        );
        v.serialize(&mut ser)
    } else {
        let mut ser = serde_json::Serializer::with_formatter(
            &mut out,
            Styled {
                inner: PrettyFormatter::with_indent(fmt.unit.as_bytes()),
                ascii_only: fmt.ascii_only,
            },
        );
        v.serialize(&mut ser)
    };
    // Serialising a `Value` into a Vec cannot fail; the verification after
    // the splice catches it if it ever did.
    let _ = written;
    String::from_utf8_lossy(&out).replace('\n', &format!("{}{line}", fmt.nl))
}

/// One-line output with given separators (Python's `", "` and `": "`).
struct OneLine<'a> {
    comma: &'a [u8],
    colon: &'a [u8],
}

impl Formatter for OneLine<'_> {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b",")?;
            w.write_all(self.comma)
        }
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.begin_array_value(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(self.colon)
    }
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
    /// How many levels of containers are looked into (deeper ones are
    /// walked over as one node).
    depth: usize,
    /// The first key–value separator seen (`": "`).
    colon: Option<String>,
    /// The first whitespace seen after a comma on one line.
    comma: Option<String>,
}

impl<'a> Parser<'a> {
    fn new(b: &'a [u8], at: usize, depth: usize) -> Self {
        Parser {
            b,
            i: at,
            depth,
            colon: None,
            comma: None,
        }
    }

    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
        if self.b[self.i..].starts_with(b"\xEF\xBB\xBF") {
            self.i += 3;
            self.ws();
        }
    }

    /// After a comma: note the document's one-line spacing.
    fn comma(&mut self) {
        let at = self.i;
        self.ws();
        let gap = &self.b[at..self.i];
        if self.comma.is_none() && !gap.contains(&b'\n') {
            self.comma = Some(String::from_utf8_lossy(gap).into_owned());
        }
    }

    fn value(&mut self) -> Option<Node> {
        let start = self.i;
        // Inside a container walked over, nothing is kept.
        let keep = self.depth > 0;
        let kind = match *self.b.get(self.i)? {
            b'{' => {
                if keep {
                    self.depth -= 1;
                }
                self.i += 1;
                let mut members = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                } else {
                    loop {
                        let key_at = self.i;
                        let key = if keep {
                            self.string()?
                        } else {
                            self.skip_string()?;
                            String::new()
                        };
                        let colon_at = self.i;
                        self.ws();
                        (self.b.get(self.i) == Some(&b':')).then_some(())?;
                        self.i += 1;
                        self.ws();
                        if self.colon.is_none() {
                            let gap = &self.b[colon_at..self.i];
                            if !gap.contains(&b'\n') {
                                self.colon = Some(String::from_utf8_lossy(gap).into_owned());
                            }
                        }
                        let value = self.value()?;
                        if keep {
                            members.push(Member { key, key_at, value });
                        }
                        self.ws();
                        match self.b.get(self.i)? {
                            b',' => {
                                self.i += 1;
                                self.comma();
                            }
                            b'}' => {
                                self.i += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                if keep {
                    self.depth += 1;
                }
                if keep {
                    Kind::Object(members)
                } else {
                    Kind::Scalar
                }
            }
            b'[' => {
                if keep {
                    self.depth -= 1;
                }
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                } else {
                    loop {
                        let item = self.value()?;
                        if keep {
                            items.push(item);
                        }
                        self.ws();
                        match self.b.get(self.i)? {
                            b',' => {
                                self.i += 1;
                                self.comma();
                            }
                            b']' => {
                                self.i += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                if keep {
                    self.depth += 1;
                }
                if keep {
                    Kind::Array(items)
                } else {
                    Kind::Scalar
                }
            }
            b'"' => {
                self.skip_string()?;
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
                (self.i > start).then_some(())?;
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
        self.skip_string()?;
        serde_json::from_slice(&self.b[start..self.i]).ok()
    }

    /// Past a string token.
    fn skip_string(&mut self) -> Option<()> {
        (self.b.get(self.i) == Some(&b'"')).then_some(())?;
        self.i += 1;
        while *self.b.get(self.i)? != b'"' {
            if self.b[self.i] == b'\\' {
                self.i += 1;
            }
            self.i += 1;
        }
        self.i += 1;
        Some(())
    }
}

#[cfg(test)]
mod tests;
