//! The configuration file: default roots, theme, mouse, notifications, keys,
//! other machines (`[[host]]`, see [`hosts()`]). One loading for every command,
//! the console's included.
//!
//! `--config FILE` (which must exist), else `config.toml` in the user's
//! config directory (`~/.config/loopdeck/config.toml` on Linux, or under
//! `$XDG_CONFIG_HOME`), else the defaults. A file that cannot be read or
//! parsed is a usage error (exit 2) naming the file, the line and the reason.
//! The file must be a regular file of at most 1 MiB ([`MAX_CONFIG_BYTES`]):
//! a FIFO or a device there is refused at once, never waited on or read
//! without end.

mod escalate;
mod hosts;

pub use loopdeck_tui::app::keymap::{KeyEntry, Keys, line_column};
pub use loopdeck_tui::runtime::notify::Desktop;

use std::fmt;
use std::path::{Path, PathBuf};

pub use escalate::{COMMAND_TIMEOUT, EscalateConfig, rules as escalation_rules};
pub use hosts::{HostArg, HostConfig, from_args as hosts_from_args, hosts, parse_host_arg};

use serde::Deserialize;
use thiserror::Error;

#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Roots opened when none is given on the command line (`~/` allowed).
    #[serde(default)]
    pub roots: Vec<PathBuf>,
    /// `"en"`, `"zh-CN"` or `"auto"` (the default: LC_ALL, LC_MESSAGES,
    /// LANG decide).
    #[serde(default, deserialize_with = "language")]
    pub language: Option<crate::i18n::Lang>,
    /// A built-in theme name (`default`, `solarized-dark`, `light`).
    pub theme: Option<String>,
    /// A theme file of your own (same keys as `themes/default.toml`).
    pub theme_file: Option<PathBuf>,
    /// Mouse capture: the wheel scrolls, a click selects a row or a tab.
    /// Off by default so terminal text selection works.
    #[serde(default)]
    pub mouse: bool,
    /// Refuse every write, as `--readonly` does.
    #[serde(default)]
    pub readonly: bool,
    /// The devloop server, for the decisions the seed routes through it.
    #[serde(default)]
    pub devloop: DevloopConfig,
    /// `[notify]`: the bell and desktop notifications of the console.
    #[serde(default)]
    pub notify: NotifyConfig,
    /// How changes on disk are noticed.
    #[serde(default)]
    pub watch: WatchConfig,
    /// `[keys]`: the user's keys (the console checks and applies them).
    #[serde(default)]
    pub keys: Keys,
    /// `[[escalate]]`: rules that raise what has waited too long (see
    /// `model::escalate`), in the file's order.
    #[serde(default)]
    pub escalate: Vec<EscalateConfig>,
    /// `[stall]`: how long each format's work may be silent before it is
    /// shown stalled.
    #[serde(default)]
    pub stall: StallConfig,
    /// `[[host]]`: other machines whose projects are read over ssh, each
    /// with where its table starts (see [`hosts`], which adds `--host`).
    #[serde(default, rename = "host")]
    pub hosts: Vec<toml::Spanned<HostConfig>>,
    /// The file this config was read from (none: the defaults).
    #[serde(skip)]
    pub file: Option<PathBuf>,
}

/// `[devloop]`: where the devloop server listens.
#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct DevloopConfig {
    /// `api = "http://host:port"`: sign-off, abandon and new requirements
    /// go through the server's REST API.
    pub api: Option<String>,
}

/// `[notify]`: what the console does when items start waiting for a human
/// (or an `[[escalate]]` rule fires on one).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct NotifyConfig {
    /// Ring the terminal bell (default true).
    pub bell: bool,
    /// A desktop notification through the terminal (default off).
    pub desktop: Desktop,
    /// Also under `--readonly` (default true); false silences both.
    pub when_readonly: bool,
    /// A command run for each item that starts waiting or escalates, with
    /// the item as JSON on its standard input: split into words as a POSIX
    /// shell splits them, but run without a shell (write `sh -c '…'` for
    /// one); its output is discarded.
    #[serde(deserialize_with = "escalate::command")]
    pub command: Option<Vec<String>>,
    /// How long the command may run before it is killed (default
    /// [`COMMAND_TIMEOUT`]).
    #[serde(deserialize_with = "escalate::timeout")]
    pub timeout: Option<std::time::Duration>,
}

impl Default for NotifyConfig {
    fn default() -> Self {
        NotifyConfig {
            bell: true,
            desktop: Desktop::Off,
            when_readonly: true,
            command: None,
            timeout: None,
        }
    }
}

/// `[stall]`: per format, `"40m"`, `"2h"`, `"1h30m"`... (units s, m, h,
/// d, w) or `"off"`; a format not named keeps its own limit (see
/// README, "Stalled work").
#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct StallConfig {
    #[serde(default, rename = "prd-master", deserialize_with = "stall_limit")]
    pub prd_master: crate::model::StallLimit,
    #[serde(default, deserialize_with = "stall_limit")]
    pub gsd: crate::model::StallLimit,
    #[serde(default, deserialize_with = "stall_limit")]
    pub dwp: crate::model::StallLimit,
    #[serde(default, deserialize_with = "stall_limit")]
    pub devloop: crate::model::StallLimit,
}

impl StallConfig {
    /// The limits the views judge stalls by.
    pub fn limits(&self) -> crate::model::StallLimits {
        crate::model::StallLimits {
            prd_master: self.prd_master,
            gsd: self.gsd,
            dwp: self.dwp,
            devloop: self.devloop,
        }
    }
}

/// `"off"` or a duration (`"40m"`).
fn stall_limit<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<crate::model::StallLimit, D::Error> {
    use crate::model::{StallLimit, parse_duration};
    let value = toml::Value::deserialize(d)?;
    let limit = match &value {
        toml::Value::String(s) if s.trim() == "off" => Some(StallLimit::Off),
        toml::Value::String(s) => parse_duration(s).map(StallLimit::After),
        _ => None,
    };
    limit.ok_or_else(|| {
        serde::de::Error::custom(crate::t!("runtime.config.stall_duration", value = value))
    })
}

/// `[watch]`: how changes on disk are noticed.
#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct WatchConfig {
    /// Seconds between two looks while polling (default 10).
    #[serde(default, deserialize_with = "seconds")]
    pub poll_secs: Option<u64>,
    /// Seconds between two reconciliation scans, which stat the watched
    /// directories for what events missed (default 45).
    #[serde(default, deserialize_with = "seconds")]
    pub reconcile_secs: Option<u64>,
    /// `"auto"` (file system events when possible) or `"poll"` (never).
    #[serde(default)]
    pub mode: loopdeck_core::follow::Mode,
}

/// `language = "en" | "zh-CN" | "auto"` (auto: none, the environment decides).
fn language<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<crate::i18n::Lang>, D::Error> {
    use crate::i18n::Lang;
    let name = String::deserialize(d)?;
    if name == "auto" {
        return Ok(None);
    }
    // The names the environment takes are taken here too: `zh-CN`,
    // `zh_CN`, `zh-TW` (read as Simplified Chinese, the one catalogue), `en`.
    match Lang::parse(&name) {
        Some(l) => Ok(Some(l)),
        None => Err(serde::de::Error::custom(crate::t!(
            "runtime.config.unknown_language",
            name = name
        ))),
    }
}

/// Speak the language the config asks for, else the environment's
/// (LC_ALL, LC_MESSAGES, LANG). Called before the config is read too, so a
/// mistake in it is reported in the environment's language.
pub fn speak(config: Option<&Config>) {
    use crate::i18n::{self, Lang};
    let configured = config.and_then(|c| c.language);
    i18n::set(Lang::choose(configured, |k| std::env::var(k).ok()));
}

/// A number of seconds, at least one.
fn seconds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let n = u64::deserialize(d)?;
    if n == 0 {
        return Err(serde::de::Error::custom(crate::t!(
            "runtime.config.at_least_one_second"
        )));
    }
    Ok(Some(n))
}

/// The watcher's settings from `[watch]` (the defaults for what is not
/// set). The testing knob `LOOPDECK_MAX_WATCHES` is read by the watcher.
pub fn watch_options(config: &Config) -> loopdeck_core::follow::Options {
    let w = &config.watch;
    let default = loopdeck_core::follow::Options::default();
    loopdeck_core::follow::Options {
        poll_every: w
            .poll_secs
            .map_or(default.poll_every, std::time::Duration::from_secs),
        reconcile_every: w
            .reconcile_secs
            .map_or(default.reconcile_every, std::time::Duration::from_secs),
        mode: w.mode,
        ..default
    }
}

/// A config file that cannot be used, said in the language spoken (the
/// toml crate's own words for a parse mistake stay as it puts them).
#[derive(Debug, Error)]
pub enum ConfigError {
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    Parse {
        path: String,
        /// 1-based line and column of the mistake, when known.
        line: Option<usize>,
        column: Option<usize>,
        message: String,
    },
    Theme {
        path: String,
        message: String,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::t;
        let text = match self {
            ConfigError::Read { path, source } => {
                t!("runtime.config.unreadable", path = path, why = source)
            }
            ConfigError::Parse {
                path,
                line: Some(line),
                column: Some(column),
                message,
            } => t!(
                "runtime.config.at_line_column",
                path = path,
                line = line,
                column = column,
                message = message
            ),
            ConfigError::Parse {
                path,
                line: Some(line),
                column: None,
                message,
            } => t!(
                "runtime.config.at_line",
                path = path,
                line = line,
                message = message
            ),
            ConfigError::Parse { path, message, .. } | ConfigError::Theme { path, message } => {
                t!("runtime.config.problem", path = path, message = message)
            }
        };
        f.write_str(&text)
    }
}

/// The default location of the config file.
/// The config file in force (`--config`, or the default found), else the
/// one that would be read (`$XDG_CONFIG_HOME/loopdeck/config.toml`), as
/// messages that say what to add to it show it.
pub fn shown_path(cfg: &Config) -> Option<String> {
    cfg.file
        .clone()
        .or_else(default_path)
        .map(|p| p.display().to_string())
}

pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "loopdeck").map(|d| d.config_dir().join("config.toml"))
}

/// Read the config: `explicit` must exist; the default location may not.
pub fn load(explicit: Option<&Path>) -> Result<Config, ConfigError> {
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => match default_path() {
            Some(p) if p.exists() => p,
            _ => return Ok(Config::default()),
        },
    };
    let shown = path.display().to_string();
    let text = read_bounded(&path).map_err(|source| ConfigError::Read {
        path: shown.clone(),
        source,
    })?;
    let mut c = parse(&text, &shown)?;
    c.file = Some(path);
    Ok(c)
}

/// The largest config file read: a config is a few KiB, and every
/// command reads it before anything else.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The text of the config file at `path`: a regular file of at most
/// [`MAX_CONFIG_BYTES`]. It is opened without blocking (a FIFO with no
/// writer would hang every command) and read no further than the bound
/// (a device like `/dev/urandom` never ends); anything else is refused
/// with what it is.
fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        let flags = OFlags::NONBLOCK | OFlags::NOCTTY;
        // The same bits, as C's `int`.
        open.custom_flags(i32::from_ne_bytes(flags.bits().to_ne_bytes()));
    }
    let file = open.open(path)?;
    let meta = file.metadata()?;
    let refuse = |what: String| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{what}; a config file must be a regular file of at most {} KiB \
                 (replace it, or remove it to use the defaults)",
                MAX_CONFIG_BYTES / 1024
            ),
        )
    };
    if !meta.is_file() {
        return Err(refuse(format!(
            "it is {}, not a regular file",
            file_kind(&meta)
        )));
    }
    let too_big = |n: u64| refuse(format!("it holds {n} bytes"));
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(too_big(meta.len()));
    }
    // The file may grow while it is read: never past the bound.
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// What a file that is not a regular file is, in words.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

pub fn parse(text: &str, path: &str) -> Result<Config, ConfigError> {
    let mut c: Config = toml::from_str(text).map_err(|e| {
        let (line, column) = e
            .span()
            .map(|s| line_column(text, s.start))
            .map_or((None, None), |(l, c)| (Some(l), Some(c)));
        ConfigError::Parse {
            path: path.to_owned(),
            line,
            column,
            message: e.message().to_owned(),
        }
    })?;
    c.roots = c.roots.iter().map(|r| expand_home(r)).collect();
    c.keys.locate(text);
    hosts::check(&c, text, path)?;
    Ok(c)
}

fn expand_home(p: &Path) -> PathBuf {
    match (p.strip_prefix("~"), directories::BaseDirs::new()) {
        (Ok(rest), Some(dirs)) => dirs.home_dir().join(rest),
        _ => p.to_path_buf(),
    }
}

impl Config {
    /// How this config is named in messages.
    pub fn shown(&self) -> String {
        self.file
            .as_ref()
            .map_or_else(|| "config".to_owned(), |p| p.display().to_string())
    }
}

/// Roots given on the command line that cannot be read as such.
#[derive(Debug, PartialEq, Eq)]
pub enum RootError {
    /// No root given exists: the first of them.
    Missing(PathBuf),
    /// This root is a file (or another thing that is not a directory).
    NotADirectory(PathBuf),
}

impl fmt::Display for RootError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RootError::Missing(p) => {
                f.write_str(&crate::t!("runtime.root.missing", path = p.display()))
            }
            RootError::NotADirectory(p) => f.write_str(&crate::t!(
                "runtime.root.not_a_directory",
                path = p.display()
            )),
        }
    }
}

/// The local roots when other hosts may be watched: [`roots`], except
/// that with hosts and no root named (command line or config) this
/// machine's current directory is not read unasked.
pub fn local_roots(
    roots: &[PathBuf],
    config: &Config,
    hosts: &[loopdeck_core::fleet::HostSpec],
) -> Result<Vec<PathBuf>, RootError> {
    if roots.is_empty() && config.roots.is_empty() && !hosts.is_empty() {
        return Ok(Vec::new());
    }
    self::roots(roots, config)
}

/// The roots a command works on: those given on the command line, else
/// the config's, else `.`.
///
/// One rule for every command that takes roots (list, inbox, check,
/// watch, the console; `show` and `status`, which take one directory, go
/// through it too): a root that does not exist is a problem of the run,
/// which the walk reports ("does not exist", as for a dangling link), and
/// the other roots are read. Only when *no* root given on the command line
/// exists (nothing at its path, not even a link) is it a usage error,
/// naming the first ([`RootError::Missing`]):
/// there is nothing to read, so the command line is what is wrong. A
/// command-line root that is a file is a usage error too. The config's
/// roots are never a usage error: every one missing reads as nothing found,
/// each one a problem.
pub fn roots(explicit: &[PathBuf], config: &Config) -> Result<Vec<PathBuf>, RootError> {
    if explicit.is_empty() {
        return Ok(if config.roots.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            config.roots.clone()
        });
    }
    let mut missing = None;
    let mut present = false;
    for r in explicit {
        match std::fs::metadata(r) {
            Ok(m) if m.is_dir() => present = true,
            Ok(_) => return Err(RootError::NotADirectory(r.clone())),
            // Present but not reachable (a parent without permission): the
            // walk reports it as a problem. A link whose target is gone is
            // missing like a path that names nothing (both "do not exist").
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => present = true,
            Err(_) => {
                missing.get_or_insert(r);
            }
        }
    }
    match missing {
        Some(r) if !present => Err(RootError::Missing(r.clone())),
        _ => Ok(explicit.to_vec()),
    }
}

#[cfg(test)]
mod tests;
