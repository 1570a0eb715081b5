// The order workflow's names, as in the Rust catalog (examples/catalog/src/lib.rs, `order`):
// keep the two in step, so that either language's decider and worker run together.

/** The workflow type. */
export const WORKFLOW = { name: 'OrderWorkflow', version: '1.0' };
/** Where the decider schedules every activity, and where the worker takes them. */
export const ACTIVITY_TASK_LIST = 'order-activities';
/** Every activity's start-to-close (and heartbeat) timeout, in seconds. */
export const ACTIVITY_TIMEOUT_SECS = 30;
/** Every activity's schedule-to-start and schedule-to-close timeout, in seconds. */
export const ACTIVITY_SCHEDULE_TIMEOUT_SECS = 60;

export const VERIFY_ORDER = { name: 'VerifyOrder', version: '1.0' };
export const CHARGE_CREDIT_CARD = { name: 'ChargeCreditCard', version: '1.0' };
export const SHIP_ORDER = { name: 'ShipOrder', version: '1.0' };
export const RECORD_COMPLETION = { name: 'RecordOrderCompletion', version: '1.0' };
export const CANCEL_ORDER = { name: 'CancelOrder', version: '1.0' };
export const EMAIL_CUSTOMER = { name: 'EmailCustomer', version: '1.0' };

/** The signal that asks to cancel the order. */
export const CANCEL_SIGNAL = 'cancel';
/** The timer that closes the cancellation window. */
export const CANCEL_WINDOW_TIMER = 'cancel-window';
/** The window's length when the order does not give `cancel_window_seconds`. */
export const DEFAULT_CANCEL_WINDOW_SECS = 5;
/** The marker recorded for a `cancel` signal that came after the window closed. */
export const CANCEL_TOO_LATE_MARKER = 'cancel-too-late';
/** The details of a `CANCEL_TOO_LATE_MARKER`. */
export const CANCEL_TOO_LATE_DETAILS = 'a cancel signal came after the window closed';
/** A card number ending with this is declined. */
export const DECLINED_CARD_SUFFIX = '0000';

/** An order that goes through. */
export const SAMPLE_ORDER = '{"order_id":"order-1","customer":"ada@example.com","card":"4111111111111111","amount_cents":4200,"items":["teapot","tea"],"cancel_window_seconds":1}';
/** An order whose card is declined. */
export const SAMPLE_DECLINED_ORDER = '{"order_id":"order-2","customer":"bob@example.com","card":"4111111111110000","amount_cents":1500,"items":["mug"],"cancel_window_seconds":1}';
