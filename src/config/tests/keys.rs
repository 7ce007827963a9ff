//! The `[keys]` table: read in file order with the line and column of
//! each entry, and its mistakes named with their line.

use crate::config::*;

#[test]
fn the_keys_table_reads_in_file_order_with_its_lines() {
    let c = parse(
        "mouse = true\n[keys]\nquit = \"Q\"\ninbox = [\"i\", \"I\"]\n\"inbox.decide\" = \"enter\"\nreload = \"\"\n",
        "c.toml",
    )
    .unwrap();
    type Seen<'a> = (&'a str, Vec<&'a str>, (usize, usize), (usize, usize));
    let got: Vec<Seen> = c
        .keys
        .0
        .iter()
        .map(|e| {
            (
                e.name.as_str(),
                e.keys.iter().map(String::as_str).collect(),
                e.at,
                e.value_at,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("quit", vec!["Q"], (3, 1), (3, 8)),
            ("inbox", vec!["i", "I"], (4, 1), (4, 9)),
            ("inbox.decide", vec!["enter"], (5, 1), (5, 18)),
            ("reload", vec![], (6, 1), (6, 10)),
        ]
    );
    assert!(parse("", "c.toml").unwrap().keys.0.is_empty());
}

#[test]
fn a_key_that_is_not_a_string_names_its_line() {
    let e = parse("[keys]\nquit = \"q\"\nhelp = 5\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "config file c.toml, line 3, column 8: expected a key (\"q\"), a list of keys ([\"q\", \"Q\"]) or \"\" (unbound)"
    );
    let e = parse("[keys]\nhelp = [\"?\", 1]\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("config file c.toml, line 2, column 8: expected a key"),
        "{e}"
    );
}
