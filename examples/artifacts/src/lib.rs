//! The example guests (`examples/*`) as Wasm components, embedded: this crate's build script
//! builds them for `wasm32-wasip2` (release, `--locked`, adding the target with rustup if it is
//! missing), so a binary that depends on it needs neither a toolchain nor the sources to run
//! them. What each needs registered, and its sample inputs, are in `weft-examples`.
//!
//! While the sources are those that `prebuilt/` was built from, the build script takes the
//! components from there instead (see the `refresh-prebuilt` binary).
//!
//! ```
//! let decider = weft_example_guests::component("order-decider").unwrap();
//! assert_eq!(&decider[..4], b"\0asm");
//! ```

include!("../embedded.rs");

/// Every example guest's component, by crate name.
pub static COMPONENTS: [(&str, &[u8]); 5] = [
    // The order workflow's decider (as a state machine, and as async code) and activity worker.
    guest!("order-decider"),
    guest!("order-workflow"),
    guest!("order-activities"),
    // The quote workflow's decider and its function `price`.
    guest!("quote-decider"),
    guest!("price-function"),
];

/// The workflow core (`guest-sdk/core/workflow-core`) as a core Wasm module importing nothing,
/// exporting `weft:swf/replay@0.1.0#call` with the canonical ABI: what the Python and
/// JavaScript SDKs' unit tests run (from `prebuilt/`); the host runs the same core natively.
pub static WORKFLOW_CORE: &[u8] = guest!("workflow-core").1;

#[cfg(test)]
#[test]
fn the_workflow_core_is_a_core_module() {
    // Magic, then version 1 with layer 0: a module, not a component.
    assert_eq!(WORKFLOW_CORE.get(..8), Some(&b"\0asm\x01\0\0\0"[..]));
}

/// The digest of the sources the guests are built from (the SDK, the WIT, the workspace's
/// manifest and lock file, each guest's crate): see `guest_build::inputs_digest`.
pub const INPUTS_DIGEST: &str = env!("WEFT_GUEST_INPUTS");

/// Whether the build took the components from `prebuilt/` rather than compiling them.
pub const PREBUILT: bool = matches!(env!("WEFT_GUESTS_PREBUILT").as_bytes(), b"true");

/// The file in `prebuilt/` that names the digest of the sources its components were built from.
pub const PREBUILT_INPUTS: &str = env!("WEFT_PREBUILT_INPUTS");

/// A guest of the other artifacts crate, which this one must not embed.
#[cfg(test)]
const FOREIGN: &str = "hostile-decider";

#[cfg(test)]
#[test]
#[expect(
    clippy::assertions_on_constants,
    reason = "stale prebuilt components must fail this test, not every build"
)]
fn prebuilt_components_match_the_sources() {
    assert!(
        PREBUILT,
        "examples/artifacts/prebuilt/ was built from other sources than these (now {INPUTS_DIGEST}), \
         so installing weft compiles the example guests: run \
         `cargo run -p weft-example-guests --bin refresh-prebuilt` and commit prebuilt/"
    );
}
