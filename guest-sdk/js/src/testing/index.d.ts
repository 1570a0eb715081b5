// TypeScript declarations of `@weft/guest/testing` (src/testing/index.js and the modules it
// re-exports), written by hand from the sources' JSDoc: change them with the sources.

import type {
  DecideFunction, EventAttributes, History, TypeName, WireActivityTask, WireDecision,
  WireEvent, WorkflowExecution, CloseDecisionType,
} from '../index.js';

/** A decider as `HistoryBuilder.decide`, `Environment.run` and `replay` take it: a function of
 * the History, or what `decider(fn)` and `workflow(fn)` make. */
export type TestDecider = DecideFunction | { fn: DecideFunction };

/** The task list recorded where a decision names none (SWF would take the type's default). */
export const DEFAULT_TASK_LIST: 'default';

/**
 * Builds a workflow execution's history event by event (wire JSON), and the decision tasks over
 * it, playing SWF's part. Outcome methods (`activityCompleted`, `childFailed`, ...) find the
 * latest activity, child or function with that id, record its start first if it has none, and
 * throw if there is none; they return the builder, to chain.
 */
export class HistoryBuilder {
  /**
   * A history that starts the execution `workflow-1`/`run-1` of the workflow type
   * `name`/`version` with this input: `WorkflowExecutionStarted`, then `DecisionTaskScheduled`.
   */
  constructor(name: string, version: string, input?: string);
  execution: WorkflowExecution;
  workflowType: TypeName;
  /** The events so far (wire JSON). */
  events: WireEvent[];
  /** The scheduled, not yet started decision task: its DecisionTaskScheduled event id. */
  scheduledTask: number | undefined;
  /** The started decision task: `[scheduled, started]` event ids. */
  startedTask: [scheduled: number, started: number] | undefined;
  /** The DecisionTaskStarted event of the latest completed decision task, 0 if none. */
  previousStarted: number;
  /** The time of the latest event, in epoch seconds. */
  clock: number;

  /** Names the execution `workflowId`/`runId` instead of `workflow-1`/`run-1`. */
  withExecution(workflowId: string, runId: string): this;
  /** Changes the `WorkflowExecutionStarted` attributes in place, e.g. to add a Lambda role. */
  startedWith(change: (attributes: EventAttributes) => void): this;
  /** Lets `seconds` pass before the next event (events are otherwise one second apart). */
  advance(seconds: number): this;
  /** Appends an event of this type (e.g. `WorkflowExecutionSignaled`) with these attributes; answers its id. */
  event(eventType: string, attrs: EventAttributes): number;
  /**
   * The decision task a decider would get now: the started one, or else the scheduled one
   * (scheduling one if none is), started. Once the execution is closed, its history as it ends.
   */
  decisionTask(): History;
  /**
   * Completes the open decision task (starting one first if needed) with these wire decisions:
   * `DecisionTaskCompleted`, then the events SWF records for each.
   */
  respond(decisions: WireDecision[]): this;
  /**
   * Runs a decider on the decision task it would get now, records its decisions with `respond`,
   * and answers them. A decider that throws fails the decision task: the error propagates.
   */
  decide(decider: TestDecider): WireDecision[];
  /** Schedules a decision task unless one is scheduled and not yet started. */
  scheduleDecisionTask(): void;
  /** Starts the scheduled decision task unless one is started; answers its started event. */
  startDecisionTask(): number;
  /** Whether a decision closed the execution. */
  closed(): boolean;
  /** The latest event for which `pick(event)` holds, or a thrown error naming `what`. */
  latest(what: string, pick: (event: WireEvent) => boolean): WireEvent;

  /** `ActivityTaskStarted` for the activity `id`. */
  activityStarted(id: string): this;
  /** `ActivityTaskCompleted` for the activity `id`, with this result. */
  activityCompleted(id: string, result?: string): this;
  /** `ActivityTaskFailed` for the activity `id`. */
  activityFailed(id: string, reason?: string, details?: string): this;
  /** `ActivityTaskTimedOut` for the activity `id` (`timeoutType` e.g. `START_TO_CLOSE`). */
  activityTimedOut(id: string, timeoutType: string): this;
  /** `ActivityTaskCanceled` for the activity `id`. */
  activityCanceled(id: string, details?: string): this;
  /** `WorkflowExecutionSignaled`: the signal `name` with this input. */
  signal(name: string, input?: string): this;
  /** `WorkflowExecutionCancelRequested`. */
  cancelRequested(): this;
  /** `TimerFired` for the latest timer `id`. */
  timerFired(id: string): this;
  /** `ChildWorkflowExecutionStarted` for the child `workflowId`. */
  childStarted(workflowId: string): this;
  /** `StartChildWorkflowExecutionFailed` for the child `workflowId`: it could not start. */
  childStartFailed(workflowId: string, cause: string): this;
  /** `ChildWorkflowExecutionCompleted` for the child `workflowId`, with this result. */
  childCompleted(workflowId: string, result?: string): this;
  /** `ChildWorkflowExecutionFailed` for the child `workflowId`. */
  childFailed(workflowId: string, reason?: string, details?: string): this;
  /** `ChildWorkflowExecutionTimedOut` for the child `workflowId`. */
  childTimedOut(workflowId: string): this;
  /** `ChildWorkflowExecutionCanceled` for the child `workflowId`. */
  childCanceled(workflowId: string, details?: string): this;
  /** `ChildWorkflowExecutionTerminated` for the child `workflowId`. */
  childTerminated(workflowId: string): this;
  /** `LambdaFunctionStarted` for the function `id`. */
  lambdaStarted(id: string): this;
  /** `LambdaFunctionCompleted` for the function `id`, with this result. */
  lambdaCompleted(id: string, result?: string): this;
  /** `LambdaFunctionFailed` for the function `id`. */
  lambdaFailed(id: string, reason?: string, details?: string): this;
  /** `LambdaFunctionTimedOut` for the function `id`. */
  lambdaTimedOut(id: string): this;
  /** `ExternalWorkflowExecutionSignaled`: the latest signal sent to `workflowId` was delivered. */
  externalSignaled(workflowId: string): this;
  /** `ExternalWorkflowExecutionCancelRequested`: the latest cancel request sent to `workflowId` was delivered. */
  externalCancelRequested(workflowId: string): this;
}

/** How an {@link Environment} run ended. */
export interface EnvironmentRun {
  /** The decision that closed the run; `undefined` if it was terminated or nothing was left to happen. */
  close: WireDecision<CloseDecisionType> | undefined;
  /** The whole history (wire JSON). */
  events: WireEvent[];
  /** Simulated seconds from the start to the end. */
  elapsed: number;
  /** The result, if the run completed with one. */
  result: string | undefined;
  /** `[reason, details]`, if the run failed. */
  failure: [reason: string | undefined, details: string | undefined] | undefined;
  /** Whether the run was terminated (`WorkflowExecutionTerminated`). */
  terminated: boolean;
}

/**
 * A workflow run from start to close on a {@link HistoryBuilder}, in simulated time: each
 * activity (Lambda function, child workflow) is answered by the function given for its type (a
 * result, or throw a `Failure`); when nothing else can happen, time skips to what is due next.
 */
export class Environment {
  constructor(name: string, version: string, input?: string);
  /** The history being built. */
  history: HistoryBuilder;
  /** The decision tasks a run may take before `run` throws. */
  maxTasks: number;
  /**
   * Answers every activity of type `name` with `run(input)`: at once, or `seconds` after it was
   * scheduled. Until then the workflow can cancel it: it then ends canceled at once, unless
   * `ignoresCancel` (it completes when due).
   */
  activity(
    name: string,
    run: (input: string | undefined) => unknown,
    o?: { seconds?: number; ignoresCancel?: boolean },
  ): this;
  /** Answers every call of the Lambda function `name` with `run(input)`. */
  lambda(name: string, run: (input: string | undefined) => unknown): this;
  /** Runs every child workflow of type `name` as `run(input)`. */
  child(name: string, run: (input: string | undefined) => unknown): this;
  /** Sends the signal `name` `after` seconds into the run. */
  signal(after: number, name: string, input?: string): this;
  /** Asks the run to cancel (`WorkflowExecutionCancelRequested`) `after` seconds into it. */
  cancelRequest(after: number): this;
  /** Terminates the run `after` seconds into it (`WorkflowExecutionTerminated`): it ends there. */
  terminate(after: number, reason?: string): this;
  /**
   * Runs the run with `decider` (what `workflow(fn)` makes, or any decider) until it closes, is
   * terminated, or nothing is left to happen. A decider's error propagates.
   */
  run(decider: TestDecider): EnvironmentRun;
}

/** A completed decision task of a {@link RecordedHistory}, and the events its decisions were recorded as. */
export interface CompletedTask {
  history: History;
  /** Its `DecisionTaskCompleted` event. */
  completed: WireEvent;
  recorded: WireEvent[];
}

/** A recorded history, and the decision tasks it holds. */
export class RecordedHistory {
  constructor(events: WireEvent[], workflowExecution: WorkflowExecution);
  /** The events, oldest first (wire JSON). */
  events: WireEvent[];
  workflowExecution: WorkflowExecution;
  workflowType: TypeName | undefined;
  /** The decision task whose `DecisionTaskStarted` event is `startedEventId` (default: the latest). */
  decisionTask(startedEventId?: number): History;
  /** Every decision task that was completed, oldest first. */
  completedTasks(): CompletedTask[];
  /**
   * Runs the decider on every completed decision task and compares its decisions with the
   * events recorded for that task: the differences, in words; none if it replays the history.
   */
  replay(decider: TestDecider): string[];
}

/**
 * Loads an exported history: the JSON of `GetWorkflowExecutionHistory` (`{"events": [...]}`) or
 * its events array, as text or parsed. Timestamps may be epoch seconds or ISO 8601 strings.
 *
 * @param options the execution, which the history does not name (default `workflow-1`/`run-1`)
 */
export function loadHistory(
  exported: string | { events: object[] } | object[],
  options?: { workflowExecution?: WorkflowExecution },
): RecordedHistory;

/** An activity task (wire JSON) of type `name`/`version` with this input, for `worker.perform(...)`. */
export function task(
  name: string,
  version: string,
  input?: string,
  o?: { activityId?: string; workflowId?: string; runId?: string; startedEventId?: number },
): WireActivityTask;

/** A History's decision task as jco passes it to `decide` (u64 as BigInt, variants, enums). */
export function taskFromWire(history: History): unknown;
