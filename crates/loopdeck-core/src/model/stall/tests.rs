//! The stall rule, pure: fixed "now", hand-made claims.

use chrono::{DateTime, TimeDelta, TimeZone, Utc};

use super::*;
use crate::model::{Agent, Format, Project, StatusKind};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap()
}

fn mins(n: i64) -> TimeDelta {
    TimeDelta::minutes(n)
}

fn agent(name: &str, activity: Option<Activity>) -> Agent {
    Agent {
        agent: name.to_owned(),
        status: if activity.is_some() {
            "running"
        } else {
            "done"
        }
        .to_owned(),
        status_kind: if activity.is_some() {
            StatusKind::Running
        } else {
            StatusKind::Done
        },
        step: Some("2/4".to_owned()),
        step_index: Some(1),
        total_steps: Some(4),
        doing: None,
        unit: None,
        progress_pct: None,
        paused_at: None,
        has_resume_token: false,
        resume_expires_at: None,
        started_at: None,
        error: None,
        activity,
    }
}

fn running(silent: TimeDelta, limit: Option<TimeDelta>) -> Activity {
    Activity {
        last: Some(now() - silent),
        limit,
    }
}

fn devloop() -> Project {
    Project::new(Format::Devloop, "p".into(), "p".into())
}

#[test]
fn an_agent_silent_past_its_limit_is_stalled_and_not_before() {
    let mut p = devloop();
    p.detail
        .agents
        .push(agent("coder", Some(running(mins(40), Some(mins(10))))));
    let limits = StallLimits::default();
    let s = p.stall(now(), &limits).unwrap();
    assert_eq!(s.agent.as_deref(), Some("coder"));
    assert_eq!(s.silent_seconds, 40 * 60);
    assert_eq!(s.limit_seconds, 600);
    assert_eq!(s.since, now() - mins(40));
    assert_eq!(p.agent_stall(&p.detail.agents[0], now(), &limits), Some(s));
    // Exactly at the limit it is not yet: one second past, it is.
    let mut p = devloop();
    p.detail
        .agents
        .push(agent("coder", Some(running(mins(10), Some(mins(10))))));
    assert_eq!(p.stall(now(), &limits), None);
    let later = now() + TimeDelta::seconds(1);
    assert_eq!(p.stall(later, &limits).unwrap().silent_seconds, 601);
    assert_eq!(p.next_stall_at(now(), &limits), Some(later));
    assert_eq!(p.next_stall_at(later, &limits), None, "already stalled");
}

#[test]
fn what_does_not_say_it_runs_never_stalls() {
    let mut p = devloop();
    p.detail.agents.push(agent("tester", None));
    p.updated_at = Some(now() - TimeDelta::weeks(26));
    assert!(p.stalls(now(), &StallLimits::default()).is_empty());
    assert_eq!(p.next_stall_at(now(), &StallLimits::default()), None);
}

#[test]
fn no_time_or_a_time_ahead_of_now_is_no_silence() {
    let mut p = devloop();
    p.activity = Some(Activity {
        last: None,
        limit: Some(mins(1)),
    });
    p.detail
        .agents
        .push(agent("coder", Some(running(-mins(30), Some(mins(10))))));
    assert_eq!(p.stall(now(), &StallLimits::default()), None);
}

#[test]
fn the_config_overrides_or_turns_off_the_formats_own_limit() {
    let mut p = Project::new(Format::Gsd, "g".into(), "g".into());
    p.activity = Some(running(mins(40), Some(TimeDelta::hours(2))));
    let mut limits = StallLimits::default();
    assert_eq!(p.stall(now(), &limits), None, "2h by default");
    limits.gsd = StallLimit::After(mins(30));
    let s = p.stall(now(), &limits).unwrap();
    assert_eq!(
        (s.agent, s.silent_seconds, s.limit_seconds),
        (None, 2400, 1800)
    );
    // Another format's limit does not apply.
    limits.gsd = StallLimit::Default;
    limits.devloop = StallLimit::After(mins(1));
    assert_eq!(p.stall(now(), &limits), None);
    // Off: never, whatever the silence.
    limits.gsd = StallLimit::Off;
    p.activity = Some(running(TimeDelta::weeks(26), Some(mins(1))));
    assert_eq!(p.stall(now(), &limits), None);
    assert_eq!(p.next_stall_at(now(), &limits), None);
}

#[test]
fn a_format_without_a_limit_stalls_only_when_the_config_sets_one() {
    let mut p = Project::new(Format::PrdMaster, "r".into(), "r".into());
    p.activity = Some(running(TimeDelta::days(3), None));
    let mut limits = StallLimits::default();
    assert_eq!(p.stall(now(), &limits), None);
    limits.prd_master = StallLimit::After(TimeDelta::days(1));
    assert_eq!(p.stall(now(), &limits).unwrap().silent_seconds, 3 * 86_400);
}

#[test]
fn the_project_shows_its_longest_silence_and_lists_every_one() {
    let mut p = devloop();
    p.detail
        .agents
        .push(agent("coder", Some(running(mins(15), Some(mins(10))))));
    p.detail
        .agents
        .push(agent("integrator", Some(running(mins(45), Some(mins(5))))));
    p.detail
        .agents
        .push(agent("tester", Some(running(mins(2), Some(mins(10))))));
    let limits = StallLimits::default();
    let all = p.stalls(now(), &limits);
    let names: Vec<_> = all.iter().map(|s| s.agent.as_deref()).collect();
    assert_eq!(names, [Some("coder"), Some("integrator")]);
    assert_eq!(
        p.stall(now(), &limits).unwrap().agent.as_deref(),
        Some("integrator")
    );
    // The tester is the next to stall: 8 minutes and a second from now.
    assert_eq!(
        p.next_stall_at(now(), &limits),
        Some(now() + mins(8) + TimeDelta::seconds(1))
    );
}

#[test]
fn durations_are_written_with_their_units() {
    let d = |s| parse_duration(s).map(|t| t.num_seconds());
    assert_eq!(d("40m"), Some(2400));
    assert_eq!(d("2h"), Some(7200));
    assert_eq!(d("1h30m"), Some(5400));
    assert_eq!(d("45s"), Some(45));
    assert_eq!(d("1d"), Some(86_400));
    assert_eq!(d("2w"), Some(1_209_600));
    assert_eq!(d(" 10m "), Some(600));
    for bad in [
        "",
        "0m",
        "10",
        "m",
        "10x",
        "1.5h",
        "-5m",
        "1h 30m",
        "off",
        "99999999999999999999s",
        "200w0d1000000h",
    ] {
        assert_eq!(d(bad), None, "{bad:?}");
    }
}
