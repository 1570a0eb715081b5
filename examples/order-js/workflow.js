// The SWF developer guide's order workflow as ordinary sequential code (a generator that
// `yield`s what it waits for): the same behaviour as the state machine in decider.js,
// replayed by the SDK's workflow runtime.

import {
  ActivityError, Canceled, Failure, canonicalJson, first, gather, parseJson, waitUntil, workflow,
} from '../../guest-sdk/js/src/index.js';
import {
  ACTIVITY_SCHEDULE_TIMEOUT_SECS, ACTIVITY_TASK_LIST, ACTIVITY_TIMEOUT_SECS, CANCEL_ORDER,
  CANCEL_SIGNAL, CANCEL_TOO_LATE_DETAILS, CANCEL_TOO_LATE_MARKER, CANCEL_WINDOW_TIMER,
  CHARGE_CREDIT_CARD, DEFAULT_CANCEL_WINDOW_SECS, EMAIL_CUSTOMER, RECORD_COMPLETION, SHIP_ORDER,
  VERIFY_ORDER,
} from './catalog.js';

/** Verifies, charges, ships once the cancellation window closed, records and completes; a
 * cancel within the window (once no activity runs), or a declined card, cancels the order. */
export function* order(wf) {
  const text = wf.input();
  const order = wf.inputJson();
  const window = wf.sleep(order.cancel_window_seconds ?? DEFAULT_CANCEL_WINDOW_SECS, { id: CANCEL_WINDOW_TIMER });
  const state = { closed: false, canceled: false };

  function* watch() {
    const [index] = yield first(settled(window), first(wf.signal(CANCEL_SIGNAL), wf.cancellation()));
    if (index === 0) state.closed = true;
    else {
      state.canceled = true;
      window.cancel();
    }
    for (;;) {
      yield wf.signal(CANCEL_SIGNAL);
      wf.recordMarker(CANCEL_TOO_LATE_MARKER, CANCEL_TOO_LATE_DETAILS);
    }
  }

  function* steps() {
    try {
      yield activity(wf, 'verify-order', VERIFY_ORDER, text);
    } catch (e) {
      if (!state.canceled) throw new Failure('invalid order', ended(e));
    }
    if (state.canceled) return yield* windDown(wf, order, undefined, new Canceled('canceled by the customer'));
    let receipt;
    try {
      receipt = (yield activity(wf, 'charge-credit-card', CHARGE_CREDIT_CARD, text)) ?? 'null';
    } catch (e) {
      return yield* windDown(wf, order, undefined, new Failure('payment declined', ended(e)));
    }
    yield waitUntil(() => state.closed || state.canceled);
    if (state.canceled) return yield* windDown(wf, order, receipt, new Canceled('canceled by the customer'));
    const shipment = parse(yield* step(wf, 'ship-order', SHIP_ORDER, text, 'shipping failed'));
    const charge = parse(receipt);
    const summary = canonicalJson({ order, charge, shipment });
    yield* step(wf, 'record-completion', RECORD_COMPLETION, summary, 'recording the order failed');
    return canonicalJson({ order_id: order.order_id, charge, shipment });
  }

  try {
    const [, result] = yield first(watch(), steps()); // the window's timer first, as decided then
    return result;
  } finally {
    wf.cancelTimer(CANCEL_WINDOW_TIMER);
  }
}

export default workflow(order);

/** Closes the window, cancels the order (refunding `receipt`) and emails the customer, then
 * ends the run with `end`. */
function* windDown(wf, order, receipt, end) {
  wf.cancelTimer(CANCEL_WINDOW_TIMER);
  const cancel = canonicalJson({ order, refund: receipt === undefined ? null : parse(receipt) });
  const email = canonicalJson({ order, subject: 'Your order was canceled' });
  const [canceled] = yield gather(
    settled(activity(wf, 'cancel-order', CANCEL_ORDER, cancel)),
    settled(activity(wf, 'email-customer', EMAIL_CUSTOMER, email)));
  if (canceled instanceof ActivityError) throw new Failure('the order could not be canceled', ended(canceled));
  throw end;
}

/** The result, or the error it threw. */
function* settled(waitable) {
  try {
    return yield waitable;
  } catch (e) {
    if (e instanceof ActivityError) return e;
    throw e;
  }
}

/** Runs an activity of the order's to its result (`null` if none); a failure fails the run. */
function* step(wf, id, kind, input, why) {
  try {
    return (yield activity(wf, id, kind, input)) ?? 'null';
  } catch (e) {
    throw new Failure(why, ended(e));
  }
}

function activity(wf, id, kind, input) {
  return wf.activity(kind.name, kind.version, {
    id, input, taskList: ACTIVITY_TASK_LIST, scheduleToStart: ACTIVITY_SCHEDULE_TIMEOUT_SECS,
    scheduleToClose: ACTIVITY_SCHEDULE_TIMEOUT_SECS, startToClose: ACTIVITY_TIMEOUT_SECS,
    heartbeat: ACTIVITY_TIMEOUT_SECS,
  });
}

/** How an activity ended, in words, as the state machine writes it. */
function ended(e) {
  if (e.kind === 'failed') return e.details ? `${e.reason}: ${e.details}` : e.reason ?? 'failed';
  if (e.kind === 'timed_out') return `timed out (${e.reason})`;
  if (e.kind === 'not_started') return `could not be scheduled (${e.reason})`;
  return 'canceled';
}

/** An activity's result as JSON (or as a JSON string if it is not JSON). */
function parse(text) {
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}
