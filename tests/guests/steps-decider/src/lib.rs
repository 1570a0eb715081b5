//! A decider of two steps, `a` then `b`, in three versions for the tests of pinned runs and
//! upgrades: this one; `steps-decider-v2`, which runs them in the other order (a change that
//! open runs' histories contradict); and `steps-decider-v3`, which differs from this one only
//! in the line it logs (a change they do not).

/// The steps, in order.
const STEPS: [&str; 2] = ["a", "b"];
/// What it logs on every decision task.
const SAYS: &str = "steps v1";

include!("workflow.rs");
