//! Writes the example guests' components, as this build embeds them, to `prebuilt/` beside this
//! crate's manifest, with the digest of the sources they were built from, so that installing
//! `weft` from these sources compiles nothing for Wasm.
//!
//! `cargo run -p weft-example-guests --bin refresh-prebuilt`, then commit `prebuilt/`: the
//! crate's test `prebuilt_components_match_the_sources` fails until then whenever a guest's
//! sources, the SDK, the WIT or the workspace's manifest or lock file change.

use std::fs;
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("prebuilt");
    match refresh(&dir) {
        Ok(()) => {
            println!(
                "{}: {} components and the workflow core built from sources {}",
                dir.display(),
                weft_example_guests::COMPONENTS.len(),
                weft_example_guests::INPUTS_DIGEST
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: writing {}: {error}", dir.display());
            ExitCode::FAILURE
        }
    }
}

/// Replaces what `dir` holds with the embedded components and their sources' digest.
fn refresh(dir: &Path) -> std::io::Result<()> {
    if dir.exists() {
        fs::remove_dir_all(dir)?;
    }
    fs::create_dir_all(dir)?;
    for (name, bytes) in weft_example_guests::COMPONENTS {
        fs::write(dir.join(format!("{name}.wasm")), bytes)?;
    }
    fs::write(
        dir.join("workflow-core.wasm"),
        weft_example_guests::WORKFLOW_CORE,
    )?;
    let digest = format!("{}\n", weft_example_guests::INPUTS_DIGEST);
    fs::write(dir.join(weft_example_guests::PREBUILT_INPUTS), digest)
}
