//! The exit codes of every command, the console's included (README.md,
//! "Exit codes", which `tests/readme_contract.rs` holds to them). A neutral module: the command line and the
//! console both use it, neither imports the other.

/// Everything went as asked.
pub const EXIT_OK: i32 = 0;
/// Findings, an unreadable root or directory, or a refused decision.
pub const EXIT_FINDINGS: i32 = 1;
/// A usage mistake: a bad argument, a command-line root or project
/// directory that does not exist, a broken config file.
pub const EXIT_USAGE: i32 = 2;
/// A conflict: the file changed on disk, or is locked.
pub const EXIT_CONFLICT: i32 = 3;
/// A decision was written in part, or written but not recorded in the
/// audit log: never "nothing written", so a script does not retry it into
/// a duplicate. The message says what was written and what settles it
/// (`loopdeck recover`).
pub const EXIT_PARTIAL: i32 = 4;
/// `list --cached` found no snapshot it may use for these roots (none
/// kept yet, or one in doubt: another version, other roots, a bad
/// checksum); it says why on stderr, and prints nothing on stdout.
pub const EXIT_NO_SNAPSHOT: i32 = 5;

/// The exit code of a decision that did not go as asked: a conflict
/// (changed on disk, locked), something written in part, else a refusal.
pub fn of_decision(e: &loopdeck_core::decide::ActError) -> i32 {
    use loopdeck_core::decide::Failure;
    match e.failure() {
        Failure::Conflict => EXIT_CONFLICT,
        Failure::Partial => EXIT_PARTIAL,
        Failure::Refused => EXIT_FINDINGS,
    }
}
