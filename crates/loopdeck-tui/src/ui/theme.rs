//! Colours from `themes/*.toml`, status symbols, and `NO_COLOR`.
//!
//! Every status has a symbol as well as a colour, so the console stays
//! readable without colour: `NO_COLOR` strips the colours and keeps the
//! symbols, bold and reverse video.

use std::str::FromStr;

use crate::model::StatusKind;
use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

/// The built-in themes, embedded so the binary needs no files.
pub const BUILTIN: &[(&str, &str)] = &[
    ("default", include_str!("../../themes/default.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "solarized-dark",
        include_str!("../../themes/solarized-dark.toml"),
    ),
];

/// A theme that cannot be used, said in the language spoken (it is printed
/// when the console starts, never in JSON).
#[derive(Debug)]
pub enum ThemeError {
    Toml {
        name: String,
        message: String,
    },
    Color {
        name: String,
        key: &'static str,
        value: String,
    },
    Unknown(String),
}

impl std::fmt::Display for ThemeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = match self {
            ThemeError::Toml { name, message } => {
                crate::t!("ui.theme.toml", name = name, message = message)
            }
            ThemeError::Color { name, key, value } => {
                crate::t!("ui.theme.color", name = name, key = key, value = value)
            }
            ThemeError::Unknown(name) => {
                crate::t!("ui.theme.unknown", name = name, names = builtin_names())
            }
        };
        f.write_str(&text)
    }
}

impl std::error::Error for ThemeError {}

/// The names of the built-in themes, as an error lists them.
fn builtin_names() -> String {
    BUILTIN
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(Deserialize)]
struct ThemeFile {
    name: String,
    colors: ColorsFile,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ColorsFile {
    accent: String,
    muted: String,
    ok: String,
    warn: String,
    error: String,
    info: String,
    selection_fg: String,
    selection_bg: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    pub name: String,
    pub accent: Style,
    pub muted: Style,
    pub ok: Style,
    pub warn: Style,
    pub error: Style,
    pub info: Style,
    pub selection: Style,
    pub bold: Style,
    /// Colours are drawn (false under `NO_COLOR`: modifiers only).
    pub colour: bool,
}

fn color(name: &str, key: &'static str, value: &str) -> Result<Color, ThemeError> {
    Color::from_str(value).map_err(|_| ThemeError::Color {
        name: name.to_owned(),
        key,
        value: value.to_owned(),
    })
}

impl Theme {
    /// Parse a theme file; `no_color` keeps only modifiers.
    pub fn parse(text: &str, no_color: bool) -> Result<Theme, ThemeError> {
        let file: ThemeFile = toml::from_str(text).map_err(|e| ThemeError::Toml {
            name: "(file)".to_owned(),
            message: e.message().to_owned(),
        })?;
        let n = file.name.clone();
        let c = &file.colors;
        let fg = |key, value: &str| -> Result<Style, ThemeError> {
            Ok(if no_color {
                Style::new()
            } else {
                Style::new().fg(color(&n, key, value)?)
            })
        };
        let selection = if no_color {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            let (sf, sb) = (
                color(&n, "selection_fg", &c.selection_fg)?,
                color(&n, "selection_bg", &c.selection_bg)?,
            );
            if sf == Color::Reset && sb == Color::Reset {
                Style::new().add_modifier(Modifier::REVERSED)
            } else {
                Style::new().fg(sf).bg(sb)
            }
        };
        Ok(Theme {
            name: file.name.clone(),
            accent: fg("accent", &c.accent)?.add_modifier(Modifier::BOLD),
            muted: if no_color {
                Style::new().add_modifier(Modifier::DIM)
            } else {
                fg("muted", &c.muted)?
            },
            ok: fg("ok", &c.ok)?,
            warn: fg("warn", &c.warn)?,
            error: fg("error", &c.error)?,
            info: fg("info", &c.info)?,
            selection,
            bold: Style::new().add_modifier(Modifier::BOLD),
            colour: !no_color,
        })
    }

    /// A built-in theme by name.
    pub fn builtin(name: &str, no_color: bool) -> Result<Theme, ThemeError> {
        let (_, text) = BUILTIN
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| ThemeError::Unknown(name.to_owned()))?;
        Theme::parse(text, no_color)
    }

    /// The default theme, which is embedded and tested, so it always parses.
    pub fn fallback(no_color: bool) -> Theme {
        Theme::builtin("default", no_color).unwrap_or_else(|_| Theme {
            name: "plain".to_owned(),
            accent: Style::new().add_modifier(Modifier::BOLD),
            muted: Style::new().add_modifier(Modifier::DIM),
            ok: Style::new(),
            warn: Style::new(),
            error: Style::new(),
            info: Style::new(),
            selection: Style::new().add_modifier(Modifier::REVERSED),
            bold: Style::new().add_modifier(Modifier::BOLD),
            colour: false,
        })
    }

    /// Does `colour` name a colour this theme can draw (a name, an index or
    /// `#rrggbb`)?
    pub fn draws(colour: &str) -> bool {
        Color::from_str(colour).is_ok()
    }

    /// How an item an `[[escalate]]` rule fires on is drawn: the rule's
    /// colour (checked when the config was read), else the theme's error
    /// colour; bold, so it stands out under `NO_COLOR` too.
    pub fn escalated(&self, colour: Option<&str>) -> Style {
        let base = match colour.map(Color::from_str) {
            Some(Ok(c)) if self.colour => Style::new().fg(c),
            _ => self.error,
        };
        base.add_modifier(Modifier::BOLD)
    }

    /// The symbol and style of a status kind (set by each reader; the UI
    /// never guesses from the word).
    /// The mark of work that says it runs while its files are silent past
    /// its limit (`model::Stall`): in place of its status's.
    pub fn stalled(&self) -> (&'static str, Style) {
        ("◷", self.warn)
    }

    /// The mark of something paused: an agent, or a project whose status
    /// waits while nothing waits for a human
    /// ([`crate::app::panes::paused_asking_nothing`]).
    pub fn paused(&self) -> (&'static str, Style) {
        ("⏸", self.warn)
    }

    /// The symbol and style of a project's status: its kind's, but a
    /// project that asks nothing of a human is paused, not waiting.
    pub fn project_status(&self, p: &crate::model::Project) -> (&'static str, Style) {
        if crate::app::panes::paused_asking_nothing(p) {
            self.paused()
        } else {
            self.status(p.status_kind)
        }
    }

    pub fn status(&self, kind: StatusKind) -> (&'static str, Style) {
        match kind {
            StatusKind::Done => ("✓", self.ok),
            StatusKind::Running => ("▶", self.ok),
            StatusKind::Waiting => ("◆", self.warn),
            StatusKind::Planning => ("…", self.info),
            StatusKind::Blocked | StatusKind::Failed => ("✗", self.error),
            StatusKind::Rebuilt => ("↻", self.warn),
            StatusKind::Unknown => ("·", self.muted),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_themes_parse() {
        for (name, _) in BUILTIN {
            let t = Theme::builtin(name, false).unwrap();
            assert_eq!(&t.name, name);
            assert_ne!(t.ok, Style::new(), "{name} has colours");
        }
    }

    #[test]
    fn no_color_keeps_only_modifiers() {
        let t = Theme::builtin("default", true).unwrap();
        for s in [
            t.accent,
            t.muted,
            t.ok,
            t.warn,
            t.error,
            t.info,
            t.selection,
        ] {
            assert_eq!((s.fg, s.bg), (None, None));
        }
        assert_eq!(t.status(StatusKind::Blocked).0, "✗");
        assert_eq!(t.status(StatusKind::Running).0, "▶");
    }

    #[test]
    fn bad_themes_say_what_is_wrong() {
        let bad = "name = \"x\"\n[colors]\naccent = \"ultraviolet\"\nmuted = \"gray\"\nok = \"green\"\nwarn = \"yellow\"\nerror = \"red\"\ninfo = \"blue\"\nselection_fg = \"reset\"\nselection_bg = \"reset\"\n";
        let e = Theme::parse(bad, false).unwrap_err().to_string();
        assert_eq!(
            e,
            "theme x: `accent` is not a colour: ultraviolet (use an ANSI name such as dark-gray, or #rrggbb)"
        );
        let missing = Theme::parse("name = \"y\"\n[colors]\naccent = \"red\"\n", false)
            .unwrap_err()
            .to_string();
        assert!(missing.contains("missing field `muted`"), "{missing}");
        assert_eq!(
            Theme::builtin("neon", false).unwrap_err().to_string(),
            "no theme named neon (built in: default, light, solarized-dark)"
        );
    }
}
