//! End-to-end tests: the real server on `127.0.0.1:0`, driven by `aws-sdk-swf` (and by raw HTTP
//! for requests an SDK would never send, and for Weft's own `/v1` API). One binary, so the SDK is linked once.

mod children;
mod cli;
mod clients;
mod common;
mod console;
mod crash;
mod decision_failures;
mod decisions;
mod domains;
mod durability;
mod edge;
mod executions;
mod fidelity;
mod flow;
mod histories;
mod limits;
mod listing;
mod nodes;
mod observability;
mod polling;
mod polling_memory;
mod protocol;
mod retention;
mod store_outage;
mod store_tls;
mod tags;
mod tenancy;
mod timeouts;
mod timers;
mod types;
mod upgrade;
mod visibility;
mod wasm;
mod wasm_api;
mod workflows;
