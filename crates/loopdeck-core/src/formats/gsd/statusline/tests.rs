//! Vectors from GSD's own tests (`tests/enh-2833-phase-lifecycle-statusline.test.cjs`
//! and `tests/gsd-statusline.test.cjs`), plus end-to-end vectors computed by
//! running the hook's code on the same input.

use super::*;

fn st(pairs: &[(&str, &str)]) -> HookState {
    let mut s = HookState::default();
    for (k, v) in pairs {
        let v = Some((*v).to_owned());
        match *k {
            "status" => s.status = v,
            "milestone" => s.milestone = v,
            "milestoneName" => s.milestone_name = v,
            "activePhase" => s.active_phase = v,
            "nextAction" => s.next_action = v,
            "percent" => s.percent = v,
            "completedPhases" => s.completed_phases = v,
            "totalPhases" => s.total_phases = v,
            "phaseNum" => s.phase_num = v,
            "phaseTotal" => s.phase_total = v,
            "phaseName" => s.phase_name = v,
            other => panic!("unknown key {other}"),
        }
    }
    s
}

fn phases(s: HookState, p: &[&str]) -> HookState {
    HookState {
        next_phases: Some(p.iter().map(|x| (*x).to_owned()).collect()),
        ..s
    }
}

#[test]
fn format_vectors_from_upstream_tests() {
    let cases: Vec<(HookState, &str)> = vec![
        (
            st(&[
                ("milestone", "v2.0"),
                ("status", "executing"),
                ("activePhase", "4.5"),
                ("percent", "59"),
            ]),
            "v2.0 [█████░░░░░] 59% · Phase 4.5 executing",
        ),
        (
            st(&[("milestone", "v2.0"), ("activePhase", "4.5")]),
            "v2.0 · Phase 4.5",
        ),
        (
            phases(
                st(&[
                    ("milestone", "v2.0"),
                    ("nextAction", "execute-phase"),
                    ("percent", "59"),
                ]),
                &["4.5"],
            ),
            "v2.0 [█████░░░░░] 59% · next execute-phase 4.5",
        ),
        (
            phases(
                st(&[("milestone", "v2.0"), ("nextAction", "discuss-phase")]),
                &["4.7", "6.5"],
            ),
            "v2.0 · next discuss-phase 4.7/6.5",
        ),
        (
            st(&[("milestone", "v2.0"), ("percent", "100")]),
            "v2.0 [██████████] 100% · milestone complete",
        ),
        (
            st(&[
                ("milestone", "v2.0"),
                ("completedPhases", "17"),
                ("totalPhases", "17"),
            ]),
            "v2.0 · milestone complete",
        ),
        (
            st(&[
                ("status", "executing"),
                ("milestone", "v1.9"),
                ("milestoneName", "Code Quality"),
                ("phaseNum", "1"),
                ("phaseTotal", "5"),
                ("phaseName", "fix-graphiti-deployment"),
            ]),
            "v1.9 Code Quality · executing · fix-graphiti-deployment (1/5)",
        ),
        (
            st(&[("milestone", "v1.9"), ("status", "executing")]),
            "v1.9 · executing",
        ),
        (st(&[]), ""),
        (
            st(&[
                ("milestone", "v1.9"),
                ("milestoneName", "Code Quality"),
                ("status", "executing"),
            ]),
            "v1.9 Code Quality · executing",
        ),
        (
            st(&[("milestone", "v2.0"), ("percent", "0")]),
            "v2.0 [░░░░░░░░░░] 0%",
        ),
        (
            st(&[("milestone", "v2.0"), ("percent", "50")]),
            "v2.0 [█████░░░░░] 50%",
        ),
        (
            st(&[("milestone", "v2.0"), ("percent", "150")]),
            "v2.0 [██████████] 100%",
        ),
        (
            phases(
                st(&[
                    ("milestone", "v2.0"),
                    ("status", "executing"),
                    ("activePhase", "4.5"),
                    ("nextAction", "execute-phase"),
                ]),
                &["4.5"],
            ),
            "v2.0 · Phase 4.5 executing",
        ),
        (
            phases(
                st(&[
                    ("milestone", "v2.0"),
                    ("status", "in_progress"),
                    ("nextAction", "execute-phase"),
                    ("phaseNum", "1"),
                    ("phaseTotal", "5"),
                ]),
                &["4.5"],
            ),
            "v2.0 · next execute-phase 4.5",
        ),
        (
            st(&[
                ("milestone", "v2.0"),
                ("percent", "100"),
                ("phaseNum", "1"),
                ("phaseTotal", "5"),
            ]),
            "v2.0 [██████████] 100% · milestone complete",
        ),
        (
            st(&[
                ("milestone", "v1.15"),
                ("milestoneName", "Design Refresh"),
                ("status", "planning"),
                ("completedPhases", "0"),
                ("totalPhases", "0"),
                ("percent", "0"),
            ]),
            // 0 of 0 phases: the counters compare as strings ("0" === "0").
            "v1.15 Design Refresh [░░░░░░░░░░] 0% · milestone complete",
        ),
        (
            st(&[
                ("milestone", "v2.0"),
                ("completedPhases", "1"),
                ("totalPhases", "1"),
            ]),
            "v2.0 · milestone complete",
        ),
        (
            st(&[
                ("milestone", "v2.0"),
                ("completedPhases", "0"),
                ("totalPhases", "1"),
            ]),
            "v2.0",
        ),
        (
            st(&[
                ("milestone", "v2.0"),
                ("completedPhases", "1"),
                ("totalPhases", "0"),
            ]),
            "v2.0",
        ),
        (
            st(&[
                ("milestone", "v1.0"),
                ("milestoneName", "milestone"),
                ("status", "planning"),
            ]),
            "v1.0 · planning",
        ),
        (
            st(&[
                ("milestone", "v2.0"),
                ("status", "executing"),
                ("phaseNum", "3"),
                ("phaseTotal", "7"),
            ]),
            "v2.0 · executing · ph 3/7",
        ),
        (
            st(&[("milestoneName", "Foundations"), ("status", "planning")]),
            "Foundations · planning",
        ),
        (st(&[("status", "planning")]), "planning"),
        (st(&[("percent", "100")]), "milestone complete"),
        (st(&[("milestone", "v2.0"), ("nextAction", "x")]), "v2.0"),
    ];
    for (input, want) in cases {
        assert_eq!(format_gsd_state(&input), want, "{input:?}");
    }
}

#[test]
fn parse_vectors_from_upstream_tests() {
    let s = parse_state_md("---\nmilestone: v2.0\nstatus: executing\nactive_phase: \"4.5\"\n---");
    assert_eq!(s.active_phase.as_deref(), Some("4.5"));
    let s = parse_state_md("---\nactive_phase: null\nnext_action: null\n---");
    assert_eq!((s.active_phase, s.next_action), (None, None));
    let s = parse_state_md("---\nnext_phases: [\"4.5\", \"4.6\", \"5\"]\n---");
    assert_eq!(
        s.next_phases,
        Some(vec!["4.5".into(), "4.6".into(), "5".into()])
    );
    let s = parse_state_md(
        "---\nprogress:\n  total_phases: 17\n  completed_phases: 10\n  percent: 59\n---",
    );
    assert_eq!(
        (
            s.total_phases.as_deref(),
            s.completed_phases.as_deref(),
            s.percent.as_deref()
        ),
        (Some("17"), Some("10"), Some("59"))
    );
    let s = parse_state_md(
        "---\nstatus: executing\nmilestone: v1.9\nmilestone_name: Code Quality\n---\n\n# State\nPhase: 1 of 5 (fix-graphiti-deployment)",
    );
    assert_eq!(s.phase_name.as_deref(), Some("fix-graphiti-deployment"));
    assert_eq!(
        (s.phase_num.as_deref(), s.phase_total.as_deref()),
        (Some("1"), Some("5"))
    );
    let s = parse_state_md("---\nstatus: null\nmilestone: null\nmilestone_name: null\n---");
    assert_eq!(
        (s.status, s.milestone, s.milestone_name),
        (None, None, None)
    );
    let s = parse_state_md("---\nmilestone_name: \"Code Quality\"\nmilestone: 'v1.9'\n---");
    assert_eq!(
        (s.milestone.as_deref(), s.milestone_name.as_deref()),
        (Some("v1.9"), Some("Code Quality"))
    );
    let s = parse_state_md("---\nstatus: planning\n---\nPhase: 3 of 10");
    assert_eq!(
        (
            s.phase_num.as_deref(),
            s.phase_total.as_deref(),
            s.phase_name
        ),
        (Some("3"), Some("10"), None)
    );
    for (body, want) in [
        ("# State\nStatus: Ready to plan", "planning"),
        ("Status: Executing phase 2", "executing"),
        ("Status: Complete", "complete"),
        ("Status: Archived", "complete"),
    ] {
        assert_eq!(parse_state_md(body).status.as_deref(), Some(want), "{body}");
    }
    assert_eq!(parse_state_md(""), HookState::default());
    let s = parse_state_md("---\nnext_action: execute\nnext_phases:\n  - 4.5\n  - 4.6\n---");
    assert_eq!(s.next_phases, Some(vec!["4.5".into(), "4.6".into()]));
}

/// GSD's hook (1.42.3) takes frontmatter only after `---\n`: a CRLF file's
/// frontmatter is not seen, so it reads the body alone (the real files'
/// parity, LF and CRLF, is in tests/real_world_gsd.rs).
#[test]
fn crlf_frontmatter_is_not_seen() {
    for lf in [
        "---\nstatus: executing\nmilestone: v1.9\nmilestone_name: Code Quality\nactive_phase: 4\nnext_action: execute\n---\n\n# State\nPhase: 1 of 5 (fix-graphiti-deployment)",
        "---\nnext_phases: [4.5, 4.6]\n---",
        "---\nnext_phases:\n  - 4.5\n  - 4.6\n---",
        "---\nprogress:\n  completed_phases: 3\n  total_phases: 5\n  percent: 60\n---",
    ] {
        let crlf = lf.replace('\n', "\r\n");
        assert!(sees_frontmatter(lf), "{lf}");
        assert!(!sees_frontmatter(&crlf), "{lf}");
        assert_ne!(parse_state_md(&crlf), parse_state_md(lf), "{lf}");
        assert_ne!(parse_state_md(lf), HookState::default());
    }
}

#[test]
fn end_to_end_vectors() {
    let cases = [
        (
            "---\ngsd_state_version: 1.0\nmilestone: v1.18\nmilestone_name: User Profile Redesign\nstatus: defining_requirements\nstopped_at: null\nprogress:\n  total_phases: 0\n  completed_phases: 0\n  total_plans: 0\n  completed_plans: 0\n  percent: 0\n---\n\n# Project State\n\n## Current Position\n\nPhase: Not started (defining requirements)\nPlan: —\nStatus: Defining requirements\n",
            // 0 of 0 phases: the counters compare as strings ("0" === "0").
            "v1.18 User Profile Redesign [░░░░░░░░░░] 0% · milestone complete",
        ),
        (
            "---\nmilestone: v2.0\nmilestone_name: Code Quality\nstatus: executing\nactive_phase: \"4.5\"\nnext_action: null\nnext_phases: []\nprogress:\n  total_phases: 17\n  completed_phases: 10\n  percent: 59\n---\n",
            "v2.0 Code Quality [█████░░░░░] 59% · Phase 4.5 executing",
        ),
        (
            "---\nmilestone: v2.0\nmilestone_name: milestone\nstatus: in_progress\nactive_phase: null\nnext_action: execute-phase\nnext_phases:\n  - \"4.5\"\n  - 4.6\nprogress:\n  total_phases: 17\n  completed_phases: 10\n  percent: 59\n---\nPhase: 4 of 17 (lexer)\n",
            "v2.0 [█████░░░░░] 59% · next execute-phase 4.5/4.6",
        ),
        (
            // CRLF: the hook sees no frontmatter, only the body's line
            // (the 1.42.3 hook under node prints exactly this).
            "---\r\nmilestone: v3.1\r\nstatus: verifying\r\nprogress:\r\n  completed_phases: 5\r\n  total_phases: 5\r\n---\r\nPhase: 5 of 5 (release)\r\n",
            "release (5/5)",
        ),
        (
            "# Project State\n\nPhase: 2 of 4 (api-layer)\nStatus: Ready to execute\n",
            "executing · api-layer (2/4)",
        ),
        (
            "# Project State\n\nPhase: 2 of 4\nStatus: In progress\n",
            "ph 2/4",
        ),
        ("\u{feff}---\nstatus: executing\n---", ""),
    ];
    for (content, want) in cases {
        assert_eq!(statusline(content), want, "{content:?}");
    }
}

#[test]
fn regex_quirks_are_kept() {
    // A comment right after `progress:` hides the bar.
    assert_eq!(
        parse_state_md("---\nprogress:\n  # c\n  percent: 50\n---").percent,
        None
    );
    // The first `---` closes the block even with text after it.
    let s = parse_state_md("---\nmilestone: v1\n----x\nstatus: s\n---");
    assert_eq!((s.milestone.as_deref(), s.status), (Some("v1"), None));
    // One quote off each end, independently; no comment stripping.
    assert_eq!(
        parse_state_md("---\nmilestone: 'v1.9\"\n---")
            .milestone
            .as_deref(),
        Some("v1.9")
    );
    assert_eq!(
        parse_state_md("---\nmilestone: v1 # c\n---")
            .milestone
            .as_deref(),
        Some("v1 # c")
    );
    // A bare dash ends a block list.
    let s = parse_state_md("---\nnext_phases:\n  - \"4.5\"\n  -\n  - 4.6\n---");
    assert_eq!(s.next_phases, Some(vec!["4.5".to_owned()]));
    // Only leading digits count; an empty frontmatter is not one.
    assert_eq!(
        parse_state_md("---\nprogress:\n  percent: 59.5\n---")
            .percent
            .as_deref(),
        Some("59")
    );
    assert_eq!(
        parse_state_md("---\n---\nStatus: done"),
        HookState::default()
    );
    // A flow list may start on the next line.
    assert_eq!(
        parse_state_md("---\nnext_phases:\n  [\"4.5\"]\n---").next_phases,
        Some(vec!["4.5".to_owned()])
    );
}
