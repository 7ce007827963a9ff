//! `choose OPTION`: pick one of `next_action.askuserquestion_options`, by
//! its label or its 1-based number (full-width digits as an IME types them
//! count too). Recorded in `user_inputs_log` and as `next_action.answer`.

use serde_json::{Value, json};

use super::doc::{self, refuse};
use super::quote;
use crate::model::Request;
use crate::store::txn::{ActError, Edit, Snapshot};

/// `１２` → `12`; anything else unchanged.
fn ascii_digits(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '０'..='９' => char::from(b'0' + (c as u32 - '０' as u32) as u8),
            c => c,
        })
        .collect()
}

/// The offered option `raw` names: `(1-based number, label)`.
pub(super) fn pick(options: &[String], raw: &str) -> Result<(usize, String), String> {
    let wanted = raw.trim();
    let list = || {
        options
            .iter()
            .enumerate()
            .map(|(i, o)| format!("{}. {o}", i + 1))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    if let Some(i) = options.iter().position(|o| o.trim() == wanted) {
        return Ok((i + 1, options[i].clone()));
    }
    let digits = ascii_digits(wanted);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return match digits.parse::<usize>() {
            Ok(n) if (1..=options.len()).contains(&n) => Ok((n, options[n - 1].clone())),
            _ => Err(format!(
                "option {wanted} is not offered: choose 1-{} ({})",
                options.len(),
                list()
            )),
        };
    }
    let folded = wanted.to_lowercase();
    let matches: Vec<usize> = (0..options.len())
        .filter(|&i| options[i].trim().to_lowercase() == folded)
        .collect();
    if let [i] = matches[..] {
        return Ok((i + 1, options[i].clone()));
    }
    Err(format!(
        "`{wanted}` is not offered: choose one of {}",
        list()
    ))
}

pub(super) fn decide(snap: &mut Snapshot, req: &Request, raw: &str) -> Result<Vec<Edit>, ActError> {
    let mut loaded = doc::load(snap, req)?;
    let na = loaded.state.next_action.clone().unwrap_or_default();
    if na.askuserquestion_options.is_empty() {
        let why = match &loaded.migration {
            Some(m) if m.notes.iter().any(|n| n.contains("old answer option")) => {
                " (the options of the legacy state's old next_action answered another question and are not offered again)"
            }
            _ => "",
        };
        return Err(refuse(format!(
            "next_action ({}) offers no askuserquestion_options: there is nothing to choose{why}",
            na.kind.as_deref().unwrap_or("none")
        )));
    }
    let next_action = loaded.doc.get("next_action");
    if let Some(prev) = next_action
        .as_deref()
        .and_then(|n| n.get("answer"))
        .filter(|a| !a.is_null())
    {
        let text = prev.get("text").and_then(Value::as_str).unwrap_or("?");
        let at = prev.get("at").and_then(Value::as_str).unwrap_or("?");
        return Err(refuse(format!(
            "next_action is already answered (`{text}`, {at}); it waits for PRD-master to act on it"
        )));
    }
    let (n, label) = pick(&na.askuserquestion_options, raw).map_err(refuse)?;
    let ts = doc::stamp(req);
    let stage_text = doc::stage_text(&loaded.state);
    let description = na
        .description
        .clone()
        .unwrap_or_else(|| "decision".to_owned());
    drop(next_action);
    let map = &mut loaded.doc;
    let stage = doc::stage_value(map);
    map.push(
        "user_inputs_log",
        json!({
            "stage": stage,
            "timestamp": ts,
            "summary": format!("{}: {label}", doc::short(&description, 120)),
            "answer": label,
            "option": n,
            "by": req.by,
        }),
    );
    if let Some(Value::Object(action)) = map.get_mut("next_action") {
        action.insert(
            "answer".to_owned(),
            json!({"option": n, "text": label, "at": ts, "by": req.by}),
        );
    }
    doc::touch(map, req);
    let offered = na
        .askuserquestion_options
        .iter()
        .enumerate()
        .map(|(i, o)| format!("{}. {}", i + 1, quote::from_file(o)))
        .collect::<Vec<_>>()
        .join(" / ");
    let w = loaded.lang.words();
    let colon = w.colon;
    let block = format!(
        "## {ts} · {} {} · next_action\n\n**{}**{colon}{}\n\n{}{colon}{offered}\n\n**{}**{}{colon}{n}. {}\n",
        w.stage,
        quote::from_file(&stage_text),
        w.question,
        quote::from_file(&description),
        w.options,
        w.chosen,
        (w.via)(&req.by),
        quote::from_file(&label),
    );
    doc::finish(snap, loaded, &block)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_picked_by_label_number_or_full_width_number() {
        let o: Vec<String> = ["接受 V1 走终稿", "继续吵一轮", "大方向调整"]
            .map(String::from)
            .to_vec();
        assert_eq!(pick(&o, "2").unwrap(), (2, "继续吵一轮".to_owned()));
        assert_eq!(pick(&o, "３").unwrap(), (3, "大方向调整".to_owned()));
        assert_eq!(pick(&o, " 接受 V1 走终稿 ").unwrap().0, 1);
        assert_eq!(pick(&o, "接受 v1 走终稿").unwrap().0, 1);
        assert!(pick(&o, "4").unwrap_err().contains("1-3"));
        assert!(pick(&o, "0").is_err());
        assert!(pick(&o, "something").unwrap_err().contains("2. 继续吵一轮"));
        let numeric: Vec<String> = vec!["2".into(), "1".into()];
        assert_eq!(
            pick(&numeric, "1").unwrap(),
            (2, "1".to_owned()),
            "a label wins over a number"
        );
    }
}
