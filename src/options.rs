//! The options every command shares (the console's included). A neutral
//! module, so the console does not depend on the command line's code.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use clap::{Arg, ArgAction, Args, Command};

#[derive(Debug, Default, Args)]
pub struct Global {
    /// Fix "now" (RFC 3339, e.g. 2026-06-01T12:00:00Z), so ages and resume
    /// scenarios are reproducible.
    #[arg(long, global = true, value_name = "RFC3339", value_parser = parse_now)]
    pub now: Option<DateTime<Utc>>,
    /// Refuse every write.
    #[arg(long, global = true)]
    pub readonly: bool,
    /// Read this configuration file instead of the default one
    /// (~/.config/loopdeck/config.toml); it must exist.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Another machine's root over ssh, as `NAME=[USER@]HOST[:PORT]:ROOT`
    /// (repeatable; the console, list, inbox, check, show NAME:DIR, watch).
    #[arg(
        long = "host",
        global = true,
        value_name = "NAME=HOST:ROOT",
        value_parser = crate::config::parse_host_arg
    )]
    pub hosts: Vec<crate::config::HostArg>,
}

/// `--readonly`'s help on a command that never writes at all (`check`,
/// `status`, `audit`).
pub const NEVER_WRITES: &str = "Refuse every write (this command never writes)";

/// `--readonly`'s help on a command that writes no project file but keeps
/// loopdeck's own state (`list`, `inbox`, `show`: when items were first
/// seen; `watch`: that and the last reading, for `list --cached`).
pub const WRITES_NO_PROJECT: &str = "Refuse every write (this command writes no project file; \
     --readonly only keeps it from saving loopdeck's own state, such as when items were first seen)";

/// [`Global`]'s `--readonly` as a command that makes no decision shows it:
/// the same flag (its id, so it still sets [`Global::readonly`] from
/// either side of the command's name, and its place among the options),
/// with `help` for its text. Given to the subcommand itself, it is the one
/// its help lists (clap does not propagate a global flag a subcommand
/// already has).
pub fn readonly_saying(help: &'static str) -> Arg {
    Global::augment_args(Command::new("loopdeck"))
        .get_arguments()
        .find(|a| a.get_id() == "readonly")
        .cloned()
        .unwrap_or_else(|| {
            Arg::new("readonly")
                .long("readonly")
                .action(ArgAction::SetTrue)
        })
        .global(false)
        .help(help)
}

fn parse_now(s: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| format!("expected an RFC 3339 time such as 2026-06-01T12:00:00Z ({e})"))
}
