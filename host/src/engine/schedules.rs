//! Schedules act (`model::schedules`): when a schedule's deadline comes (its next nominal time,
//! or a run it started closed), each nominal time since the last is acted on once, in the same
//! transaction that moves the schedule past it, so that a time starts at most one run however
//! many nodes share the store and however often they restart.

use crate::clock::Timestamp;
use crate::fault::Violations;
use crate::model::events::Cause;
use crate::model::schedules::{self, RECENT_ACTIONS};
use crate::model::{
    NoneAllowed, Overlap, Schedule, ScheduleAction, ScheduledRun, Scope, StartAction, TaskList,
    Times, TypeName, WorkflowExecution, WorkflowId,
};
use crate::store::{Counter, Deadline, StoreError, Writes};

use super::{
    Engine, NewRun, Setup, StartRequest, request_cancel, resolve_start, start_run, terminate,
};

/// Nominal times one firing acts on at most; more (after long downtime) are left to the next,
/// armed at once.
const TIMES_PER_FIRING: usize = 100;

/// Acts on schedule `seq`, whose deadline set for `at` came.
pub(crate) fn fire_schedule(
    tx: &mut dyn Writes,
    setup: &Setup,
    seq: u64,
    at: Timestamp,
) -> Result<(), StoreError> {
    let Some(mut schedule) = tx.schedule(seq)? else {
        return Ok(());
    };
    if schedule.armed == Some(at) {
        schedule.armed = None;
    }
    let mut eng = Engine::new(tx, schedule.domain, setup);
    let Ok(times) = Times::parse(&schedule.definition.spec) else {
        // Checked when it was made: a spec no longer read (a time zone gone) does nothing.
        return Ok(());
    };
    let mut acting = Acting {
        eng: &mut eng,
        schedule: &mut schedule,
        times: &times,
    };
    acting.refresh()?;
    // What waited for a run that closed starts before the times that came meanwhile.
    acting.drain()?;
    let more = acting.come_due()?;
    acting.drain()?;
    acting.arm(more)?;
    eng.tx.put_schedule(&schedule)?;
    eng.finish()
}

/// What a schedule's changes share: the engine of its domain, the schedule and its times.
pub(crate) struct Acting<'s, 'e, 'a, 't> {
    pub(crate) eng: &'e mut Engine<'a, 't>,
    pub(crate) schedule: &'s mut Schedule,
    pub(crate) times: &'s Times,
}

impl Acting<'_, '_, '_, '_> {
    /// Forgets the runs it started that have closed; a run continued as new counts as the one
    /// it continues.
    pub(crate) fn refresh(&mut self) -> Result<(), StoreError> {
        let running = std::mem::take(&mut self.schedule.state.running);
        for open in running {
            let id = WorkflowId::from(open.workflow_id);
            if let Some(run) = self.eng.tx.open_run(self.schedule.domain, &id)? {
                self.schedule.state.running.push(scheduled(&run.execution));
            }
        }
        Ok(())
    }

    /// Acts on the nominal times whose start has come; whether more are left than one firing
    /// takes.
    fn come_due(&mut self) -> Result<bool, StoreError> {
        let now = self.eng.tx.now();
        if self.schedule.state.paused || spent(self.schedule) {
            // Its times pass unacted on, and are not caught up.
            self.schedule.cursor = self.schedule.cursor.max(now);
            return Ok(false);
        }
        let window = self
            .schedule
            .definition
            .catchup_window
            .unwrap_or(schedules::DEFAULT_CATCHUP_SECS);
        for _ in 0..TIMES_PER_FIRING {
            let Some(nominal) = self.times.next_after(self.schedule.cursor) else {
                return Ok(false);
            };
            let actual = self.times.actual(&self.schedule.id, nominal);
            if actual > now {
                return Ok(false);
            }
            self.schedule.cursor = nominal;
            if actual.plus_secs(window) < now {
                self.schedule.state.missed += 1;
                continue;
            }
            self.take(nominal)?;
        }
        Ok(true)
    }

    /// Acts on nominal time `nominal` as the overlap policy says.
    pub(crate) fn take(&mut self, nominal: Timestamp) -> Result<(), StoreError> {
        let state = &mut self.schedule.state;
        if state.running.is_empty() && state.buffered.is_empty() {
            return self.start(nominal);
        }
        match self.schedule.definition.overlap {
            Overlap::AllowAll => return self.start(nominal),
            Overlap::Skip => state.skipped += 1,
            Overlap::BufferOne if state.buffered.is_empty() => state.buffered.push_back(nominal),
            Overlap::BufferOne => state.skipped += 1,
            Overlap::BufferAll if state.buffered.len() < schedules::MAX_BUFFERED => {
                state.buffered.push_back(nominal)
            }
            Overlap::BufferAll => state.skipped += 1,
            Overlap::CancelOther => {
                state.skipped += state.buffered.len() as u64;
                state.buffered = [nominal].into();
                self.cancel_running()?;
            }
            Overlap::TerminateOther => {
                self.terminate_running()?;
                self.schedule.state.buffered.clear();
                return self.start(nominal);
            }
        }
        Ok(())
    }

    /// Starts what waits, while no run it started is open (all of it, under `allowAll`);
    /// nothing while it is paused.
    pub(crate) fn drain(&mut self) -> Result<(), StoreError> {
        let allow_all = self.schedule.definition.overlap == Overlap::AllowAll;
        loop {
            let state = &mut self.schedule.state;
            if state.paused || !(allow_all || state.running.is_empty()) {
                break;
            }
            let Some(nominal) = state.buffered.pop_front() else {
                break;
            };
            self.start(nominal)?;
        }
        Ok(())
    }

    /// Sets the schedule's deadline for its next nominal time (at once if `now`), or none while
    /// it is paused or its runs are spent.
    pub(crate) fn arm(&mut self, now: bool) -> Result<(), StoreError> {
        let (schedule, times) = (&*self.schedule, self.times);
        let next = if now {
            Some(self.eng.tx.now())
        } else if schedule.state.paused || spent(schedule) {
            None
        } else {
            times
                .next_after(schedule.cursor)
                .map(|nominal| times.actual(&schedule.id, nominal))
        };
        if next == self.schedule.armed {
            return Ok(());
        }
        let seq = self.schedule.seq;
        if let Some(old) = self.schedule.armed.take() {
            self.eng
                .tx
                .clear_deadline(old, seq, 0, Deadline::Schedule)?;
        }
        if let Some(at) = next {
            self.eng.set_deadline(at, seq, 0, Deadline::Schedule)?;
            self.schedule.armed = Some(at);
        }
        Ok(())
    }

    /// Starts the run of nominal time `nominal`, or records why it could not start. Nothing
    /// once the schedule's limit of runs is spent.
    fn start(&mut self, nominal: Timestamp) -> Result<(), StoreError> {
        if spent(self.schedule) {
            return Ok(());
        }
        let workflow_id = schedules::workflow_id(&self.schedule.id, nominal);
        let outcome = self.try_start(&workflow_id)?;
        let state = &mut self.schedule.state;
        let (run_id, error) = match outcome {
            Ok(execution) => {
                state.actions += 1;
                let run = scheduled(&execution);
                let run_id = run.run_id.clone();
                state.running.push(run);
                (Some(run_id), None)
            }
            Err(error) => (None, Some(error)),
        };
        state.recent.push_back(ScheduleAction {
            nominal_time: nominal,
            actual_time: self.eng.tx.now(),
            workflow_id,
            run_id,
            error,
        });
        while state.recent.len() > RECENT_ACTIONS {
            state.recent.pop_front();
        }
        Ok(())
    }

    /// Starts a run of the schedule's action as `workflow_id`; its execution, or why not.
    fn try_start(
        &mut self,
        workflow_id: &str,
    ) -> Result<Result<WorkflowExecution, String>, StoreError> {
        let schedule = &*self.schedule;
        let action = &schedule.definition.action;
        let scope = Scope {
            account: schedule.account.clone(),
            region: schedule.region.clone(),
        };
        let Some(domain) = self.eng.tx.domain(&scope, &schedule.domain_name)? else {
            return Ok(Err("its domain is gone".into()));
        };
        let request = match start_request(action) {
            Ok(request) => request,
            Err(problem) => return Ok(Err(problem)),
        };
        let workflow_type = action_type(action);
        let config = match resolve_start(&*self.eng.tx, &domain, &workflow_type, request)? {
            Ok(config) => config,
            Err(e) => return Ok(Err(e.fault(&workflow_type).to_string())),
        };
        let workflow_id = WorkflowId::from(workflow_id.to_owned());
        if self.eng.tx.open_run(domain.id, &workflow_id)?.is_some() {
            return Ok(Err(format!("a run of {workflow_id} is open")));
        }
        let limit = schedule.max_open_runs.min(self.eng.setup.max_open_runs);
        if self.eng.tx.reaches(domain.id, Counter::OpenRuns, limit)? {
            return Ok(Err("the domain's open runs are at their limit".into()));
        }
        let new = NewRun {
            account: schedule.account.clone(),
            domain_name: domain.name.clone(),
            retention_days: domain.retention_days(),
            workflow_id,
            workflow_type,
            config,
            input: action.input.clone(),
            tags: action.tag_list.clone(),
            parent: None,
            continued_from: None,
            not_before: None,
            pin: None,
            schedule: Some(schedule.seq),
        };
        Ok(Ok(start_run(self.eng, new, None)?.execution))
    }

    /// Asks the open runs it started to cancel (once each).
    fn cancel_running(&mut self) -> Result<(), StoreError> {
        for open in self.schedule.state.running.clone() {
            let id = WorkflowId::from(open.workflow_id);
            if let Some(mut run) = self.eng.tx.open_run(self.schedule.domain, &id)?
                && !run.cancel_requested
            {
                request_cancel(self.eng, &mut run, None, None)?;
            }
        }
        Ok(())
    }

    /// Terminates the open runs it started.
    fn terminate_running(&mut self) -> Result<(), StoreError> {
        let reason = format!("schedule {} started the next run", self.schedule.id);
        for open in std::mem::take(&mut self.schedule.state.running) {
            let id = WorkflowId::from(open.workflow_id);
            if let Some(mut run) = self.eng.tx.open_run(self.schedule.domain, &id)? {
                let cause = Some(Cause::OperatorInitiated);
                terminate(self.eng, &mut run, Some(reason.clone()), None, None, cause)?;
            }
        }
        Ok(())
    }
}

fn scheduled(execution: &WorkflowExecution) -> ScheduledRun {
    ScheduledRun {
        workflow_id: execution.workflow_id.as_str().to_owned(),
        run_id: execution.run_id.as_str().to_owned(),
    }
}

/// Whether the schedule has started as many runs as its limit allows.
pub(crate) fn spent(schedule: &Schedule) -> bool {
    schedule
        .definition
        .limit
        .is_some_and(|limit| schedule.state.actions >= limit)
}

/// The workflow type `action` starts.
pub(crate) fn action_type(action: &StartAction) -> TypeName {
    TypeName {
        name: action.workflow_type.name.clone(),
        version: action.workflow_type.version.clone(),
    }
}

/// The start request of `action`, or what is wrong with it (as StartWorkflowExecution would
/// say).
pub(crate) fn start_request(action: &StartAction) -> Result<StartRequest, String> {
    let mut v = Violations::default();
    if let Some(list) = &action.task_list {
        v.name("action.taskList", list);
    }
    let child_policy = match &action.child_policy {
        None => None,
        Some(policy) => match serde_json::from_value(serde_json::json!(policy)) {
            Ok(policy) => Some(policy),
            Err(_) => {
                let allowed =
                    "Member must satisfy enum value set: [TERMINATE, REQUEST_CANCEL, ABANDON]";
                v.add("action.childPolicy", Some(policy.as_str()), allowed);
                None
            }
        },
    };
    use crate::model::decisions::given;
    let request = StartRequest {
        task_list: action.task_list.clone().map(|name| TaskList { name }),
        task_priority: v.priority("action.taskPriority", action.task_priority.as_deref()),
        execution_start_to_close_timeout: v.duration(
            "action.executionStartToCloseTimeout",
            given(&action.execution_start_to_close_timeout),
            NoneAllowed::No,
        ),
        task_start_to_close_timeout: v.duration(
            "action.taskStartToCloseTimeout",
            given(&action.task_start_to_close_timeout),
            NoneAllowed::Yes,
        ),
        child_policy,
        lambda_role: action.lambda_role.clone(),
    };
    v.finish().map_err(|fault| fault.to_string())?;
    Ok(request)
}
