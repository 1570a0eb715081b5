//! Bindings with real components: they survive a restart and serve runs started after it;
//! removing one stops its workers, and binding again resumes the work left waiting.

use std::time::Duration;

use serde_json::json;
use weft_tests::aws_sdk_swf::types::CloseStatus;
use weft_tests::guests::{self, Bind, BindingKind, order};

use super::{closed, deploy_order, identities, server, start_order, wasm_identity};
use crate::flow::{D, count, history, pending_activities, types, wait_for_event};

#[tokio::test]
async fn bindings_survive_a_restart_and_serve_runs_started_after_it() {
    let (server, _c, weft) = server().await;
    let (decider, activities) = deploy_order(&weft).await;
    let before = weft.list_bindings(D).await.unwrap();
    let expected = |kind: &str, name: &str, module: &str| {
        json!({
            "account": "000000000000",
            "region": "us-east-1",
            "domain": D,
            "kind": kind,
            "name": name,
            "module": module,
            "concurrency": 4,
            "limits": {"cpuMs": 10_000, "memoryBytes": 64 << 20, "outputBytes": 1 << 20},
            "httpHosts": [],
        })
    };
    // The bindings as the wire has them.
    let path = format!("/v1/domains/{D}/bindings");
    let wire = server.http("GET", &path, b"").await.json();
    let mut listed = wire["bindings"].as_array().unwrap().clone();
    for binding in &mut listed {
        let made = binding.as_object_mut().unwrap().remove("createdAt");
        assert!(made.is_some_and(|t| t.is_f64()), "{binding}");
    }
    // A decision binding lists its versions: the modules bound to it, with the open runs
    // pinned to each.
    let mut decision = expected("decision", order::DECISION_TASK_LIST, &decider);
    let versions = listed[0]["versions"].as_array_mut().unwrap();
    let bound = versions[0].as_object_mut().unwrap().remove("boundAt");
    assert!(bound.is_some_and(|t| t.is_f64()), "{versions:?}");
    decision["versions"] = json!([{"number": 1, "module": decider, "pinnedRuns": 0}]);
    decision["lastVersion"] = json!(1);
    assert_eq!(
        listed,
        [
            decision,
            expected("activity", order::ACTIVITY_TASK_LIST, &activities),
        ]
    );

    let server = server.restart().await;
    let (c, weft) = (server.client(), guests::weft_client(&server));
    assert_eq!(weft.list_bindings(D).await.unwrap(), before);
    assert_eq!(weft.list_modules().await.unwrap().len(), 2);

    // The guests serve a run started after the restart, in-process.
    let run = start_order(&c, "after-restart", order::SAMPLE_ORDER).await;
    let run = closed(&server, "after-restart", &run).await;
    assert_eq!(run.status, CloseStatus::Completed, "{:?}", run.types());
    let deciders = identities(&run.events, "DecisionTaskStarted");
    assert!(!deciders.is_empty());
    assert!(
        deciders.iter().all(|i| *i == wasm_identity(&decider)),
        "{deciders:?}"
    );
    let workers = identities(&run.events, "ActivityTaskStarted");
    assert_eq!(workers.len(), 4, "verify, charge, ship, record");
    assert!(
        workers.iter().all(|i| *i == wasm_identity(&activities)),
        "{workers:?}"
    );
}

#[tokio::test]
async fn removing_a_binding_stops_its_workers_and_binding_again_resumes() {
    let (server, c, weft) = server().await;
    let (_, activities) = deploy_order(&weft).await;
    let list = order::ACTIVITY_TASK_LIST;
    // The workers serve while bound.
    let run = start_order(&c, "first", order::SAMPLE_ORDER).await;
    assert_eq!(
        closed(&server, "first", &run).await.status,
        CloseStatus::Completed
    );

    weft.unbind(D, BindingKind::Activity, list).await.unwrap();
    let bindings = weft.list_bindings(D).await.unwrap();
    let kinds: Vec<&str> = bindings.iter().map(|b| b.kind.name()).collect();
    assert_eq!(kinds, ["decision"]);

    // A task scheduled now waits: nothing serves its list any more.
    let run = start_order(&c, "second", order::SAMPLE_ORDER).await;
    wait_for_event(&c, "second", &run, "ActivityTaskScheduled").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let events = history(&c, "second", &run).await;
    assert_eq!(
        count(&events, "ActivityTaskStarted"),
        0,
        "{:?}",
        types(&events)
    );
    assert_eq!(count(&events, "ActivityTaskScheduled"), 1);
    assert_eq!(pending_activities(&c, list).await, 1);

    // Bound again, the module serves the task that waited.
    weft.bind(D, BindingKind::Activity, list, &Bind::module(&activities))
        .await
        .unwrap();
    let run = closed(&server, "second", &run).await;
    assert_eq!(run.status, CloseStatus::Completed, "{:?}", run.types());
    assert_eq!(pending_activities(&c, list).await, 0);
}
