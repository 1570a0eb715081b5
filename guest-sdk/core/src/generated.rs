//! The Python and JavaScript SDKs' copies of the table, generated from it: the test fails when a
//! file differs from what the table makes, and `WEFT_WRITE_TABLES=1 cargo test -p
//! weft-workflow-core` writes them.

extern crate std;

use std::format;
use std::path::PathBuf;
use std::string::String;

use super::DECISIONS;

/// The first line of each generated file says where it comes from.
const MADE_BY: &str = "Generated from weft-workflow-core's table (guest-sdk/core/src/lib.rs): \
                       edit the table, then run WEFT_WRITE_TABLES=1 cargo test -p \
                       weft-workflow-core.";

/// `weft_guest/_swf.py`.
fn python() -> String {
    let mut text = format!("\"\"\"What SWF records for each decision.\n\n{MADE_BY}\n\"\"\"\n\n");
    text += "#: Each decision type: the event SWF records when it applies it, the one when it\n";
    text += "#: refuses it at once, and whether applying it closes the run.\n";
    text += "DECISIONS = {\n";
    for d in DECISIONS {
        let closes = if d.closes_run { "True" } else { "False" };
        text += &format!(
            "    \"{}\": (\"{}\", \"{}\", {closes}),\n",
            d.name, d.recorded, d.refused
        );
    }
    text + "}\n"
}

/// `js/src/swf.js`.
fn javascript() -> String {
    let mut text = format!("// What SWF records for each decision. {MADE_BY}\n\n");
    text += "/** Each decision type: [the event SWF records when it applies it, the one when it \
             refuses it at once, whether applying it closes the run]. */\n";
    text += "export const DECISIONS = {\n";
    for d in DECISIONS {
        text += &format!(
            "  {}: ['{}', '{}', {}],\n",
            d.name, d.recorded, d.refused, d.closes_run
        );
    }
    text + "};\n"
}

#[test]
fn the_sdks_tables_are_the_ones_this_table_makes() {
    let sdk = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = [
        (sdk.join("python/weft_guest/_swf.py"), python()),
        (sdk.join("js/src/swf.js"), javascript()),
    ];
    let write = std::env::var_os("WEFT_WRITE_TABLES").is_some_and(|v| !v.is_empty());
    for (path, made) in files {
        if write {
            std::fs::write(&path, &made).unwrap();
            continue;
        }
        let found = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            found == made,
            "{} differs from the table: run WEFT_WRITE_TABLES=1 cargo test -p weft-workflow-core",
            path.display()
        );
    }
}
