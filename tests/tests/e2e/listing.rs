//! ListOpenWorkflowExecutions, ListClosedWorkflowExecutions, CountOpenWorkflowExecutions and
//! CountClosedWorkflowExecutions: every filter, their exclusions, order and pages (spec §4.2,
//! §8.13).

use std::collections::HashMap;
use std::time::Duration;

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::primitives::DateTime;
use weft_tests::aws_sdk_swf::types::{
    ChildPolicy, CloseStatus, CloseStatusFilter, Decision, ExecutionStatus, ExecutionTimeFilter,
    TagFilter, WorkflowExecutionFilter, WorkflowExecutionInfo, WorkflowTypeFilter,
};

use crate::common::fault;
use crate::flow::{
    D, cancel_workflow, complete_workflow, continue_as_new, continue_as_new_attributes,
    decision_task, fail_workflow, history, last, manual_server, respond, task_list, wf_type,
};

/// The arguments of a List/Count call besides the domain and the page token.
#[derive(Clone, Default)]
struct Query {
    start: Option<(DateTime, Option<DateTime>)>,
    close: Option<(DateTime, Option<DateTime>)>,
    workflow_id: Option<&'static str>,
    of_type: Option<(&'static str, Option<&'static str>)>,
    tag: Option<&'static str>,
    status: Option<CloseStatus>,
    page_size: Option<i32>,
    reverse: bool,
}

fn time_filter(range: Option<(DateTime, Option<DateTime>)>) -> Option<ExecutionTimeFilter> {
    range.map(|(oldest, latest)| {
        ExecutionTimeFilter::builder()
            .oldest_date(oldest)
            .set_latest_date(latest)
            .build()
            .unwrap()
    })
}

impl Query {
    fn since_epoch() -> Self {
        Query {
            start: Some((DateTime::from_secs(0), None)),
            ..Query::default()
        }
    }

    fn closed_since_epoch() -> Self {
        Query {
            close: Some((DateTime::from_secs(0), None)),
            ..Query::default()
        }
    }

    fn execution_filter(&self) -> Option<WorkflowExecutionFilter> {
        self.workflow_id.map(|id| {
            WorkflowExecutionFilter::builder()
                .workflow_id(id)
                .build()
                .unwrap()
        })
    }

    fn type_filter(&self) -> Option<WorkflowTypeFilter> {
        self.of_type.map(|(name, version)| {
            WorkflowTypeFilter::builder()
                .name(name)
                .set_version(version.map(str::to_owned))
                .build()
                .unwrap()
        })
    }

    fn tag_filter(&self) -> Option<TagFilter> {
        self.tag
            .map(|tag| TagFilter::builder().tag(tag).build().unwrap())
    }

    fn status_filter(&self) -> Option<CloseStatusFilter> {
        self.status
            .clone()
            .map(|status| CloseStatusFilter::builder().status(status).build().unwrap())
    }
}

type Page = (Vec<WorkflowExecutionInfo>, Option<String>);

async fn list_open(c: &Client, q: &Query, token: Option<String>) -> Result<Page, String> {
    c.list_open_workflow_executions()
        .domain(D)
        .set_start_time_filter(time_filter(q.start))
        .set_execution_filter(q.execution_filter())
        .set_type_filter(q.type_filter())
        .set_tag_filter(q.tag_filter())
        .set_maximum_page_size(q.page_size)
        .reverse_order(q.reverse)
        .set_next_page_token(token)
        .send()
        .await
        .map(|out| {
            let token = out.next_page_token().map(str::to_owned);
            (out.execution_infos().to_vec(), token)
        })
        .map_err(|e| fault(Err::<(), _>(e)).0)
}

async fn list_closed(c: &Client, q: &Query, token: Option<String>) -> Result<Page, String> {
    c.list_closed_workflow_executions()
        .domain(D)
        .set_start_time_filter(time_filter(q.start))
        .set_close_time_filter(time_filter(q.close))
        .set_execution_filter(q.execution_filter())
        .set_type_filter(q.type_filter())
        .set_tag_filter(q.tag_filter())
        .set_close_status_filter(q.status_filter())
        .set_maximum_page_size(q.page_size)
        .reverse_order(q.reverse)
        .set_next_page_token(token)
        .send()
        .await
        .map(|out| {
            let token = out.next_page_token().map(str::to_owned);
            (out.execution_infos().to_vec(), token)
        })
        .map_err(|e| fault(Err::<(), _>(e)).0)
}

async fn count_open(c: &Client, q: &Query) -> Result<i32, String> {
    c.count_open_workflow_executions()
        .domain(D)
        .set_start_time_filter(time_filter(q.start))
        .set_execution_filter(q.execution_filter())
        .set_type_filter(q.type_filter())
        .set_tag_filter(q.tag_filter())
        .send()
        .await
        .map(|out| {
            assert!(!out.truncated());
            out.count()
        })
        .map_err(|e| fault(Err::<(), _>(e)).0)
}

async fn count_closed(c: &Client, q: &Query) -> Result<i32, String> {
    c.count_closed_workflow_executions()
        .domain(D)
        .set_start_time_filter(time_filter(q.start))
        .set_close_time_filter(time_filter(q.close))
        .set_execution_filter(q.execution_filter())
        .set_type_filter(q.type_filter())
        .set_tag_filter(q.tag_filter())
        .set_close_status_filter(q.status_filter())
        .send()
        .await
        .map(|out| {
            assert!(!out.truncated());
            out.count()
        })
        .map_err(|e| fault(Err::<(), _>(e)).0)
}

/// How far the manual clock moves after each step of the fixture, so that start and close
/// times differ and every order is defined.
const STEP: Duration = Duration::from_secs(1);

/// The executions of this test, named by letter.
struct Fixture {
    c: Client,
    names: HashMap<String, &'static str>,
    /// When the first execution started, in milliseconds since the epoch.
    t0: i64,
}

impl Fixture {
    /// The time `steps` fixture steps after the first start.
    fn at(&self, steps: i64) -> DateTime {
        DateTime::from_millis(self.t0 + steps * STEP.as_millis() as i64)
    }

    fn names(&self, infos: &[WorkflowExecutionInfo]) -> Vec<&'static str> {
        infos
            .iter()
            .map(|i| self.names[i.execution().unwrap().run_id()])
            .collect()
    }

    /// Every page of an open listing: the names per page.
    async fn open_pages(&self, q: &Query) -> Vec<Vec<&'static str>> {
        let mut pages = Vec::new();
        let mut token = None;
        loop {
            let (infos, next) = list_open(&self.c, q, token).await.unwrap();
            pages.push(self.names(&infos));
            match next {
                Some(next) => token = Some(next),
                None => return pages,
            }
        }
    }

    async fn closed_pages(&self, q: &Query) -> Vec<Vec<&'static str>> {
        let mut pages = Vec::new();
        let mut token = None;
        loop {
            let (infos, next) = list_closed(&self.c, q, token).await.unwrap();
            pages.push(self.names(&infos));
            match next {
                Some(next) => token = Some(next),
                None => return pages,
            }
        }
    }

    /// The open executions `q` selects, checked against CountOpenWorkflowExecutions.
    async fn open(&self, q: Query) -> Vec<&'static str> {
        let names = self.open_pages(&q).await.concat();
        assert_eq!(count_open(&self.c, &q).await, Ok(names.len() as i32));
        names
    }

    async fn closed(&self, q: Query) -> Vec<&'static str> {
        let names = self.closed_pages(&q).await.concat();
        assert_eq!(count_closed(&self.c, &q).await, Ok(names.len() as i32));
        names
    }
}

async fn register(c: &Client, name: &str, version: &str) {
    c.register_workflow_type()
        .domain(D)
        .name(name)
        .version(version)
        .default_task_list(task_list("deciders"))
        .default_execution_start_to_close_timeout("3600")
        .default_task_start_to_close_timeout("60")
        .default_child_policy(ChildPolicy::Terminate)
        .send()
        .await
        .unwrap();
}

/// Starts `workflow_id` of `name`@`version` with `tags`, its decision tasks on list `list`,
/// then moves the clock one [`STEP`].
async fn start(
    server: &TestServer,
    c: &Client,
    id: &str,
    ty: (&str, &str),
    tags: &[&str],
    list: &str,
) -> String {
    let run = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id(id)
        .workflow_type(wf_type(ty.0, ty.1))
        .set_tag_list(Some(tags.iter().map(|t| t.to_string()).collect()))
        .task_list(task_list(list))
        .send()
        .await
        .unwrap()
        .run_id()
        .unwrap()
        .to_owned();
    server.advance(STEP).await;
    run
}

/// Answers the decision task on `list` with `decision`, then moves the clock one [`STEP`].
async fn decide(server: &TestServer, c: &Client, list: &str, decision: Decision) {
    let task = decision_task(c, list).await;
    respond(c, task.task_token(), vec![decision]).await;
    server.advance(STEP).await;
}

/// Open: A, B, H (H continued G). Closed: C completed, D terminated, E failed, F canceled,
/// G continued as new. Started A, B, C, D, E, G, F, H at steps 0, 1, 2, 3, 4, 5, 8, 9; closed
/// E, C, G, D, F at steps 6, 7, 9, 10, 11.
async fn fixture() -> (TestServer, Fixture) {
    let (server, c) = manual_server().await;
    let t0 = server.now_millis();
    register(&c, "order", "1").await;
    register(&c, "order", "2").await;
    register(&c, "refund", "1").await;
    let mut names = HashMap::new();
    names.insert(
        start(&server, &c, "w-a", ("order", "1"), &["red", "x"], "A").await,
        "A",
    );
    let b = start(&server, &c, "w-b", ("order", "2"), &["blue"], "B").await;
    names.insert(b, "B");
    let c_run = start(&server, &c, "w-c", ("refund", "1"), &["red"], "C").await;
    names.insert(c_run, "C");
    let d = start(&server, &c, "w-d", ("order", "1"), &[], "D").await;
    names.insert(d.clone(), "D");
    let e = start(&server, &c, "w-e", ("order", "2"), &["Red"], "E").await;
    names.insert(e, "E");
    let g = start(&server, &c, "w-g", ("order", "1"), &[], "G").await;
    names.insert(g.clone(), "G");

    decide(&server, &c, "E", fail_workflow("broken", "details")).await;
    decide(&server, &c, "C", complete_workflow(None)).await;
    let f = start(&server, &c, "w-c", ("refund", "1"), &[], "F").await;
    names.insert(f, "F");
    decide(
        &server,
        &c,
        "G",
        continue_as_new(continue_as_new_attributes().input("next")),
    )
    .await;
    let events = history(&c, "w-g", &g).await;
    let h = last(&events, "WorkflowExecutionContinuedAsNew")
        .workflow_execution_continued_as_new_event_attributes()
        .unwrap()
        .new_execution_run_id()
        .to_owned();
    names.insert(h, "H");
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id("w-d")
        .run_id(&d)
        .send()
        .await
        .unwrap();
    server.advance(STEP).await;
    c.request_cancel_workflow_execution()
        .domain(D)
        .workflow_id("w-c")
        .send()
        .await
        .unwrap();
    decide(
        &server,
        &c,
        "F",
        cancel_workflow("customer changed their mind"),
    )
    .await;
    (server, Fixture { c, names, t0 })
}

#[tokio::test]
async fn open_executions_by_every_filter() {
    let (_server, f) = fixture().await;
    let all = Query::since_epoch();
    assert_eq!(f.open(all.clone()).await, ["H", "B", "A"]);
    let reversed = Query {
        reverse: true,
        ..all.clone()
    };
    assert_eq!(f.open(reversed.clone()).await, ["A", "B", "H"]);
    let paged = Query {
        page_size: Some(2),
        ..all.clone()
    };
    assert_eq!(f.open_pages(&paged).await, [vec!["H", "B"], vec!["A"]]);
    let paged = Query {
        page_size: Some(2),
        ..reversed
    };
    assert_eq!(f.open_pages(&paged).await, [vec!["A", "B"], vec!["H"]]);

    let by_type = |name, version| Query {
        of_type: Some((name, version)),
        ..Query::since_epoch()
    };
    assert_eq!(f.open(by_type("order", None)).await, ["H", "B", "A"]);
    assert_eq!(f.open(by_type("order", Some("1"))).await, ["H", "A"]);
    assert_eq!(f.open(by_type("order", Some("2"))).await, ["B"]);
    assert!(f.open(by_type("refund", None)).await.is_empty());
    let by_tag = |tag| Query {
        tag: Some(tag),
        ..Query::since_epoch()
    };
    assert_eq!(f.open(by_tag("red")).await, ["A"]);
    assert_eq!(f.open(by_tag("x")).await, ["A"]);
    assert_eq!(f.open(by_tag("blue")).await, ["B"]);
    assert!(f.open(by_tag("Red")).await.is_empty(), "tags match exactly");
    let by_id = |id| Query {
        workflow_id: Some(id),
        ..Query::since_epoch()
    };
    assert_eq!(f.open(by_id("w-a")).await, ["A"]);
    assert_eq!(f.open(by_id("w-g")).await, ["H"]);
    assert!(f.open(by_id("w-c")).await.is_empty());

    // The time window is inclusive at both ends.
    let (infos, _) = list_open(&f.c, &all, None).await.unwrap();
    let info = |name| {
        infos
            .iter()
            .find(|i| f.names[i.execution().unwrap().run_id()] == name)
            .unwrap()
            .clone()
    };
    let (a, b, h) = (info("A"), info("B"), info("H"));
    assert_eq!(a.execution_status(), &ExecutionStatus::Open);
    assert_eq!(a.close_status(), None);
    assert_eq!(a.tag_list(), ["red", "x"]);
    assert_eq!(a.workflow_type(), Some(&wf_type("order", "1")));
    let started = |i: &WorkflowExecutionInfo| *i.start_timestamp();
    assert_eq!(
        [started(&a), started(&b), started(&h)],
        [f.at(0), f.at(1), f.at(9)]
    );
    let window = |oldest: &WorkflowExecutionInfo, latest: Option<&WorkflowExecutionInfo>| Query {
        start: Some((
            *oldest.start_timestamp(),
            latest.map(|l| *l.start_timestamp()),
        )),
        ..Query::default()
    };
    assert_eq!(f.open(window(&b, Some(&b))).await, ["B"]);
    assert_eq!(f.open(window(&a, Some(&b))).await, ["B", "A"]);
    assert_eq!(f.open(window(&b, None)).await, ["H", "B"]);
    let later = DateTime::from_secs_f64(h.start_timestamp().as_secs_f64() + 1.0);
    assert!(
        f.open(Query {
            start: Some((later, None)),
            ..Query::default()
        })
        .await
        .is_empty()
    );
}

#[tokio::test]
async fn closed_executions_by_every_filter() {
    let (_server, f) = fixture().await;
    let by_start = Query::since_epoch();
    assert_eq!(f.closed(by_start.clone()).await, ["F", "G", "E", "D", "C"]);
    let reversed = Query {
        reverse: true,
        ..by_start.clone()
    };
    assert_eq!(f.closed(reversed).await, ["C", "D", "E", "G", "F"]);
    let by_close = Query::closed_since_epoch();
    assert_eq!(f.closed(by_close.clone()).await, ["F", "D", "G", "C", "E"]);
    let reversed = Query {
        reverse: true,
        ..by_close.clone()
    };
    assert_eq!(f.closed(reversed.clone()).await, ["E", "C", "G", "D", "F"]);
    let paged = Query {
        page_size: Some(2),
        ..by_close.clone()
    };
    assert_eq!(
        f.closed_pages(&paged).await,
        [vec!["F", "D"], vec!["G", "C"], vec!["E"]]
    );
    let paged = Query {
        page_size: Some(2),
        ..reversed
    };
    assert_eq!(
        f.closed_pages(&paged).await,
        [vec!["E", "C"], vec!["G", "D"], vec!["F"]]
    );

    let by_status = |status| Query {
        status: Some(status),
        ..Query::closed_since_epoch()
    };
    assert_eq!(f.closed(by_status(CloseStatus::Completed)).await, ["C"]);
    assert_eq!(f.closed(by_status(CloseStatus::Failed)).await, ["E"]);
    assert_eq!(f.closed(by_status(CloseStatus::Canceled)).await, ["F"]);
    assert_eq!(f.closed(by_status(CloseStatus::Terminated)).await, ["D"]);
    assert_eq!(
        f.closed(by_status(CloseStatus::ContinuedAsNew)).await,
        ["G"]
    );
    assert!(f.closed(by_status(CloseStatus::TimedOut)).await.is_empty());
    let by_id = Query {
        workflow_id: Some("w-c"),
        ..Query::since_epoch()
    };
    assert_eq!(f.closed(by_id).await, ["F", "C"]);
    let by_type = |name, version| Query {
        of_type: Some((name, version)),
        ..Query::since_epoch()
    };
    assert_eq!(f.closed(by_type("refund", None)).await, ["F", "C"]);
    assert_eq!(f.closed(by_type("order", Some("2"))).await, ["E"]);
    assert_eq!(f.closed(by_type("order", None)).await, ["G", "E", "D"]);
    let by_tag = |tag| Query {
        tag: Some(tag),
        ..Query::closed_since_epoch()
    };
    assert_eq!(f.closed(by_tag("red")).await, ["C"]);
    assert_eq!(f.closed(by_tag("Red")).await, ["E"]);

    // Close-time windows, inclusive.
    let (infos, _) = list_closed(&f.c, &by_close, None).await.unwrap();
    let info = |name| {
        infos
            .iter()
            .find(|i| f.names[i.execution().unwrap().run_id()] == name)
            .unwrap()
            .clone()
    };
    let (c, d) = (info("C"), info("D"));
    assert_eq!(c.execution_status(), &ExecutionStatus::Closed);
    assert_eq!(c.close_status(), Some(&CloseStatus::Completed));
    assert_eq!(c.tag_list(), ["red"]);
    let closed_at = |i: &WorkflowExecutionInfo| *i.close_timestamp().expect("closeTimestamp");
    assert_eq!(*c.start_timestamp(), f.at(2));
    assert_eq!([closed_at(&c), closed_at(&d)], [f.at(7), f.at(10)]);
    let window = |oldest, latest| Query {
        close: Some((oldest, Some(latest))),
        ..Query::default()
    };
    assert_eq!(f.closed(window(closed_at(&d), closed_at(&d))).await, ["D"]);
    assert_eq!(
        f.closed(window(closed_at(&c), closed_at(&d))).await,
        ["D", "G", "C"]
    );
}

#[tokio::test]
async fn exclusive_filters_are_validation_errors() {
    let (_server, f) = fixture().await;
    let c = &f.c;
    let invalid = Err("ValidationException".to_owned());
    let base = Query::since_epoch();
    let id_and_type = Query {
        workflow_id: Some("w-a"),
        of_type: Some(("order", None)),
        ..base.clone()
    };
    let type_and_tag = Query {
        of_type: Some(("order", None)),
        tag: Some("red"),
        ..base.clone()
    };
    let id_and_tag = Query {
        workflow_id: Some("w-a"),
        tag: Some("red"),
        ..base.clone()
    };
    for q in [&id_and_type, &type_and_tag, &id_and_tag] {
        assert_eq!(list_open(c, q, None).await.map(drop), invalid);
        assert_eq!(count_open(c, q).await.map(drop), invalid);
        assert_eq!(list_closed(c, q, None).await.map(drop), invalid);
        assert_eq!(count_closed(c, q).await.map(drop), invalid);
    }
    let status_and_tag = Query {
        status: Some(CloseStatus::Completed),
        tag: Some("red"),
        ..base.clone()
    };
    let status_and_id = Query {
        status: Some(CloseStatus::Completed),
        workflow_id: Some("w-c"),
        ..base.clone()
    };
    let both_times = Query {
        close: Some((DateTime::from_secs(0), None)),
        ..base.clone()
    };
    let no_time = Query::default();
    for q in [&status_and_tag, &status_and_id, &both_times, &no_time] {
        assert_eq!(list_closed(c, q, None).await.map(drop), invalid);
        assert_eq!(count_closed(c, q).await.map(drop), invalid);
    }

    let unknown = Err("UnknownResourceFault".to_owned());
    let wrong_domain = c
        .list_open_workflow_executions()
        .domain("nope")
        .set_start_time_filter(time_filter(base.start))
        .send()
        .await
        .map(drop)
        .map_err(|e| fault(Err::<(), _>(e)).0);
    assert_eq!(wrong_domain, unknown);
    let wrong_domain = c
        .count_closed_workflow_executions()
        .domain("nope")
        .set_start_time_filter(time_filter(base.start))
        .send()
        .await
        .map(drop)
        .map_err(|e| fault(Err::<(), _>(e)).0);
    assert_eq!(wrong_domain, unknown);
}
