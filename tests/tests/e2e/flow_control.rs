//! Flow control per task list (`/v1/domains/{domain}/task-lists/{kind}/{name}/limit`) on the
//! manual clock: a list with a rate hands out one task per share of a second, to pollers that
//! wait meanwhile; across nodes, the rate is the list's.

use std::time::Duration;

use weft_host::client::BindingKind;
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::guests::weft_client;

use crate::flow::*;
use crate::observability::{expect, scrape};

/// Starts `count` runs of `w`, each with a decision task on [`DECIDERS`].
async fn queue_decision_tasks(swf: &Client, count: usize) {
    for n in 0..count {
        start(swf, &format!("limited-{n}"), "w").await;
    }
}

/// A poll of [`DECIDERS`] spawned, once it waits on `server`.
async fn waiting_poll(
    server: &TestServer,
    swf: &Client,
) -> tokio::task::JoinHandle<
    weft_tests::aws_sdk_swf::operation::poll_for_decision_task::PollForDecisionTaskOutput,
> {
    let waiting = server.polls_waiting();
    let swf = swf.clone();
    let poll = tokio::spawn(async move { decision_task(&swf, DECIDERS).await });
    server.until_polls_wait(waiting + 1).await;
    poll
}

#[tokio::test]
async fn a_rate_hands_out_one_task_per_share_of_a_second() {
    let (server, swf) = manual_server().await;
    register_workflow(&swf, "w").await;
    queue_decision_tasks(&swf, 4).await;
    let weft = weft_client(&server);
    let deciders = (BindingKind::Decision, DECIDERS);
    let limited = weft.limit_task_list(D, deciders, Some(2.0)).await;
    let limited = limited.expect("the list is limited");
    assert_eq!((limited.rate, limited.changed), (Some(2.0), true));

    // One at once; each next one waits for its token, half a second on.
    decision_task(&swf, DECIDERS).await;
    for _ in 0..2 {
        let next = waiting_poll(&server, &swf).await;
        server.advance(Duration::from_millis(499)).await;
        assert!(!next.is_finished(), "handed out before its token came");
        server.advance(Duration::from_millis(1)).await;
        next.await.expect("the poll");
    }
    let lists = weft.task_lists(D).await.expect("the lists");
    let list = lists.iter().find(|l| l.name == DECIDERS).expect("the list");
    assert_eq!((list.rate, list.pending), (Some(2.0), 1));
    let metrics = scrape(&server, None).await;
    let series =
        format!("weft_task_list_throttled_total{{kind=\"decision\",task_list=\"{DECIDERS}\"}}");
    expect(&metrics, &series, 2.0);

    // Without a limit, the last goes at once.
    let unlimited = weft
        .limit_task_list(D, deciders, None)
        .await
        .expect("unlimited");
    assert_eq!((unlimited.rate, unlimited.changed), (None, true));
    let fourth = tokio::time::timeout(Duration::from_secs(10), decision_task(&swf, DECIDERS));
    assert!(
        fourth.await.is_ok(),
        "the fourth task waited without a limit"
    );
    let refused = weft.limit_task_list(D, deciders, Some(0.0)).await;
    assert!(refused.is_err(), "a rate of 0 was taken");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_holds_across_nodes() {
    let (a, swf) = manual_server().await;
    let Some(b) = a.manual_node_sharing().await else {
        return;
    };
    register_workflow(&swf, "w").await;
    queue_decision_tasks(&swf, 4).await;
    let weft = weft_client(&a);
    let deciders = (BindingKind::Decision, DECIDERS);
    weft.limit_task_list(D, deciders, Some(1.0))
        .await
        .expect("the list is limited");
    // The other node knows the list has a rate once it heard of the change.
    let on_b = weft_client(&b);
    let began = std::time::Instant::now();
    while !on_b
        .task_lists(D)
        .await
        .expect("the lists")
        .iter()
        .any(|l| l.name == DECIDERS && l.rate.is_some())
    {
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "node b never heard of the rate"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // One task at once, whichever node hands it out; the next a second later.
    decision_task(&swf, DECIDERS).await;
    let (swf_b, clock_b) = (b.client(), &b);
    let held = waiting_poll(clock_b, &swf_b).await;
    tokio::join!(
        a.advance(Duration::from_millis(999)),
        b.advance(Duration::from_millis(999))
    );
    assert!(
        !held.is_finished(),
        "node b handed out past the list's rate"
    );
    tokio::join!(
        a.advance(Duration::from_millis(1)),
        b.advance(Duration::from_millis(1))
    );
    held.await.expect("node b's poll");
}
