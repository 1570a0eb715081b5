//! The crate's layers, top to bottom, and the test that holds the tree to them: a module imports
//! only modules of its own layer or of layers below it. A request flows down (api → ops →
//! engine → store); the loops and the workers sit above the operations they drive; the engine,
//! which runs inside the writer's transaction, imports no loop and nothing of the operations.
//!
//! The test reads the sources' `crate::` paths (outside comments and `#[cfg(test)] mod tests`
//! blocks): what `use` lines and qualified paths name. Files under `bin/` are the `weft`
//! command, a crate of its own above all of this.

use std::path::{Path, PathBuf};

/// The top-level modules of each layer, from the top. `crate` is `lib.rs`.
const LAYERS: &[&[&str]] = &[
    // What a process is made of, and what drives the server from outside or within.
    &["crate", "client", "demo", "bench", "workers", "simulation"],
    // HTTP: SWF's target and Weft's `/v1`.
    &["api"],
    // The loops: deadlines fired, archive written, other nodes' commits relayed.
    &["timers", "throttles", "relay", "archive"],
    // The operations.
    &["ops"],
    // Time skipping: the clock that jumps while the server is idle.
    &["skipping"],
    // SWF's rules for runs, inside the writer.
    &["engine"],
    // Records, the store and the faults clients see; metrics; tenants.
    &["model", "fault", "store", "check", "metrics", "tenancy"],
    // What everything may use.
    &[
        "runtime",
        "tls",
        "config",
        "config_file",
        "clock",
        "seal",
        "examples",
    ],
];

/// The layer of top-level module `module`, if it has one.
fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// `source` without its comments and without its `#[cfg(test)] mod tests { ... }` block.
fn code(source: &str) -> String {
    let source = match source.find("#[cfg(test)]\nmod tests {") {
        Some(tests) => &source[..tests],
        None => source,
    };
    let lines = source.lines().map(|line| match line.find("//") {
        Some(comment) => &line[..comment],
        None => line,
    });
    lines.collect::<Vec<_>>().join("\n")
}

/// The top-level modules `code` names by `crate::` paths (a `use crate::{a, b}` group too).
fn imports(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                found.extend(group.split(',').map(|item| head(item.trim())));
            }
            None => found.push(head(rest)),
        }
    }
    found.retain(|module| !module.is_empty());
    found
}

/// The first segment of a path.
fn head(path: &str) -> String {
    path.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Whether the file at `relative` (under `src`) is test code, which may reach any layer: a
/// `tests` folder, a `*tests.rs` file, or this one.
fn is_test(relative: &Path) -> bool {
    let name = relative
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    name.ends_with("tests.rs")
        || name == "layers.rs"
        || relative.components().any(|c| c.as_os_str() == "tests")
}

/// The top-level module of a file, by its path under `src`.
fn module_of(relative: &Path) -> String {
    let first = relative.components().next().unwrap();
    let first = first.as_os_str().to_str().unwrap();
    match first.strip_suffix(".rs") {
        Some("lib") => "crate".into(),
        Some(module) => module.into(),
        None => first.into(),
    }
}

#[test]
fn every_module_imports_only_its_own_layer_and_the_layers_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut upward = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
        if relative.starts_with("bin") || is_test(relative) {
            continue;
        }
        let module = module_of(relative);
        let own =
            layer(&module).unwrap_or_else(|| panic!("{module} is in no layer: add it to LAYERS"));
        let source = std::fs::read_to_string(&file).unwrap();
        for imported in imports(&code(&source)) {
            let Some(target) = layer(&imported) else {
                // An item of the root (`crate::listen`, or one it re-exports: `crate::Config`)
                // is placed where it is defined; a module must have a layer.
                let file = src.join(format!("{imported}.rs"));
                let module = src.join(&imported).is_dir() || file.is_file();
                let at = relative.display();
                assert!(
                    !module,
                    "{at} imports {imported}, in no layer: add it to LAYERS"
                );
                continue;
            };
            if target < own {
                upward.push(format!("{} imports {imported}", relative.display()));
            }
        }
    }
    upward.sort();
    upward.dedup();
    assert!(
        upward.is_empty(),
        "imports up a layer:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_reader_finds_paths_and_groups_but_not_comments() {
    let source = "use crate::engine::{Engine, Setup};\nuse crate::{ops, store::Reads};\n\
                  // crate::api is only mentioned\nfn f() { crate::clock::now(); }\n";
    assert_eq!(
        imports(&code(source)),
        ["engine", "ops", "store", "clock"].map(String::from)
    );
    assert_eq!(layer("engine"), Some(5));
}

#[test]
fn the_stores_neutral_files_name_no_backend() {
    let store = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store");
    let mut files = Vec::new();
    sources(&store, &mut files);
    let backends = ["redb", "pg"];
    let mut named = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&store).unwrap();
        let own = relative.components().next().unwrap().as_os_str();
        let backend = backends.iter().any(|b| own == *b);
        // The one list that names every backend, and the contract every backend's tests run.
        let list = relative == Path::new("backends.rs") || own == "contract";
        if backend || list || is_test(relative) {
            continue;
        }
        let code = code(&std::fs::read_to_string(&file).unwrap());
        for path in ["redb::", "pg::", "postgres::", "tokio_postgres::"] {
            let found = code.match_indices(path).any(|(at, _)| {
                let before = code[..at].chars().next_back();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            });
            if found {
                named.push(format!("store/{} names {path}", relative.display()));
            }
        }
    }
    assert!(named.is_empty(), "{}", named.join("\n"));
}
