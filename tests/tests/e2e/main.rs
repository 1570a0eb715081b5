//! End-to-end tests: the real server on `127.0.0.1:0`, driven by `aws-sdk-swf` (and by raw HTTP
//! for requests an SDK would never send). One binary, so the SDK is linked once.

mod common;
mod domains;
mod durability;
mod protocol;
mod tags;
mod types;
