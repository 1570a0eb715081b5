//! The guests built from `examples/` and `tests/guests/` have exactly their world's imports and
//! exports, although one SDK crate (`weft-guest`) generates the bindings of all three worlds:
//! a decider does not import `heartbeat` nor export `run`, and so on. The clock decider shows
//! that what a guest's code uses from WASI does show up (for the host to make deterministic).

use wit_parser::decoding::{DecodedWasm, decode};
use wit_parser::{WorldItem, WorldKey};

/// A component's world: its imported interfaces (without versions) and its exported functions.
fn world(name: &str, bytes: &[u8]) -> (Vec<String>, Vec<String>) {
    let DecodedWasm::Component(resolve, world) = decode(bytes).unwrap() else {
        panic!("{name} is not a component");
    };
    let world = &resolve.worlds[world];
    let name = |key: &WorldKey| match key {
        WorldKey::Name(name) => name.clone(),
        WorldKey::Interface(id) => {
            let interface = &resolve.interfaces[*id];
            let package = &resolve.packages[interface.package.unwrap()].name;
            format!(
                "{}:{}/{}",
                package.namespace,
                package.name,
                interface.name.as_ref().unwrap()
            )
        }
    };
    let imports = world
        .imports
        .iter()
        .filter(|(_, item)| matches!(item, WorldItem::Interface { .. }))
        .map(|(key, _)| name(key))
        .collect();
    let exports = world.exports.keys().map(name).collect();
    (imports, exports)
}

/// What Rust's standard library imports to report a panic; every guest has these.
const STD_IMPORTS: [&str; 13] = [
    "wasi:io/poll",
    "wasi:io/error",
    "wasi:io/streams",
    "wasi:cli/environment",
    "wasi:cli/exit",
    "wasi:cli/stdin",
    "wasi:cli/stdout",
    "wasi:cli/stderr",
    "wasi:cli/terminal-input",
    "wasi:cli/terminal-output",
    "wasi:cli/terminal-stdin",
    "wasi:cli/terminal-stdout",
    "wasi:cli/terminal-stderr",
];

/// The package's type-only interfaces, which every guest imports for the types it uses.
const TYPES: [&str; 4] = [
    "weft:swf/types",
    "weft:swf/history",
    "weft:swf/decisions",
    "weft:swf/tasks",
];

/// The imports beyond those every guest has.
fn own_imports(imports: &[String]) -> Vec<&str> {
    imports
        .iter()
        .map(String::as_str)
        .filter(|i| !STD_IMPORTS.contains(i) && !TYPES.contains(i))
        .collect()
}

#[test]
fn each_guest_has_exactly_its_worlds_imports_and_exports() {
    let expected: [(&str, &[&str], &[&str]); 10] = [
        ("order-decider", &["weft:swf/log"], &["decide"]),
        ("order-workflow", &["weft:swf/log"], &["decide"]),
        ("quote-decider", &["weft:swf/log"], &["decide"]),
        ("hostile-decider", &["weft:swf/log"], &["decide"]),
        ("one-activity-decider", &["weft:swf/log"], &["decide"]),
        ("order-activities", &["weft:swf/log"], &["run"]),
        (
            "hostile-activity",
            &["weft:swf/log", "weft:swf/heartbeat"],
            &["run"],
        ),
        ("price-function", &["weft:swf/log"], &["invoke"]),
        ("hostile-function", &["weft:swf/log"], &["invoke"]),
        (
            "clock-decider",
            &[
                "weft:swf/log",
                "wasi:clocks/monotonic-clock",
                "wasi:clocks/wall-clock",
                "wasi:random/random",
            ],
            &["decide"],
        ),
    ];
    for (name, own, exports) in expected {
        let bytes = weft_host::examples::component(name)
            .or_else(|| weft_test_guests::component(name))
            .unwrap();
        let (imports, exported) = world(name, bytes);
        let mut own_sorted = own_imports(&imports);
        own_sorted.sort();
        let mut expected_own = own.to_vec();
        expected_own.sort();
        assert_eq!(own_sorted, expected_own, "{name} imports {imports:?}");
        assert_eq!(exported, exports, "{name} exports");
        for import in imports.iter().filter(|i| i.starts_with("wasi:")) {
            assert!(
                STD_IMPORTS.contains(&import.as_str()) || name == "clock-decider",
                "{name} imports {import}"
            );
        }
    }
}
