use chrono::{TimeZone, Utc};

use super::*;

fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> Timestamp {
    let t = Utc
        .with_ymd_and_hms(y, mo, d, h, mi, 0)
        .single()
        .expect("a time");
    Timestamp::from_millis(t.timestamp_millis())
}

fn cron(exprs: &[&str], zone: Option<&str>) -> Times {
    Times::parse(&ScheduleSpec {
        cron: exprs.iter().map(|e| e.to_string()).collect(),
        time_zone: zone.map(str::to_owned),
        ..ScheduleSpec::default()
    })
    .expect("a spec")
}

/// The first `n` nominal times after `from`.
fn times(spec: &Times, from: Timestamp, n: usize) -> Vec<Timestamp> {
    std::iter::successors(spec.next_after(from), |t| spec.next_after(*t))
        .take(n)
        .collect()
}

#[test]
fn an_interval_is_aligned_to_the_epoch_and_shifted_by_its_offset() {
    let hourly = Times::parse(&ScheduleSpec {
        every: Some(3600),
        offset: Some(300),
        ..ScheduleSpec::default()
    })
    .expect("a spec");
    let from = at(2026, 11, 29, 16, 7);
    assert_eq!(
        times(&hourly, from, 3),
        [
            at(2026, 11, 29, 17, 5),
            at(2026, 11, 29, 18, 5),
            at(2026, 11, 29, 19, 5)
        ]
    );
    // A nominal time itself is not after itself.
    assert_eq!(
        hourly.next_after(at(2026, 11, 29, 17, 5)),
        Some(at(2026, 11, 29, 18, 5))
    );
}

#[test]
fn cron_times_are_the_earliest_of_its_expressions() {
    let spec = cron(&["0 9 * * 1-5", "30 12 * * 6"], None);
    // Friday 2026-11-27 10:00: next are Saturday 12:30, then Monday 09:00.
    assert_eq!(
        times(&spec, at(2026, 11, 27, 10, 0), 2),
        [at(2026, 11, 28, 12, 30), at(2026, 11, 30, 9, 0)]
    );
}

#[test]
fn a_fixed_cron_time_runs_once_across_each_daylight_saving_change_as_cron_does() {
    // Berlin: 02:00 CET becomes 03:00 CEST on 2026-03-29; 03:00 CEST becomes 02:00 CET on
    // 2026-10-25.
    let spec = cron(&["30 2 * * *"], Some("Europe/Berlin"));
    assert_eq!(
        times(&spec, at(2026, 3, 27, 12, 0), 3),
        [
            at(2026, 3, 28, 1, 30), // 02:30 CET
            at(2026, 3, 29, 1, 0),  // 02:30 does not exist: right after the change, 03:00 CEST
            at(2026, 3, 30, 0, 30), // 02:30 CEST
        ]
    );
    assert_eq!(
        times(&spec, at(2026, 10, 24, 12, 0), 2),
        [
            at(2026, 10, 25, 0, 30), // 02:30 CEST, the first of the two
            at(2026, 10, 26, 1, 30), // 02:30 CET
        ]
    );
}

#[test]
fn a_wildcard_cron_follows_the_wall_clock_across_a_change() {
    // Every 30 minutes in New York: the hour that happens twice is run twice.
    let spec = cron(&["*/30 * * * *"], Some("America/New_York"));
    // 2026-11-01 02:00 EDT becomes 01:00 EST (06:00Z).
    let got = times(&spec, at(2026, 11, 1, 4, 45), 5);
    assert_eq!(
        got,
        [
            at(2026, 11, 1, 5, 0),  // 01:00 EDT
            at(2026, 11, 1, 5, 30), // 01:30 EDT
            at(2026, 11, 1, 6, 0),  // 01:00 EST
            at(2026, 11, 1, 6, 30), // 01:30 EST
            at(2026, 11, 1, 7, 0),  // 02:00 EST
        ]
    );
}

#[test]
fn start_and_end_bound_the_times() {
    let spec = Times::parse(&ScheduleSpec {
        every: Some(60),
        start_at: Some(at(2026, 1, 1, 0, 10)),
        end_at: Some(at(2026, 1, 1, 0, 12)),
        ..ScheduleSpec::default()
    })
    .expect("a spec");
    assert_eq!(
        times(&spec, at(2025, 12, 31, 0, 0), 5),
        [
            at(2026, 1, 1, 0, 10),
            at(2026, 1, 1, 0, 11),
            at(2026, 1, 1, 0, 12)
        ]
    );
}

#[test]
fn jitter_is_the_same_for_a_time_everywhere_and_stays_before_the_next_time() {
    let spec = Times::parse(&ScheduleSpec {
        every: Some(60),
        jitter: Some(3600),
        ..ScheduleSpec::default()
    })
    .expect("a spec");
    let mut shifts = std::collections::HashSet::new();
    for minute in 0..50 {
        let nominal = at(2026, 1, 1, 0, minute);
        let actual = spec.actual("nightly", nominal);
        assert_eq!(actual, spec.actual("nightly", nominal));
        let shift = actual.as_millis() - nominal.as_millis();
        assert!((0..60_000).contains(&shift), "{shift} ms");
        shifts.insert(shift);
    }
    assert!(shifts.len() > 40, "the shifts vary: {shifts:?}");
    let none = cron(&["* * * * *"], None);
    assert_eq!(none.actual("x", at(2026, 1, 1, 0, 0)), at(2026, 1, 1, 0, 0));
}

#[test]
fn a_bad_spec_is_refused_naming_the_member() {
    let bad = |spec: ScheduleSpec| Times::parse(&spec).err().expect("refused");
    assert!(bad(ScheduleSpec::default()).contains("spec.every"));
    let both = ScheduleSpec {
        every: Some(60),
        cron: vec!["* * * * *".into()],
        ..ScheduleSpec::default()
    };
    assert!(bad(both).contains("not both"));
    let offset = ScheduleSpec {
        every: Some(60),
        offset: Some(60),
        ..ScheduleSpec::default()
    };
    assert!(bad(offset).contains("spec.offset"));
    let expr = ScheduleSpec {
        cron: vec!["61 * * * *".into()],
        ..ScheduleSpec::default()
    };
    assert!(bad(expr).contains("\"61 * * * *\""));
    let zone = ScheduleSpec {
        cron: vec!["* * * * *".into()],
        time_zone: Some("Mars/Olympus".into()),
        ..ScheduleSpec::default()
    };
    assert!(bad(zone).contains("Mars/Olympus"));
}

#[test]
fn a_run_s_workflow_id_names_the_schedule_and_the_time() {
    assert_eq!(
        workflow_id("nightly", at(2026, 3, 29, 1, 0)),
        "nightly-2026-03-29T01:00:00Z"
    );
}
