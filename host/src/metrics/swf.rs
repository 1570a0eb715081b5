//! SWF's CloudWatch metrics, counted from the history events a node commits: each event that
//! starts, ends or times something becomes a [`Measure`] when it is recorded, and is counted
//! once its transaction commits (a batch run again after a conflict counts once).
//!
//! A duration needs the time of an earlier event (a task's scheduling or start), and an activity
//! task's measures its type, named by its scheduling. [`EventTimes`] keeps those of open tasks in
//! memory; one it lacks (recorded before a restart, or by another node) is read from the history.
//!
//! Workflow and decision task metrics are labelled with the run's workflow type, activity task
//! metrics with the activity type, as CloudWatch's dimensions are; at most
//! [`MAX_TYPE_SERIES`] types get series of their own, the rest are counted as `(other)`.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use super::{Labels, register_seconds, seconds};
use crate::clock::Timestamp;
use crate::model::events::{Cause, Event, HistoryEvent};
use crate::model::{Kind, Run, TypeName};

/// What one history event tells the metrics.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Measure {
    WorkflowStarted,
    /// A run closed, after `seconds` open.
    WorkflowClosed {
        how: Closed,
        seconds: f64,
    },
    DecisionStarted {
        schedule_to_start: f64,
    },
    DecisionCompleted {
        start_to_close: Option<f64>,
    },
    /// A started decision task timed out (start-to-close, the only timeout a started one has).
    DecisionTimedOutOnClose,
    ActivityStarted {
        /// The activity type, if its scheduling could be read.
        activity: Option<TypeName>,
        schedule_to_start: f64,
    },
    ActivityClosed {
        /// See `ActivityStarted`.
        activity: Option<TypeName>,
        how: ActivityClosed,
        schedule_to_close: Option<f64>,
        start_to_close: Option<f64>,
    },
}

/// How a run closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Closed {
    Completed,
    Failed,
    Canceled,
    Terminated,
    TimedOut,
    ContinuedAsNew,
}

/// How an activity task closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ActivityClosed {
    Completed,
    Failed,
    Canceled,
    /// CloudWatch counts each timeout type apart.
    TimedOut(Cause),
}

/// The most event times kept; past it they are all forgotten (and read from histories).
const MAX_TIMES: usize = 100_000;

/// What is kept of a task's scheduled or started event: its time, and the type an activity
/// task's scheduling names.
#[derive(Clone, Debug)]
struct Kept {
    at: Timestamp,
    activity: Option<TypeName>,
}

impl Kept {
    fn of(event: &HistoryEvent) -> Kept {
        let activity = match &event.event {
            Event::ActivityTaskScheduled(a) => Some(a.activity_type.clone()),
            _ => None,
        };
        Kept {
            at: event.timestamp,
            activity,
        }
    }
}

/// An earlier event of the run being measured, by id, as the engine reads it from the history.
pub(crate) type Earlier<'a, E> = &'a dyn Fn(u64) -> Result<Option<HistoryEvent>, E>;

/// What is kept of the scheduled and started events of open tasks, by (run seq, event id).
#[derive(Debug, Default)]
pub(crate) struct EventTimes(Mutex<HashMap<(u64, u64), Kept>>);

impl EventTimes {
    fn times(&self) -> std::sync::MutexGuard<'_, HashMap<(u64, u64), Kept>> {
        // Every change is one call: a panic elsewhere leaves the map usable.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn remember(&self, seq: u64, event: &HistoryEvent) {
        let mut times = self.times();
        if times.len() >= MAX_TIMES {
            times.clear();
        }
        times.insert((seq, event.event_id), Kept::of(event));
    }

    /// What is kept of event `event_id` of run `seq`, forgotten if `forget`.
    fn kept<E>(
        &self,
        earlier: Earlier<E>,
        seq: u64,
        event_id: u64,
        forget: bool,
    ) -> Result<Option<Kept>, E> {
        let known = match forget {
            true => self.times().remove(&(seq, event_id)),
            false => self.times().get(&(seq, event_id)).cloned(),
        };
        if known.is_some() || event_id == 0 {
            return Ok(known);
        }
        Ok(earlier(event_id)?.map(|event| Kept::of(&event)))
    }

    /// The time of event `event_id` of run `seq`, forgotten if `forget`.
    fn time<E>(
        &self,
        earlier: Earlier<E>,
        seq: u64,
        event_id: u64,
        forget: bool,
    ) -> Result<Option<Timestamp>, E> {
        Ok(self.kept(earlier, seq, event_id, forget)?.map(|k| k.at))
    }

    /// What `event`, just recorded in `run`, tells the metrics; `earlier` reads the run's
    /// earlier events that memory lacks.
    pub(crate) fn measure<E>(
        &self,
        earlier: Earlier<E>,
        run: &Run,
        event: &HistoryEvent,
    ) -> Result<Option<Measure>, E> {
        let (seq, now) = (run.seq, event.timestamp);
        let since = |at: Option<Timestamp>| at.map(|at| seconds_between(at, now));
        let closed = |how| {
            Some(Measure::WorkflowClosed {
                how,
                seconds: seconds_between(run.started_at, now),
            })
        };
        if let Some((how, scheduled, started)) = activity_close(&event.event) {
            return self.activity_closed(earlier, run, event, how, scheduled, started);
        }
        Ok(match &event.event {
            Event::WorkflowExecutionStarted(_) => Some(Measure::WorkflowStarted),
            Event::WorkflowExecutionCompleted(_) => closed(Closed::Completed),
            Event::WorkflowExecutionFailed(_) => closed(Closed::Failed),
            Event::WorkflowExecutionCanceled(_) => closed(Closed::Canceled),
            Event::WorkflowExecutionTerminated(_) => closed(Closed::Terminated),
            Event::WorkflowExecutionTimedOut(_) => closed(Closed::TimedOut),
            Event::WorkflowExecutionContinuedAsNew(_) => closed(Closed::ContinuedAsNew),
            Event::DecisionTaskScheduled(_) | Event::ActivityTaskScheduled(_) => {
                self.remember(seq, event);
                None
            }
            Event::DecisionTaskStarted(a) => {
                self.remember(seq, event);
                since(self.time(earlier, seq, a.scheduled_event_id, true)?)
                    .map(|schedule_to_start| Measure::DecisionStarted { schedule_to_start })
            }
            Event::DecisionTaskCompleted(a) => Some(Measure::DecisionCompleted {
                start_to_close: since(self.time(earlier, seq, a.started_event_id, true)?),
            }),
            Event::DecisionTaskTimedOut(a) => {
                self.times().remove(&(seq, a.scheduled_event_id));
                self.times().remove(&(seq, a.started_event_id));
                (a.timeout_type == Cause::StartToClose).then_some(Measure::DecisionTimedOutOnClose)
            }
            Event::ActivityTaskStarted(a) => {
                self.remember(seq, event);
                self.kept(earlier, seq, a.scheduled_event_id, false)?
                    .map(|scheduled| Measure::ActivityStarted {
                        schedule_to_start: seconds_between(scheduled.at, now),
                        activity: scheduled.activity,
                    })
            }
            _ => None,
        })
    }

    fn activity_closed<E>(
        &self,
        earlier: Earlier<E>,
        run: &Run,
        event: &HistoryEvent,
        how: ActivityClosed,
        scheduled: u64,
        started: u64,
    ) -> Result<Option<Measure>, E> {
        let since = |at: Option<Timestamp>| at.map(|at| seconds_between(at, event.timestamp));
        let scheduled = self.kept(earlier, run.seq, scheduled, true)?;
        Ok(Some(Measure::ActivityClosed {
            how,
            schedule_to_close: since(scheduled.as_ref().map(|k| k.at)),
            start_to_close: since(self.time(earlier, run.seq, started, true)?),
            activity: scheduled.and_then(|k| k.activity),
        }))
    }
}

/// Seconds from `from` to `to`; never negative.
fn seconds_between(from: Timestamp, to: Timestamp) -> f64 {
    (to.as_millis() - from.as_millis()).max(0) as f64 / 1000.0
}

type Counters = Family<Labels, Counter>;
type Histograms = Family<Labels, Histogram, fn() -> Histogram>;

/// The CloudWatch metrics, by domain.
pub(super) struct Swf {
    workflows_started: Counters,
    workflows_closed: [(Closed, Counters); 6],
    workflow_start_to_close: Histograms,
    decision_schedule_to_start: Histograms,
    decision_start_to_close: Histograms,
    decisions_completed: Counters,
    decisions_timed_out_on_close: Counters,
    activity_schedule_to_start: Histograms,
    activity_start_to_close: Histograms,
    activity_schedule_to_close: Histograms,
    activities_completed: Counters,
    activities_failed: Counters,
    activities_canceled: Counters,
    activities_timed_out: [(Cause, Counters); 4],
    /// The (domain, kind, type) label sets with series of their own.
    types: Mutex<HashSet<Labels>>,
}

/// The most types (of all domains and both kinds) with series of their own.
pub(super) const MAX_TYPE_SERIES: usize = 1000;

/// The name and version label of a type counted with every type past [`MAX_TYPE_SERIES`].
const OTHER: &str = "(other)";

/// The counters of closed runs, by how they closed: name and help.
const CLOSED: [(Closed, &str, &str); 6] = [
    (
        Closed::Completed,
        "swf_workflows_completed",
        "Runs completed (WorkflowsCompleted)",
    ),
    (
        Closed::Failed,
        "swf_workflows_failed",
        "Runs failed (WorkflowsFailed)",
    ),
    (
        Closed::Canceled,
        "swf_workflows_canceled",
        "Runs canceled (WorkflowsCanceled)",
    ),
    (
        Closed::Terminated,
        "swf_workflows_terminated",
        "Runs terminated (WorkflowsTerminated)",
    ),
    (
        Closed::TimedOut,
        "swf_workflows_timed_out",
        "Runs timed out (WorkflowsTimedOut)",
    ),
    (
        Closed::ContinuedAsNew,
        "swf_workflows_continued_as_new",
        "Runs continued as new (WorkflowsContinuedAsNew)",
    ),
];

/// The counters of activity timeouts, by cause: name and help.
const TIMED_OUT: [(Cause, &str, &str); 4] = [
    (
        Cause::ScheduleToStart,
        "swf_scheduled_activity_tasks_timed_out_on_start",
        "Activity tasks that timed out before a worker took them \
             (ScheduledActivityTasksTimedOutOnStart)",
    ),
    (
        Cause::ScheduleToClose,
        "swf_scheduled_activity_tasks_timed_out_on_close",
        "Activity tasks that timed out schedule-to-close \
             (ScheduledActivityTasksTimedOutOnClose)",
    ),
    (
        Cause::StartToClose,
        "swf_started_activity_tasks_timed_out_on_close",
        "Started activity tasks that timed out start-to-close \
             (StartedActivityTasksTimedOutOnClose)",
    ),
    (
        Cause::Heartbeat,
        "swf_started_activity_tasks_timed_out_on_heartbeat",
        "Started activity tasks whose heartbeat timed out \
             (StartedActivityTasksTimedOutOnHeartbeat)",
    ),
];

impl Swf {
    /// The metrics, registered in `registry`.
    pub(super) fn register(registry: &mut Registry) -> Swf {
        let mut counter = |name: &str, help: &str| {
            let family = Counters::default();
            registry.register(name, help, family.clone());
            family
        };
        let workflows_started = counter("swf_workflows_started", "Runs started (WorkflowsStarted)");
        let workflows_closed = CLOSED.map(|(how, name, help)| (how, counter(name, help)));
        let decisions_completed = counter(
            "swf_decision_tasks_completed",
            "Decision tasks completed (DecisionTasksCompleted)",
        );
        let decisions_timed_out_on_close = counter(
            "swf_started_decision_tasks_timed_out_on_close",
            "Started decision tasks that timed out (StartedDecisionTasksTimedOutOnClose)",
        );
        let activities_completed = counter(
            "swf_activity_tasks_completed",
            "Activity tasks completed (ActivityTasksCompleted)",
        );
        let activities_failed = counter(
            "swf_activity_tasks_failed",
            "Activity tasks failed (ActivityTasksFailed)",
        );
        let activities_canceled = counter(
            "swf_activity_tasks_canceled",
            "Activity tasks canceled (ActivityTasksCanceled)",
        );
        let activities_timed_out =
            TIMED_OUT.map(|(cause, name, help)| (cause, counter(name, help)));
        let mut histogram = |name: &str, help: &str| {
            let family = Histograms::new_with_constructor(seconds as fn() -> Histogram);
            register_seconds(registry, name, help, family.clone());
            family
        };
        Swf {
            workflows_started,
            workflows_closed,
            workflow_start_to_close: histogram(
                "swf_workflow_start_to_close_time",
                "How long runs were open (WorkflowStartToCloseTime)",
            ),
            decision_schedule_to_start: histogram(
                "swf_decision_task_schedule_to_start_time",
                "From a decision task's scheduling to its start (DecisionTaskScheduleToStartTime)",
            ),
            decision_start_to_close: histogram(
                "swf_decision_task_start_to_close_time",
                "From a decision task's start to its completion (DecisionTaskStartToCloseTime)",
            ),
            decisions_completed,
            decisions_timed_out_on_close,
            activity_schedule_to_start: histogram(
                "swf_activity_task_schedule_to_start_time",
                "From an activity task's scheduling to its start (ActivityTaskScheduleToStartTime)",
            ),
            activity_start_to_close: histogram(
                "swf_activity_task_start_to_close_time",
                "From an activity task's start to its close (ActivityTaskStartToCloseTime)",
            ),
            activity_schedule_to_close: histogram(
                "swf_activity_task_schedule_to_close_time",
                "From an activity task's scheduling to its close (ActivityTaskScheduleToCloseTime)",
            ),
            activities_completed,
            activities_failed,
            activities_canceled,
            activities_timed_out,
            types: Mutex::new(HashSet::new()),
        }
    }

    /// `labels` (a domain's) with those of the type `ty` of kind `kind`, or of `(other)` once
    /// [`MAX_TYPE_SERIES`] types have series of their own.
    fn typed(&self, labels: &Labels, kind: Kind, ty: Option<&TypeName>) -> Labels {
        let (name, version) = match kind {
            Kind::Workflow => ("workflow_type", "workflow_version"),
            Kind::Activity => ("activity_type", "activity_version"),
        };
        let mut typed = labels.clone();
        let (n, v) = ty.map_or((OTHER, OTHER), |t| (t.name.as_str(), t.version.as_str()));
        typed.extend([(name, n.to_owned()), (version, v.to_owned())]);
        let mut types = self.types.lock().unwrap_or_else(|e| e.into_inner());
        if types.contains(&typed) || types.len() < MAX_TYPE_SERIES && types.insert(typed.clone()) {
            return typed;
        }
        typed.truncate(labels.len());
        typed.extend([(name, OTHER.to_owned()), (version, OTHER.to_owned())]);
        typed
    }

    /// Makes the counters of type `ty` of kind `kind` in the domain `labels` place show, at
    /// zero until something is counted: an alert on a rate needs the series before the first
    /// event.
    pub(super) fn show_type(&self, labels: &Labels, kind: Kind, ty: &TypeName) {
        let typed = self.typed(labels, kind, Some(ty));
        let families: Vec<&Counters> = match kind {
            Kind::Workflow => [&self.workflows_started]
                .into_iter()
                .chain(self.workflows_closed.iter().map(|(_, f)| f))
                .chain([
                    &self.decisions_completed,
                    &self.decisions_timed_out_on_close,
                ])
                .collect(),
            Kind::Activity => [
                &self.activities_completed,
                &self.activities_failed,
                &self.activities_canceled,
            ]
            .into_iter()
            .chain(self.activities_timed_out.iter().map(|(_, f)| f))
            .collect(),
        };
        for family in families {
            // Created at zero; nothing to count yet.
            let _ = family.get_or_create(&typed);
        }
    }

    /// Counts `measure`, of a run of `workflow` in the domain `labels` place.
    pub(super) fn record(&self, labels: &Labels, workflow: &TypeName, measure: Measure) {
        let labels = &match &measure {
            Measure::ActivityStarted { activity, .. }
            | Measure::ActivityClosed { activity, .. } => {
                self.typed(labels, Kind::Activity, activity.as_ref())
            }
            _ => self.typed(labels, Kind::Workflow, Some(workflow)),
        };
        match measure {
            Measure::WorkflowStarted => {
                self.workflows_started.get_or_create(labels).inc();
            }
            Measure::WorkflowClosed { how, seconds } => {
                if let Some((_, family)) = self.workflows_closed.iter().find(|(h, _)| *h == how) {
                    family.get_or_create(labels).inc();
                }
                self.workflow_start_to_close
                    .get_or_create(labels)
                    .observe(seconds);
            }
            Measure::DecisionStarted { schedule_to_start } => {
                let h = self.decision_schedule_to_start.get_or_create(labels);
                h.observe(schedule_to_start);
            }
            Measure::DecisionCompleted { start_to_close } => {
                self.decisions_completed.get_or_create(labels).inc();
                if let Some(s) = start_to_close {
                    self.decision_start_to_close
                        .get_or_create(labels)
                        .observe(s);
                }
            }
            Measure::DecisionTimedOutOnClose => {
                self.decisions_timed_out_on_close
                    .get_or_create(labels)
                    .inc();
            }
            Measure::ActivityStarted {
                schedule_to_start, ..
            } => {
                let h = self.activity_schedule_to_start.get_or_create(labels);
                h.observe(schedule_to_start);
            }
            Measure::ActivityClosed {
                how,
                schedule_to_close,
                start_to_close,
                ..
            } => {
                let family = match how {
                    ActivityClosed::Completed => Some(&self.activities_completed),
                    ActivityClosed::Failed => Some(&self.activities_failed),
                    ActivityClosed::Canceled => Some(&self.activities_canceled),
                    ActivityClosed::TimedOut(cause) => self
                        .activities_timed_out
                        .iter()
                        .find(|(c, _)| *c == cause)
                        .map(|(_, family)| family),
                };
                if let Some(family) = family {
                    family.get_or_create(labels).inc();
                }
                if let Some(s) = schedule_to_close {
                    self.activity_schedule_to_close
                        .get_or_create(labels)
                        .observe(s);
                }
                if let Some(s) = start_to_close {
                    self.activity_start_to_close
                        .get_or_create(labels)
                        .observe(s);
                }
            }
        }
    }
}

/// How an activity task ended, if `event` ended one, with its scheduled and started events.
fn activity_close(event: &Event) -> Option<(ActivityClosed, u64, u64)> {
    Some(match event {
        Event::ActivityTaskCompleted(a) => (
            ActivityClosed::Completed,
            a.scheduled_event_id,
            a.started_event_id,
        ),
        Event::ActivityTaskFailed(a) => (
            ActivityClosed::Failed,
            a.scheduled_event_id,
            a.started_event_id,
        ),
        Event::ActivityTaskCanceled(a) => (
            ActivityClosed::Canceled,
            a.scheduled_event_id,
            a.started_event_id,
        ),
        Event::ActivityTaskTimedOut(a) => (
            ActivityClosed::TimedOut(a.timeout_type),
            a.scheduled_event_id,
            a.started_event_id,
        ),
        _ => return None,
    })
}
