//! The console, started from the command line: the config file read, the
//! settings the console starts with made from it (`loopdeck_tui` never
//! reads the config itself), and the exit code. A theme the console cannot
//! draw, a rule colour it cannot draw, or a `[keys]` mistake is refused at
//! start, naming the file and, where known, the line.

use std::io::{self, IsTerminal};
use std::path::PathBuf;

use loopdeck_tui::runtime::{self, Settings, notify::NotifySettings};
use loopdeck_tui::ui::Theme;

use crate::config::{self, COMMAND_TIMEOUT, Config, ConfigError};
use crate::exit::{EXIT_OK, EXIT_USAGE};
use crate::model::text::sanitize_line;
use crate::options::Global;

/// Open the console on `roots` (none: the configured roots, else `.`).
pub fn run(global: &Global, roots: &[PathBuf]) -> color_eyre::Result<i32> {
    let settings = match settings(global, roots) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("loopdeck: {}", sanitize_line(&e));
            return Ok(EXIT_USAGE);
        }
    };
    if !io::stdout().is_terminal() {
        eprintln!("loopdeck: {}", crate::t!("runtime.start.needs_terminal"));
        return Ok(EXIT_USAGE);
    }
    runtime::run(settings)?;
    Ok(EXIT_OK)
}

/// Read the config (`--config`, else the usual place) and make what the
/// console starts with, for `roots`; speak the language it asks for.
/// `Err`: what to say before refusing to start (a usage error), in the
/// language spoken.
pub fn settings(global: &Global, roots: &[PathBuf]) -> Result<Settings, String> {
    config::speak(None);
    let cfg = config::load(global.config.as_deref()).map_err(|e| e.to_string())?;
    config::speak(Some(&cfg));
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let theme = theme(&cfg, no_color).map_err(|e| e.to_string())?;
    rule_colours(&cfg).map_err(|e| e.to_string())?;
    let keymap = loopdeck_tui::app::keymap::build(&cfg.keys.0).map_err(|e| {
        ConfigError::Parse {
            path: cfg.shown(),
            line: Some(e.line),
            column: Some(e.column),
            message: e.message,
        }
        .to_string()
    })?;
    // A configured root that is gone is a problem of the run (shown with
    // the projects), not a reason to refuse the others.
    let hosts = config::hosts(global, &cfg)?;
    let roots = config::local_roots(roots, &cfg, &hosts).map_err(|e| e.to_string())?;
    let n = &cfg.notify;
    Ok(Settings {
        roots,
        now: global.now,
        readonly: global.readonly || cfg.readonly,
        theme,
        theme_in_force: match (&cfg.theme_file, &cfg.theme) {
            (Some(_), _) => None,
            (None, name) => Some(name.clone().unwrap_or_else(|| "default".to_owned())),
        },
        no_color,
        keymap,
        mouse: cfg.mouse,
        notify: NotifySettings {
            bell: n.bell,
            desktop: n.desktop,
            when_readonly: n.when_readonly,
            command: n.command.clone(),
            timeout: n.timeout.unwrap_or(COMMAND_TIMEOUT),
        },
        rules: config::escalation_rules(&cfg.escalate),
        stall: cfg.stall.limits(),
        server: cfg.devloop.api.clone(),
        hosts,
        config_file: config::shown_path(&cfg),
        watch: config::watch_options(&cfg),
    })
}

/// The theme `config` asks for (`NO_COLOR` strips its colours).
pub fn theme(config: &Config, no_color: bool) -> Result<Theme, ConfigError> {
    let err = |e: loopdeck_tui::ui::theme::ThemeError| ConfigError::Theme {
        path: config.shown(),
        message: e.to_string(),
    };
    match (&config.theme_file, &config.theme) {
        (Some(file), _) => {
            let text = std::fs::read_to_string(file).map_err(|source| ConfigError::Read {
                path: file.display().to_string(),
                source,
            })?;
            Theme::parse(&text, no_color).map_err(err)
        }
        (None, Some(name)) => Theme::builtin(name, no_color).map_err(err),
        (None, None) => Ok(Theme::fallback(no_color)),
    }
}

/// Every `[[escalate]]` rule's colour names one the console can draw.
pub fn rule_colours(config: &Config) -> Result<(), ConfigError> {
    for (i, rule) in config.escalate.iter().enumerate() {
        if let Some(c) = &rule.colour
            && !Theme::draws(c)
        {
            let name = rule.name.clone().unwrap_or_else(|| format!("#{}", i + 1));
            return Err(ConfigError::Theme {
                path: config.shown(),
                message: format!(
                    "[[escalate]] {name}: {}",
                    crate::t!("runtime.config.bad_colour", value = c)
                ),
            });
        }
    }
    Ok(())
}

/// The config file at `path`, for tests.
#[cfg(test)]
fn parse(text: &str, path: &str) -> Config {
    #[allow(clippy::unwrap_used)]
    let mut c = config::parse(text, path).unwrap();
    c.file = Some(PathBuf::from(path));
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn themes_are_named_and_mistakes_explained() {
        let c = parse("theme = \"solarized-dark\"\n", "c.toml");
        assert_eq!(theme(&c, false).unwrap().name, "solarized-dark");
        let c = parse("theme = \"neon\"\n", "c.toml");
        assert_eq!(
            theme(&c, false).unwrap_err().to_string(),
            "config file c.toml: no theme named neon (built in: default, light, solarized-dark)"
        );
        let c = parse("theme = \"light\"\n", "c.toml");
        assert_eq!(theme(&c, false).unwrap().name, "light");
    }

    #[test]
    fn a_rule_colour_must_be_one_the_console_draws() {
        let c = parse(
            "[[escalate]]\nname = \"late\"\ncolour = \"blurple\"\n",
            "c.toml",
        );
        assert!(
            rule_colours(&c)
                .unwrap_err()
                .to_string()
                .starts_with("config file c.toml: [[escalate]] late: `blurple` is not a colour")
        );
        for ok in ["red", "light-blue", "#ff8800", "208"] {
            let c = parse(&format!("[[escalate]]\ncolour = \"{ok}\"\n"), "c.toml");
            assert!(rule_colours(&c).is_ok(), "{ok}");
        }
    }
}
