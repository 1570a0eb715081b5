//! A core module, not a component: the host makes the component it composes, and the SDKs'
//! unit tests load the module as it is (Node's `WebAssembly`, Python's `wasmtime`).

fn main() {
    println!("cargo::rustc-link-arg-cdylib=--skip-wit-component");
}
