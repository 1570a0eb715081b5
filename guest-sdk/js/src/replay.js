// Runs workflow code over a history as its decision tasks saw it: the events up to each
// `DecisionTaskStarted` are applied, then the code runs as far as it goes, and what it issues
// is matched with the decisions the history recorded for that task; what it issues at the task
// being decided now is the answer. Events that came while a decision task ran are applied after
// its recorded decisions. The workflow core's `replay/` (`guest-sdk/core`), in JavaScript,
// until this SDK runs on the core; held to it by the scenarios of `guest-sdk/workflows.json`.

import { Decision, RECORDED_AS, decisionAttributes } from './decisions.js';
import { Failure } from './activity.js';
import { attributes } from './history.js';

export const PATCH_MARKER = 'weft-patch';
/** What a poll answers while an await is not resolved. */
export const PENDING = Symbol('pending');

/** The workflow code issued other commands than the history recorded. */
export class NondeterminismError extends Error {
  constructor(message) {
    super(message);
    this.name = 'NondeterminismError';
  }
}

/**
 * An activity, function or child that did not complete, thrown at its `yield`. `kind` is
 * `failed`, `timed_out`, `canceled`, `terminated` or `not_started`; `reason` the failure's
 * reason, the timeout type or SWF's cause. Its message says how it ended in words, as every SDK
 * words it: `REASON: DETAILS` (or `REASON`, or `failed`), `timed out (TYPE)`, `could not be
 * scheduled (CAUSE)`, `canceled`, `terminated`.
 */
export class ActivityError extends Error {
  constructor(kind, reason, details) {
    super(inWords(kind, reason, details));
    this.name = 'ActivityError';
    Object.assign(this, { kind, reason, details });
  }
}

function inWords(kind, reason, details) {
  switch (kind) {
    case 'failed': return [reason ?? 'failed', details].filter((part) => part != null).join(': ');
    case 'timed_out': return `timed out (${reason})`;
    case 'not_started': return `could not be scheduled (${reason})`;
    default: return kind;
  }
}

/** Thrown by the workflow: the run closes as canceled. */
export class Canceled extends Error {
  constructor(details) {
    super('canceled');
    this.name = 'Canceled';
    this.details = details;
  }
}

/** Thrown by the workflow (`throw wf.continueAsNew(...)`): the run continues as new. */
export class ContinueAsNew extends Error {
  constructor(decision) {
    super('continue as new');
    this.name = 'ContinueAsNew';
    this.decision = decision;
  }
}

const DECISION_OF = Object.fromEntries(
  Object.entries(RECORDED_AS).flatMap(([decision, events]) => events.map((e) => [e, decision])));
const LATER_FAILURES = new Set([
  'SignalExternalWorkflowExecutionFailed', 'RequestCancelExternalWorkflowExecutionFailed',
  'StartChildWorkflowExecutionFailed',
]);
const CLOSE_REFUSED = new Set([
  'CompleteWorkflowExecutionFailed', 'FailWorkflowExecutionFailed',
  'CancelWorkflowExecutionFailed', 'ContinueAsNewWorkflowExecutionFailed',
]);

const typeName = (t) => (t ? `${t.name} ${t.version}` : '');

/** `[decision type, id, what it runs]`: what replay compares of a command. */
function shape(kind, a) {
  switch (kind) {
    case 'ScheduleActivityTask': return [kind, a.activityId ?? '', typeName(a.activityType)];
    case 'RequestCancelActivityTask': return [kind, a.activityId ?? '', ''];
    case 'RecordMarker': {
      const name = a.markerName ?? '';
      return [kind, name, name === PATCH_MARKER ? a.details ?? '' : ''];
    }
    case 'StartTimer': case 'CancelTimer': return [kind, a.timerId ?? '', ''];
    case 'SignalExternalWorkflowExecution':
    case 'RequestCancelExternalWorkflowExecution': return [kind, a.workflowId ?? '', ''];
    case 'StartChildWorkflowExecution': return [kind, a.workflowId ?? '', typeName(a.workflowType)];
    case 'ScheduleLambdaFunction': return [kind, a.id ?? '', a.name ?? ''];
    default: return [kind, '', ''];
  }
}

const ofDecision = (d) => shape(d.decisionType, decisionAttributes(d));
const same = (a, b) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
// Ids quoted as the core's Rust `{:?}` quotes them: quotes and backslashes escaped.
const show = ([kind, id, what]) => kind + (id ? ` ${JSON.stringify(id)}` : '') + (what ? ` (${what})` : '');

/** `[DecisionTaskCompleted id, shape]` if the event records a decision, else undefined. */
function recorded(event) {
  const kind = DECISION_OF[event.eventType];
  if (kind === undefined) return undefined;
  const a = attributes(event);
  if (LATER_FAILURES.has(event.eventType) && a.initiatedEventId) return undefined;
  return [a.decisionTaskCompletedEventId ?? 0, shape(kind, a)];
}

/** One replay's state, shared by the workflow handle and every await. */
export class State {
  constructor(task) {
    const started = (task.events ?? []).find((e) => e.eventType === 'WorkflowExecutionStarted');
    this.input = started ? attributes(started).input : undefined;
    this.execution = task.workflowExecution ?? { workflowId: '', runId: '' };
    this.now = 0;
    this.replaying = true;
    this.taskPatches = [];
    this.patches = new Map();
    this.issued = []; // [decision, slot or undefined], not yet matched
    this.slots = []; // per awaited command: undefined, or {ok, value|error}
    this.children = new Map();
    this.timers = new Map(); // timer id -> [slot, cancel issued]
    this.counters = new Map();
    this.signals = new Map();
    this.cancelRequested = false;
    let seed = 0xcbf29ce484222325n;
    for (const byte of new TextEncoder().encode(this.execution.runId ?? '')) {
      seed = ((seed ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
    }
    this.rng = seed;
  }

  next(kind) {
    const n = (this.counters.get(kind) ?? 0) + 1;
    this.counters.set(kind, n);
    return n;
  }

  issue(decision, awaited) {
    let slot;
    if (awaited) {
      this.slots.push(undefined);
      slot = this.slots.length - 1;
      if (decision.decisionType === 'StartTimer') {
        this.timers.set(decision.startTimerDecisionAttributes.timerId, [slot, false]);
      }
    }
    this.issued.push([decision, slot]);
    return slot;
  }

  resolve(slot, outcome) {
    if (this.slots[slot] === undefined) this.slots[slot] = outcome;
  }

  cancelTimer(id) {
    const entry = this.timers.get(id);
    if (entry && !entry[1] && this.slots[entry[0]] === undefined) {
      entry[1] = true;
      this.issue(Decision.cancelTimer(id), false);
    }
  }

  /** splitmix64, as the Rust and Python SDKs draw it: a BigInt of 64 bits. */
  random() {
    const mask = 0xffffffffffffffffn;
    this.rng = (this.rng + 0x9e3779b97f4a7c15n) & mask;
    let z = this.rng;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
    return z ^ (z >> 31n);
  }
}

/**
 * Replays `task` (the workflow's code, a task over its generator, not yet started, on `state`)
 * over the decision task `history` and answers the decisions of the task being decided now.
 */
export function replay(history, state, task) {
  const r = new Replay(state, task, history.events);
  const current = history.task.startedEventId;
  let matching;
  let unseen = [];
  let running = false;
  for (const event of history.events) {
    const kind = event.eventType;
    if (matching !== undefined) {
      const found = recorded(event);
      if (found && found[0] === matching) {
        r.matched(event.eventId, found[1]);
        unseen.push(event);
        continue;
      }
      r.taskDone(matching, event.eventId);
      matching = undefined;
      running = false;
      unseen.forEach((e) => r.outside(e));
      unseen = [];
    }
    if (kind === 'DecisionTaskStarted' && event.eventId === current) {
      // The task being decided: it saw what came before its start, and nothing after.
      r.poll(event, true);
      break;
    }
    if (kind === 'DecisionTaskStarted') {
      running = true;
      r.poll(event, false);
    } else if (kind === 'DecisionTaskCompleted') {
      matching = event.eventId;
    } else if (kind === 'DecisionTaskTimedOut') {
      running = false;
      unseen.forEach((e) => r.outside(e));
      unseen = [];
    } else if (running) {
      unseen.push(event);
    } else {
      r.outside(event);
    }
  }
  if (matching !== undefined) r.taskDone(matching, history.events.at(-1)?.eventId ?? 0);
  const decisions = state.issued.map(([decision]) => decision);
  state.issued = [];
  return decisions;
}

class Replay {
  constructor(state, task, events) {
    Object.assign(this, { state, task, close: undefined, closeRefused: false });
    this.byEvent = new Map();
    this.patches = patchesByTask(events);
  }

  poll(started, current) {
    const s = this.state;
    s.now = started.eventTimestamp ?? 0;
    s.replaying = !current;
    s.taskPatches = this.patches.get(started.eventId) ?? [];
    if (this.task !== undefined) {
      const outcome = this.task.poll();
      if (outcome === PENDING) return;
      this.task = undefined;
      this.close = closeOf(outcome);
      s.issue(this.close, false);
    } else if (this.closeRefused && this.close) {
      this.closeRefused = false;
      s.issue(this.close, false);
    }
  }

  matched(eventId, recordedShape) {
    const s = this.state;
    const next = s.issued.length ? ofDecision(s.issued[0][0]) : undefined;
    if (next && same(next, recordedShape)) {
      const [, slot] = s.issued.shift();
      if (slot !== undefined) this.byEvent.set(eventId, slot);
      return;
    }
    // A change the code no longer asks about: its marker stays in old histories.
    if (recordedShape[0] === 'RecordMarker' && recordedShape[1] === PATCH_MARKER) return;
    throw new NondeterminismError(next
      ? `nondeterminism at event ${eventId}: the history has ${show(recordedShape)} where the workflow code now decides ${show(next)}`
      : `nondeterminism at event ${eventId}: the history has ${show(recordedShape)}, which the workflow code no longer decides there`);
  }

  taskDone(task, eventId) {
    const s = this.state;
    if (s.issued.length) {
      throw new NondeterminismError(
        `nondeterminism at event ${eventId}: the workflow code decides ${show(ofDecision(s.issued[0][0]))} at the decision task completed at event ${task}, which the history does not have`);
    }
  }

  outside(event) {
    const s = this.state;
    const kind = event.eventType;
    const a = attributes(event);
    if (kind === 'WorkflowExecutionSignaled') {
      if (!s.signals.has(a.signalName)) s.signals.set(a.signalName, []);
      s.signals.get(a.signalName).push(a.input);
    } else if (kind === 'WorkflowExecutionCancelRequested') {
      s.cancelRequested = true;
    } else if (CLOSE_REFUSED.has(kind)) {
      this.closeRefused = true;
    } else if (kind === 'ChildWorkflowExecutionStarted') {
      const slot = this.byEvent.get(a.initiatedEventId);
      if (slot !== undefined && !s.children.has(slot)) s.children.set(slot, a.workflowExecution);
    } else {
      const found = outcomeOf(kind, a, event.eventId);
      if (found === undefined) return;
      const slot = this.byEvent.get(found[0]);
      if (slot !== undefined) s.resolve(slot, found[1]);
    }
  }
}

/** `[event that started the command, outcome]` if the event ends a command. */
function outcomeOf(kind, a, own) {
  const ok = (value) => ({ ok: true, value });
  const error = (k, reason, details) => ({ ok: false, error: new ActivityError(k, reason, details) });
  const initiated = a.initiatedEventId || own;
  switch (kind) {
    case 'ActivityTaskCompleted': return [a.scheduledEventId, ok(a.result)];
    case 'ActivityTaskFailed': return [a.scheduledEventId, error('failed', a.reason, a.details)];
    case 'ActivityTaskTimedOut': return [a.scheduledEventId, error('timed_out', a.timeoutType, a.details)];
    case 'ActivityTaskCanceled': return [a.scheduledEventId, error('canceled', undefined, a.details)];
    case 'ScheduleActivityTaskFailed': return [own, error('not_started', a.cause)];
    case 'TimerFired': return [a.startedEventId, ok(undefined)];
    case 'TimerCanceled': return [a.startedEventId, error('canceled')];
    case 'StartTimerFailed': return [own, error('not_started', a.cause)];
    case 'ChildWorkflowExecutionCompleted': return [a.initiatedEventId, ok(a.result)];
    case 'ChildWorkflowExecutionFailed': return [a.initiatedEventId, error('failed', a.reason, a.details)];
    case 'ChildWorkflowExecutionTimedOut': return [a.initiatedEventId, error('timed_out', a.timeoutType)];
    case 'ChildWorkflowExecutionCanceled': return [a.initiatedEventId, error('canceled', undefined, a.details)];
    case 'ChildWorkflowExecutionTerminated': return [a.initiatedEventId, error('terminated')];
    case 'StartChildWorkflowExecutionFailed': return [initiated, error('not_started', a.cause)];
    case 'LambdaFunctionCompleted': return [a.scheduledEventId, ok(a.result)];
    case 'LambdaFunctionFailed': return [a.scheduledEventId, error('failed', a.reason, a.details)];
    case 'LambdaFunctionTimedOut': return [a.scheduledEventId, error('timed_out', a.timeoutType)];
    case 'ScheduleLambdaFunctionFailed': return [own, error('not_started', a.cause)];
    case 'StartLambdaFunctionFailed': return [a.scheduledEventId, error('not_started', a.cause)];
    case 'ExternalWorkflowExecutionSignaled': return [a.initiatedEventId, ok(undefined)];
    case 'SignalExternalWorkflowExecutionFailed': return [initiated, error('not_started', a.cause)];
    case 'ExternalWorkflowExecutionCancelRequested': return [a.initiatedEventId, ok(undefined)];
    case 'RequestCancelExternalWorkflowExecutionFailed': return [initiated, error('not_started', a.cause)];
    default: return undefined;
  }
}

/** The decision that closes the run the code ended so. Other errors fail the decision task. */
function closeOf(outcome) {
  if (outcome.ok) return Decision.complete(outcome.value);
  const e = outcome.error;
  if (e instanceof ContinueAsNew) return e.decision;
  if (e instanceof Canceled) return Decision.cancel(e.details);
  if (e instanceof Failure) return Decision.fail(e.reason, e.details);
  if (e instanceof ActivityError) {
    return e.kind === 'canceled' ? Decision.cancel(e.details) : Decision.fail(e.reason ?? e.kind, e.details);
  }
  throw e;
}

function patchesByTask(events) {
  const startedOf = new Map();
  const patches = new Map();
  for (const event of events) {
    const a = attributes(event);
    if (event.eventType === 'DecisionTaskCompleted') {
      startedOf.set(event.eventId, a.startedEventId);
    } else if (event.eventType === 'MarkerRecorded' && a.markerName === PATCH_MARKER) {
      const started = startedOf.get(a.decisionTaskCompletedEventId);
      if (started === undefined) continue;
      if (!patches.has(started)) patches.set(started, []);
      patches.get(started).push(a.details ?? '');
    }
  }
  return patches;
}
