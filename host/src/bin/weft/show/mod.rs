//! The API's records as one short line each, for people: what `weft` prints without `--json`.

use serde_json::Value;

use weft_host::client::swf::attributes;
use weft_host::client::{
    Binding, ClockState, GuestFailureRecord, ModuleRecord, PinnedDecider, ResetReport, RunFailure,
    RunLogLine, RunReplay, RunUpgrade, Timestamp, UpgradeReport,
};

mod controls;
mod schedules;

pub(crate) use controls::{
    batch_job, batch_job_line, list_limited, list_paused, pause_line, paused, task_list,
    task_list_described,
};
pub(crate) use schedules::{schedule, schedule_line};

/// A module: `DIGEST  [NAME [VERSION]  ]WORLD  SIZE bytes  uploaded TIME`, then
/// `  used by KIND NAME in DOMAIN, ...` when bindings use it.
pub(crate) fn module(module: &ModuleRecord) -> String {
    let label = label(&module.name, &module.version).map_or_else(String::new, |l| l + "  ");
    let used_by = module
        .used_by
        .iter()
        .map(|b| format!("{} {} in {}", b.kind.name(), b.name, b.domain))
        .collect::<Vec<_>>();
    let used_by = match used_by.is_empty() {
        true => String::new(),
        false => format!("  used by {}", used_by.join(", ")),
    };
    let pinned = match module.pinned_runs {
        0 => String::new(),
        n => format!("  deciding {}", runs(n)),
    };
    format!(
        "{}  {label}{}  {} bytes  uploaded {}{used_by}{pinned}",
        module.digest,
        module.world.name(),
        module.size,
        time(module.uploaded_at),
    )
}

/// A module's name and version label: `NAME VERSION`, `NAME` or `version VERSION`.
fn label(name: &Option<String>, version: &Option<String>) -> Option<String> {
    match (name, version) {
        (Some(name), Some(version)) => Some(format!("{name} {version}")),
        (Some(name), None) => Some(name.clone()),
        (None, Some(version)) => Some(format!("version {version}")),
        (None, None) => None,
    }
}

/// `1 open run`, `2 open runs`.
fn runs(n: u64) -> String {
    format!("{n} open run{}", if n == 1 { "" } else { "s" })
}

/// A decision binding's versions, oldest first, one line each:
/// `  v2 DIGEST  bound TIME  3 open runs pinned  (current)`.
pub(crate) fn versions(binding: &Binding) -> Vec<String> {
    binding
        .versions
        .iter()
        .map(|version| {
            let pinned = match version.pinned_runs {
                Some(n) => format!("  {} pinned", runs(n)),
                None => String::new(),
            };
            let current = match version.module == binding.module {
                true => "  (current)",
                false => "",
            };
            format!(
                "  v{} {}  bound {}{pinned}{current}",
                version.number,
                version.module,
                time(version.bound_at)
            )
        })
        .collect()
}

/// What an upgrade did to a run: `moved WORKFLOW-ID RUN-ID  FROM -> TO  N decision tasks
/// replayed`, or `kept  WORKFLOW-ID RUN-ID  on FROM: WHY`.
pub(crate) fn upgrade(report: &UpgradeReport, run: &RunUpgrade) -> String {
    let (from, to) = (short_digest(&run.from), short_digest(&report.module));
    let head = format!("{} {}", run.workflow_id, run.run_id);
    if run.moved {
        let verb = if report.dry_run {
            "would move"
        } else {
            "moved"
        };
        return format!(
            "{verb} {head}  {from} -> {to}  {} decision tasks replayed",
            run.decision_tasks
        );
    }
    let why = match (&run.divergence, &run.reason) {
        (Some(d), _) => format!(
            "decision task started at event {}, its {} decision: {}",
            d.started_event_id,
            ordinal(d.decision + 1),
            d.message
        ),
        (None, Some(reason)) => reason.clone(),
        (None, None) => "unknown".into(),
    };
    let verb = if report.dry_run { "would keep" } else { "kept" };
    format!("{verb} {head}  on {from}: {why}")
}

/// What a reset did, in a few lines: the new run, what it carries, who decides it.
pub(crate) fn reset(report: &ResetReport) -> Vec<String> {
    let old = match report.terminated {
        true => "terminated",
        false => "closed",
    };
    let mut lines = vec![
        format!("reset {} to run {}", report.workflow_id, report.run_id),
        format!(
            "  carries events 1-{} of run {} ({old}); the decision task scheduled by event {} \
             is decided again",
            report.carried_events, report.reset_run_id, report.decision_task
        ),
    ];
    if report.reapplied_signals > 0 {
        lines.push(format!(
            "  {} signal(s) received after it recorded again",
            report.reapplied_signals
        ));
    }
    match (&report.module, &report.divergence) {
        (Some(module), None) => lines.push(format!(
            "  pinned to decider {}, which replayed {} carried decision tasks as recorded",
            short_digest(module),
            report.replayed_decision_tasks
        )),
        (Some(module), Some(d)) => lines.push(format!(
            "  pinned to decider {} (forced: it decides the decision task started at event {} \
             otherwise: {})",
            short_digest(module),
            d.started_event_id,
            d.message
        )),
        (None, _) => lines.push("  no Wasm decider is bound to its list: not pinned".into()),
    }
    lines
}

/// A run's decider: `decider NAME VERSION (DIGEST), pinned TIME[, moved from DIGEST]`.
pub(crate) fn decider(decider: &PinnedDecider) -> String {
    let label = label(&decider.name, &decider.version).map_or_else(String::new, |l| l + " ");
    let moved = match &decider.pin.moved_from {
        Some(from) => format!(", moved from {}", short_digest(from)),
        None => String::new(),
    };
    format!(
        "decider {label}({}), pinned {}{moved}",
        decider.pin.module,
        time(decider.pin.at)
    )
}

/// A digest's first 12 hex digits, as lines too short for all 64 print it.
fn short_digest(digest: &str) -> &str {
    &digest[..digest.len().min(12)]
}

/// A binding: `KIND NAME in DOMAIN -> DIGEST  concurrency N, cpu N ms, memory N MiB, output N KiB`,
/// then `, http HOST HOST...` if it may send HTTP requests and `, previously DIGEST` if a
/// rollback can restore another module.
pub(crate) fn binding(binding: &Binding) -> String {
    let limits = &binding.limits;
    let http = if binding.http_hosts.is_empty() {
        String::new()
    } else {
        format!(", http {}", binding.http_hosts.join(" "))
    };
    let previous = match &binding.previous_module {
        Some(digest) => format!(", previously {digest}"),
        None => String::new(),
    };
    let upgrade = match binding.upgrade.is_pinned() {
        true => String::new(),
        false => format!(", upgrade {}", binding.upgrade.name()),
    };
    let upgrade = match binding.inherit_pin {
        true => format!("{upgrade}, inherit pin"),
        false => upgrade,
    };
    let upgrade = match binding.ramp {
        Some(share) => format!("{upgrade}, ramping up: {share}% of new runs"),
        None => upgrade,
    };
    format!(
        "{} {} in {} -> {}  concurrency {}, cpu {} ms, memory {} MiB, output {} KiB{http}{previous}{upgrade}",
        binding.kind.name(),
        binding.name,
        binding.domain,
        binding.module,
        binding.concurrency,
        limits.cpu_ms,
        scaled(limits.memory_bytes, 20),
        scaled(limits.output_bytes, 10),
    )
}

/// A guest's failure: `TIME  WORKFLOW-ID RUN-ID  TASK: REASON`.
pub(crate) fn failure(failure: &GuestFailureRecord) -> String {
    format!(
        "{}  {} {}  {}: {}",
        time(failure.at),
        failure.workflow_id,
        failure.run_id,
        failure.task,
        failure.reason,
    )
}

/// A guest's failure on a run it names already: `TIME  KIND BINDING  TASK: REASON`.
pub(crate) fn run_failure(failure: &RunFailure) -> String {
    let f = &failure.failure;
    let kind = failure.kind.name();
    let mut line = format!(
        "{}  {kind} {}  {}: {}",
        time(f.at),
        failure.binding,
        f.task,
        f.reason
    );
    // A traceback, indented under its failure.
    for detail in f.details.iter().flat_map(|d| d.lines()) {
        line.push_str("\n      ");
        line.push_str(detail);
    }
    line
}

/// A line a run's guest logged: `TIME  LEVEL  KIND BINDING  TASK: MESSAGE`.
pub(crate) fn run_log_line(line: &RunLogLine) -> String {
    format!(
        "{}  {:<5}  {} {}  {}: {}",
        time(line.at),
        line.level,
        line.kind.name(),
        line.binding,
        line.task,
        line.message
    )
}

/// A run's replay: `same      WORKFLOW-ID RUN-ID  TYPE:VERSION  N decision tasks`, or
/// `DIVERGED  WORKFLOW-ID RUN-ID  TYPE:VERSION  decision task started at event N, its Kth
/// decision: WHAT`.
pub(crate) fn replay(run: &RunReplay) -> String {
    let state = if run.open { "open" } else { "closed" };
    let head = format!(
        "{} {}  {}:{}  {state}",
        run.workflow_id, run.run_id, run.workflow_type.name, run.workflow_type.version
    );
    match &run.divergence {
        None => format!("same      {head}  {} decision tasks", run.decision_tasks),
        Some(d) => format!(
            "DIVERGED  {head}  decision task started at event {}, its {} decision: {}",
            d.started_event_id,
            ordinal(d.decision + 1),
            d.message
        ),
    }
}

/// The server's clock: `2026-12-04T15:02:03Z (time-skipping: 7d 0h 0m ahead of the wall clock)`.
pub(crate) fn clock(state: &ClockState) -> String {
    let now = time(state.now);
    if !state.time_skipping {
        return format!("{now} (the wall clock)");
    }
    let ahead = state.skipped_seconds as u64;
    let (days, hours, minutes) = (ahead / 86_400, ahead / 3600 % 24, ahead / 60 % 60);
    format!("{now} (time-skipping: {days}d {hours}h {minutes}m ahead of the wall clock)")
}

/// A domain (SWF's `DomainInfo`): `NAME  STATUS  DESCRIPTION`.
pub(crate) fn domain(info: &Value) -> String {
    let description = info["description"].as_str().unwrap_or_default();
    format!(
        "{}  {}  {description}",
        text(&info["name"]),
        text(&info["status"])
    )
    .trim_end()
    .to_owned()
}

/// A type (SWF's `WorkflowTypeInfo` or `ActivityTypeInfo`): `KIND NAME:VERSION  STATUS`.
pub(crate) fn type_info(kind: &str, info: &Value) -> String {
    let key = if kind == "workflow" {
        "workflowType"
    } else {
        "activityType"
    };
    format!(
        "{kind} {}  {}",
        type_name(&info[key]),
        text(&info["status"])
    )
}

/// A run (SWF's `WorkflowExecutionInfo`): `WORKFLOW-ID  RUN-ID  TYPE:VERSION  STATUS  started
/// TIME[, closed TIME]`, where STATUS is the close status once closed.
pub(crate) fn execution(info: &Value) -> String {
    let status = info["closeStatus"]
        .as_str()
        .unwrap_or_else(|| info["executionStatus"].as_str().unwrap_or_default());
    let closed = match info.get("closeTimestamp") {
        Some(at) => format!(", closed {}", swf_time(at)),
        None => String::new(),
    };
    format!(
        "{}  {}  {}  {status}  started {}{closed}",
        text(&info["execution"]["workflowId"]),
        text(&info["execution"]["runId"]),
        type_name(&info["workflowType"]),
        swf_time(&info["startTimestamp"]),
    )
}

/// A history event: `ID  TIME  TYPE  NAME=VALUE...`, with the attributes that are plain
/// values or types (long texts cut short).
pub(crate) fn event(event: &Value) -> String {
    let mut line = format!(
        "{:>4}  {}  {}",
        text(&event["eventId"]),
        swf_time(&event["eventTimestamp"]),
        text(&event["eventType"])
    );
    if let Value::Object(members) = attributes(event) {
        for (name, value) in members {
            let shown = match value {
                Value::String(s) => short(s),
                // SWF's "no such event" is 0; it says nothing.
                Value::Number(n) if n.as_u64() == Some(0) && name.ends_with("EventId") => continue,
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Object(o) if o.contains_key("version") => type_name(value),
                Value::Object(o) if o.len() == 1 && o.contains_key("name") => text(&value["name"]),
                _ => continue,
            };
            line.push_str(&format!("  {name}={shown}"));
        }
    }
    line
}

/// `NAME:VERSION` of a `WorkflowType` or `ActivityType`.
fn type_name(value: &Value) -> String {
    format!("{}:{}", text(&value["name"]), text(&value["version"]))
}

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `text` quoted if it holds spaces or quotes, and cut to 60 characters.
fn short(text: &str) -> String {
    let cut: String = text.chars().take(60).collect();
    let cut = if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    };
    if cut.is_empty() || cut.contains([' ', '"', '=']) {
        format!("{cut:?}")
    } else {
        cut
    }
}

/// An SWF timestamp (seconds since the epoch, as JSON number) as a UTC time.
fn swf_time(value: &Value) -> String {
    match value.as_f64().and_then(Timestamp::from_secs_f64) {
        Some(at) => time(at),
        None => text(value),
    }
}

/// `n` as `1st`, `2nd`, `3rd`, `4th`, ... `11th`, `21st`.
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A size in units of `2^shift` bytes (whole ones when it divides).
fn scaled(n: u64, shift: u32) -> String {
    if n.is_multiple_of(1 << shift) {
        (n >> shift).to_string()
    } else {
        format!("{:.2}", n as f64 / f64::from(1u32 << shift))
    }
}

/// A timestamp as `YYYY-MM-DDTHH:MM:SSZ`; one beyond chrono's years as its seconds.
fn time(at: Timestamp) -> String {
    match chrono::DateTime::from_timestamp_millis(at.as_millis()) {
        Some(utc) => utc.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        None => at.as_secs_f64().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn at(secs: f64) -> Timestamp {
        Timestamp::from_secs_f64(secs).unwrap()
    }

    #[test]
    fn times_are_utc_dates() {
        assert_eq!(time(at(0.0)), "1970-01-01T00:00:00Z");
        assert_eq!(time(at(951_782_400.5)), "2000-02-29T00:00:00Z");
        assert_eq!(time(at(1_767_225_599.0)), "2025-12-31T23:59:59Z");
        assert_eq!(time(at(-1.5)), "1969-12-31T23:59:58Z");
    }

    #[test]
    fn ordinals_read_as_words_do() {
        let read: Vec<_> = [1, 2, 3, 4, 11, 12, 13, 21, 102].map(ordinal).into();
        assert_eq!(
            read,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "102nd"
            ]
        );
    }

    #[test]
    fn swf_shapes_show_as_one_line() {
        let info = json!({
            "execution": {"workflowId": "hello-1", "runId": "22abc"},
            "workflowType": {"name": "Greeting", "version": "1"},
            "startTimestamp": 60.5, "closeTimestamp": 120, "executionStatus": "CLOSED",
            "closeStatus": "COMPLETED",
        });
        assert_eq!(
            execution(&info),
            "hello-1  22abc  Greeting:1  COMPLETED  started 1970-01-01T00:01:00Z, \
             closed 1970-01-01T00:02:00Z"
        );
        let started = json!({
            "eventId": 5, "eventTimestamp": 61, "eventType": "TimerStarted",
            "timerStartedEventAttributes": {"timerId": "pause", "startToFireTimeout": "1",
                "control": "a b", "decisionTaskCompletedEventId": 4},
        });
        assert_eq!(
            event(&started),
            "   5  1970-01-01T00:01:01Z  TimerStarted  control=\"a b\"  \
             decisionTaskCompletedEventId=4  startToFireTimeout=1  timerId=pause"
        );
        let scheduled = json!({
            "eventId": 7, "eventTimestamp": 62, "eventType": "ActivityTaskScheduled",
            "activityTaskScheduledEventAttributes": {
                "activityType": {"name": "Greet", "version": "1"},
                "taskList": {"name": "greetings"}, "input": "x".repeat(70)},
        });
        let line = event(&scheduled);
        assert!(line.contains("activityType=Greet:1"), "{line}");
        assert!(line.contains("taskList=greetings"), "{line}");
        assert!(
            line.contains(&format!("input={}…", "x".repeat(60))),
            "{line}"
        );
        let domain_info = json!({"name": "d", "status": "REGISTERED"});
        assert_eq!(domain(&domain_info), "d  REGISTERED");
        let type_entry = json!({"activityType": {"name": "Greet", "version": "1"},
            "status": "DEPRECATED"});
        assert_eq!(
            type_info("activity", &type_entry),
            "activity Greet:1  DEPRECATED"
        );
    }

    #[test]
    fn records_read_from_the_wire_as_one_line() {
        let wire = json!({
            "account": "000000000000", "region": "us-east-1", "domain": "orders",
            "kind": "activity", "name": "work", "module": "ab12", "concurrency": 4,
            "limits": {"cpuMs": 10000, "memoryBytes": 67_108_864, "outputBytes": 1_572_864},
            "createdAt": 0,
        });
        let mut binding: Binding = serde_json::from_value(wire).unwrap();
        assert_eq!(
            super::binding(&binding),
            "activity work in orders -> ab12  concurrency 4, cpu 10000 ms, memory 64 MiB, \
             output 1536 KiB"
        );
        binding.http_hosts = vec!["api.example.com".into(), "127.0.0.1:8080".into()];
        assert!(
            super::binding(&binding)
                .ends_with("output 1536 KiB, http api.example.com 127.0.0.1:8080")
        );
        let wire = json!({"digest": "ab12", "world": "activity-worker", "size": 10,
            "uploadedAt": 0});
        let module: ModuleRecord = serde_json::from_value(wire).unwrap();
        assert_eq!(
            super::module(&module),
            "ab12  activity-worker  10 bytes  uploaded 1970-01-01T00:00:00Z"
        );
        let wire = json!({"digest": "ab12", "world": "decider", "size": 10, "uploadedAt": 0,
            "name": "orders", "version": "1.2",
            "usedBy": [{"domain": "d", "kind": "decision", "name": "deciders"}]});
        let module: ModuleRecord = serde_json::from_value(wire).unwrap();
        assert_eq!(
            super::module(&module),
            "ab12  orders 1.2  decider  10 bytes  uploaded 1970-01-01T00:00:00Z  used by \
             decision deciders in d"
        );
        let wire = json!({"at": 60, "workflowId": "w", "runId": "r", "task": "activity 1",
            "reason": "trap"});
        let failure: GuestFailureRecord = serde_json::from_value(wire).unwrap();
        assert_eq!(
            super::failure(&failure),
            "1970-01-01T00:01:00Z  w r  activity 1: trap"
        );
    }
}
