// The part of `weft-example-guests` and `weft-test-guests` that is the same: each includes this
// file (as their build scripts share `guest_build.rs`) and defines `COMPONENTS` and `FOREIGN`,
// a guest of the other crate.

/// Embeds the component built from guest crate `$name`.
macro_rules! guest {
    ($name:literal) => {
        (
            $name,
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".wasm")).as_slice(),
        )
    };
}

/// The component built from the guest crate `name`, if this crate embeds it.
pub fn component(name: &str) -> Option<&'static [u8]> {
    COMPONENTS
        .iter()
        .find(|(crate_name, _)| *crate_name == name)
        .map(|(_, bytes)| *bytes)
}

/// A Wasm component's preamble: `\0asm`, then the component encoding's version and layer (a
/// core module has version 1, layer 0 there).
#[cfg(test)]
const COMPONENT_PREAMBLE: [u8; 8] = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];

#[cfg(test)]
#[test]
fn each_guest_is_a_component_found_by_its_name_once() {
    for (name, bytes) in COMPONENTS {
        assert_eq!(bytes.get(..8), Some(&COMPONENT_PREAMBLE[..]), "{name}");
        assert_eq!(component(name), Some(bytes), "{name}");
    }
    let mut names: Vec<&str> = COMPONENTS.iter().map(|(name, _)| *name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), COMPONENTS.len(), "each name once");
    assert!(component(FOREIGN).is_none(), "{FOREIGN} is the other crate's");
}
