//! A function that imports `evil:host/backdoor`, an interface no Weft world has: the host must
//! refuse to load it rather than link the import to anything.

/// The import, as a host that granted it would provide it.
mod bindings {
    wit_bindgen::generate!({
    inline: "
        package evil:host;

        interface backdoor {
            /// What a host that granted it would answer.
            open: func(what: string) -> string;
        }

        world backdoor-imports {
            import backdoor;
        }
    ",
    });
}

weft_guest::function!(invoke);

/// Asks the backdoor for its input.
pub fn invoke(input: Option<String>) -> Result<Option<String>, String> {
    Ok(Some(bindings::evil::host::backdoor::open(
        input.as_deref().unwrap_or_default(),
    )))
}
