//! [`Engine`]: one batch job's changes to runs of one domain, and what every change needs
//! (recording events, scheduling and queuing tasks, deadlines, effects on other runs), applied
//! by [`Engine::finish`] with the hand-off to waiting pollers.

use std::collections::VecDeque;
use std::time::Instant;

use crate::clock::Timestamp;
use crate::model::events::{Cause, Event, HistoryEvent, attrs};
use crate::model::{
    DecisionTask, NextDecision, Priority, Run, Slot, TaskKind, TaskList, Timeout, keyed_queue,
    queue_key,
};
use crate::store::{Deadline, StoreError, Writes};

use super::dispatch::ListKey;
use super::effects::{self, Effect};
use super::setup::Setup;
use super::{claim_for, terminate};

/// Hands tasks queued on the list `(domain, kind, list)`, as another process may have, to this
/// process's pollers waiting there.
pub(crate) fn offer(tx: &mut dyn Writes, setup: &Setup, list: ListKey) -> Result<(), StoreError> {
    let (domain, kind, list) = list;
    let mut eng = Engine::new(tx, domain, setup);
    eng.queued.push((kind, list));
    eng.finish()
}

/// Changes to runs of one domain, inside one writer job.
pub(crate) struct Engine<'a, 't> {
    pub(crate) tx: &'a mut (dyn Writes + 't),
    /// The domain's id: runs affect only runs of their own domain.
    pub(crate) domain: u64,
    pub(super) setup: &'a Setup,
    pub(super) effects: VecDeque<Effect>,
    /// Task lists that got new tasks, to offer to waiting pollers.
    pub(super) queued: Vec<(TaskKind, String)>,
    /// The earliest deadline set, for the timer loop.
    pub(super) earliest_deadline: Option<Timestamp>,
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
        self.started_may_end(event.event.ends_tasks())?;
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

    /// A started task of one of `kinds` may end with this change: the lists of those kinds
    /// with a concurrency cap are offered to their waiting polls, here and at every node.
    fn started_may_end(&mut self, kinds: &[TaskKind]) -> Result<(), StoreError> {
        for &kind in kinds {
            for list in self.setup.controls.capped(self.domain, kind) {
                self.tx.announce(&(self.domain, kind, list.clone()))?;
                self.queued.push((kind, list));
            }
        }
        Ok(())
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
    pub(super) fn schedule_decision(&mut self, run: &mut Run) -> Result<(), StoreError> {
        let next = self.record_decision_scheduled(run)?;
        self.queue_decision(run, next)
    }

    /// Records `DecisionTaskScheduled` for the run's current decision task list, with the
    /// override's schedule-to-start timeout if one is in force; else `NONE`, as AWS records
    /// it (since 2023; it left the member out before).
    pub(super) fn record_decision_scheduled(
        &mut self,
        run: &mut Run,
    ) -> Result<NextDecision, StoreError> {
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
    pub(super) fn queue_decision(
        &mut self,
        run: &mut Run,
        next: NextDecision,
    ) -> Result<(), StoreError> {
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

    /// Puts a task scheduled by event `scheduled` of `run` on a task list (or, while the run
    /// is paused, holds it in the place it gets there).
    pub(super) fn queue(
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
            list: self.queue_of(run, kind, list)?,
        };
        // A paused run's task keeps its place but waits off the list until the run resumes.
        if run.paused.is_none() {
            self.push(kind, &slot, (run.seq, scheduled))?;
        }
        Ok(slot)
    }

    /// The queue of `list` where a task of `run` waits: its key's, if the list has fairness
    /// keys (`model::task_lists`), read locked so that a claim that finds no keyed task left
    /// once the keys are removed sees every task queued under one.
    fn queue_of(&mut self, run: &Run, kind: TaskKind, list: String) -> Result<String, StoreError> {
        if !(self.setup.controls).has_fairness(self.domain, kind, &list) {
            return Ok(list);
        }
        let key = (self.domain, kind, list);
        let fairness = self.tx.list_control(&key)?.and_then(|c| c.fairness);
        Ok(match fairness {
            Some(fairness) => keyed_queue(&key.2, fairness.key_of(&run.tags)),
            None => key.2,
        })
    }

    /// Puts task `(run, scheduled)` of `kind` in `slot` of its queue, and has the list offered
    /// to its waiting polls.
    pub(super) fn push(
        &mut self,
        kind: TaskKind,
        slot: &Slot,
        task: (u64, u64),
    ) -> Result<(), StoreError> {
        self.tx.push_task(self.domain, kind, slot, task)?;
        let (list, _) = queue_key(&slot.list);
        self.queued.push((kind, list.to_owned()));
        Ok(())
    }

    /// Sets a durable deadline for event `event_id` of run `seq`, and makes sure the timer loop
    /// sees it.
    pub(super) fn set_deadline(
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
    pub(super) fn arm(
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
    pub(super) fn disarm(
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
    pub(super) fn effect(&mut self, effect: Effect) {
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
