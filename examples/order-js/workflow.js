// The SWF developer guide's order workflow as ordinary sequential code (a generator that
// `yield`s what it waits for): the same behaviour as the state machine in decider.js,
// replayed by the SDK's workflow runtime.

import {
  ActivityError, Canceled, Failure, canonicalJson, first, gather, parsePayload as parse, settled,
  waitUntil, workflow,
} from '../../guest-sdk/js/src/index.js';
import {
  ACTIVITY_SCHEDULE_TIMEOUT_SECS as QUEUED, ACTIVITY_TASK_LIST, ACTIVITY_TIMEOUT_SECS as RUN,
  CANCEL_ORDER, CANCEL_SIGNAL, CANCEL_TOO_LATE_DETAILS, CANCEL_TOO_LATE_MARKER,
  CANCEL_WINDOW_TIMER, CHARGE_CREDIT_CARD, DEFAULT_CANCEL_WINDOW_SECS, EMAIL_CUSTOMER,
  RECORD_COMPLETION, SHIP_ORDER, VERIFY_ORDER,
} from './catalog.js';

/** Verifies, charges, ships once the cancellation window closed, records and completes; a
 * cancel within the window (once no activity runs), or a declined card, cancels the order. */
export function* order(wf) {
  const text = wf.input();
  const order = wf.inputJson();
  const window = wf.sleep(order.cancel_window_seconds ?? DEFAULT_CANCEL_WINDOW_SECS, { id: CANCEL_WINDOW_TIMER });
  const state = { closed: false, canceled: false };
  const byCustomer = () => new Canceled('canceled by the customer');

  function* watch() {
    const [index] = yield first(settled(window), first(wf.signal(CANCEL_SIGNAL), wf.cancellation()));
    state[index === 0 ? 'closed' : 'canceled'] = true;
    if (index === 1) window.cancel();
    for (;;) {
      yield wf.signal(CANCEL_SIGNAL);
      wf.recordMarker(CANCEL_TOO_LATE_MARKER, CANCEL_TOO_LATE_DETAILS);
    }
  }

  function* steps() {
    const verified = yield settled(activity(wf, 'verify-order', VERIFY_ORDER, text));
    if (state.canceled) return yield* windDown(wf, order, null, byCustomer());
    if (verified instanceof ActivityError) throw new Failure('invalid order', verified.message);
    const receipt = yield settled(activity(wf, 'charge-credit-card', CHARGE_CREDIT_CARD, text));
    if (receipt instanceof ActivityError) {
      return yield* windDown(wf, order, null, new Failure('payment declined', receipt.message));
    }
    const charge = parse(receipt ?? 'null');
    yield waitUntil(() => state.closed || state.canceled);
    if (state.canceled) return yield* windDown(wf, order, charge, byCustomer());
    const shipment = parse((yield* step(wf, 'ship-order', SHIP_ORDER, text, 'shipping failed')) ?? 'null');
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

/** Closes the window, cancels the order (refunding `charge`) and emails the customer, then
 * ends the run with `end`. */
function* windDown(wf, order, charge, end) {
  wf.cancelTimer(CANCEL_WINDOW_TIMER);
  const cancel = canonicalJson({ order, refund: charge });
  const email = canonicalJson({ order, subject: 'Your order was canceled' });
  const [canceled] = yield gather(
    settled(activity(wf, 'cancel-order', CANCEL_ORDER, cancel)),
    settled(activity(wf, 'email-customer', EMAIL_CUSTOMER, email)));
  if (canceled instanceof ActivityError) throw new Failure('the order could not be canceled', canceled.message);
  throw end;
}

/** Runs an activity of the order's to its result; a failure fails the run for `why`. */
function* step(wf, id, kind, input, why) {
  try {
    return yield activity(wf, id, kind, input);
  } catch (e) {
    throw e instanceof ActivityError ? new Failure(why, e.message) : e;
  }
}

function activity(wf, id, kind, input) {
  return wf.activity(kind.name, kind.version, {
    id, input, taskList: ACTIVITY_TASK_LIST, scheduleToStart: QUEUED, scheduleToClose: QUEUED,
    startToClose: RUN, heartbeat: RUN,
  });
}
