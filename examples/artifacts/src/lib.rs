//! The example guests (`examples/*`) as Wasm components, embedded: this crate's build script
//! builds them for `wasm32-wasip2` (release, `--locked`, adding the target with rustup if it is
//! missing), so a binary that depends on it needs neither a toolchain nor the sources to run
//! them. What each needs registered, and its sample inputs, are in `weft-examples`.
//!
//! ```
//! let decider = weft_example_guests::component("order-decider").unwrap();
//! assert_eq!(&decider[..4], b"\0asm");
//! ```

include!("../embedded.rs");

/// Every example guest's component, by crate name.
pub static COMPONENTS: [(&str, &[u8]); 4] = [
    // The order workflow's decider and activity worker.
    guest!("order-decider"),
    guest!("order-activities"),
    // The quote workflow's decider and its function `price`.
    guest!("quote-decider"),
    guest!("price-function"),
];

/// A guest of the other artifacts crate, which this one must not embed.
#[cfg(test)]
const FOREIGN: &str = "hostile-decider";
