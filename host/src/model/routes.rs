//! The paths of Weft's `/v1` API, once: the server routes these templates (`api`), the client
//! fills them in (`client`). Each `{name}` stands for one path segment.

use std::fmt::Write as _;

/// Wasm modules: upload (`POST`), list (`GET`).
pub(crate) const MODULES: &str = "/v1/modules";
/// One module: delete.
pub(crate) const MODULE: &str = "/v1/modules/{digest}";
/// A domain's bindings.
pub(crate) const BINDINGS: &str = "/v1/domains/{domain}/bindings";
/// One binding: bind (`PUT`), remove (`DELETE`).
pub(crate) const BINDING: &str = "/v1/domains/{domain}/bindings/{kind}/{name}";
/// A binding's guest's latest failures.
pub(crate) const BINDING_FAILURES: &str = "/v1/domains/{domain}/bindings/{kind}/{name}/failures";
/// A binding's rollback to the module it ran before.
pub(crate) const BINDING_ROLLBACK: &str = "/v1/domains/{domain}/bindings/{kind}/{name}/rollback";
/// A decision binding's upgrade of the runs pinned to older modules.
pub(crate) const BINDING_UPGRADE: &str = "/v1/domains/{domain}/bindings/{kind}/{name}/upgrade";
/// The end of a decision binding's ramp.
pub(crate) const BINDING_PROMOTE: &str = "/v1/domains/{domain}/bindings/{kind}/{name}/promote";
/// A domain's runs, open and closed.
pub(crate) const RUNS: &str = "/v1/domains/{domain}/runs";
/// How many runs a filter picks.
pub(crate) const RUNS_COUNT: &str = "/v1/domains/{domain}/runs/count";
/// One action on every open run a filter picks.
pub(crate) const RUNS_BATCH: &str = "/v1/domains/{domain}/runs/batch";
/// One run, as the listing shows it.
pub(crate) const RUN: &str = "/v1/domains/{domain}/workflows/{workflow_id}/runs/{run_id}";
/// One run's guests' latest failures.
pub(crate) const RUN_FAILURES: &str =
    "/v1/domains/{domain}/workflows/{workflow_id}/runs/{run_id}/failures";
/// What one run's guests logged lately.
pub(crate) const RUN_LOGS: &str = "/v1/domains/{domain}/workflows/{workflow_id}/runs/{run_id}/logs";
/// A domain's batch jobs: make (`POST`), list (`GET`).
pub(crate) const BATCHES: &str = "/v1/domains/{domain}/batches";
/// One batch job.
pub(crate) const BATCH: &str = "/v1/domains/{domain}/batches/{id}";
/// A batch job canceled.
pub(crate) const BATCH_CANCEL: &str = "/v1/domains/{domain}/batches/{id}/cancel";
/// A run of a workflow id started again from one of its decision tasks.
pub(crate) const RESET: &str = "/v1/domains/{domain}/workflows/{workflow_id}/reset";
/// A run paused: its queued tasks held until it resumes.
pub(crate) const PAUSE: &str = "/v1/domains/{domain}/workflows/{workflow_id}/pause";
/// A paused run resumed.
pub(crate) const RESUME: &str = "/v1/domains/{domain}/workflows/{workflow_id}/resume";
/// A domain's task lists.
pub(crate) const TASK_LISTS: &str = "/v1/domains/{domain}/task-lists";
/// A task list paused: none of its tasks handed out until it resumes.
pub(crate) const TASK_LIST_PAUSE: &str = "/v1/domains/{domain}/task-lists/{kind}/{name}/pause";
/// A paused task list resumed.
pub(crate) const TASK_LIST_RESUME: &str = "/v1/domains/{domain}/task-lists/{kind}/{name}/resume";
/// A task list's rate set or removed.
pub(crate) const TASK_LIST_LIMIT: &str = "/v1/domains/{domain}/task-lists/{kind}/{name}/limit";
/// A decider replayed over a domain's recorded histories.
pub(crate) const REPLAY: &str = "/v1/domains/{domain}/replay";
/// Runs recorded elsewhere, imported.
pub(crate) const IMPORTS: &str = "/v1/domains/{domain}/imports";
/// A domain's schedules.
pub(crate) const SCHEDULES: &str = "/v1/domains/{domain}/schedules";
/// One schedule: make (`POST`), describe (`GET`), change (`PUT`), remove (`DELETE`).
pub(crate) const SCHEDULE: &str = "/v1/domains/{domain}/schedules/{id}";
/// A schedule paused.
pub(crate) const SCHEDULE_PAUSE: &str = "/v1/domains/{domain}/schedules/{id}/pause";
/// A schedule unpaused.
pub(crate) const SCHEDULE_UNPAUSE: &str = "/v1/domains/{domain}/schedules/{id}/unpause";
/// A schedule's action taken now.
pub(crate) const SCHEDULE_TRIGGER: &str = "/v1/domains/{domain}/schedules/{id}/trigger";
/// A schedule's nominal times of a past range acted on.
pub(crate) const SCHEDULE_BACKFILL: &str = "/v1/domains/{domain}/schedules/{id}/backfill";
/// The server's clock.
pub(crate) const CLOCK: &str = "/v1/clock";
/// The server's clock moved ahead (time skipping).
pub(crate) const CLOCK_ADVANCE: &str = "/v1/clock/advance";

/// Every path, for the test that the server serves each.
#[cfg(test)]
pub(crate) const ALL: [&str; 34] = [
    MODULES,
    MODULE,
    BINDINGS,
    BINDING,
    BINDING_FAILURES,
    BINDING_ROLLBACK,
    BINDING_UPGRADE,
    BINDING_PROMOTE,
    RUNS,
    RUNS_COUNT,
    RUNS_BATCH,
    BATCHES,
    BATCH,
    BATCH_CANCEL,
    RUN,
    RUN_FAILURES,
    RUN_LOGS,
    RESET,
    PAUSE,
    RESUME,
    TASK_LISTS,
    TASK_LIST_PAUSE,
    TASK_LIST_RESUME,
    TASK_LIST_LIMIT,
    REPLAY,
    IMPORTS,
    SCHEDULES,
    SCHEDULE,
    SCHEDULE_PAUSE,
    SCHEDULE_UNPAUSE,
    SCHEDULE_TRIGGER,
    SCHEDULE_BACKFILL,
    CLOCK,
    CLOCK_ADVANCE,
];

/// `template` with its `{…}` segments filled, in order, by `segments`, each percent-encoded.
pub(crate) fn fill(template: &str, segments: &[&str]) -> String {
    let mut path = String::with_capacity(template.len());
    let mut segments = segments.iter();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        path.push_str(&rest[..open]);
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
        let segment = segments.next().expect("a segment for every placeholder");
        path.push_str(&encode(segment));
        rest = &rest[close..];
    }
    path.push_str(rest);
    path
}

/// `segment` percent-encoded for one path segment: everything but RFC 3986's unreserved
/// characters, so a name with `/`, `%`, `?` or spaces stays one segment and decodes back.
fn encode(segment: &str) -> String {
    segment.bytes().fold(String::new(), |mut out, b| {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_fill_segment_by_segment_encoded() {
        let path = fill(BINDING, &["d 1", "activity", "a/b?"]);
        assert_eq!(path, "/v1/domains/d%201/bindings/activity/a%2Fb%3F");
        assert_eq!(fill(MODULES, &[]), "/v1/modules");
        assert_eq!(encode("tasks-1.a_b~"), "tasks-1.a_b~");
        assert_eq!(encode("a b/c?%"), "a%20b%2Fc%3F%25");
        assert_eq!(encode("é"), "%C3%A9");
    }
}
