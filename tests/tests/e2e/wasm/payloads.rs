//! One payload rule across languages (`guest-sdk/payloads.json`): a JavaScript worker under a
//! Python decider, and a Python worker under a JavaScript decider, turn each value of the table
//! into the same workflow result, the one the table gives (only with `WEFT_GUEST_LANG_TESTS`).

use serde_json::Value;
use weft_tests::aws_sdk_swf::types::CloseStatus;
use weft_tests::guests::{self, Bind, BindingKind};
use weft_tests::languages::{self, Lang};

use super::{CLOSE_WITHIN, server};
use crate::flow::{act_type, task_list, wf_type};

/// Registers `domain` with the Echo workflow and activity types.
async fn register(c: &weft_tests::aws_sdk_swf::Client, domain: &str) {
    crate::common::register_domain(c, domain).await;
    c.register_workflow_type()
        .domain(domain)
        .name("Echo")
        .version("1")
        .default_task_list(task_list("echo-decisions"))
        .default_execution_start_to_close_timeout("300")
        .default_task_start_to_close_timeout("30")
        .default_child_policy(weft_tests::aws_sdk_swf::types::ChildPolicy::Terminate)
        .send()
        .await
        .unwrap();
    let activity = act_type("Echo", "1");
    c.register_activity_type()
        .domain(domain)
        .name(activity.name())
        .version(activity.version())
        .default_task_list(task_list("echo-activities"))
        .default_task_start_to_close_timeout("30")
        .default_task_schedule_to_start_timeout("60")
        .default_task_schedule_to_close_timeout("90")
        .default_task_heartbeat_timeout("NONE")
        .send()
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn workers_of_every_language_answer_each_value_as_the_same_payload() {
    if !languages::enabled() {
        return eprintln!("skipped: set WEFT_GUEST_LANG_TESTS to build Python and JS guests");
    }
    let built = tokio::task::spawn_blocking(|| {
        let py = "tests/guests/echo-python";
        [
            languages::build(Lang::Python, "decider", &format!("{py}/echo_decider.py")),
            languages::build(
                Lang::Python,
                "activity-worker",
                &format!("{py}/echo_worker.py"),
            ),
            languages::build(Lang::Js, "decider", "tests/guests/echo-js/decider.js"),
            languages::build(
                Lang::Js,
                "activity-worker",
                "tests/guests/echo-js/worker.js",
            ),
        ]
    })
    .await
    .unwrap();
    let (server, c, weft) = server().await;
    let mut digests = Vec::new();
    for code in &built {
        digests.push(weft.upload_module(code.to_vec()).await.unwrap().digest);
    }
    let [py_decider, py_worker, js_decider, js_worker] = &digests[..] else {
        unreachable!()
    };
    let pairs = [
        ("python-decider-js-worker", py_decider, js_worker),
        ("js-decider-python-worker", js_decider, py_worker),
    ];
    let table: Value = serde_json::from_str(
        &std::fs::read_to_string(languages::root().join("guest-sdk/payloads.json")).unwrap(),
    )
    .unwrap();
    let cases = table["cases"].as_array().unwrap();
    let mut runs = Vec::new();
    for (domain, decider, worker) in pairs {
        register(&c, domain).await;
        for (kind, list, module) in [
            (BindingKind::Decision, "echo-decisions", decider),
            (BindingKind::Activity, "echo-activities", worker),
        ] {
            weft.bind(domain, kind, list, &Bind::module(module))
                .await
                .unwrap();
        }
        for (n, case) in cases.iter().enumerate() {
            let id = format!("echo-{n}");
            let started = c
                .start_workflow_execution()
                .domain(domain)
                .workflow_id(&id)
                .workflow_type(wf_type("Echo", "1"))
                .input(case["value"].to_string())
                .send()
                .await
                .unwrap();
            runs.push((domain, id, started.run_id.unwrap(), case));
        }
    }
    for (domain, id, run, case) in runs {
        let closed = guests::wait_closed(&server, domain, &id, &run, CLOSE_WITHIN).await;
        let name = case["name"].as_str().unwrap();
        assert_eq!(closed.status, CloseStatus::Completed, "{name} in {domain}");
        let last = closed.wire.last().unwrap();
        let result = &last["workflowExecutionCompletedEventAttributes"]["result"];
        assert_eq!(result, &case["payload"], "{name} in {domain}");
    }
}
