//! What the console starts with, handed in by the binary, which reads the
//! config file (the console never does): the roots, the theme and keymap
//! it checked, the notifications, the rules, the limits, the server.

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::notify::NotifySettings;
use crate::app::Binding;
use crate::model::StallLimits;
use crate::model::escalate::Rule;
use crate::ui::Theme;
use loopdeck_core::follow;

/// Everything the console needs to start.
pub struct Settings {
    /// The roots to follow (the command line's, else the configured ones,
    /// else `.`; a configured root that is gone is a problem of the run).
    pub roots: Vec<PathBuf>,
    /// `--now`: "now" for ages (the clock then stands still).
    pub now: Option<DateTime<Utc>>,
    /// `--readonly` or `readonly = true`: every write refused at one gate.
    pub readonly: bool,
    pub theme: Theme,
    /// The built-in theme drawn in (none: a theme file, kept until one is
    /// picked in the palette).
    pub theme_in_force: Option<String>,
    /// `NO_COLOR`: a theme picked later is stripped of its colours too.
    pub no_color: bool,
    pub keymap: &'static [Binding],
    /// Mouse capture (`mouse = true`).
    pub mouse: bool,
    pub notify: NotifySettings,
    /// `[[escalate]]`.
    pub rules: Vec<Rule>,
    /// `[stall]`.
    pub stall: StallLimits,
    /// `[devloop] api`, when set.
    pub server: Option<String>,
    /// The config file in force, or the one that would be read, as
    /// messages that say what to edit name it.
    pub config_file: Option<String>,
    /// How changes on disk are noticed (`[watch]`).
    pub watch: follow::Options,
    /// Other machines to watch over ssh (`[[host]]`, `--host`).
    pub hosts: Vec<loopdeck_core::fleet::HostSpec>,
}
