// The decider of the SWF developer guide's e-commerce order workflow, in JavaScript: a port of
// examples/order-decider (Rust) that decides the same, with byte-identical payloads.
//
// The input is the order, as JSON. The workflow:
// 1. starts the cancellation window (a timer) and verifies the order;
// 2. charges the credit card;
// 3. once the window has closed, ships the order;
// 4. records the completion, and completes with `{"charge", "order_id", "shipment"}`.
//
// If the charge fails, it cancels the order and emails the customer, then fails the workflow
// (`payment declined`). A `cancel` signal (or a cancellation request) that arrives before the
// window's timer fires cancels the order: once no activity is running, it cancels the order
// (refunding the charge, if any), emails the customer, and closes the workflow as canceled. A
// `cancel` signal after the timer fired is recorded as a `cancel-too-late` marker and otherwise
// ignored. Any other failure fails the workflow.
//
// The decider is a pure function of the history: each decision task recomputes where the order
// stands from the events, so a decision that SWF rejected is simply decided again.

import { Decision, canonicalJson, decider, parseJson } from '../../guest-sdk/js/src/index.js';
import {
  ACTIVITY_SCHEDULE_TIMEOUT_SECS, ACTIVITY_TASK_LIST, ACTIVITY_TIMEOUT_SECS, CANCEL_ORDER,
  CANCEL_SIGNAL, CANCEL_TOO_LATE_DETAILS, CANCEL_TOO_LATE_MARKER, CANCEL_WINDOW_TIMER,
  CHARGE_CREDIT_CARD, DEFAULT_CANCEL_WINDOW_SECS, EMAIL_CUSTOMER, RECORD_COMPLETION, SHIP_ORDER,
  VERIFY_ORDER,
} from './catalog.js';

/** The activity ids this decider gives its activities (one activity of each type per run). */
export const ids = {
  VERIFY: 'verify-order',
  CHARGE: 'charge-credit-card',
  SHIP: 'ship-order',
  RECORD: 'record-completion',
  CANCEL: 'cancel-order',
  EMAIL: 'email-customer',
};

/**
 * Decides the order workflow's next step.
 *
 * @param {import('../../guest-sdk/js/src/index.js').History} history
 * @returns {object[]} wire decisions
 */
export function decide(history) {
  const input = history.input();
  if (input === undefined) throw new Error('the order workflow needs the order as input');
  let order;
  try {
    order = parseJson(input);
  } catch (e) {
    throw new Error(`the order is not JSON: ${e.message}`);
  }
  const decisions = tooLateCancels(history);

  // The first decision task: open the window and verify the order.
  if (history.activity(ids.VERIFY) === undefined) {
    decisions.push(Decision.startTimer(CANCEL_WINDOW_TIMER, asU64(get(order, 'cancel_window_seconds')) ?? DEFAULT_CANCEL_WINDOW_SECS));
    decisions.push(activity(ids.VERIFY, VERIFY_ORDER, input));
    return decisions;
  }

  const charge = history.activity(ids.CHARGE);
  if (charge && ['failed', 'timed-out', 'canceled'].includes(charge.kind)) {
    const why = describe(charge);
    windDown(history, order, undefined, decisions, () => Decision.fail('payment declined', why));
    return decisions;
  }

  if (cancelAccepted(history)) {
    const running = [ids.VERIFY, ids.CHARGE].some((id) => history.activity(id)?.isOpen());
    if (running) {
      // Let the running activity finish: cancelling the order must know whether the card was
      // charged.
      if (history.timer(CANCEL_WINDOW_TIMER)?.isOpen()) decisions.push(Decision.cancelTimer(CANCEL_WINDOW_TIMER));
      return decisions;
    }
    windDown(history, order, charge?.kind === 'completed' ? charge.result : undefined, decisions,
      () => Decision.cancel('canceled by the customer'));
    return decisions;
  }

  const verify = history.activity(ids.VERIFY);
  let step;
  if (verify.kind === 'completed') step = nextAfterVerify(history, input, charge);
  else if (verify.isOpen()) step = { wait: true };
  else step = { fail: ['invalid order', describe(verify)] };

  if (step.schedule) decisions.push(step.schedule);
  if (step.complete !== undefined) decisions.push(Decision.complete(step.complete));
  if (step.fail) {
    if (history.timer(CANCEL_WINDOW_TIMER)?.isOpen()) decisions.push(Decision.cancelTimer(CANCEL_WINDOW_TIMER));
    decisions.push(Decision.fail(...step.fail));
  }
  return decisions;
}

/**
 * The happy path after the order was verified: charge, ship once the window closed, record,
 * complete. Answers `{wait}`, `{schedule: decision}`, `{complete: result}` or `{fail: [reason,
 * details]}`.
 */
function nextAfterVerify(history, order, charge) {
  if (charge === undefined) return { schedule: activity(ids.CHARGE, CHARGE_CREDIT_CARD, order) };
  if (charge.kind !== 'completed') return { wait: true };
  const receipt = charge.result ?? 'null';

  const ship = history.activity(ids.SHIP);
  let shipment;
  if (ship === undefined) {
    // Ship once the window is over (it fired, or its timer could not even start).
    if (history.timer(CANCEL_WINDOW_TIMER)?.isOpen()) return { wait: true };
    return { schedule: activity(ids.SHIP, SHIP_ORDER, order) };
  } else if (ship.kind === 'completed') {
    shipment = ship.result ?? 'null';
  } else if (ship.isOpen()) {
    return { wait: true };
  } else {
    return { fail: ['shipping failed', describe(ship)] };
  }

  const summary = { order: parse(order), charge: parse(receipt), shipment: parse(shipment) };
  const record = history.activity(ids.RECORD);
  if (record === undefined) return { schedule: activity(ids.RECORD, RECORD_COMPLETION, canonicalJson(summary)) };
  if (record.kind === 'completed') {
    return {
      complete: canonicalJson({
        order_id: get(summary.order, 'order_id'),
        charge: summary.charge,
        shipment: summary.shipment,
      }),
    };
  }
  if (record.isOpen()) return { wait: true };
  return { fail: ['recording the order failed', describe(record)] };
}

/**
 * Cancels the order (refunding `refund`, the charge's receipt, if any) and emails the customer;
 * once both are done, closes the workflow with `close()` (or fails it if the order could not be
 * canceled).
 */
function windDown(history, order, refund, decisions, close) {
  if (history.timer(CANCEL_WINDOW_TIMER)?.isOpen()) decisions.push(Decision.cancelTimer(CANCEL_WINDOW_TIMER));
  const cancel = history.activity(ids.CANCEL);
  const email = history.activity(ids.EMAIL);
  if (cancel === undefined) {
    const input = { order, refund: refund === undefined ? null : parse(refund) };
    decisions.push(activity(ids.CANCEL, CANCEL_ORDER, canonicalJson(input)));
  }
  if (email === undefined) {
    const input = { order, subject: 'Your order was canceled' };
    decisions.push(activity(ids.EMAIL, EMAIL_CUSTOMER, canonicalJson(input)));
  }
  if (cancel && email && !email.isOpen()) {
    if (cancel.kind === 'completed') decisions.push(close());
    else if (!cancel.isOpen()) decisions.push(Decision.fail('the order could not be canceled', describe(cancel)));
  }
}

/** Whether a cancellation (the signal, or a request) arrived before the window's timer fired. */
function cancelAccepted(history) {
  const timer = history.timer(CANCEL_WINDOW_TIMER);
  const closedAt = timer?.kind === 'fired' ? timer.eventId : Infinity;
  return history.events.some((e) => e.eventId < closedAt && (
    (e.eventType === 'WorkflowExecutionSignaled' &&
      e.workflowExecutionSignaledEventAttributes.signalName === CANCEL_SIGNAL) ||
    e.eventType === 'WorkflowExecutionCancelRequested'));
}

/** A `cancel-too-late` marker for each new `cancel` signal that arrived after the window closed. */
function tooLateCancels(history) {
  const timer = history.timer(CANCEL_WINDOW_TIMER);
  if (timer?.kind !== 'fired') return [];
  const closedAt = timer.eventId;
  return history.newSignals()
    .filter((s) => s.name === CANCEL_SIGNAL && s.eventId > closedAt)
    .map(() => Decision.recordMarker(CANCEL_TOO_LATE_MARKER, CANCEL_TOO_LATE_DETAILS));
}

/** A `ScheduleActivityTask` decision with this decider's task list and timeouts. */
function activity(id, type, input) {
  return Decision.scheduleActivity(id, type.name, type.version, {
    input,
    taskList: ACTIVITY_TASK_LIST,
    scheduleToStart: ACTIVITY_SCHEDULE_TIMEOUT_SECS,
    scheduleToClose: ACTIVITY_SCHEDULE_TIMEOUT_SECS,
    startToClose: ACTIVITY_TIMEOUT_SECS,
    heartbeat: ACTIVITY_TIMEOUT_SECS,
  });
}

/** A closed activity's end, in words, for a failure's details (as the Rust decider words it). */
export function describe(status) {
  switch (status.kind) {
    case 'failed': {
      const reason = status.reason ?? 'failed';
      return status.details === undefined ? reason : `${reason}: ${status.details}`;
    }
    case 'timed-out': return `timed out (${status.timeoutType})`;
    case 'canceled': return 'canceled';
    case 'not-started': return `could not be scheduled (${status.cause})`;
    default: return status.toString();
  }
}

/** An activity's result as JSON (or as a JSON string if it is not JSON), as serde_json reads it. */
export function parse(text) {
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

/** `value[key]` as serde_json's `Value` index answers it: null unless an object has the key. */
function get(value, key) {
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  return isObject && Object.hasOwn(value, key) ? value[key] : null;
}

/** `Value::as_u64`: a non-negative integer, or undefined. */
function asU64(value) {
  if (typeof value === 'bigint') return value >= 0n ? value.toString() : undefined;
  return Number.isInteger(value) && value >= 0 && !Object.is(value, -0) ? value : undefined;
}

export default decider(decide);
