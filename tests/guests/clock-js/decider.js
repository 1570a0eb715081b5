// A decider that reads the clock and draws random numbers, for the host's test of the
// deterministic WASI it gives deciders: wall and monotonic clocks read the decision task's
// DecisionTaskStarted time, random is seeded per run and task. So the values below are
// reproducible, and a replay of the same history must decide exactly the same.
//
// First decision task: records the marker `clock` with details {"now","random"} and starts the
// timer `t` (1 s). Once `t` has fired: completes with {"now","random"} computed in that task.
// `now` is Date.now() in seconds; `random` is Math.random(). Both as compact JSON, keys sorted.

import { Decision, canonicalJson, decider } from '../../../guest-sdk/js/src/index.js';

/** What this decision task reads from the clock and the random generator, as JSON. */
export function reading() {
  return canonicalJson({ now: Date.now() / 1000, random: Math.random() });
}

/** @param {import('../../../guest-sdk/js/src/index.js').History} history */
export function decide(history) {
  const timer = history.timer('t');
  if (timer === undefined) return [Decision.recordMarker('clock', reading()), Decision.startTimer('t', 1)];
  if (timer.kind === 'fired') return [Decision.complete(reading())];
  return [];
}

export default decider(decide);
