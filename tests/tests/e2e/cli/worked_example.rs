//! The worked example every SDK's README shows (an `Order` that charges and reserves at once,
//! waits a day for a confirming signal, ships through a child `Ship`, and refunds if asked to
//! cancel), in each guest language, as a newcomer would take it: written into a project `weft
//! new` made with nothing but the binary, with an activity worker and a manifest for it; the
//! project's `Environment` tests (the cancel path among them) run by its README's test command;
//! then, on a server, confirmed by a signal and canceled with a refund, and, on a time-skipping
//! server, shipped unconfirmed a day later. The decider is read from the SDK's README at run
//! time, so that what the README shows is what runs. Gated as `newcomer.rs` is.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use weft_tests::languages;
use weft_tests::process::{Weft, binary};

use super::newcomer::{bash, shell_blocks};

/// The line of each SDK's README that the worked example's code block follows.
const EXAMPLE: &str = "The worked example every SDK's README shows";

/// How long a run may take to reach a point, or to close: the server compiles a component of
/// 12-19 MiB on its first task.
const DEADLINE: Duration = Duration::from_secs(300);

/// How often a run is looked at while waiting for it.
const POLL_EVERY: Duration = Duration::from_millis(250);

#[test]
fn the_readmes_worked_example_runs_in_every_language() {
    if !languages::enabled() || weft_tests::test_store().is_some() {
        return;
    }
    // The user's cache, where `weft new` unpacks the SDKs the binary carries.
    let cache = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let (plain_data, skipping_data) = (data.path().join("plain"), data.path().join("skipping"));
    std::fs::create_dir_all(&plain_data).unwrap();
    std::fs::create_dir_all(&skipping_data).unwrap();
    let plain = Weft::start(&plain_data, &data.path().join("plain.log"), None);
    // Its clock jumps over the day the order waits for its confirmation.
    let skipping = Weft::start_with(
        &skipping_data,
        &data.path().join("skipping.log"),
        None,
        &["--time-skipping"],
        "warn",
    );
    // As `newcomer.rs` does: Rust projects' dependencies compile once across runs.
    let rust_target = languages::target_dir().join("newcomer-rust");
    std::fs::create_dir_all(&rust_target).unwrap();

    let projects = tempfile::tempdir().unwrap();
    for lang in ["rust", "python", "js"] {
        let dir = projects.path().join(format!("order-{lang}"));
        weft_new(lang, &dir, cache.path());
        write_example(lang, &dir);
        let target = (lang == "rust").then_some(rust_target.as_path());
        build_test_and_apply(lang, &dir, target, &[plain.endpoint(), skipping.endpoint()]);
        let on_plain = Project {
            lang,
            dir: &dir,
            endpoint: plain.endpoint(),
        };
        confirmed_by_a_signal(&on_plain);
        canceled_with_a_refund(&on_plain);
        let on_skipping = Project {
            endpoint: skipping.endpoint(),
            ..on_plain
        };
        unconfirmed_a_day_later(&on_skipping);
    }
}

/// `weft new LANG DIR` with no `--sdk`: the SDKs unpacked into the cache `cache`.
fn weft_new(lang: &str, dir: &Path, cache: &Path) {
    let new = Command::new(binary())
        .args(["new", lang])
        .arg(dir)
        .env("XDG_CACHE_HOME", cache)
        .output()
        .unwrap();
    assert!(new.status.success(), "{new:?}");
}

/// The first ```` ```fence ```` block after the line starting `heading` in the SDK README
/// `readme` (a path from the repository's root).
fn block_after(readme: &str, heading: &str, fence: &str) -> String {
    let path = languages::root().join(readme);
    let text = std::fs::read_to_string(&path).unwrap();
    let from = text
        .find(&format!("\n{heading}"))
        .unwrap_or_else(|| panic!("no {heading:?} in {}", path.display()));
    let open = format!("\n```{fence}\n");
    let start = text[from..]
        .find(&open)
        .map(|at| from + at + open.len())
        .unwrap_or_else(|| panic!("no {fence} block after {heading:?} in {}", path.display()));
    let end = text[start..].find("\n```").expect("the block ends") + start + 1;
    text[start..end].to_owned()
}

/// Replaces the greeting `weft new` wrote in `dir` with the worked example: the decider from
/// the SDK's README, a worker of its activities, `Environment` tests, and a manifest.
fn write_example(lang: &str, dir: &Path) {
    let write = |path: &str, text: &str| std::fs::write(dir.join(path), text).unwrap();
    let remove = |path: &str| std::fs::remove_file(dir.join(path)).unwrap();
    match lang {
        "rust" => {
            let example = block_after("guest-sdk/README.md", EXAMPLE, "rust");
            write("decider/src/lib.rs", &format!("{example}\n{RUST_TESTS}"));
            write("worker/src/lib.rs", RUST_WORKER);
        }
        "python" => {
            let example = block_after("guest-sdk/python/README.md", EXAMPLE, "python");
            write("decider.py", &example);
            write("worker.py", PYTHON_WORKER);
            remove("test_greeting.py");
            write("test_order.py", PYTHON_TESTS);
        }
        _ => write_js_example(dir),
    }
    let generated = std::fs::read_to_string(dir.join("weft-app.toml")).unwrap();
    write("weft-app.toml", &manifest(&generated));
}

/// [`write_example`] for JavaScript, whose README also shows the example's test.
fn write_js_example(dir: &Path) {
    let readme = "guest-sdk/js/README.md";
    let example = block_after(readme, EXAMPLE, "js");
    let check = block_after(readme, "Its test, with the testing `Environment`", "js");
    let tests = JS_TESTS.replace("  // The README's test.\n", &indent(&check));
    std::fs::write(dir.join("decider.js"), example).unwrap();
    std::fs::write(dir.join("worker.js"), JS_WORKER).unwrap();
    std::fs::remove_file(dir.join("greeting.test.js")).unwrap();
    std::fs::write(dir.join("order.test.js"), tests).unwrap();
}

/// `text` indented by two spaces, as a function's body.
fn indent(text: &str) -> String {
    text.lines().map(|line| format!("  {line}\n")).collect()
}

/// The worked example's manifest, keeping the domain and the module files of `generated`, the
/// one `weft new` wrote.
fn manifest(generated: &str) -> String {
    let quoted = |key: &str| {
        let lines = generated.lines().filter_map(|l| l.strip_prefix(key));
        lines
            .map(|v| v.trim().trim_matches('"'))
            .collect::<Vec<_>>()
    };
    let (names, files) = (quoted("name = "), quoted("file = "));
    assert_eq!(files.len(), 2, "a decider and a worker in {generated}");
    MANIFEST
        .replace("@DOMAIN@", names[0])
        .replace("@DECIDER@", files[0])
        .replace("@WORKER@", files[1])
}

/// The README's shell blocks: build, then test, then `weft apply` against each of `endpoints`.
fn build_test_and_apply(lang: &str, dir: &Path, target: Option<&Path>, endpoints: &[String]) {
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let blocks = shell_blocks(&readme);
    assert!(blocks.len() >= 3, "{readme}");
    assert_eq!(blocks[2].trim(), "weft apply", "{readme}");
    bash(&blocks[0], dir, &endpoints[0], target);
    // Its output, to see that the three tests ran (unittest reports on stderr).
    let tested = bash(
        &format!("{{\n{}\n}} 2>&1", blocks[1]),
        dir,
        &endpoints[0],
        target,
    );
    let ran = match lang {
        "rust" => "test result: ok. 3 passed",
        "python" => "Ran 3 tests",
        _ => " pass 3\n",
    };
    assert!(tested.contains(ran), "{lang}: no {ran:?} in\n{tested}");
    for endpoint in endpoints {
        let applied = bash(&blocks[2], dir, endpoint, target);
        let domain = format!("registered  domain order-{lang}");
        assert!(applied.contains(&domain), "{lang}: {applied}");
    }
}

/// A project and the server its `weft` commands go to.
struct Project<'a> {
    lang: &'static str,
    dir: &'a Path,
    endpoint: String,
}

impl Project<'_> {
    /// Runs `script` in the project against the server; its stdout.
    fn sh(&self, script: &str) -> String {
        bash(script, self.dir, &self.endpoint, None)
    }

    /// The input of the order `id`: the Rust example takes the SKU as text (which names its
    /// child, so it is the id here), the others an order as JSON.
    fn input(&self, id: &str) -> String {
        match self.lang {
            "rust" => id.to_owned(),
            _ => json!({"id": id, "sku": "sku-1", "card": "visa"}).to_string(),
        }
    }

    /// The command that starts an `Order` with the id `id`.
    fn start_command(&self, id: &str) -> String {
        let input = self.input(id);
        format!("weft workflow start --type Order:1.0 --id {id} --input '{input}'")
    }

    /// The run `id`'s events.
    fn events(&self, id: &str) -> Vec<Value> {
        let out = self.sh(&format!("weft workflow history {id} --json"));
        let history: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
        history["events"].as_array().cloned().unwrap_or_default()
    }

    /// Waits until the run `id`'s history has an event of `event_type`.
    fn wait_for(&self, id: &str, event_type: &str) {
        poll(
            &format!("{}: {id} recording {event_type}", self.lang),
            || {
                let events = self.events(id);
                let seen = types(&events);
                match seen.contains(&event_type) {
                    true => Ok(()),
                    false => Err(format!("{seen:?}")),
                }
            },
        );
    }

    /// Waits until the run `id` closes; its `executionInfo`.
    fn closed(&self, id: &str) -> Value {
        poll(&format!("{}: {id} closing", self.lang), || {
            let out = self.sh(&format!("weft workflow describe {id} --json"));
            let described: Value =
                serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
            let info = &described["executionInfo"];
            match info["executionStatus"] == "CLOSED" {
                true => Ok(info.clone()),
                false => Err(format!("{info}; {:?}", types(&self.events(id)))),
            }
        })
    }

    /// `script`, its time bounded, printing the run `id`'s history if it fails.
    fn bounded(&self, id: &str, script: &str) -> String {
        let secs = DEADLINE.as_secs();
        self.sh(&format!(
            "timeout {secs} {script} || {{ weft workflow history {id}; exit 1; }}"
        ))
    }
}

/// Calls `look` until it answers `Ok`, for at most [`DEADLINE`]; panics saying what was awaited
/// (`what`) and what the last look saw.
fn poll<T>(what: &str, mut look: impl FnMut() -> Result<T, String>) -> T {
    let deadline = Instant::now() + DEADLINE;
    loop {
        match look() {
            Ok(found) => return found,
            Err(seen) if Instant::now() >= deadline => {
                panic!("{what}: not within {DEADLINE:?}; last seen: {seen}")
            }
            Err(_) => std::thread::sleep(POLL_EVERY),
        }
    }
}

/// The types of `events`, in order.
fn types(events: &[Value]) -> Vec<&str> {
    let all = events
        .iter()
        .map(|e| e["eventType"].as_str().unwrap_or("?"));
    all.collect()
}

/// Asserts that `result` is the example's for an order shipped with the worker's receipt and
/// tracking, `confirmed` or not: the Rust example writes it as text, the others as JSON.
fn assert_shipped(lang: &str, result: &str, confirmed: bool) {
    let result = result.trim_end();
    if lang == "rust" {
        let expected = format!("receipt-1 tracking-1 confirmed={confirmed}");
        assert_eq!(result, expected, "{lang}: the result");
        return;
    }
    let read: Value =
        serde_json::from_str(result).unwrap_or_else(|e| panic!("{lang}: {e}: {result:?}"));
    let expected = json!({
        "receipt": "receipt-1", "tracking": "tracking-1", "confirmed": confirmed
    });
    assert_eq!(read, expected, "{lang}: the result");
}

/// A run waiting on its day's timer, confirmed by a signal: it ships confirmed.
fn confirmed_by_a_signal(project: &Project) {
    let id = "o-confirmed";
    project.sh(&project.start_command(id));
    // Reserved and charged: waiting for the signal or the day, whichever comes first.
    project.wait_for(id, "TimerStarted");
    project.sh(&format!("weft workflow signal {id} --name confirm"));
    let result = project.bounded(id, &format!("weft workflow result {id} --wait"));
    assert_shipped(project.lang, &result, true);
}

/// A run asked to cancel while it waits: it refunds the charge and closes canceled, with the
/// details "refunded", never shipping.
fn canceled_with_a_refund(project: &Project) {
    let (lang, id) = (project.lang, "o-canceled");
    project.sh(&project.start_command(id));
    project.wait_for(id, "TimerStarted");
    project.sh(&format!("weft workflow cancel {id}"));
    let info = project.closed(id);
    let events = project.events(id);
    let seen = types(&events);
    assert_eq!(info["closeStatus"], "CANCELED", "{lang}: {info}\n{seen:?}");
    let refunds: Vec<_> = events
        .iter()
        .filter(|e| e["activityTaskScheduledEventAttributes"]["activityType"]["name"] == "Refund")
        .map(|e| &e["eventId"])
        .collect();
    let refunded = events.iter().any(|e| {
        let completed = &e["activityTaskCompletedEventAttributes"]["scheduledEventId"];
        refunds.contains(&completed)
    });
    assert!(refunded, "{lang}: no Refund completed in {seen:?}");
    assert!(
        !seen.contains(&"ChildWorkflowExecutionCompleted"),
        "{lang}: it shipped: {seen:?}"
    );
    let canceled = events.last().expect("a closed run has events");
    let details = &canceled["workflowExecutionCanceledEventAttributes"]["details"];
    assert_eq!(details, "refunded", "{lang}: {canceled}");
}

/// On the time-skipping server, a run nobody confirms ships unconfirmed once the server's
/// clock has skipped the day.
fn unconfirmed_a_day_later(project: &Project) {
    let id = "o-unconfirmed";
    let result = project.bounded(id, &format!("{} --wait", project.start_command(id)));
    assert_shipped(project.lang, &result, false);
    let events = project.events(id);
    let at = |event_type: &str| {
        let event = events.iter().find(|e| e["eventType"] == event_type);
        event.and_then(|e| e["eventTimestamp"].as_f64())
    };
    let waited = at("TimerFired").zip(at("TimerStarted")).map(|(f, s)| f - s);
    assert!(
        waited.is_some_and(|w| w >= 24.0 * 3600.0),
        "{}: the timer waited {waited:?} s: {:?}",
        project.lang,
        types(&events)
    );
}

/// The manifest: `@DOMAIN@` (the project's domain) and the module files are filled in.
const MANIFEST: &str = include_str!("worked_example/weft-app.toml");

/// The Rust project's tests, after the README's code in `decider/src/lib.rs`.
const RUST_TESTS: &str = include_str!("worked_example/decider_tests.rs");

/// The Rust project's worker: each activity answers at once.
const RUST_WORKER: &str = include_str!("worked_example/worker.rs");

/// The Python project's worker.
const PYTHON_WORKER: &str = include_str!("worked_example/worker.py");

/// The Python project's tests, as `tests/test_worked_example.py` in the SDK tests the example.
const PYTHON_TESTS: &str = include_str!("worked_example/test_order.py");

/// The JavaScript project's worker.
const JS_WORKER: &str = include_str!("worked_example/worker.js");

/// The JavaScript project's tests: the README's test (put in for its marker line), and the
/// ends it leaves out.
const JS_TESTS: &str = include_str!("worked_example/order.test.js");
