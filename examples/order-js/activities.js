// The activity worker of the e-commerce order workflow, in JavaScript: a port of
// examples/order-activities (Rust), one component for the six activity types, answering the
// same JSON byte for byte.
//
// Nothing here touches the outside world: charging, shipping and emailing are simulated, and
// answer small JSON documents derived from the order, so that runs are reproducible.

import { ActivityWorker, Failure, log } from '../../guest-sdk/js/src/index.js';
import {
  CANCEL_ORDER, CHARGE_CREDIT_CARD, DECLINED_CARD_SUFFIX, EMAIL_CUSTOMER, RECORD_COMPLETION,
  SHIP_ORDER, VERIFY_ORDER,
} from './catalog.js';

/** `value[key]` as serde_json's `Value` index answers it: null unless an object has the key. */
function get(value, key) {
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  return isObject && Object.hasOwn(value, key) ? value[key] : null;
}

function orderId(order) {
  const id = get(order, 'order_id');
  return typeof id === 'string' ? id : 'unknown';
}

/** The task's input as JSON (failing the task as the Rust worker does), after logging it. */
function input(task) {
  const value = task.inputJson();
  log.info(`${task.activityType.name} (${task.activityId}) for ${task.workflowExecution.workflowId}`);
  return value;
}

/** Checks that the order has an id, a customer, a card, a positive amount and items. */
function verify(task) {
  const order = input(task);
  const emptyString = (v) => typeof v !== 'string' || v === '';
  const amount = get(order, 'amount_cents');
  const items = get(order, 'items');
  const problems = [
    [emptyString(get(order, 'order_id')), 'no order_id'],
    [emptyString(get(order, 'customer')), 'no customer'],
    [emptyString(get(order, 'card')), 'no card'],
    [!isU64(amount) || amount == 0, 'no amount_cents'],
    [!Array.isArray(items) || items.length === 0, 'no items'],
  ].filter(([bad]) => bad).map(([, problem]) => problem);
  if (problems.length > 0) throw new Failure('invalid order', problems.join(', '));
  return { order_id: orderId(order), verified: true };
}

/** Charges the card, unless its number ends in the declined suffix. */
function charge(task) {
  const order = input(task);
  const card = typeof get(order, 'card') === 'string' ? get(order, 'card') : '';
  if (card.endsWith(DECLINED_CARD_SUFFIX)) {
    // The last 4 bytes, as Rust slices the string (cards are ASCII digits).
    throw new Failure('card declined', `card ending ${card.slice(Math.max(0, card.length - 4))}`);
  }
  return { charge_id: `CH-${orderId(order)}`, amount_cents: get(order, 'amount_cents') };
}

/** `Value::as_u64` holds: a non-negative integer (BigInt beyond 2^53). */
function isU64(v) {
  return typeof v === 'bigint' ? v >= 0n : Number.isInteger(v) && v >= 0 && !Object.is(v, -0);
}

/** The worker: one handler per activity type. */
export const worker = new ActivityWorker()
  .activity(VERIFY_ORDER.name, VERIFY_ORDER.version, verify)
  .activity(CHARGE_CREDIT_CARD.name, CHARGE_CREDIT_CARD.version, charge)
  .activity(SHIP_ORDER.name, SHIP_ORDER.version, (task) => ({ tracking: `TRK-${orderId(input(task))}` }))
  .activity(RECORD_COMPLETION.name, RECORD_COMPLETION.version, (task) => ({
    recorded: orderId(get(input(task), 'order')),
  }))
  .activity(CANCEL_ORDER.name, CANCEL_ORDER.version, (task) => {
    const i = input(task);
    return { canceled: orderId(get(i, 'order')), refunded: get(get(i, 'refund'), 'charge_id') };
  })
  .activity(EMAIL_CUSTOMER.name, EMAIL_CUSTOMER.version, (task) => {
    const i = input(task);
    return { sent_to: get(get(i, 'order'), 'customer'), subject: get(i, 'subject') };
  });

export default worker;
