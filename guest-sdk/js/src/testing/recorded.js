// Histories exported from SWF (`GetWorkflowExecutionHistory`, as the API's JSON), to unit-test a
// decider against what really happened: every decision task in it, and a replay that checks the
// decider answers each completed task with the decisions that were recorded for it.

import { isDeepStrictEqual } from 'node:util';
import { RECORDED_AS, decisionAttributes } from '../decisions.js';
import { History, attributes } from '../history.js';

/**
 * Loads an exported history: the JSON of `GetWorkflowExecutionHistory` (`{"events": [...]}`,
 * pages concatenated) or its events array, as text or parsed. Timestamps may be epoch seconds
 * (the API) or ISO 8601 strings (the AWS CLI's default output).
 *
 * @param {string|object|object[]} exported
 * @param {{workflowExecution?: {workflowId: string, runId: string}}} [options] the execution,
 *   which the history does not name (default `workflow-1`/`run-1`)
 * @returns {RecordedHistory}
 */
export function loadHistory(exported, options = {}) {
  const json = typeof exported === 'string' ? JSON.parse(exported) : exported;
  const events = (Array.isArray(json) ? json : json.events).map((e) => ({
    ...e,
    eventTimestamp: typeof e.eventTimestamp === 'string' ? Date.parse(e.eventTimestamp) / 1000 : e.eventTimestamp,
  }));
  events.sort((a, b) => a.eventId - b.eventId); // reverseOrder exports come newest first
  return new RecordedHistory(events, options.workflowExecution ?? { workflowId: 'workflow-1', runId: 'run-1' });
}

/** A recorded history, and the decision tasks it holds. */
export class RecordedHistory {
  constructor(events, workflowExecution) {
    /** The events, oldest first (wire JSON). */
    this.events = events;
    this.workflowExecution = workflowExecution;
    const started = events.find((e) => e.eventType === 'WorkflowExecutionStarted');
    this.workflowType = started && attributes(started).workflowType;
  }

  /**
   * The decision task whose `DecisionTaskStarted` event is `startedEventId` (default: the
   * latest), as its decider saw it.
   *
   * @param {number} [startedEventId]
   * @returns {History}
   */
  decisionTask(startedEventId) {
    const started = startedEventId ?? this.events.findLast((e) => e.eventType === 'DecisionTaskStarted')?.eventId;
    const events = this.events.filter((e) => e.eventId <= started);
    const previous = events.findLast((e) => e.eventType === 'DecisionTaskCompleted');
    return new History({
      workflowExecution: this.workflowExecution,
      workflowType: this.workflowType,
      events,
      previousStartedEventId: previous ? attributes(previous).startedEventId : 0,
      startedEventId: started,
    });
  }

  /** Every decision task that was completed: `{history, completed, recorded}`, oldest first. */
  completedTasks() {
    return this.events
      .filter((e) => e.eventType === 'DecisionTaskCompleted')
      .map((completed) => ({
        history: this.decisionTask(attributes(completed).startedEventId),
        completed,
        // The events its decisions were recorded as (not later failures of initiated ones).
        recorded: this.events.filter((e) =>
          attributes(e).decisionTaskCompletedEventId === completed.eventId &&
          attributes(e).initiatedEventId === undefined),
      }));
  }

  /**
   * Runs the decider on every completed decision task and compares its decisions with the
   * events recorded for that task: same number, each recorded as its decision's event (or as
   * that decision's failure), and every attribute the decision sets equal in the event.
   * Answers the differences, in words; none if the decider replays the history.
   *
   * @param {Function | {fn: Function}} decider
   * @returns {string[]}
   */
  replay(decider) {
    const fn = typeof decider === 'function' ? decider : decider.fn;
    const problems = [];
    for (const { history, completed, recorded } of this.completedTasks()) {
      const task = `decision task ${history.task.startedEventId}`;
      let answer;
      try {
        answer = fn(history);
      } catch (e) {
        problems.push(`${task}: the decider failed: ${e?.message ?? e}`);
        continue;
      }
      const decisions = Array.isArray(answer) ? answer : answer.decisions;
      if (decisions.length !== recorded.length) {
        problems.push(`${task}: ${decisions.length} decisions (${decisions.map((d) => d.decisionType).join(', ')}), ` +
          `but ${recorded.length} recorded after event ${completed.eventId} (${recorded.map((e) => e.eventType).join(', ')})`);
        continue;
      }
      decisions.forEach((d, i) => {
        const why = mismatch(d, recorded[i]);
        if (why) problems.push(`${task}: decision ${i + 1} (${d.decisionType}) vs event ${recorded[i].eventId}: ${why}`);
      });
    }
    return problems;
  }
}

function mismatch(decision, event) {
  const types = RECORDED_AS[decision.decisionType] ?? [];
  if (!types.includes(event.eventType)) return `recorded as ${event.eventType}`;
  const recorded = attributes(event);
  for (const [key, value] of Object.entries(decisionAttributes(decision) ?? {})) {
    if (key in recorded && !isDeepStrictEqual(value, recorded[key])) {
      return `${key} is ${JSON.stringify(value)}, recorded ${JSON.stringify(recorded[key])}`;
    }
  }
  return undefined;
}
