//! The test guests (`tests/guests/*`) as Wasm components, embedded: this crate's build script
//! builds them for `wasm32-wasip2` as `weft-example-guests` builds the examples. Only tests need
//! these: most misbehave on purpose. `tests/guests/README.md` lists the inputs each
//! understands.
//!
//! ```
//! let decider = weft_test_guests::component("hostile-decider").unwrap();
//! assert_eq!(&decider[..4], b"\0asm");
//! ```

include!("../../../../examples/artifacts/embedded.rs");

/// Every test guest's component, by crate name.
pub static COMPONENTS: [(&str, &[u8]); 11] = [
    // A decider, an activity worker and a function that misbehave as their input asks.
    guest!("hostile-decider"),
    guest!("hostile-activity"),
    guest!("hostile-function"),
    // A decider that reads the clock and draws random numbers, which the host makes
    // deterministic.
    guest!("clock-decider"),
    // The benchmarks' decider of a workflow with one activity.
    guest!("one-activity-decider"),
    // An activity worker that tries to escape its sandbox, one way per input.
    guest!("escape-activity"),
    // A function importing an interface no world has.
    guest!("backdoor-function"),
    // A decider of two steps in three versions: the second reorders the steps, the third
    // only logs another line.
    guest!("steps-decider"),
    guest!("steps-decider-v2"),
    guest!("steps-decider-v3"),
    // The same decider with a bug: it fails once its first step completed.
    guest!("steps-decider-broken"),
];

/// A guest of the other artifacts crate, which this one must not embed.
#[cfg(test)]
const FOREIGN: &str = "order-decider";
