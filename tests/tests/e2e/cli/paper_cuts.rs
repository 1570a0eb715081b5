//! The small things a new user trips over: digests by prefix, pruning unused modules, help that
//! shows only what a command takes, a busy port, a demo that can be short and finds a free
//! port, and a server that says where its console is.

use weft_tests::TestServer;
use weft_tests::guests;

use super::{Weft, weft};
use crate::flow::D;

#[tokio::test]
async fn digests_are_taken_by_prefix_and_unused_modules_pruned() {
    let server = TestServer::start().await;
    crate::common::register_domain(&server.client(), D).await;
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| {
        let path = dir.path().join(format!("{name}.wasm"));
        std::fs::write(&path, guests::guest(name)).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let upload = |name: &str| {
        let path = file(name);
        let server = &server;
        async move {
            let module = weft(server, &["module", "upload", &path, "--json"]).await;
            module.json()["digest"].as_str().unwrap().to_owned()
        }
    };
    let decider = upload("order-decider").await;
    let worker = upload("order-activities").await;
    let function = upload("price-function").await;

    let bind = [
        "bind",
        "--domain",
        D,
        "--decisions",
        "x",
        "--module",
        &decider[..12],
    ];
    let bound = weft(&server, &bind).await;
    assert!(bound.out().contains(&format!("-> {decider}")), "{bound:?}");
    let short = [
        "bind",
        "--domain",
        D,
        "--decisions",
        "x",
        "--module",
        &decider[..7],
    ];
    let refused = weft(&server, &short).await;
    assert!(refused.err().contains("Unknown module"), "{refused:?}");

    let dry = weft(&server, &["module", "prune", "--dry-run"]).await;
    let lines: Vec<_> = dry.out().lines().collect();
    assert_eq!(lines.len(), 2, "{dry:?}");
    assert!(
        lines.iter().all(|l| l.starts_with("would delete ")),
        "{dry:?}"
    );
    assert!(
        !dry.out().contains(&decider),
        "a bound module stays: {dry:?}"
    );
    let pruned = weft(&server, &["module", "prune", "--json"]).await.json();
    let deleted: Vec<_> = (pruned["deleted"].as_array().unwrap().iter())
        .map(|m| m["digest"].as_str().unwrap())
        .collect();
    assert_eq!(deleted.len(), 2);
    assert!(deleted.contains(&worker.as_str()) && deleted.contains(&function.as_str()));
    let left = weft(&server, &["module", "list", "--json"]).await.json();
    assert_eq!(left["modules"][0]["digest"], decider.as_str());
    assert_eq!(left["modules"].as_array().unwrap().len(), 1);
    let nothing = weft(&server, &["module", "prune"]).await;
    assert_eq!(nothing.out(), "no unused modules\n");

    // Deleting by prefix, once unbound.
    let unbind = ["binding", "remove", "--domain", D, "--decisions", "x"];
    weft(&server, &unbind).await.out();
    let deleted = weft(&server, &["module", "delete", &decider[..8]]).await;
    assert!(deleted.ok, "{deleted:?}");
    let none = weft(&server, &["module", "list", "--json"]).await.json();
    assert_eq!(none["modules"], serde_json::json!([]));
}

#[tokio::test]
async fn help_busy_ports_and_a_quiet_demo_say_what_a_user_needs() {
    let help = |args: &'static [&'static str]| Weft::bare().run(args);
    let workflow = help(&["workflow", "--help"]).await;
    assert!(!workflow.out().contains("--log-format"), "{workflow:?}");
    let serve = help(&["serve", "--help"]).await;
    assert!(serve.out().contains("--log-format"), "{serve:?}");
    assert!(help(&["demo", "--help"]).await.out().contains("--quiet"));

    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let data = tempfile::tempdir().unwrap();
    let data = data.path().to_str().unwrap().to_owned();
    let args = ["serve", "--listen", &addr, "--data", &data];
    let busy = Weft::bare().run(&args).await;
    assert!(
        busy.err().contains(&format!(
            "cannot listen on {addr}: the port is in use (is another weft running? --listen \
             127.0.0.1:0 picks a free port)"
        )),
        "{busy:?}"
    );

    let demo = [
        "demo",
        "--quiet",
        "--orders",
        "3",
        "--listen",
        "127.0.0.1:0",
    ];
    let quiet = Weft::bare().run(&demo).await;
    let out = quiet.out();
    let lines: Vec<_> = out.lines().filter(|l| !l.is_empty()).collect();
    // The serving line, one per order, the quote, and the summary.
    assert_eq!(lines.len(), 1 + 3 + 1 + 1, "{out}");
    assert!(lines[1].starts_with("order-1 ("), "{out}");
    assert!(lines[5].starts_with("3 orders closed in "), "{out}");

    // Without --listen, the demo serves on a free port when 8080 is taken (here, or by
    // whatever already holds it).
    let held = std::net::TcpListener::bind(weft_host::DEFAULT_LISTEN);
    let demo = Weft::bare()
        .run(&["demo", "--quiet", "--orders", "1"])
        .await;
    let first = demo.out().lines().next().unwrap_or_default().to_owned();
    assert!(
        first.starts_with("Weft is serving SWF on http://127.0.0.1:")
            && !first.contains(&format!("{} ", weft_host::DEFAULT_LISTEN)),
        "{demo:?}"
    );
    drop(held);

    // `weft serve` says where its console is.
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().to_owned();
    let mut serve = tokio::task::spawn_blocking(move || {
        weft_tests::process::Weft::start(&dir, &dir.join("weft.log"), None)
    })
    .await
    .unwrap();
    let console = format!("console at http://{}/console/", serve.addr);
    assert_eq!(serve.next_line(), console);
}

#[tokio::test]
async fn an_ephemeral_server_says_so_keeps_nothing_on_disk_and_refuses_a_shared_store() {
    let dir = tempfile::tempdir().unwrap();
    let (data, log) = (dir.path().join("data"), dir.path().join("weft.log"));
    let serve = || {
        let (data, log) = (data.clone(), log.clone());
        tokio::task::spawn_blocking(move || {
            let args = ["--ephemeral"];
            weft_tests::process::Weft::start_with(&data, &log, None, &args, "warn")
        })
    };
    let server = serve().await.unwrap();
    let at = || Weft::bare().env("WEFT_ENDPOINT", server.endpoint());
    at().run(&["domain", "register", "kept"]).await.out();
    let listed = at().run(&["domain", "list"]).await;
    assert!(listed.out().contains("kept"), "{listed:?}");
    let said = std::fs::read_to_string(&log).unwrap();
    assert!(
        said.contains("--ephemeral: the state is kept in memory only, and lost when weft stops"),
        "{said}"
    );
    let written: Vec<_> = std::fs::read_dir(&data)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(written.is_empty(), "an ephemeral server wrote {written:?}");
    drop(server);

    let again = serve().await.unwrap();
    let at = || Weft::bare().env("WEFT_ENDPOINT", again.endpoint());
    let listed = at().run(&["domain", "list"]).await;
    assert!(!listed.out().contains("kept"), "{listed:?}");

    let shared = [
        "serve",
        "--ephemeral",
        "--store",
        "postgres://nobody@127.0.0.1:1/x",
    ];
    let refused = Weft::bare().run(&shared).await;
    assert!(
        refused
            .err()
            .contains("--ephemeral keeps the state in this process's memory"),
        "{refused:?}"
    );
}
