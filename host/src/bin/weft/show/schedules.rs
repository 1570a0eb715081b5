//! How schedules print.

use weft_host::client::{Overlap, ScheduleDescription, ScheduleSpec};

use super::time;

/// A schedule on one line: `ID  SPEC  TYPE  next TIME  N runs[  paused: NOTE]`.
pub(crate) fn schedule_line(d: &ScheduleDescription) -> String {
    let ty = &d.schedule.action.workflow_type;
    let next = match (d.info.paused, d.next_times.first()) {
        (true, _) => format!("paused: {}", d.info.note),
        (false, Some(at)) => format!("next {}", time(*at)),
        (false, None) => "no next time".to_owned(),
    };
    format!(
        "{}  {}  {}:{}  {next}  {}",
        d.id,
        spec(&d.schedule.spec),
        ty.name,
        ty.version,
        match d.info.actions {
            1 => "1 run started".to_owned(),
            n => format!("{n} runs started"),
        }
    )
}

/// A schedule described: its line, then its counts, next times, open runs and latest actions.
pub(crate) fn schedule(d: &ScheduleDescription) -> Vec<String> {
    let info = &d.info;
    let mut out = vec![schedule_line(d)];
    out.push(format!(
        "  overlap {}; skipped {}, missed {}",
        overlap(d.schedule.overlap),
        info.skipped,
        info.missed
    ));
    if !d.next_times.is_empty() {
        let next: Vec<String> = d.next_times.iter().map(|t| time(*t)).collect();
        out.push(format!("  next: {}", next.join(", ")));
    }
    for run in &info.running {
        out.push(format!("  open: {} {}", run.workflow_id, run.run_id));
    }
    if !info.buffered.is_empty() {
        out.push(format!("  waiting: {} time(s)", info.buffered.len()));
    }
    for action in &info.recent {
        let outcome = match (&action.run_id, &action.error) {
            (Some(run), _) => format!("started {} {run}", action.workflow_id),
            (None, error) => format!("failed: {}", error.as_deref().unwrap_or_default()),
        };
        out.push(format!("  {}  {outcome}", time(action.nominal_time)));
    }
    out
}

/// An overlap policy as `--overlap` names it: `skip`, `buffer-one`, `cancel-other`.
fn overlap(policy: Overlap) -> String {
    let name = Overlap::ALL
        .iter()
        .find(|(_, o)| *o == policy)
        .map_or("", |(n, _)| *n);
    name.chars().fold(String::new(), |mut out, c| {
        if c.is_ascii_uppercase() {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
        out
    })
}

/// A spec: `every 1h`, `every 1h +5m`, `cron "0 2 * * *" Europe/Berlin`.
fn spec(spec: &ScheduleSpec) -> String {
    if let Some(every) = spec.every {
        let offset = spec
            .offset
            .map_or_else(String::new, |o| format!(" +{}", span(o)));
        return format!("every {}{offset}", span(every));
    }
    let crons: Vec<String> = spec.cron.iter().map(|c| format!("{c:?}")).collect();
    let zone = spec.time_zone.as_deref().unwrap_or("UTC");
    format!("cron {} {zone}", crons.join(" "))
}

/// Seconds as the largest unit that divides them: `90s`, `5m`, `2h`, `1d`.
fn span(secs: u64) -> String {
    match secs {
        0 => "0s".to_owned(),
        s if s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}
