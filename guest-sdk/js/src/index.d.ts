// TypeScript declarations of `@weft/guest` (src/index.js and the modules it re-exports),
// written by hand from the sources' JSDoc: change them with the sources. test/types.test.js
// checks them with tsc against test/types/.

// ---------------------------------------------------------------------------------------------
// Wire JSON (SWF's API shapes)

/** A workflow execution: `{workflowId, runId}`. */
export interface WorkflowExecution {
  workflowId: string;
  runId: string;
}

/** A workflow or activity type: `{name, version}`. */
export interface TypeName {
  name: string;
  version: string;
}

/** A task list: `{name}`. */
export interface TaskList {
  name: string;
}

/** A duration in seconds: a number, or SWF's string (`'30'`, `'NONE'`). */
export type Duration = number | string;

/** What happens to a run's children when it closes. */
export type ChildPolicy = 'TERMINATE' | 'REQUEST_CANCEL' | 'ABANDON';

/** The attributes of a wire event (`event.activityTaskCompletedEventAttributes`). */
export type EventAttributes = { [key: string]: any };

/**
 * A history event as wire JSON (as `GetWorkflowExecutionHistory` gives it): its attributes are
 * under `<eventType in lowerCamelCase>EventAttributes`; see {@link attributes}.
 */
export interface WireEvent {
  eventId: number;
  /** Epoch seconds. */
  eventTimestamp: number;
  eventType: string;
  [attributesKey: string]: unknown;
}

/** A decision task as wire JSON (the shape of `PollForDecisionTask`'s answer). */
export interface DecisionTask {
  workflowExecution: WorkflowExecution;
  workflowType: TypeName;
  events: WireEvent[];
  previousStartedEventId?: number;
  startedEventId: number;
}

/** The attributes of each of the 13 decisions, as the wire carries them (durations as strings). */
export interface DecisionAttributesByType {
  ScheduleActivityTask: {
    activityType: TypeName;
    activityId: string;
    control?: string;
    input?: string;
    scheduleToCloseTimeout?: string;
    taskList?: TaskList;
    taskPriority?: string;
    scheduleToStartTimeout?: string;
    startToCloseTimeout?: string;
    heartbeatTimeout?: string;
  };
  RequestCancelActivityTask: { activityId: string };
  CompleteWorkflowExecution: { result?: string };
  FailWorkflowExecution: { reason?: string; details?: string };
  CancelWorkflowExecution: { details?: string };
  ContinueAsNewWorkflowExecution: {
    input?: string;
    executionStartToCloseTimeout?: string;
    taskList?: TaskList;
    taskPriority?: string;
    taskStartToCloseTimeout?: string;
    childPolicy?: ChildPolicy;
    tagList?: string[];
    workflowTypeVersion?: string;
    lambdaRole?: string;
  };
  RecordMarker: { markerName: string; details?: string };
  StartTimer: { timerId: string; control?: string; startToFireTimeout: string };
  CancelTimer: { timerId: string };
  SignalExternalWorkflowExecution: {
    workflowId: string;
    runId?: string;
    signalName: string;
    input?: string;
    control?: string;
  };
  RequestCancelExternalWorkflowExecution: { workflowId: string; runId?: string; control?: string };
  StartChildWorkflowExecution: {
    workflowType: TypeName;
    workflowId: string;
    control?: string;
    input?: string;
    executionStartToCloseTimeout?: string;
    taskList?: TaskList;
    taskPriority?: string;
    taskStartToCloseTimeout?: string;
    childPolicy?: ChildPolicy;
    tagList?: string[];
    lambdaRole?: string;
  };
  ScheduleLambdaFunction: {
    id: string;
    name: string;
    control?: string;
    input?: string;
    startToCloseTimeout?: string;
  };
}

/** The 13 decision types. */
export type DecisionType = keyof DecisionAttributesByType;

/** The decisions that close the run. */
export type CloseDecisionType =
  | 'CompleteWorkflowExecution'
  | 'FailWorkflowExecution'
  | 'CancelWorkflowExecution'
  | 'ContinueAsNewWorkflowExecution';

/**
 * A decision as wire JSON, as `RespondDecisionTaskCompleted` takes it:
 * `{decisionType: 'StartTimer', startTimerDecisionAttributes: {...}}`. A union over the types
 * given (all by default), told apart by `decisionType`.
 */
export type WireDecision<T extends DecisionType = DecisionType> = {
  [K in T]: { decisionType: K } & {
    [A in `${Uncapitalize<K>}DecisionAttributes`]: DecisionAttributesByType[K];
  };
}[T];

/** A decider's whole answer (less the task token); see {@link response}. */
export interface DecisionResponse {
  decisions: WireDecision[];
  executionContext?: string;
  taskList?: TaskList;
  taskListScheduleToStartTimeout?: string;
}

// ---------------------------------------------------------------------------------------------
// Deciders (index.js)

/** A decider's function: the decision task's {@link History} in, its decisions out. */
export type DecideFunction = (history: History) => WireDecision[] | DecisionResponse;

/** A decider guest: what `decider(fn)` and `workflow(fn)` make; the module's default export. */
export interface Decider {
  /** The decider's function, for unit tests (`HistoryBuilder.decide`, `Environment.run`). */
  fn: DecideFunction;
  /** The `decide` export: jco's decision task in, jco's decision response out. */
  decide(task: unknown): unknown;
}

/**
 * Makes a decider of `decide`, a function of the {@link History} that answers its decisions
 * (an array of wire decisions, or a `response(...)`), or throws to fail the decision task.
 * Export the result as the module's default.
 */
export function decider(decide: DecideFunction): Decider;

// ---------------------------------------------------------------------------------------------
// history.js

/** The attributes of a wire event (`event.activityTaskCompletedEventAttributes`), `{}` if none. */
export function attributes(event: WireEvent): EventAttributes;

/**
 * A decision task, with queries over its execution's history (the whole history so far, oldest
 * first). Queries about one activity, child, function or timer follow the latest one with that id.
 */
export class History {
  /** @param task a decision task as wire JSON (the shape of `PollForDecisionTask`'s answer) */
  constructor(task: DecisionTask);
  /** The decision task itself. */
  task: DecisionTask & { previousStartedEventId: number };
  /** The execution's workflow type: `{name, version}`. */
  readonly workflowType: TypeName;
  /** The execution: `{workflowId, runId}`. */
  readonly workflowExecution: WorkflowExecution;
  /** Every event so far, oldest first (wire JSON). */
  readonly events: WireEvent[];
  /** The events since the previous decision task this decider completed (all on the first). */
  newEvents(): WireEvent[];
  /** Whether `eventId` is one of the new events. */
  isNew(eventId: number): boolean;
  /** Whether this is the execution's first decision task. */
  isFirstDecision(): boolean;
  /** The `WorkflowExecutionStarted` event's attributes: input, timeouts, task list, parent... */
  started(): EventAttributes | undefined;
  /** The execution's input, or `undefined`. */
  input(): string | undefined;
  /** The execution's input parsed as JSON (throws a `JsonError` if it is not), or `undefined`. */
  inputJson(): any;
  /** The latest event other than the decision tasks' own: usually what woke the decider. */
  lastEvent(): WireEvent | undefined;
  /** Whether cancellation of the execution was requested (`WorkflowExecutionCancelRequested`). */
  cancelRequested(): boolean;
  /** Every signal received, oldest first. */
  signals(): Signal[];
  /** The signals received since the previous decision task. */
  newSignals(): Signal[];
  /** Every marker recorded, oldest first. */
  markers(): Marker[];
  /** The latest marker named `name`. */
  marker(name: string): Marker | undefined;
  /** Where the latest activity with this id stands; `undefined` if none was scheduled. */
  activity(id: string): Status | undefined;
  /** Where the latest child execution with this workflow id stands; `undefined` if none. */
  child(workflowId: string): Status | undefined;
  /** Where the latest Lambda function with this id stands; `undefined` if none. */
  lambda(id: string): Status | undefined;
  /** Where the latest timer with this id stands; `undefined` if none was started. */
  timer(id: string): Timer | undefined;
  /** The index of the latest event for which `pick(event, attributes)` holds, or -1. */
  latest(pick: (event: WireEvent, attributes: EventAttributes) => boolean): number;
}

// ---------------------------------------------------------------------------------------------
// status.js

/** How an activity, child workflow or Lambda function stands; see {@link Status}. */
export type StatusKind =
  | 'scheduled'
  | 'started'
  | 'cancel-requested'
  | 'completed'
  | 'failed'
  | 'timed-out'
  | 'canceled'
  | 'terminated'
  | 'not-started';

/**
 * Where an activity, a child workflow or a Lambda function stands: `kind`, and the fields of
 * how it ended (`result`, `reason`/`details`, `timeoutType`, `cause`).
 */
export class Status {
  constructor(
    kind: StatusKind,
    fields?: { result?: string; reason?: string; details?: string; timeoutType?: string; cause?: string },
  );
  kind: StatusKind;
  /** The result, if it completed with one. */
  result: string | undefined;
  /** Why it failed, in short. */
  reason: string | undefined;
  /** More detail of a failure or cancellation. */
  details: string | undefined;
  /** The SWF timeout type, if it timed out. */
  timeoutType: string | undefined;
  /** The SWF cause, if it could not be scheduled or started. */
  cause: string | undefined;
  /** Whether it may still make progress: scheduled, started or asked to cancel. */
  isOpen(): boolean;
  /** Whether it completed (with or without a result). */
  isCompleted(): boolean;
  /** The result parsed as JSON, or `undefined`; throws {@link JsonError} if it is not JSON. */
  resultJson(): any;
  /** Like Rust's `Debug`: `Completed(Some("42"))`, `TimedOut("HEARTBEAT")`, `Started`. */
  toString(): string;
}

/** How a timer stands; see {@link Timer}. */
export type TimerKind = 'started' | 'fired' | 'canceled' | 'start-failed';

/** Where a timer stands (a `History.timer` answer), with the event that put it there. */
export class Timer {
  constructor(kind: TimerKind, eventId: number, cause?: string);
  kind: TimerKind;
  /** The event that put it in this state. */
  eventId: number;
  /** E.g. `TIMER_ID_ALREADY_IN_USE`, for `start-failed`. */
  cause: string | undefined;
  /** Whether it is still running. */
  isOpen(): boolean;
}

/** A signal the execution received (`WorkflowExecutionSignaled`). */
export class Signal {
  constructor(name: string, input: string | undefined, eventId: number);
  name: string;
  input: string | undefined;
  /** The event that recorded it. */
  eventId: number;
  /** Its input parsed as JSON, or `undefined` without one. */
  inputJson(): any;
}

/** A marker the decider recorded (`MarkerRecorded`). */
export class Marker {
  constructor(name: string, details: string | undefined, eventId: number);
  name: string;
  details: string | undefined;
  /** The event that recorded it. */
  eventId: number;
  /** Its details parsed as JSON, or `undefined` without them. */
  detailsJson(): any;
}

// ---------------------------------------------------------------------------------------------
// decisions.js

/** Options of `Decision.scheduleActivity` (durations in seconds). */
export interface ActivityOptions {
  input?: string;
  control?: string;
  taskList?: string;
  taskPriority?: number;
  scheduleToClose?: Duration;
  scheduleToStart?: Duration;
  startToClose?: Duration;
  heartbeat?: Duration;
}

/** Options of `Decision.continueAsNew` and `wf.continueAsNew` (durations in seconds). */
export interface ContinueAsNewOptions {
  input?: string;
  executionStartToClose?: Duration;
  taskList?: string;
  taskPriority?: number;
  taskStartToClose?: Duration;
  childPolicy?: ChildPolicy;
  tags?: string[];
  workflowTypeVersion?: string;
  lambdaRole?: string;
}

/** Options of `Decision.startChild` (durations in seconds). */
export interface ChildOptions {
  input?: string;
  control?: string;
  executionStartToClose?: Duration;
  taskList?: string;
  taskPriority?: number;
  taskStartToClose?: Duration;
  childPolicy?: ChildPolicy;
  tags?: string[];
  lambdaRole?: string;
}

/** Options of `Decision.scheduleLambda` (durations in seconds). */
export interface LambdaOptions {
  input?: string;
  control?: string;
  startToClose?: Duration;
}

/** Constructors of the 13 decisions, as wire objects. */
export const Decision: {
  /** `ScheduleActivityTask`: runs activity `id`, of type `name`/`version`. */
  scheduleActivity(id: string, name: string, version: string, o?: ActivityOptions): WireDecision<'ScheduleActivityTask'>;
  /** `RequestCancelActivityTask`: asks the running activity `id` to cancel. */
  requestCancelActivity(id: string): WireDecision<'RequestCancelActivityTask'>;
  /** `CompleteWorkflowExecution`, with an optional result (as {@link payload} makes it). */
  complete(result?: unknown): WireDecision<'CompleteWorkflowExecution'>;
  /** `FailWorkflowExecution`, with a reason and optional details. */
  fail(reason?: string, details?: string): WireDecision<'FailWorkflowExecution'>;
  /** `CancelWorkflowExecution`, with optional details. */
  cancel(details?: string): WireDecision<'CancelWorkflowExecution'>;
  /** `ContinueAsNewWorkflowExecution`: closes this run and starts a new one. */
  continueAsNew(o?: ContinueAsNewOptions): WireDecision<'ContinueAsNewWorkflowExecution'>;
  /** `RecordMarker`: writes a marker into the history. */
  recordMarker(name: string, details?: string): WireDecision<'RecordMarker'>;
  /** `StartTimer`: the timer `id` fires after `seconds`. */
  startTimer(id: string, seconds: Duration, o?: { control?: string }): WireDecision<'StartTimer'>;
  /** `CancelTimer`: cancels the open timer `id`. */
  cancelTimer(id: string): WireDecision<'CancelTimer'>;
  /** `SignalExternalWorkflowExecution`: sends `signalName` to the execution `workflowId`. */
  signalExternal(
    workflowId: string,
    signalName: string,
    o?: { runId?: string; input?: string; control?: string },
  ): WireDecision<'SignalExternalWorkflowExecution'>;
  /** `RequestCancelExternalWorkflowExecution`: asks the execution `workflowId` to cancel. */
  requestCancelExternal(
    workflowId: string,
    o?: { runId?: string; control?: string },
  ): WireDecision<'RequestCancelExternalWorkflowExecution'>;
  /** `StartChildWorkflowExecution`: starts the child `workflowId` of type `name`/`version`. */
  startChild(workflowId: string, name: string, version: string, o?: ChildOptions): WireDecision<'StartChildWorkflowExecution'>;
  /** `ScheduleLambdaFunction`: runs the function `name` under the id `id`. */
  scheduleLambda(id: string, name: string, o?: LambdaOptions): WireDecision<'ScheduleLambdaFunction'>;
};

/**
 * A decider's whole answer: its decisions, and optionally an execution context and a task list
 * for the next decision tasks (with how long a task may wait there, in seconds).
 */
export function response(
  decisions: WireDecision[],
  o?: { executionContext?: string; taskList?: string; scheduleToStart?: Duration },
): DecisionResponse;

/** The attributes of a wire decision (`decision.startTimerDecisionAttributes`). */
export function decisionAttributes<T extends DecisionType>(d: WireDecision<T>): DecisionAttributesByType[T];

// ---------------------------------------------------------------------------------------------
// activity.js

/** An activity task as wire JSON (the shape of `PollForActivityTask`'s answer). */
export interface WireActivityTask {
  activityId: string;
  activityType: TypeName;
  workflowExecution: WorkflowExecution;
  input?: string;
  startedEventId: number;
}

/**
 * Why an activity, a function or a workflow failed: a short reason (at most 256 characters)
 * and optional details. Throw it or return it from a handler.
 */
export class Failure extends Error {
  constructor(reason?: string, details?: string);
  reason: string | undefined;
  details: string | undefined;
  /** Any thrown value as a Failure: an Error's message is the reason, its stack the details. */
  static from(error: unknown): Failure;
}

/** An activity task completed, with its result text as is. */
export interface CompletedOutcome {
  outcome: 'completed';
  result?: string;
}

/** An activity task failed. */
export interface FailedOutcome {
  outcome: 'failed';
  reason?: string;
  details?: string;
}

/** An activity task stopped because cancellation was requested. */
export interface CanceledOutcome {
  outcome: 'canceled';
  details?: string;
}

/** How an activity task (or a function) ended. */
export type ActivityOutcome = CompletedOutcome | FailedOutcome | CanceledOutcome;

/**
 * How an activity task ended: a handler may return one to say exactly what it wants (a raw,
 * non-JSON result, or a cancellation).
 */
export const Outcome: {
  /** Completed with this result text, as is (not JSON-encoded). */
  completed(result?: string): CompletedOutcome;
  /** Failed. */
  failed(reason?: string, details?: string): FailedOutcome;
  /** Stopped because cancellation was requested. */
  canceled(details?: string): CanceledOutcome;
};

/**
 * What a handler's return value means: an Outcome as is, a Failure as failed, anything else as
 * completed with it as {@link payload} makes it.
 */
export function toOutcome(value: unknown): ActivityOutcome;

/** An activity task, as a handler gets it. */
export class ActivityTask implements WireActivityTask {
  /** @param task wire JSON (the shape of `PollForActivityTask`'s answer) */
  constructor(task: WireActivityTask);
  activityId: string;
  activityType: TypeName;
  workflowExecution: WorkflowExecution;
  input?: string;
  startedEventId: number;
  /**
   * The input parsed as JSON; throws `Failure('the activity needs an input')` without input and
   * `Failure('the input is not JSON', ...)` if it is not JSON.
   */
  inputJson(): any;
  /** Records a heartbeat; answers whether cancellation was requested. See {@link heartbeat}. */
  heartbeat(details?: string): boolean;
}

/**
 * A handler of activity tasks: its return value as {@link toOutcome} reads it (a string as is,
 * other values as JSON, an Outcome, a Failure); or it throws.
 */
export type ActivityHandler = (task: ActivityTask) => unknown;

/** An activity worker that runs each task with the handler registered for its activity type. */
export class ActivityWorker {
  constructor();
  /** name → version → handler. */
  handlers: Map<string, Map<string, ActivityHandler>>;
  /** Registers the handler for activity type `name`/`version` (`'*'` for any version). */
  activity(name: string, version: string, handler: ActivityHandler): this;
  /** Runs a task given as wire JSON and answers its outcome; never throws. What unit tests call. */
  perform(task: WireActivityTask): ActivityOutcome;
  /** The `run` export: jco's activity task in, jco's `activity-outcome` out. */
  run(task: unknown): unknown;
}

/** A function guest: what `fn(invoke)` makes; the module's default export. */
export interface FunctionGuest {
  /** What unit tests call: answers an Outcome, never throws. */
  perform(input?: string): ActivityOutcome;
  /** The `invoke` export: the result text, or a thrown `{reason, details}` record. */
  invoke(input?: string): string | undefined;
}

/**
 * A function guest (what `ScheduleLambdaFunction` runs): `invoke(input)` gets the optional input
 * text and returns a value (as {@link toOutcome} reads it), or throws/returns a {@link Failure}.
 */
export function fn(invoke: (input: string | undefined) => unknown): FunctionGuest;

// ---------------------------------------------------------------------------------------------
// json.js

/**
 * Writes `value` as compact JSON with object keys sorted, as serde_json writes a `Value`
 * (integral numbers as integers, BigInts as integers, `undefined` members dropped).
 */
export function canonicalJson(value: unknown): string;

/** JSON as serde_json reads it; integers beyond the safe range within u64/i64 as BigInt. */
export function parseJson(text: string): any;

/** `text` read with {@link parseJson}, or `text` itself if it is not JSON. */
export function parsePayload(text: string | undefined): any;

/**
 * The payload rule every Weft SDK follows: `undefined`/`null` is no payload, a string goes into
 * SWF unchanged, anything else as canonical JSON ({@link canonicalJson}).
 */
export function payload(value: unknown): string | undefined;

/** A JSON syntax error, with serde_json's message, line and column (of UTF-8 bytes). */
export class JsonError extends SyntaxError {
  constructor(code: string, line: number, column: number);
  code: string;
  line: number;
  column: number;
}

// ---------------------------------------------------------------------------------------------
// host.js

/** Messages to the host's log (stderr under node); the parts are joined with spaces. */
export const log: {
  debug(...parts: unknown[]): void;
  info(...parts: unknown[]): void;
  warn(...parts: unknown[]): void;
  error(...parts: unknown[]): void;
};

/**
 * Tells the service the activity task is alive, with optional progress details (at most 2,048
 * characters). Answers whether cancellation of the task was requested. Under node: false.
 */
export function heartbeat(details?: string): boolean;

// ---------------------------------------------------------------------------------------------
// workflow.js, replay.js: workflows as code

/**
 * Something a workflow waits for: `yield` it in a generator workflow, `await` it in an async
 * one; either resumes with its result, or throws ({@link ActivityError} for what did not
 * complete). It is `PromiseLike` so that `await` has its result's type; the SDK resumes the
 * workflow itself, within the decision task (see the README): await it, do not call `then`.
 */
export interface Waitable<T> extends PromiseLike<T> {}

/** An activity, a timer or a child workflow: a {@link Waitable} that can be cancelled. */
export interface Cancellable<T> extends Waitable<T> {
  /**
   * Asks SWF to stop it (once) if it was issued and has not ended: its wait then throws
   * `ActivityError` kind `canceled` (a child: if its code closes it so), or ends with the result
   * if it ended anyway. Before it is first waited for, nothing.
   */
  cancel(): void;
}

/** A child workflow: wait for it for its result, `start()` it for the started run, or `cancel()` it. */
export interface ChildWorkflow extends Cancellable<string | undefined> {
  /**
   * Ready with the started run, `{execution, result}` (wait for `result` for its outcome), or
   * throws `ActivityError` kind `not_started` if it could not start.
   */
  start(): Waitable<StartedChild>;
}

/** A started child run: its execution, and the child to wait for its result. */
export interface StartedChild {
  execution: WorkflowExecution;
  result: ChildWorkflow;
}

/**
 * What a workflow may wait for: a {@link Waitable} (or, in an async workflow, what an async
 * helper returns), or a generator (a helper of a generator workflow).
 */
export type Yieldable<T = unknown> = PromiseLike<T> | Generator<unknown, T, any>;

/** The result of waiting for `W`. */
export type ResultOf<W> = W extends Generator<any, infer R, any> ? R : Awaited<W>;

/**
 * A generator workflow (or helper) returning `R`: annotate a `function*` with it. What each
 * `yield` resumes with is typed `any` (TypeScript types all of a generator's yields alike).
 */
export type WorkflowGenerator<R = unknown> = Generator<Yieldable, R, any>;

/**
 * A workflow: a generator function of a {@link Workflow} that `yield`s what it waits for, or an
 * async function that `await`s it. What it returns completes the run (as a payload).
 */
export type WorkflowFunction = (wf: Workflow) => Generator<Yieldable, unknown, any> | PromiseLike<unknown>;

/**
 * Makes a decider of the workflow `fn`: export the result as the module's default. Its `fn`
 * (for `HistoryBuilder.decide`, `Environment.run`) replays the workflow.
 */
export function workflow(fn: WorkflowFunction): Decider;

/**
 * Makes one decider of several workflows, each serving the workflow type its key names
 * (`workflows({Order: order, Ship: ship})`). A type it does not name fails the decision task.
 */
export function workflows(byType: Record<string, WorkflowFunction>): Decider;

/** Replays the workflow `fn` over `history`: the decisions of its decision task. */
export function runWorkflow(history: History | DecisionTask, fn: WorkflowFunction): WireDecision[];

/** How an {@link ActivityError} ended. */
export type ActivityErrorKind = 'failed' | 'timed_out' | 'canceled' | 'terminated' | 'not_started';

/**
 * An activity, function or child that did not complete, thrown where the workflow waits for it.
 * `reason` is the failure's reason, the timeout type or SWF's cause; the message says how it
 * ended in words (`REASON: DETAILS`, `timed out (TYPE)`, `canceled`, ...).
 */
export class ActivityError extends Error {
  constructor(kind: ActivityErrorKind, reason?: string, details?: string, words?: string);
  kind: ActivityErrorKind;
  reason: string | undefined;
  details: string | undefined;
}

/** Thrown by the workflow: the run closes as canceled. */
export class Canceled extends Error {
  constructor(details?: string);
  details: string | undefined;
}

/** Thrown by the workflow (`throw wf.continueAsNew(...)`): the run continues as new. */
export class ContinueAsNew extends Error {
  constructor(decision: WireDecision<'ContinueAsNewWorkflowExecution'>);
  decision: WireDecision<'ContinueAsNewWorkflowExecution'>;
}

/** The workflow code issued other commands than the history recorded: fails the decision task. */
export class NondeterminismError extends Error {
  constructor(message?: string);
}

/** How often and how soon to retry an activity that failed or timed out. */
export class RetryPolicy {
  /**
   * @param maximumAttempts attempts in all (0: no limit)
   * @param o seconds (`initialInterval` default 1, `backoff` default 2), and failure reasons not
   *   to retry
   */
  constructor(
    maximumAttempts: number,
    o?: { initialInterval?: number; backoff?: number; maximumInterval?: number; nonRetryable?: string[] },
  );
  maximumAttempts: number;
  initialInterval: number;
  backoff: number;
  maximumInterval: number | undefined;
  nonRetryable: string[];
  /** The wait in seconds after attempt `attempt` (from 1) failed. */
  interval(attempt: number): number;
  /** Whether to try again after attempt `attempt` ended with `error`. */
  retries(attempt: number, error: ActivityError): boolean;
}

/** The running workflow: its input, clock and randomness, and what it waits for. */
export class Workflow {
  private constructor();
  /** The run's input. */
  input(): string | undefined;
  /** The run's input parsed as JSON (a `Failure` if it is not). */
  inputJson(): any;
  /** The run: `{workflowId, runId}`. */
  readonly execution: WorkflowExecution;
  /** The time of the decision task being replayed, in seconds: the same on every replay. */
  now(): number;
  /** The next number (64 bits) of a sequence seeded by the run, as the other SDKs draw it. */
  random(): bigint;
  /** Whether the code runs through a decision task the history already recorded. */
  isReplaying(): boolean;
  /**
   * An activity of type `name`/`version` to wait for, or to `cancel()`; options as
   * `Decision.scheduleActivity`'s, plus `id` and `retry` (failed attempts retried after a timer).
   */
  activity(
    name: string,
    version: string,
    o?: ActivityOptions & { id?: string; retry?: RetryPolicy },
  ): Cancellable<string | undefined>;
  /** The Lambda function `name` to wait for. It cannot be canceled: SWF has no decision for it. */
  lambda(name: string, o?: { id?: string; input?: string; startToClose?: Duration; control?: string }): Waitable<string | undefined>;
  /** A timer of `seconds` (whole, rounded up), started when first waited for. */
  sleep(seconds: number, o?: { id?: string }): Cancellable<void>;
  /** Cancels the timer `id` if it was started and has neither fired nor been cancelled. */
  cancelTimer(id: string): void;
  /**
   * Asks SWF to cancel the activity `id` (once) if it was scheduled and has not ended. A retried
   * activity's attempts are `ID`, `ID-2`, ...; a canceled attempt is not retried.
   */
  cancelActivity(id: string): void;
  /** Asks the child `workflowId` to cancel (once) if this run started it and it has not closed. */
  cancelChild(workflowId: string): void;
  /** A child workflow of type `name`/`version` to wait for its result, to `start()`, or to `cancel()`. */
  child(name: string, version: string, o?: ChildOptions & { id?: string }): ChildWorkflow;
  /** Sends the signal `name` to the workflow `workflowId`; wait for it: ready once delivered. */
  signalExternal(workflowId: string, name: string, o?: { runId?: string; input?: string; control?: string }): Waitable<void>;
  /** Asks the workflow `workflowId` to cancel; wait for it: ready once delivered. */
  requestCancelExternal(workflowId: string, o?: { runId?: string; control?: string }): Waitable<void>;
  /** The input of the next signal `name` (each signal is taken once). */
  signal(name: string): Waitable<string | undefined>;
  /** Ready once the run is asked to cancel. */
  cancellation(): Waitable<void>;
  /** Whether the run has been asked to cancel, as of the decision task being replayed. */
  cancelRequested(): boolean;
  /** Records a marker in the history. */
  recordMarker(name: string, details?: string): void;
  /**
   * Whether the run takes the code of change `change`: true where a run reaches this point for
   * the first time with the change deployed, and on replays of those runs. Stable for the run.
   */
  patched(change: string): boolean;
  /** Every open run took change `change`: always the new path; old markers are accepted. */
  deprecatePatch(change: string): void;
  /** The error that, thrown by the workflow, continues the run as new. */
  continueAsNew(o?: ContinueAsNewOptions): ContinueAsNew;
}

type IndexOf<K> = K extends `${infer N extends number}` ? N : number;

/**
 * Waits for all of `waitables` (started in the order given): their results, in that order; the
 * first to throw (in that order) throws.
 */
export function gather<W extends readonly Yieldable[]>(
  ...waitables: W
): Waitable<{ -readonly [K in keyof W]: ResultOf<W[K]> }>;

/**
 * Waits for whichever of `waitables` ends first (of several at one decision task, the earliest
 * given): `[index, result]`, or throws what it threw. The others are dropped, not cancelled.
 */
export function first<W extends readonly Yieldable[]>(
  ...waitables: W
): Waitable<{ [K in keyof W]: [index: IndexOf<K>, result: ResultOf<W[K]>] }[number]>;

/**
 * Waits for `w`: its result, or the `ActivityError` it threw (as `Promise.allSettled` keeps
 * failures), for what may end either way.
 */
export function settled<W extends Yieldable>(w: W): Waitable<ResultOf<W> | ActivityError>;

/** Ready once `condition()` is true: the workflow's own state, changed by its other waits. */
export function waitUntil(condition: () => boolean): Waitable<void>;
