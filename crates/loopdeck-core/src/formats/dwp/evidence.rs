//! Gate evidence, read the way the plan's own checker reads it: retries
//! supersede only their own command, so the truth of a task is the latest
//! record of each command; a passing record whose own text admits the check
//! never ran certifies nothing; evidence stamped "invalidated by refine" is
//! kept history, never passing evidence.

use super::schema::GateEntry;

/// The prefix `refine` stamps on evidence it invalidates.
const INVALIDATED_PREFIX: &str = "invalidated by refine";

/// The latest record of each command, in the order the commands first
/// appear. Records without a `passes` boolean are left out (their result
/// cannot be read); their count is returned beside.
pub(crate) fn latest_per_command(gates: &[GateEntry]) -> (Vec<&GateEntry>, usize) {
    let mut latest: Vec<&GateEntry> = Vec::new();
    let mut malformed = 0;
    for g in gates {
        if g.passes.is_none() {
            malformed += 1;
            continue;
        }
        match latest.iter_mut().find(|l| l.command == g.command) {
            Some(slot) => *slot = g,
            None => latest.push(g),
        }
    }
    (latest, malformed)
}

/// A record that did not pass: `passes: false`, or a non-zero exit code.
pub(crate) fn fails(g: &GateEntry) -> bool {
    g.passes != Some(true) || g.exit_code.is_some_and(|c| c != 0)
}

/// Evidence that `refine` invalidated.
pub(crate) fn invalidated(g: &GateEntry) -> bool {
    g.evidence
        .as_deref()
        .is_some_and(|e| e.trim().to_lowercase().starts_with(INVALIDATED_PREFIX))
}

/// Phrases by which evidence admits the check never ran. Deliberately
/// narrow: "skip" or "deferred" alone are honest words in a real record.
const NEVER_RAN: &[&str] = &[
    "never ran",
    "never run",
    "never entered",
    "never executed",
    "never performed",
    "not ran",
    "not run",
    "not entered",
    "not executed",
    "not performed",
    "did not enter",
    "did not execute",
    "did not perform",
    "structurally impossible",
    "cannot be run",
    "cannot be executed",
    "cannot be measured",
    "cannot be verified",
    "no test ran",
    "no tests ran",
    "no test found",
    "no tests found",
    "no test collected",
    "no tests collected",
    "running 0 tests",
    "ran 0 tests",
    "0 tests ran",
    "collected 0 items",
    "未运行",
    "从未运行",
    "未执行",
    "从未执行",
    "从未进入",
    "无法测量",
    "无法运行",
    "无法执行",
];

/// Does this evidence admit that the check never ran? Besides the phrases,
/// a zero count of selected tests (`ran=0`, `selected = 0`, `executed=0/4`)
/// and the word `unexecuted` count.
///
/// Evidence that reports tests passing (`42 passed`, `Ran 12 tests`,
/// `OK (31 tests…)`, `18 passing`, `3/3 passed`, `42 个测试通过`) shows the
/// command itself ran: what it then says was not run is a part left out
/// (`2 ignored (slow benches not run)`), not a check that never executed.
pub(crate) fn admits_never_ran(evidence: &str) -> bool {
    let text = normalise(evidence);
    if reports_passes(&text) {
        return false;
    }
    NEVER_RAN.iter().any(|p| text.contains(p))
        || zero_selected(&text)
        || has_word(&text, "unexecuted")
}

/// Nouns that may stand between a count and its verb (`12 tests passed`).
const COUNTED: &[&str] = &[
    "tests",
    "test",
    "specs",
    "spec",
    "examples",
    "checks",
    "cases",
    "scenarios",
    "个测试",
    "个用例",
    "个",
    "项",
];
/// Verbs that say counted tests passed.
const PASSED: &[&str] = &["passed", "passing", "passes", "succeeded", "通过"];

/// Does normalised evidence report a positive number of tests that ran and
/// passed? `N passed` (optionally `N/M`, `N tests passed`), `ran N tests`,
/// `running N tests`, `ok (N tests`, `passed: N`.
fn reports_passes(text: &str) -> bool {
    let mut rest = text;
    let mut before: Option<char> = None;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        let prev = rest
            .get(..start)
            .and_then(|b| b.chars().next_back())
            .or(before);
        let head = rest.get(..start).unwrap_or_default();
        let tail = rest.get(start..).unwrap_or_default();
        let digits = tail.len() - tail.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let number: u64 = tail.get(..digits).and_then(|d| d.parse().ok()).unwrap_or(0);
        let after = tail.get(digits..).unwrap_or_default();
        let standalone =
            prev.is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '/')));
        if number > 0 && standalone && (count_then_pass(after) || verb_then_count(head, after)) {
            return true;
        }
        before = tail.get(..digits).and_then(|d| d.chars().next_back());
        rest = after;
    }
    false
}

/// After a count: `/M`, a counted noun, then a verb of passing.
fn count_then_pass(after: &str) -> bool {
    let mut s = after;
    if let Some(r) = s.strip_prefix('/') {
        s = r.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    s = s.trim_start();
    if let Some(noun) = COUNTED.iter().find(|n| s.starts_with(**n)) {
        s = s.get(noun.len()..).unwrap_or_default().trim_start();
    }
    PASSED.iter().any(|v| s.starts_with(v))
}

/// Before a count: `ran `, `running `, `ok (` or `passed: ` (`passed=`),
/// and, for the first three, a counted noun after it.
fn verb_then_count(head: &str, after: &str) -> bool {
    let head = head.trim_end();
    let noun_follows = {
        let a = after.trim_start();
        COUNTED.iter().any(|n| a.starts_with(n))
    };
    let word_end = |w: &str| {
        head.strip_suffix(w).is_some_and(|b| {
            b.chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
        })
    };
    ((word_end("ran") || word_end("running") || word_end("ok (")) && noun_follows)
        || word_end("passed:")
        || word_end("passed =")
        || word_end("passed=")
}

/// Lowercase, whitespace runs folded to one space.
fn normalise(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// `ran=0`, `selected = 0`, `executed=0/3`, not `ran=01` or `ran=0.5`.
fn zero_selected(text: &str) -> bool {
    ["ran", "selected", "executed"].iter().any(|key| {
        text.match_indices(key).any(|(i, _)| {
            let rest = text.get(i + key.len()..).unwrap_or_default().trim_start();
            let Some(rest) = rest.strip_prefix('=') else {
                return false;
            };
            let Some(rest) = rest.trim_start().strip_prefix('0') else {
                return false;
            };
            match rest.chars().next() {
                None | Some('/') => true,
                Some(c) => !(c.is_alphanumeric() || c == '_' || c == '.'),
            }
        })
    })
}

fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text.get(..i).and_then(|b| b.chars().next_back());
        let after = text.get(i + word.len()..).and_then(|a| a.chars().next());
        let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        boundary(before) && boundary(after)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(command: &str, passes: Option<bool>, exit: Option<i64>, evidence: &str) -> GateEntry {
        GateEntry {
            command: Some(command.to_owned()),
            passes,
            exit_code: exit,
            last_run: None,
            evidence: Some(evidence.to_owned()),
        }
    }

    #[test]
    fn a_retry_supersedes_only_its_own_command() {
        let gates = vec![
            gate("test", Some(false), Some(1), "2 failed"),
            gate("clippy", Some(true), Some(0), "clean"),
            gate("test", Some(true), Some(0), "40 passed"),
            gate("fmt", None, Some(0), "unreadable"),
        ];
        let (latest, malformed) = latest_per_command(&gates);
        assert_eq!(malformed, 1);
        assert_eq!(latest.len(), 2);
        assert_eq!(latest[0].evidence.as_deref(), Some("40 passed"));
        assert!(latest.iter().all(|g| !fails(g)));
        let gates = vec![
            gate("test", Some(true), Some(0), "40 passed"),
            gate("clippy", Some(false), Some(101), "2 errors"),
        ];
        let (latest, _) = latest_per_command(&gates);
        assert!(latest.iter().any(|g| fails(g)));
        assert!(fails(&gate("x", Some(true), Some(2), "exit 2 but passes")));
    }

    #[test]
    fn evidence_that_admits_it_never_ran() {
        for e in [
            "running 0 tests; no tests ran",
            "ran=0",
            "selected = 0 of 12",
            "executed=0/4",
            "Tests were never run",
            "check NOT   executed (no device)",
            "did not execute",
            "structurally impossible in CI",
            "latency cannot be measured here",
            "3 scenarios unexecuted",
            "Ran 0 tests in 0.000s",
            "collected 0 items",
            "集成测试未运行",
            "从未进入该分支",
            "性能无法测量",
        ] {
            assert!(admits_never_ran(e), "{e}");
        }
        for e in [
            "58 passed, 0 failed",
            "ran=05",
            "ran=0.5s wall",
            "executed=04",
            "skipped 2 slow tests (deferred to task 4)",
            "1 passed (scoped)",
            "preexecuted fixtures",
            "146 days checked, 0 mismatches",
        ] {
            assert!(!admits_never_ran(e), "{e}");
        }
    }

    /// A record that reports tests passing shows the command ran, whatever
    /// it says about a part it left out; one that admits the command itself
    /// did not execute certifies nothing, even beside an unrelated count.
    #[test]
    fn passed_tests_prove_the_command_ran() {
        for e in [
            "42 passed, 0 failed; 2 ignored (slow benches not run)",
            "test result: ok. 42 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out",
            "running 0 tests (doc-tests); running 12 tests; test result: ok. 12 passed",
            "Ran 12 tests in 0.341s OK (e2e suite not run: no browser)",
            "18 passing (2s); 3 pending, integration not executed in CI",
            "pytest: 57 passed, 4 skipped (GPU tests never ran on this host)",
            "Tests: 9 passed, 9 total; snapshot suite not run",
            "OK (31 tests, 80 assertions); benchmarks not performed",
            "3/3 passed; load test cannot be measured here",
            "42 个测试通过，性能基准未运行",
        ] {
            assert!(!admits_never_ran(e), "{e}");
        }
        for e in [
            "0 passed, 0 failed; suite not run",
            "command not executed: cargo missing on PATH",
            "test result: ok. 0 passed; 0 failed; 0 ignored (running 0 tests)",
            "Ran 0 tests in 0.000s",
            "pytest: no tests ran in 0.01s",
            "gate never ran: the device was offline",
            "0/3 passed (harness did not execute)",
            "集成测试未运行",
        ] {
            assert!(admits_never_ran(e), "{e}");
        }
        assert!(invalidated(&gate(
            "t",
            Some(true),
            Some(0),
            "Invalidated by refine 3.7: scope changed"
        )));
        assert!(!invalidated(&gate("t", Some(true), Some(0), "42 passed")));
    }
}
