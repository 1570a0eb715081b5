//! Runs pinned to their decider, and upgrades: three versions of `steps-decider` deployed one
//! after another with `weft deploy` while 30 runs are open across them (the second runs the
//! steps in the other order, the third only logs another line). Every run keeps the module
//! that decided its first task; `weft binding upgrade --dry-run` says which runs the third
//! would take, and binding it with `--upgrade replay` moves exactly those; a module open runs
//! are pinned to cannot be deleted; no decision task ever fails. On PostgreSQL (with
//! `WEFT_TEST_POSTGRES`) a second node on the same database serves the list too.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use weft_host::client::{RunFilter, RunQuery, RunSummary, UpgradeReport};
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{CloseStatus, EventType};
use weft_tests::guests::{self, BindingKind, WeftClient};

use super::replay::weft_cli;
use super::rollback::weft_ok;
use super::steps::{complete, wait_scheduled, work, work_first_steps};
use crate::common::register_domain;
use crate::flow::{D, DECIDERS, register_activity, register_workflow, start};
use crate::observability::{expect, sample, scrape};

/// `weft binding describe` of the decision binding.
pub(super) const DESCRIBE: [&str; 6] = [
    "binding",
    "describe",
    "--domain",
    D,
    "--decisions",
    DECIDERS,
];

/// Runs started on each version.
const RUNS: usize = 10;
/// How long a run may take to reach a state the test waits for.
pub(super) const PATIENCE: Duration = Duration::from_secs(60);

/// Deploys guest `name` as version `version` of module `steps` to the decision list with
/// `weft deploy`; answers its digest.
pub(super) async fn deploy(
    server: &TestServer,
    dir: &std::path::Path,
    name: &str,
    version: &str,
) -> String {
    deploy_with(server, dir, name, version, &[]).await
}

/// Like [`deploy`], with more of `weft deploy`'s flags.
pub(super) async fn deploy_with(
    server: &TestServer,
    dir: &std::path::Path,
    name: &str,
    version: &str,
    flags: &[&str],
) -> String {
    let path = dir.join(format!("{name}.wasm"));
    std::fs::write(&path, guests::guest(name)).unwrap();
    let file = path.to_str().unwrap();
    let args = [
        "deploy",
        file,
        "--domain",
        D,
        "--decisions",
        DECIDERS,
        "--name",
        "steps",
        "--version",
        version,
        "--json",
    ];
    let out = weft_ok(server, &[&args[..], flags].concat()).await;
    let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
    answer["module"]["digest"].as_str().unwrap().to_owned()
}

/// Registers the domain, the workflow type `steps` and its steps' activity types.
pub(super) async fn register(c: &Client) {
    register_domain(c, D).await;
    register_workflow(c, "steps").await;
    register_activity(c, "a").await;
    register_activity(c, "b").await;
}

/// Starts `RUNS` runs named `prefix-N`, through each of `clients` in turn; their (workflow id,
/// run id).
async fn start_runs(clients: &[Client], prefix: &str) -> Vec<(String, String)> {
    let mut runs = Vec::new();
    for n in 0..RUNS {
        let id = format!("{prefix}-{n}");
        let run = start(&clients[n % clients.len()], &id, "steps").await;
        runs.push((id, run));
    }
    runs
}

/// Another node on `server`'s database, serving its bindings with workers of its own; `None`
/// on redb, which one process holds.
async fn second_node(server: &TestServer) -> Option<TestServer> {
    let store = server.store()?.clone();
    Some(TestServer::start_with(move |config| config.store = Some(store.clone())).await)
}

/// The runs as `/v1` shows them now.
async fn summaries(weft: &WeftClient, runs: &[(String, String)]) -> Vec<RunSummary> {
    let mut found = Vec::new();
    for (id, run) in runs {
        found.push(weft.run_summary(D, id, run).await.unwrap());
    }
    found
}

/// Waits until every run is pinned to `module`.
pub(super) async fn wait_pinned(weft: &WeftClient, runs: &[(String, String)], module: &str) {
    for (id, run) in runs {
        guests::wait_pinned(weft, D, id, run, module, PATIENCE).await;
    }
}

/// Each run of the report by workflow id: whether it moves, and the module it leaves.
fn outcomes(report: &UpgradeReport) -> BTreeMap<String, (bool, String)> {
    report
        .runs
        .iter()
        .map(|r| (r.workflow_id.clone(), (r.moved, r.from.clone())))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_keep_their_decider_and_an_upgrade_moves_only_the_runs_it_replays_as_recorded() {
    let server = TestServer::start().await;
    let (c, weft) = (server.client(), guests::weft_client(&server));
    let other = second_node(&server).await;
    let nodes: Vec<&TestServer> = std::iter::once(&server).chain(&other).collect();
    let clients: Vec<Client> = nodes.iter().map(|node| node.client()).collect();
    register(&c).await;
    let dir = tempfile::tempdir().unwrap();

    // Ten runs start on the first version, ten more on the second.
    let v1 = deploy(&server, dir.path(), "steps-decider", "1").await;
    let first = start_runs(&clients, "first").await;
    wait_pinned(&weft, &first, &v1).await;
    let v2 = deploy(&server, dir.path(), "steps-decider-v2", "2").await;
    let second = start_runs(&clients, "second").await;
    wait_pinned(&weft, &second, &v2).await;
    wait_pinned(&weft, &first, &v1).await;
    let described = weft_ok(&server, &DESCRIBE).await;
    assert!(
        described.contains(&format!("v1 {v1}"))
            && described.contains("10 open runs pinned  (current)")
            && described.lines().count() == 3,
        "{described}"
    );

    // Each run's next step is its own version's: the first's run b, the second's a.
    wait_scheduled(&server, &first, &["a"]).await;
    wait_scheduled(&server, &second, &["b"]).await;
    let held = work_first_steps(&c, &[(&first, "a"), (&second, "b")]).await;
    wait_scheduled(&server, &first, &["a", "b"]).await;
    wait_scheduled(&server, &second, &["b", "a"]).await;

    // A module open runs are pinned to stays.
    let (ok, out, err) = weft_cli(&server, &["module", "delete", &v1]).await;
    assert!(!ok, "{out}");
    assert!(err.contains("decides 10 open runs, pinned to it"), "{err}");
    let pruned = weft_ok(&server, &["module", "prune", "--dry-run"]).await;
    assert!(
        pruned.contains(&format!("kept {v1}")) && !pruned.contains("would delete"),
        "{pruned}"
    );

    // The third version: a dry run says which runs it would take, and binding it with the
    // replay policy takes exactly those.
    let v3 = deploy(&server, dir.path(), "steps-decider-v3", "3").await;
    let upgrade = ["binding", "upgrade", "--domain", D, "--decisions", DECIDERS];
    let dry = weft_ok(&server, &[&upgrade[..], &["--dry-run", "--json"]].concat()).await;
    let dry: UpgradeReport = serde_json::from_str(&dry).unwrap();
    assert!(dry.dry_run);
    assert_eq!(dry.runs.len(), 2 * RUNS);
    for run in &dry.runs {
        let from_first = run.workflow_id.starts_with("first-");
        assert_eq!(run.moved, from_first, "{run:?}");
        assert_eq!(&run.from, if from_first { &v1 } else { &v2 }, "{run:?}");
        if !from_first {
            let divergence = run.divergence.as_ref().expect("why it stays");
            assert_eq!(divergence.decision, 0, "{divergence:?}");
        }
    }
    wait_pinned(&weft, &first, &v1).await;
    let bind = [
        "bind",
        "--domain",
        D,
        "--decisions",
        DECIDERS,
        "--module",
        &v3,
        "--upgrade",
        "replay",
        "--json",
    ];
    let bound: serde_json::Value = serde_json::from_str(&weft_ok(&server, &bind).await).unwrap();
    let done: UpgradeReport = serde_json::from_value(bound["upgraded"].clone()).unwrap();
    assert!(!done.dry_run);
    assert_eq!(outcomes(&done), outcomes(&dry));
    wait_pinned(&weft, &first, &v3).await;
    wait_pinned(&weft, &second, &v2).await;
    let text = scrape(&server, None).await;
    for (outcome, runs) in [("moved", RUNS), ("kept", RUNS)] {
        let series = format!(
            r#"weft_run_upgrades_total{{domain="{D}",binding="{DECIDERS}",outcome="{outcome}"}}"#
        );
        expect(&text, &series, runs as f64);
    }
    for moved in summaries(&weft, &first).await {
        let decider = moved.decider.unwrap();
        assert_eq!(decider.pin.moved_from.as_deref(), Some(v1.as_str()));
        assert_eq!(decider.version.as_deref(), Some("3"));
    }
    let third = start_runs(&clients, "third").await;
    wait_pinned(&weft, &third, &v3).await;
    // The listing picks the runs pinned to a module, by a prefix of its digest.
    let pinned_to = |module: &str| RunQuery {
        filter: RunFilter {
            module: Some(module[..12].to_owned()),
            ..RunFilter::default()
        },
        ..RunQuery::default()
    };
    let listed = weft.list_runs(D, &pinned_to(&v2)).await.unwrap().runs;
    let mut ids: Vec<_> = listed.iter().map(|r| r.workflow_id.as_str()).collect();
    ids.sort();
    let expected: Vec<_> = second.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, expected);
    let on_v3 = weft.count_runs(D, &pinned_to(&v3).filter).await.unwrap();
    assert_eq!(on_v3, 2 * RUNS as u64);
    // The metrics say how many runs each version holds, and which version decided the tasks.
    let mut decided_by_v2 = 0.0;
    for node in &nodes {
        let text = scrape(node, None).await;
        for (version, runs) in [(1, 0), (2, RUNS), (3, 2 * RUNS)] {
            let series = format!(
                r#"weft_runs_pinned{{domain="{D}",binding="{DECIDERS}",module_version="{version}"}}"#
            );
            expect(&text, &series, runs as f64);
        }
        let series = format!(
            r#"weft_decision_tasks_total{{domain="{D}",kind="decision",binding="{DECIDERS}",module_version="2"}}"#
        );
        decided_by_v2 += sample(&text, &series).unwrap_or(0.0);
    }
    // Each run of the second version has had two decision tasks at least.
    assert!(decided_by_v2 >= (2 * RUNS) as f64, "{decided_by_v2}");

    // The first version holds no run now: it can go, and leaves the binding's versions.
    weft_ok(&server, &["module", "delete", &v1]).await;
    let (ok, _, err) = weft_cli(&server, &["module", "delete", &v2]).await;
    assert!(!ok && err.contains("decides 10 open runs"), "{err}");
    let described = weft_ok(&server, &DESCRIBE).await;
    assert!(!described.contains(&v1), "{described}");
    assert!(
        described.contains(&format!("v3 {v3}"))
            && described.contains("20 open runs pinned  (current)"),
        "{described}"
    );
    let listed = weft_ok(&server, &["workflow", "describe", "first-0", "--domain", D]).await;
    assert!(
        listed.contains(&format!("decider steps 3 ({v3})"))
            && listed.contains(&format!("moved from {}", &v1[..12])),
        "{listed}"
    );

    // Every run finishes, each on its module, and no decider failed a task.
    for (token, step) in &held {
        complete(&c, token, step.clone()).await;
    }
    work(&c, 4 * RUNS - held.len()).await;
    let expected = [(&first, "a,b"), (&second, "b,a"), (&third, "a,b")];
    for (runs, result) in expected {
        for (id, run) in runs {
            let closed = guests::wait_closed(&server, D, id, run, PATIENCE).await;
            assert_eq!(closed.status, CloseStatus::Completed, "{id}");
            let completed = closed.events.last().unwrap();
            let attributes = completed
                .workflow_execution_completed_event_attributes()
                .unwrap();
            assert_eq!(attributes.result(), Some(result), "{id}");
            let timed_out = closed
                .events
                .iter()
                .any(|e| e.event_type() == &EventType::DecisionTaskTimedOut);
            assert!(!timed_out, "{id}: {:?}", closed.types());
        }
    }
    let failures = weft
        .failures(D, BindingKind::Decision, DECIDERS)
        .await
        .unwrap();
    assert!(failures.is_empty(), "{failures:?}");
    // What each run's decider logged (on whichever node decided) says which module decided it;
    // every node decided some.
    let mut served = vec![0; nodes.len()];
    for ((id, run), says) in [
        (&first[0], &["steps v1", "steps v3"][..]),
        (&first[1], &["steps v1", "steps v3"]),
        (&second[0], &["steps v2"]),
        (&second[1], &["steps v2"]),
        (&third[0], &["steps v3"]),
        (&third[1], &["steps v3"]),
    ] {
        let mut lines = Vec::new();
        for (node, served) in nodes.iter().zip(&mut served) {
            let logged = guests::weft_client(node)
                .run_logs(D, id, run)
                .await
                .unwrap();
            *served += logged.len();
            lines.extend(logged);
        }
        lines.sort_by_key(|line| line.at);
        let mut logged: Vec<&str> = lines
            .iter()
            .map(|l| l.message.split(',').next().unwrap())
            .collect();
        logged.dedup();
        assert_eq!(logged, says, "{id}");
    }
    assert!(
        served.iter().all(|&n| n > 0),
        "lines logged per node: {served:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rollback_moves_upgraded_runs_back_and_a_ramp_shares_new_runs_until_promoted() {
    let server = TestServer::start().await;
    let (c, weft) = (server.client(), guests::weft_client(&server));
    register(&c).await;
    let dir = tempfile::tempdir().unwrap();

    // Runs of the first version move to the third, which decides them alike, ...
    let v1 = deploy(&server, dir.path(), "steps-decider", "1").await;
    let old = start_runs(std::slice::from_ref(&c), "old").await;
    wait_pinned(&weft, &old, &v1).await;
    work(&c, RUNS).await;
    wait_scheduled(&server, &old, &["a", "b"]).await;
    let v3 = deploy(&server, dir.path(), "steps-decider-v3", "3").await;
    let bind = [
        "bind",
        "--domain",
        D,
        "--decisions",
        DECIDERS,
        "--module",
        &v3,
        "--upgrade",
        "replay",
    ];
    let out = weft_ok(&server, &bind).await;
    assert!(
        out.contains(&format!("moved {RUNS} of {RUNS} runs")),
        "{out}"
    );
    wait_pinned(&weft, &old, &v3).await;

    // ... and back to it when the binding is rolled back to it.
    let rollback = [
        "binding",
        "rollback",
        "--domain",
        D,
        "--decisions",
        DECIDERS,
    ];
    let out = weft_ok(&server, &rollback).await;
    assert!(out.contains(&format!("-> {v1}")), "{out}");
    assert!(
        out.contains(&format!("moved {RUNS} of {RUNS} runs")),
        "{out}"
    );
    for run in summaries(&weft, &old).await {
        let decider = run.decider.unwrap();
        assert_eq!(decider.pin.module, v1);
        assert_eq!(decider.pin.moved_from.as_deref(), Some(v3.as_str()));
    }

    // A ramp sends its share of new runs to the new decider, the rest to the one it replaces,
    // as the run id says on every node.
    let path = dir.path().join("steps-decider-v2.wasm");
    std::fs::write(&path, guests::guest("steps-decider-v2")).unwrap();
    let ramp = [
        "deploy",
        path.to_str().unwrap(),
        "--domain",
        D,
        "--decisions",
        DECIDERS,
        "--ramp",
        "30%",
    ];
    let out = weft_ok(&server, &ramp).await;
    assert!(out.contains("ramping up: 30% of new runs"), "{out}");
    // The module the ramp shares new runs with stays.
    let (ok, _, err) = weft_cli(&server, &["module", "delete", &v1]).await;
    assert!(!ok && err.contains("is bound"), "{err}");
    let bindings = weft.list_bindings(D).await.unwrap();
    let binding = bindings.iter().find(|b| b.name == DECIDERS).unwrap();
    let v2 = binding.module.clone();
    assert_eq!(binding.previous_module.as_deref(), Some(v1.as_str()));
    let mut ramped = Vec::new();
    for n in 0..4 {
        ramped.extend(start_runs(std::slice::from_ref(&c), &format!("ramp{n}")).await);
    }
    let mut on_new = 0;
    for (id, run) in &ramped {
        let expected = binding.module_for_new_run(run).to_owned();
        on_new += usize::from(expected == v2);
        wait_pinned(&weft, &[(id.clone(), run.clone())], &expected).await;
    }
    assert!(
        0 < on_new && on_new < ramped.len(),
        "{on_new} of {}",
        ramped.len()
    );

    // Promoted, the new decider takes every new run.
    let promote = ["binding", "promote", "--domain", D, "--decisions", DECIDERS];
    let out = weft_ok(&server, &promote).await;
    assert!(!out.contains("ramping"), "{out}");
    let promoted = start_runs(std::slice::from_ref(&c), "promoted").await;
    wait_pinned(&weft, &promoted, &v2).await;

    // `all` moves every run at once, unreplayed, only when forced, and only once.
    let all = [
        "bind",
        "--domain",
        D,
        "--decisions",
        DECIDERS,
        "--module",
        &v3,
        "--upgrade",
        "all",
    ];
    let (ok, _, err) = weft_cli(&server, &all).await;
    assert!(!ok && err.contains("give force"), "{err}");
    let out = weft_ok(&server, &[&all[..], &["--force"]].concat()).await;
    let pinned_elsewhere = old.len() + ramped.len() + promoted.len();
    assert!(
        out.contains(&format!(
            "moved {pinned_elsewhere} of {pinned_elsewhere} runs"
        )),
        "{out}"
    );
    assert!(
        out.contains(", upgrade replay"),
        "the policy kept is replay: {out}"
    );
    for (id, run) in old.iter().chain(&ramped).chain(&promoted) {
        guests::wait_pinned(&weft, D, id, run, &v3, PATIENCE).await;
    }

    // Every run completes on its module.
    work(&c, RUNS + 2 * (ramped.len() + promoted.len())).await;
    for (id, run) in old.iter().chain(&ramped).chain(&promoted) {
        let closed = guests::wait_closed(&server, D, id, run, PATIENCE).await;
        assert_eq!(closed.status, CloseStatus::Completed, "{id}");
        let pinned = weft.run_summary(D, id, run).await.unwrap().decider.unwrap();
        let result = closed.events.last().unwrap();
        let result = result.workflow_execution_completed_event_attributes();
        let expected = if pinned.pin.module == v2 {
            "b,a"
        } else {
            "a,b"
        };
        assert_eq!(result.unwrap().result(), Some(expected), "{id}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_their_decider_fails_on_move_to_the_fix_an_upgrade_replays_and_go_on() {
    let server = TestServer::start().await;
    let (c, weft) = (server.client(), guests::weft_client(&server));
    register(&c).await;
    let dir = tempfile::tempdir().unwrap();

    // A decider with a bug decides the runs' first tasks, then fails on every run.
    let broken = deploy(&server, dir.path(), "steps-decider-broken", "1").await;
    let runs = start_runs(std::slice::from_ref(&c), "stuck").await;
    wait_pinned(&weft, &runs, &broken).await;
    work(&c, RUNS).await;
    for (id, run) in &runs {
        let began = Instant::now();
        while weft.run_failures(D, id, run).await.unwrap().is_empty() {
            assert!(began.elapsed() < PATIENCE, "{id}: its decider did not fail");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    // The fix stays off the pinned runs until an upgrade replays them with it: they agree with
    // it on what they completed, move, and their held tasks are decided by the fix.
    let fixed = deploy(&server, dir.path(), "steps-decider", "2").await;
    let upgrade = ["binding", "upgrade", "--domain", D, "--decisions", DECIDERS];
    let out = weft_ok(&server, &upgrade).await;
    assert!(
        out.contains(&format!("moved {RUNS} of {RUNS} runs")),
        "{out}"
    );
    wait_pinned(&weft, &runs, &fixed).await;
    wait_scheduled(&server, &runs, &["a", "b"]).await;
    work(&c, RUNS).await;
    for (id, run) in &runs {
        let closed = guests::wait_closed(&server, D, id, run, PATIENCE).await;
        assert_eq!(closed.status, CloseStatus::Completed, "{id}");
    }
}
