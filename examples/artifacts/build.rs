//! Builds the example guests as `wasm32-wasip2` components into `OUT_DIR`, where `src/lib.rs`
//! embeds them.

mod guest_build;

fn main() {
    guest_build::build(
        "examples",
        &[
            "order-decider",
            "order-activities",
            "quote-decider",
            "price-function",
        ],
        &[],
    );
}
