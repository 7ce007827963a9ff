//! Which directories are plans: under `.dwp/plans`, given directly, bare.

use super::*;

#[test]
fn discovery_finds_plan_directories_only() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let plans = repo.join(".dwp/plans");
    for (dir, file) in [
        ("PLAN_a", STATE),
        ("PLAN_b", README),
        ("PLAN_c", MANIFEST),
        ("PLAN_empty", "notes.md"),
        ("not_a_plan", STATE),
    ] {
        fs::create_dir_all(plans.join(dir)).unwrap();
        fs::write(plans.join(dir).join(file), "{}").unwrap();
    }
    fs::write(plans.join("PLAN_file"), "x").unwrap();
    let mut names: Vec<String> = read_repo(&repo)
        .into_iter()
        .map(|p| file_name(&p.path))
        .collect();
    names.sort();
    assert_eq!(names, vec!["PLAN_a", "PLAN_b", "PLAN_c"]);

    // A plan directory read on its own (`loopdeck show PLAN_DIR`).
    let alone = |dir: &Path| {
        discover(&WalkEntry {
            path: dir,
            files: &[],
            dirs: &[],
        })
    };
    assert_eq!(alone(&plans.join("PLAN_a")).len(), 1);
    // A PLAN_ directory elsewhere is a plan only when its JSON says DWP.
    fs::create_dir_all(tmp.path().join("PLAN_x")).unwrap();
    fs::write(tmp.path().join("PLAN_x").join(STATE), "{}").unwrap();
    fs::write(tmp.path().join("PLAN_x").join(README), "# x\n").unwrap();
    assert!(alone(&tmp.path().join("PLAN_x")).is_empty());
    for (dir, file, json) in [
        ("PLAN_y", STATE, r#"{"plan": "PLAN_y"}"#),
        (
            "PLAN_z",
            MANIFEST,
            r#"{"schema": "https://deepworkplan.com/schema/plan-manifest/v2.json"}"#,
        ),
    ] {
        fs::create_dir_all(tmp.path().join(dir)).unwrap();
        fs::write(tmp.path().join(dir).join(file), json).unwrap();
        assert_eq!(alone(&tmp.path().join(dir)).len(), 1, "{dir}");
    }
    // A repository without .dwp in its directory list is not searched.
    assert!(
        discover(&WalkEntry {
            path: &repo,
            files: &[],
            dirs: &[],
        })
        .is_empty()
    );
}

#[cfg(unix)]
#[test]
fn plans_linked_from_outside_the_repository_are_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("outside/PLAN_out");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join(STATE), "{}").unwrap();
    let plans = tmp.path().join("repo/.dwp/plans");
    fs::create_dir_all(&plans).unwrap();
    std::os::unix::fs::symlink(&outside, plans.join("PLAN_out")).unwrap();
    assert!(read_repo(&tmp.path().join("repo")).is_empty());
}
