// Hand-built histories, to unit-test deciders under plain node, without a host.
//
// HistoryBuilder plays SWF's part, as the Rust SDK's testing::HistoryBuilder does: it records
// the decider's decisions as the events SWF would record for them (as if every decision were
// accepted, but for a close decision made while events the decider has not seen are waiting),
// and the events from the outside world that a test chooses. It schedules decision tasks as SWF
// does: an outside event schedules one unless one is scheduled already, even while another is
// started; the next one is then handed out when the started one completes.

import { History } from '../history.js';
import { closeFailed, isClose, recordDecision } from './record.js';
import { Outcomes } from './outcomes.js';

/** The task list recorded where a decision names none (SWF would take the type's default). */
export const DEFAULT_TASK_LIST = 'default';

/**
 * Builds a workflow execution's history event by event (wire JSON), and the decision tasks over
 * it. Outcome methods (`activityCompleted`, `childFailed`, ...) find the latest activity, child
 * or function with that id, record its start first if it has none, and throw if there is none.
 *
 * @example
 * const h = new HistoryBuilder('Hello', '1.0', '"world"');
 * h.decide(decide);                          // the decider's first decision task
 * h.activityCompleted('greet', '"hello"');
 * assert.deepEqual(h.decide(decide), [Decision.complete('"hello"')]);
 */
export class HistoryBuilder extends Outcomes {
  /**
   * A history that starts the execution `workflow-1`/`run-1` of the workflow type
   * `name`/`version` with this input: `WorkflowExecutionStarted`, then `DecisionTaskScheduled`.
   *
   * @param {string} name
   * @param {string} version
   * @param {string} [input]
   */
  constructor(name, version, input) {
    super();
    this.execution = { workflowId: 'workflow-1', runId: 'run-1' };
    this.workflowType = { name, version };
    /** The events so far (wire JSON). @type {object[]} */
    this.events = [];
    /** The scheduled, not yet started decision task: its DecisionTaskScheduled event id. */
    this.scheduledTask = undefined;
    /** The started decision task: `[scheduled, started]` event ids. */
    this.startedTask = undefined;
    /** The DecisionTaskStarted event of the latest completed decision task, 0 if none. */
    this.previousStarted = 0;
    this.clock = 1_700_000_000;
    const started = {
      executionStartToCloseTimeout: '3600',
      taskStartToCloseTimeout: '30',
      childPolicy: 'TERMINATE',
      taskList: { name: DEFAULT_TASK_LIST },
      workflowType: { name, version },
    };
    if (input !== undefined) started.input = input;
    this.event('WorkflowExecutionStarted', started);
    this.scheduleDecisionTask();
  }

  /** Names the execution `workflowId`/`runId` instead of `workflow-1`/`run-1`. */
  withExecution(workflowId, runId) {
    this.execution = { workflowId, runId };
    return this;
  }

  /** Changes the `WorkflowExecutionStarted` attributes in place, e.g. to add a Lambda role. */
  startedWith(change) {
    change(this.events[0].workflowExecutionStartedEventAttributes);
    return this;
  }

  /** Lets `seconds` pass before the next event (events are otherwise one second apart). */
  advance(seconds) {
    this.clock += seconds;
    return this;
  }

  /**
   * Appends an event of this type with these attributes; answers its id.
   *
   * @param {string} eventType e.g. `WorkflowExecutionSignaled`
   * @param {object} attrs
   */
  event(eventType, attrs) {
    const eventId = this.events.length + 1;
    this.clock += 1;
    const key = eventType[0].toLowerCase() + eventType.slice(1) + 'EventAttributes';
    this.events.push({ eventId, eventTimestamp: this.clock, eventType, [key]: attrs });
    return eventId;
  }

  /**
   * The decision task a decider would get now: the started one, or else the scheduled one
   * (scheduling one if none is), started. Once the execution is closed, its history as it ends.
   *
   * @returns {History}
   */
  decisionTask() {
    const started = this.closed() && !this.startedTask ? this.previousStarted : this.startDecisionTask();
    return new History({
      workflowExecution: { ...this.execution },
      workflowType: { ...this.workflowType },
      events: structuredClone(this.events),
      previousStartedEventId: this.previousStarted,
      startedEventId: started,
    });
  }

  /**
   * Completes the open decision task (starting one first if needed) with these wire decisions:
   * `DecisionTaskCompleted`, then the events SWF records for each.
   *
   * @param {object[]} decisions
   */
  respond(decisions) {
    const started = this.startDecisionTask();
    const [scheduled] = this.startedTask;
    this.startedTask = undefined;
    // A task scheduled while this one was started: its events are unhandled.
    const unhandled = this.scheduledTask !== undefined;
    const completed = this.event('DecisionTaskCompleted', {
      scheduledEventId: scheduled,
      startedEventId: started,
    });
    this.previousStarted = started;
    for (const d of decisions) {
      if (unhandled && isClose(d)) closeFailed(this, d, completed);
      else recordDecision(this, d, completed);
    }
    return this;
  }

  /**
   * Runs a decider on the decision task it would get now, records its decisions with
   * `respond`, and answers them (wire decisions). A decider that throws fails the decision
   * task: the error propagates and nothing is recorded.
   *
   * @param {((history: History) => object[]|{decisions: object[]}) | {fn: Function}} decider
   *   a function of the History, or what `decider(fn)` made
   * @returns {object[]}
   */
  decide(decider) {
    const fn = typeof decider === 'function' ? decider : decider.fn;
    const answer = fn(this.decisionTask());
    const decisions = Array.isArray(answer) ? answer : answer.decisions;
    this.respond(decisions);
    return decisions;
  }

  /** Schedules a decision task unless one is scheduled and not yet started. */
  scheduleDecisionTask() {
    if (this.scheduledTask === undefined && !this.closed()) {
      this.scheduledTask = this.event('DecisionTaskScheduled', {
        taskList: { name: DEFAULT_TASK_LIST },
        startToCloseTimeout: '30',
      });
    }
  }

  /** Starts the scheduled decision task unless one is started; answers its started event. */
  startDecisionTask() {
    if (this.startedTask) return this.startedTask[1];
    if (this.scheduledTask === undefined) this.scheduleDecisionTask();
    const scheduled = this.scheduledTask;
    if (scheduled === undefined) throw new Error('the execution is closed: it gets no more decision tasks');
    this.scheduledTask = undefined;
    const started = this.event('DecisionTaskStarted', { identity: 'test', scheduledEventId: scheduled });
    this.startedTask = [scheduled, started];
    return started;
  }

  /** Whether a decision closed the execution. */
  closed() {
    return this.events.some((e) => CLOSED.has(e.eventType));
  }

  /** The latest event for which `pick(event)` holds, or a thrown error naming `what`. */
  latest(what, pick) {
    const e = this.events.findLast(pick);
    if (!e) throw new Error(`the history has no ${what}`);
    return e;
  }
}

const CLOSED = new Set([
  'WorkflowExecutionCompleted',
  'WorkflowExecutionFailed',
  'WorkflowExecutionCanceled',
  'WorkflowExecutionContinuedAsNew',
]);
