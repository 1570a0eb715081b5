//! `steps-decider` with its steps in the other order, `b` then `a`.

/// The steps, in order.
const STEPS: [&str; 2] = ["b", "a"];
/// What it logs on every decision task.
const SAYS: &str = "steps v2";

include!("../../steps-decider/src/workflow.rs");
