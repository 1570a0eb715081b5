//! `steps-decider` logging another line: it decides exactly as the first version does.

/// The steps, in order.
const STEPS: [&str; 2] = ["a", "b"];
/// What it logs on every decision task.
const SAYS: &str = "steps v3, with a friendlier log line";
/// Whether it fails once its first step completed.
const BROKEN: bool = false;

include!("../../steps-decider/src/workflow.rs");
