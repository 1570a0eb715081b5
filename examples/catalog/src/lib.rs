//! The names the example guests and the host agree on, in one place: what must be registered in
//! a domain (workflow and activity types, with their task lists and timeouts) for the examples to
//! run, and the signals, timers and functions they use.
//!
//! The example deciders set every task list and timeout in their decisions, so the types need no
//! registered defaults; the defaults below are what `weft demo` and the end-to-end tests register
//! and start executions with.
//!
//! ```
//! use weft_examples::order;
//!
//! assert_eq!(order::WORKFLOW.name, "OrderWorkflow");
//! assert_eq!(order::ACTIVITIES.len(), 6);
//! ```

/// A workflow or activity type: its name and version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypeName {
    /// The type's name.
    pub name: &'static str,
    /// The type's version.
    pub version: &'static str,
}

/// The e-commerce order workflow of the SWF developer guide: verify the order, charge the credit
/// card, ship the order, record its completion. Guests: `order-decider` (decider) and
/// `order-activities` (activity worker for all six activity types).
///
/// A card number ending in [`DECLINED_CARD_SUFFIX`](order::DECLINED_CARD_SUFFIX) is declined:
/// the workflow then cancels the order, emails the customer and fails. A `cancel` signal within
/// the cancellation window (a timer started with the workflow) cancels the order; after the
/// window it is recorded as too late and ignored.
pub mod order {
    use super::TypeName;

    /// The workflow type. Register with [`DECISION_TASK_LIST`], [`EXECUTION_TIMEOUT_SECS`],
    /// [`TASK_TIMEOUT_SECS`] and child policy `TERMINATE` as defaults (or give them at start).
    pub const WORKFLOW: TypeName = TypeName {
        name: "OrderWorkflow",
        version: "1.0",
    };
    /// Where the order decider takes its decision tasks.
    pub const DECISION_TASK_LIST: &str = "order-decisions";
    /// Where the decider schedules every activity, and where the order activities worker takes
    /// them.
    pub const ACTIVITY_TASK_LIST: &str = "order-activities";
    /// The whole workflow's timeout, in seconds.
    pub const EXECUTION_TIMEOUT_SECS: u64 = 300;
    /// A decision task's timeout, in seconds.
    pub const TASK_TIMEOUT_SECS: u64 = 10;
    /// Every activity's start-to-close timeout, set in each `ScheduleActivityTask` decision.
    pub const ACTIVITY_TIMEOUT_SECS: u64 = 30;
    /// Every activity's schedule-to-start and schedule-to-close timeout, set in each decision.
    pub const ACTIVITY_SCHEDULE_TIMEOUT_SECS: u64 = 60;

    /// Checks the order: at least one item, a positive amount, a card number.
    pub const VERIFY_ORDER: TypeName = TypeName {
        name: "VerifyOrder",
        version: "1.0",
    };
    /// Charges the card; fails with reason `card declined` for a card ending in
    /// [`DECLINED_CARD_SUFFIX`].
    pub const CHARGE_CREDIT_CARD: TypeName = TypeName {
        name: "ChargeCreditCard",
        version: "1.0",
    };
    /// Ships the order and answers a tracking number.
    pub const SHIP_ORDER: TypeName = TypeName {
        name: "ShipOrder",
        version: "1.0",
    };
    /// Records the completed order.
    pub const RECORD_COMPLETION: TypeName = TypeName {
        name: "RecordOrderCompletion",
        version: "1.0",
    };
    /// Cancels the order (and refunds the charge, if there was one).
    pub const CANCEL_ORDER: TypeName = TypeName {
        name: "CancelOrder",
        version: "1.0",
    };
    /// Emails the customer about a failed or canceled order.
    pub const EMAIL_CUSTOMER: TypeName = TypeName {
        name: "EmailCustomer",
        version: "1.0",
    };
    /// Every activity type to register, all on [`ACTIVITY_TASK_LIST`].
    pub const ACTIVITIES: [TypeName; 6] = [
        VERIFY_ORDER,
        CHARGE_CREDIT_CARD,
        SHIP_ORDER,
        RECORD_COMPLETION,
        CANCEL_ORDER,
        EMAIL_CUSTOMER,
    ];

    /// The activity ids the order's deciders give its activities (one of each type per run).
    pub mod ids {
        /// `VerifyOrder`'s.
        pub const VERIFY: &str = "verify-order";
        /// `ChargeCreditCard`'s.
        pub const CHARGE: &str = "charge-credit-card";
        /// `ShipOrder`'s.
        pub const SHIP: &str = "ship-order";
        /// `RecordOrderCompletion`'s.
        pub const RECORD: &str = "record-completion";
        /// `CancelOrder`'s.
        pub const CANCEL: &str = "cancel-order";
        /// `EmailCustomer`'s.
        pub const EMAIL: &str = "email-customer";
    }

    /// The signal that asks to cancel the order (no input needed).
    pub const CANCEL_SIGNAL: &str = "cancel";
    /// The timer that closes the cancellation window.
    pub const CANCEL_WINDOW_TIMER: &str = "cancel-window";
    /// The window's length when the order input does not give `cancel_window_seconds`.
    pub const DEFAULT_CANCEL_WINDOW_SECS: u64 = 5;
    /// The marker recorded for a `cancel` signal that came after the window closed.
    pub const CANCEL_TOO_LATE_MARKER: &str = "cancel-too-late";
    /// The details of a [`CANCEL_TOO_LATE_MARKER`].
    pub const CANCEL_TOO_LATE_DETAILS: &str = "a cancel signal came after the window closed";
    /// A card number ending with this is declined.
    pub const DECLINED_CARD_SUFFIX: &str = "0000";

    /// An order that goes through (the input of a workflow execution).
    pub const SAMPLE_ORDER: &str = r#"{"order_id":"order-1","customer":"ada@example.com","card":"4111111111111111","amount_cents":4200,"items":["teapot","tea"],"cancel_window_seconds":1}"#;
    /// An order whose card is declined.
    pub const SAMPLE_DECLINED_ORDER: &str = r#"{"order_id":"order-2","customer":"bob@example.com","card":"4111111111110000","amount_cents":1500,"items":["mug"],"cancel_window_seconds":1}"#;
}

/// A quote: the parent workflow starts one child workflow per line item; each child runs the
/// Lambda-style function `price` and completes with its result; the parent completes with the
/// total. Guests: `quote-decider` (decider for both workflow types) and `price-function`
/// (function).
///
/// On AWS a function may only run in an execution that has a Lambda role (Weft does not require
/// one), so the example behaves like a portable SWF workflow: start the quote with one (or
/// register [`QUOTE_WORKFLOW`](quote::QUOTE_WORKFLOW) with a default Lambda role); the parent
/// passes its role on to each child.
pub mod quote {
    use super::TypeName;

    /// The parent workflow type. Register with [`DECISION_TASK_LIST`], [`EXECUTION_TIMEOUT_SECS`],
    /// [`TASK_TIMEOUT_SECS`], child policy `TERMINATE` and a default Lambda role (or give them
    /// at start).
    pub const QUOTE_WORKFLOW: TypeName = TypeName {
        name: "QuoteWorkflow",
        version: "1.0",
    };
    /// The child workflow type, one execution per line item. The parent sets its task list,
    /// timeouts, child policy and Lambda role in each `StartChildWorkflowExecution` decision.
    pub const PRICE_ITEM_WORKFLOW: TypeName = TypeName {
        name: "PriceItem",
        version: "1.0",
    };
    /// Where the quote decider takes the decision tasks of both workflow types.
    pub const DECISION_TASK_LIST: &str = "quote-decisions";
    /// Each workflow's timeout, in seconds.
    pub const EXECUTION_TIMEOUT_SECS: u64 = 300;
    /// A decision task's timeout, in seconds.
    pub const TASK_TIMEOUT_SECS: u64 = 10;
    /// The function each child runs, by name (a binding of the `price-function` guest).
    pub const PRICE_FUNCTION: &str = "price";
    /// The function's start-to-close timeout, set in each `ScheduleLambdaFunction` decision.
    pub const PRICE_TIMEOUT_SECS: u64 = 10;
    /// A Lambda role for the demo (Weft does not check it; SWF wants one to be set).
    pub const LAMBDA_ROLE: &str = "arn:aws:iam::000000000000:role/weft-examples";

    /// A quote the price list knows every item of (the input of a workflow execution).
    pub const SAMPLE_QUOTE: &str =
        r#"{"items":[{"sku":"teapot","quantity":1},{"sku":"tea","quantity":3}]}"#;
    /// A quote with an item the price list does not know: its child fails, and so does the
    /// quote.
    pub const SAMPLE_UNKNOWN_ITEM_QUOTE: &str =
        r#"{"items":[{"sku":"teapot","quantity":1},{"sku":"samovar","quantity":1}]}"#;
}
