//! The example guests (`examples/*`) as Wasm components, embedded: this crate's build script
//! builds them for `wasm32-wasip2` (release, `--locked`, adding the target with rustup if it is
//! missing), so a binary that depends on it needs neither a toolchain nor the sources to run
//! them. What each needs registered, and its sample inputs, are in `weft-examples`.
//!
//! ```
//! let decider = weft_example_guests::component("order-decider").unwrap();
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

/// Every example guest's component, by crate name.
pub static COMPONENTS: [(&str, &[u8]); 4] = [
    // The order workflow's decider and activity worker.
    guest!("order-decider"),
    guest!("order-activities"),
    // The quote workflow's decider and its function `price`.
    guest!("quote-decider"),
    guest!("price-function"),
];

/// The component built from the example crate `name`, if there is one.
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
    fn each_example_is_a_component_found_by_its_name() {
        for (name, bytes) in COMPONENTS {
            assert_eq!(bytes.get(..8), Some(&COMPONENT_PREAMBLE[..]), "{name}");
            assert_eq!(component(name), Some(bytes), "{name}");
        }
        let mut names: Vec<&str> = COMPONENTS.iter().map(|(name, _)| *name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), COMPONENTS.len(), "each name once");
        assert!(
            component("hostile-decider").is_none(),
            "test guests stay out"
        );
    }
}
