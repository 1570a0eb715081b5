//! Builds the example guests as `wasm32-wasip2` components (and the workflow core as a module)
//! into `OUT_DIR`, where `src/lib.rs`
//! embeds them, or copies those in `prebuilt/` while they match the sources.

mod guest_build;

fn main() {
    guest_build::build(
        "examples",
        &[
            "order-decider",
            "order-workflow",
            "order-activities",
            "quote-decider",
            "price-function",
            // Not an example: the workflow core as a Wasm module, which the Python and
            // JavaScript SDKs' unit tests load (the host runs the same core natively).
            "../guest-sdk/core/workflow-core",
        ],
        &[],
        // Components built from exactly these sources, so that installing `weft` compiles
        // nothing for Wasm; `cargo run -p weft-example-guests --bin refresh-prebuilt` renews them.
        Some("examples/artifacts/prebuilt"),
    );
}
