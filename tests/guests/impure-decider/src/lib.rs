//! A decider that reads the wall clock and asks for random bytes: it compiles for the decider
//! world, but its component imports `wasi:clocks` and `wasi:random`, so the host must refuse to
//! load it as a decider (a decider must be a pure function of its history).

use std::time::{SystemTime, UNIX_EPOCH};
use weft_guest::{Decision, History};

weft_guest::decider!(decide);

/// Completes with the time and a random number: different on every replay.
pub fn decide(_: &History) -> Result<Vec<Decision>, String> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_err(|e| e.to_string())?;
    let mut random = [0u8; 8];
    getrandom::fill(&mut random).map_err(|e| e.to_string())?;
    let result = format!("{} {}", now.as_nanos(), u64::from_le_bytes(random));
    Ok(vec![Decision::complete(Some(result))])
}
