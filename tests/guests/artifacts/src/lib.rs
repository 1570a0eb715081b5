//! The test guests (`tests/guests/*`) as Wasm components, embedded: this crate's build script
//! builds them for `wasm32-wasip2` as `weft-example-guests` builds the examples. Only tests need
//! these: most misbehave on purpose. `tests/guests/README.md` lists the inputs each
//! understands.
//!
//! ```
//! let decider = weft_test_guests::component("hostile-decider").unwrap();
//! assert_eq!(&decider[..4], b"\0asm");
//! ```

/// Embeds the component built from guest crate `$name`.
macro_rules! guest {
    ($name:literal) => {
        (
            $name,
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".wasm")).as_slice(),
        )
    };
}

/// Every test guest's component, by crate name.
pub static COMPONENTS: [(&str, &[u8]); 7] = [
    // A decider, an activity worker and a function that misbehave as their input asks.
    guest!("hostile-decider"),
    guest!("hostile-activity"),
    guest!("hostile-function"),
    // A decider that imports a clock and randomness, which the host must refuse to load.
    guest!("impure-decider"),
    // The benchmarks' decider of a workflow with one activity.
    guest!("one-activity-decider"),
    // An activity worker that tries to escape its sandbox, one way per input.
    guest!("escape-activity"),
    // A function importing an interface no world has.
    guest!("backdoor-function"),
];

/// The component built from the test guest crate `name`, if there is one.
pub fn component(name: &str) -> Option<&'static [u8]> {
    COMPONENTS
        .iter()
        .find(|(crate_name, _)| *crate_name == name)
        .map(|(_, bytes)| *bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Wasm component's preamble: `\0asm`, then the component encoding's version and layer
    /// (a core module has version 1, layer 0 there).
    const COMPONENT_PREAMBLE: [u8; 8] = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];

    #[test]
    fn each_test_guest_is_a_component_found_by_its_name() {
        for (name, bytes) in COMPONENTS {
            assert_eq!(bytes.get(..8), Some(&COMPONENT_PREAMBLE[..]), "{name}");
            assert_eq!(component(name), Some(bytes), "{name}");
        }
        let mut names: Vec<&str> = COMPONENTS.iter().map(|(name, _)| *name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), COMPONENTS.len(), "each name once");
        assert!(
            component("order-decider").is_none(),
            "examples are elsewhere"
        );
    }
}
