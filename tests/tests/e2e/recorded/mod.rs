//! The recorded histories every history reader is tested against (`tests/fixtures/histories/`):
//! each scenario here runs on the real engine, on a manual clock standing at [`EPOCH`], and the
//! history it records, run ids and module digests renamed ([`Fixture::normalize`]), must be what
//! its fixture holds, beside the answers the scenario states a reader must give of it. With
//! `WEFT_RECORD_HISTORIES=1` the scenarios write their fixtures instead.
//!
//! The readers: the Rust, Python and JavaScript SDKs' history queries, the order deciders of all
//! three languages (state machines and workflows), `weft replay`'s cutting of a history into
//! decision tasks, and the web console's history model.

mod orders;
mod scripted;

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{Value, json};
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;

use crate::flow::{D, wait_for_events};

/// Where the clock of every scenario stands when it begins: 2026-01-01T00:00:00Z.
const EPOCH: i64 = 1_767_225_600_000;

/// A server on a manual clock at [`EPOCH`], with no domain yet; its SWF client.
async fn server() -> (TestServer, Client) {
    let server = TestServer::start_manual_at(EPOCH, None).await;
    let c = server.client();
    (server, c)
}

/// Waits until run `run_id` of `workflow_id` has `n` decision tasks completed: a decider serving
/// from inside the server has acted on what the test did last.
async fn decided(c: &Client, workflow_id: &str, run_id: &str, n: usize) {
    wait_for_events(c, workflow_id, run_id, "DecisionTaskCompleted", n).await;
}

/// One recorded history and what a reader must answer of it.
struct Fixture {
    /// The file's name, without `.json`.
    name: &'static str,
    /// What the scenario did, for whoever reads the file.
    about: &'static str,
    workflow_id: &'static str,
    /// What a reader must answer of the whole history: see `tests/fixtures/histories/README.md`.
    expect: Value,
    /// Module digest prefixes (in workers' identities) and the guests' names they become.
    modules: Vec<(String, &'static str)>,
}

impl Fixture {
    /// Reads the history of run `run_id` from `server`, and checks it against the fixture's
    /// file (or writes the file, with `WEFT_RECORD_HISTORIES=1`).
    async fn check(&self, server: &TestServer, run_id: &str) {
        let endpoint = server.endpoint();
        let addr = endpoint.trim_start_matches("http://");
        let events = weft_tests::history_json(addr, D, self.workflow_id, run_id).await;
        let mut document = json!({
            "about": self.about,
            "workflowId": self.workflow_id,
            "runId": run_id,
            "expect": self.expect,
            "events": events,
        });
        self.normalize(&mut document, run_id);
        let text = serde_json::to_string_pretty(&document).unwrap() + "\n";
        let path = fixtures().join(format!("{}.json", self.name));
        if std::env::var_os("WEFT_RECORD_HISTORIES").is_some() {
            std::fs::write(&path, text).unwrap();
            return;
        }
        let kept = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            kept == text,
            "{} is not the history the engine records now; if the change is meant, rewrite the \
             fixtures with WEFT_RECORD_HISTORIES=1 cargo test -p weft-tests --test e2e recorded \
             and review their diff. Recorded now:\n{text}",
            path.display()
        );
    }

    /// Renames what differs from one recording to the next: run ids (random) become `run-1`,
    /// `run-2`, ... in order of appearance, the recorded run first; and `weft:DIGEST` identities
    /// name the guest instead of its build.
    fn normalize(&self, document: &mut Value, run_id: &str) {
        let mut runs = HashMap::from([(run_id.to_string(), "run-1".to_string())]);
        rename(document, &mut runs, &self.modules);
    }
}

/// Renames, everywhere in `value`, run ids (as [`Fixture::normalize`] says) and module digests.
fn rename(value: &mut Value, runs: &mut HashMap<String, String>, modules: &[(String, &str)]) {
    match value {
        Value::Object(members) => {
            for (key, member) in members.iter_mut() {
                match (key.as_str(), &*member) {
                    (
                        "runId" | "newExecutionRunId" | "continuedExecutionRunId",
                        Value::String(id),
                    ) => {
                        let next = format!("run-{}", runs.len() + 1);
                        *member = Value::String(runs.entry(id.clone()).or_insert(next).clone());
                    }
                    ("identity", Value::String(identity)) => {
                        if let Some((_, name)) = modules
                            .iter()
                            .find(|(d, _)| identity.strip_prefix("weft:") == Some(&d[..12]))
                        {
                            *member = Value::String(format!("weft:{name}"));
                        }
                    }
                    _ => rename(member, runs, modules),
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| rename(item, runs, modules)),
        _ => {}
    }
}

/// `tests/fixtures/histories/`.
fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/histories")
}

/// Every fixture file has a scenario here: none is left that the engine no longer writes.
#[test]
fn every_fixture_is_written_by_a_scenario() {
    let mut files: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".json").map(str::to_string)
        })
        .collect();
    files.sort();
    let mut written: Vec<&str> = orders::NAMES
        .iter()
        .chain(scripted::NAMES)
        .copied()
        .collect();
    written.sort();
    assert_eq!(files, written);
}
