//! A decider that reads the wall clock and draws random numbers, as language runtimes do. The
//! host gives deciders a virtual clock (the decision task's `DecisionTaskStarted` time) and
//! randomness seeded by the run and the task, so replaying its history gives the same decisions.
//!
//! First task: a `clock` marker with `{"now", "random"}` and a one-second timer `t`. Once the
//! timer fired: it completes with `{"now", "random"}` read in that task.

use std::time::{SystemTime, UNIX_EPOCH};
use weft_guest::{Decision, History, Timer};

weft_guest::decider!(decide);

/// Marks the time and a random number, waits a second, completes with them again.
pub fn decide(history: &History) -> Result<Vec<Decision>, String> {
    let reading = read()?;
    Ok(match history.timer("t") {
        None => vec![
            Decision::record_marker("clock", Some(reading)),
            Decision::start_timer("t", 1).into(),
        ],
        Some(Timer::Fired { .. }) => vec![Decision::complete(Some(reading))],
        Some(_) => vec![],
    })
}

/// `{"now": seconds since the epoch, "random": a number in [0, 1)}`.
fn read() -> Result<String, String> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_err(|e| e.to_string())?;
    let mut random = [0u8; 8];
    getrandom::fill(&mut random).map_err(|e| e.to_string())?;
    // The top 53 bits, as a double in [0, 1).
    let random = (u64::from_le_bytes(random) >> 11) as f64 / (1u64 << 53) as f64;
    Ok(format!(
        r#"{{"now":{},"random":{random}}}"#,
        now.as_secs_f64()
    ))
}
