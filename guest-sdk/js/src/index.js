// Weft's JavaScript guest SDK: deciders, activity workers and Lambda-style functions for the
// `weft:swf` worlds, built into WebAssembly components by build.mjs (ComponentizeJS).
//
// A guest module's default export is the guest: `decider(fn)`, an `ActivityWorker`, or `fn(fn)`.
// Everything works on SWF's wire JSON (events as `GetWorkflowExecutionHistory` gives them,
// decisions as `RespondDecisionTaskCompleted` takes them); wit.js converts at the boundary.

import { History } from './history.js';
import { decisionFailure } from './host.js';
import { decisionTaskToWire, responseFromWire } from './wit.js';

export { History, attributes } from './history.js';
export { Status, Timer, Signal, Marker } from './status.js';
export { Decision, response, decisionAttributes } from './decisions.js';
export { ActivityWorker, ActivityTask, Failure, Outcome, fn, toOutcome } from './activity.js';
export { canonicalJson, parseJson, parsePayload, payload, JsonError } from './json.js';
export { log, heartbeat } from './host.js';
export {
  workflow, run as runWorkflow, Workflow, RetryPolicy, ActivityError, Canceled, ContinueAsNew,
  NondeterminismError, gather, first, settled, waitUntil, workflows,
} from './workflow.js';

/**
 * Makes a decider of `decide`, a function of the {@link History} that answers its decisions
 * (an array of wire decisions, or a `response(...)`), or throws to fail the decision task (the
 * host lets it time out and retries it later). Export the result as the module's default.
 *
 * @example
 * export function decide(history) {
 *   return [Decision.complete(history.input())];
 * }
 * export default decider(decide);
 *
 * @param {(history: History) => object[] | {decisions: object[]}} decide
 */
export function decider(decide) {
  return {
    /** The decider's function, for unit tests (`HistoryBuilder.decide`). */
    fn: decide,
    /** The `decide` export: jco's decision task in, jco's decision response out. */
    decide(task) {
      try {
        const answer = decide(new History(decisionTaskToWire(task)));
        return responseFromWire(Array.isArray(answer) ? { decisions: answer } : answer);
      } catch (e) {
        throw decisionFailure(e);
      }
    },
  };
}
