//! Long polls, delivery order, exactly-once hand-off, abandoned polls and task tokens (spec §4.4,
//! §4.5, §8.3, §8.4).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::ScheduleActivityTaskDecisionAttributes;

use crate::flow::{
    D, DECIDERS, WORKERS, act_type, activity_task, assert_activity_token_dead,
    assert_activity_token_refused, complete_workflow, count, decision_task, heartbeat, history,
    manual_server, no_activity_task, no_decision_task, pending_activities, pending_decisions,
    poll_activity_once, poll_decision_once, register_activity, register_workflow, respond,
    schedule_activity, schedule_activity_with, server, start, task_list,
};
use weft_tests::TestServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_poll_returns_as_soon_as_a_task_is_scheduled() {
    // The clock stands still: only the task can end these polls.
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;

    let poll = tokio::spawn({
        let c = c.clone();
        async move { poll_decision_once(&c, DECIDERS).await }
    });
    server.until_polls_wait(1).await;
    let run = start(&c, "job", "w").await;
    let task = poll
        .await
        .unwrap()
        .expect("the waiting poll receives the new decision task");
    assert_eq!(task.workflow_execution().unwrap().run_id(), run);

    let poll = tokio::spawn({
        let c = c.clone();
        async move { poll_activity_once(&c, WORKERS).await }
    });
    server.until_polls_wait(1).await;
    respond(&c, task.task_token(), vec![schedule_activity("a1", "a")]).await;
    let work = poll
        .await
        .unwrap()
        .expect("the waiting poll receives the new activity task");
    assert_eq!(work.activity_id(), "a1");
}

#[tokio::test]
async fn activity_tasks_come_by_priority_then_in_scheduling_order() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    c.register_activity_type()
        .domain(D)
        .name("urgent")
        .version("1")
        .default_task_list(task_list(WORKERS))
        .default_task_schedule_to_close_timeout("300")
        .default_task_schedule_to_start_timeout("300")
        .default_task_start_to_close_timeout("300")
        .default_task_priority("7")
        .send()
        .await
        .unwrap();
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    let with_priority = |id: &str, priority: &str| {
        schedule_activity_with(
            ScheduleActivityTaskDecisionAttributes::builder()
                .activity_id(id)
                .activity_type(act_type("a", "1"))
                .task_priority(priority),
        )
    };
    respond(
        &c,
        task.task_token(),
        vec![
            schedule_activity("p0-first", "a"),
            with_priority("p5-first", "5"),
            with_priority("p-3", "-3"),
            with_priority("p5-second", "5"),
            with_priority("p0-second", "0"),
            schedule_activity("u7", "urgent"),
            with_priority("p10", "10"),
            with_priority("p0-third", "0"),
        ],
    )
    .await;
    let mut order = Vec::new();
    for _ in 0..8 {
        order.push(activity_task(&c, WORKERS).await.activity_id().to_owned());
    }
    assert_eq!(
        order,
        [
            "p10",
            "u7",
            "p5-first",
            "p5-second",
            "p0-first",
            "p0-second",
            "p0-third",
            "p-3"
        ]
    );
    no_activity_task(&server, &c, WORKERS).await;
    // The resolved priorities are recorded.
    let events = history(&c, "job", &run).await;
    let priorities: Vec<(&str, Option<&str>)> = events
        .iter()
        .filter_map(|e| e.activity_task_scheduled_event_attributes())
        .map(|s| (s.activity_id(), s.task_priority()))
        .collect();
    // Nobody gave p0-first a priority: AWS records none (it ranks as 0).
    assert_eq!(priorities[0], ("p0-first", None));
    assert_eq!(priorities[5], ("u7", Some("7")));
    assert_eq!(priorities[6], ("p10", Some("10")));
}

/// `n` concurrent pollers, spread over a few clients, each polling once.
fn pollers<T: Send + 'static, F>(
    clients: &[Client],
    n: usize,
    poll: F,
) -> Vec<tokio::task::JoinHandle<T>>
where
    F: Fn(Client) -> std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>,
{
    (0..n)
        .map(|i| tokio::spawn(poll(clients[i % clients.len()].clone())))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_activity_task_goes_to_exactly_one_of_200_pollers() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;

    let clients: Vec<Client> = (0..8).map(|_| server.client()).collect();
    let waiting = pollers(&clients, 200, |c| {
        Box::pin(async move {
            poll_activity_once(&c, WORKERS)
                .await
                .map(|t| (t.activity_id().to_owned(), t.task_token().to_owned()))
        })
    });
    server.until_polls_wait(200).await;
    respond(
        &c,
        task.task_token(),
        (0..100)
            .map(|n| schedule_activity(&format!("a{n}"), "a"))
            .collect(),
    )
    .await;
    // The other hundred come back empty when their timeout comes.
    server.advance(server.poll_timeout()).await;

    let mut received = Vec::new();
    let mut empty = 0;
    for poller in waiting {
        match poller.await.unwrap() {
            Some(task) => received.push(task),
            None => empty += 1,
        }
    }
    assert_eq!(received.len(), 100, "tasks handed out");
    assert_eq!(empty, 100, "empty polls");
    let ids: HashSet<&String> = received.iter().map(|(id, _)| id).collect();
    assert_eq!(ids.len(), 100, "no activity was handed out twice");
    let tokens: HashSet<&String> = received.iter().map(|(_, token)| token).collect();
    assert_eq!(tokens.len(), 100);
    assert_eq!(pending_activities(&c, WORKERS).await, 0);
    let events = history(&c, "job", &run).await;
    assert_eq!(count(&events, "ActivityTaskStarted"), 100);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_decision_task_goes_to_exactly_one_of_200_pollers() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    let clients: Vec<Client> = (0..8).map(|_| server.client()).collect();
    let waiting = pollers(&clients, 200, |c| {
        Box::pin(async move {
            poll_decision_once(&c, DECIDERS)
                .await
                .map(|t| t.workflow_execution().unwrap().clone())
        })
    });
    server.until_polls_wait(200).await;
    for n in 0..100 {
        start(&c, &format!("w{n}"), "w").await;
    }
    server.advance(server.poll_timeout()).await;
    let mut received = Vec::new();
    let mut empty = 0;
    for poller in waiting {
        match poller.await.unwrap() {
            Some(execution) => received.push(execution),
            None => empty += 1,
        }
    }
    assert_eq!(received.len(), 100, "tasks handed out");
    assert_eq!(empty, 100, "empty polls");
    let ids: HashSet<&str> = received.iter().map(|e| e.workflow_id()).collect();
    assert_eq!(ids.len(), 100, "no decision task was handed out twice");
    assert_eq!(pending_decisions(&c, DECIDERS).await, 0);
    for execution in &received {
        let events = history(&c, execution.workflow_id(), execution.run_id()).await;
        assert_eq!(count(&events, "DecisionTaskStarted"), 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_whose_client_went_away_does_not_swallow_a_task() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;

    // A raw decision poll whose connection is closed while it waits.
    let addr = server.endpoint()["http://".len()..].to_owned();
    let body = json!({"domain": D, "taskList": {"name": DECIDERS}}).to_string();
    let request = format!(
        "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: SimpleWorkflowService.PollForDecisionTask\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    server.until_polls_wait(1).await;
    drop(stream);
    // The server drops the poll when it sees the connection gone.
    until_no_poll_waits(&server).await;

    let run = start(&c, "job", "w").await;
    let task = tokio::time::timeout(Duration::from_secs(5), poll_decision_once(&c, DECIDERS))
        .await
        .expect("the task is there at once")
        .expect("the decision task was not lost to the closed poll");
    assert_eq!(task.workflow_execution().unwrap().run_id(), run);

    // An SDK activity poll given up by its caller.
    let poll = c
        .poll_for_activity_task()
        .domain(D)
        .task_list(task_list(WORKERS))
        .send();
    let abandoned = tokio::time::timeout(Duration::from_secs(30), async {
        tokio::select! {
            answer = poll => Some(answer),
            () = server.until_polls_wait(1) => None,
        }
    })
    .await
    .expect("the poll waits");
    assert!(abandoned.is_none(), "the poll was answered: {abandoned:?}");
    until_no_poll_waits(&server).await;
    respond(&c, task.task_token(), vec![schedule_activity("a1", "a")]).await;
    let work = tokio::time::timeout(Duration::from_secs(5), poll_activity_once(&c, WORKERS))
        .await
        .expect("the task is there at once")
        .expect("the activity task was not lost to the abandoned poll");
    assert_eq!(work.activity_id(), "a1");

    let events = history(&c, "job", &run).await;
    assert_eq!(count(&events, "DecisionTaskStarted"), 1);
    assert_eq!(count(&events, "ActivityTaskStarted"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_scheduled_as_a_poll_times_out_is_not_lost() {
    // Spec §8.3 [REC]: a task is started only for a poll that can still answer; a task claimed
    // for a poll that ended meanwhile goes back to its list. Each round moves the clock to a
    // waiting poll's timeout while a signal schedules a decision task, the signal held back by
    // a few more yields each round to vary which comes first: either that poll gets the task,
    // or the next one does.
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![]).await;
    for round in 0..62u64 {
        let poll = tokio::spawn({
            let c = c.clone();
            async move { poll_decision_once(&c, DECIDERS).await }
        });
        server.until_polls_wait(1).await;
        let signal = async {
            for _ in 0..round % 31 {
                tokio::task::yield_now().await;
            }
            c.signal_workflow_execution()
                .domain(D)
                .workflow_id("job")
                .signal_name(format!("round {round}"))
                .send()
                .await
                .unwrap();
        };
        tokio::join!(server.advance(server.poll_timeout()), signal);
        let task = match poll.await.unwrap() {
            Some(task) => Some(task),
            // The task is on its list by now, so a poll gets it at once; a lost one never comes.
            None => tokio::time::timeout(Duration::from_secs(5), poll_decision_once(&c, DECIDERS))
                .await
                .ok()
                .flatten(),
        };
        let Some(task) = task else {
            let events = history(&c, "job", &run).await;
            panic!(
                "round {round}: the decision task was started for no poll: {:?}",
                &crate::flow::types(&events)[events.len().saturating_sub(4)..]
            );
        };
        respond(&c, task.task_token(), vec![]).await;
    }
}

/// Waits until no long poll waits on the server's manual clock (panics after 30 s).
async fn until_no_poll_waits(server: &TestServer) {
    let began = Instant::now();
    while server.polls_waiting() > 0 {
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "a poll still waits"
        );
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// One character of `token` changed, within its own alphabet.
fn forge(token: &str) -> String {
    let mut chars: Vec<char> = token.chars().collect();
    let middle = chars.len() / 2;
    chars[middle] = if chars[middle] == 'A' { 'B' } else { 'A' };
    chars.into_iter().collect()
}

#[tokio::test]
async fn stale_forged_and_reused_activity_tokens_are_unknown() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![schedule_activity("a1", "a"), schedule_activity("a2", "a")],
    )
    .await;

    let work = activity_task(&c, WORKERS).await;
    let before = history(&c, "job", &run).await;
    // Not tokens Weft issued: invalid input.
    assert_activity_token_refused(&c, &forge(work.task_token()), "ValidationException").await;
    assert_activity_token_refused(&c, "not-a-token", "ValidationException").await;
    // A decision task's token is not an activity task's.
    assert_activity_token_dead(&c, task.task_token()).await;
    assert_eq!(history(&c, "job", &run).await, before);
    // The real token still works.
    assert_eq!(heartbeat(&c, work.task_token(), None).await, Ok(false));
    c.respond_activity_task_completed()
        .task_token(work.task_token())
        .result("ok")
        .send()
        .await
        .unwrap();
    let after = history(&c, "job", &run).await;
    assert_activity_token_dead(&c, work.task_token()).await;
    assert_eq!(history(&c, "job", &run).await, after);

    // Failing and canceling close a task just as well.
    let second = activity_task(&c, WORKERS).await;
    c.respond_activity_task_failed()
        .task_token(second.task_token())
        .reason("no")
        .send()
        .await
        .unwrap();
    assert_activity_token_dead(&c, second.task_token()).await;

    // Tokens die with their execution.
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![schedule_activity("a3", "a")]).await;
    let third = activity_task(&c, WORKERS).await;
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .send()
        .await
        .unwrap();
    let closed = history(&c, "job", &run).await;
    assert_activity_token_dead(&c, third.task_token()).await;
    assert_eq!(history(&c, "job", &run).await, closed);

    // And canceled tasks too.
    start(&c, "job2", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![schedule_activity("b1", "a")]).await;
    let fourth = activity_task(&c, WORKERS).await;
    c.respond_activity_task_canceled()
        .task_token(fourth.task_token())
        .send()
        .await
        .unwrap();
    assert_activity_token_dead(&c, fourth.task_token()).await;
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
}

#[tokio::test]
async fn a_poll_that_finds_nothing_commits_nothing() {
    let (server, c) = manual_server().await;
    let commits = server.writer_stats().commits();
    for _ in 0..3 {
        no_decision_task(&server, &c, DECIDERS).await;
        no_activity_task(&server, &c, WORKERS).await;
    }
    assert_eq!(
        server.writer_stats().commits(),
        commits,
        "an empty poll made a durable commit"
    );
    // A poll that takes a task still commits its claim.
    register_workflow(&c, "w").await;
    start(&c, "job", "w").await;
    let before = server.writer_stats().commits();
    let task = poll_decision_once(&c, DECIDERS).await;
    assert!(task.is_some(), "the decision task is handed out");
    assert_eq!(server.writer_stats().commits(), before + 1);
}
