//! Requests the writer commits together in one batch: none changes what another is answered.
//! Each test sends its requests at once, many times over, so that they share batches.

use futures_util::future::join_all;
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::error::{ProvideErrorMetadata, SdkError};
use weft_tests::aws_sdk_swf::types::ChildPolicy;

use crate::common::{fault, register_domain};
use crate::flow::*;

/// How many times each test sends its requests together.
const ROUNDS: usize = 10;

/// Workflow types whose start is refused before it could start a run, with the fault each
/// start gets: every refusal a start's check can meet before it looks for the open run.
const REFUSED: [(&str, &str); 6] = [
    ("unknown", "UnknownResourceFault"),
    ("deprecated", "TypeDeprecatedFault"),
    ("no-task-list", "DefaultUndefinedFault"),
    ("no-execution-timeout", "DefaultUndefinedFault"),
    ("no-task-timeout", "DefaultUndefinedFault"),
    ("no-child-policy", "DefaultUndefinedFault"),
];

/// Registers the types of [`REFUSED`] (but `unknown`), each missing what its name says.
async fn register_refused_types(c: &Client) {
    for (name, _) in &REFUSED[1..] {
        let mut register = c
            .register_workflow_type()
            .domain(D)
            .name(*name)
            .version("1");
        if *name != "no-task-list" {
            register = register.default_task_list(task_list(DECIDERS));
        }
        if *name != "no-execution-timeout" {
            register = register.default_execution_start_to_close_timeout("3600");
        }
        if *name != "no-task-timeout" {
            register = register.default_task_start_to_close_timeout("60");
        }
        if *name != "no-child-policy" {
            register = register.default_child_policy(ChildPolicy::Terminate);
        }
        register.send().await.expect("type registered");
    }
    c.deprecate_workflow_type()
        .domain(D)
        .workflow_type(wf_type("deprecated", "1"))
        .send()
        .await
        .expect("type deprecated");
}

/// Starts `workflow_id` as type `name`: the fault's code, or `None` if it started.
async fn start_refused(c: &Client, workflow_id: &str, name: &str) -> Option<String> {
    let start = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id(workflow_id)
        .workflow_type(wf_type(name, "1"))
        .send()
        .await;
    start.is_err().then(|| fault(start).0)
}

/// The result of a call that must succeed, or its fault's code.
fn outcome<T, E: ProvideErrorMetadata, R>(result: Result<T, SdkError<E, R>>) -> Result<(), String> {
    result
        .map(drop)
        .map_err(|e| e.code().unwrap_or("no code").to_owned())
}

/// Every refused start, with signals, cancel requests and a decider's signal to the
/// workflow's open run sent at the same time: each of those reaches the run, and a start of a
/// type that would start is refused as the open run's (not as the domain's open-run limit,
/// which the open run fills). On PostgreSQL a batch takes the workflows it starts to have no
/// open run, unread; a start refused before inserting its run must not make that guess the
/// batch's answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_start_never_hides_the_open_run_from_requests_sent_with_it() {
    // The target and the run that signals it fill the domain.
    let server = TestServer::start_with(|config| config.limits.max_open_runs = 2).await;
    let c = server.client();
    register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    register_refused_types(&c).await;
    let target = start(&c, "target", "w").await;
    start_on(&c, "sender", "w", "senders").await;
    let senders_task = decision_task(&c, "senders").await;
    let mut token = senders_task.task_token().to_owned();

    for round in 0..ROUNDS {
        let starts = REFUSED
            .iter()
            .map(|(name, _)| *name)
            .chain(["w"])
            .map(|name| start_refused(&c, "target", name));
        let signals = (0..4).map(|_| async {
            let sent = c
                .signal_workflow_execution()
                .domain(D)
                .workflow_id("target");
            outcome(sent.signal_name("s").send().await)
        });
        let cancel = c
            .request_cancel_workflow_execution()
            .domain(D)
            .workflow_id("target")
            .send();
        let decided = c
            .respond_decision_task_completed()
            .task_token(&token)
            .decisions(signal_external("target", None, "from-sender"))
            .send();
        let (refusals, signalled, cancelled, decided) =
            tokio::join!(join_all(starts), join_all(signals), cancel, decided);
        let expected: Vec<Option<String>> = REFUSED
            .iter()
            .map(|(_, code)| Some((*code).to_owned()))
            .chain([Some("WorkflowExecutionAlreadyStartedFault".to_owned())])
            .collect();
        assert_eq!(refusals, expected, "round {round}");
        assert!(
            signalled.iter().all(Result::is_ok),
            "round {round}: {signalled:?}"
        );
        assert_eq!(outcome(cancelled), Ok(()), "round {round}");
        assert_eq!(outcome(decided), Ok(()), "round {round}");
        // The sender's next task comes with the outcome of its signal.
        signal(&c, "sender", "next").await;
        let task = decision_task(&c, "senders").await;
        let events = task.events();
        assert_eq!(
            count(events, "SignalExternalWorkflowExecutionFailed"),
            0,
            "round {round}: {:?}",
            types(events)
        );
        token = task.task_token().to_owned();
    }

    // Terminated while refused starts of it are made: it closes.
    let starts = REFUSED
        .iter()
        .map(|(name, _)| start_refused(&c, "target", name));
    let terminate = c
        .terminate_workflow_execution()
        .domain(D)
        .workflow_id("target")
        .send();
    let (_, terminated) = tokio::join!(join_all(starts), terminate);
    assert_eq!(outcome(terminated), Ok(()));
    let run = describe(&c, "target", &target).await;
    assert_eq!(
        run.execution_info().unwrap().execution_status().as_str(),
        "CLOSED"
    );
}
