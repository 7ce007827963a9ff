//! `[[escalate]]` rules and `[notify] command`, read from the config file.
//! Every value is checked where it is read, so a mistake is a usage error
//! naming the file, its line and column, and what is expected:
//!
//! ```toml
//! [[escalate]]
//! name = "stuck questions"        # optional: `#1`, `#2`… by place
//! kind = ["question", "evidence"] # optional: an item kind, or "stalled"
//! project = "fba-*"               # optional: a glob on the id, name,
//!                                 # directory name or path
//! format = "prd-master"           # optional: one or a list
//! waited = "2d"                   # optional: waited longer than this
//! colour = "red"                  # optional: the row's colour
//! first = true                    # rank first (default true)
//! notify = true                   # notify once per item (default true)
//!
//! [notify]
//! command = "curl -s --data-binary @- https://ntfy.sh/my-topic"
//! timeout = "10s"
//! ```

use std::time::Duration;

use chrono::TimeDelta;
use serde::Deserialize;
use serde::de::Error as _;

use crate::model::Format;
use crate::model::escalate::{self, Rule};
use crate::t;

/// How long a `[notify] command` may run when the config does not say.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest `timeout` a command may be given.
pub const COMMAND_TIMEOUT_MAX: Duration = Duration::from_secs(300);

/// One `[[escalate]]` table as written (checked).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct EscalateConfig {
    #[serde(default, deserialize_with = "name")]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "kinds")]
    pub kind: Vec<String>,
    #[serde(default, deserialize_with = "project")]
    pub project: Option<glob::Pattern>,
    #[serde(default, deserialize_with = "formats")]
    pub format: Vec<Format>,
    #[serde(default, deserialize_with = "waited")]
    pub waited: Option<TimeDelta>,
    #[serde(default, alias = "color", deserialize_with = "colour")]
    pub colour: Option<String>,
    #[serde(default = "yes")]
    pub first: bool,
    #[serde(default = "yes")]
    pub notify: bool,
}

fn yes() -> bool {
    true
}

/// The rules of `tables`, in the file's order, unnamed ones named `#N`.
pub fn rules(tables: &[EscalateConfig]) -> Vec<Rule> {
    tables
        .iter()
        .enumerate()
        .map(|(i, e)| Rule {
            name: e.name.clone().unwrap_or_else(|| format!("#{}", i + 1)),
            kinds: e.kind.clone(),
            project: e.project.clone(),
            formats: e.format.clone(),
            waited: e.waited,
            colour: e.colour.clone(),
            first: e.first,
            notify: e.notify,
        })
        .collect()
}

/// A string, or a list of strings.
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

fn one_or_many<'de, D: serde::Deserializer<'de>>(
    d: D,
    what: &str,
) -> Result<Vec<String>, D::Error> {
    OneOrMany::deserialize(d)
        .map(OneOrMany::into_vec)
        .map_err(|_| D::Error::custom(t!("runtime.config.one_or_many", what = what)))
}

fn name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let name = String::deserialize(d)?;
    if name.trim().is_empty() || name.chars().any(char::is_control) {
        return Err(D::Error::custom(t!("runtime.config.rule_name")));
    }
    Ok(Some(name))
}

fn kinds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let known = escalate::known_kinds();
    let kinds = one_or_many(d, "kind")?;
    for k in &kinds {
        if !known.contains(&k.as_str()) {
            return Err(D::Error::custom(t!(
                "runtime.config.unknown_kind",
                kind = k,
                known = known.join(", ")
            )));
        }
    }
    Ok(kinds)
}

fn formats<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Format>, D::Error> {
    const ALL: [Format; 4] = [Format::PrdMaster, Format::Gsd, Format::Dwp, Format::Devloop];
    one_or_many(d, "format")?
        .iter()
        .map(|name| {
            ALL.iter()
                .copied()
                .find(|f| f.as_str() == name)
                .ok_or_else(|| {
                    D::Error::custom(t!(
                        "runtime.config.unknown_format",
                        format = name,
                        known = ALL.map(Format::as_str).join(", ")
                    ))
                })
        })
        .collect()
}

fn project<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<glob::Pattern>, D::Error> {
    let text = String::deserialize(d)?;
    glob::Pattern::new(&text).map(Some).map_err(|e| {
        D::Error::custom(t!(
            "runtime.config.bad_glob",
            glob = text,
            why = e.msg,
            at = e.pos + 1
        ))
    })
}

/// A duration as people write it (`90s`, `40m`, `2h 30m`, `2d`, `1w`),
/// with an optional leading `>` (`waited = "> 2d"` reads as it means).
fn duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let text = text.strip_prefix('>').unwrap_or(text).trim();
    humantime::parse_duration(text).ok()
}

fn waited<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<TimeDelta>, D::Error> {
    let text = String::deserialize(d)?;
    duration(&text)
        .and_then(|d| TimeDelta::from_std(d).ok())
        .map(Some)
        .ok_or_else(|| D::Error::custom(t!("runtime.config.bad_duration", value = text)))
}

/// A colour as a theme writes it; the console, which draws it, checks it
/// names one (`console::rule_colours`). Here: one word.
fn colour<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let text = String::deserialize(d)?;
    if text.trim().is_empty() || text.chars().any(|c| c.is_control()) {
        return Err(D::Error::custom(t!(
            "runtime.config.bad_colour",
            value = text
        )));
    }
    Ok(Some(text))
}

/// `command = "prog arg 'two words'"` (split as a POSIX shell splits
/// words, but run without one) or `command = ["prog", "arg"]`.
pub(super) fn command<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<String>>, D::Error> {
    let argv = match OneOrMany::deserialize(d)
        .map_err(|_| D::Error::custom(t!("runtime.config.one_or_many", what = "command")))?
    {
        OneOrMany::One(line) => shell_words::split(&line)
            .map_err(|e| D::Error::custom(t!("runtime.config.bad_command", why = e)))?,
        OneOrMany::Many(v) => v,
    };
    if argv.first().is_none_or(|p| p.trim().is_empty()) || argv.iter().any(|a| a.contains('\0')) {
        return Err(D::Error::custom(t!("runtime.config.empty_command")));
    }
    Ok(Some(argv))
}

/// `timeout = "10s"`: at least a second, at most [`COMMAND_TIMEOUT_MAX`].
pub(super) fn timeout<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Duration>, D::Error> {
    let text = String::deserialize(d)?;
    duration(&text)
        .filter(|d| *d >= Duration::from_secs(1) && *d <= COMMAND_TIMEOUT_MAX)
        .map(Some)
        .ok_or_else(|| {
            D::Error::custom(t!(
                "runtime.config.bad_timeout",
                value = text,
                max = COMMAND_TIMEOUT_MAX.as_secs()
            ))
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::super::parse;
    use super::*;

    #[test]
    fn rules_read_with_their_defaults_and_names() {
        let c = parse(
            r#"
[[escalate]]
name = "stuck questions"
kind = ["question", "evidence"]
project = "fba-*"
format = "prd-master"
waited = "> 2d"
colour = "red"

[[escalate]]
kind = "stalled"
waited = "40m"
first = false
notify = false
"#,
            "c.toml",
        )
        .unwrap();
        let r = rules(&c.escalate);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].name, "stuck questions");
        assert_eq!(r[0].kinds, ["question", "evidence"]);
        assert_eq!(r[0].formats, [Format::PrdMaster]);
        assert_eq!(r[0].waited, Some(TimeDelta::days(2)));
        assert_eq!(r[0].colour.as_deref(), Some("red"));
        assert!(r[0].first && r[0].notify);
        assert!(r[0].project.as_ref().unwrap().matches("fba-smart-restock"));
        assert_eq!(r[1].name, "#2");
        assert_eq!(r[1].kinds, ["stalled"]);
        assert_eq!(r[1].waited, Some(TimeDelta::minutes(40)));
        assert!(!r[1].first && !r[1].notify);
        assert!(parse("", "c.toml").unwrap().escalate.is_empty());
    }

    /// Each mistake names its line and column and what is expected.
    #[test]
    fn mistakes_in_a_rule_name_their_place() {
        for (text, want) in [
            (
                "[[escalate]]\nkind = \"questoin\"\n",
                "line 2, column 8: unknown kind `questoin`: expected one of question, evidence,",
            ),
            (
                "[[escalate]]\nformat = [\"gsd\", \"jira\"]\n",
                "line 2, column 10: unknown format `jira`: expected one of prd-master, gsd, dwp, devloop",
            ),
            (
                "[[escalate]]\nwaited = \"two days\"\n",
                "line 2, column 10: `two days` is not a duration: write it as 90s, 40m, 2h, 2d or 1w",
            ),
            (
                "[[escalate]]\nproject = \"fba-[\"\n",
                "line 2, column 11: `fba-[` is not a glob: invalid range pattern (at character 5)",
            ),
            (
                "[[escalate]]\ncolour = \"\"\n",
                "line 2, column 10: `` is not a colour:",
            ),
            (
                "[[escalate]]\nwaited = 3600\n",
                "line 2, column 10: invalid type: integer `3600`, expected a string",
            ),
            (
                "[[escalate]]\nafter = \"2d\"\n",
                "line 2, column 1: unknown field `after`",
            ),
            (
                "[[escalate]]\nkind = 3\n",
                "line 2, column 8: kind: expected a string or a list of strings",
            ),
            (
                "[notify]\ncommand = \"curl 'unclosed\"\n",
                "line 2, column 11: the command cannot be split into words (missing closing quote)",
            ),
            (
                "[notify]\ncommand = \"\"\n",
                "line 2, column 11: the command is empty",
            ),
            (
                "[notify]\ntimeout = \"0s\"\n",
                "line 2, column 11: `0s` is not a time limit: from 1s to 300s",
            ),
        ] {
            let e = parse(text, "c.toml").unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("config file c.toml, {want}")),
                "{text:?}: {e}"
            );
        }
    }

    #[test]
    fn a_command_is_split_as_a_shell_would_but_never_given_to_one() {
        let c = parse(
            "[notify]\ncommand = \"curl -s -H 'Title: loopdeck' --data-binary @- https://ntfy.sh/t\"\ntimeout = \"30s\"\n",
            "c.toml",
        )
        .unwrap();
        assert_eq!(
            c.notify.command.as_deref().unwrap(),
            [
                "curl",
                "-s",
                "-H",
                "Title: loopdeck",
                "--data-binary",
                "@-",
                "https://ntfy.sh/t"
            ]
        );
        assert_eq!(c.notify.timeout, Some(Duration::from_secs(30)));
        let c = parse(
            "[notify]\ncommand = [\"notify-send\", \"a $b\"]\n",
            "c.toml",
        )
        .unwrap();
        assert_eq!(
            c.notify.command.as_deref().unwrap(),
            ["notify-send", "a $b"]
        );
        assert_eq!(c.notify.timeout, None);
    }
}
