//! The fuzz targets' bodies, shared by the cargo-fuzz binaries
//! (`fuzz/fuzz_targets/*.rs`, one line each) and by
//! `tests/fuzz_regressions.rs`, which includes this file and replays every
//! reproducer kept under `tests/fixtures/fuzz/<target>/` on the stable
//! toolchain (`cargo test`), without libFuzzer.
//!
//! A target panics when loopdeck breaks a rule: a parser that panics, a
//! tail that disagrees with a plain split of the same bytes, an edited JSON
//! document that does not parse back to its value, a decision that writes
//! a file it did not report, drops an unknown field, or changes more than
//! its entry. Anything loopdeck refuses is fine: only what it writes is
//! judged.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use loopdeck_core::decide::{ActError, WriteOptions};
use loopdeck_core::formats;
use loopdeck_core::formats::devloop::html;
use loopdeck_core::formats::dwp::markdown;
use loopdeck_core::formats::gsd::{body, frontmatter, splice, statusline};
use loopdeck_core::formats::jsonedit::JsonDoc;
use loopdeck_core::formats::prd_master::schema as prd_schema;
use loopdeck_core::model::{Format, Project, Request};
use loopdeck_core::store::ndjson::{RevLine, ReverseLines};

/// A target's body.
pub type Target = fn(&[u8]);

/// Every target by name, as `bench/fuzz.sh` and the regression test name them.
pub const TARGETS: &[(&str, Target)] = &[
    ("prd_state", prd_state),
    ("gsd_state", gsd_state),
    ("dwp_readme", dwp_readme),
    ("devloop_html", devloop_html),
    ("ndjson_tail", ndjson_tail),
    ("ndjson_fold", ndjson_fold),
    ("jsonedit", jsonedit),
    ("decide_prd", decide_prd),
    ("decide_gsd", decide_gsd),
    ("decide_dwp", decide_dwp),
    ("decide_devloop", decide_devloop),
];

/// Run the target `name` on `data`; false when there is no such target.
pub fn run(name: &str, data: &[u8]) -> bool {
    match TARGETS.iter().find(|(n, _)| *n == name) {
        Some((_, f)) => {
            f(data);
            true
        }
        None => false,
    }
}

/// The reference "now" of the example workspace.
pub fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-06-01T12:00:00Z")
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_default()
}

// ---------------------------------------------------------------- input

/// The fuzzer's bytes read as a stream of choices; past the end every
/// choice is 0, so any input is a complete program.
pub struct Input<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Input<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Input { data, pos: 0 }
    }
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let v = (self.byte() as usize) << 8 | self.byte() as usize;
        v % n
    }
    /// Up to `max` bytes, as (lossy) text.
    pub fn text(&mut self, max: usize) -> String {
        let len = self.below(max + 1);
        let start = self.pos.min(self.data.len());
        let end = (start + len).min(self.data.len());
        self.pos += len;
        String::from_utf8_lossy(&self.data[start..end]).into_owned()
    }
    pub fn rest(&mut self) -> &'a [u8] {
        let start = self.pos.min(self.data.len());
        self.pos = self.data.len();
        &self.data[start..]
    }
}

/// A scratch directory per process, reused by every run of a reader target.
fn scratch() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("a temporary directory"))
        .path()
}

fn write(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("create the directory");
    }
    fs::write(path, bytes).expect("write the file");
}

// ---------------------------------------------------------------- readers

/// PRD-master `state.json`: the tolerant reader, then the whole project
/// reader on a directory holding it.
pub fn prd_state(data: &[u8]) {
    let _ = prd_schema::parse(data);
    let dir = scratch().join("prd");
    write(&dir.join("state.json"), data);
    let _ = formats::prd_master::load(&dir);
}

/// GSD `STATE.md`: frontmatter, body, the statusline hook's reading, the
/// splice editor (which must give back the bytes it read when nothing is
/// edited), and the project reader.
pub fn gsd_state(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (fm, rest) = frontmatter::split(&text);
    let _ = fm.str("status");
    let _ = fm.nested("progress", "percent");
    let _ = fm.list("blockers");
    let _ = body::parse(rest);
    let _ = statusline::parse_state_md(&text);
    let _ = statusline::statusline(&text);
    if let Ok(doc) = splice::Doc::parse(data) {
        assert!(
            doc.to_bytes() == data,
            "STATE.md parsed by the splice editor and written back unedited is not the same bytes"
        );
        let _ = doc.items(splice::List::Decisions);
        let _ = doc.items(splice::List::Blockers);
        let _ = doc.current_phase(&text);
    }
    let dir = scratch().join("gsd");
    write(&dir.join(".planning/STATE.md"), data);
    let _ = formats::gsd::load(&dir);
}

/// DWP plan `README.md`: the Markdown index and every question the checks ask it.
pub fn dwp_readme(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let r = markdown::Readme::parse(&text);
    let _ = r.has_task_links();
    for a in ["task-1", "1", "", "task_1", "{#", "log"] {
        let _ = r.inline_log_pending(a);
        let _ = r.anchor_count(a);
        let _ = r.inline_task(a);
    }
    let _ = r.links_to("1.task_x.md");
    let _ = markdown::unfenced(&text);
    let _ = markdown::log_says_pending(&text);
}

/// devloop HTML: the tokenizer and the PRD and SDD readers.
pub fn devloop_html(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for t in html::tags(&text) {
        let _ = t.attr("id");
        let _ = t.has("data-unit");
    }
    let _ = html::decode_entities(&text);
    let _ = html::squash(&text);
    let _ = html::prd(&text);
    let sdd = html::sdd(&text);
    for u in &sdd.units {
        if let Some(c) = &u.contract {
            let _ = c.readings();
        }
    }
    let _ = html::rev_number(&text);
}

/// The NDJSON reverse reader against a plain split of the same bytes: the
/// same lines, last first, a torn last line dropped and reported, lines
/// over the limit reported with their length; for any chunk size.
pub fn ndjson_tail(data: &[u8]) {
    let mut input = Input::new(data);
    let chunk = 1 + input.below(64);
    // `with_max_line` takes at least 1 (a limit of 0 would skip every line).
    let max_line = input.below(48).max(1);
    let content = input.rest();
    let path = scratch().join("tail.ndjson");
    write(&path, content);

    // The oracle.
    let torn = !content.is_empty() && content.last() != Some(&b'\n');
    let complete = match content.iter().rposition(|b| *b == b'\n') {
        Some(i) => &content[..i],
        None => &content[..0],
    };
    let mut want: Vec<Result<Vec<u8>, u64>> = Vec::new();
    if content.contains(&b'\n') {
        for line in complete.split(|b| *b == b'\n') {
            want.push(if line.len() > max_line {
                Err(line.len() as u64)
            } else {
                Ok(line.to_vec())
            });
        }
    }
    want.reverse();

    let mut lines = ReverseLines::open(&path, u64::MAX)
        .expect("open the tail")
        .with_chunk(chunk)
        .with_max_line(max_line);
    let mut got: Vec<Result<Vec<u8>, u64>> = Vec::new();
    while let Some(line) = lines.next_line().expect("read the tail") {
        got.push(match line {
            RevLine::Line(l) => Ok(l.to_vec()),
            RevLine::TooLong(n) => Err(n),
        });
        assert!(got.len() <= want.len() + 1, "more lines than the file has");
    }
    assert_eq!(
        got, want,
        "reverse lines (chunk {chunk}, max line {max_line}) differ from a plain split"
    );
    assert_eq!(lines.torn(), torn, "torn tail misreported");
    assert!(!lines.cut(), "cut with an unlimited budget");
}

/// devloop's NDJSON folds: `bugs.ndjson` (per-bug record) and
/// `timeline.ndjson` from the same bytes (split at the first 0xFF), read by
/// the project reader.
pub fn ndjson_fold(data: &[u8]) {
    let (bugs, timeline) = match data.iter().position(|b| *b == 0xFF) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &data[..0]),
    };
    let dir = scratch().join("data/companies/acme/projects/p-fuzz");
    write(
        &dir.join("project.json"),
        br#"{"id":"p-fuzz","company_id":"acme","name":"Fuzz","status":"building"}"#,
    );
    write(&dir.join("bugs.ndjson"), bugs);
    write(&dir.join("timeline.ndjson"), timeline);
    write(&dir.join("changelog.ndjson"), timeline);
    if let Some(p) = formats::devloop::load(&dir) {
        assert!(
            p.detail.bugs.len() <= formats::devloop::bugfold::MAX_BUGS_LISTED,
            "more bugs listed than the limit"
        );
    }
}

/// The JSON editor: parse, make edits chosen by the input, write back. The
/// bytes written parse to exactly the edited value; with no edit they are
/// the bytes read.
pub fn jsonedit(data: &[u8]) {
    let mut input = Input::new(data);
    let edits = input.below(5);
    let seed = input.below(256) as u64;
    let n = input.below(data.len() + 1);
    let script: Vec<u8> = data[..n.min(data.len())].to_vec();
    let doc_bytes = &data[n.min(data.len())..];
    let Ok(doc) = JsonDoc::parse(doc_bytes) else {
        return;
    };
    assert!(
        doc.to_bytes().is_ok_and(|b| b == doc_bytes),
        "an unedited document is not written back as read"
    );
    // The same edits made on the whole value and, member by member, on a
    // document read lazily: both write bytes that parse to the edited value.
    let mut whole = doc.clone();
    let mut lazy = doc;
    let mut edit_input = Input::new(&script);
    for i in 0..edits {
        edit_value(whole.value_mut(), &mut edit_input, seed + i as u64);
    }
    let want = whole.clone().into_value();
    // Member edits are for object documents (on anything else they do
    // nothing); the whole-value edit above covers the rest.
    let object = lazy.clone().into_value().is_object();
    if let (Value::Object(map), true) = (&want, object) {
        for (k, v) in map {
            match lazy.get(k) {
                Some(old) if same_ordered(&old, v) => {}
                // An array that only grew is appended to, unparsed.
                Some(old)
                    if old.as_array().zip(v.as_array()).is_some_and(|(o, n)| {
                        n.len() > o.len() && o.iter().zip(n).all(|(a, b)| same_ordered(a, b))
                    }) =>
                {
                    let n = old.as_array().map_or(0, Vec::len);
                    drop(old);
                    for e in v.as_array().into_iter().flatten().skip(n) {
                        lazy.push(k, e.clone());
                    }
                }
                _ => lazy.insert(k, v.clone()),
            }
        }
        let gone: Vec<String> = lazy_keys(&lazy, map);
        if gone.is_empty() {
            check_written(
                &lazy
                    .into_bytes()
                    .unwrap_or_else(|e| panic!("not writable: {e}")),
                &want,
            );
        }
    }
    check_written(
        &whole
            .into_bytes()
            .unwrap_or_else(|e| panic!("not writable: {e}")),
        &want,
    );
}

/// Keys of `map`'s original document no longer in `map` (the lazy
/// document removes none, so such a case is checked whole only).
fn lazy_keys(doc: &JsonDoc, map: &serde_json::Map<String, Value>) -> Vec<String> {
    let Value::Object(all) = doc.clone().into_value() else {
        return Vec::new();
    };
    all.keys()
        .filter(|k| !map.contains_key(*k))
        .cloned()
        .collect()
}

/// `out` parses to exactly `want`.
fn check_written(out: &[u8], want: &Value) {
    let body = out.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(out);
    let back: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => panic!(
            "the edited document does not parse: {e}\n{}",
            String::from_utf8_lossy(out)
        ),
    };
    assert!(
        same_ordered(&back, want),
        "the edited document parses to another value\nwant {want}\ngot  {back}"
    );
}

/// Equal values, keys in the same order.
fn same_ordered(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((ka, va), (kb, vb))| ka == kb && same_ordered(va, vb))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_ordered(a, b))
        }
        _ => a == b,
    }
}

/// One edit somewhere in `v`: a value replaced, a key added or removed, an
/// element pushed or removed.
fn edit_value(v: &mut Value, input: &mut Input<'_>, salt: u64) {
    let mut all = Vec::new();
    all_pointers(v, String::new(), &mut all);
    let at = all[input.below(all.len())].clone();
    let fresh = fresh_value(input, salt);
    let how = input.below(4);
    let Some(cur) = v.pointer_mut(&at) else {
        return;
    };
    match (how, cur) {
        (0, Value::Object(m)) => {
            m.insert(format!("x-fuzz-{salt}"), fresh);
        }
        (1, Value::Object(m)) if !m.is_empty() => {
            let i = input.below(m.len());
            if let Some(k) = m.keys().nth(i).cloned() {
                m.shift_remove(&k);
            }
        }
        (0, Value::Array(a)) => a.push(fresh),
        (1, Value::Array(a)) if !a.is_empty() => {
            let i = input.below(a.len());
            a.remove(i);
        }
        (_, other) => *other = fresh,
    }
}

/// The JSON pointer of every value in `v`, `v` itself first.
fn all_pointers(v: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                all_pointers(x, format!("{at}/{}", escape(k)), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                all_pointers(x, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn fresh_value(input: &mut Input<'_>, salt: u64) -> Value {
    match input.below(7) {
        0 => Value::String(input.text(12)),
        1 => Value::from(salt as i64 - 100),
        2 => Value::from(salt as f64 / 8.0),
        3 => Value::Bool(salt.is_multiple_of(2)),
        4 => Value::Null,
        5 => {
            let mut m = Map::new();
            m.insert("k".into(), Value::String(input.text(6)));
            Value::Object(m)
        }
        _ => Value::Array(vec![Value::String("é\u{1F600}\"\\".into()), Value::from(1)]),
    }
}

// ---------------------------------------------------------------- decisions

/// The example workspace (run from the crate or from `fuzz/`).
pub fn examples() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for c in [
        here.join("examples/workspace"),
        here.join("../examples/workspace"),
    ] {
        if c.is_dir() {
            return c;
        }
    }
    panic!("examples/workspace not found from {}", here.display());
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("create the copy");
    for e in fs::read_dir(from).expect("list the seed") {
        let e = e.expect("list the seed");
        let t = e.file_type().expect("stat the seed");
        let dest = to.join(e.file_name());
        if t.is_dir() {
            copy_tree(&e.path(), &dest);
        } else if t.is_file() {
            fs::copy(e.path(), &dest).expect("copy the seed");
        }
    }
}

/// Every regular file under `dir`, by path relative to it.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(rd) = fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let Ok(t) = e.file_type() else { continue };
            let p = e.path();
            if t.is_dir() {
                walk(root, &p, out);
            } else if t.is_file() {
                let rel = p
                    .strip_prefix(root)
                    .map(|r| r.to_string_lossy().into_owned())
                    .unwrap_or_default();
                out.insert(rel, fs::read(&p).unwrap_or_default());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// What the run planted that must survive any decision.
#[derive(Default)]
struct Planted {
    /// (file relative to the workspace copy, key, value, where) of unknown JSON fields.
    json: Vec<(String, String, Value, String)>,
    /// (file, text) of unknown lines that must still be in the file.
    lines: Vec<(String, String)>,
}

const TEXT_KEYS: &[&str] = &[
    "question",
    "text",
    "title",
    "summary",
    "description",
    "notes",
    "note",
    "rationale",
    "context",
    "reason",
    "answer",
    "goal",
    "detail",
    "label",
];

/// Plant unknown fields in (and vary the texts of) a JSON file, and write
/// it back in a style the input picks.
fn plant_json(path: &Path, rel: &str, input: &mut Input<'_>, planted: &mut Planted) {
    let Ok(bytes) = fs::read(path) else { return };
    let Ok(mut v) = serde_json::from_slice::<Value>(&bytes) else {
        return;
    };
    if !v.is_object() {
        return;
    }
    for i in 0..1 + input.below(4) {
        let key = format!("x-fuzz-{}-{i}", planted.json.len());
        let value = match input.below(4) {
            0 => Value::String(input.text(16)),
            1 => Value::from(input.below(1 << 16) as i64 - 7),
            2 => serde_json::json!({"nested": input.text(8), "n": [1, 2.5, null]}),
            _ => Value::Array(vec![Value::String(input.text(8))]),
        };
        let at = if input.below(2) == 0 {
            String::new()
        } else {
            let mut ptrs = Vec::new();
            object_pointers(&v, String::new(), &mut ptrs);
            ptrs[input.below(ptrs.len())].clone()
        };
        if let Some(Value::Object(m)) = v.pointer_mut(&at) {
            m.insert(key.clone(), value.clone());
            planted.json.push((rel.to_owned(), key, value, at));
        }
    }
    // Vary a text field: any text is a valid text.
    if input.below(2) == 0 {
        let mut texts = Vec::new();
        text_pointers(&v, String::new(), &mut texts);
        if !texts.is_empty() {
            let p = texts[input.below(texts.len())].clone();
            if let Some(s) = v.pointer_mut(&p) {
                *s = Value::String(input.text(24));
            }
        }
    }
    let out = match input.below(4) {
        0 => serde_json::to_vec(&v).unwrap_or_default(),
        1 => {
            let mut out = Vec::new();
            let f = serde_json::ser::PrettyFormatter::with_indent(b"\t");
            let mut ser = serde_json::Serializer::with_formatter(&mut out, f);
            serde::Serialize::serialize(&v, &mut ser).expect("serialise");
            out
        }
        _ => serde_json::to_vec_pretty(&v).unwrap_or_default(),
    };
    fs::write(path, out).expect("write the planted state");
}

fn escape(k: &str) -> String {
    k.replace('~', "~0").replace('/', "~1")
}

fn object_pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            out.push(at.clone());
            for (k, x) in m {
                object_pointers(x, format!("{at}/{}", escape(k)), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                object_pointers(x, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn text_pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{}", escape(k));
                if x.is_string() && TEXT_KEYS.contains(&k.as_str()) {
                    out.push(p);
                } else {
                    text_pointers(x, p, out);
                }
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                text_pointers(x, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Plant unknown lines in a Markdown file: a frontmatter key (when it has
/// frontmatter) and a section of its own.
fn plant_markdown(path: &Path, rel: &str, input: &mut Input<'_>, planted: &mut Planted) {
    let Ok(text) = fs::read_to_string(path) else {
        return;
    };
    let n = planted.lines.len();
    let word: String = input
        .text(12)
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ')
        .collect();
    let mut out = String::new();
    let mut rest = text.as_str();
    if let Some(after) = text.strip_prefix("---\n") {
        let line = format!("x_fuzz_{n}: \"{word}\"");
        out.push_str("---\n");
        out.push_str(&line);
        out.push('\n');
        rest = after;
        planted.lines.push((rel.to_owned(), line));
    }
    let heading = format!("## Fuzz Notes {n}");
    let section = format!("{heading}\n\nKept as written: {word}.\n");
    let place = input.below(3);
    let split = match place {
        0 => rest.find("\n## ").map(|i| i + 1),
        _ => None,
    };
    match split {
        Some(i) => {
            out.push_str(&rest[..i]);
            out.push_str(&section);
            out.push('\n');
            out.push_str(&rest[i..]);
        }
        None => {
            out.push_str(rest);
            if !rest.ends_with('\n') {
                out.push('\n');
            }
            out.push('\n');
            out.push_str(&section);
        }
    }
    planted.lines.push((rel.to_owned(), heading));
    planted
        .lines
        .push((rel.to_owned(), format!("Kept as written: {word}.")));
    fs::write(path, out).expect("write the planted Markdown");
}

/// The seeds of a format: directories to copy, relative to the workspace
/// copy they land in.
fn seeds(format: Format) -> Vec<(PathBuf, PathBuf)> {
    let ex = examples();
    let list = |sub: &str| -> Vec<(PathBuf, PathBuf)> {
        let mut v: Vec<_> = fs::read_dir(ex.join(sub))
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v.into_iter()
            .map(|p| {
                let name = p.file_name().map(PathBuf::from).unwrap_or_default();
                (p, name)
            })
            .collect()
    };
    match format {
        Format::PrdMaster => list("prd-master"),
        Format::Gsd => list("gsd"),
        Format::Dwp => list("dwp"),
        Format::Devloop => list("devloop/data/companies/acme/projects")
            .into_iter()
            .map(|(p, name)| (p, PathBuf::from("data/companies/acme/projects").join(name)))
            .collect(),
    }
}

pub fn decide_prd(data: &[u8]) {
    decide(Format::PrdMaster, data);
}
pub fn decide_gsd(data: &[u8]) {
    decide(Format::Gsd, data);
}
pub fn decide_dwp(data: &[u8]) {
    decide(Format::Dwp, data);
}
pub fn decide_devloop(data: &[u8]) {
    decide(Format::Devloop, data);
}

/// A decision on a random valid state of `format`: a seed project copied,
/// unknown fields and sections planted, texts varied; one of the decisions
/// the reader offers, picked and filled in by the input, made as `act`
/// makes it. When it is written: only the files it reports changed, every
/// one still parses, every planted field and line is kept, append-only
/// logs only grew, and in each JSON list at most one entry changed.
fn decide(format: Format, data: &[u8]) {
    let mut input = Input::new(data);
    let seeds = seeds(format);
    if seeds.is_empty() {
        panic!("no seed projects for {format:?}");
    }
    let (seed, rel) = &seeds[input.below(seeds.len())];
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let work = tmp.path().join("ws");
    let dir = work.join(rel);
    copy_tree(seed, &dir);
    let state = tmp.path().join("state");

    // Plant.
    let mut planted = Planted::default();
    let before_plant = files(&work);
    for f in before_plant.keys() {
        if f.contains("/history/") || f.contains("/runs/") {
            continue;
        }
        let path = work.join(f);
        if f.ends_with(".json") && input.below(3) != 0 {
            plant_json(&path, f, &mut input, &mut planted);
        } else if (f.ends_with("STATE.md") || f.ends_with("README.md")) && input.below(3) != 0 {
            plant_markdown(&path, f, &mut input, &mut planted);
        }
    }

    // Read as `act` reads, pick an offered decision.
    let found = loopdeck_core::read::load_dir(&dir);
    let mut projects: Vec<Project> = found
        .projects
        .into_iter()
        .filter(|p| p.format == format)
        .collect();
    if projects.is_empty() {
        return;
    }
    let project = projects.swap_remove(input.below(projects.len()));
    let addrs = project.addresses_at(now());
    if addrs.is_empty() {
        return;
    }
    let addr = &addrs[input.below(addrs.len())];
    let picks = addr.picks();
    let pick = picks[input.below(picks.len())];
    let fields = addr.fields(pick);
    let values: Vec<String> = fields
        .iter()
        .map(|_| match input.below(4) {
            0 => String::new(),
            1 => addr.target.clone().unwrap_or_default(),
            2 => format!("fuzz {}", input.text(20)),
            _ => input.text(40),
        })
        .collect();
    let Ok(verb) = addr.build(pick, &values) else {
        return;
    };
    let verb_name = verb.name();
    let req = Request {
        verb,
        by: "fuzz".into(),
        now: now(),
        devloop_api: None,
        config_file: None,
    };
    let opts = WriteOptions {
        wait: Duration::from_millis(0),
        audit_dir: Some(state),
        now: Some(now()),
        ..WriteOptions::default()
    };
    let before = files(&work);
    let result = loopdeck_core::decide::act(&project, &req, &opts);
    let after = files(&work);
    if std::env::var_os("FUZZ_TRACE").is_some() {
        let said = match &result {
            Ok(o) => format!(
                "written {:?}",
                o.files.iter().map(|f| &f.file).collect::<Vec<_>>()
            ),
            Err(e) => format!("refused: {e}"),
        };
        eprintln!("{verb_name} {:?} {pick:?}: {said}", addr.target);
    }
    let outcome = match result {
        Ok(o) => o,
        Err(ActError::Refused(_)) | Err(ActError::Changed(_)) | Err(ActError::Locked(_)) => {
            assert!(before == after, "a refused {verb_name} changed the project");
            return;
        }
        Err(e) => panic!("{verb_name} failed on a fresh copy: {e}"),
    };
    let base = dir
        .strip_prefix(&work)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let project_rel = project
        .path
        .strip_prefix(&work)
        .map(Path::to_path_buf)
        .unwrap_or(base);
    let reported: Vec<String> = outcome
        .files
        .iter()
        .map(|c| project_rel.join(&c.file).to_string_lossy().into_owned())
        .collect();
    let what = format!("{verb_name} {:?} {:?}", addr.target, pick);

    // Only the reported files changed.
    let names: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for f in names {
        if before.get(f) != after.get(f) {
            assert!(
                reported.contains(f),
                "{what}: {f} changed but the decision reported only {reported:?}"
            );
        }
    }
    // Every changed file parses; logs only grew; JSON lists changed by one entry.
    for f in &reported {
        let (Some(old), Some(new)) = (before.get(f), after.get(f)) else {
            continue;
        };
        if f.ends_with(".ndjson") {
            assert!(new.starts_with(old), "{what}: {f} was not appended to");
            for line in new[old.len()..].split(|b| *b == b'\n') {
                if !line.is_empty() {
                    assert!(
                        serde_json::from_slice::<Value>(line).is_ok(),
                        "{what}: {f} got a line that does not parse"
                    );
                }
            }
        } else if f.ends_with(".json") {
            let o: Value = match serde_json::from_slice(strip_bom(old)) {
                Ok(v) => v,
                Err(_) => continue,
            };
            let n: Value = match serde_json::from_slice(strip_bom(new)) {
                Ok(v) => v,
                Err(e) => panic!("{what}: {f} no longer parses: {e}"),
            };
            let mut problems = Vec::new();
            compare(&o, &n, f.clone(), verb_name, &mut problems);
            assert!(problems.is_empty(), "{what}: {}", problems.join("; "));
        } else if f.ends_with("STATE.md") {
            assert!(
                splice::Doc::parse(new).is_ok(),
                "{what}: {f} no longer parses as STATE.md"
            );
            lines_kept(old, new, f, &what);
        }
    }
    // Planted things are kept.
    for (f, key, value, at) in &planted.json {
        let Some(new) = after.get(f) else { continue };
        let Ok(n) = serde_json::from_slice::<Value>(strip_bom(new)) else {
            panic!("{what}: {f} no longer parses");
        };
        let old = before
            .get(f)
            .and_then(|b| serde_json::from_slice::<Value>(strip_bom(b)).ok())
            .unwrap_or(Value::Null);
        if before.get(f) != after.get(f) && !entry_removed(&old, &n, at) && !replaced_record(at) {
            assert!(
                holds(&n, key, value) || !holds(&old, key, value),
                "{what}: {f} lost the unknown field {key} planted at {at:?}"
            );
        }
    }
    for (f, line) in &planted.lines {
        if let Some(new) = after.get(f) {
            assert!(
                String::from_utf8_lossy(new).contains(line.as_str()),
                "{what}: {f} lost the line {line:?}"
            );
        }
    }
    // What was written is read again as the same format.
    let again = loopdeck_core::read::load_dir(&dir);
    assert!(
        again.projects.iter().any(|p| p.format == format),
        "{what}: the project is no longer read as {format:?}"
    );
}

fn strip_bom(b: &[u8]) -> &[u8] {
    b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b)
}

/// Was the entry holding `at` removed as a whole: a list entry whose id
/// left its list (answering a PRD-master question takes it out of
/// `open_questions`), or a record set to null (DWP's `unblock` clears
/// `blocked`)? What it held goes with it.
fn entry_removed(old: &Value, new: &Value, at: &str) -> bool {
    let parts: Vec<&str> = at.split('/').collect();
    // A record cleared (DWP's `blocked` set to null by `unblock`).
    let cleared = (2..=parts.len()).any(|n| {
        let p = parts[..n].join("/");
        old.pointer(&p).is_some_and(Value::is_object) && new.pointer(&p).is_none_or(Value::is_null)
    });
    cleared
        || (2..=parts.len()).any(|n| {
            let list = parts[..n - 1].join("/");
            let entry = parts[..n].join("/");
            let id = old
                .pointer(&list)
                .filter(|l| l.is_array())
                .and_then(|_| old.pointer(&entry))
                .and_then(|e| e.get("id"));
            match (id, new.pointer(&list)) {
                (Some(id), Some(Value::Array(now))) => !now.iter().any(|e| e.get("id") == Some(id)),
                (Some(_), None) => true,
                _ => false,
            }
        })
}

/// Records a format's protocol replaces whole: DWP's `checkpoint` ("move
/// the checkpoint", on every write, as DWP's own updater does) and
/// PRD-master's `next_action` (recomputed from the frontier when a question
/// is answered in stage 1, rewritten by the migration of a legacy state).
const REPLACED_RECORDS: &[&str] = &["checkpoint", "next_action"];

fn replaced_record(at: &str) -> bool {
    REPLACED_RECORDS.iter().any(|r| {
        at.strip_prefix('/')
            .and_then(|a| a.strip_prefix(r))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// Is (key, value) a field of some object in `v`?
fn holds(v: &Value, key: &str, value: &Value) -> bool {
    match v {
        Value::Object(m) => m.get(key) == Some(value) || m.values().any(|x| holds(x, key, value)),
        Value::Array(a) => a.iter().any(|x| holds(x, key, value)),
        _ => false,
    }
}

/// Lists in a decision's JSON: unchanged, appended to, one entry changed
/// or one removed. Unknown fields never removed.
fn compare(old: &Value, new: &Value, at: String, verb: &str, problems: &mut Vec<String>) {
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => {
            for (k, ov) in o {
                match n.get(k) {
                    Some(nv) => compare(ov, nv, format!("{at}/{k}"), verb, problems),
                    None if k.starts_with("x-fuzz")
                        && !REPLACED_RECORDS
                            .iter()
                            .any(|r| at.ends_with(&format!("state.json/{r}"))) =>
                    {
                        problems.push(format!("{at}: the unknown field {k} was removed"))
                    }
                    None => {}
                }
            }
        }
        (Value::Array(o), Value::Array(n)) => {
            if o == n {
                return;
            }
            if n.len() >= o.len() && n[..o.len()] == o[..] {
                return;
            }
            if n.len() + 1 == o.len() {
                return;
            }
            if n.len() == o.len() {
                let changed: Vec<usize> = (0..o.len()).filter(|i| o[*i] != n[*i]).collect();
                let entries = o.iter().all(|e| e.get("id").is_some());
                if changed.len() > 1 && entries && !MANY_ENTRIES.contains(&verb) {
                    problems.push(format!(
                        "{at}: {} entries changed ({changed:?}), one expected",
                        changed.len()
                    ));
                }
                for i in changed {
                    compare(&o[i], &n[i], format!("{at}/{i}"), verb, problems);
                }
            }
        }
        _ => {}
    }
}

/// Verbs whose rule changes several entries of one list at once.
const MANY_ENTRIES: &[&str] = &["reconcile"];

/// STATE.md: the decision adds lines, and removes at most the lines it
/// replaces (a timestamp, a "None" placeholder, the resolved blocker).
fn lines_kept(old: &[u8], new: &[u8], f: &str, what: &str) {
    let o = String::from_utf8_lossy(old);
    let n = String::from_utf8_lossy(new);
    let diff = similar::TextDiff::from_lines(o.as_ref(), n.as_ref());
    let removed: Vec<String> = diff
        .iter_all_changes()
        .filter(|c| c.tag() == similar::ChangeTag::Delete)
        .map(|c| c.value().trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect();
    assert!(
        removed.len() <= 3,
        "{what}: {f} lost {} lines: {removed:?}",
        removed.len()
    );
}
