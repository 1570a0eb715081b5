//! Guests in Python and JavaScript, built from source with their SDKs, beside the Rust ones
//! (only with `WEFT_GUEST_LANG_TESTS`: see `weft_tests::languages`):
//!
//! - the order workflow ends every order the same whichever languages its decider and its
//!   worker are written in, mixed, and with its deciders written as workflow code in each;
//! - deciders that read the clock and draw random numbers read their task's time, and replay
//!   their own histories identically;
//! - each language's order workflow with its activities swapped is refused by `weft deploy
//!   --verify` on an open run, and one with a longer window is taken unless `--strict`.

use std::sync::Arc;

use serde_json::{Value, json};
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::CloseStatus;
use weft_tests::guests::{self, Bind, BindingKind, Closed, WeftClient, order};
use weft_tests::languages::{self, Lang};

use super::replay::weft_cli;
use super::{CLOSE_WITHIN, server};
use crate::flow::{D, first, wf_type};

/// A guest by what it is written in (and, for deciders, in which style).
type Guests = Vec<(&'static str, Arc<Vec<u8>>)>;

/// The order's deciders (the state machine in each language, and the workflow written as code:
/// async in Rust and Python, a generator in JavaScript) and its activity workers.
async fn order_guests() -> (Guests, Guests) {
    tokio::task::spawn_blocking(|| {
        let rust = |name| Arc::new(guests::guest(name));
        let (python, js) = (Lang::Python, Lang::Js);
        let deciders = vec![
            ("rust", rust("order-decider")),
            ("rust-workflow", rust("order-workflow")),
            (
                "python",
                languages::build(python, "decider", "examples/order-python/decider.py"),
            ),
            (
                "python-workflow",
                languages::build(python, "decider", "examples/order-python/workflow.py"),
            ),
            (
                "js",
                languages::build(js, "decider", "examples/order-js/decider.js"),
            ),
            (
                "js-workflow",
                languages::build(js, "decider", "examples/order-js/workflow.js"),
            ),
        ];
        let workers = vec![
            ("rust", rust("order-activities")),
            (
                "python",
                languages::build(
                    python,
                    "activity-worker",
                    "examples/order-python/activities.py",
                ),
            ),
            (
                "js",
                languages::build(js, "activity-worker", "examples/order-js/activities.js"),
            ),
        ];
        (deciders, workers)
    })
    .await
    .unwrap()
}

/// How a run ended: its close status, its closing event's attributes, and each activity's
/// result (or failure) by activity id (activities run at once may end in either order).
fn outcome(run: &Closed) -> Value {
    let mut ids = std::collections::BTreeMap::new();
    let mut activities = std::collections::BTreeMap::new();
    for event in &run.wire {
        let kind = event["eventType"].as_str().unwrap();
        let key = format!("{}{}EventAttributes", kind[..1].to_lowercase(), &kind[1..]);
        let attributes = &event[key];
        match kind {
            "ActivityTaskScheduled" => {
                ids.insert(
                    event["eventId"].clone().to_string(),
                    attributes["activityId"].clone(),
                );
            }
            "ActivityTaskCompleted" | "ActivityTaskFailed" => {
                let id = &ids[&attributes["scheduledEventId"].to_string()];
                let result = json!([
                    attributes["result"],
                    attributes["reason"],
                    attributes["details"]
                ]);
                activities.insert(id.to_string(), json!([kind, result]));
            }
            _ => {}
        }
    }
    // The closing event, less its ids and time: how the tasks fell out may differ.
    let mut close = run.wire.last().unwrap().clone();
    let close_type = close["eventType"].as_str().unwrap().to_owned();
    for member in ["eventId", "eventTimestamp"] {
        close.as_object_mut().unwrap().remove(member);
    }
    let key = format!(
        "{}{}EventAttributes",
        close_type[..1].to_lowercase(),
        &close_type[1..]
    );
    if let Some(attributes) = close[key].as_object_mut() {
        attributes.retain(|member, _| !member.ends_with("EventId"));
    }
    json!({"status": format!("{:?}", run.status), "close": close, "activities": activities})
}

#[tokio::test(flavor = "multi_thread")]
async fn the_order_workflow_ends_the_same_whichever_languages_serve_it() {
    if !languages::enabled() {
        return eprintln!("skipped: set WEFT_GUEST_LANG_TESTS to build Python and JS guests");
    }
    let (deciders, workers) = order_guests().await;
    let (server, c, weft) = server().await;
    let upload = |guests: Guests| {
        let weft = &weft;
        async move {
            let mut digests = Vec::new();
            for (lang, code) in guests {
                digests.push((
                    lang,
                    weft.upload_module(code.to_vec()).await.unwrap().digest,
                ));
            }
            digests
        }
    };
    let pairs = deciders.len() * workers.len();
    let (deciders, workers) = (upload(deciders).await, upload(workers).await);
    // Every decider with every worker, each pair in a domain of its own, all at once.
    let mut runs = Vec::new();
    for (decider_lang, decider) in &deciders {
        for (worker_lang, worker) in &workers {
            let domain = format!("{decider_lang}-decider-{worker_lang}-worker");
            guests::register_examples(&c, &domain).await;
            bind(&weft, &domain, decider, worker).await;
            for (id, input) in [
                ("order-1", order::SAMPLE_ORDER),
                ("order-2", order::SAMPLE_DECLINED_ORDER),
            ] {
                let run = start_order(&c, &domain, id, input).await;
                runs.push((domain.clone(), id, run));
            }
        }
    }
    let mut ended = std::collections::BTreeMap::new();
    for (domain, id, run) in runs {
        let run = guests::wait_closed(&server, &domain, id, &run, CLOSE_WITHIN).await;
        ended.insert((domain, id), outcome(&run));
    }
    let baseline = |id: &str| ended[&("rust-decider-rust-worker".to_owned(), id)].clone();
    assert_eq!(baseline("order-1")["status"], "Completed");
    assert_eq!(baseline("order-2")["status"], "Failed");
    assert_eq!(
        baseline("order-1")["close"]["workflowExecutionCompletedEventAttributes"]["result"],
        r#"{"charge":{"amount_cents":4200,"charge_id":"CH-order-1"},"order_id":"order-1","shipment":{"tracking":"TRK-order-1"}}"#
    );
    for ((domain, id), outcome) in &ended {
        assert_eq!(*outcome, baseline(id), "{id} in {domain}");
    }
    assert_eq!(ended.len(), pairs * 2);
}

/// Binds the order decider and worker `decider` and `worker` (digests) in `domain`.
async fn bind(weft: &WeftClient, domain: &str, decider: &str, worker: &str) {
    let decisions = (BindingKind::Decision, order::DECISION_TASK_LIST, decider);
    let activities = (BindingKind::Activity, order::ACTIVITY_TASK_LIST, worker);
    for (kind, list, module) in [decisions, activities] {
        // The default limits, which fit the interpreters.
        weft.bind(domain, kind, list, &Bind::module(module))
            .await
            .unwrap();
    }
}

async fn start_order(c: &Client, domain: &str, workflow_id: &str, input: &str) -> String {
    let started = c
        .start_workflow_execution()
        .domain(domain)
        .workflow_id(workflow_id)
        .workflow_type(wf_type(order::WORKFLOW.name, order::WORKFLOW.version))
        .input(input)
        .send()
        .await;
    started.unwrap().run_id.expect("a runId")
}

#[tokio::test(flavor = "multi_thread")]
async fn deciders_reading_the_clock_and_randomness_replay_the_same_in_every_language() {
    if !languages::enabled() {
        return eprintln!("skipped: set WEFT_GUEST_LANG_TESTS to build Python and JS guests");
    }
    let clocks = tokio::task::spawn_blocking(|| {
        vec![
            ("rust", Arc::new(guests::guest("clock-decider"))),
            (
                "python",
                languages::build(
                    Lang::Python,
                    "decider",
                    "tests/guests/clock-python/clock.py",
                ),
            ),
            (
                "js",
                languages::build(Lang::Js, "decider", "tests/guests/clock-js/decider.js"),
            ),
        ]
    })
    .await
    .unwrap();
    let (server, c, weft) = server().await;
    c.register_workflow_type()
        .domain(D)
        .name("Clock")
        .version("1")
        .default_execution_start_to_close_timeout("300")
        .default_task_start_to_close_timeout("30")
        .default_child_policy(weft_tests::aws_sdk_swf::types::ChildPolicy::Terminate)
        .send()
        .await
        .unwrap();
    for (lang, code) in clocks {
        let list = format!("clock-{lang}");
        let module = weft.upload_module(code.to_vec()).await.unwrap().digest;
        let bind = Bind::module(&module);
        weft.bind(D, BindingKind::Decision, &list, &bind)
            .await
            .unwrap();
        let run = c
            .start_workflow_execution()
            .domain(D)
            .workflow_id(&list)
            .workflow_type(wf_type("Clock", "1"))
            .task_list(guests::task_list(&list))
            .send()
            .await
            .unwrap()
            .run_id
            .expect("a runId");
        let run = guests::wait_closed(&server, D, &list, &run, CLOSE_WITHIN).await;
        assert_eq!(
            run.status,
            CloseStatus::Completed,
            "{lang}: {:?}",
            run.types()
        );
        check_readings(lang, &run);

        let replay = weft_host::client::Replay {
            module,
            task_list: Some(list),
            ..Default::default()
        };
        let report = weft.replay(D, &replay).await.unwrap();
        let [replayed] = &report.runs[..] else {
            panic!("{lang}: {report:?}")
        };
        assert_eq!(
            (replayed.decision_tasks, &replayed.divergence),
            (2, &None),
            "{lang}"
        );
    }
}

/// The clock each task read is its DecisionTaskStarted time; the random numbers differ.
fn check_readings(lang: &str, run: &Closed) {
    let started: Vec<f64> = run
        .events
        .iter()
        .filter(|e| e.event_type().as_str() == "DecisionTaskStarted")
        .map(|e| e.event_timestamp().as_secs_f64())
        .collect();
    let marker = first(&run.events, "MarkerRecorded");
    let marked = marker.marker_recorded_event_attributes().unwrap().details();
    let completed = first(&run.events, "WorkflowExecutionCompleted");
    let result = completed
        .workflow_execution_completed_event_attributes()
        .unwrap()
        .result();
    let [marked, result]: [Value; 2] =
        [marked, result].map(|text| serde_json::from_str(text.unwrap()).unwrap());
    for (reading, at) in [(&marked, started[0]), (&result, started[1])] {
        let now = reading["now"].as_f64().unwrap();
        assert!(
            (now - at).abs() < 1e-6,
            "{lang}: read {now}, started at {at}"
        );
    }
    assert_ne!(marked["random"], result["random"], "{lang}");
}

#[tokio::test(flavor = "multi_thread")]
async fn deploy_verify_refuses_a_swapped_activity_order_on_an_open_run_and_takes_a_new_duration() {
    if !languages::enabled() {
        return eprintln!("skipped: set WEFT_GUEST_LANG_TESTS to build Python and JS guests");
    }
    let (deciders, workers) = order_guests().await;
    // Each language's order workflow with its first two activities swapped (charge, then
    // verify), and with a window a second longer than the order asks.
    let changed = tokio::task::spawn_blocking(|| {
        let (python, js, rust) = (
            "examples/order-python/workflow.py",
            "examples/order-js/workflow.js",
            "examples/order-workflow",
        );
        let swap = |verify: &str, charge: &str| {
            let (verify, charge) = (verify.to_owned(), charge.to_owned());
            move |source: &str| edit(&edit(source, &verify, "\0"), &charge, &verify).replace('\0', &charge)
        };
        let longer = |window: &'static str| {
            move |source: &str| edit(source, window, &format!("({window}) + 1"))
        };
        let build = |lang, file, edit: &dyn Fn(&str) -> String| {
            languages::build_edited(lang, "decider", file, |s| edit(s))
        };
        [
            (
                "python",
                build(Lang::Python, python, &swap(r#""verify-order", VERIFY_ORDER"#, r#""charge-credit-card", CHARGE_CREDIT_CARD"#)),
                build(Lang::Python, python, &longer(r#"as_u64(get(order, "cancel_window_seconds")) or DEFAULT_CANCEL_WINDOW_SECS"#)),
            ),
            (
                "js",
                build(Lang::Js, js, &swap("'verify-order', VERIFY_ORDER", "'charge-credit-card', CHARGE_CREDIT_CARD")),
                build(Lang::Js, js, &longer("order.cancel_window_seconds ?? DEFAULT_CANCEL_WINDOW_SECS")),
            ),
            (
                "rust",
                languages::build_rust_edited(rust, swap("ids::VERIFY, VERIFY_ORDER", "ids::CHARGE, CHARGE_CREDIT_CARD")),
                languages::build_rust_edited(rust, longer("seconds.unwrap_or(DEFAULT_CANCEL_WINDOW_SECS)")),
            ),
        ]
    })
    .await
    .unwrap();
    let (server, c, weft) = server().await;
    let dir = tempfile::tempdir().unwrap();
    let mut input: Value = serde_json::from_str(order::SAMPLE_ORDER).unwrap();
    input["cancel_window_seconds"] = json!(3600);
    for (lang, swapped, longer) in changed {
        let find =
            |guests: &Guests, name: &str| guests.iter().find(|g| g.0 == name).unwrap().1.clone();
        let decider = find(&deciders, &format!("{lang}-workflow"));
        let worker = find(&workers, lang);
        let domain = format!("{lang}-verify");
        guests::register_examples(&c, &domain).await;
        let decider = weft.upload_module(decider.to_vec()).await.unwrap().digest;
        let worker = weft.upload_module(worker.to_vec()).await.unwrap().digest;
        bind(&weft, &domain, &decider, &worker).await;
        // Open for an hour: its window.
        let run = start_order(&c, &domain, "order-1", &input.to_string()).await;
        wait_for_timer(&c, &domain, "order-1", &run).await;

        let deploy = |code: Vec<u8>, extra: &'static [&'static str]| {
            let file = dir.path().join(format!("{lang}-{}.wasm", extra.len()));
            std::fs::write(&file, code).unwrap();
            let (server, domain) = (&server, domain.clone());
            async move {
                let mut args = vec![
                    "deploy".to_owned(),
                    file.to_str().unwrap().to_owned(),
                    "--domain".into(),
                    domain,
                    "--decisions".into(),
                    order::DECISION_TASK_LIST.into(),
                    "--verify".into(),
                    "10".into(),
                ];
                args.extend(extra.iter().map(|a| a.to_string()));
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                weft_cli(server, &args).await
            }
        };
        let (ok, out, err) = deploy(swapped.clone(), &[]).await;
        assert!(!ok, "{lang}: {out}{err}");
        assert!(
            out.contains(
                r#""charge-credit-card" in the replay, "verify-order" in the history (event 6)"#
            ),
            "{lang}: {out}"
        );
        assert!(err.contains("not bound"), "{lang}: {err}");

        // Forced, it is bound, and the open run stays on its own decider; moved to it unreplayed
        // (`upgrade --all --force`), the run fails on its next decision task, and the failure
        // keeps what the SDK logged: Python's traceback, JavaScript's stack (Rust's error is
        // its whole story).
        let (ok, out, err) = deploy(swapped, &["--force"]).await;
        assert!(ok, "{lang}: {out}{err}");
        let list = order::DECISION_TASK_LIST;
        let upgrade = [
            "binding",
            "upgrade",
            "--domain",
            &domain,
            "--decisions",
            list,
        ];
        let (ok, out, err) =
            weft_cli(&server, &[&upgrade[..], &["--all", "--force"]].concat()).await;
        assert!(
            ok && out.contains("moved 1 of 1 runs"),
            "{lang}: {out}{err}"
        );
        c.signal_workflow_execution()
            .domain(&domain)
            .workflow_id("order-1")
            .signal_name("poke")
            .send()
            .await
            .unwrap();
        let failure = first_failure(&weft, &domain, "order-1", &run).await;
        assert!(
            failure.reason.contains("nondeterminism"),
            "{lang}: {failure:?}"
        );
        let details = failure.details.unwrap_or_default();
        match lang {
            "python" => assert!(
                details.contains("Traceback (most recent call last)"),
                "{details}"
            ),
            "js" => assert!(
                details.starts_with("NondeterminismError: nondeterminism") && details.contains('@'),
                "{details}"
            ),
            _ => assert_eq!(details, "", "{lang}"),
        }

        // A longer window cannot break the open run: accepted, but not with --strict.
        let (ok, out, err) = deploy(longer.clone(), &["--strict"]).await;
        assert!(!ok, "{lang}: {out}{err}");
        assert!(
            out.contains(r#"StartTimer's startToFireTimeout is "3601" in the replay"#),
            "{lang}: {out}"
        );
        let (ok, out, err) = deploy(longer, &[]).await;
        assert!(ok, "{lang}: {out}{err}");
        assert!(
            err.contains("verified 1 runs: none diverges"),
            "{lang}: {err}"
        );
    }
}

/// The run's first guest failure, once there is one.
async fn first_failure(
    weft: &WeftClient,
    domain: &str,
    workflow_id: &str,
    run: &str,
) -> weft_tests::guests::GuestFailureRecord {
    for _ in 0..600 {
        let failures = weft.run_failures(domain, workflow_id, run).await.unwrap();
        if let Some(first) = failures.into_iter().next() {
            return first.failure;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{workflow_id} in {domain}: no guest failure within 60 s");
}

/// `source` with `from` replaced by `to`, which must change it.
fn edit(source: &str, from: &str, to: &str) -> String {
    assert!(source.contains(from), "the source no longer holds {from}");
    source.replace(from, to)
}

/// Waits until the run has started its cancellation window's timer.
async fn wait_for_timer(c: &Client, domain: &str, workflow_id: &str, run: &str) {
    for _ in 0..300 {
        let history = c
            .get_workflow_execution_history()
            .domain(domain)
            .execution(
                weft_tests::aws_sdk_swf::types::WorkflowExecution::builder()
                    .workflow_id(workflow_id)
                    .run_id(run)
                    .build()
                    .unwrap(),
            )
            .send()
            .await
            .unwrap();
        let started = history
            .events()
            .iter()
            .any(|e| e.event_type().as_str() == "TimerStarted");
        if started {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{workflow_id} started no timer in 30 s");
}
