//! `steps-decider` with its steps in the other order, `b` then `a`.

/// The steps, in order.
const STEPS: [&str; 2] = ["b", "a"];
/// What it logs on every decision task.
const SAYS: &str = "steps v2";
/// Whether it fails once its first step completed.
const BROKEN: bool = false;

include!("../../steps-decider/src/workflow.rs");
