//! Weft: an Amazon Simple Workflow Service (SWF) that runs in one process.

pub mod clock;
mod config;
mod fault;
mod model;
mod seal;
mod store;
