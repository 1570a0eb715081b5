//! The execution engine: SWF's rules for runs, applied inside the writer's transaction.
//!
//! An [`Engine`] works on one batch job. Operations load a [`Run`], change it through the engine
//! (which appends its history events, schedules its decision tasks and queues its tasks), save it,
//! and end with [`Engine::finish`], which applies the effects on other runs (children, external
//! signals and cancel requests, parents told of a child's close), hands newly queued tasks to
//! waiting pollers, and wakes the timer loop if a deadline was set. Everything happens in the one
//! transaction, so a change and all its consequences commit together.
//!
//! The engine never touches HTTP; clients' faults are checked by the operations before they call it.

mod close;
mod deadlines;
mod decide;
mod effects;
mod heartbeats;
mod import;
mod lambdas;
mod pins;
mod reset;
mod start;
mod tasks;
#[cfg(test)]
mod tests;
mod timeouts;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::clock::Timestamp;
use crate::dispatch::{Dispatch, ListKey};
use crate::metrics::Metrics;
use crate::timers::Alarm;

use self::heartbeats::Heartbeats;
use crate::model::events::{Cause, Event, HistoryEvent, attrs};
use crate::model::{DecisionTask, NextDecision, Priority, Run, Slot, TaskKind, TaskList, Timeout};
use crate::store::{Counter, Deadline, Reads, StoreError, Writes};

pub(crate) use close::terminate;
pub(crate) use deadlines::fire_due;
pub(crate) use decide::{Completion, complete_decision_task};
pub(crate) use effects::{Effect, request_cancel, signal};
pub(crate) use import::{Imported, import_run};
#[cfg(test)]
pub(crate) use lambdas::claim_lambda;
pub(crate) use lambdas::{FunctionClaim, LambdaOutcome, closable_lambda, close_lambda};
pub(crate) use pins::pin_run;
pub(crate) use reset::{Cut, ResetRun, cut, reset_run};
pub(crate) use start::{NewRun, StartRequest, new_run_id, resolve_start, start_run};
#[cfg(test)]
pub(crate) use tasks::claim;
pub(crate) use tasks::{
    ActivityOutcome, Claimed, DecisionClaim, HistoryAsk, TaskRef, claim_for, close_activity,
    record_heartbeat, started_decision, started_task,
};

/// Hands tasks queued on the list `(domain, kind, list)`, as another process may have, to this
/// process's pollers waiting there.
pub(crate) fn offer(tx: &mut dyn Writes, setup: &Setup, list: ListKey) -> Result<(), StoreError> {
    let (domain, kind, list) = list;
    let mut eng = Engine::new(tx, domain, setup);
    eng.queued.push((kind, list));
    eng.finish()
}

/// What the engine wakes once a change is committed.
#[derive(Clone, Default)]
pub(crate) struct Wakers {
    /// Polls waiting for a task.
    pub(crate) dispatch: Arc<Dispatch<Claimed>>,
    /// The timer loop, when a new deadline may be earlier than the one it sleeps towards.
    pub(crate) timers: Arc<Alarm>,
}

/// What every engine needs from the service.
#[derive(Clone)]
pub(crate) struct Setup {
    /// Whom committed changes wake.
    pub(crate) wakers: Wakers,
    /// Open runs a domain may hold.
    pub(crate) max_open_runs: u64,
    /// Open activities, timers, children and Lambda function tasks one run may have, each.
    pub(crate) max_open_per_run: usize,
    /// Events one run may record before it is terminated.
    pub(crate) max_events_per_run: u64,
    /// How long closed runs are kept, overriding their domains' retention (for testing).
    pub(crate) retention_override: Option<Duration>,
    /// Heartbeats without details, which are not committed.
    pub(crate) heartbeats: Heartbeats,
    /// Where committed events are counted.
    pub(crate) metrics: Arc<Metrics>,
    /// Where closed runs are written before they are purged, if anywhere.
    pub(crate) archive: Option<Arc<crate::archive::Archive>>,
}

impl Setup {
    /// Whether domain `domain` holds as many open runs as it may.
    pub(crate) fn open_runs_full(&self, tx: &dyn Reads, domain: u64) -> Result<bool, StoreError> {
        tx.reaches(domain, Counter::OpenRuns, self.max_open_runs)
    }

    /// This setup, for a store other processes share: what this process alone would keep in
    /// memory is committed.
    pub(crate) fn shared(self) -> Self {
        Setup {
            heartbeats: Heartbeats::committed(),
            ..self
        }
    }

    /// The setup for `limits`, with nobody to wake yet.
    pub(crate) fn new(limits: &crate::Limits, retention_override: Option<Duration>) -> Self {
        Setup {
            wakers: Wakers::default(),
            max_open_runs: limits.max_open_runs,
            max_open_per_run: limits.max_open_per_run,
            max_events_per_run: limits.max_events_per_run,
            retention_override,
            heartbeats: Heartbeats::default(),
            metrics: Arc::default(),
            archive: None,
        }
    }
}

/// Changes to runs of one domain, inside one writer job.
pub(crate) struct Engine<'a, 't> {
    pub(crate) tx: &'a mut (dyn Writes + 't),
    /// The domain's id: runs affect only runs of their own domain.
    pub(crate) domain: u64,
    setup: &'a Setup,
    effects: VecDeque<Effect>,
    /// Task lists that got new tasks, to offer to waiting pollers.
    queued: Vec<(TaskKind, String)>,
    /// The earliest deadline set, for the timer loop.
    earliest_deadline: Option<Timestamp>,
}

impl<'a, 't> Engine<'a, 't> {
    /// An engine for changes to runs of domain `domain`.
    pub(crate) fn new(tx: &'a mut (dyn Writes + 't), domain: u64, setup: &'a Setup) -> Self {
        Engine {
            tx,
            domain,
            setup,
            effects: VecDeque::new(),
            queued: Vec::new(),
            earliest_deadline: None,
        }
    }

    /// The open run `seq` of this domain, if it is one.
    pub(crate) fn open_run(&self, seq: u64) -> Result<Option<Run>, StoreError> {
        Ok(self
            .tx
            .run(seq)?
            .filter(|run| run.is_open() && run.domain == self.domain))
    }

    /// Appends `event` to the run's history and returns its id.
    pub(crate) fn record(
        &mut self,
        run: &mut Run,
        event: impl Into<Event>,
    ) -> Result<u64, StoreError> {
        let event_id = run.next_event_id;
        run.next_event_id += 1;
        let timestamp = self.tx.now().max(run.last_event_at.unwrap_or_default());
        run.last_event_at = Some(timestamp);
        let event = HistoryEvent {
            event_id,
            timestamp,
            event: event.into(),
        };
        if event.event.is_activity_task() {
            run.latest_activity_task_at = Some(event.timestamp);
        }
        let json = serde_json::to_vec(&event).map_err(StoreError::broken)?;
        self.tx.put_event(run.seq, event_id, &json)?;
        let metrics = &self.setup.metrics;
        let seq = run.seq;
        let earlier = |id| -> Result<Option<HistoryEvent>, StoreError> {
            let Some(json) = self.tx.event(seq, id)? else {
                return Ok(None);
            };
            serde_json::from_slice(&json).map_err(StoreError::broken)
        };
        if let Some(measure) = metrics.times.measure(&earlier, run, &event)? {
            let (metrics, labels, workflow) = (
                metrics.clone(),
                metrics.domain_labels(&run.account, &run.domain_name),
                run.workflow_type.clone(),
            );
            self.tx.after_commit(Box::new(move || {
                metrics.record(&labels, &workflow, measure);
            }));
        }
        Ok(event_id)
    }

    /// Open activities, timers, children and Lambda function tasks one run may have, each.
    pub(crate) fn max_open_per_run(&self) -> usize {
        self.setup.max_open_per_run
    }

    /// Stores the run's changes. A change that brought an open run to the event limit
    /// terminates it first (spec §8.16): so events coming one at a time, the termination is
    /// the limit's last event. The caller must not assume the run is still open.
    pub(crate) fn save(&mut self, run: &mut Run) -> Result<(), StoreError> {
        if run.is_open() && run.next_event_id >= self.setup.max_events_per_run {
            let cause = Some(Cause::EventLimitExceeded);
            return terminate(self, run, None, None, None, cause);
        }
        self.tx.put_run(run)
    }

    /// A state change the decider must hear about (spec §8.2): schedules a decision task,
    /// unless one is scheduled already (it will deliver the change too). While a task is
    /// started, the next one is recorded at once and held back until the started one ends
    /// (rule 4); while a batch of decisions is applied, it is scheduled after the batch.
    pub(crate) fn trigger(&mut self, run: &mut Run) -> Result<(), StoreError> {
        // An imported run is a record: it never gets a task.
        if !run.is_open() || run.imported {
            return Ok(());
        }
        match &mut run.decision {
            DecisionTask::Idle => self.schedule_decision(run),
            DecisionTask::Scheduled { .. }
            | DecisionTask::Started { next: Some(_), .. }
            | DecisionTask::Completing { next: Some(_), .. } => Ok(()),
            DecisionTask::Completing { triggered, .. } => {
                *triggered = true;
                Ok(())
            }
            DecisionTask::Started { next: None, .. } => {
                let held = self.record_decision_scheduled(run)?;
                if let DecisionTask::Started { next, .. } = &mut run.decision {
                    *next = Some(held);
                }
                Ok(())
            }
        }
    }

    /// Schedules a decision task and queues it.
    fn schedule_decision(&mut self, run: &mut Run) -> Result<(), StoreError> {
        let next = self.record_decision_scheduled(run)?;
        self.queue_decision(run, next)
    }

    /// Records `DecisionTaskScheduled` for the run's current decision task list, with the
    /// override's schedule-to-start timeout if one is in force; else `NONE`, as AWS records
    /// it (since 2023; it left the member out before).
    fn record_decision_scheduled(&mut self, run: &mut Run) -> Result<NextDecision, StoreError> {
        let list = run.decision_task_list.clone();
        let schedule_to_start = run.decision_schedule_to_start;
        let scheduled = self.record(
            run,
            attrs::DecisionTaskScheduled {
                task_list: TaskList { name: list.clone() },
                task_priority: run.config.task_priority,
                start_to_close_timeout: Some(run.config.task_start_to_close_timeout),
                schedule_to_start_timeout: Some(schedule_to_start.unwrap_or(Timeout::None)),
            },
        )?;
        Ok(NextDecision {
            scheduled,
            list,
            schedule_to_start,
        })
    }

    /// Queues the recorded decision task `next` on the list its event names and arms its
    /// schedule-to-start timeout, if it has one.
    fn queue_decision(&mut self, run: &mut Run, next: NextDecision) -> Result<(), StoreError> {
        let priority = run.config.task_priority;
        let scheduled = next.scheduled;
        let slot = self.queue(run, TaskKind::Decision, next.list, priority, scheduled)?;
        let limit = next.schedule_to_start.and_then(Timeout::limit);
        let kind = Deadline::DecisionScheduleToStart;
        let timeout_at = self.arm(run.seq, scheduled, kind, limit)?;
        run.decision = DecisionTask::Scheduled {
            scheduled,
            slot,
            timeout_at,
        };
        Ok(())
    }

    /// Puts a task scheduled by event `scheduled` of `run` on a task list.
    fn queue(
        &mut self,
        run: &Run,
        kind: TaskKind,
        list: String,
        priority: Option<Priority>,
        scheduled: u64,
    ) -> Result<Slot, StoreError> {
        let slot = Slot {
            rank: Slot::rank(priority.map_or(0, |p| p.0)),
            order: self.tx.next_id()?,
            list,
        };
        self.tx
            .push_task(run.domain, kind, &slot, (run.seq, scheduled))?;
        self.queued.push((kind, slot.list.clone()));
        Ok(slot)
    }

    /// Sets a durable deadline for event `event_id` of run `seq`, and makes sure the timer loop
    /// sees it.
    fn set_deadline(
        &mut self,
        at: Timestamp,
        seq: u64,
        event_id: u64,
        kind: Deadline,
    ) -> Result<(), StoreError> {
        self.tx.set_deadline(at, seq, event_id, kind)?;
        self.earliest_deadline = Some(self.earliest_deadline.map_or(at, |e| e.min(at)));
        Ok(())
    }

    /// Arms a deadline `secs` seconds from now and returns when it comes; `None` (no limit)
    /// arms nothing.
    fn arm(
        &mut self,
        seq: u64,
        event_id: u64,
        kind: Deadline,
        secs: Option<u32>,
    ) -> Result<Option<Timestamp>, StoreError> {
        let Some(secs) = secs else {
            return Ok(None);
        };
        let at = self.tx.now().plus_secs(u64::from(secs));
        self.set_deadline(at, seq, event_id, kind)?;
        Ok(Some(at))
    }

    /// Disarms a deadline [`Engine::arm`] armed, if it did.
    fn disarm(
        &mut self,
        seq: u64,
        event_id: u64,
        kind: Deadline,
        at: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        if let Some(at) = at {
            self.tx.clear_deadline(at, seq, event_id, kind)?;
        }
        Ok(())
    }

    /// Queues a change to another run (or a later change to this one), applied by
    /// [`Engine::finish`] after the current run is saved.
    fn effect(&mut self, effect: Effect) {
        self.effects.push_back(effect);
    }

    /// Applies the pending effects, then hands queued tasks to waiting pollers and wakes the
    /// timer loop if needed. Every change made through the engine must be saved before this.
    pub(crate) fn finish(mut self) -> Result<(), StoreError> {
        let wakers = self.setup.wakers.clone();
        while let Some(effect) = self.effects.pop_front() {
            effects::apply(&mut self, effect)?;
        }
        let mut queued = std::mem::take(&mut self.queued);
        queued.sort();
        queued.dedup();
        for (kind, list) in queued {
            let key = (self.domain, kind, list);
            while let Some(waiter) = wakers.dispatch.take_waiter(&key) {
                let identity = waiter.identity.clone();
                match claim_for(&mut self, kind, &key.2, identity, waiter.history)? {
                    Some(claimed) => {
                        let metrics = self.setup.metrics.clone();
                        let claimed_at = Instant::now();
                        self.tx.after_commit(Box::new(move || {
                            metrics.own.handed_off(kind, claimed_at.elapsed());
                            waiter.deliver(claimed);
                        }));
                    }
                    None => {
                        wakers.dispatch.give_back(&key, waiter);
                        break;
                    }
                }
            }
        }
        if let Some(at) = self.earliest_deadline {
            let timers = wakers.timers.clone();
            self.tx.after_commit(Box::new(move || timers.deadline(at)));
        }
        Ok(())
    }
}
