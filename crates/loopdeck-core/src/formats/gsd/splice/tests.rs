#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

use super::*;
use chrono::TimeZone;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap() + chrono::Duration::milliseconds(789)
}

fn edit(text: &str, f: impl FnOnce(&mut Doc)) -> String {
    let mut doc = Doc::parse(text.as_bytes()).unwrap();
    f(&mut doc);
    String::from_utf8(doc.to_bytes()).unwrap()
}

const TEMPLATE: &str = "---\ngsd_state_version: '1.0'\nstatus: executing\nlast_updated: \"2026-05-01T00:00:00.000Z\"\nprogress:\n  percent: 40\n---\n\n# Project State\n\n## Accumulated Context\n\n### Decisions\n\nNone yet.\n\n### Pending Todos\n\nNone yet.\n\n### Blockers/Concerns\n\nNone yet.\n\n## Session Continuity\n\nLast session: 2026-05-01\n";

#[test]
fn unchanged_file_round_trips_byte_for_byte() {
    for text in [
        TEMPLATE,
        "---\r\nstatus: x\r\n---\r\n# S\r\nno newline at end",
        "\u{feff}---\nstatus: x\n---\n# S\n",
        "# Old style\n\nStatus: planning\n",
    ] {
        assert_eq!(edit(text, |_| {}), text);
    }
}

#[test]
fn iso_is_javascripts_to_iso_string() {
    assert_eq!(iso(now()), "2026-06-01T12:00:00.789Z");
    assert_eq!(
        iso(Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap()),
        "2026-01-02T03:04:05.000Z"
    );
}

#[test]
fn a_decision_replaces_the_placeholder_of_gsds_template() {
    let out = edit(TEMPLATE, |d| {
        d.add(List::Decisions, "- [Phase 2]: A — b".into()).unwrap()
    });
    assert_eq!(
        out,
        TEMPLATE.replacen(
            "### Decisions\n\nNone yet.\n",
            "### Decisions\n\n- [Phase 2]: A — b\n",
            1
        )
    );
}

#[test]
fn a_decision_follows_the_last_one_and_blank_lines_stay() {
    let text = "# S\n\n### Decisions\n\n- [Phase 1]: a\n- [Phase 1]: b\n\n\n### Blockers\n- x\n";
    let out = edit(text, |d| {
        d.add(List::Decisions, "- [Phase 2]: c".into()).unwrap()
    });
    assert_eq!(
        out,
        "# S\n\n### Decisions\n\n- [Phase 1]: a\n- [Phase 1]: b\n- [Phase 2]: c\n\n\n### Blockers\n- x\n"
    );
}

#[test]
fn crlf_files_get_crlf_lines_and_a_missing_final_newline_stays_missing() {
    let text = "---\r\nstatus: x\r\n---\r\n# S\r\n\r\n### Blockers/Concerns\r\n\r\n- old";
    let out = edit(text, |d| d.add(List::Blockers, "- new".into()).unwrap());
    assert_eq!(
        out,
        "---\r\nstatus: x\r\n---\r\n# S\r\n\r\n### Blockers/Concerns\r\n\r\n- old\r\n- new"
    );
}

#[test]
fn gsds_heading_wins_over_an_earlier_heading_the_reader_also_takes() {
    let text = "# S\n\n## Key Decisions\n- k\n\n### Decisions Made\n- d\n";
    let out = edit(text, |d| d.add(List::Decisions, "- e".into()).unwrap());
    assert_eq!(
        out,
        "# S\n\n## Key Decisions\n- k\n\n### Decisions Made\n- d\n- e\n"
    );
    // `Accumulated ... Decisions`, case-insensitive, any level from 2.
    let text = "# S\n#### ACCUMULATED key decisions  \n- d\n## Next\n";
    let out = edit(text, |d| d.add(List::Decisions, "- e".into()).unwrap());
    assert_eq!(
        out,
        "# S\n#### ACCUMULATED key decisions  \n- d\n- e\n## Next\n"
    );
}

#[test]
fn without_gsds_heading_its_scaffold_is_appended_and_the_files_own_kept() {
    // gsd-tools' rule does not read `### Key Decisions`: its add-decision
    // appends `## Decisions` at the end, and so does loopdeck, leaving
    // the file's own section as it is.
    let text = "# S\n\n### Key Decisions\n\n- k\n\n## Session\n";
    let out = edit(text, |d| d.add(List::Decisions, "- e".into()).unwrap());
    assert_eq!(out, format!("{text}\n## Decisions\n\n- e\n"));
    let text = "# S\n## Blockers / Open Questions\n- q\n";
    let out = edit(text, |d| d.add(List::Blockers, "- b".into()).unwrap());
    assert_eq!(out, format!("{text}\n### Blockers\n\n- b\n"));
}

#[test]
fn gsds_regex_quirks_are_followed() {
    // Unanchored: a `##` run anywhere, a longer run, no space, any case;
    // the title must end its line (white space, CR, blank lines after).
    let cases = [
        (
            "# S\nnotes ## Decisions\n- a\n",
            "# S\nnotes ## Decisions\n- a\n- e\n",
        ),
        (
            "# S\n#### decisions\n- a\n",
            "# S\n#### decisions\n- a\n- e\n",
        ),
        (
            "# S\n##Decisions  \r\n- a\r\n",
            "# S\n##Decisions  \r\n- a\r\n- e\r\n",
        ),
        (
            "# S\n## Accumulated Context — Decisions\n- a\n## Next\n",
            "# S\n## Accumulated Context — Decisions\n- a\n- e\n## Next\n",
        ),
        // The first match in the file wins, whatever its level.
        (
            "# S\n### Decisions Made\n- a\n## Decisions\n- b\n",
            "# S\n### Decisions Made\n- a\n- e\n## Decisions\n- b\n",
        ),
        // A `# ` heading does not end the section (only `##` does); the
        // entry goes before it, still in gsd-tools' section.
        (
            "# S\n### Decisions\n- a\n# Aside\n- b\n## Next\n",
            "# S\n### Decisions\n- a\n- e\n# Aside\n- b\n## Next\n",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(
            edit(text, |d| d.add(List::Decisions, "- e".into()).unwrap()),
            want,
            "{text:?}"
        );
    }
    // Titles gsd-tools does not take: scaffolded.
    for text in [
        "# S\n### Decisions (v1.0)\n- a\n",
        "# S\n## Decisions Log\n- a\n",
        "# S\n**Decisions**\n- a\n",
        "# S\n# Decisions\n- a\n",
        "# S\n### Decisions — see ADRs\n- a\n",
    ] {
        assert_eq!(
            edit(text, |d| d.add(List::Decisions, "- e".into()).unwrap()),
            format!("{text}\n## Decisions\n\n- e\n"),
            "{text:?}"
        );
    }
    // A line of the frontmatter that gsd-tools would take: refused.
    let mut doc = Doc::parse(b"---\nx: 1\n## Blockers\n---\n# S\n### Blockers\n- a\n").unwrap();
    let err = doc.add(List::Blockers, "- e".into()).unwrap_err();
    assert!(
        err.contains("frontmatter") && err.contains("## Blockers"),
        "{err}"
    );
    assert_eq!(doc.resolve(List::Blockers, "a"), None);
}

#[test]
fn without_any_section_gsds_scaffold_is_appended() {
    let out = edit("# S\n\nStatus: x\n", |d| {
        d.add(List::Decisions, "- e".into()).unwrap()
    });
    assert_eq!(out, "# S\n\nStatus: x\n\n## Decisions\n\n- e\n");
    let out = edit("# S\n\nStatus: x", |d| {
        d.add(List::Blockers, "- b".into()).unwrap()
    });
    assert_eq!(out, "# S\n\nStatus: x\n\n### Blockers\n\n- b\n");
    let out = edit("# S\r\n\r\n", |d| {
        d.add(List::Blockers, "- b".into()).unwrap()
    });
    assert_eq!(out, "# S\r\n\r\n### Blockers\r\n\r\n- b\r\n");
}

#[test]
fn empty_sections_and_placeholders_of_every_shape() {
    let out = edit("# S\n### Decisions\n### Next\n", |d| {
        d.add(List::Decisions, "- e".into()).unwrap()
    });
    assert_eq!(out, "# S\n### Decisions\n- e\n### Next\n");
    let out = edit("# S\n### Decisions\n\n\n## Next\n", |d| {
        d.add(List::Decisions, "- e".into()).unwrap()
    });
    assert_eq!(out, "# S\n### Decisions\n\n- e\n\n## Next\n");
    // Exactly the lines gsd-tools' placeholder substitution empties go
    // (checked with node against state.cjs' regexes); a line it only
    // mangles is the file's and stays, the entry after it.
    let cases = [
        (List::Decisions, "None yet.", "goes"),
        (List::Decisions, "No decisions yet", "goes"),
        (List::Decisions, "none yet", "goes"),
        (List::Decisions, "NO DECISIONS YET.", "goes"),
        (List::Decisions, "- None", "after"),
        (List::Decisions, "*None.*", "after"),
        (List::Decisions, "- (none)", "after"),
        (List::Decisions, "None currently.", "after"),
        (List::Decisions, "- None yet.", "before"), // its line break goes too
        (List::Decisions, "None", "after"),
        (List::Blockers, "None", "goes"),
        (List::Blockers, "None.", "goes"),
        (List::Blockers, "none none", "goes"),
        (List::Blockers, "None yet.", "after"),
        (List::Blockers, "none yet", "after"),
        (List::Blockers, "- None", "before"), // its line break goes too
        (List::Blockers, "*None.*", "after"),
        (List::Blockers, "- (none)", "after"),
        (List::Blockers, "None currently.", "after"),
        (List::Blockers, "No decisions yet", "after"),
    ];
    // "before": the line ends in the word, whose line break gsd-tools
    // takes with it (see an_entry_never_follows_a_line_gsd_tools_would_join_to_it).
    for (list, placeholder, place) in cases {
        let heading = match list {
            List::Decisions => "### Decisions",
            List::Blockers => "### Blockers",
        };
        let text = format!("# S\n{heading}\n\n{placeholder}\n\n## Next\n");
        let out = edit(&text, |d| d.add(list, "- e".into()).unwrap());
        let want = match place {
            "goes" => format!("# S\n{heading}\n\n- e\n\n## Next\n"),
            "before" => format!("# S\n{heading}\n\n- e\n{placeholder}\n\n## Next\n"),
            _ => format!("# S\n{heading}\n\n{placeholder}\n- e\n\n## Next\n"),
        };
        assert_eq!(out, want, "{list:?} {placeholder}");
    }
    // A real item that merely starts with "none" is kept.
    let text = "# S\n### Blockers\n- none of the tests pass\n";
    let out = edit(text, |d| d.add(List::Blockers, "- b".into()).unwrap());
    assert_eq!(out, "# S\n### Blockers\n- none of the tests pass\n- b\n");
    // A placeholder after content goes; the entry follows the content.
    let out = edit("# S\n### Blockers\n- a\nNone.", |d| {
        d.add(List::Blockers, "- b".into()).unwrap()
    });
    assert_eq!(out, "# S\n### Blockers\n- a\n- b");
}

#[test]
fn an_entry_never_follows_a_line_gsd_tools_would_join_to_it() {
    // gsd-tools' next add-decision removes `None yet.` with the line break
    // after it (Mocktra-Forge__Mockly's `- None yet.`): the entry goes
    // before such a line, and survives that write verbatim.
    let text = "# S\n### Decisions\n\nRecent decisions:\n\n- None yet.\n\n## Next\n";
    let out = edit(text, |d| d.add(List::Decisions, "- e".into()).unwrap());
    assert_eq!(
        out,
        "# S\n### Decisions\n\nRecent decisions:\n- e\n\n- None yet.\n\n## Next\n"
    );
    let text = "# S\n### Blockers\n- a\n- Owner: none\n";
    let out = edit(text, |d| d.add(List::Blockers, "- e".into()).unwrap());
    assert_eq!(out, "# S\n### Blockers\n- a\n- e\n- Owner: none\n");
    let text = "# S\n### Blockers\n- Owner: None.\n";
    let out = edit(text, |d| d.add(List::Blockers, "- e".into()).unwrap());
    assert_eq!(out, "# S\n### Blockers\n- e\n- Owner: None.\n");
}

#[test]
fn placeholder_items_are_not_blockers_but_gsd_tools_resolves_them() {
    let text = "# S\n### Blockers\n- (none)\n- *None.*\n- **\n- n/a\n- real one\n";
    let mut doc = Doc::parse(text.as_bytes()).unwrap();
    assert_eq!(doc.items(List::Blockers), vec!["real one"]);
    // gsd-tools' resolve-blocker matches every `- ` line, and so does
    // loopdeck's (a text several hold needs --all, said by the act).
    assert_eq!(
        doc.resolve(List::Blockers, "(none)").unwrap(),
        vec!["- (none)"]
    );
}

#[test]
fn last_updated_is_refreshed_in_gsds_format() {
    let out = edit(TEMPLATE, |d| d.refresh_last_updated(now()));
    assert_eq!(
        out,
        TEMPLATE.replace(
            "last_updated: \"2026-05-01T00:00:00.000Z\"",
            "last_updated: \"2026-06-01T12:00:00.789Z\""
        )
    );
    // Unquoted, with a comment: the value is gsd-tools', the comment stays.
    let out = edit(
        "---\nlast_updated: 2026-01-01 # by hand\nstatus: x\n---\n",
        |d| d.refresh_last_updated(now()),
    );
    assert_eq!(
        out,
        "---\nlast_updated: \"2026-06-01T12:00:00.789Z\" # by hand\nstatus: x\n---\n"
    );
    // Missing: added before the closing line, after a progress block.
    let out = edit(
        "---\r\nstatus: x\r\nprogress:\r\n  percent: 5\r\n---\r\n# S\r\n",
        |d| d.refresh_last_updated(now()),
    );
    assert_eq!(
        out,
        "---\r\nstatus: x\r\nprogress:\r\n  percent: 5\r\nlast_updated: \"2026-06-01T12:00:00.789Z\"\r\n---\r\n# S\r\n"
    );
    // A key in the body or in a later block is not the frontmatter's.
    let text = "---\nstatus: x\n---\n# S\nlast_updated: body\n";
    let out = edit(text, |d| d.refresh_last_updated(now()));
    assert_eq!(
        out,
        "---\nstatus: x\nlast_updated: \"2026-06-01T12:00:00.789Z\"\n---\n# S\nlast_updated: body\n"
    );
    // No frontmatter: none is added (the file's mtime is its last update).
    let text = "# S\nStatus: x\n";
    assert_eq!(edit(text, |d| d.refresh_last_updated(now())), text);
}

#[test]
fn what_does_not_parse_is_refused() {
    let refused = |b: &[u8]| Doc::parse(b).unwrap_err();
    assert!(refused(b"---\nstatus: \xff\n---\n").contains("not UTF-8"));
    assert!(refused(b"---\nstatus: x\n---\n\0\0").contains("control character"));
    assert!(refused(b"---\nstatus: x\n# never closed\n").contains("never closes"));
    assert!(refused(b"").contains("empty"));
    assert!(refused(b"\n  \n").contains("empty"));
    assert!(refused(b"just some words\n").contains("neither"));
    assert!(Doc::parse(b"# Project State\n").is_ok());
    assert!(Doc::parse(b"---\nstatus: x\n---\n").is_ok());
}

#[test]
fn resolving_removes_every_matching_item_case_insensitively() {
    let text = "# S\n### Blockers/Concerns\n\n- API key missing\n- Waiting on api KEY rotation\n- Design review\n\n## Session\n";
    let mut doc = Doc::parse(text.as_bytes()).unwrap();
    let removed = doc.resolve(List::Blockers, "api key").unwrap();
    assert_eq!(
        removed,
        vec!["- API key missing", "- Waiting on api KEY rotation"]
    );
    assert_eq!(
        String::from_utf8(doc.to_bytes()).unwrap(),
        "# S\n### Blockers/Concerns\n\n- Design review\n\n## Session\n"
    );
}

#[test]
fn the_last_blocker_resolved_leaves_none() {
    let text = "# S\n### Blockers\n\n- only one\n\n## Session\n";
    let out = edit(text, |d| {
        assert_eq!(d.resolve(List::Blockers, "ONLY").unwrap().len(), 1);
    });
    assert_eq!(out, "# S\n### Blockers\n\nNone\n\n## Session\n");
    // Prose left in the section is kept, and then no `None` is added.
    let text = "# S\n### Blockers\nSee the risk register.\n- only one";
    let out = edit(text, |d| {
        d.resolve(List::Blockers, "only").unwrap();
    });
    assert_eq!(out, "# S\n### Blockers\nSee the risk register.");
}

#[test]
fn resolving_what_is_not_there() {
    let text = "# S\n### Blockers\n- a\n";
    let mut doc = Doc::parse(text.as_bytes()).unwrap();
    assert_eq!(doc.resolve(List::Blockers, "zzz"), Some(vec![]));
    assert_eq!(doc.to_bytes(), text.as_bytes());
    assert_eq!(doc.items(List::Blockers), vec!["a"]);
    let mut doc = Doc::parse(b"# S\n### Decisions\n- a\n").unwrap();
    assert_eq!(doc.resolve(List::Blockers, "a"), None);
}

#[test]
fn the_current_phase() {
    let phase = |t: &str| Doc::parse(t.as_bytes()).unwrap().current_phase(t);
    assert_eq!(
        phase("---\nactive_phase: \"4.5\"\ncurrent_phase: 4\n---\n"),
        Some("4.5".into())
    );
    assert_eq!(
        phase("---\nactive_phase: null\ncurrent_phase: \"04\"\n---\n"),
        Some("04".into())
    );
    assert_eq!(phase("# S\nPhase: 2 of 5 (数据层)\n"), Some("2".into()));
    assert_eq!(phase("# S\n**Current Phase:** 3, Auth\n"), Some("3".into()));
    assert_eq!(
        phase("# S\nPhase: Not started (defining requirements)\n"),
        None
    );
    assert_eq!(phase("# S\n"), None);
}

#[test]
fn one_line_text_only() {
    assert_eq!(one_line("x", "  a b  ").unwrap(), "a b");
    assert!(one_line("x", "a\nb").is_err());
    assert!(one_line("x", "a\u{1b}[2J").is_err());
    assert!(one_line("x", " \t ").is_err());
    assert_eq!(flatten("a\n\n b\u{1b}c"), "a b c");
}

#[test]
fn bold_line_sections_are_the_files_own_and_gsds_scaffold_is_used() {
    let text = "# S\n\n**Decisions**\n- a\n\n**Blockers/Concerns**\n- CEO phone is off-limits\n- b\n\n## Session\n";
    let out = edit(text, |d| d.add(List::Decisions, "- e".into()).unwrap());
    assert_eq!(out, format!("{text}\n## Decisions\n\n- e\n"));
    // gsd-tools' resolve-blocker does not reach them either.
    let mut doc = Doc::parse(text.as_bytes()).unwrap();
    assert!(doc.items(List::Blockers).is_empty());
    assert_eq!(doc.resolve(List::Blockers, "ceo phone"), None);
    assert_eq!(
        doc.other_heading(List::Blockers).as_deref(),
        Some("**Blockers/Concerns**")
    );
}

#[test]
fn bold_labels_under_a_heading_stay_in_its_section() {
    let text = "# S\n## Decisions\n**Stack**\n- Rust\n**Process**\n- TDD\n## Next\n";
    let out = edit(text, |d| d.add(List::Decisions, "- e".into()).unwrap());
    assert_eq!(out, text.replace("- TDD\n", "- TDD\n- e\n"));
}

#[test]
fn an_added_last_updated_line_leaves_gsds_hook_reading_the_same() {
    for text in [
        "---\nstatus: executing\nmilestone: v1\nprogress:\n  completed_phases: 2\n  total_phases: 5\n  percent: 40\n---\nPhase: 2 of 5 (Data)\n",
        "---\r\nstatus: idle\r\nnext_action: plan-phase\r\nnext_phases:\r\n  - \"4.5\"\r\n  - 4.6\r\n---\r\n# S\r\nPhase: 1 of 2 (Data)\r\n",
        "---\nstatus: x\nnext_phases: [\"1\", \"2\"]\nnext_action: execute-phase\n---",
    ] {
        let out = edit(text, |d| d.refresh_last_updated(now()));
        assert!(
            out.contains("last_updated: \"2026-06-01T12:00:00.789Z\""),
            "{out}"
        );
        let hook = super::super::statusline::parse_state_md;
        assert_eq!(hook(&out), hook(text), "{text:?}");
        assert_ne!(super::super::statusline::statusline(text), "");
    }
}
