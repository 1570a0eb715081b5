// The decider of the Greeting workflow: run `Greet`, wait a second, complete with the greeting.
// Weft calls `decide` with the run's whole history on every decision task; it answers what to
// do next.

import { Decision, decider } from '@weft/guest';

export function decide(history) {
  const greet = history.activity('greet');
  if (greet === undefined) {
    return [Decision.scheduleActivity('greet', 'Greet', '1', { input: history.input() ?? 'world' })];
  }
  if (greet.isOpen()) return [];
  if (!greet.isCompleted()) return [Decision.fail('greet did not complete')];
  const timer = history.timer('pause');
  if (timer === undefined) return [Decision.startTimer('pause', 1)];
  if (timer.isOpen()) return [];
  return [Decision.complete(greet.result)];
}

export default decider(decide);
