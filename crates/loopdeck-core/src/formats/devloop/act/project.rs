//! `act sign-off`, `act abandon`, `act requirement TEXT`.
//!
//! The seed routes them through the devloop server (REST.signOff,
//! REST.abandon, REST.postRequirement: `POST /projects/:pid/...`, 409 on a
//! finished project). When `[devloop] api` names the server, loopdeck asks
//! it and writes nothing itself: the server owns `project.json` and logs
//! the action in the timeline. Without a server, sign-off (shipped →
//! shipped-final) and abandon (any unfinished project) edit `project.json`
//! in its own style and append a human timeline event; a requirement needs
//! the server (the PM agent takes it from there) and is refused.

use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};

use super::event::{Event, cut, one_line};
use super::http::{self, Base, HttpError};
use super::pause;
use super::{decision, refuse, stamp};
use crate::formats::devloop::PROJECT_FILE;
use crate::formats::jsonedit::JsonDoc;
use crate::model::{Request, Verb};
use crate::store::transact;
use crate::store::txn::{ActError, Edit, LockKind, Outcome, Snapshot, Stamp, Txn, WriteOptions};

/// How long the server is given to answer.
const SERVER_TIMEOUT: Duration = Duration::from_secs(10);
/// What follows a settled conflict, for a refused sign-off.
const SIGN_OFF_THEN: &str =
    "sign off once the aside is gone. Abandoning the project stays possible meanwhile";
/// A project that is over: nothing more can be decided on it.
pub(crate) const FINISHED: &[&str] = &["shipped-final", "abandoned"];

pub(super) fn act(dir: &Path, req: &Request, opts: &WriteOptions) -> Result<Outcome, ActError> {
    if let Verb::Requirement { text } = &req.verb
        && text.trim().is_empty()
    {
        return Err(refuse(
            "the requirement is empty: say what the project should do",
        ));
    }
    if let Some(api) = req.devloop_api.as_deref().filter(|a| !a.trim().is_empty()) {
        if matches!(req.verb, Verb::SignOff) {
            pause::refuse_while_paused(&mut Snapshot::new(dir), "sign-off refused", SIGN_OFF_THEN)?;
        }
        return remote(dir, req, opts, api);
    }
    let kind = match &req.verb {
        Verb::SignOff => Local::SignOff,
        Verb::Abandon => Local::Abandon,
        _ => {
            let file = req.config_file.as_deref().unwrap_or("--config FILE");
            return Err(refuse(format!(
                "a new requirement goes to the devloop server (POST /projects/:pid/requirement), \
                 where the PM agent takes it; no server is configured: add\n  [devloop]\n  api = \"http://host:port\"\n\
                 to loopdeck's config file ({file})"
            )));
        }
    };
    let txn = Txn::new(
        dir,
        PROJECT_FILE,
        LockKind::Owner,
        opts,
        &req.by,
        req.now,
        decision(req),
    );
    transact(&txn, |snap| decide(snap, req, kind))
}

#[derive(Clone, Copy)]
enum Local {
    SignOff,
    Abandon,
}

fn decide(snap: &mut Snapshot, req: &Request, kind: Local) -> Result<Vec<Edit>, ActError> {
    let Some(bytes) = snap.read(PROJECT_FILE)? else {
        return Err(refuse(format!("{PROJECT_FILE} is gone")));
    };
    let mut doc = JsonDoc::parse(bytes).map_err(|e| {
        refuse(format!(
            "{PROJECT_FILE} is not JSON ({e}); nothing is written to it"
        ))
    })?;
    let Value::Object(meta) = doc.value_mut() else {
        return Err(refuse(format!("{PROJECT_FILE} is not a JSON object")));
    };
    let from = meta
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let pid = project_id(meta, snap.project());
    let (to, event_kind, verb) = match kind {
        Local::SignOff => ("shipped-final", "project_signed_off", "signed off"),
        Local::Abandon => ("abandoned", "project_abandoned", "abandoned"),
    };
    match kind {
        Local::SignOff if from == "shipped-final" => {
            return Err(refuse(format!(
                "{pid} is already signed off (shipped-final)"
            )));
        }
        Local::SignOff if from != "shipped" => {
            return Err(refuse(format!(
                "sign-off takes a shipped project to shipped-final; {pid} is {from}"
            )));
        }
        Local::Abandon if FINISHED.contains(&from.as_str()) => {
            return Err(refuse(format!(
                "{pid} is finished ({from}); there is nothing to abandon"
            )));
        }
        _ => {}
    }
    if matches!(kind, Local::SignOff) {
        pause::refuse_while_paused(snap, "sign-off refused", SIGN_OFF_THEN)?;
    }
    let Value::Object(meta) = doc.value_mut() else {
        return Err(refuse(format!("{PROJECT_FILE} is not a JSON object")));
    };
    meta.insert("status".into(), Value::from(to));
    meta.insert("updated_at".into(), Value::from(stamp(req.now)));
    let bytes = doc
        .into_bytes()
        .map_err(|e| refuse(format!("{PROJECT_FILE}: {e}")))?;
    let mut payload = Map::new();
    payload.insert("from".into(), Value::from(from.as_str()));
    payload.insert("to".into(), Value::from(to));
    payload.insert("by".into(), Value::from(req.by.as_str()));
    let event = Event {
        kind: event_kind,
        reference: Some(&pid),
        summary: format!("{} {verb} {pid}: {from} → {to}", req.by),
        payload: Some(Value::Object(payload)),
    };
    Ok(vec![
        Edit::Replace {
            file: PROJECT_FILE.to_owned(),
            bytes,
        },
        event.edit(req.now),
    ])
}

/// The project's id (`project.json` `id`), else its directory's name.
fn project_id(meta: &Map<String, Value>, dir: &Path) -> String {
    meta.get("id")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| crate::formats::file_name(dir))
}

/// Ask the server. The read-only gate and `--expect-sha256` (against
/// `project.json`) hold here too; `--dry-run` sends nothing.
fn remote(dir: &Path, req: &Request, opts: &WriteOptions, api: &str) -> Result<Outcome, ActError> {
    opts.gate()?;
    let bytes = crate::store::read_in(dir, PROJECT_FILE, crate::store::STATE_FILE_LIMIT).map_err(
        |source| ActError::Store {
            file: PROJECT_FILE.to_owned(),
            source,
        },
    )?;
    if let Some(expect) = &opts.expect_sha256 {
        let now = Stamp::of(&bytes);
        if &now.sha256 != expect {
            return Err(ActError::Changed(format!(
                "{PROJECT_FILE}: changed on disk: expected sha256 {expect}, found {}",
                now.sha256
            )));
        }
    }
    let meta = match JsonDoc::parse(&bytes).map(JsonDoc::into_value) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let pid = project_id(&meta, dir);
    let base = Base::parse(api).map_err(|e| {
        refuse(format!(
            "[devloop] api: {e} (loopdeck speaks plain http to the devloop server)"
        ))
    })?;
    let (action, mut body) = match &req.verb {
        Verb::SignOff => ("sign-off", Map::new()),
        Verb::Abandon => ("abandon", Map::new()),
        Verb::Requirement { text } => {
            let mut m = Map::new();
            m.insert("text".into(), Value::from(text.as_str()));
            ("requirement", m)
        }
        other => return Err(ActError::not_for(crate::model::Format::Devloop, other)),
    };
    body.insert("origin".into(), Value::from(req.by.as_str()));
    let body = serde_json::to_vec(&Value::Object(body)).unwrap_or_default();
    let path = format!("/projects/{}/{action}", http::segment(&pid));
    let where_ = format!("{}{path}", api.trim().trim_end_matches('/'));
    if opts.dry_run {
        // What would be sent, in place of a diff: no file here changes.
        return Ok(Outcome {
            dry_run: true,
            files: vec![crate::store::txn::FileChange {
                file: format!("POST {where_}"),
                before: None,
                after: None,
                diff: format!(
                    "POST {where_}\n{}\n(the devloop server records the {action}; no file here is written)\n",
                    String::from_utf8_lossy(&body)
                ),
                appended: false,
            }],
            primary: PROJECT_FILE.to_owned(),
            audit_id: None,
            read: Vec::new(),
            recovered: Vec::new(),
            said: Vec::new(),
        });
    }
    let token = std::env::var(http::TOKEN_ENV).ok();
    let answer = http::post_json(&base, &path, &body, token.as_deref(), SERVER_TIMEOUT)
        .map_err(|e| match e {
            HttpError::Timeout(..) => refuse(format!(
                "POST {where_}: {e}; the server may or may not have taken the {action}: look before trying again (`loopdeck show {}`)",
                dir.display()
            )),
            other => refuse(format!(
                "POST {where_}: {other}; nothing was decided (is the devloop server running, and is [devloop] api right?)"
            )),
        })?;
    let said = server_message(&answer.body);
    match answer.status {
        200..=299 => Ok(Outcome {
            dry_run: false,
            primary: PROJECT_FILE.to_owned(),
            files: Vec::new(),
            audit_id: None,
            read: Vec::new(),
            recovered: Vec::new(),
            said: Vec::new(),
        }),
        409 => Err(refuse(format!(
            "the devloop server refused the {action}: {pid} is finished (409 Conflict){said}"
        ))),
        401 | 403 => Err(refuse(format!(
            "the devloop server refused the {action}: not authorised ({} {}){said}; set {} to a token it accepts",
            answer.status,
            answer.reason,
            http::TOKEN_ENV
        ))),
        404 => Err(refuse(format!(
            "the devloop server at {api} does not know project {pid} (404){said}; is [devloop] api the server that runs it?"
        ))),
        s => Err(refuse(format!(
            "the devloop server answered {s} {} to the {action}{said}; nothing was decided",
            answer.reason
        ))),
    }
}

/// `: reason` from the server's JSON `{error|message}` or its text.
fn server_message(body: &str) -> String {
    let text = match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(m)) => ["error", "message", "reason"]
            .iter()
            .find_map(|k| m.get(*k).and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default(),
        _ => body.to_owned(),
    };
    let text = one_line(text.trim());
    if text.is_empty() {
        String::new()
    } else {
        format!(": {}", cut(&text, 200))
    }
}
