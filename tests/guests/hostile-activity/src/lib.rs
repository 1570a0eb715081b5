//! An activity worker that misbehaves as its input asks, to test the host's limits:
//!
//! | input | behaviour |
//! | --- | --- |
//! | `loop` | spins forever, never yielding |
//! | `alloc` | allocates and touches memory without bound |
//! | `stack` | recurses until its stack in linear memory overflows (an out-of-bounds trap) |
//! | `call-depth` | recurses until the engine's call stack overflows (a stack-overflow trap) |
//! | `trap` | aborts (a Wasm `unreachable`) |
//! | `panic` | panics |
//! | `big` | completes with a 10 MiB result |
//! | `fail` | fails with reason `asked to fail` |
//! | `heartbeat` | heartbeats until told cancellation was requested, then answers `canceled` |
//! | `heartbeat:N` | the same, but completes with `N` after `N` heartbeats |
//! | anything else, or none | completes with its input (echo) |

#[path = "../../misbehave.rs"]
mod misbehave;

use weft_guest::{ActivityTask, Failure, Outcome};

weft_guest::activity_worker!(run);

/// Behaves as the input asks.
pub fn run(task: &ActivityTask) -> Outcome {
    let input = task.input.as_deref().unwrap_or_default();
    misbehave::misbehave(input);
    match input {
        "big" => Outcome::Completed(Some(misbehave::big_output())),
        "fail" => Outcome::Failed(Failure::new("asked to fail").details(input)),
        "heartbeat" => heartbeat(None),
        _ => match input.strip_prefix("heartbeat:").map(str::parse) {
            Some(Ok(beats)) => heartbeat(Some(beats)),
            _ => Outcome::Completed(task.input.clone()),
        },
    }
}

/// Heartbeats until cancellation is requested, or `beats` times.
fn heartbeat(beats: Option<u64>) -> Outcome {
    let mut sent = 0;
    while beats.is_none_or(|beats| sent < beats) {
        sent += 1;
        if weft_guest::heartbeat(Some(&format!("heartbeat {sent}"))) {
            weft_guest::log::info!("cancellation requested after {sent} heartbeats");
            return Outcome::Canceled(Some(format!("canceled after {sent} heartbeats")));
        }
    }
    Outcome::Completed(Some(sent.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_guest::types::{ActivityType, WorkflowExecution};

    fn task(input: &str) -> ActivityTask {
        ActivityTask {
            activity_id: "a".into(),
            activity_type: ActivityType {
                name: "Hostile".into(),
                version: "1".into(),
            },
            workflow_execution: WorkflowExecution {
                workflow_id: "w".into(),
                run_id: "r".into(),
            },
            input: Some(input.into()),
            started_event_id: 5,
        }
    }

    #[test]
    fn the_harmless_behaviours() {
        assert_eq!(
            run(&task("hello")),
            Outcome::Completed(Some("hello".into()))
        );
        assert!(matches!(run(&task("fail")), Outcome::Failed(_)));
        assert_eq!(
            run(&task("heartbeat:3")),
            Outcome::Completed(Some("3".into()))
        );
        let Outcome::Completed(Some(big)) = run(&task("big")) else {
            panic!()
        };
        assert_eq!(big.len(), misbehave::BIG_OUTPUT);
    }
}
