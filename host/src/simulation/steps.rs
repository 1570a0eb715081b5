//! The workload: each step one client's call (or the clock moving, or a restart), chosen by the
//! seed; what each was told goes to the ledger and to the trace.

use serde_json::{Value, json};

use crate::engine::{FunctionClaim, LambdaOutcome};
use crate::fault::Fault;
use crate::model::{NamedPoint, ResetPoint, ResetRequest};
use crate::ops::{functions, resets};

use super::Sim;
use super::decider::{self, ACTIVITY, FUNCTION, IDS, WORKFLOW};
use super::world::{Outcome, World};

/// A task a poll handed out and nobody has answered yet.
pub(super) struct Held {
    pub(super) run_id: String,
    pub(super) started: u64,
    pub(super) task: Task,
}

/// What kind of task, and what answering it needs.
pub(super) enum Task {
    Decision { token: String, events: Vec<Value> },
    Activity { token: String },
    Lambda(FunctionClaim),
}

/// The steps, each with its weight.
const STEPS: [(Step, u64); 17] = [
    (Step::Start, 10),
    (Step::Signal, 6),
    (Step::RequestCancel, 3),
    (Step::Terminate, 3),
    (Step::PollDecision, 20),
    (Step::PollActivity, 12),
    (Step::PollLambda, 4),
    (Step::AnswerDecision, 24),
    (Step::AnswerActivity, 12),
    (Step::AnswerLambda, 4),
    (Step::Vanish, 2),
    (Step::Wait, 6),
    (Step::WaitLong, 2),
    (Step::WaitDays, 1),
    (Step::Restart, 1),
    (Step::Reset, 1),
    (Step::Read, 3),
];

#[derive(Clone, Copy, Debug)]
enum Step {
    Start,
    Signal,
    RequestCancel,
    Terminate,
    PollDecision,
    PollActivity,
    PollLambda,
    AnswerDecision,
    AnswerActivity,
    AnswerLambda,
    Vanish,
    Wait,
    WaitLong,
    WaitDays,
    Restart,
    Reset,
    Read,
}

impl Sim {
    /// Takes one step of the workload.
    pub(super) async fn step(&mut self) -> Result<(), String> {
        let weights: Vec<u64> = STEPS.iter().map(|(_, w)| *w).collect();
        match STEPS[self.rng.weighted(&weights)].0 {
            Step::Start => self.start().await,
            Step::Signal => self.signal().await,
            Step::RequestCancel => self.on_run("RequestCancelWorkflowExecution").await,
            Step::Terminate => self.on_run("TerminateWorkflowExecution").await,
            Step::PollDecision => self.poll("PollForDecisionTask", "dl").await?,
            Step::PollActivity => self.poll("PollForActivityTask", "al").await?,
            Step::PollLambda => self.poll_lambda().await?,
            Step::AnswerDecision => self.answer_decision().await,
            Step::AnswerActivity => self.answer_activity().await,
            Step::AnswerLambda => self.answer_lambda().await,
            Step::Vanish => {
                if !self.held.is_empty() {
                    let gone = self
                        .held
                        .remove(self.rng.range(0, self.held.len() as u64 - 1) as usize);
                    let run = self.trace.run(&gone.run_id);
                    self.trace
                        .note(format!("a poller vanishes with {run}@{}", gone.started));
                }
            }
            Step::Wait => self.wait(1, 10, 1000),
            Step::WaitLong => self.wait(10, 200, 1000),
            Step::WaitDays => self.wait(24, 72, 3600 * 1000),
            Step::Restart => {
                self.world.restart();
                self.trace.note("restart".into());
                self.memory.check_ledger(&self.ledger)?;
            }
            Step::Reset => self.reset().await?,
            Step::Read => self.read().await,
        }
        Ok(())
    }

    /// Moves the clock on by `low..=high` times `unit` milliseconds.
    fn wait(&mut self, low: u64, high: u64, unit: u64) {
        let millis = self.rng.range(low, high) * unit;
        self.world.clock.advance(millis as i64);
        self.trace.note(format!("{millis} ms pass"));
    }

    /// Notes what a call came to; an internal failure is a failure of the simulation.
    fn outcome(&mut self, what: String, outcome: &Outcome) -> Result<(), String> {
        match outcome {
            Ok(_) => self.trace.note(format!("{what}: ok")),
            Err(fault @ Fault::Internal(_)) => return Err(format!("{what}: {fault}")),
            Err(fault) => self.trace.note(format!("{what}: {}", fault.code())),
        }
        Ok(())
    }

    async fn start(&mut self) {
        let workflow_id = *self.rng.pick(&IDS).expect("ids");
        let mut input = json!({
            "domain": "d", "workflowId": workflow_id,
            "workflowType": {"name": WORKFLOW.0, "version": WORKFLOW.1},
            "executionStartToCloseTimeout": self.rng.range(60, 3600).to_string(),
            "taskStartToCloseTimeout": decider::timeout(&mut self.rng, 5, 60),
        });
        if self.rng.chance(20) {
            input["childPolicy"] = json!("REQUEST_CANCEL");
            input["tagList"] = json!(["sim"]);
        }
        let outcome = self.world.call("StartWorkflowExecution", &input).await;
        if let Ok(started) = &outcome {
            let run_id = started["runId"].as_str().unwrap_or_default().to_owned();
            let run = self.trace.run(&run_id);
            self.trace.note(format!("start {workflow_id}: {run}"));
            self.ledger.starts.push((workflow_id.into(), run_id));
        } else {
            let _ = self.outcome(format!("start {workflow_id}"), &outcome);
        }
    }

    async fn signal(&mut self) {
        let workflow_id = *self.rng.pick(&IDS).expect("ids");
        let signal = format!("signal-{}", self.trace.len());
        let input = json!({"domain": "d", "workflowId": workflow_id, "signalName": "s",
                           "input": signal});
        let outcome = self.world.call("SignalWorkflowExecution", &input).await;
        if outcome.is_ok() {
            self.ledger.signals.push((workflow_id.into(), signal));
        }
        let _ = self.outcome(format!("signal {workflow_id}"), &outcome);
    }

    /// Cancels or terminates (`operation`) a run a client started, or now and then any run
    /// stored (a child, a run continued).
    async fn on_run(&mut self, operation: &str) {
        let stored: Vec<(String, String)> = match self.rng.chance(50) {
            true => self
                .memory
                .runs
                .values()
                .map(|r| (r.workflow_id.clone(), r.run_id.clone()))
                .collect(),
            false => self.ledger.starts.clone(),
        };
        let Some((workflow_id, run_id)) = self.rng.pick(&stored).cloned() else {
            return;
        };
        let input = json!({"domain": "d", "workflowId": workflow_id, "runId": run_id,
                           "reason": "sim"});
        let outcome = self.world.call(operation, &input).await;
        if outcome.is_ok() {
            match operation {
                "TerminateWorkflowExecution" => self.ledger.terminations.push(run_id.clone()),
                _ => self.ledger.cancels.push(run_id.clone()),
            }
        }
        let run = self.trace.run(&run_id);
        let _ = self.outcome(format!("{operation} {run}"), &outcome);
    }

    /// Polls list `list` with `operation`; a task handed out is held.
    async fn poll(&mut self, operation: &str, list: &str) -> Result<(), String> {
        let input = json!({"domain": "d", "taskList": {"name": list}, "identity": "sim"});
        let outcome = self.world.call(operation, &input).await;
        let task = match outcome {
            Ok(task) if task["taskToken"].is_string() => task,
            outcome => return self.outcome(format!("{operation} (nothing)"), &outcome),
        };
        let run_id = task["workflowExecution"]["runId"]
            .as_str()
            .unwrap_or_default();
        let started = task["startedEventId"].as_u64().unwrap_or_default();
        self.handed(run_id, started)?;
        let token = task["taskToken"].as_str().unwrap_or_default().to_owned();
        let task = match operation {
            "PollForDecisionTask" => {
                let events = task["events"].as_array().cloned().unwrap_or_default();
                Task::Decision { token, events }
            }
            _ => Task::Activity { token },
        };
        self.held.push(Held {
            run_id: run_id.to_owned(),
            started,
            task,
        });
        Ok(())
    }

    /// Notes the task of `run_id` started by event `started` as handed out: no task is handed
    /// out twice.
    fn handed(&mut self, run_id: &str, started: u64) -> Result<(), String> {
        let run = self.trace.run(run_id);
        self.trace.note(format!("handed out {run}@{started}"));
        match self.ledger.handed.insert((run_id.to_owned(), started)) {
            true => Ok(()),
            false => Err(format!("the task {run}@{started} was handed out twice")),
        }
    }

    async fn poll_lambda(&mut self) -> Result<(), String> {
        for _ in 0..50 {
            let (svc, ctx) = (self.world.svc().clone(), self.world.ctx().clone());
            match functions::poll(&svc, &ctx, "d".into(), FUNCTION.into()).await {
                Ok(Some(claim)) => {
                    let run_id = claim.execution.run_id.to_string();
                    self.handed(&run_id, claim.task.started)?;
                    let started = claim.task.started;
                    let task = Task::Lambda(claim);
                    self.held.push(Held {
                        run_id,
                        started,
                        task,
                    });
                    return Ok(());
                }
                Ok(None) => {
                    self.trace.note("function poll (nothing)".into());
                    return Ok(());
                }
                Err(Fault::Unavailable(_)) => self.world.retries += 1,
                Err(fault) => return self.outcome("function poll".into(), &Err(fault)),
            }
        }
        Ok(())
    }

    /// Takes a held task of the kind `pick` accepts.
    fn take_held(&mut self, pick: fn(&Task) -> bool) -> Option<Held> {
        let of_kind: Vec<usize> = (0..self.held.len())
            .filter(|&i| pick(&self.held[i].task))
            .collect();
        let &at = self.rng.pick(&of_kind)?;
        Some(self.held.remove(at))
    }

    async fn answer_decision(&mut self) {
        let Some(held) = self.take_held(|t| matches!(t, Task::Decision { .. })) else {
            return;
        };
        let Task::Decision { token, events } = &held.task else {
            unreachable!("a decision task")
        };
        let decisions = decider::decide(&mut self.rng, held.started, events);
        let kinds: Vec<&str> = decisions
            .iter()
            .filter_map(|d| d["decisionType"].as_str())
            .collect();
        let what = format!(
            "decide {}@{} {kinds:?}",
            self.trace.run(&held.run_id),
            held.started
        );
        let input = json!({"taskToken": token, "decisions": decisions});
        let outcome = self
            .world
            .call("RespondDecisionTaskCompleted", &input)
            .await;
        if outcome.is_ok() {
            let answer = (held.run_id.clone(), held.started, "DecisionTaskCompleted");
            self.ledger.answers.push(answer);
        }
        let _ = self.outcome(what, &outcome);
    }

    async fn answer_activity(&mut self) {
        let Some(held) = self.take_held(|t| matches!(t, Task::Activity { .. })) else {
            return;
        };
        let Task::Activity { token } = &held.task else {
            unreachable!("an activity task")
        };
        let (operation, event, input) = match self.rng.weighted(&[50, 20, 20, 10]) {
            0 => (
                "RespondActivityTaskCompleted",
                "ActivityTaskCompleted",
                json!({"taskToken": token, "result": "r"}),
            ),
            1 => (
                "RespondActivityTaskFailed",
                "ActivityTaskFailed",
                json!({"taskToken": token, "reason": "sim"}),
            ),
            2 => (
                "RecordActivityTaskHeartbeat",
                "",
                json!({"taskToken": token, "details": "beat"}),
            ),
            _ => (
                "RespondActivityTaskCanceled",
                "ActivityTaskCanceled",
                json!({"taskToken": token}),
            ),
        };
        let outcome = self.world.call(operation, &input).await;
        let what = format!(
            "{operation} {}@{}",
            self.trace.run(&held.run_id),
            held.started
        );
        if outcome.is_ok() && !event.is_empty() {
            self.ledger
                .answers
                .push((held.run_id.clone(), held.started, event));
        }
        let _ = self.outcome(what, &outcome);
        // A heartbeat keeps the task; so does one whose answer failed for a fault the worker
        // may not understand, until it vanishes.
        if event.is_empty() && outcome.is_ok() {
            self.held.push(held);
        }
    }

    async fn answer_lambda(&mut self) {
        let Some(held) = self.take_held(|t| matches!(t, Task::Lambda(_))) else {
            return;
        };
        let Task::Lambda(claim) = &held.task else {
            unreachable!("a Lambda function task")
        };
        let (outcome, event) = match self.rng.chance(70) {
            true => (
                LambdaOutcome::Completed {
                    result: Some("r".into()),
                },
                "LambdaFunctionCompleted",
            ),
            false => (
                LambdaOutcome::Failed {
                    reason: Some("sim".into()),
                    details: None,
                },
                "LambdaFunctionFailed",
            ),
        };
        let what = format!(
            "close function {}@{}",
            self.trace.run(&held.run_id),
            held.started
        );
        let mut answer = Err(Fault::Unavailable(String::new()));
        for _ in 0..50 {
            let (svc, ctx) = (self.world.svc().clone(), self.world.ctx().clone());
            answer = functions::close(&svc, &ctx, claim.task, outcome.clone())
                .await
                .map(|()| Value::Null);
            match answer {
                Err(Fault::Unavailable(_)) => self.world.retries += 1,
                _ => break,
            }
        }
        if answer.is_ok() {
            self.ledger
                .answers
                .push((held.run_id.clone(), held.started, event));
        }
        let _ = self.outcome(what, &answer);
    }

    /// Resets a workflow id's latest run to its first or last good decision task.
    async fn reset(&mut self) -> Result<(), String> {
        let workflow_id = *self.rng.pick(&IDS).expect("ids");
        let to = match self.rng.chance(50) {
            true => NamedPoint::First,
            false => NamedPoint::LastGood,
        };
        let request = ResetRequest {
            run_id: None,
            to: ResetPoint::Named(to),
            reason: Some("sim".into()),
            force: true,
            reapply_signals: self.rng.chance(70),
        };
        let mut outcome = Err(Fault::Unavailable(String::new()));
        for _ in 0..50 {
            let (svc, ctx) = (self.world.svc().clone(), self.world.ctx().clone());
            outcome = resets::reset(
                &svc,
                &ctx,
                "d".into(),
                workflow_id.to_owned().into(),
                request.clone(),
            )
            .await;
            match outcome {
                Err(Fault::Unavailable(_)) => self.world.retries += 1,
                _ => break,
            }
        }
        let outcome = outcome.map(|report| {
            let new = self.trace.run(&report.run_id);
            self.trace
                .note(format!("reset {workflow_id} to {to:?}: {new}"));
            self.ledger.starts.push((workflow_id.into(), report.run_id));
            Value::Null
        });
        self.outcome(format!("reset {workflow_id}"), &outcome)
    }

    /// Reads as a console does: a run's description and history.
    async fn read(&mut self) {
        let Some((workflow_id, run_id)) = self.rng.pick(&self.ledger.starts).cloned() else {
            return;
        };
        let execution = json!({"workflowId": workflow_id, "runId": run_id});
        let input = json!({"domain": "d", "execution": execution});
        let outcome = self.world.call("DescribeWorkflowExecution", &input).await;
        let run = self.trace.run(&run_id);
        let _ = self.outcome(format!("describe {run}"), &outcome);
        let outcome = self.world.call("GetWorkflowExecutionHistory", &input).await;
        let _ = self.outcome(format!("history {run}"), &outcome);
    }
}

/// The domain and the types every step needs, and the function the domain binds.
pub(super) async fn set_up(world: &mut World) -> Result<u64, String> {
    let domain = json!({"name": "d", "workflowExecutionRetentionPeriodInDays": "1"});
    let workflow = json!({
        "domain": "d", "name": WORKFLOW.0, "version": WORKFLOW.1,
        "defaultTaskList": {"name": "dl"}, "defaultChildPolicy": "TERMINATE",
        "defaultTaskStartToCloseTimeout": "30", "defaultExecutionStartToCloseTimeout": "3600",
    });
    let activity = json!({
        "domain": "d", "name": ACTIVITY.0, "version": ACTIVITY.1,
        "defaultTaskList": {"name": "al"}, "defaultTaskScheduleToStartTimeout": "NONE",
        "defaultTaskStartToCloseTimeout": "30", "defaultTaskScheduleToCloseTimeout": "NONE",
        "defaultTaskHeartbeatTimeout": "NONE",
    });
    for (operation, input) in [
        ("RegisterDomain", domain),
        ("RegisterWorkflowType", workflow),
        ("RegisterActivityType", activity),
    ] {
        match world.call(operation, &input).await {
            // After a lost answer, the retry finds it made.
            Ok(_) | Err(Fault::DomainAlreadyExists(_) | Fault::TypeAlreadyExists(_)) => {}
            Err(fault) => return Err(format!("{operation}: {fault}")),
        }
    }
    super::world::bind_function(world, FUNCTION).await
}
