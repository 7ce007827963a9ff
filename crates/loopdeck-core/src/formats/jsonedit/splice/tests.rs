use serde_json::json;

use super::*;

fn edit_with(src: &str, ascii_only: bool, f: impl FnOnce(&mut Value)) -> Option<String> {
    let old: Value = serde_json::from_str(src).unwrap();
    let mut new = old.clone();
    f(&mut new);
    splice(src.as_bytes(), &old, &new, ascii_only).map(|b| String::from_utf8(b).unwrap())
}

fn edit(src: &str, f: impl FnOnce(&mut Value)) -> String {
    edit_with(src, false, f).unwrap()
}

#[test]
fn only_changed_values_move() {
    let src = "{\n  \"a\": { \"k\": 1, \"v\": \"x\" },\n  \"s\": \"pending\",\n  \"n\": null\n}\n";
    let out = edit(src, |v| v["s"] = "approved".into());
    assert_eq!(out, src.replace("\"pending\"", "\"approved\""));
}

#[test]
fn new_keys_follow_their_neighbours_style() {
    let src = "{\n  \"a\": { \"k\": 1 },\n  \"n\": null\n}\n";
    let out = edit(src, |v| {
        v["a"]["z"] = 2.into();
        v["n"] = json!({"task": 1, "note": "é"});
        v["c"] = json!({"t": 2});
    });
    assert_eq!(
        out,
        "{\n  \"a\": { \"k\": 1, \"z\": 2 },\n  \"n\": {\n    \"task\": 1,\n    \"note\": \"é\"\n  },\n  \"c\": {\n    \"t\": 2\n  }\n}\n"
    );
}

#[test]
fn removed_keys_are_cut_with_their_separator() {
    let src = "{\n  \"a\": 1,\n  \"b\": 1.50,\n  \"c\": 2,\n  \"d\": 1e3\n}\n";
    assert_eq!(
        edit(src, |v| {
            v.as_object_mut().unwrap().shift_remove("c");
        }),
        "{\n  \"a\": 1,\n  \"b\": 1.50,\n  \"d\": 1e3\n}\n"
    );
    assert_eq!(
        edit(src, |v| {
            v.as_object_mut().unwrap().shift_remove("a");
        }),
        "{\n  \"b\": 1.50,\n  \"c\": 2,\n  \"d\": 1e3\n}\n"
    );
    assert_eq!(
        edit(src, |v| {
            v.as_object_mut().unwrap().shift_remove("d");
            v["e"] = 3.into();
        }),
        "{\n  \"a\": 1,\n  \"b\": 1.50,\n  \"c\": 2,\n  \"e\": 3\n}\n"
    );
    assert_eq!(
        edit("{\"a\": 1, \"b\": 2}", |v| {
            v.as_object_mut().unwrap().shift_remove("b");
        }),
        "{\"a\": 1}"
    );
}

#[test]
fn reordered_keys_rewrite_only_their_object() {
    let src = "{\n  \"o\": {\"a\": 1, \"b\": 2},\n  \"n\": 1.50\n}\n";
    assert_eq!(
        edit(src, |v| v["o"] = json!({"b": 2, "a": 1})),
        "{\n  \"o\": {\n    \"b\": 2,\n    \"a\": 1\n  },\n  \"n\": 1.50\n}\n"
    );
}

#[test]
fn long_logs_compare_only_what_changed() {
    let log: Vec<Value> = (0..5000).map(|i| json!({"t": i, "s": "x"})).collect();
    // `1.50`: bytes only a splice keeps.
    let src = serde_json::to_string_pretty(&json!({ "log": log }))
        .unwrap()
        .replace("\"x\"", "1.50");
    let out = edit(&src, |v| {
        v["log"].as_array_mut().unwrap().push(json!({"t": -1}));
    });
    assert!(
        out.starts_with(&src[..src.len() - 8]),
        "{}",
        &out[out.len() - 80..]
    );
    assert!(
        out.ends_with("},\n    {\n      \"t\": -1\n    }\n  ]\n}"),
        "{}",
        &out[out.len() - 80..]
    );
}

#[test]
fn array_elements_are_removed_appended_and_edited_in_place() {
    let src = "{\n\t\"q\": [\n\t\t{\"id\": 1},\n\t\t{\"id\": 2, \"n\": 123456789012345678901234},\n\t\t{\"id\": 3}\n\t],\n\t\"log\": [\n\t\t\"a\\/b\"\n\t]\n}";
    let out = edit(src, |v| {
        v["q"].as_array_mut().unwrap().remove(0);
        v["q"][1]["s"] = "done".into();
        v["log"].as_array_mut().unwrap().push(json!({"t": "x"}));
    });
    assert_eq!(
        out,
        "{\n\t\"q\": [\n\t\t{\"id\": 2, \"n\": 123456789012345678901234},\n\t\t{\"id\": 3, \"s\": \"done\"}\n\t],\n\t\"log\": [\n\t\t\"a\\/b\",\n\t\t{\n\t\t\t\"t\": \"x\"\n\t\t}\n\t]\n}"
    );
    // A middle element; the last ones.
    let out = edit(src, |v| {
        v["q"].as_array_mut().unwrap().remove(1);
    });
    assert_eq!(
        out,
        "{\n\t\"q\": [\n\t\t{\"id\": 1},\n\t\t{\"id\": 3}\n\t],\n\t\"log\": [\n\t\t\"a\\/b\"\n\t]\n}"
    );
    let out = edit(src, |v| {
        v["q"].as_array_mut().unwrap().truncate(1);
    });
    assert_eq!(
        out,
        "{\n\t\"q\": [\n\t\t{\"id\": 1}\n\t],\n\t\"log\": [\n\t\t\"a\\/b\"\n\t]\n}"
    );
    // Emptied, and filled from empty: as json.dump writes them.
    let out = edit(src, |v| {
        v["q"] = json!([]);
    });
    assert!(out.starts_with("{\n\t\"q\": [],\n\t\"log\""), "{out}");
    assert_eq!(
        edit("{\n  \"l\": []\n}\n", |v| v["l"] = json!(["x"])),
        "{\n  \"l\": [\n    \"x\"\n  ]\n}\n"
    );
}

#[test]
fn crlf_one_line_and_escapes_follow_the_document() {
    let src = "{\r\n  \"a\": [\r\n    1\r\n  ],\r\n  \"q\": \"\\u4e2d\"\r\n}\r\n";
    assert_eq!(
        edit_with(src, true, |v| {
            v["a"].as_array_mut().unwrap().push(json!({"k": "文"}));
        })
        .unwrap(),
        "{\r\n  \"a\": [\r\n    1,\r\n    {\r\n      \"k\": \"\\u6587\"\r\n    }\r\n  ],\r\n  \"q\": \"\\u4e2d\"\r\n}\r\n"
    );
    assert_eq!(
        edit("{\"z\":1,\"a\":[1,2]}", |v| {
            v["a"].as_array_mut().unwrap().push(json!({"k": [3, 4]}));
            v["b"] = true.into();
        }),
        "{\"z\":1,\"a\":[1,2,{\"k\":[3,4]}],\"b\":true}"
    );
}

#[test]
fn a_duplicate_key_stays_written_twice() {
    let src = "{\n  \"d\": 1,\n  \"x\": 1,\n  \"d\": 2\n}\n";
    assert_eq!(
        edit(src, |v| v["x"] = 5.into()),
        "{\n  \"d\": 1,\n  \"x\": 5,\n  \"d\": 2\n}\n"
    );
    assert_eq!(
        edit(src, |v| v["d"] = 7.into()),
        "{\n  \"d\": 1,\n  \"x\": 1,\n  \"d\": 7\n}\n"
    );
}

/// The PRD goldens (Python's `json.dump` of the edited state) are what the
/// splice writes from the state before: removals from `open_questions`,
/// appends to the logs and changed values as `json.dump` spells them.
#[test]
fn the_prd_goldens_are_spliced_not_rewritten() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/prd-act");
    for (before, after) in [
        ("stage1", "answer"),
        ("stage1", "evidence"),
        ("choose", "choose"),
    ] {
        let src = std::fs::read(root.join(before).join("before/state.json")).unwrap();
        let want = std::fs::read(root.join(after).join("after/state.json")).unwrap();
        let old: Value = serde_json::from_slice(&src).unwrap();
        let new: Value = serde_json::from_slice(&want).unwrap();
        let ascii = src.is_ascii() && src.windows(2).any(|w| w == b"\\u");
        let got = splice(&src, &old, &new, ascii).unwrap_or_else(|| panic!("{after}: not spliced"));
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "{after}"
        );
    }
}
