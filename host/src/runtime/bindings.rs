//! The host's side of the WIT package `weft:swf`: one `bindgen!` per world. The activity world is
//! generated first and owns the package's types and host interfaces; the other two reuse them
//! through `with`, so each type and trait exists once.

/// The `activity-worker` world, with every interface of the package.
pub(crate) mod activity {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "activity-worker",
        imports: { "weft:swf/heartbeat.record-heartbeat": async },
        exports: { default: async },
    });
}

/// The `decider` world. Its import of the workflow core (`weft:swf/replay`) is generated here
/// but linked by `super::workflow_core`, which forwards to the core's own instance.
pub(crate) mod decider {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "decider",
        exports: { default: async },
        with: {
            "weft:swf/types": super::activity::weft::swf::types,
            "weft:swf/history": super::activity::weft::swf::history,
            "weft:swf/decisions": super::activity::weft::swf::decisions,
            "weft:swf/tasks": super::activity::weft::swf::tasks,
            "weft:swf/log": super::activity::weft::swf::log,
        },
    });
}

/// The `function` world.
pub(crate) mod function {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "function",
        exports: { default: async },
        with: { "weft:swf": super::activity::weft::swf },
    });
}

pub(crate) use activity::weft::swf::{heartbeat, log, tasks, types};
