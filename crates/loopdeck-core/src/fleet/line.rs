//! One line of a host's feed (`loopdeck watch --json --model`), read
//! into a typed [`Line`], or refused with a typed [`LineError`].
//!
//! Every line is a JSON object with `schema_version` (1), `type` and
//! `at`. The `snapshot` line also says which loopdeck sent it and the
//! version of its model encoding (`model_schema`): a console refuses a
//! feed whose encoding it does not read ([`LineError::WrongSchema`])
//! before it looks at any project. A line is applied whole or not at
//! all: one project that does not decode makes the whole line an error.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use crate::follow::Liveness;
use crate::model::wire::{MODEL_SCHEMA, project_from_value};
use crate::model::{Format, Project};

/// The version of the feed's lines this console reads.
pub const SCHEMA_VERSION: u64 = 1;

/// The loopdeck this console is.
const OWN_VERSION: &str = env!("CARGO_PKG_VERSION");

/// One line of a host's `--model` feed.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// The first line: everything the host follows.
    Snapshot {
        /// The remote loopdeck's version.
        version: String,
        /// Every project under the roots (replaces what was known).
        projects: Vec<Project>,
        /// What could not be read at the level of roots ("path: reason").
        problems: Vec<String>,
        /// How the remote notices changes.
        watcher: Liveness,
        /// The roots, as the remote spells them.
        roots: Vec<String>,
    },
    /// A project added or changed: replaces the one at its
    /// `(path, format)`.
    Project(Box<Project>),
    /// A project gone.
    Removed {
        /// Its directory, as the remote spells it.
        path: PathBuf,
        /// Its format.
        format: Format,
    },
    /// How the remote notices changes, now.
    Watcher(Liveness),
    /// The roots' problems, now (`[]`: none left).
    Problems(Vec<String>),
    /// A reading failed on the remote; its next change reads again.
    ReadFailed(String),
    /// Nothing changed; the remote is there.
    Heartbeat,
}

/// Why a line is not applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// Not a JSON object (or not UTF-8): the text, cut short.
    #[error("sent a line that is not a JSON object: {0:?}")]
    NotJson(String),
    /// The feed or its model encoding is another version than this
    /// console's.
    #[error("{}", wrong_schema(*.schema_version, *.model_schema, .version.as_deref()))]
    WrongSchema {
        /// The line's `schema_version`.
        schema_version: u64,
        /// The snapshot's `model_schema`, when the line says it.
        model_schema: Option<u64>,
        /// The remote loopdeck's version, when the line says it.
        version: Option<String>,
    },
    /// A project that does not decode (the whole line is refused).
    #[error("sent a project this console cannot read: {0}")]
    BadProject(String),
    /// A line of the right version whose fields are not as they should be.
    #[error("sent a line this console cannot read: {0}")]
    Malformed(String),
    /// A line longer than the reader takes.
    #[error("sent a line longer than {limit} bytes")]
    TooLong {
        /// The most bytes a line may have.
        limit: usize,
    },
}

impl LineError {
    /// Whether the remote runs another version of loopdeck: not retried
    /// soon, since retrying will not help.
    pub fn is_version(&self) -> bool {
        matches!(self, LineError::WrongSchema { .. })
    }
}

/// The sentence of [`LineError::WrongSchema`] (the host's name goes
/// before it).
fn wrong_schema(schema_version: u64, model_schema: Option<u64>, version: Option<&str>) -> String {
    let version = version.unwrap_or("of another version");
    match model_schema {
        Some(m) if schema_version == SCHEMA_VERSION => format!(
            "runs loopdeck {version} (model schema {m}); this console reads {MODEL_SCHEMA} \
             (loopdeck {OWN_VERSION}): install the same version there"
        ),
        _ => format!(
            "runs loopdeck {version} (feed schema {schema_version}); this console reads \
             {SCHEMA_VERSION} (loopdeck {OWN_VERSION}): install the same version there"
        ),
    }
}

/// The fields of each line, as the feed spells them (`at` and
/// `schema_version` are checked before).
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Raw {
    Snapshot {
        loopdeck_version: String,
        roots: Vec<String>,
        problems: Vec<String>,
        watcher: Liveness,
        projects: Vec<Value>,
    },
    Project {
        project: Value,
    },
    ProjectRemoved {
        path: PathBuf,
        format: String,
    },
    Watcher {
        watcher: Liveness,
    },
    Problems {
        problems: Vec<String>,
    },
    ReadFailed {
        reason: String,
    },
    Heartbeat,
}

/// At most this many characters of a refused line go in its error.
const QUOTED: usize = 80;

/// `text` cut to [`QUOTED`] characters.
fn cut(text: &str) -> String {
    let mut out: String = text.chars().take(QUOTED).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// `text` (one line, without its `\n`) as a JSON object of this feed's
/// version: the first check of both feeds.
fn parse_object(text: &str) -> Result<serde_json::Map<String, Value>, LineError> {
    let text = text.strip_suffix('\r').unwrap_or(text);
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(text) else {
        return Err(LineError::NotJson(cut(text)));
    };
    match object.get("schema_version").and_then(Value::as_u64) {
        Some(SCHEMA_VERSION) => Ok(object),
        Some(other) => Err(LineError::WrongSchema {
            schema_version: other,
            model_schema: object.get("model_schema").and_then(Value::as_u64),
            version: object
                .get("loopdeck_version")
                .and_then(Value::as_str)
                .map(str::to_owned),
        }),
        None => Err(LineError::Malformed(
            "no schema_version (not a loopdeck feed)".to_owned(),
        )),
    }
}

/// One line of the `--model` feed (without its `\n`).
pub fn parse(text: &str) -> Result<Line, LineError> {
    let object = parse_object(text)?;
    if object.get("type").and_then(Value::as_str) == Some("snapshot") {
        let model_schema = object.get("model_schema").and_then(Value::as_u64);
        if model_schema != Some(u64::from(MODEL_SCHEMA)) {
            return Err(LineError::WrongSchema {
                schema_version: SCHEMA_VERSION,
                model_schema,
                version: object
                    .get("loopdeck_version")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            });
        }
    }
    let raw: Raw = serde_json::from_value(Value::Object(object))
        .map_err(|e| LineError::Malformed(e.to_string()))?;
    Ok(match raw {
        Raw::Snapshot {
            loopdeck_version,
            roots,
            problems,
            watcher,
            projects,
        } => Line::Snapshot {
            version: loopdeck_version,
            projects: projects.into_iter().map(decode).collect::<Result<_, _>>()?,
            problems,
            watcher,
            roots,
        },
        Raw::Project { project } => Line::Project(Box::new(decode(project)?)),
        Raw::ProjectRemoved { path, format } => Line::Removed {
            path,
            format: format_named(&format)?,
        },
        Raw::Watcher { watcher } => Line::Watcher(watcher),
        Raw::Problems { problems } => Line::Problems(problems),
        Raw::ReadFailed { reason } => Line::ReadFailed(reason),
        Raw::Heartbeat => Line::Heartbeat,
    })
}

/// One line of the plain `watch --json` feed (a relay passes it on as
/// it is): a JSON object of this feed's version.
pub fn parse_raw(text: &str) -> Result<Value, LineError> {
    parse_object(text).map(Value::Object)
}

fn decode(value: Value) -> Result<Project, LineError> {
    project_from_value(value).map_err(LineError::BadProject)
}

/// The format `name` is in the JSON (`prd-master`, `gsd`, ...).
fn format_named(name: &str) -> Result<Format, LineError> {
    Format::ALL
        .into_iter()
        .find(|f| f.as_str() == name)
        .ok_or_else(|| LineError::Malformed(format!("unknown format {:?}", cut(name))))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::model::wire::to_value;

    const AT: &str = r#""schema_version":1,"at":"2025-01-02T03:04:05.000Z""#;

    fn snapshot(model_schema: u32, projects: &str) -> String {
        format!(
            r#"{{{AT},"type":"snapshot","loopdeck_version":"9.9.9","model_schema":{model_schema},"roots":["/w"],"problems":["/w/x: denied"],"watcher":{{"state":"live","watches":3}},"projects":{projects}}}"#
        )
    }

    #[test]
    fn an_empty_snapshot_reads_every_field() {
        assert_eq!(
            parse(&snapshot(MODEL_SCHEMA, "[]")).unwrap(),
            Line::Snapshot {
                version: "9.9.9".into(),
                projects: vec![],
                problems: vec!["/w/x: denied".into()],
                watcher: Liveness::Live { watches: 3 },
                roots: vec!["/w".into()],
            }
        );
    }

    #[test]
    fn another_model_schema_is_refused_before_any_project_is_read() {
        // The projects are not even JSON objects: the version is what is said.
        let err = parse(&snapshot(MODEL_SCHEMA + 1, "[1, 2]")).unwrap_err();
        assert_eq!(
            err,
            LineError::WrongSchema {
                schema_version: 1,
                model_schema: Some(u64::from(MODEL_SCHEMA) + 1),
                version: Some("9.9.9".into()),
            }
        );
        assert!(err.is_version());
        let text = err.to_string();
        assert!(
            text.starts_with(&format!(
                "runs loopdeck 9.9.9 (model schema {}); this console reads {MODEL_SCHEMA}",
                MODEL_SCHEMA + 1
            )),
            "{text}"
        );
        assert!(text.ends_with("install the same version there"), "{text}");
        // No model_schema at all: a loopdeck from before the model feed.
        let old = r#"{"schema_version":1,"type":"snapshot","roots":[],"problems":[],"watcher":{"state":"starting"},"projects":[]}"#;
        assert!(matches!(
            parse(old),
            Err(LineError::WrongSchema {
                model_schema: None,
                ..
            })
        ));
    }

    #[test]
    fn another_feed_schema_is_refused_on_any_line() {
        let err = parse(r#"{"schema_version":2,"type":"heartbeat"}"#).unwrap_err();
        assert!(matches!(
            err,
            LineError::WrongSchema {
                schema_version: 2,
                ..
            }
        ));
        assert!(err.to_string().contains("feed schema 2"), "{err}");
        assert!(
            parse_raw(r#"{"schema_version":2}"#)
                .unwrap_err()
                .is_version()
        );
    }

    /// One project that does not decode refuses the whole snapshot: it is
    /// never half applied.
    #[test]
    fn a_snapshot_with_one_bad_project_is_refused_whole() {
        let good = to_value(&Project::new(
            Format::Gsd,
            PathBuf::from("/w/a"),
            "a".into(),
        ));
        let line = snapshot(MODEL_SCHEMA, &format!("[{good}, 42]"));
        assert!(matches!(parse(&line), Err(LineError::BadProject(_))));
        let line = format!(r#"{{{AT},"type":"project","project":"nope"}}"#);
        assert!(matches!(parse(&line), Err(LineError::BadProject(_))));
    }

    #[test]
    fn the_small_lines_read() {
        let cases = [
            (
                format!(
                    r#"{{{AT},"type":"project_removed","path":"/w/a b","format":"prd-master"}}"#
                ),
                Line::Removed {
                    path: PathBuf::from("/w/a b"),
                    format: Format::PrdMaster,
                },
            ),
            (
                format!(
                    r#"{{{AT},"type":"watcher","watcher":{{"state":"polling","every_secs":10,"reason":"limit"}}}}"#
                ),
                Line::Watcher(Liveness::Polling {
                    every_secs: 10,
                    reason: "limit".into(),
                }),
            ),
            (
                format!(r#"{{{AT},"type":"watcher","watcher":{{"state":"starting"}}}}"#),
                Line::Watcher(Liveness::Starting),
            ),
            (
                format!(r#"{{{AT},"type":"problems","problems":[]}}"#),
                Line::Problems(vec![]),
            ),
            (
                format!(r#"{{{AT},"type":"read_failed","reason":"boom"}}"#),
                Line::ReadFailed("boom".into()),
            ),
            (format!(r#"{{{AT},"type":"heartbeat"}}"#), Line::Heartbeat),
            // A line ending in "\r\n" (a remote's terminal settings).
            (
                format!("{{{AT},\"type\":\"heartbeat\"}}\r"),
                Line::Heartbeat,
            ),
        ];
        for (text, line) in cases {
            assert_eq!(parse(&text).unwrap(), line, "{text}");
        }
    }

    /// Every format name the model writes reads back.
    #[test]
    fn every_format_reads_back_as_the_model_spells_it() {
        for f in Format::ALL {
            let spelled = serde_json::to_value(f).unwrap();
            let line =
                format!(r#"{{{AT},"type":"project_removed","path":"/p","format":{spelled}}}"#);
            assert!(
                matches!(parse(&line), Ok(Line::Removed { format, .. }) if format == f),
                "{line}"
            );
        }
        let line = format!(r#"{{{AT},"type":"project_removed","path":"/p","format":"cobol"}}"#);
        assert!(matches!(parse(&line), Err(LineError::Malformed(_))));
    }

    #[test]
    fn what_is_not_the_feed_is_told_apart() {
        assert!(matches!(
            parse("Welcome to build-1!"),
            Err(LineError::NotJson(t)) if t == "Welcome to build-1!"
        ));
        assert!(matches!(parse("[1]"), Err(LineError::NotJson(_))));
        let long = "x".repeat(500);
        match parse(&long) {
            Err(LineError::NotJson(t)) => assert_eq!(t.chars().count(), QUOTED + 1),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse(r#"{"type":"heartbeat"}"#),
            Err(LineError::Malformed(_))
        ));
        assert!(matches!(
            parse(&format!(r#"{{{AT},"type":"gossip"}}"#)),
            Err(LineError::Malformed(_))
        ));
        // A field of the wrong shape.
        assert!(matches!(
            parse(&format!(r#"{{{AT},"type":"problems","problems":"none"}}"#)),
            Err(LineError::Malformed(_))
        ));
    }

    #[test]
    fn the_raw_feed_passes_any_line_of_its_version() {
        let v = parse_raw(&format!(r#"{{{AT},"type":"timeline_event","x":[1]}}"#)).unwrap();
        assert_eq!(v["x"][0], 1);
        assert!(matches!(parse_raw("oops"), Err(LineError::NotJson(_))));
    }
}
