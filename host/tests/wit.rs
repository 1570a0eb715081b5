//! The WIT package in `wit/` parses, and its worlds import and export what Weft promises:
//! a decider sees nothing but the log, so it stays a pure function of its history.

use std::path::Path;

use wit_parser::{Resolve, WorldItem, WorldKey};

/// The package, resolved.
fn package() -> (Resolve, wit_parser::PackageId) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../wit");
    let mut resolve = Resolve::default();
    let (package, _) = resolve.push_dir(&dir).expect("the WIT package parses");
    (resolve, package)
}

/// The names of a world's imported (or exported) interfaces and functions.
fn items(resolve: &Resolve, world: &str, exports: bool) -> Vec<String> {
    let (_, package) = package_with(resolve);
    let id = resolve.select_world(&[package], Some(world)).expect(world);
    let world = &resolve.worlds[id];
    let side = if exports {
        &world.exports
    } else {
        &world.imports
    };
    let mut names: Vec<String> = side
        .iter()
        .filter_map(|(key, item)| match (key, item) {
            (_, WorldItem::Type { .. }) => None,
            (WorldKey::Name(name), _) => Some(name.clone()),
            (WorldKey::Interface(id), _) => resolve.interfaces[*id].name.clone(),
        })
        .collect();
    names.sort();
    names
}

fn package_with(resolve: &Resolve) -> (&Resolve, wit_parser::PackageId) {
    let id = resolve
        .packages
        .iter()
        .find(|(_, p)| p.name.to_string() == "weft:swf@0.1.0")
        .map(|(id, _)| id)
        .expect("package weft:swf@0.1.0");
    (resolve, id)
}

#[test]
fn every_world_imports_only_what_it_is_granted() {
    let (resolve, _) = package();
    // `types`, `history`, `decisions` and `tasks` hold only types; the functions are these.
    let granted = |world: &str| {
        items(&resolve, world, false)
            .into_iter()
            .filter(|name| !["types", "history", "decisions", "tasks"].contains(&name.as_str()))
            .collect::<Vec<_>>()
    };
    // A decider's workflow core (`replay`) is pure: a function of what the decider sends it.
    assert_eq!(granted("decider"), ["log", "replay"]);
    assert_eq!(granted("activity-worker"), ["heartbeat", "log"]);
    assert_eq!(granted("function"), ["log"]);
    assert_eq!(items(&resolve, "decider", true), ["decide"]);
    assert_eq!(items(&resolve, "activity-worker", true), ["run"]);
    assert_eq!(items(&resolve, "function", true), ["invoke"]);
}

#[test]
fn history_and_decisions_have_a_case_per_swf_type() {
    let (resolve, package) = package();
    let case_count = |interface: &str, variant: &str| {
        let id = resolve.packages[package].interfaces[interface];
        let ty = resolve.interfaces[id].types[variant];
        match &resolve.types[ty].kind {
            wit_parser::TypeDefKind::Variant(v) => v.cases.len(),
            other => panic!("{variant} is {other:?}"),
        }
    };
    assert_eq!(case_count("history", "event-attributes"), 54);
    assert_eq!(case_count("decisions", "decision"), 13);
}

#[test]
fn every_item_is_documented() {
    let (resolve, package) = package();
    let package = &resolve.packages[package];
    for (name, &id) in &package.interfaces {
        let interface = &resolve.interfaces[id];
        assert!(interface.docs.contents.is_some(), "interface {name}");
        for (ty_name, &ty) in &interface.types {
            let def = &resolve.types[ty];
            if matches!(def.kind, wit_parser::TypeDefKind::Type(_)) {
                continue; // a `use`d type, documented where it is defined
            }
            assert!(def.docs.contents.is_some(), "{name}.{ty_name}");
            match &def.kind {
                wit_parser::TypeDefKind::Record(r) => {
                    for f in &r.fields {
                        assert!(f.docs.contents.is_some(), "{name}.{ty_name}.{}", f.name);
                    }
                }
                wit_parser::TypeDefKind::Variant(v) => {
                    for c in &v.cases {
                        assert!(c.docs.contents.is_some(), "{name}.{ty_name}.{}", c.name);
                    }
                }
                wit_parser::TypeDefKind::Enum(e) => {
                    for c in &e.cases {
                        assert!(c.docs.contents.is_some(), "{name}.{ty_name}.{}", c.name);
                    }
                }
                _ => {}
            }
        }
        for (f, func) in &interface.functions {
            assert!(func.docs.contents.is_some(), "{name}.{f}");
        }
    }
    for (world, &id) in &package.worlds {
        assert!(resolve.worlds[id].docs.contents.is_some(), "world {world}");
    }
}
