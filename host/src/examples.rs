//! The example guests, for `weft demo` and the end-to-end tests: their Wasm components, built
//! for `wasm32-wasip2` when this crate is built (by `weft-example-guests`) and embedded in it,
//! so that `weft demo` needs no toolchain or source tree; and, re-exported from
//! `weft-examples`, what each example needs registered in a domain and its sample inputs
//! ([`order`], [`quote`]).
//!
//! The hostile test guests (`tests/guests/`) are built the same way by `weft-test-guests`, which
//! only tests depend on.
//!
//! ```
//! let decider = weft_host::examples::component("order-decider").unwrap();
//! assert_eq!(&decider[..4], b"\0asm");
//! ```

pub use weft_examples::{TypeName, order, quote};

/// The component built from the example crate `name`, if it is one: the order workflow's
/// decider, as a state machine and as async code, and its activity worker (`order-decider`,
/// `order-workflow`, `order-activities`), the quote workflow's
/// decider and its function `price` (`quote-decider`, `price-function`).
pub fn component(name: &str) -> Option<&'static [u8]> {
    weft_example_guests::component(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The component of example or test guest `name`.
    fn code(name: &str) -> &'static [u8] {
        component(name)
            .or_else(|| weft_test_guests::component(name))
            .unwrap_or_else(|| panic!("no guest is built from a crate named {name}"))
    }

    /// The guests against the real runtime, on Cranelift's code: each loads as its world,
    /// answers what its example promises, and each misbehaviour becomes the guest's failure.
    #[tokio::test(flavor = "multi_thread")]
    async fn the_runtime_loads_the_guests_and_contains_their_misbehaviour() {
        guests_behave_as_promised(false).await;
    }

    /// The same on Winch's code, which large modules run until Cranelift's is ready.
    #[tokio::test(flavor = "multi_thread")]
    async fn winch_s_code_contains_the_guests_misbehaviour_too() {
        guests_behave_as_promised(true).await;
    }

    async fn guests_behave_as_promised(winch: bool) {
        use crate::runtime::{
            Call, GuestFailure, GuestLimits, Heartbeat, Runtime, World, tasks, types,
        };
        use serde_json::json;
        use std::sync::Arc;

        let runtime = Runtime::new(None).unwrap();
        let load = |name: &str| match winch {
            true => runtime.load_by_winch(code(name)),
            false => runtime.load_optimized(code(name)),
        };
        let worlds = [
            ("order-decider", World::Decider),
            ("order-workflow", World::Decider),
            ("quote-decider", World::Decider),
            ("hostile-decider", World::Decider),
            ("one-activity-decider", World::Decider),
            ("clock-decider", World::Decider),
            ("order-activities", World::ActivityWorker),
            ("hostile-activity", World::ActivityWorker),
            ("price-function", World::Function),
            ("hostile-function", World::Function),
        ];
        for (name, world) in worlds {
            assert_eq!(
                load(name).unwrap_or_else(|e| panic!("{name}: {e}")).world,
                world
            );
        }
        let call = Call {
            label: "test".into(),
            limits: GuestLimits {
                cpu_ms: 500,
                memory_bytes: 16 << 20,
                output_bytes: 1 << 20,
            },
            share: std::sync::Arc::new(tokio::sync::Semaphore::new(4)),
            http_hosts: Arc::from([]),
            tap: None,
        };
        let decision_task = |name: &str, input: &str| {
            json!({
                "workflowExecution": {"workflowId": "w", "runId": "r"},
                "workflowType": {"name": name, "version": "1.0"},
                "previousStartedEventId": 0,
                "startedEventId": 3,
                "events": [
                    {"eventId": 1, "eventTimestamp": 1.0, "eventType": "WorkflowExecutionStarted",
                     "workflowExecutionStartedEventAttributes": {
                        "input": input, "childPolicy": "TERMINATE", "taskList": {"name": "d"},
                        "workflowType": {"name": name, "version": "1.0"}}},
                    {"eventId": 2, "eventTimestamp": 2.0, "eventType": "DecisionTaskScheduled",
                     "decisionTaskScheduledEventAttributes": {"taskList": {"name": "d"}}},
                    {"eventId": 3, "eventTimestamp": 3.0, "eventType": "DecisionTaskStarted",
                     "decisionTaskStartedEventAttributes": {"scheduledEventId": 2}},
                ],
            })
        };
        let order = load("order-decider").unwrap();
        let response = runtime
            .decide(
                &order,
                &call,
                &decision_task(order::WORKFLOW.name, order::SAMPLE_ORDER),
            )
            .await
            .unwrap();
        let types: Vec<&str> = response["decisions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["decisionType"].as_str().unwrap())
            .collect();
        assert_eq!(types, ["StartTimer", "ScheduleActivityTask"]);

        let activity_task = |name: &str, input: &str| tasks::ActivityTask {
            activity_id: "a".into(),
            activity_type: types::ActivityType {
                name: name.into(),
                version: "1.0".into(),
            },
            workflow_execution: types::WorkflowExecution {
                workflow_id: "w".into(),
                run_id: "r".into(),
            },
            input: Some(input.into()),
            started_event_id: 5,
        };
        let beats = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let counted = beats.clone();
        let heartbeat: Heartbeat = Arc::new(move |_| {
            let n = counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            Box::pin(async move { n >= 3 })
        });
        let activities = load("order-activities").unwrap();
        let charge = activity_task(order::CHARGE_CREDIT_CARD.name, order::SAMPLE_DECLINED_ORDER);
        let declined = runtime
            .run(&activities, &call, &charge, heartbeat.clone())
            .await
            .unwrap();
        assert!(
            matches!(declined, tasks::ActivityOutcome::Failed(f) if f.reason.as_deref() == Some("card declined"))
        );
        let hostile_activity = load("hostile-activity").unwrap();
        let canceled = runtime
            .run(
                &hostile_activity,
                &call,
                &activity_task("Hostile", "heartbeat"),
                heartbeat,
            )
            .await
            .unwrap();
        assert!(
            matches!(&canceled, tasks::ActivityOutcome::Canceled(Some(d)) if d == "canceled after 3 heartbeats"),
            "{canceled:?}"
        );

        let price = load("price-function").unwrap();
        let line = runtime
            .invoke(&price, &call, Some(r#"{"sku":"tea","quantity":3}"#))
            .await
            .unwrap();
        assert!(line.unwrap().unwrap().contains(r#""line_cents":1350"#));

        let hostile_function = load("hostile-function").unwrap();
        for (input, expected) in [
            ("loop", "CPU time"),
            ("alloc", "memory limit"),
            // Rust's own stack lives in linear memory: running off it is an out-of-bounds access.
            ("stack", "out of bounds memory access"),
            ("call-depth", "stack overflow"),
            (
                "trap",
                "the guest trapped: wasm `unreachable` instruction executed",
            ),
            // The SDK's panic hook tells the host where and why.
            ("panic", "the guest panicked at "),
            ("panic", ": asked to panic"),
            ("big", "exceeds the limit"),
        ] {
            let failure: GuestFailure = runtime
                .invoke(&hostile_function, &call, Some(input))
                .await
                .expect_err(input);
            assert!(failure.to_string().contains(expected), "{input}: {failure}");
        }
        let hostile_decider = load("hostile-decider").unwrap();
        let error = runtime
            .decide(&hostile_decider, &call, &decision_task("Hostile", "error"))
            .await
            .unwrap_err();
        assert_eq!(error, GuestFailure::Decider("asked to fail".into()));
    }

    /// A decision task of the clock decider's run `run_id`, its `DecisionTaskStarted` at
    /// 1,700,000,002.5 s.
    fn clock_task(run_id: &str) -> serde_json::Value {
        use serde_json::json;

        json!({
            "workflowExecution": {"workflowId": "w", "runId": run_id},
            "workflowType": {"name": "Clock", "version": "1.0"},
            "previousStartedEventId": 0,
            "startedEventId": 3,
            "events": [
                {"eventId": 1, "eventTimestamp": 1_700_000_000.0, "eventType": "WorkflowExecutionStarted",
                 "workflowExecutionStartedEventAttributes": {
                    "childPolicy": "TERMINATE", "taskList": {"name": "d"},
                    "workflowType": {"name": "Clock", "version": "1.0"}}},
                {"eventId": 2, "eventTimestamp": 1_700_000_000.0, "eventType": "DecisionTaskScheduled",
                 "decisionTaskScheduledEventAttributes": {"taskList": {"name": "d"}}},
                {"eventId": 3, "eventTimestamp": 1_700_000_002.5, "eventType": "DecisionTaskStarted",
                 "decisionTaskStartedEventAttributes": {"scheduledEventId": 2}},
            ],
        })
    }

    /// A decider that reads the clock and draws random numbers decides the same twice on one
    /// history: its clock reads the task's `DecisionTaskStarted` time and its randomness
    /// follows the run and the task.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_decider_reading_the_clock_and_randomness_decides_the_same_twice() {
        use crate::runtime::{Call, GuestLimits, Runtime};
        use serde_json::{Value, json};
        use std::sync::Arc;

        let runtime = Runtime::new(None).unwrap();
        let decider = runtime.load(code("clock-decider")).unwrap();
        let call = Call {
            label: "test".into(),
            limits: GuestLimits::default(),
            share: Arc::new(tokio::sync::Semaphore::new(1)),
            http_hosts: Arc::from([]),
            tap: None,
        };
        let reading = |response: &Value| -> Value {
            let details = &response["decisions"][0]["recordMarkerDecisionAttributes"]["details"];
            serde_json::from_str(details.as_str().unwrap()).unwrap()
        };
        let first = runtime
            .decide(&decider, &call, &clock_task("r1"))
            .await
            .unwrap();
        let again = runtime
            .decide(&decider, &call, &clock_task("r1"))
            .await
            .unwrap();
        assert_eq!(first, again);
        assert_eq!(reading(&first)["now"], json!(1_700_000_002.5));
        let other_run = runtime
            .decide(&decider, &call, &clock_task("r2"))
            .await
            .unwrap();
        assert_eq!(reading(&other_run)["now"], json!(1_700_000_002.5));
        assert_ne!(reading(&first)["random"], reading(&other_run)["random"]);
    }

    /// A large module is served by Winch's code, and Cranelift's takes its place in the
    /// background and in the cache: both decide the same, and a runtime on the same cache loads
    /// Cranelift's.
    #[tokio::test(flavor = "multi_thread")]
    async fn winch_s_code_decides_as_cranelift_s_which_takes_its_place() {
        use crate::runtime::{Call, Compiler, GuestLimits, Runtime};
        use std::sync::Arc;

        let code = code("clock-decider");
        let dir = tempfile::tempdir().unwrap();
        let cache = || Some(dir.path().to_owned());
        let runtime = Runtime::new(cache()).unwrap().tier_up_from(0);
        let by_winch = runtime.load_by_winch(code).unwrap();
        assert_eq!(by_winch.compiler(), Compiler::Winch);
        let module = runtime.load(code).unwrap();
        module.optimized().await;
        assert_eq!(module.compiler(), Compiler::Cranelift);

        let call = Call {
            label: "test".into(),
            limits: GuestLimits::default(),
            share: Arc::new(tokio::sync::Semaphore::new(1)),
            http_hosts: Arc::from([]),
            tap: None,
        };
        let task = clock_task("r");
        let winch_decided = runtime.decide(&by_winch, &call, &task).await.unwrap();
        let cranelift_decided = runtime.decide(&module, &call, &task).await.unwrap();
        assert_eq!(winch_decided, cranelift_decided);
        assert_eq!(
            winch_decided["decisions"][0]["decisionType"], "RecordMarker",
            "{winch_decided}"
        );

        let cached = dir.path().join(format!("{}.cwasm", module.digest));
        assert!(cached.exists(), "Cranelift's code is cached");
        let restarted = Runtime::new(cache()).unwrap().tier_up_from(0);
        assert_eq!(
            restarted.load(code).unwrap().compiler(),
            Compiler::Cranelift
        );
        restarted.unload(&module.digest);
        assert!(
            !cached.exists(),
            "an unloaded module's code leaves the cache"
        );
    }

    /// Only the guest's own computing counts against its CPU limit: two thousand heartbeats
    /// that each keep the host 300 µs (under one tick, so that about a third of them straddle a
    /// tick) take far longer than the 100 ms the guest may compute, and it still completes.
    #[tokio::test(flavor = "multi_thread")]
    async fn heartbeat_waits_are_not_charged_as_cpu_time() {
        use crate::runtime::{Call, GuestLimits, Heartbeat, Runtime, tasks, types};
        use std::sync::Arc;
        use std::time::{Duration, Instant};

        let runtime = Runtime::new(None).unwrap();
        let worker = runtime.load(code("hostile-activity")).unwrap();
        let call = Call {
            label: "test".into(),
            limits: GuestLimits {
                cpu_ms: 100,
                ..GuestLimits::default()
            },
            share: std::sync::Arc::new(tokio::sync::Semaphore::new(4)),
            http_hosts: Arc::from([]),
            tap: None,
        };
        let task = tasks::ActivityTask {
            activity_id: "a".into(),
            activity_type: types::ActivityType {
                name: "Hostile".into(),
                version: "1.0".into(),
            },
            workflow_execution: types::WorkflowExecution {
                workflow_id: "w".into(),
                run_id: "r".into(),
            },
            input: Some("heartbeat:2000".into()),
            started_event_id: 5,
        };
        let heartbeat: Heartbeat = Arc::new(|_| {
            Box::pin(async {
                std::thread::sleep(Duration::from_micros(300));
                false
            })
        });
        let began = Instant::now();
        let outcome = runtime.run(&worker, &call, &task, heartbeat).await;
        assert!(
            matches!(&outcome, Ok(tasks::ActivityOutcome::Completed(Some(n))) if n == "2000"),
            "{outcome:?}"
        );
        assert!(began.elapsed() > Duration::from_millis(500));
    }
}
