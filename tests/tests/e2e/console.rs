//! The web console in a real browser: `tests/console/console.mjs` drives Debian's Chromium
//! (through playwright-core) against a server with two tenants, while this test sets up the
//! data with aws-sdk-swf and checks afterwards what the API reports of what was done in the
//! browser. Runs when `WEFT_BROWSER_TESTS` is set (`.ci/run` sets it after installing Chromium);
//! screenshots of a failure go to `target/console-screenshots`. With
//! `WEFT_CONSOLE_SCREENSHOTS=DIR`, it also saves the README's screenshots of the main pages there.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::json;
use weft_host::client::{Client as WeftClient, ModuleLabel, RunFilter, RunQuery, RunState};
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::types::CloseStatus;
use weft_tests::guests::{self, order};
use weft_tests::tenants::{self, ACME, GLOBEX, Tenant};

use crate::flow::{since_ever, wf_type};

/// How long the order workflows may take to close.
const CLOSE_WITHIN: Duration = Duration::from_secs(30);

/// Whether the browser tests run.
fn enabled() -> bool {
    std::env::var_os("WEFT_BROWSER_TESTS").is_some_and(|v| !v.is_empty())
}

/// `tests/console`, where the script and its npm packages live.
fn script_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("console")
}

/// A `/v1` client signing as `tenant`.
fn weft_as(server: &TestServer, tenant: &Tenant) -> WeftClient {
    guests::weft_client(server).with_credentials(tenant.key, tenant.secret)
}

/// Starts an order of `tenant`'s in `domain` with `input`; its run id.
async fn start_order(
    swf: &weft_tests::aws_sdk_swf::Client,
    domain: &str,
    id: &str,
    input: &str,
) -> String {
    let ty = wf_type(order::WORKFLOW.name, order::WORKFLOW.version);
    swf.start_workflow_execution()
        .domain(domain)
        .workflow_id(id)
        .workflow_type(ty)
        .input(input)
        .send()
        .await
        .unwrap_or_else(|e| panic!("start {id}: {e:?}"))
        .run_id
        .expect("a run id")
}

/// An order that waits `window` seconds for a cancel signal before it ships.
fn order_waiting(window: u64) -> String {
    let mut input: serde_json::Value = serde_json::from_str(order::SAMPLE_ORDER).unwrap();
    input["cancel_window_seconds"] = json!(window);
    input.to_string()
}

/// Uploads guest `name` under its own name, version 1, and binds it to decision list `list`.
async fn deploy_named(weft: &WeftClient, name: &str, domain: &str, list: &str) -> String {
    let label = ModuleLabel {
        name: Some(name.into()),
        version: Some("1".into()),
    };
    let module = weft
        .upload_module_telling(guests::guest(name), &label, None)
        .await
        .unwrap();
    let bind = guests::Bind::module(&module.digest);
    let kind = guests::BindingKind::Decision;
    weft.bind(domain, kind, list, &bind).await.unwrap();
    module.digest
}

/// An order whose decider fails on it (the hostile test decider, bound to a list of its own in
/// place of a decider that would not fail), once its first failure is recorded; its run id and
/// the digest of the decider bound before.
async fn failing_run(
    server: &TestServer,
    swf: &weft_tests::aws_sdk_swf::Client,
    domain: &str,
) -> (String, String) {
    let list = "failing-decisions";
    let weft = weft_as(server, &ACME);
    let before = deploy_named(&weft, "one-activity-decider", domain, list).await;
    deploy_named(&weft, "hostile-decider", domain, list).await;
    let run = swf
        .start_workflow_execution()
        .domain(domain)
        .workflow_id("order-failing")
        .workflow_type(wf_type(order::WORKFLOW.name, order::WORKFLOW.version))
        .task_list(guests::task_list(list))
        .input("error")
        .send()
        .await
        .unwrap()
        .run_id
        .unwrap();
    for _ in 0..300 {
        if !weft
            .run_failures(domain, "order-failing", &run)
            .await
            .unwrap()
            .is_empty()
        {
            return (run, before);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the hostile decider did not fail within 30 s");
}

/// Runs the browser script with `config`; panics with its output unless it passes.
fn run_script(config: &serde_json::Value) {
    let dir = script_dir();
    if !dir.join("node_modules/playwright-core").exists() {
        let npm = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .output()
            .expect("npm runs");
        assert!(npm.status.success(), "npm ci: {npm:?}");
    }
    let out = Command::new("node")
        .arg(dir.join("console.mjs"))
        .arg(config.to_string())
        .current_dir(&dir)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the browser script failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
}

#[tokio::test]
async fn the_console_shows_each_tenant_its_own_and_acts_for_it() {
    if !enabled() {
        return;
    }
    let server = TestServer::start_with(|config| {
        tenants::both(config);
        config.poll_timeout = Duration::from_secs(1);
    })
    .await;
    let (acme_domain, globex_domain) = ("acme-orders", "globex-orders");
    let acme = ACME.client(&server);
    guests::register_examples(&acme, acme_domain).await;
    let (order_decider, _) = guests::deploy_order(&weft_as(&server, &ACME), acme_domain).await;
    let globex = GLOBEX.client(&server);
    guests::register_examples(&globex, globex_domain).await;

    let done = start_order(&acme, acme_domain, "order-done", order::SAMPLE_ORDER).await;
    let status = guests::wait_status(&acme, acme_domain, "order-done", &done, CLOSE_WITHIN).await;
    assert_eq!(status, CloseStatus::Completed);
    let events = guests::read_history(&acme, acme_domain, "order-done", &done).await;
    // The timeline names an activity's bars by its type.
    let activity_types: Vec<&str> = events
        .iter()
        .filter_map(|e| e.activity_task_scheduled_event_attributes())
        .filter_map(|a| a.activity_type())
        .map(|t| t.name())
        .collect();
    assert_eq!(
        activity_types.len(),
        4,
        "the sample order runs four activities"
    );
    // The completed order again, imported under another workflow id: listed with its badge.
    let weft_acme = weft_as(&server, &ACME);
    let exported = (weft_acme.export_run(
        acme_domain,
        &json!({"workflowId": "order-done", "runId": done}),
    ))
    .await
    .unwrap();
    let mut import = exported.to_import().unwrap();
    import.workflow_id = "order-imported".into();
    assert!(weft_acme.import_run(acme_domain, &import).await.unwrap());
    let to_signal = start_order(&acme, acme_domain, "order-signal", &order_waiting(600)).await;
    let to_stop = start_order(&acme, acme_domain, "order-stop", &order_waiting(600)).await;

    let (failing, before) = failing_run(&server, &acme, acme_domain).await;
    let mut nightly = Vec::new();
    for n in 1..=3 {
        let id = format!("order-nightly-{n}");
        let run = acme
            .start_workflow_execution()
            .domain(acme_domain)
            .workflow_id(&id)
            .workflow_type(wf_type(order::WORKFLOW.name, order::WORKFLOW.version))
            .input(order_waiting(600))
            .tag_list("nightly")
            .send()
            .await
            .unwrap()
            .run_id
            .unwrap();
        nightly.push((id, run));
    }

    // The open orders are pinned to the order's decider once it decided their first task.
    let open_orders: Vec<(&str, &str)> = [("order-signal", &to_signal), ("order-stop", &to_stop)]
        .into_iter()
        .chain(nightly.iter().map(|(id, run)| (id.as_str(), run)))
        .map(|(id, run)| (id, run.as_str()))
        .collect();
    for (id, run) in &open_orders {
        guests::wait_pinned(
            &weft_acme,
            acme_domain,
            id,
            run,
            &order_decider,
            CLOSE_WITHIN,
        )
        .await;
    }

    let screenshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/console-screenshots");
    let mut config = json!({
        "url": server.endpoint(),
        "chromium": std::env::var("WEFT_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()),
        "screenshots": screenshots,
        "tenants": [
            {
                "key": ACME.key, "secret": ACME.secret,
                "domain": acme_domain, "hiddenDomain": globex_domain,
                "completed": {
                    "workflowId": "order-done", "runId": done,
                    "events": events.len(),
                    "activities": activity_types,
                    // The order's activity worker logs a line per task.
                    "logLines": activity_types.len(),
                    "decider": {"module": order_decider, "name": "order-decider"},
                },
                "versions": {
                    "list": order::DECISION_TASK_LIST, "module": order_decider,
                    "pinned": open_orders.len(),
                },
                "signal": {
                    "workflowId": "order-signal", "runId": to_signal,
                    "name": order::CANCEL_SIGNAL, "input": "from the console",
                },
                "terminate": {
                    "workflowId": "order-stop", "runId": to_stop,
                    "reason": "from the console",
                },
                "reset": {"workflowId": "order-stop", "runId": to_stop},
                "failing": {
                    "workflowId": "order-failing", "runId": failing, "input": "error",
                    "reason": "weft: the decider failed: asked to fail",
                },
                "imported": {"workflowId": "order-imported", "runId": done},
                "search": {"workflowId": "order-done", "found": true},
                "rollback": {
                    "list": "failing-decisions", "to": before, "name": "one-activity-decider 1",
                },
                "batch": {"tag": "nightly", "count": 3, "reason": "batch from the console"},
            },
            {
                "key": GLOBEX.key, "secret": GLOBEX.secret,
                "domain": globex_domain, "hiddenDomain": acme_domain,
                "search": {"workflowId": "order-done", "found": false},
            },
        ],
    });
    if let Some(dir) = std::env::var_os("WEFT_CONSOLE_SCREENSHOTS") {
        config["readme"] = json!(PathBuf::from(dir));
    }
    tokio::task::spawn_blocking(move || run_script(&config))
        .await
        .unwrap();

    // What the browser did, as the API reports it.
    let signaled = guests::read_history(&acme, acme_domain, "order-signal", &to_signal).await;
    let signal = signaled
        .iter()
        .find_map(|e| e.workflow_execution_signaled_event_attributes())
        .expect("the console's signal is in the history");
    assert_eq!(signal.signal_name(), order::CANCEL_SIGNAL);
    assert_eq!(signal.input(), Some("from the console"));
    let stopped = acme
        .describe_workflow_execution()
        .domain(acme_domain)
        .execution(guests::execution("order-stop", &to_stop))
        .send()
        .await
        .unwrap();
    let info = stopped.execution_info().unwrap();
    assert_eq!(info.close_status(), Some(&CloseStatus::Terminated));
    let history = guests::read_history(&acme, acme_domain, "order-stop", &to_stop).await;
    let terminated = history
        .iter()
        .find_map(|e| e.workflow_execution_terminated_event_attributes())
        .expect("terminated");
    assert_eq!(terminated.reason(), Some("from the console"));
    // The console reset the terminated run to its first decision task: a new run is open.
    let open_stop = RunQuery {
        filter: RunFilter {
            status: Some(RunState::Open),
            workflow_id: Some("order-stop".into()),
            ..RunFilter::default()
        },
        ..RunQuery::default()
    };
    let reset = weft_acme.list_runs(acme_domain, &open_stop).await.unwrap();
    let [reset] = &reset.runs[..] else {
        panic!("{:?}", reset.runs)
    };
    assert_ne!(reset.run_id, to_stop);
    for (id, run) in &nightly {
        let history = guests::read_history(&acme, acme_domain, id, run).await;
        let terminated = history
            .iter()
            .find_map(|e| e.workflow_execution_terminated_event_attributes())
            .unwrap_or_else(|| panic!("{id} was not terminated"));
        assert_eq!(terminated.reason(), Some("batch from the console"));
    }
    let bindings = weft_as(&server, &ACME)
        .list_bindings(acme_domain)
        .await
        .unwrap();
    let rolled = bindings
        .iter()
        .find(|b| b.name == "failing-decisions")
        .unwrap();
    assert_eq!(rolled.module, before, "the console rolled the binding back");
    // GLOBEX was shown nothing of ACME's, and did nothing to it.
    let globex_runs = globex
        .list_open_workflow_executions()
        .domain(globex_domain)
        .start_time_filter(since_ever())
        .send()
        .await
        .unwrap();
    assert!(globex_runs.execution_infos().is_empty());
}

#[tokio::test]
async fn the_console_of_an_open_server_shows_the_region_chosen() {
    if !enabled() {
        return;
    }
    let server = TestServer::start().await;
    let (east, west) = (server.client(), server.client_in("eu-west-1"));
    crate::common::register_domain(&east, "east-orders").await;
    crate::common::register_domain(&west, "west-orders").await;
    let screenshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/console-screenshots");
    let config = json!({
        "url": server.endpoint(),
        "chromium": std::env::var("WEFT_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()),
        "screenshots": screenshots,
        "open": {"regions": [
            {"region": "eu-west-1", "domain": "west-orders"},
            {"region": "us-east-1", "domain": "east-orders"},
            {"region": "eu-west-1", "domain": "west-orders"},
        ]},
    });
    tokio::task::spawn_blocking(move || run_script(&config))
        .await
        .unwrap();
}
