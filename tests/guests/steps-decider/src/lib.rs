//! A decider of two steps, `a` then `b`, in versions for the tests of pinned runs and upgrades:
//! this one; `steps-decider-v2`, which runs them in the other order (a change that open runs'
//! histories contradict); `steps-decider-v3`, which differs from this one only in the line it
//! logs (a change they do not); and `steps-decider-broken`, which fails after the first step.

/// The steps, in order.
const STEPS: [&str; 2] = ["a", "b"];
/// What it logs on every decision task.
const SAYS: &str = "steps v1";
/// Whether it fails once its first step completed.
const BROKEN: bool = false;

include!("workflow.rs");
