//! Schedules (`/v1/domains/{domain}/schedules`): a Weft extension that starts a workflow at the
//! times a spec names, as Temporal's schedules and cron do beside SWF. The bodies the server
//! (`ops::schedules`) and the client share, the stored record, and the spec's times.
//!
//! A schedule's *nominal* times are those its spec names: every `every` seconds (aligned to the
//! epoch, shifted by `offset`), or each time one of its cron expressions matches in its time
//! zone, within `startAt`..`endAt`. Each nominal time is acted on once: it starts a run of the
//! action's workflow type with the workflow id `{schedule id}-{nominal time, RFC 3339}`, unless
//! the overlap policy says otherwise (a run the schedule started is still open), the schedule is
//! paused, its limit of runs is spent, or the time is further in the past than the catch-up
//! window (the server was down): then the time is skipped, buffered or missed, and counted.

use std::collections::VecDeque;

use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::Tz;
use croner::parser::{CronParser, Seconds, Year};
use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;

use super::TypeRef;

/// The most recent actions a schedule keeps.
pub(crate) const RECENT_ACTIONS: usize = 10;
/// The most nominal times a schedule may hold buffered (overlap `bufferAll`, backfills).
pub(crate) const MAX_BUFFERED: usize = 1000;
/// The catch-up window of a schedule that names none: a time missed by longer is not acted on.
pub(crate) const DEFAULT_CATCHUP_SECS: u64 = 60;

/// What a schedule is: when, what it starts, and how it treats overlap and missed times (the
/// body of `POST .../schedules` and `PUT .../schedules/{id}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a JSON object"
)]
pub struct ScheduleDefinition {
    /// When its nominal times are.
    pub spec: ScheduleSpec,
    /// The run each nominal time starts.
    pub action: StartAction,
    /// What a nominal time does while a run it started is open.
    #[serde(default)]
    pub overlap: Overlap,
    /// Seconds after a nominal time within which it is still acted on (after downtime, say);
    /// 60 if not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catchup_window: Option<u64>,
    /// Runs it starts at most, all told (trigger and backfill included); no limit if not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
}

/// When a schedule's nominal times are: an interval or cron expressions (not both).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a JSON object"
)]
pub struct ScheduleSpec {
    /// Seconds between nominal times, aligned to the epoch (plus `offset`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<u64>,
    /// Seconds the interval's times are shifted by, less than `every`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Cron expressions (minute hour day-of-month month day-of-week); a time any of them
    /// matches is a nominal time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cron: Vec<String>,
    /// The IANA time zone cron expressions are read in (`Europe/Berlin`); UTC if not given.
    /// Across a daylight-saving change, a fixed time that does not exist runs right after the
    /// change and one that happens twice runs once; `*` and `*/n` fields follow the wall clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    /// No nominal time before this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at: Option<Timestamp>,
    /// No nominal time after this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_at: Option<Timestamp>,
    /// Up to this many seconds a run starts after its nominal time, the same for every node
    /// (spreads the runs of many schedules on one time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<u64>,
}

/// The members of StartWorkflowExecution a schedule's runs start with (the workflow id is the
/// schedule's).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a JSON object"
)]
pub struct StartAction {
    /// The workflow type each run starts.
    pub workflow_type: TypeRef,
    /// The decision task list's name (default: the type's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_list: Option<String>,
    /// The runs' task priority (default: the type's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_priority: Option<String>,
    /// The runs' input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// Seconds a run may take (default: the type's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_start_to_close_timeout: Option<String>,
    /// The runs' tags, at most 5.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tag_list: Vec<String>,
    /// Seconds a decision task may take (default: the type's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_start_to_close_timeout: Option<String>,
    /// `TERMINATE`, `REQUEST_CANCEL` or `ABANDON` (default: the type's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_policy: Option<String>,
    /// The IAM role a run's Lambda functions are invoked with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lambda_role: Option<String>,
}

/// What a nominal time does while a run the schedule started is open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Overlap {
    /// Nothing: the time is skipped.
    #[default]
    Skip,
    /// It waits for the open run to close; a later time while one waits is skipped.
    BufferOne,
    /// It waits, after the times already waiting, for the open runs to close.
    BufferAll,
    /// The open run is asked to cancel; the time waits for it to close.
    CancelOther,
    /// The open run is terminated, and the time starts its run at once.
    TerminateOther,
    /// It starts its run at once, beside the open ones.
    AllowAll,
}

impl Overlap {
    /// Every policy, by its name on the wire.
    pub const ALL: [(&'static str, Overlap); 6] = [
        ("skip", Overlap::Skip),
        ("bufferOne", Overlap::BufferOne),
        ("bufferAll", Overlap::BufferAll),
        ("cancelOther", Overlap::CancelOther),
        ("terminateOther", Overlap::TerminateOther),
        ("allowAll", Overlap::AllowAll),
    ];
}

/// A schedule as `GET .../schedules/{id}` describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleDescription {
    /// The schedule's id.
    pub id: String,
    /// What it is.
    pub schedule: ScheduleDefinition,
    /// What it has done, and holds.
    pub info: ScheduleState,
    /// The next nominal times (up to 5), when it is not paused.
    pub next_times: Vec<Timestamp>,
}

/// What a schedule has done, and what it holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleState {
    /// When it was made.
    pub created_at: Timestamp,
    /// When it was last changed, or acted.
    pub updated_at: Timestamp,
    /// Paused: its nominal times pass without a run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
    /// Why it was last paused or unpaused.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// Runs it started.
    #[serde(default)]
    pub actions: u64,
    /// Nominal times skipped by the overlap policy.
    #[serde(default)]
    pub skipped: u64,
    /// Nominal times missed: later than the catch-up window when the server came to them.
    #[serde(default)]
    pub missed: u64,
    /// The open runs it started.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub running: Vec<ScheduledRun>,
    /// Nominal times waiting for the open runs to close, earliest first.
    #[serde(default, skip_serializing_if = "VecDeque::is_empty")]
    pub buffered: VecDeque<Timestamp>,
    /// Its last actions, newest last.
    #[serde(default, skip_serializing_if = "VecDeque::is_empty")]
    pub recent: VecDeque<ScheduleAction>,
}

/// An open run a schedule started.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduledRun {
    /// The run's workflow id.
    pub workflow_id: String,
    /// The run's id.
    pub run_id: String,
}

/// A run a schedule started, or tried to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleAction {
    /// The time it was for.
    pub nominal_time: Timestamp,
    /// When it started.
    pub actual_time: Timestamp,
    /// The workflow id of the run.
    pub workflow_id: String,
    /// The run started; none if the start failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Why the start failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One page of a domain's schedules (`GET .../schedules`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleList {
    /// The page's schedules, described.
    pub schedules: Vec<ScheduleDescription>,
    /// The id to ask the next page after, if there may be more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// A note for pause and unpause (`POST .../schedules/{id}/pause`, `.../unpause`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScheduleNote {
    /// Why (shown by describe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The nominal times of a past range acted on now (`POST .../schedules/{id}/backfill`):
/// `from` to `to`, both included, under the schedule's overlap policy and whatever the
/// catch-up window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Backfill {
    /// The first time.
    pub from: Timestamp,
    /// The last time.
    pub to: Timestamp,
}

/// What a trigger or backfill did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleOutcome {
    /// Nominal times acted on.
    pub times: u64,
    /// Runs started at once.
    pub started: u64,
}

/// A schedule as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Schedule {
    /// A number unique in the store: the key of its deadline.
    pub(crate) seq: u64,
    /// The domain's id.
    pub(crate) domain: u64,
    /// The domain's scope and name, for the runs it starts.
    pub(crate) account: String,
    pub(crate) region: String,
    pub(crate) domain_name: String,
    pub(crate) id: String,
    pub(crate) definition: ScheduleDefinition,
    pub(crate) state: ScheduleState,
    /// Nominal times up to this one are done with.
    pub(crate) cursor: Timestamp,
    /// When its deadline is set for, if it is.
    pub(crate) armed: Option<Timestamp>,
    /// The open runs its domain may hold, by the quota of the tenant that last made or changed it.
    pub(crate) max_open_runs: u64,
}

/// A schedule spec whose cron expressions and time zone are parsed.
pub(crate) struct Times {
    spec: ScheduleSpec,
    cron: Vec<croner::Cron>,
    zone: Tz,
}

impl Times {
    /// Reads `spec`, or says what is wrong with it (naming the member).
    pub(crate) fn parse(spec: &ScheduleSpec) -> Result<Times, String> {
        match (spec.every, spec.cron.is_empty()) {
            (Some(_), false) => return Err("give spec.every or spec.cron, not both".into()),
            (None, true) => return Err("give spec.every (seconds) or spec.cron".into()),
            (Some(0), _) => return Err("spec.every must be at least 1 second".into()),
            _ => {}
        }
        if let (Some(every), Some(offset)) = (spec.every, spec.offset)
            && offset >= every
        {
            return Err(format!(
                "spec.offset ({offset}) must be less than spec.every ({every})"
            ));
        }
        if spec.offset.is_some() && spec.every.is_none() {
            return Err("spec.offset goes with spec.every".into());
        }
        if let (Some(start), Some(end)) = (spec.start_at, spec.end_at)
            && end < start
        {
            return Err("spec.endAt is before spec.startAt".into());
        }
        let cron = spec
            .cron
            .iter()
            .map(|expr| {
                five_fields().parse(expr).map_err(|e| {
                    format!(
                        "spec.cron {expr:?} is not a cron expression of 5 fields (minute hour \
                         day-of-month month day-of-week): {e}"
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let zone = match &spec.time_zone {
            None => Tz::UTC,
            Some(name) => name.parse().map_err(|_| {
                format!("spec.timeZone {name:?} is not an IANA time zone (as Europe/Berlin)")
            })?,
        };
        Ok(Times {
            spec: spec.clone(),
            cron,
            zone,
        })
    }

    /// The first nominal time after `after`, if there is one.
    pub(crate) fn next_after(&self, after: Timestamp) -> Option<Timestamp> {
        let after = match self.spec.start_at {
            Some(start) if start.as_millis() > after.as_millis() => {
                Timestamp::from_millis(start.as_millis() - 1)
            }
            _ => after,
        };
        let next = match self.spec.every {
            Some(every) => interval_after(after, every, self.spec.offset.unwrap_or(0)),
            None => self
                .cron
                .iter()
                .filter_map(|cron| self.cron_after(cron, after))
                .min()?,
        };
        match self.spec.end_at {
            Some(end) if next > end => None,
            _ => Some(next),
        }
    }

    fn cron_after(&self, cron: &croner::Cron, after: Timestamp) -> Option<Timestamp> {
        let at: DateTime<Tz> = Utc
            .timestamp_millis_opt(after.as_millis())
            .single()?
            .with_timezone(&self.zone);
        let next = cron.find_next_occurrence(&at, false).ok()?;
        Some(Timestamp::from_millis(next.timestamp_millis()))
    }

    /// When a nominal time's run starts: `nominal` plus its jitter, a share of `spec.jitter`
    /// fixed by the schedule's id and the time (so every node agrees), never reaching the next
    /// nominal time.
    pub(crate) fn actual(&self, id: &str, nominal: Timestamp) -> Timestamp {
        let Some(jitter) = self.spec.jitter.filter(|j| *j > 0) else {
            return nominal;
        };
        let mut span = jitter.saturating_mul(1000);
        if let Some(next) = self.next_after(nominal) {
            let gap = next.as_millis().saturating_sub(nominal.as_millis());
            span = span.min(u64::try_from(gap).unwrap_or(0).saturating_sub(1));
        }
        nominal.plus_millis(fnv(id, nominal) % (span + 1))
    }
}

/// Cron's parser: minute, hour, day of month, month, day of week; no seconds, no year.
fn five_fields() -> CronParser {
    CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build()
}

/// The first time `k * every + offset` seconds after the epoch that is after `after`.
fn interval_after(after: Timestamp, every: u64, offset: u64) -> Timestamp {
    let (every, offset) = (millis(every), millis(offset));
    let k = (after.as_millis() - offset).div_euclid(every) + 1;
    Timestamp::from_millis(k.saturating_mul(every).saturating_add(offset))
}

fn millis(secs: u64) -> i64 {
    i64::try_from(secs.saturating_mul(1000)).unwrap_or(i64::MAX)
}

/// FNV-1a over the schedule id and the time: the same on every node and release.
fn fnv(id: &str, at: Timestamp) -> u64 {
    let bytes = id.bytes().chain(at.as_millis().to_le_bytes());
    bytes.fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The workflow id of the run a schedule starts for a nominal time:
/// `{schedule id}-{time, RFC 3339 in UTC}` (`nightly-2026-03-29T02:00:00Z`; with milliseconds
/// when the time has them, as a trigger's may).
pub(crate) fn workflow_id(schedule: &str, nominal: Timestamp) -> String {
    let at = Utc
        .timestamp_millis_opt(nominal.as_millis())
        .single()
        .unwrap_or_default();
    let format = match nominal.as_millis() % 1000 {
        0 => "%Y-%m-%dT%H:%M:%SZ",
        _ => "%Y-%m-%dT%H:%M:%S%.3fZ",
    };
    format!("{schedule}-{}", at.format(format))
}

#[cfg(test)]
mod tests;
