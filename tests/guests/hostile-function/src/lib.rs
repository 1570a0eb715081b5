//! A function that misbehaves as its input asks, to test the host's limits:
//!
//! | input | behaviour |
//! | --- | --- |
//! | `loop` | spins forever, never yielding |
//! | `alloc` | allocates and touches memory without bound |
//! | `stack` | recurses until its stack in linear memory overflows (an out-of-bounds trap) |
//! | `call-depth` | recurses until the engine's call stack overflows (a stack-overflow trap) |
//! | `trap` | aborts (a Wasm `unreachable`) |
//! | `panic` | panics |
//! | `big` | answers a 10 MiB result |
//! | `fail` | fails with reason `asked to fail` |
//! | anything else, or none | answers its input (echo) |

#[path = "../../misbehave.rs"]
mod misbehave;

use weft_guest::Failure;

weft_guest::function!(invoke);

/// Behaves as the input asks.
pub fn invoke(input: Option<String>) -> Result<Option<String>, Failure> {
    misbehave::misbehave(input.as_deref().unwrap_or_default());
    match input.as_deref() {
        Some("big") => Ok(Some(misbehave::big_output())),
        Some("fail") => Err(Failure::new("asked to fail")),
        _ => Ok(input),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_harmless_behaviours() {
        assert_eq!(invoke(Some("hi".into())), Ok(Some("hi".into())));
        assert_eq!(invoke(None), Ok(None));
        assert_eq!(
            invoke(Some("fail".into())),
            Err(Failure::new("asked to fail"))
        );
        assert_eq!(
            invoke(Some("big".into())).unwrap().unwrap().len(),
            misbehave::BIG_OUTPUT
        );
    }
}
