//! Several nodes on one PostgreSQL database, as `weft serve --store postgres://…` runs them.
//! These run when the suite does (`WEFT_TEST_POSTGRES`); on redb, which one process holds,
//! they have nothing to test and pass at once.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use weft_host::Config;
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::error::ProvideErrorMetadata;
use weft_tests::aws_sdk_swf::operation::describe_workflow_execution::DescribeWorkflowExecutionOutput;

use crate::common::register_domain;
use crate::flow::*;

/// Another node serving `server`'s database, configured by `configure`; `None` on redb.
async fn second_node(
    server: &TestServer,
    configure: impl Fn(&mut Config) + Send + Sync + 'static,
) -> Option<(TestServer, Client)> {
    let store = server.store()?.clone();
    let node = TestServer::start_with(move |config| {
        configure(config);
        config.store = Some(store.clone());
    })
    .await;
    let client = node.client();
    Some((node, client))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_waiting_on_one_node_gets_a_task_queued_through_another() {
    let (a, ca) = manual_server_polling(Duration::from_secs(60)).await;
    let Some((_b, cb)) = second_node(&a, |c| c.poll_timeout = Duration::from_secs(60)).await else {
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
    let Some((_b, cb)) = second_node(&a, |c| c.poll_timeout = Duration::from_secs(1)).await else {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_racing_to_start_one_workflow_id_start_one_run() {
    let (a, ca) = server_polling(Duration::from_secs(1)).await;
    let Some((b, cb)) = second_node(&a, |c| c.poll_timeout = Duration::from_secs(1)).await else {
        return;
    };
    register_workflow(&ca, "w").await;
    const RACERS: usize = 8;
    // Rounds until the nodes' batches collided at least once, so that the race's loser ran
    // its batch again: a round's starts arrive together, but whether two transactions overlap
    // is up to the scheduler.
    let retries = || a.writer_stats().retries() + b.writer_stats().retries();
    for round in 0..50 {
        let id = format!("same-{round}");
        let racers: Vec<_> = (0..RACERS)
            .map(|i| {
                let (client, id) = ([&ca, &cb][i % 2].clone(), id.clone());
                tokio::spawn(async move {
                    let started = client
                        .start_workflow_execution()
                        .domain(D)
                        .workflow_id(id)
                        .workflow_type(wf_type("w", "1"))
                        .send()
                        .await;
                    started.map_err(|e| e.code().unwrap_or("no code").to_owned())
                })
            })
            .collect();
        let mut started = Vec::new();
        for racer in racers {
            match racer.await.unwrap() {
                Ok(out) => started.push(out.run_id().unwrap().to_owned()),
                Err(code) => assert_eq!(code, "WorkflowExecutionAlreadyStartedFault"),
            }
        }
        assert_eq!(started.len(), 1, "{id}: started {started:?}");
        for client in [&ca, &cb] {
            let open = client
                .count_open_workflow_executions()
                .domain(D)
                .start_time_filter(since_ever())
                .send()
                .await
                .unwrap();
            assert_eq!(open.count() as usize, round + 1);
        }
        if retries() > 0 {
            return;
        }
    }
    panic!("the nodes' starts never collided in 50 rounds");
}

/// Runs `call(i)` for `i` in `0..n` at once; answers how many succeeded, and asserts that the
/// others failed with `fault`.
async fn race<F, T, E>(n: usize, fault: &str, call: impl Fn(usize) -> F) -> usize
where
    F: std::future::Future<Output = Result<T, E>> + Send + 'static,
    T: Send + 'static,
    E: ProvideErrorMetadata + std::fmt::Debug + Send + 'static,
{
    let racers: Vec<_> = (0..n).map(|i| tokio::spawn(call(i))).collect();
    let mut won = 0;
    for racer in racers {
        match racer.await.unwrap() {
            Ok(_) => won += 1,
            Err(e) => assert_eq!(e.code(), Some(fault), "{e:?}"),
        }
    }
    won
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_hold_when_nodes_race_for_the_last_places() {
    const LIMIT: usize = 4;
    let limited = |config: &mut Config| {
        config.limits.max_domains = LIMIT;
        config.limits.max_open_runs = LIMIT as u64;
    };
    let a = TestServer::start_with(limited).await;
    let Some((_b, cb)) = second_node(&a, limited).await else {
        return;
    };
    let ca = a.client();
    let clients = [ca.clone(), cb];
    register_domain(&ca, D).await;
    let domains = race(2 * LIMIT, "LimitExceededFault", |i| {
        let request = clients[i % 2].register_domain();
        request
            .name(format!("more-{i}"))
            .workflow_execution_retention_period_in_days("1")
            .send()
    })
    .await;
    assert_eq!(domains, LIMIT - 1, "domains beyond {D}");

    register_workflow(&ca, "w").await;
    let starts = race(2 * LIMIT, "LimitExceededFault", |i| {
        let request = clients[i % 2].start_workflow_execution();
        request
            .domain(D)
            .workflow_id(format!("w{i}"))
            .workflow_type(wf_type("w", "1"))
            .send()
    })
    .await;
    assert_eq!(starts, LIMIT, "open runs");
    let open = ca
        .count_open_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .send()
        .await
        .unwrap();
    assert_eq!(open.count() as usize, LIMIT);
}

/// One name registered through three nodes at once: SWF lets exactly one registration win, and
/// every other is refused as a duplicate, never accepted as a second copy that replaces the
/// first. What was acknowledged under the winner (its types) is never lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registrations_racing_across_three_nodes_have_one_winner_and_lose_nothing() {
    let a = TestServer::start().await;
    let Some((b, cb)) = second_node(&a, |_| {}).await else {
        return;
    };
    let Some((c, cc)) = second_node(&a, |_| {}).await else {
        return;
    };
    let clients = [a.client(), cb, cc];
    const RACERS: usize = 6;
    const ROUNDS: usize = 10;
    let retries = || {
        [&a, &b, &c]
            .iter()
            .map(|n| n.writer_stats().retries())
            .sum::<u64>()
    };
    for round in 0..ROUNDS {
        let domain = format!("race-{round}");
        let won = race(RACERS, "DomainAlreadyExistsFault", |i| {
            let request = clients[i % 3].register_domain();
            // Each racer its own retention: the winner's is the one kept.
            request
                .name(domain.clone())
                .workflow_execution_retention_period_in_days(format!("{}", i + 1))
                .send()
        })
        .await;
        assert_eq!(won, 1, "{domain}: registered {won} times");

        // One type name raced (one winner, whose defaults stay), and one type per racer (all
        // win), under the domain just registered.
        let types = clients.clone();
        let won = race(RACERS, "TypeAlreadyExistsFault", |i| {
            let request = types[i % 3].register_workflow_type();
            request
                .domain(domain.clone())
                .name("raced")
                .version("1")
                .default_task_start_to_close_timeout(format!("{}", i + 1))
                .send()
        })
        .await;
        assert_eq!(won, 1, "{domain}: the raced type registered {won} times");
        let mine = race(RACERS, "none", |i| {
            let request = clients[i % 3].register_workflow_type();
            request
                .domain(domain.clone())
                .name(format!("mine-{i}"))
                .version("1")
                .send()
        })
        .await;
        assert_eq!(mine, RACERS, "{domain}: types of distinct names");

        // Every node sees the same domain and every acknowledged type, with one set of values.
        let mut retention = HashSet::new();
        let mut timeouts = HashSet::new();
        for client in &clients {
            let described = client.describe_domain().name(&domain).send().await.unwrap();
            let days = described.configuration().unwrap();
            retention.insert(
                days.workflow_execution_retention_period_in_days()
                    .to_owned(),
            );
            let raced = client
                .describe_workflow_type()
                .domain(&domain)
                .workflow_type(wf_type("raced", "1"))
                .send()
                .await
                .unwrap();
            let config = raced.configuration().unwrap();
            timeouts.insert(
                config
                    .default_task_start_to_close_timeout()
                    .unwrap()
                    .to_owned(),
            );
            for i in 0..RACERS {
                client
                    .describe_workflow_type()
                    .domain(&domain)
                    .workflow_type(wf_type(&format!("mine-{i}"), "1"))
                    .send()
                    .await
                    .unwrap_or_else(|e| panic!("{domain}: mine-{i} was lost: {e:?}"));
            }
        }
        assert_eq!(retention.len(), 1, "{domain}: retentions {retention:?}");
        assert_eq!(
            timeouts.len(),
            1,
            "{domain}: raced type's defaults {timeouts:?}"
        );
    }
    // The nodes' transactions did collide, so the losers' batches ran again.
    assert!(retries() > 0, "no registration collided in {ROUNDS} rounds");
}

/// Changes of one domain made through two nodes at once all stand: each change reads the
/// domain locked, so none is written over by another made from an older copy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn domain_changes_racing_across_nodes_are_all_kept() {
    let a = TestServer::start().await;
    let Some((_b, cb)) = second_node(&a, |_| {}).await else {
        return;
    };
    let clients = [a.client(), cb];
    register_domain(&clients[0], D).await;
    let arn = format!("arn:aws:swf:us-east-1:000000000000:/domain/{D}");
    const RACERS: usize = 8;
    for round in 0..5 {
        let won = race(RACERS, "none", |i| {
            let tag = weft_tests::aws_sdk_swf::types::ResourceTag::builder()
                .key(format!("k{round}-{i}"))
                .build()
                .unwrap();
            clients[i % 2]
                .tag_resource()
                .resource_arn(&arn)
                .tags(tag)
                .send()
        })
        .await;
        assert_eq!(won, RACERS);
    }
    let tags = clients[1]
        .list_tags_for_resource()
        .resource_arn(&arn)
        .send()
        .await
        .unwrap();
    assert_eq!(tags.tags().len(), 5 * RACERS, "{:?}", tags.tags());
}

/// Nodes' clocks differ (and a batch takes its time before it waits for the locks it needs):
/// a run started through one node never starts before its workflow's previous run closed
/// through another, whose clock is ahead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_never_starts_before_its_predecessor_closed_on_a_node_whose_clock_is_ahead() {
    use weft_host::clock::{Clock, ManualClock, SystemClock, Timestamp};
    let (a, ca) = server().await;
    let ahead = SystemClock.now().as_millis() + 60_000;
    let ahead = move |config: &mut Config| {
        config.clock = Arc::new(ManualClock::new(Timestamp::from_millis(ahead)));
    };
    let Some((_b, cb)) = second_node(&a, ahead).await else {
        return;
    };
    register_workflow(&ca, "w").await;
    let first = start(&cb, "w", "w").await;
    let terminate = cb.terminate_workflow_execution().domain(D).workflow_id("w");
    terminate.send().await.unwrap();
    let second = start(&ca, "w", "w").await;
    let info = |run: DescribeWorkflowExecutionOutput| run.execution_info.unwrap();
    let closed = info(describe(&ca, "w", &first).await)
        .close_timestamp
        .unwrap();
    let started = info(describe(&ca, "w", &second).await).start_timestamp;
    assert!(
        started >= closed,
        "started {started:?}, before its predecessor closed {closed:?}"
    );
    let events = history(&ca, "w", &second).await;
    assert!(
        events.iter().all(|e| *e.event_timestamp() >= closed),
        "{events:?}"
    );
}
