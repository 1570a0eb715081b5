//! A decider that misbehaves as its workflow's input asks, to test the host's limits and its
//! validation of decisions:
//!
//! | input | behaviour |
//! | --- | --- |
//! | `loop` | spins forever, never yielding |
//! | `alloc` | allocates and touches memory without bound |
//! | `stack` | recurses until its stack in linear memory overflows (an out-of-bounds trap) |
//! | `call-depth` | recurses until the engine's call stack overflows (a stack-overflow trap) |
//! | `trap` | aborts (a Wasm `unreachable`) |
//! | `panic` | panics |
//! | `big` | completes the workflow with a 10 MiB result |
//! | `error` | answers `Err("asked to fail")`, which fails the decision task |
//! | `empty-activity-id` | schedules an activity with an empty id |
//! | `long-activity-id` | schedules an activity with a 300-character id |
//! | `bad-timer` | starts a timer with an id containing `:` (which AWS accepts) and a timeout that is not a number |
//! | anything else, or none | completes the workflow with its input (echo) |

#[path = "../../misbehave.rs"]
mod misbehave;

use weft_guest::decisions::StartTimerDecisionAttributes;
use weft_guest::{Decision, History};

weft_guest::decider!(decide);

/// Behaves as the workflow's input asks.
pub fn decide(history: &History) -> Result<Vec<Decision>, String> {
    let input = history.input().unwrap_or_default();
    misbehave::misbehave(input);
    Ok(match input {
        "big" => vec![Decision::complete(Some(misbehave::big_output()))],
        "error" => return Err("asked to fail".into()),
        "empty-activity-id" => vec![Decision::schedule_activity("", "Hostile", "1.0").into()],
        "long-activity-id" => {
            vec![Decision::schedule_activity("a".repeat(300), "Hostile", "1.0").into()]
        }
        "bad-timer" => vec![Decision::StartTimer(StartTimerDecisionAttributes {
            timer_id: "a:b".into(),
            control: None,
            start_to_fire_timeout: "soon".into(),
        })],
        _ => vec![Decision::complete(history.input().map(str::to_owned))],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_guest::testing::HistoryBuilder;

    fn decide_on(input: &str) -> Result<Vec<Decision>, String> {
        HistoryBuilder::new("Hostile", "1.0", Some(input)).decide(decide)
    }

    #[test]
    fn the_harmless_behaviours() {
        assert_eq!(
            decide_on("hi"),
            Ok(vec![Decision::complete(Some("hi".into()))])
        );
        assert_eq!(decide_on("error"), Err("asked to fail".into()));
        let Ok(decisions) = decide_on("long-activity-id") else {
            panic!()
        };
        let [Decision::ScheduleActivityTask(activity)] = &decisions[..] else {
            panic!()
        };
        assert_eq!(activity.activity_id.len(), 300);
    }
}
