//! Several nodes on one PostgreSQL database, as `weft serve --store postgres://…` runs them.
//! These run when the suite does (`WEFT_TEST_POSTGRES`); on redb, which one process holds,
//! they have nothing to test and pass at once.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;

use crate::flow::*;

/// Another node serving `server`'s database, its empty polls answering after `poll_timeout`;
/// `None` on redb.
async fn second_node(server: &TestServer, poll_timeout: Duration) -> Option<(TestServer, Client)> {
    let store = server.store()?.clone();
    let node = TestServer::start_with(move |config| {
        config.store = Some(store.clone());
        config.poll_timeout = poll_timeout;
    })
    .await;
    let client = node.client();
    Some((node, client))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_waiting_on_one_node_gets_a_task_queued_through_another() {
    let (a, ca) = manual_server_polling(Duration::from_secs(60)).await;
    let Some((_b, cb)) = second_node(&a, Duration::from_secs(60)).await else {
        return;
    };
    register_workflow(&ca, "w").await;
    let poller = ca.clone();
    let poll = tokio::spawn(async move { poll_decision_once(&poller, DECIDERS).await });
    a.until_polls_wait(1).await;

    let run = start(&cb, "w1", "w").await;
    let task = poll
        .await
        .unwrap()
        .expect("the poll on node A got the task queued through node B");
    assert_eq!(task.workflow_execution().unwrap().run_id(), run);
    assert_eq!(task.started_event_id(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_task_and_timer_is_handed_out_once_across_nodes() {
    let (a, ca) = server_polling(Duration::from_secs(1)).await;
    let Some((_b, cb)) = second_node(&a, Duration::from_secs(1)).await else {
        return;
    };
    register_workflow(&ca, "w").await;
    const RUNS: usize = 16;
    // Deciders on both nodes: a timer first, then completion once it fired. Every task handed
    // out is noted as (run, startedEventId).
    let handed = Arc::new(Mutex::new(Vec::new()));
    let mut deciders = Vec::new();
    for (i, client) in [&ca, &cb, &ca, &cb].into_iter().enumerate() {
        let (client, handed) = (client.clone(), handed.clone());
        deciders.push(tokio::spawn(async move {
            loop {
                let Some(task) = poll_decision_once(&client, DECIDERS).await else {
                    continue;
                };
                let run = task.workflow_execution().unwrap().run_id().to_owned();
                handed
                    .lock()
                    .unwrap()
                    .push((run, task.started_event_id(), i));
                let events = task.events();
                let decision = if events
                    .iter()
                    .any(|e| e.timer_fired_event_attributes().is_some())
                {
                    complete_workflow(None)
                } else if events
                    .iter()
                    .any(|e| e.timer_started_event_attributes().is_some())
                {
                    continue;
                } else {
                    start_timer("t", "1")
                };
                respond(&client, task.task_token(), vec![decision]).await;
            }
        }));
    }
    let mut runs = Vec::new();
    for i in 0..RUNS {
        let client = if i % 2 == 0 { &ca } else { &cb };
        let id = format!("w{i}");
        runs.push((id.clone(), start(client, &id, "w").await));
    }
    for (id, run) in &runs {
        let events = wait_for_event(&ca, id, run, "WorkflowExecutionCompleted").await;
        assert_eq!(
            count(&events, "TimerFired"),
            1,
            "{id}: {:?}",
            types(&events)
        );
        assert_eq!(
            count(&events, "DecisionTaskStarted"),
            2,
            "{id}: {:?}",
            types(&events)
        );
    }
    for decider in deciders {
        decider.abort();
    }
    let handed = handed.lock().unwrap();
    let unique: HashSet<_> = handed
        .iter()
        .map(|(run, started, _)| (run, started))
        .collect();
    assert_eq!(
        unique.len(),
        handed.len(),
        "a task was handed out twice: {handed:?}"
    );
    assert_eq!(handed.len(), 2 * RUNS);
    let nodes: HashSet<_> = handed.iter().map(|(_, _, i)| i % 2).collect();
    assert_eq!(nodes.len(), 2, "one node's deciders got every task");
}
