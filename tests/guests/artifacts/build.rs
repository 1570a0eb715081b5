//! Builds the test guests as `wasm32-wasip2` components into `OUT_DIR`, where `src/lib.rs`
//! embeds them.

// The example guests' build steps, shared by path: build scripts can share code otherwise only
// through a crate of its own.
#[path = "../../../examples/artifacts/guest_build.rs"]
mod guest_build;

fn main() {
    guest_build::build(
        "tests/guests",
        &[
            "hostile-decider",
            "hostile-activity",
            "hostile-function",
            "clock-decider",
            "one-activity-decider",
            "escape-activity",
            "backdoor-function",
            "steps-decider",
            "steps-decider-v2",
            "steps-decider-v3",
            "steps-decider-broken",
        ],
        // The misbehaviours the hostile guests include by path.
        &["tests/guests/misbehave.rs"],
        // The tests build their guests from source: only what `weft` embeds is kept prebuilt.
        None,
    );
}
