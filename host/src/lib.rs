//! Weft: an Amazon Simple Workflow Service (SWF) that runs in one process.

pub mod clock;
mod fault;
mod seal;
