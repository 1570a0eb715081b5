// Echo's decider: runs the activity `Echo` on the workflow's input, then completes with the
// activity's result exactly as it came (no result if it had none).

import { Decision, decider } from '../../../guest-sdk/js/src/index.js';

export function decide(history) {
  const echo = history.activity('echo');
  if (echo === undefined) return [Decision.scheduleActivity('echo', 'Echo', '1', { input: history.input() })];
  if (echo.isOpen()) return [];
  if (echo.isCompleted()) return [Decision.complete(echo.result)];
  return [Decision.fail('echo did not complete')];
}

export default decider(decide);
