//! Runs a whole workflow natively, without a server: activities, functions and children replaced
//! by closures, timers fired by skipping time, signals, cancel requests and termination at chosen
//! times.

use std::collections::BTreeMap;
use std::time::Duration;

use super::HistoryBuilder;
use super::record::is_close;
use crate::decisions::Decision;
use crate::events::{
    EventAttributes as E, HistoryEvent, WorkflowExecutionTerminatedEventAttributes,
};
use crate::types::ChildPolicy;
use crate::{Failure, History, Response};

/// What a stand-in for an activity, a function or a child workflow does with an input.
type Run = Box<dyn FnMut(Option<&str>) -> Result<Option<String>, Failure>>;

/// A stand-in, and how long it takes (`None`: answered at once).
struct StandIn {
    run: Run,
    takes: Option<f64>,
    ignores_cancel: bool,
}

/// What the outside world does to the run at a time it was given.
type Arrival = Box<dyn FnOnce(&mut HistoryBuilder)>;

/// A workflow run from start to close on a [`HistoryBuilder`], as SWF and its workers would run
/// it, in simulated time: each activity (Lambda function, child workflow) is answered at once by
/// the closure given for its type, or, for an activity given a duration
/// ([`activity_taking`](Environment::activity_taking)), that long after it was scheduled. When
/// nothing else can happen, time skips to what is due next (a signal, cancel request or
/// termination, a timer, a slow activity's end), so a 30-day timer takes no time; what is due by
/// then happens before the next decision task. Each event takes a second.
///
/// ```
/// use std::time::Duration;
/// use weft_guest::testing::Environment;
/// use weft_guest::workflow::{self, Error, Workflow};
///
/// async fn greet(wf: Workflow) -> Result<Option<String>, Error> {
///     let greeting = wf.activity("Greet", "1.0").input(wf.input().unwrap_or_default()).await?;
///     wf.sleep(Duration::from_secs(30 * 24 * 3600)).await?;
///     Ok(greeting)
/// }
///
/// let run = Environment::new("Hello", "1.0", Some("Ada"))
///     .activity("Greet", |name| Ok(Some(format!("Hello, {}!", name.unwrap_or("you")))))
///     .run(|history| workflow::run(history, greet));
/// assert_eq!(run.result(), Some("Hello, Ada!"));
/// let thirty_days = Duration::from_secs(30 * 24 * 3600);
/// assert!(run.elapsed() >= thirty_days && run.elapsed() < thirty_days * 2);
/// ```
pub struct Environment {
    history: HistoryBuilder,
    stand_ins: BTreeMap<(Kind, String), StandIn>,
    /// What the outside world does: seconds after the start, and what it records.
    arrivals: Vec<(f64, Arrival)>,
    /// Decision tasks at most, against a decider that never closes the run.
    max_tasks: usize,
}

/// What a stand-in stands in for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Activity,
    Lambda,
    Child,
}

/// What will happen at a time.
enum Due {
    Arrival(Arrival),
    Timer(String),
    /// A slow activity's end: its type's name, id and input.
    Activity(String, String, Option<String>),
}

/// How a run in an [`Environment`] ended.
#[derive(Debug)]
pub struct Finished {
    /// The decision that closed the run, or `None` if it stopped with nothing left to happen.
    pub close: Option<Decision>,
    /// Its whole history.
    pub history: Vec<HistoryEvent>,
    elapsed: f64,
}

impl Finished {
    /// The result it completed with, if it completed.
    pub fn result(&self) -> Option<&str> {
        match &self.close {
            Some(Decision::CompleteWorkflowExecution(done)) => done.result.as_deref(),
            _ => None,
        }
    }

    /// The reason and details it failed with, if it failed.
    pub fn failure(&self) -> Option<(Option<&str>, Option<&str>)> {
        match &self.close {
            Some(Decision::FailWorkflowExecution(f)) => {
                Some((f.reason.as_deref(), f.details.as_deref()))
            }
            _ => None,
        }
    }

    /// How long the run took in its history's time: the time skipped, and a second between
    /// events (as a [`HistoryBuilder`] records them).
    pub fn elapsed(&self) -> Duration {
        Duration::from_secs_f64(self.elapsed.max(0.0))
    }

    /// Whether the run was terminated ([`Environment::terminate`]).
    pub fn terminated(&self) -> bool {
        let last = self.history.last().map(|e| &e.attributes);
        matches!(last, Some(E::WorkflowExecutionTerminated(_)))
    }

    /// The events of `event_type` (`"TimerStarted"`), in order.
    pub fn events(&self, event_type: &str) -> Vec<&HistoryEvent> {
        // The attributes' `Debug` names the case: `EventAttributes::TimerStarted(..)`.
        let case = format!("EventAttributes::{event_type}(");
        let named = |e: &&HistoryEvent| format!("{:?}", e.attributes).starts_with(&case);
        self.history.iter().filter(named).collect()
    }
}

impl Environment {
    /// A run of the workflow type `name`/`version` with this input.
    pub fn new(name: &str, version: &str, input: Option<&str>) -> Self {
        Environment {
            history: HistoryBuilder::new(name, version, input),
            stand_ins: BTreeMap::new(),
            arrivals: Vec::new(),
            max_tasks: 1000,
        }
    }

    fn stand_in(
        mut self,
        kind: Kind,
        name: &str,
        takes: Option<Duration>,
        run: impl FnMut(Option<&str>) -> Result<Option<String>, Failure> + 'static,
    ) -> Self {
        let stand_in = StandIn {
            run: Box::new(run),
            takes: takes.map(|t| t.as_secs_f64()),
            ignores_cancel: false,
        };
        self.stand_ins.insert((kind, name.to_owned()), stand_in);
        self
    }

    /// Answers every activity of type `name` with `run` of its input, at once.
    pub fn activity(
        self,
        name: &str,
        run: impl FnMut(Option<&str>) -> Result<Option<String>, Failure> + 'static,
    ) -> Self {
        self.stand_in(Kind::Activity, name, None, run)
    }

    /// Answers every activity of type `name` with `run` of its input, `takes` after it was
    /// scheduled (it starts at once). Until then the workflow can cancel it
    /// (`RequestCancelActivityTask`): it then ends canceled at once, unless
    /// [`ignoring_cancel`](Environment::ignoring_cancel).
    pub fn activity_taking(
        self,
        name: &str,
        takes: Duration,
        run: impl FnMut(Option<&str>) -> Result<Option<String>, Failure> + 'static,
    ) -> Self {
        self.stand_in(Kind::Activity, name, Some(takes), run)
    }

    /// Makes the slow activity `name` complete when due even if the workflow asked to cancel
    /// it, as a worker that does not heartbeat would.
    pub fn ignoring_cancel(mut self, name: &str) -> Self {
        if let Some(stand_in) = self.stand_ins.get_mut(&(Kind::Activity, name.to_owned())) {
            stand_in.ignores_cancel = true;
        }
        self
    }

    /// Answers every call of the Lambda function `name` with `run` of its input.
    pub fn lambda(
        self,
        name: &str,
        run: impl FnMut(Option<&str>) -> Result<Option<String>, Failure> + 'static,
    ) -> Self {
        self.stand_in(Kind::Lambda, name, None, run)
    }

    /// Runs every child workflow of type `name` as `run` of its input.
    pub fn child(
        self,
        name: &str,
        run: impl FnMut(Option<&str>) -> Result<Option<String>, Failure> + 'static,
    ) -> Self {
        self.stand_in(Kind::Child, name, None, run)
    }

    fn arrive(mut self, after: Duration, record: Arrival) -> Self {
        self.arrivals.push((after.as_secs_f64(), record));
        self
    }

    /// Sends the signal `name` `after` the run started.
    pub fn signal(self, after: Duration, name: &str, input: Option<&str>) -> Self {
        let (name, input) = (name.to_owned(), input.map(str::to_owned));
        self.arrive(
            after,
            Box::new(move |h| {
                h.signal(&name, input.as_deref());
            }),
        )
    }

    /// Asks the run to cancel (`WorkflowExecutionCancelRequested`) `after` it started.
    pub fn cancel_request(self, after: Duration) -> Self {
        self.arrive(
            after,
            Box::new(|h| {
                h.cancel_requested();
            }),
        )
    }

    /// Terminates the run `after` it started (`WorkflowExecutionTerminated`): it ends there,
    /// and [`Finished::terminated`] says so.
    pub fn terminate(self, after: Duration, reason: Option<&str>) -> Self {
        let reason = reason.map(str::to_owned);
        self.arrive(
            after,
            Box::new(move |h| {
                let terminated = WorkflowExecutionTerminatedEventAttributes {
                    reason,
                    details: None,
                    child_policy: ChildPolicy::Terminate,
                    cause: None,
                };
                h.event(E::WorkflowExecutionTerminated(terminated));
            }),
        )
    }

    /// Runs the workflow with `decide` (`|h| workflow::run(h, my_workflow)`, or a history
    /// decider) until it closes, is terminated, or nothing is left to happen. Panics on a
    /// nondeterminism, on an activity, function or child without a stand-in, or after 1000
    /// decision tasks.
    pub fn run<E: std::fmt::Debug>(
        mut self,
        mut decide: impl FnMut(&History) -> Result<Response, E>,
    ) -> Finished {
        let start = self.now();
        // What will happen, in the order it was planned: of several due at once, the first
        // planned first (the outside world's in the order given, then timers and activities).
        let mut due: Vec<(String, f64, Due)> = Vec::new();
        let mut arrivals = std::mem::take(&mut self.arrivals);
        arrivals.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (n, (after, record)) in arrivals.into_iter().enumerate() {
            due.push((format!("arrival {n}"), start + after, Due::Arrival(record)));
        }
        for _ in 0..self.max_tasks {
            let decisions = self
                .history
                .decide(&mut decide)
                .unwrap_or_else(|e| panic!("the decision task failed: {e:?}"));
            let mut happened = false;
            for decision in &decisions {
                happened |= self.follow(decision, &mut due);
                if is_close(decision) {
                    return self.finished(Some(decision.clone()), start);
                }
            }
            // With nothing answered, time skips to what is due next; either way, what is due
            // by then happens before the next decision task.
            while let Some(next) = earliest(&due) {
                if happened && due[next].1 > self.now() {
                    break;
                }
                let (_, at, what) = due.remove(next);
                self.history.advance((at - self.now()).max(0.0));
                self.happen(what);
                if self.terminated() {
                    return self.finished(None, start);
                }
                happened = true;
            }
            if !happened {
                return self.finished(None, start);
            }
        }
        panic!("the run did not close in {} decision tasks", self.max_tasks)
    }

    /// Does what `decision` asks of the world: starts a timer, answers an activity, cancels
    /// one; whether something happened at once.
    fn follow(&mut self, decision: &Decision, due: &mut Vec<(String, f64, Due)>) -> bool {
        let now = self.now();
        match decision {
            Decision::StartTimer(t) => {
                let seconds = t.start_to_fire_timeout.parse().unwrap_or(0.0);
                let key = format!("timer {}", t.timer_id);
                due.push((key, now + seconds, Due::Timer(t.timer_id.clone())));
                false
            }
            Decision::CancelTimer(t) => {
                due.retain(|(key, ..)| *key != format!("timer {}", t.timer_id));
                false
            }
            Decision::RequestCancelActivityTask(a) => {
                let key = format!("activity {}", a.activity_id);
                let Some(at) = due.iter().position(|(k, ..)| *k == key) else {
                    return false;
                };
                let Due::Activity(name, ..) = &due[at].2 else {
                    return false;
                };
                if self.stand_ins[&(Kind::Activity, name.clone())].ignores_cancel {
                    return false;
                }
                due.remove(at);
                self.history.activity_canceled(&a.activity_id, None);
                true
            }
            Decision::ScheduleActivityTask(a) => {
                let key = (Kind::Activity, a.activity_type.name.clone());
                let Some(takes) = self.stand_ins.get(&key).and_then(|s| s.takes) else {
                    return self.answer(decision);
                };
                self.history.activity_started(&a.activity_id);
                let end = Due::Activity(key.1, a.activity_id.clone(), a.input.clone());
                due.push((format!("activity {}", a.activity_id), now + takes, end));
                false
            }
            _ => self.answer(decision),
        }
    }

    /// Records what became due.
    fn happen(&mut self, what: Due) {
        match what {
            Due::Arrival(record) => record(&mut self.history),
            Due::Timer(id) => drop(self.history.timer_fired(&id)),
            Due::Activity(name, id, input) => {
                let outcome = self.run_stand_in(Kind::Activity, &name, input.as_deref());
                self.record(Kind::Activity, &id, outcome);
            }
        }
    }

    /// Answers an activity, function or child `decision` starts with its stand-in, at once;
    /// whether it was one.
    fn answer(&mut self, decision: &Decision) -> bool {
        let (kind, name, id, input) = match decision {
            Decision::ScheduleActivityTask(a) => (
                Kind::Activity,
                &a.activity_type.name,
                &a.activity_id,
                &a.input,
            ),
            Decision::ScheduleLambdaFunction(a) => (Kind::Lambda, &a.name, &a.id, &a.input),
            Decision::StartChildWorkflowExecution(a) => {
                (Kind::Child, &a.workflow_type.name, &a.workflow_id, &a.input)
            }
            _ => return false,
        };
        let outcome = self.run_stand_in(kind, name, input.as_deref());
        self.record(kind, id, outcome);
        true
    }

    fn run_stand_in(
        &mut self,
        kind: Kind,
        name: &str,
        input: Option<&str>,
    ) -> Result<Option<String>, Failure> {
        let Some(stand_in) = self.stand_ins.get_mut(&(kind, name.to_owned())) else {
            panic!("no stand-in for the {kind:?} {name}: give one to the Environment")
        };
        (stand_in.run)(input)
    }

    fn record(&mut self, kind: Kind, id: &str, outcome: Result<Option<String>, Failure>) {
        let h = &mut self.history;
        match (kind, outcome) {
            (Kind::Activity, Ok(result)) => h.activity_completed(id, result.as_deref()),
            (Kind::Activity, Err(f)) => {
                h.activity_failed(id, f.reason.as_deref(), f.details.as_deref())
            }
            (Kind::Lambda, Ok(result)) => h.lambda_completed(id, result.as_deref()),
            (Kind::Lambda, Err(f)) => {
                h.lambda_failed(id, f.reason.as_deref(), f.details.as_deref())
            }
            (Kind::Child, Ok(result)) => h.child_completed(id, result.as_deref()),
            (Kind::Child, Err(f)) => h.child_failed(id, f.reason.as_deref(), f.details.as_deref()),
        };
    }

    fn now(&self) -> f64 {
        self.history
            .events()
            .last()
            .map_or(0.0, |e| e.event_timestamp)
    }

    fn terminated(&self) -> bool {
        let last = self.history.events().last().map(|e| &e.attributes);
        matches!(last, Some(E::WorkflowExecutionTerminated(_)))
    }

    fn finished(self, close: Option<Decision>, start: f64) -> Finished {
        Finished {
            close,
            elapsed: self.now() - start,
            history: self.history.events().to_vec(),
        }
    }
}

/// The index of what is due first (of several at once, the first planned).
fn earliest(due: &[(String, f64, Due)]) -> Option<usize> {
    let mut first: Option<usize> = None;
    for (n, (_, at, _)) in due.iter().enumerate() {
        if first.is_none_or(|f| *at < due[f].1) {
            first = Some(n);
        }
    }
    first
}
