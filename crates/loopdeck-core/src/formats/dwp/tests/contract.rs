//! Seed 002's rules on skipped work, status kinds and the manifest's
//! contract, on plans written into temp dirs.

use super::*;

#[test]
fn skipped_tasks_stay_in_the_total() {
    let mut f = full_plan(&["completed", "skipped", "pending"]);
    f.edit_state(|s| s["status"] = json!("in_progress"));
    let (_t, p) = read(&f);
    assert!(p.findings.is_empty(), "{:#?}", p.findings);
    assert_eq!(p.progress_percent, Some(33));
    assert!(p.statusline.contains("· 1/3 tasks ·"), "{}", p.statusline);
}

/// Seed 002: skipped work never makes a plan completed, not even when
/// every other task is done and state.json itself says `completed`.
#[test]
fn a_plan_whose_remaining_tasks_are_skipped_is_not_completed() {
    for written in ["completed", "in_progress"] {
        let mut f = full_plan(&["completed", "skipped", "skipped"]);
        f.edit_state(|s| s["status"] = json!(written));
        let (_t, p) = read(&f);
        assert_ne!(p.status, "completed", "{written}");
        assert_eq!(p.status, "executing", "the checker's rule: in_progress");
        assert_eq!(p.progress_percent, Some(33), "{written}");
        assert_eq!(
            p.stage.as_ref().map(|s| s.en()).as_deref(),
            Some("1/3 tasks done, 2 skipped"),
            "{written}"
        );
        assert!(!p.statusline.ends_with("· completed"), "{}", p.statusline);
        assert_eq!(
            p.statusline,
            "PLAN_test_plan · 1/3 tasks · 2 skipped, not completed"
        );
        let stopped = p
            .resume
            .stopped_at
            .as_ref()
            .map(|s| s.en())
            .unwrap_or_default();
        assert!(!stopped.contains("every task is done"), "{stopped}");
        assert!(stopped.contains("2 skipped"), "{stopped}");
        let incoherent = codes(&p).contains(&"dwp.status-incoherent");
        assert_eq!(incoherent, written == "completed", "{:#?}", p.findings);
    }
}

/// Every status word of seed 002 has its kind set by the reader, so the
/// temporary substring guess never decides for a plan or a task; a word the
/// seed does not define stays `Unknown`.
#[test]
fn every_dwp_status_word_has_its_kind() {
    use crate::model::StatusKind as K;
    let plans: [(&[&str], &str, K); 4] = [
        (&["pending", "pending"], "pending", K::Planning),
        (&["completed", "in_progress"], "executing", K::Running),
        (&["completed", "blocked"], "blocked", K::Blocked),
        (&["completed", "completed"], "completed", K::Done),
    ];
    for (statuses, word, kind) in plans {
        let (_t, p) = read(&full_plan(statuses));
        assert_eq!(
            (p.status.as_str(), p.status_kind),
            (word, kind),
            "{statuses:?}"
        );
    }
    let mut f = full_plan(&["pending"]);
    f.edit_state(|s| {
        s["status"] = json!("paused");
        s["tasks"][0]["status"] = json!("waiting");
    });
    let (_t, p) = read(&f);
    assert_eq!((p.status.as_str(), p.status_kind), ("paused", K::Unknown));
    assert_eq!(p.detail.tasks[0].status_kind, K::Unknown);

    let words = ["pending", "in_progress", "completed", "blocked", "skipped"];
    let want = [K::Planning, K::Running, K::Done, K::Blocked, K::Unknown];
    let mut f = full_plan(&["pending"; 5]);
    f.edit_state(|s| {
        for (i, w) in words.iter().enumerate() {
            s["tasks"][i]["status"] = json!(w);
        }
    });
    let (_t, p) = read(&f);
    let got: Vec<(&str, K)> = p
        .detail
        .tasks
        .iter()
        .map(|t| (t.status.as_str(), t.status_kind))
        .collect();
    let expected: Vec<(&str, K)> = words.into_iter().zip(want).collect();
    assert_eq!(got, expected);
    // A plan without state.json: its README checkboxes.
    let mut f = full_plan(&["completed", "pending"]);
    f.remove(STATE);
    let (_t, p) = read(&f);
    let kinds: Vec<K> = p.detail.tasks.iter().map(|t| t.status_kind).collect();
    assert_eq!(kinds, vec![K::Done, K::Planning]);
    assert_eq!(p.status_kind, K::Running);
}

/// Seed 002: schema, spec_version, name, archetype, rigor, created_at,
/// task_count and plan_format are REQUIRED (plan_format from v2 on: the v1
/// schema does not have it), and archetype, rigor, plan_format are enums.
#[test]
fn the_manifest_required_fields_and_enums() {
    let mut f = full_plan(&["pending"]);
    f.edit_manifest(|m| {
        let o = m.as_object_mut().unwrap();
        o.remove("archetype");
        o.remove("plan_format");
        o.remove("task_count");
    });
    let (_t, p) = read(&f);
    assert_eq!(
        codes(&p),
        vec!["dwp.manifest-required"; 3],
        "{:#?}",
        p.findings
    );
    for field in ["archetype", "plan_format", "task_count"] {
        assert!(
            p.findings
                .iter()
                .any(|x| x.message.contains(&format!("`{field}`"))
                    && x.reference.as_deref() == Some(&format!("{MANIFEST}#{field}"))),
            "{field}: {:#?}",
            p.findings
        );
    }
    assert!(p.findings.iter().all(|x| x.level == Level::Error));

    // A v1 manifest has no plan_format, and needs none.
    let mut f = full_plan(&["pending"]);
    f.edit_manifest(|m| {
        m["schema"] = json!("https://deepworkplan.com/schema/plan-manifest/v1.json");
        m.as_object_mut().unwrap().remove("plan_format");
    });
    f.edit_state(|s| {
        s["schema"] = json!("https://deepworkplan.com/schema/plan-state/v1.json");
    });
    let (_t, p) = read(&f);
    assert!(
        !codes(&p).contains(&"dwp.manifest-required"),
        "{:#?}",
        p.findings
    );

    let mut f = full_plan(&["pending"]);
    f.edit_manifest(|m| {
        m["archetype"] = json!("solo");
        m["rigor"] = json!("Standard");
        m["plan_format"] = json!("medium");
    });
    let (_t, p) = read(&f);
    let enums: Vec<&Finding> = p
        .findings
        .iter()
        .filter(|x| x.code == "dwp.manifest-enum")
        .collect();
    assert_eq!(enums.len(), 3, "{:#?}", p.findings);
    for (field, value) in [
        ("archetype", "solo"),
        ("rigor", "Standard"),
        ("plan_format", "medium"),
    ] {
        assert!(
            enums
                .iter()
                .any(|x| x.message.contains(&format!("`{field}` is `{value}`"))),
            "{field}: {enums:#?}"
        );
    }
}

/// `format` matches the manifest's `plan_format`; only a Lite → Full
/// promotion may make them differ.
#[test]
fn the_state_format_follows_the_manifest_except_after_a_promotion() {
    // Promoted: manifest lite (immutable), state full.
    let mut f = full_plan(&["completed", "pending"]);
    f.edit_manifest(|m| m["plan_format"] = json!("lite"));
    let (_t, p) = read(&f);
    assert!(p.findings.is_empty(), "{:#?}", p.findings);

    // A Full plan never becomes Lite.
    let mut f = full_plan(&["pending"]);
    f.edit_state(|s| {
        s["format"] = json!("lite");
        s["tasks"][0]["locator"] = json!({"kind": "inline", "value": "#task-1"});
    });
    let (_t, p) = read(&f);
    let m = finding(&p, "dwp.format-mismatch");
    assert_eq!(m.level, Level::Error);
    assert!(
        m.message.contains("`lite`") && m.message.contains("`full`"),
        "{}",
        m.message
    );
    assert_eq!(m.reference.as_deref(), Some("state.json#format"));

    // A format that is neither.
    let mut f = full_plan(&["pending"]);
    f.edit_state(|s| s["format"] = json!("hybrid"));
    let (_t, p) = read(&f);
    assert_eq!(codes(&p), vec!["dwp.format-unknown"], "{:#?}", p.findings);
}

/// The required fields and the enum values are those of the published
/// schemas (tests/fixtures/dwp-real-world/schemas), so the checks agree
/// with them.
#[test]
fn the_manifest_rules_are_the_published_schemas() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/dwp-real-world/schemas");
    for (file, era) in [
        ("plan-manifest.v1.schema.json", 1),
        ("plan-manifest.v2.schema.json", 2),
    ] {
        let schema: Value = serde_json::from_slice(&fs::read(dir.join(file)).unwrap()).unwrap();
        let mut required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        required.sort_unstable();
        let mut ours = manifest::required(Some(era)).to_vec();
        ours.sort_unstable();
        assert_eq!(ours, required, "{file}");
        for (field, values) in manifest::ENUMS {
            let Some(def) = schema["properties"][field].as_object() else {
                assert_eq!((era, *field), (1, "plan_format"), "{file}");
                continue;
            };
            let published: Vec<&str> = def["enum"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            assert_eq!(values.to_vec(), published, "{file} {field}");
        }
    }
    // Unknown and newer eras (v5 is the v2 shape) follow the seed: v2's set.
    assert_eq!(manifest::required(Some(5)), manifest::required(Some(2)));
    assert_eq!(manifest::required(None), manifest::required(Some(2)));
}
