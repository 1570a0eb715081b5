// Activity tasks for unit tests, and jco's shape of a wire decision task (to call a guest's
// exports exactly as the host would).

import { decisionTaskFromWire } from '../wit.js';

/**
 * An activity task (wire JSON) of type `name`/`version` with this input, for
 * `worker.perform(...)`.
 *
 * @param {string} name
 * @param {string} version
 * @param {string} [input]
 * @param {{activityId?: string, workflowId?: string, runId?: string, startedEventId?: number}} [o]
 */
export function task(name, version, input, o = {}) {
  const t = {
    activityId: o.activityId ?? 'a',
    activityType: { name, version },
    workflowExecution: { workflowId: o.workflowId ?? 'w', runId: o.runId ?? 'r' },
    startedEventId: o.startedEventId ?? 5,
  };
  if (input !== undefined) t.input = input;
  return t;
}

/** A History's decision task as jco passes it to `decide` (u64 as BigInt, variants, enums). */
export function taskFromWire(history) {
  return decisionTaskFromWire(history.task);
}
