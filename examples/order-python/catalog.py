"""The names the order workflow's guests and the host agree on: the Python copy of
``weft_examples::order`` (examples/catalog/src/lib.rs), which stays the reference."""

from collections import namedtuple

#: A workflow or activity type: its name and version.
TypeName = namedtuple("TypeName", "name version")

#: The workflow type.
WORKFLOW = TypeName("OrderWorkflow", "1.0")
#: Where the order decider takes its decision tasks.
DECISION_TASK_LIST = "order-decisions"
#: Where the decider schedules every activity, and where the activity worker takes them.
ACTIVITY_TASK_LIST = "order-activities"
#: Every activity's start-to-close (and heartbeat) timeout, set in each decision.
ACTIVITY_TIMEOUT_SECS = 30
#: Every activity's schedule-to-start and schedule-to-close timeout, set in each decision.
ACTIVITY_SCHEDULE_TIMEOUT_SECS = 60

VERIFY_ORDER = TypeName("VerifyOrder", "1.0")
CHARGE_CREDIT_CARD = TypeName("ChargeCreditCard", "1.0")
SHIP_ORDER = TypeName("ShipOrder", "1.0")
RECORD_COMPLETION = TypeName("RecordOrderCompletion", "1.0")
CANCEL_ORDER = TypeName("CancelOrder", "1.0")
EMAIL_CUSTOMER = TypeName("EmailCustomer", "1.0")
#: Every activity type, all on ACTIVITY_TASK_LIST.
ACTIVITIES = (VERIFY_ORDER, CHARGE_CREDIT_CARD, SHIP_ORDER, RECORD_COMPLETION, CANCEL_ORDER,
              EMAIL_CUSTOMER)

#: The signal that asks to cancel the order (no input needed).
CANCEL_SIGNAL = "cancel"
#: The timer that closes the cancellation window.
CANCEL_WINDOW_TIMER = "cancel-window"
#: The window's length when the order does not give ``cancel_window_seconds``.
DEFAULT_CANCEL_WINDOW_SECS = 5
#: The marker recorded for a ``cancel`` signal that came after the window closed.
CANCEL_TOO_LATE_MARKER = "cancel-too-late"
#: The details of a ``CANCEL_TOO_LATE_MARKER``.
CANCEL_TOO_LATE_DETAILS = "a cancel signal came after the window closed"
#: A card number ending with this is declined.
DECLINED_CARD_SUFFIX = "0000"

#: An order that goes through (the input of a workflow execution).
SAMPLE_ORDER = (
    '{"order_id":"order-1","customer":"ada@example.com","card":"4111111111111111",'
    '"amount_cents":4200,"items":["teapot","tea"],"cancel_window_seconds":1}'
)
#: An order whose card is declined.
SAMPLE_DECLINED_ORDER = (
    '{"order_id":"order-2","customer":"bob@example.com","card":"4111111111110000",'
    '"amount_cents":1500,"items":["mug"],"cancel_window_seconds":1}'
)
