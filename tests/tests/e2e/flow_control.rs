//! Flow control per task list (`/v1/domains/{domain}/task-lists/{kind}/{name}/limit`) on the
//! manual clock: a list with a rate hands out one task per share of a second, to pollers that
//! wait meanwhile; a list with a cap hands out a task only while fewer than the cap are started;
//! a list with fairness keys shares its hand-outs between keys by weight; across nodes, the rate,
//! the cap and the shares are the list's.

use std::time::Duration;

use std::collections::BTreeMap;

use weft_host::client::{BindingKind, Fairness, ListLimitRequest, PauseRequest, TaskListInfo};
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

/// A limit that sets the rate alone.
fn rate(rate: Option<f64>) -> ListLimitRequest {
    ListLimitRequest {
        rate: Some(rate),
        ..ListLimitRequest::default()
    }
}

/// A limit that sets the cap alone.
fn cap(cap: Option<u32>) -> ListLimitRequest {
    ListLimitRequest {
        concurrency: Some(cap),
        ..ListLimitRequest::default()
    }
}

/// A limit that keys runs by their `tenant=` tag, with `weights`.
fn fair(weights: &[(&str, u32)]) -> ListLimitRequest {
    let fairness = Fairness {
        tag_prefix: "tenant=".into(),
        weights: (weights.iter()).map(|(k, w)| (k.to_string(), *w)).collect(),
        default_weight: 1,
    };
    ListLimitRequest {
        fairness: Some(Some(fairness)),
        ..ListLimitRequest::default()
    }
}

/// Starts `count` runs of `w` for `tenant` (tagged `tenant=TENANT`), ids `TENANT-N`.
async fn queue_for(swf: &Client, tenant: &str, count: usize) {
    for n in 0..count {
        let tag = format!("tenant={tenant}");
        start_with(swf, &format!("{tenant}-{n}"), "w", |s| s.tag_list(tag)).await;
    }
}

/// Polls `count` decision tasks of [`DECIDERS`]; answers how many each tenant got.
async fn hand_outs(swf: &Client, count: usize) -> BTreeMap<String, usize> {
    let mut got = BTreeMap::new();
    for _ in 0..count {
        let task = decision_task(swf, DECIDERS).await;
        let id = task.workflow_execution().expect("a run").workflow_id();
        let tenant = id.split('-').next().expect("a tenant").to_owned();
        *got.entry(tenant).or_default() += 1;
    }
    got
}

/// Waits (30 s at most, real time) until `node` knows the controls of [`DECIDERS`] that
/// `known` looks for: a node hears of another's change a moment after its commit.
async fn until_known(node: &TestServer, known: impl Fn(&TaskListInfo) -> bool) {
    let weft = weft_client(node);
    let began = std::time::Instant::now();
    while !(weft.task_lists(D).await.expect("the lists").iter())
        .any(|l| l.name == DECIDERS && known(l))
    {
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "the node never heard of the list's controls"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
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
    let limited = weft.limit_task_list(D, deciders, &rate(Some(2.0))).await;
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
    let series = format!(
        "weft_task_list_throttled_total{{kind=\"decision\",task_list=\"{DECIDERS}\",cause=\"rate\"}}"
    );
    expect(&metrics, &series, 2.0);

    // Without a limit, the last goes at once.
    let unlimited = weft
        .limit_task_list(D, deciders, &rate(None))
        .await
        .expect("unlimited");
    assert_eq!((unlimited.rate, unlimited.changed), (None, true));
    let fourth = tokio::time::timeout(Duration::from_secs(10), decision_task(&swf, DECIDERS));
    assert!(
        fourth.await.is_ok(),
        "the fourth task waited without a limit"
    );
    let refused = weft.limit_task_list(D, deciders, &rate(Some(0.0))).await;
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
    weft.limit_task_list(D, deciders, &rate(Some(1.0)))
        .await
        .expect("the list is limited");
    // The other node knows the list has a rate once it heard of the change.
    until_known(&b, |l| l.rate.is_some()).await;

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

#[tokio::test]
async fn a_cap_hands_out_a_task_only_while_fewer_are_started() {
    let (server, swf) = manual_server().await;
    register_workflow(&swf, "w").await;
    let weft = weft_client(&server);
    let deciders = (BindingKind::Decision, DECIDERS);
    let capped = weft.limit_task_list(D, deciders, &cap(Some(2))).await;
    let capped = capped.expect("the list is capped");
    assert_eq!(
        (capped.concurrency, capped.rate, capped.changed),
        (Some(2), None, true)
    );
    queue_decision_tasks(&swf, 4).await;

    // Two started; the third waits until one of them ends.
    let first = decision_task(&swf, DECIDERS).await;
    decision_task(&swf, DECIDERS).await;
    let third = waiting_poll(&server, &swf).await;
    server.advance(Duration::from_secs(5)).await;
    assert!(!third.is_finished(), "a third task started past the cap");
    respond(&swf, first.task_token(), vec![]).await;
    let third = tokio::time::timeout(Duration::from_secs(10), third).await;
    let third = third.expect("the third poll waited past an ended task");
    third.expect("the third poll");

    // A started task that times out frees its place too.
    let fourth = waiting_poll(&server, &swf).await;
    let lists = weft.task_lists(D).await.expect("the lists");
    let list = lists.iter().find(|l| l.name == DECIDERS).expect("the list");
    assert_eq!((list.concurrency, list.pending), (Some(2), 1));
    server.advance(Duration::from_secs(600)).await;
    let fourth = tokio::time::timeout(Duration::from_secs(10), fourth).await;
    fourth
        .expect("a timed-out task kept its place")
        .expect("the fourth poll");
    let metrics = scrape(&server, None).await;
    let series = format!(
        "weft_task_list_throttled_total{{kind=\"decision\",task_list=\"{DECIDERS}\",cause=\"concurrency\"}}"
    );
    assert!(
        metrics.contains(&series),
        "no claim held back by the cap in\n{metrics}"
    );

    // Raised, the cap lets a waiting poll have the next task at once.
    decision_task(&swf, DECIDERS).await;
    let fifth = waiting_poll(&server, &swf).await;
    let raised = weft.limit_task_list(D, deciders, &cap(Some(3))).await;
    assert!(raised.expect("raised").changed);
    tokio::time::timeout(Duration::from_secs(10), fifth)
        .await
        .expect("the raised cap left the poll waiting")
        .expect("the fifth poll");
    for refused in [cap(Some(0)), ListLimitRequest::default()] {
        let answer = weft.limit_task_list(D, deciders, &refused).await;
        assert!(answer.is_err(), "{refused:?} was taken");
    }
    let removed = weft.limit_task_list(D, deciders, &cap(None)).await;
    assert_eq!(removed.expect("removed").concurrency, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cap_holds_across_nodes_and_a_task_ending_at_one_frees_a_poll_at_another() {
    let (a, swf) = manual_server().await;
    let Some(b) = a.manual_node_sharing().await else {
        return;
    };
    register_workflow(&swf, "w").await;
    let weft = weft_client(&a);
    let deciders = (BindingKind::Decision, DECIDERS);
    let capped = weft.limit_task_list(D, deciders, &cap(Some(1))).await;
    capped.expect("the list is capped");
    until_known(&b, |l| l.concurrency.is_some()).await;

    // Node b's poll takes the first task queued at node a; node a's then waits for it.
    let swf_b = b.client();
    let at_b = waiting_poll(&b, &swf_b).await;
    queue_decision_tasks(&swf, 2).await;
    let started = at_b.await.expect("node b's poll");
    let at_a = waiting_poll(&a, &swf).await;
    tokio::join!(
        a.advance(Duration::from_secs(5)),
        b.advance(Duration::from_secs(5))
    );
    assert!(!at_a.is_finished(), "node a started a task past the cap");
    respond(&swf_b, started.task_token(), vec![]).await;
    tokio::time::timeout(Duration::from_secs(30), at_a)
        .await
        .expect("node a's poll never heard the task at node b end")
        .expect("node a's poll");
}

#[tokio::test]
async fn keys_with_backlogs_share_a_list_by_their_weights() {
    let (server, swf) = manual_server().await;
    register_workflow(&swf, "w").await;
    let weft = weft_client(&server);
    let deciders = (BindingKind::Decision, DECIDERS);
    let keyed = weft
        .limit_task_list(D, deciders, &fair(&[("acme", 3)]))
        .await;
    let keyed = keyed.expect("the list is keyed");
    assert!(keyed.changed && keyed.fairness.is_some());
    // Acme's backlog is queued first, and is larger: globex still gets its share.
    queue_for(&swf, "acme", 30).await;
    queue_for(&swf, "globex", 10).await;
    assert_eq!(pending_decisions(&swf, DECIDERS).await, 40);
    let got = hand_outs(&swf, 20).await;
    assert_eq!(got.get("acme"), Some(&15), "{got:?}");
    assert_eq!(got.get("globex"), Some(&5), "{got:?}");

    // A run without a key waits as one more key of weight 1.
    start(&swf, "untagged-0", "w").await;
    let lists = weft.task_lists(D).await.expect("the lists");
    let list = lists.iter().find(|l| l.name == DECIDERS).expect("the list");
    let waiting: BTreeMap<_, _> = (list.keys.iter())
        .map(|k| (k.key.as_str(), (k.pending, k.weight)))
        .collect();
    assert_eq!(list.pending, 21);
    assert_eq!(waiting.get("acme"), Some(&(15, Some(3))), "{:?}", list.keys);
    assert_eq!(
        waiting.get("globex"),
        Some(&(5, Some(1))),
        "{:?}",
        list.keys
    );
    assert_eq!(waiting.get(""), Some(&(1, Some(1))), "{:?}", list.keys);
    let metrics = scrape(&server, None).await;
    let series = |name: &str, key: &str| {
        format!("{name}{{domain=\"{D}\",kind=\"decision\",task_list=\"{DECIDERS}\",key=\"{key}\"}}")
    };
    expect(&metrics, &series("weft_task_list_waiting", "acme"), 15.0);
    let handed = format!(
        "weft_task_list_handed_out_total{{kind=\"decision\",task_list=\"{DECIDERS}\",key=\"globex\"}}"
    );
    expect(&metrics, &handed, 5.0);
    let pending =
        format!("swf_pending_tasks{{domain=\"{D}\",kind=\"decision\",task_list=\"{DECIDERS}\"}}");
    expect(&metrics, &pending, 21.0);

    // Without keys, what waits under them is still handed out, in order, and nothing is lost.
    let removed = weft.limit_task_list(D, deciders, &fair(&[])).await;
    assert!(removed.expect("reweighed").changed);
    let removed = ListLimitRequest {
        fairness: Some(None),
        ..ListLimitRequest::default()
    };
    weft.limit_task_list(D, deciders, &removed)
        .await
        .expect("unkeyed");
    start(&swf, "untagged-1", "w").await;
    let got = hand_outs(&swf, 22).await;
    assert_eq!(got.values().sum::<usize>(), 22, "{got:?}");
    no_decision_task(&server, &swf, DECIDERS).await;
    let refused = weft
        .limit_task_list(D, deciders, &fair(&[("acme", 0)]))
        .await;
    assert!(refused.is_err(), "a weight of 0 was taken");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_queued_under_a_key_at_one_node_reaches_a_poll_at_another() {
    let (a, swf) = manual_server().await;
    let Some(b) = a.manual_node_sharing().await else {
        return;
    };
    register_workflow(&swf, "w").await;
    let weft = weft_client(&a);
    let deciders = (BindingKind::Decision, DECIDERS);
    weft.limit_task_list(D, deciders, &fair(&[("acme", 2)]))
        .await
        .expect("the list is keyed");
    until_known(&b, |l| l.fairness.is_some()).await;
    let swf_b = b.client();
    let at_b = waiting_poll(&b, &swf_b).await;
    queue_for(&swf, "acme", 1).await;
    let task = tokio::time::timeout(Duration::from_secs(30), at_b)
        .await
        .expect("node b's poll never heard of the keyed task")
        .expect("node b's poll");
    let id = task.workflow_execution().map(|e| e.workflow_id.as_str());
    assert_eq!(id, Some("acme-0"));
}

#[tokio::test]
async fn a_run_held_under_a_key_comes_back_to_its_list_once_the_keys_are_gone() {
    let (server, swf) = manual_server().await;
    register_workflow(&swf, "w").await;
    let weft = weft_client(&server);
    let deciders = (BindingKind::Decision, DECIDERS);
    weft.limit_task_list(D, deciders, &fair(&[]))
        .await
        .expect("the list is keyed");
    queue_for(&swf, "acme", 2).await;
    let pause = PauseRequest::default();
    weft.pause(D, "acme-1", &pause).await.expect("paused");
    let removed = ListLimitRequest {
        fairness: Some(None),
        ..ListLimitRequest::default()
    };
    weft.limit_task_list(D, deciders, &removed)
        .await
        .expect("unkeyed");
    // The last keyed task handed out, the list is done with keys.
    let first = decision_task(&swf, DECIDERS).await;
    assert_eq!(
        first.workflow_execution().map(|e| e.workflow_id.as_str()),
        Some("acme-0")
    );
    no_decision_task(&server, &swf, DECIDERS).await;
    let lists = weft.task_lists(D).await.expect("the lists");
    assert!(
        (lists.iter()).all(|l| l.name != DECIDERS || l.keys.is_empty()),
        "{lists:?}"
    );

    weft.resume(D, "acme-1", &pause).await.expect("resumed");
    let held = decision_task(&swf, DECIDERS).await;
    assert_eq!(
        held.workflow_execution().map(|e| e.workflow_id.as_str()),
        Some("acme-1")
    );
}
