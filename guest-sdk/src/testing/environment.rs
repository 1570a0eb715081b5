//! Runs a whole workflow natively, without a server: activities, functions and children replaced
//! by closures, timers fired by skipping time, signals delivered at chosen times.

use std::collections::BTreeMap;
use std::time::Duration;

use super::HistoryBuilder;
use super::record::is_close;
use crate::decisions::Decision;
use crate::events::HistoryEvent;
use crate::{Failure, History, Response};

/// What a stand-in for an activity, a function or a child workflow does with an input.
type StandIn = Box<dyn FnMut(Option<&str>) -> Result<Option<String>, Failure>>;

/// A workflow run from start to close on a [`HistoryBuilder`], as SWF and its workers would run
/// it, in no real time: each activity (Lambda function, child workflow) is answered at once by
/// the closure given for its type; when nothing else can happen, time skips to the next timer
/// or signal. A 30-day timer takes no time.
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
    /// Signals to deliver: seconds after the start, name, input.
    signals: Vec<(f64, String, Option<String>)>,
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
            signals: Vec::new(),
            max_tasks: 1000,
        }
    }

    fn stand_in(
        mut self,
        kind: Kind,
        name: &str,
        run: impl FnMut(Option<&str>) -> Result<Option<String>, Failure> + 'static,
    ) -> Self {
        self.stand_ins
            .insert((kind, name.to_owned()), Box::new(run));
        self
    }

    /// Answers every activity of type `name` with `run` of its input.
    pub fn activity(
        self,
        name: &str,
        run: impl FnMut(Option<&str>) -> Result<Option<String>, Failure> + 'static,
    ) -> Self {
        self.stand_in(Kind::Activity, name, run)
    }

    /// Answers every call of the Lambda function `name` with `run` of its input.
    pub fn lambda(
        self,
        name: &str,
        run: impl FnMut(Option<&str>) -> Result<Option<String>, Failure> + 'static,
    ) -> Self {
        self.stand_in(Kind::Lambda, name, run)
    }

    /// Runs every child workflow of type `name` as `run` of its input.
    pub fn child(
        self,
        name: &str,
        run: impl FnMut(Option<&str>) -> Result<Option<String>, Failure> + 'static,
    ) -> Self {
        self.stand_in(Kind::Child, name, run)
    }

    /// Sends the signal `name` `after` the run started (once the run gets there).
    pub fn signal(mut self, after: Duration, name: &str, input: Option<&str>) -> Self {
        let input = input.map(str::to_owned);
        self.signals
            .push((after.as_secs_f64(), name.to_owned(), input));
        self
    }

    /// Runs the workflow with `decide` (`|h| workflow::run(h, my_workflow)`, or a history
    /// decider) until it closes or nothing is left to happen. Panics on a nondeterminism, on an
    /// activity, function or child without a stand-in, or after 1000 decision tasks.
    pub fn run<E: std::fmt::Debug>(
        mut self,
        mut decide: impl FnMut(&History) -> Result<Response, E>,
    ) -> Finished {
        let start = self.history.events()[0].event_timestamp;
        self.signals.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut timers: BTreeMap<String, f64> = BTreeMap::new();
        for _ in 0..self.max_tasks {
            let decisions = self
                .history
                .decide(&mut decide)
                .unwrap_or_else(|e| panic!("the decision task failed: {e:?}"));
            let now = self.now();
            let mut answered = false;
            for decision in &decisions {
                match decision {
                    Decision::StartTimer(t) => {
                        let seconds = t.start_to_fire_timeout.parse().unwrap_or(0.0);
                        timers.insert(t.timer_id.clone(), now + seconds);
                    }
                    Decision::CancelTimer(t) => {
                        timers.remove(&t.timer_id);
                    }
                    _ => answered |= self.answer(decision),
                }
                if is_close(decision) {
                    return self.finished(Some(decision.clone()), start);
                }
            }
            if answered {
                continue;
            }
            // Nothing answered: skip to whatever comes next, a signal before a timer.
            let next_timer = timers.iter().min_by(|a, b| a.1.total_cmp(b.1));
            let next_timer = next_timer.map(|(id, at)| (id.clone(), *at));
            let next_signal = self.signals.first().map(|(after, ..)| start + after);
            let signal_first = match (next_signal, &next_timer) {
                (Some(signal), Some((_, timer))) => signal <= *timer,
                (signal, _) => signal.is_some(),
            };
            if let (true, Some(at)) = (signal_first, next_signal) {
                let (_, name, input) = self.signals.remove(0);
                self.history.advance((at - self.now()).max(0.0));
                self.history.signal(&name, input.as_deref());
            } else if let Some((id, at)) = next_timer {
                timers.remove(&id);
                self.history.advance((at - self.now()).max(0.0));
                self.history.timer_fired(&id);
            } else {
                return self.finished(None, start);
            }
        }
        panic!("the run did not close in {} decision tasks", self.max_tasks)
    }

    /// Answers an activity, function or child `decision` starts with its stand-in; whether it
    /// was one.
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
        let Some(run) = self.stand_ins.get_mut(&(kind, name.clone())) else {
            panic!("no stand-in for the {kind:?} {name}: give one to the Environment")
        };
        let outcome = run(input.as_deref());
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
        true
    }

    fn now(&self) -> f64 {
        self.history
            .events()
            .last()
            .map_or(0.0, |e| e.event_timestamp)
    }

    fn finished(self, close: Option<Decision>, start: f64) -> Finished {
        Finished {
            close,
            elapsed: self.now() - start,
            history: self.history.events().to_vec(),
        }
    }
}
