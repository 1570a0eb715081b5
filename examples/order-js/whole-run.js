// A whole order run for the tests: a decider and the worker against each other on a
// HistoryBuilder, the window's timer firing when nothing else is left.

import assert from 'node:assert/strict';
import { HistoryBuilder, task } from '../../guest-sdk/js/src/testing/index.js';
import { worker } from './activities.js';
import { CANCEL_SIGNAL, CANCEL_WINDOW_TIMER, WORKFLOW } from './catalog.js';

/** Runs `decider` (a decide function or a decider) and the worker until the workflow closes;
 * a `cancel` signal follows the activity `signalAfter`. Answers the close decision. */
export function runOrder(decider, input, { signalAfter } = {}) {
  const h = new HistoryBuilder(WORKFLOW.name, WORKFLOW.version, input);
  for (let turn = 0; turn < 20; turn++) {
    const decisions = h.decide(decider);
    const close = decisions.find((d) => /^(Complete|Fail|Cancel)WorkflowExecution$/.test(d.decisionType));
    if (close) return close;
    for (const d of decisions.filter((x) => x.decisionType === 'ScheduleActivityTask')) {
      const a = d.scheduleActivityTaskDecisionAttributes;
      const o = worker.perform(task(a.activityType.name, a.activityType.version, a.input, { activityId: a.activityId }));
      if (o.outcome === 'completed') h.activityCompleted(a.activityId, o.result);
      else h.activityFailed(a.activityId, o.reason, o.details);
      if (signalAfter === a.activityId) h.signal(CANCEL_SIGNAL);
    }
    // Nothing to run: the window is what the decider waits for.
    if (decisions.length === 0) h.timerFired(CANCEL_WINDOW_TIMER);
  }
  return assert.fail('the workflow did not close');
}
