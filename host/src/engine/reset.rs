//! Resetting a run (see `model::resets`): a new run of the same workflow id carries the old
//! run's events before one of its decision tasks' `DecisionTaskStarted`, byte for byte, and that
//! task is handed out again, so the decider decides it anew.
//!
//! What the carried events leave open is rebuilt where Weft can: a timer fires when it would
//! have (at once, if that is past). An open activity, child run or Lambda function belongs to
//! whoever was running it for the old run, so a cut that leaves one open is refused. The new
//! run starts now: its execution timeout counts from the reset, and its listings show the reset's
//! time, while its carried `WorkflowExecutionStarted` keeps the old run's.

use crate::clock::Timestamp;
use crate::model::events::{Cause, Event, HistoryEvent, attrs};
use crate::model::{
    BindingKind, DecisionTask, ItemKind, NamedPoint, NextDecision, Pin, ResetPoint, Run, RunId,
    Timer, WorkflowExecution,
};
use crate::store::{
    Counter, Deadline, HistoryPages, ItemWrites, Listing, Reads, StoreError, Writes,
};

use super::import::{Folded, left_open};
use super::{Engine, new_run_id, pin_run, signal, terminate};

/// Where a reset cuts a history, and what the carried events leave.
#[derive(Clone)]
pub(crate) struct Cut {
    /// The `DecisionTaskStarted` of the decision task decided again: the new run carries the
    /// events before it.
    pub(crate) started: u64,
    /// That task, as its carried `DecisionTaskScheduled` recorded it.
    pub(crate) task: NextDecision,
    /// The timers open at the cut.
    timers: Vec<Timer>,
    /// What the carried events leave in the run's record.
    folded: Folded,
    /// The last carried event's time.
    last_event_at: Timestamp,
}

/// Where `point` cuts `events` (a run's whole history, oldest first), or why it cannot.
pub(crate) fn cut(events: &[HistoryEvent], point: ResetPoint) -> Result<Cut, String> {
    let started = started_event(events, point)?;
    let carried = &events[..started as usize - 1];
    let Some(Event::DecisionTaskStarted(task)) = event(events, started).map(|e| &e.event) else {
        return Err(format!("event {started} is no DecisionTaskStarted"));
    };
    let scheduled = task.scheduled_event_id;
    let Some(Event::DecisionTaskScheduled(task)) = event(carried, scheduled).map(|e| &e.event)
    else {
        return Err(format!("event {scheduled} is no DecisionTaskScheduled"));
    };
    let open = left_open(carried);
    let refused = |kind: ItemKind, what: &str| -> Result<(), String> {
        match open[kind as usize].first() {
            Some(id) => Err(format!(
                "{what} begun by event {id} is still open before event {started}, and could not be \
                 handed back to the new run: reset to a decision task before it began, or to one \
                 after it ended"
            )),
            None => Ok(()),
        }
    };
    refused(ItemKind::Activity, "The activity task")?;
    refused(ItemKind::Child, "The child run")?;
    refused(ItemKind::Lambda, "The Lambda function task")?;
    let timers = open[ItemKind::Timer as usize].iter().map(|&id| {
        match event(carried, id).map(|e| (e.timestamp, &e.event)) {
            Some((at, Event::TimerStarted(t))) => Ok(Timer {
                timer_id: t.timer_id.clone(),
                started_event_id: id,
                fires_at: at.plus_secs(t.start_to_fire_timeout.limit().unwrap_or(0).into()),
            }),
            _ => Err(format!("event {id} is no TimerStarted")),
        }
    });
    Ok(Cut {
        started,
        task: NextDecision {
            scheduled,
            list: task.task_list.name.clone(),
            schedule_to_start: task.schedule_to_start_timeout,
        },
        timers: timers.collect::<Result<_, _>>()?,
        folded: Folded::of(carried),
        last_event_at: carried
            .last()
            .map_or_else(Timestamp::default, |e| e.timestamp),
    })
}

/// Event `id` of `events`, which hold a history's events from 1 without gaps.
fn event(events: &[HistoryEvent], id: u64) -> Option<&HistoryEvent> {
    let index = usize::try_from(id.checked_sub(1)?).ok()?;
    events.get(index).filter(|e| e.event_id == id)
}

/// The `DecisionTaskStarted` of the decision task `point` names in `events`.
fn started_event(events: &[HistoryEvent], point: ResetPoint) -> Result<u64, String> {
    let is_started = |e: &&HistoryEvent| matches!(e.event, Event::DecisionTaskStarted(_));
    let (found, before) = match point {
        ResetPoint::Event(id) => return task_started(events, id),
        ResetPoint::Named(NamedPoint::First) => (events.iter().find(is_started), ""),
        ResetPoint::Named(NamedPoint::LastGood) => {
            let failure = events.iter().position(|e| {
                let kind = e.event.event_type();
                kind.ends_with("Failed") || kind.ends_with("TimedOut")
            });
            let good = &events[..failure.unwrap_or(events.len())];
            let before = if failure.is_some() {
                " before its first failure"
            } else {
                ""
            };
            (good.iter().rev().find(is_started), before)
        }
    };
    found.map(|e| e.event_id).ok_or_else(|| {
        format!("No decision task of the run was started{before}: there is none to decide again")
    })
}

/// The `DecisionTaskStarted` of the decision task event `id` of `events` belongs to.
fn task_started(events: &[HistoryEvent], id: u64) -> Result<u64, String> {
    let found = event(events, id).ok_or_else(|| {
        format!(
            "The run has no event {id}: its events are 1 to {}",
            events.len()
        )
    })?;
    let never =
        || format!("The decision task of event {id} was never started: reset to one that was");
    match &found.event {
        Event::DecisionTaskStarted(_) => Ok(id),
        Event::DecisionTaskCompleted(a) => Ok(a.started_event_id),
        Event::DecisionTaskTimedOut(a) if a.started_event_id == 0 => Err(never()),
        Event::DecisionTaskTimedOut(a) => Ok(a.started_event_id),
        Event::DecisionTaskScheduled(_) => (events.iter())
            .filter(|e| e.event_id > id)
            .find(
                |e| matches!(&e.event, Event::DecisionTaskStarted(s) if s.scheduled_event_id == id),
            )
            .map(|e| e.event_id)
            .ok_or_else(never),
        other => Err(format!(
            "Event {id} is {}, not a decision task's: give the id of a DecisionTaskScheduled, \
             DecisionTaskStarted or DecisionTaskCompleted event (the decision task to decide again)",
            other.event_type()
        )),
    }
}

/// How a reset makes its new run.
#[derive(Clone)]
pub(crate) struct ResetRun {
    /// The new run's id.
    pub(crate) run_id: RunId,
    /// The decider module (digest) it is pinned to, if any.
    pub(crate) module: Option<String>,
    /// Why, for the old run's termination.
    pub(crate) reason: Option<String>,
    /// Record again the signals the old run received after the cut.
    pub(crate) reapply_signals: bool,
}

/// Resets `old` (of this engine's domain) at `cut`, a cut of its history: terminates it if it is
/// open and starts the new run, open and listed, its decision task queued. The caller has
/// checked that no other run of the workflow id is open. Returns the new run and how many
/// signals it recorded again.
pub(crate) fn reset_run(
    eng: &mut Engine<'_, '_>,
    old: &mut Run,
    cut: &Cut,
    how: ResetRun,
) -> Result<(Run, u64), StoreError> {
    let signals = match how.reapply_signals {
        true => signals_after(&*eng.tx, old.seq, cut.started)?,
        false => Vec::new(),
    };
    if old.is_open() {
        let reason = how.reason.unwrap_or_else(|| "reset".into());
        let details = format!(
            "Reset: run {} carries events 1 to {}",
            how.run_id,
            cut.started - 1
        );
        let cause = Some(Cause::OperatorInitiated);
        terminate(eng, old, Some(reason), Some(details), None, cause)?;
    }
    let mut run = new_run(eng, old, cut, how.run_id)?;
    copy_events(eng.tx, old.seq, run.seq, cut.started - 1)?;
    for timer in &cut.timers {
        let started = timer.started_event_id;
        eng.tx.add_item(&mut run, started, timer)?;
        eng.set_deadline(timer.fires_at, run.seq, started, Deadline::Timer)?;
    }
    eng.arm_run_timeout(&mut run)?;
    eng.queue_decision(&mut run, cut.task.clone())?;
    eng.tx.name_run(&run)?;
    eng.tx.list_run(&run, Listing::Open, run.started_at)?;
    eng.tx.add_count(eng.domain, Counter::OpenRuns, 1)?;
    if let Some(module) = how.module {
        let at = eng.tx.now();
        let pin = Pin {
            module,
            at,
            moved_from: None,
        };
        pin_run(eng.tx, &mut run, pin)?;
    }
    eng.save(&mut run)?;
    let reapplied = signals.len() as u64;
    for s in signals {
        let external = (s.external_workflow_execution)
            .map(|execution| (execution, s.external_initiated_event_id.unwrap_or(0)));
        signal(eng, &mut run, s.signal_name, s.input, external)?;
    }
    Ok((run, reapplied))
}

/// The run that resets `old` (closed now) at `cut`, before anything of it is stored.
fn new_run(
    eng: &mut Engine<'_, '_>,
    old: &Run,
    cut: &Cut,
    run_id: RunId,
) -> Result<Run, StoreError> {
    let workflow_id = &old.execution.workflow_id;
    // Never before the old run closed, nor the workflow's latest close on another node.
    let floor = (eng.tx.start_floor(eng.domain, workflow_id)?)
        .max(old.closed.map(|closed| closed.at))
        .unwrap_or_default();
    let started_at = eng.tx.now().max(floor);
    let folded = &cut.folded;
    Ok(Run {
        seq: eng.tx.next_id()?,
        domain: old.domain,
        account: old.account.clone(),
        domain_name: old.domain_name.clone(),
        execution: WorkflowExecution {
            workflow_id: workflow_id.clone(),
            run_id,
        },
        workflow_type: old.workflow_type.clone(),
        config: old.config.clone(),
        tags: old.tags.clone(),
        started_at,
        timeout_at: None,
        retention_days: old.retention_days,
        closed: None,
        parent: None,
        cancel_requested: folded.cancel_requested,
        next_event_id: cut.started,
        decision: DecisionTask::Idle,
        legacy_decision_owed: false,
        previous_started_event_id: folded.previous_started_event_id,
        decision_task_list: cut.task.list.clone(),
        decision_schedule_to_start: cut.task.schedule_to_start.filter(|t| t.limit().is_some()),
        latest_execution_context: folded.latest_execution_context.clone(),
        latest_activity_task_at: folded.latest_activity_task_at,
        // New events are stamped no earlier than the run's start.
        last_event_at: Some(cut.last_event_at.max(started_at)),
        open: Default::default(),
        imported: false,
        pin: None,
        // The schedule that started the old run counts the new one as it.
        schedule: old.schedule,
        paused: None,
    })
}

/// Copies the events 1 to `last` of run `from` to run `to`, as stored.
fn copy_events(tx: &mut dyn Writes, from: u64, to: u64, last: u64) -> Result<(), StoreError> {
    let mut pages = HistoryPages::new(from, 1, last);
    while let Some(page) = pages.next(&*tx)? {
        for (id, json) in &page {
            tx.put_event(to, *id, json)?;
        }
    }
    Ok(())
}

/// The signals run `seq` received from its event `first` on.
fn signals_after(
    tx: &dyn Reads,
    seq: u64,
    first: u64,
) -> Result<Vec<attrs::WorkflowExecutionSignaled>, StoreError> {
    let mut signals = Vec::new();
    let mut pages = HistoryPages::since(seq, first);
    while let Some(page) = pages.next(tx)? {
        for (_, json) in &page {
            let event: HistoryEvent = serde_json::from_slice(json).map_err(StoreError::broken)?;
            if let Event::WorkflowExecutionSignaled(signaled) = event.event {
                signals.push(signaled);
            }
        }
    }
    Ok(signals)
}

/// Resets the open `run` to the decision task `to` names, unchecked against its decider (a
/// batch job's reset: the new run is pinned to the decision binding's current module, if the
/// task's list has one), signals received after that task recorded again; answers why it
/// cannot, if it cannot.
pub(crate) fn reset_unchecked(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    to: NamedPoint,
    reason: Option<String>,
) -> Result<Option<String>, StoreError> {
    if run.imported {
        return Ok(Some("An imported run cannot be reset".into()));
    }
    if run.parent.is_some() {
        return Ok(Some("A child run cannot be reset: reset its parent".into()));
    }
    let mut events = Vec::new();
    let mut pages = HistoryPages::since(run.seq, 1);
    while let Some(page) = pages.next(&*eng.tx)? {
        for (_, json) in &page {
            events.push(serde_json::from_slice::<HistoryEvent>(json).map_err(StoreError::broken)?);
        }
    }
    let cut = match cut(&events, ResetPoint::Named(to)) {
        Ok(cut) => cut,
        Err(why) => return Ok(Some(why)),
    };
    let binding = (eng.tx).binding(eng.domain, BindingKind::Decision, &cut.task.list)?;
    let how = ResetRun {
        run_id: new_run_id()?,
        module: binding.map(|b| b.module),
        reason,
        reapply_signals: true,
    };
    reset_run(eng, run, &cut, how)?;
    Ok(None)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// A history of events given as (type, attributes), ids from 1, a second apart.
    fn history(events: &[(&str, Value)]) -> Vec<HistoryEvent> {
        let event = |(n, (kind, attributes)): (usize, &(&str, Value))| {
            let mut member = kind.to_string();
            member[..1].make_ascii_lowercase();
            let wire = json!({
                "eventId": n + 1,
                "eventTimestamp": 1000 + n,
                "eventType": kind,
                format!("{member}EventAttributes"): attributes,
            });
            serde_json::from_value(wire).unwrap()
        };
        events.iter().enumerate().map(event).collect()
    }

    fn scheduled() -> (&'static str, Value) {
        let list = json!({"taskList": {"name": "d"}, "startToCloseTimeout": "10"});
        ("DecisionTaskScheduled", list)
    }

    fn started(scheduled: u64) -> (&'static str, Value) {
        (
            "DecisionTaskStarted",
            json!({"scheduledEventId": scheduled}),
        )
    }

    fn completed(scheduled: u64, started: u64) -> (&'static str, Value) {
        let ids = json!({"scheduledEventId": scheduled, "startedEventId": started});
        ("DecisionTaskCompleted", ids)
    }

    /// Started, a timer and an activity from the first decision task; the activity fails and
    /// the second decision task fails the run.
    fn failing() -> Vec<HistoryEvent> {
        let started_run = json!({
            "childPolicy": "TERMINATE", "taskList": {"name": "d"},
            "workflowType": {"name": "w", "version": "1"},
        });
        let timer = json!({"timerId": "t", "startToFireTimeout": "30",
            "decisionTaskCompletedEventId": 4});
        let activity = json!({"activityType": {"name": "a", "version": "1"}, "activityId": "a",
            "taskList": {"name": "w"}, "decisionTaskCompletedEventId": 4});
        history(&[
            ("WorkflowExecutionStarted", started_run),
            scheduled(),
            started(2),
            completed(2, 3),
            ("TimerStarted", timer),
            ("ActivityTaskScheduled", activity),
            ("ActivityTaskStarted", json!({"scheduledEventId": 6})),
            (
                "ActivityTaskFailed",
                json!({"scheduledEventId": 6, "startedEventId": 7}),
            ),
            scheduled(),
            started(9),
            completed(9, 10),
            (
                "WorkflowExecutionFailed",
                json!({"decisionTaskCompletedEventId": 11}),
            ),
        ])
    }

    #[test]
    fn a_decision_tasks_events_name_its_start() {
        let events = failing();
        for id in [9, 10, 11] {
            let cut = cut(&events, ResetPoint::Event(id)).unwrap();
            assert_eq!((cut.started, cut.task.scheduled), (10, 9), "{id}");
        }
        let first = cut(&events, ResetPoint::Named(NamedPoint::First)).unwrap();
        assert_eq!((first.started, first.task.scheduled), (3, 2));
        assert!(first.timers.is_empty());
    }

    #[test]
    fn the_last_good_task_is_the_last_started_before_the_first_failure() {
        let events = failing();
        let good = cut(&events, ResetPoint::Named(NamedPoint::LastGood)).unwrap();
        assert_eq!(good.started, 3);
        // Had the activity completed, the first failure would be the run's.
        let mut completed = events;
        let attributes = json!({"scheduledEventId": 6, "startedEventId": 7});
        completed[7].event =
            Event::ActivityTaskCompleted(serde_json::from_value(attributes).unwrap());
        let good = cut(&completed, ResetPoint::Named(NamedPoint::LastGood)).unwrap();
        assert_eq!(good.started, 10);
        // Without a failure, the last task.
        let good = cut(&completed[..11], ResetPoint::Named(NamedPoint::LastGood)).unwrap();
        assert_eq!(good.started, 10);
    }

    #[test]
    fn open_timers_are_carried_and_open_activities_refused() {
        let cut10 = cut(&failing(), ResetPoint::Event(10)).unwrap();
        let [timer] = &cut10.timers[..] else {
            panic!("{:?}", cut10.timers)
        };
        assert_eq!((timer.timer_id.as_str(), timer.started_event_id), ("t", 5));
        assert_eq!(timer.fires_at, Timestamp::from_millis(1_034_000));
        assert_eq!(cut10.folded.previous_started_event_id, 3);
        // Had the activity not ended before the second task, that task could not be reset to.
        let mut open = failing();
        open.remove(7);
        for (n, event) in open.iter_mut().enumerate().skip(7) {
            event.event_id = n as u64 + 1;
        }
        if let Event::DecisionTaskStarted(task) = &mut open[8].event {
            task.scheduled_event_id = 8;
        }
        let refused = cut(&open, ResetPoint::Event(9)).err().unwrap();
        assert!(
            refused.starts_with("The activity task begun by event 6 is still open before event 9"),
            "{refused}"
        );
    }

    #[test]
    fn other_events_and_unstarted_tasks_are_refused_by_name() {
        let events = failing();
        let refused = |id| cut(&events, ResetPoint::Event(id)).err().unwrap();
        assert!(refused(6).starts_with("Event 6 is ActivityTaskScheduled"));
        assert!(refused(13).starts_with("The run has no event 13: its events are 1 to 12"));
        assert!(refused(0).starts_with("The run has no event 0"));
        let never = &events[..9];
        let refused = cut(never, ResetPoint::Event(9)).err().unwrap();
        assert!(refused.contains("was never started"), "{refused}");
    }
}
