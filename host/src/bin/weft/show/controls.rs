//! How operator controls print: run and task-list pauses, task-list rates, batch jobs.

use weft_host::client::{
    BatchJob, Fairness, ListLimitReport, ListPauseReport, Pause, PauseReport, TaskListInfo,
};

use super::time;

/// What a pause or resume did: `paused ID (run R): 2 queued tasks held`.
pub(crate) fn paused(workflow_id: &str, report: &PauseReport) -> String {
    let run = &report.run_id;
    let tasks = match report.tasks {
        1 => "1 queued task".to_owned(),
        n => format!("{n} queued tasks"),
    };
    match (&report.paused, report.changed) {
        (Some(_), true) => format!("paused {workflow_id} (run {run}): {tasks} held"),
        (Some(pause), false) => format!("{workflow_id} (run {run}) was {}", pause_line(pause)),
        (None, true) => format!("resumed {workflow_id} (run {run}): {tasks} queued again"),
        (None, false) => format!("{workflow_id} (run {run}) is not paused"),
    }
}

/// A run's pause: `paused by WHO at TIME: REASON`.
pub(crate) fn pause_line(pause: &Pause) -> String {
    let reason = pause
        .reason
        .as_deref()
        .map_or_else(String::new, |r| format!(": {r}"));
    format!("paused by {} at {}{reason}", pause.by, time(pause.at))
}

/// A task list: `KIND NAME  N waiting  N polling[  bound][  paused by ...]`.
pub(crate) fn task_list(list: &TaskListInfo) -> String {
    let mut line = format!(
        "{} {}  {} waiting  {} polling",
        list.kind.name(),
        list.name,
        list.pending,
        list.pollers
    );
    if list.bound {
        line.push_str("  bound");
    }
    if let Some(rate) = list.rate {
        line.push_str(&format!("  at most {rate}/s"));
    }
    if let Some(cap) = list.concurrency {
        line.push_str(&format!("  at most {cap} started"));
    }
    if let Some(fairness) = &list.fairness {
        line.push_str(&format!("  {}", fair_by(fairness)));
    }
    if let Some(pause) = &list.paused {
        line.push_str("  ");
        line.push_str(&pause_line(pause));
    }
    line
}

/// A task list described: its line, then the tasks waiting under each key.
pub(crate) fn task_list_described(list: &TaskListInfo) -> Vec<String> {
    let mut lines = vec![task_list(list)];
    for key in &list.keys {
        let name = match key.key.as_str() {
            "" => "(no key)".to_owned(),
            key => format!("key {key}"),
        };
        let weight = key
            .weight
            .map_or_else(String::new, |w| format!("  weight {w}"));
        lines.push(format!("  {name}  {} waiting{weight}", key.pending));
    }
    lines
}

/// Fairness keys: `fair by tag tenant= (acme 3, others 1)`.
fn fair_by(fairness: &Fairness) -> String {
    let mut weights: Vec<String> = (fairness.weights.iter())
        .map(|(key, weight)| format!("{key} {weight}"))
        .collect();
    weights.push(format!("others {}", fairness.default_weight));
    format!(
        "fair by tag {} ({})",
        fairness.tag_prefix,
        weights.join(", ")
    )
}

/// What a task list's pause or resume did: `paused activity list workers`.
pub(crate) fn list_paused(report: &ListPauseReport) -> String {
    let list = format!("{} list {}", report.kind.name(), report.name);
    match (&report.paused, report.changed) {
        (Some(_), true) => format!("paused {list}"),
        (Some(pause), false) => format!("{list} was {}", pause_line(pause)),
        (None, true) => format!("resumed {list}"),
        (None, false) => format!("{list} is not paused"),
    }
}

/// A batch job on one line: `ID  ACTION  STATE  D of M done[, F failed]  R/s`.
pub(crate) fn batch_job_line(job: &BatchJob) -> String {
    let failed = match job.failed {
        0 => String::new(),
        n => format!(", {n} failed"),
    };
    format!(
        "{}  {}  {}  {} of {} done{failed}  {}/s",
        job.id,
        job.action.name(),
        job.state.name(),
        job.done,
        job.matched,
        job.rate
    )
}

/// A batch job described: its line, who made it when, and the runs it could not act on.
pub(crate) fn batch_job(job: &BatchJob) -> Vec<String> {
    let mut lines = vec![
        batch_job_line(job),
        format!("  made by {} at {}", job.by, time(job.created_at)),
    ];
    if let Some(at) = job.finished_at {
        lines.push(format!("  {} at {}", job.state.name(), time(at)));
    }
    for f in &job.failures {
        lines.push(format!(
            "  failed {} {}: {}",
            f.workflow_id, f.run_id, f.message
        ));
    }
    lines
}

/// What a task list's limit did: `activity list workers: at most 20/s, at most 5 started`.
pub(crate) fn list_limited(report: &ListLimitReport) -> String {
    let list = format!("{} list {}", report.kind.name(), report.name);
    let rate = report.rate.map(|rate| format!("at most {rate}/s"));
    let cap = (report.concurrency).map(|cap| format!("at most {cap} started"));
    let keys = report.fairness.as_ref().map(fair_by);
    match [rate, cap, keys].into_iter().flatten().collect::<Vec<_>>() {
        limits if limits.is_empty() => format!("{list}: no limit"),
        limits => format!("{list}: {}", limits.join(", ")),
    }
}
