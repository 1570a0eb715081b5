//! The wit-bindgen bindings of the three worlds. Guests never name these directly: the macros of
//! the crate root reach them through `$crate::__private`.
//!
//! The decider world generates every interface; the other two worlds reuse its types through
//! `with`, so a `Failure` or an `ActivityTask` is one Rust type whatever world names it. Each world
//! is generated with `pub_export_macro: true`: its custom section here describes only its imports,
//! and the section describing its exports is emitted by its export macro, in the guest crate that
//! invokes it (see the crate docs for why).

#![allow(missing_docs, unreachable_pub, reason = "generated code")]
#![allow(clippy::all, reason = "generated code")]

/// The `decider` world, and every interface of the package. With the feature `serde`, its types
/// also derive serde's traits, which read exported histories (`testing::Recorded`).
pub mod decider {
    /// The world's bindings, its types deriving these traits.
    macro_rules! generate {
        ($($derives:tt)*) => {
            wit_bindgen::generate!({
                path: "wit",
                world: "weft:swf/decider@0.1.0",
                pub_export_macro: true,
                export_macro_name: "export_decider",
                default_bindings_module: "::weft_guest::__private::decider",
                runtime_path: "::weft_guest::__private::wit_bindgen::rt",
                additional_derives: [$($derives)*],
                generate_unused_types: true,
            });
        };
    }
    #[cfg(not(feature = "serde"))]
    generate!(PartialEq);
    #[cfg(feature = "serde")]
    generate!(PartialEq, serde::Serialize, serde::Deserialize);
}

/// The `activity-worker` world.
pub mod activity_worker {
    wit_bindgen::generate!({
        path: "wit",
        world: "weft:swf/activity-worker@0.1.0",
        pub_export_macro: true,
        export_macro_name: "export_activity_worker",
        default_bindings_module: "::weft_guest::__private::activity_worker",
        runtime_path: "::weft_guest::__private::wit_bindgen::rt",
        with: {
            "weft:swf/types@0.1.0": crate::bindings::decider::weft::swf::types,
            "weft:swf/history@0.1.0": crate::bindings::decider::weft::swf::history,
            "weft:swf/decisions@0.1.0": crate::bindings::decider::weft::swf::decisions,
            "weft:swf/tasks@0.1.0": crate::bindings::decider::weft::swf::tasks,
            "weft:swf/log@0.1.0": crate::bindings::decider::weft::swf::log,
        },
    });
}

/// The `function` world.
pub mod function {
    wit_bindgen::generate!({
        path: "wit",
        world: "weft:swf/function@0.1.0",
        pub_export_macro: true,
        export_macro_name: "export_function",
        default_bindings_module: "::weft_guest::__private::function",
        runtime_path: "::weft_guest::__private::wit_bindgen::rt",
        with: {
            "weft:swf/types@0.1.0": crate::bindings::decider::weft::swf::types,
            "weft:swf/history@0.1.0": crate::bindings::decider::weft::swf::history,
            "weft:swf/decisions@0.1.0": crate::bindings::decider::weft::swf::decisions,
            "weft:swf/tasks@0.1.0": crate::bindings::decider::weft::swf::tasks,
            "weft:swf/log@0.1.0": crate::bindings::decider::weft::swf::log,
        },
    });
}
