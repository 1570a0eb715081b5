//! `steps-decider` with a bug: it schedules the first step as the first version does, and fails
//! every decision task after that step completed.

/// The steps, in order.
const STEPS: [&str; 2] = ["a", "b"];
/// What it logs on every decision task.
const SAYS: &str = "steps broken";
/// Whether it fails once its first step completed.
const BROKEN: bool = true;

include!("../../steps-decider/src/workflow.rs");
