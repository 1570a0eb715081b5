//! The activity tasks of the `steps-decider` runs, as the tests work them and watch them:
//! each run schedules activities `a` and `b` (in an order its version sets) on the workers'
//! list, and the tests complete them from outside, each with its type's name.

use std::time::{Duration, Instant};

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::guests;

use super::pinning::PATIENCE;
use crate::flow::{D, WORKERS, activity_task};

/// Completes `n` activity tasks of the workers' list, each with its type's name.
pub(super) async fn work(c: &Client, n: usize) {
    for _ in 0..n {
        let task = activity_task(c, WORKERS).await;
        let step = task.activity_type().unwrap().name().to_owned();
        complete(c, task.task_token(), step).await;
    }
}

/// Completes the activity task `token` with `result`.
pub(super) async fn complete(c: &Client, token: &str, result: String) {
    c.respond_activity_task_completed()
        .task_token(token)
        .result(result)
        .send()
        .await
        .unwrap();
}

/// Completes the first step of every run of `groups` (each runs with its first step), in
/// whatever order the list hands the tasks out: a task list is not first in, first out
/// across nodes (each node numbers the tasks it queues from ids of its own), so a later step
/// of a run done early may come before another run's first. Such a task is held, started,
/// and its token and step answered, for the test to complete when it reaches that step.
pub(super) async fn work_first_steps(
    c: &Client,
    groups: &[(&[(String, String)], &str)],
) -> Vec<(String, String)> {
    let first_step = |workflow_id: &str| {
        let mut group = groups.iter();
        let found = group.find(|(runs, _)| runs.iter().any(|(id, _)| id == workflow_id));
        found.map(|&(_, step)| step)
    };
    let mut left: usize = groups.iter().map(|(runs, _)| runs.len()).sum();
    let mut held = Vec::new();
    while left > 0 {
        let task = activity_task(c, WORKERS).await;
        let step = task.activity_type().unwrap().name().to_owned();
        let workflow_id = task.workflow_execution().unwrap().workflow_id();
        if first_step(workflow_id) == Some(step.as_str()) {
            complete(c, task.task_token(), step).await;
            left -= 1;
        } else {
            held.push((task.task_token().to_owned(), step));
        }
    }
    held
}

/// The activities the run has scheduled, in order, and its whole history's event types with
/// their times (for a run that falls behind: where it stopped).
async fn scheduled(server: &TestServer, (id, run): &(String, String)) -> (Vec<String>, String) {
    let events = guests::history(server, D, id, run).await;
    let steps = events
        .iter()
        .filter_map(|e| e.activity_task_scheduled_event_attributes())
        .map(|a| a.activity_id().to_owned())
        .collect();
    let history = events
        .iter()
        .map(|e| format!("{:?} {:?}", e.event_timestamp(), e.event_type()))
        .collect::<Vec<_>>()
        .join("\n  ");
    (steps, history)
}

/// Waits until each run has scheduled `steps` (as many as given).
pub(super) async fn wait_scheduled(server: &TestServer, runs: &[(String, String)], steps: &[&str]) {
    let began = Instant::now();
    for run in runs {
        loop {
            let (found, history) = scheduled(server, run).await;
            if found.len() >= steps.len() {
                assert_eq!(found, steps, "{run:?}");
                break;
            }
            assert!(
                began.elapsed() < PATIENCE,
                "{run:?} scheduled only {found:?}; its history:\n  {history}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
