//! The language loopdeck writes a project's blocks in (`conversation.md`,
//! the recomputed `next_action.description`): the project's own, read from
//! its own text, since seed 000 gives none (its examples are Chinese).
//!
//! The rule: the words of the state (next action, open questions, key
//! decisions, the input log's summaries) and of the scene anchor are
//! counted: each Han character is a word, each run of Latin letters is a
//! word. More Latin words than Han characters is English; otherwise
//! (Chinese, or no text at all: the seed's own language) Chinese. Ids,
//! stage numbers, file names and the project's name are not counted: a
//! slug says nothing about the language people write in.

use super::super::schema::State;

/// How much of the scene anchor is read for its words.
const ANCHOR_SAMPLE: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Zh,
    En,
}

/// The words loopdeck's blocks are made of, in one language.
pub(crate) struct Words {
    pub title: &'static str,
    pub stage: &'static str,
    pub question: &'static str,
    pub answer: &'static str,
    pub to_verify: &'static str,
    pub evidence: &'static str,
    pub evidence_needed: &'static str,
    pub threshold: &'static str,
    /// `(by)` after a label: `（alice，经 loopdeck）`.
    pub via: fn(&str) -> String,
    /// `(label, id)`: `问（OQ-7）`.
    pub about: fn(&str, &str) -> String,
    /// The key-decision note, with its rationale when given.
    pub key_decision: fn(Option<&str>) -> String,
    pub options: &'static str,
    pub chosen: &'static str,
    /// A label's colon: `：` or `: `.
    pub colon: &'static str,
    /// `stage1_frontier` descriptions: questions and research, questions
    /// only, research only, neither.
    pub frontier: [&'static str; 4],
    /// A migrated legacy project's next action (seed 000, Step 0): the
    /// value argument, then back to the mapped stage.
    pub value_argument: fn(&str) -> String,
}

static ZH: Words = Words {
    title: "# 对话记录",
    stage: "阶段",
    question: "问",
    answer: "答",
    to_verify: "待查证",
    evidence: "证据",
    evidence_needed: "需要的证据",
    threshold: "验收阈值",
    via: |by| format!("（{by}，经 loopdeck）"),
    about: |label, id| format!("{label}（{id}）"),
    key_decision: |r| match r {
        Some(r) => format!("（记为关键决策；理由：{r}）"),
        None => "（记为关键决策）".to_owned(),
    },
    options: "选项",
    chosen: "选",
    colon: "：",
    frontier: [
        "等待用户回答当前前沿；事实查证并行进行",
        "等待用户回答当前前沿",
        "等待事实查证返回",
        "阶段 1 前沿已清空：没有可问的问题或进行中的查证",
    ],
    value_argument: |stage| format!("先完成价值论证（阶段 2 已确认），再回到阶段 {stage}"),
};

static EN: Words = Words {
    title: "# Conversation",
    stage: "stage",
    question: "Question",
    answer: "Answer",
    to_verify: "To verify",
    evidence: "Evidence",
    evidence_needed: "Evidence needed",
    threshold: "Acceptance threshold",
    via: |by| format!(" ({by}, via loopdeck)"),
    about: |label, id| format!("{label} ({id})"),
    key_decision: |r| match r {
        Some(r) => format!("(recorded as a key decision; rationale: {r})"),
        None => "(recorded as a key decision)".to_owned(),
    },
    options: "Options",
    chosen: "Chosen",
    colon: ": ",
    frontier: [
        "Waiting for the user to answer the current frontier; fact checks run in parallel",
        "Waiting for the user to answer the current frontier",
        "Waiting for fact checks to come back",
        "Stage 1 frontier is empty: no question to ask and no fact check under way",
    ],
    value_argument: |stage| {
        format!("Complete the value argument (stage 2) first, then return to stage {stage}")
    },
};

impl Lang {
    pub(crate) fn words(self) -> &'static Words {
        match self {
            Lang::Zh => &ZH,
            Lang::En => &EN,
        }
    }
}

/// `(Han characters, Latin words)` in `text`.
fn count(text: &str, tally: &mut (usize, usize)) {
    let mut in_word = false;
    for c in text.chars() {
        if matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '\u{F900}'..='\u{FAFF}')
        {
            tally.0 += 1;
        }
        let latin = c.is_ascii_alphabetic();
        if latin && !in_word {
            tally.1 += 1;
        }
        in_word = latin;
    }
}

/// The project's language from its state and its scene anchor's text.
pub(super) fn detect(state: &State, anchor: Option<&[u8]>) -> Lang {
    let mut tally = (0, 0);
    if let Some(na) = &state.next_action {
        count(na.description.as_deref().unwrap_or_default(), &mut tally);
        for o in &na.askuserquestion_options {
            count(o, &mut tally);
        }
    }
    for q in &state.open_questions {
        for t in [&q.title, &q.evidence_needed, &q.acceptance_threshold] {
            count(t.as_deref().unwrap_or_default(), &mut tally);
        }
    }
    for d in &state.key_decisions_made {
        count(d.decision.as_deref().unwrap_or_default(), &mut tally);
        count(d.rationale.as_deref().unwrap_or_default(), &mut tally);
    }
    for u in &state.user_inputs_log {
        count(u.summary.as_deref().unwrap_or_default(), &mut tally);
    }
    if let Some(bytes) = anchor {
        let sample = &bytes[..bytes.len().min(ANCHOR_SAMPLE)];
        count(&String::from_utf8_lossy(sample), &mut tally);
    }
    if tally.1 > tally.0 {
        Lang::En
    } else {
        Lang::Zh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(json: &str) -> State {
        super::super::super::schema::parse(json.as_bytes())
            .unwrap()
            .0
    }

    #[test]
    fn han_characters_against_latin_words() {
        // The seed's own example: Chinese with Latin terms.
        let zh = state(r#"{"open_questions":[{"title":"批量导出是否进入 MVP"}]}"#);
        assert_eq!(detect(&zh, None), Lang::Zh);
        let en = state(
            r#"{"open_questions":[{"title":"Should bulk export (批量导出) ship in the MVP?"}]}"#,
        );
        assert_eq!(detect(&en, None), Lang::En);
        // No text: the seed's language. The name and ids do not count.
        let bare = state(
            r#"{"project_name":"fba-smart-restock","current_stage":"1","open_questions":[{"id":"OQ-1"}]}"#,
        );
        assert_eq!(detect(&bare, None), Lang::Zh);
        // The scene anchor counts.
        assert_eq!(
            detect(&bare, Some(b"A clerk matches bank lines by hand.")),
            Lang::En
        );
        assert_eq!(
            detect(
                &en,
                Some("补货决策引擎：每天告诉运营该补哪些 SKU、补多少".as_bytes())
            ),
            Lang::Zh
        );
    }
}
