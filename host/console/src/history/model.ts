// What a run's history says, gathered for the execution page: the spans of its decision tasks,
// activity attempts, timers, children and Lambda functions; its signals and markers; what is
// still pending; and its relatives (parent, children, the runs before and after a continue-as-new).

import { attributesOf, type HistoryEvent, type TypeRef, type WorkflowExecution } from '../api/swf-types';

export type Kind = 'workflow' | 'decision' | 'activity' | 'timer' | 'child' | 'lambda' | 'signal' | 'marker';

export type Outcome =
  | 'completed'
  | 'failed'
  | 'timed-out'
  | 'canceled'
  | 'terminated'
  | 'continued-as-new'
  | 'fired'
  | 'received'
  | 'recorded'
  | 'open';

/** One thing on the timeline: a bar from `scheduled` (queued until `started`) to `ended`, or a point. */
export interface Span {
  kind: Kind;
  /** Activity type name, timer id, child workflow id, function name, signal or marker name; `decision` for decision tasks. */
  name: string;
  /** The timeline row it belongs to: an activity id's attempts share one. */
  row: string;
  rowLabel: string;
  /** When it was scheduled (initiated, started for timers; the instant of a point). */
  scheduled: number;
  /** When a worker took it, for things that wait in a queue first. */
  started?: number;
  /** When it closed; absent while open. */
  ended?: number;
  outcome: Outcome;
  point?: boolean;
  /** Which attempt of its activity id this is, from 1. */
  attempt?: number;
  /** Lines for its tooltip beyond the times: result, reason, cause. */
  notes: string[];
  /** The child run, once started. */
  run?: WorkflowExecution;
  /** The event that opened it. */
  firstEventId: number;
}

export interface RunStory {
  spans: Span[];
  /** Activity, timer, child and Lambda spans still open. */
  pending: Span[];
  parent?: WorkflowExecution;
  /** The run this one continues (same workflow id). */
  previousRunId?: string;
  /** The run that continues this one. */
  nextRunId?: string;
  children: { workflowId: string; runId?: string; type: TypeRef; outcome: Outcome }[];
  start: number;
  /** When the run closed, if it did. */
  end?: number;
}

const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));
const typeName = (t: unknown) => {
  const r = t as TypeRef | undefined;
  return r ? `${r.name}:${r.version}` : '';
};
/** A note line `label: value`, dropped when the value is empty. */
const note = (label: string, v: unknown): string[] => {
  const s = str(v);
  return s === '' ? [] : [`${label}: ${s.length > 300 ? s.slice(0, 299) + '…' : s}`];
};

/** Reads a whole history (oldest event first). */
export function readHistory(events: HistoryEvent[]): RunStory {
  const spans: Span[] = [];
  // Open spans by the event id other events refer to them with.
  const byScheduled = new Map<number, Span>();
  const attempts = new Map<string, number>();
  const story: RunStory = { spans, pending: [], children: [], start: events[0]?.eventTimestamp ?? 0 };
  let workflow: Span | undefined;
  // Each decision lane's end (Infinity while a task is on it), and the lane of each open task.
  const decisionLanes: number[] = [];
  const laneOf = new Map<number, number>();

  const open = (span: Span, key: number) => {
    spans.push(span);
    byScheduled.set(key, span);
    return span;
  };
  const close = (key: unknown, at: number, outcome: Outcome, notes: string[] = []) => {
    const span = byScheduled.get(Number(key));
    if (!span) return;
    span.ended = at;
    span.outcome = outcome;
    span.notes.push(...notes);
    byScheduled.delete(Number(key));
  };
  const started = (key: unknown, at: number, notes: string[] = []) => {
    const span = byScheduled.get(Number(key));
    if (span) {
      span.started = at;
      span.notes.push(...notes);
    }
  };
  const point = (kind: Kind, name: string, row: string, rowLabel: string, e: HistoryEvent, outcome: Outcome, notes: string[]) =>
    spans.push({ kind, name, row, rowLabel, scheduled: e.eventTimestamp, ended: e.eventTimestamp, outcome, point: true, notes, firstEventId: e.eventId });

  for (const e of events) {
    const a = attributesOf(e);
    const t = e.eventTimestamp;
    switch (e.eventType) {
      case 'WorkflowExecutionStarted': {
        workflow = {
          kind: 'workflow',
          name: typeName(a.workflowType),
          row: 'workflow',
          rowLabel: 'Execution',
          scheduled: t,
          started: t,
          outcome: 'open',
          notes: note('input', a.input),
          firstEventId: e.eventId,
        };
        spans.push(workflow);
        if (a.parentWorkflowExecution) story.parent = a.parentWorkflowExecution as WorkflowExecution;
        if (a.continuedExecutionRunId) story.previousRunId = str(a.continuedExecutionRunId);
        break;
      }
      case 'WorkflowExecutionCompleted':
      case 'WorkflowExecutionFailed':
      case 'WorkflowExecutionTimedOut':
      case 'WorkflowExecutionCanceled':
      case 'WorkflowExecutionTerminated':
      case 'WorkflowExecutionContinuedAsNew': {
        const outcome = CLOSE_OUTCOME[e.eventType]!;
        story.end = t;
        if (e.eventType === 'WorkflowExecutionContinuedAsNew') story.nextRunId = str(a.newExecutionRunId);
        if (workflow) {
          workflow.ended = t;
          workflow.outcome = outcome;
          workflow.notes.push(
            ...note('result', a.result),
            ...note('reason', a.reason),
            ...note('details', a.details),
            ...note('timeout', a.timeoutType),
            ...note('cause', a.cause),
          );
        }
        break;
      }
      case 'DecisionTaskScheduled': {
        // Decision tasks never overlap by more than one queued behind one started; a second
        // lane keeps such a pair readable.
        let lane = decisionLanes.findIndex((end) => end <= t);
        if (lane < 0) lane = decisionLanes.push(t) - 1;
        decisionLanes[lane] = Infinity;
        laneOf.set(e.eventId, lane);
        open(
          {
            kind: 'decision',
            name: 'decision',
            row: `decision:${lane}`,
            rowLabel: lane === 0 ? 'Decision tasks' : 'Decision tasks (queued)',
            scheduled: t,
            outcome: 'open',
            notes: note('task list', (a.taskList as { name?: string } | undefined)?.name),
            firstEventId: e.eventId,
          },
          e.eventId,
        );
        break;
      }
      case 'DecisionTaskStarted':
        started(a.scheduledEventId, t, note('identity', a.identity));
        break;
      case 'DecisionTaskCompleted':
      case 'DecisionTaskTimedOut': {
        const lane = laneOf.get(Number(a.scheduledEventId));
        if (lane !== undefined) decisionLanes[lane] = t;
        close(a.scheduledEventId, t, e.eventType === 'DecisionTaskCompleted' ? 'completed' : 'timed-out', note('timeout', a.timeoutType));
        break;
      }
      case 'ActivityTaskScheduled': {
        const id = str(a.activityId);
        const attempt = (attempts.get(id) ?? 0) + 1;
        attempts.set(id, attempt);
        const type = a.activityType as TypeRef;
        open(
          {
            kind: 'activity',
            name: type.name,
            row: `activity:${id}`,
            rowLabel: `${type.name} · ${id}`,
            scheduled: t,
            outcome: 'open',
            attempt,
            notes: [...note('type', typeName(type)), ...note('task list', (a.taskList as { name?: string }).name), ...note('input', a.input)],
            firstEventId: e.eventId,
          },
          e.eventId,
        );
        break;
      }
      case 'ScheduleActivityTaskFailed': {
        const id = str(a.activityId);
        const type = a.activityType as TypeRef;
        point('activity', type.name, `activity:${id}`, `${type.name} · ${id}`, e, 'failed', note('could not schedule', a.cause));
        break;
      }
      case 'ActivityTaskStarted':
        started(a.scheduledEventId, t, note('worker', a.identity));
        break;
      case 'ActivityTaskCompleted':
        close(a.scheduledEventId, t, 'completed', note('result', a.result));
        break;
      case 'ActivityTaskFailed':
        close(a.scheduledEventId, t, 'failed', [...note('reason', a.reason), ...note('details', a.details)]);
        break;
      case 'ActivityTaskTimedOut':
        close(a.scheduledEventId, t, 'timed-out', [...note('timeout', a.timeoutType), ...note('last heartbeat', a.details)]);
        break;
      case 'ActivityTaskCanceled':
        close(a.scheduledEventId, t, 'canceled', note('details', a.details));
        break;
      case 'ActivityTaskCancelRequested': {
        const id = str(a.activityId);
        for (const span of byScheduled.values()) if (span.kind === 'activity' && span.row === `activity:${id}`) span.notes.push('cancel requested');
        break;
      }
      case 'TimerStarted': {
        const id = str(a.timerId);
        open(
          {
            kind: 'timer',
            name: id,
            row: `timer:${id}`,
            rowLabel: `Timer ${id}`,
            scheduled: t,
            started: t,
            outcome: 'open',
            notes: note('fires after (s)', a.startToFireTimeout),
            firstEventId: e.eventId,
          },
          e.eventId,
        );
        break;
      }
      case 'TimerFired':
        close(a.startedEventId, t, 'fired');
        break;
      case 'TimerCanceled':
        close(a.startedEventId, t, 'canceled');
        break;
      case 'StartTimerFailed': {
        const id = str(a.timerId);
        point('timer', id, `timer:${id}`, `Timer ${id}`, e, 'failed', note('could not start', a.cause));
        break;
      }
      case 'StartChildWorkflowExecutionInitiated': {
        const id = str(a.workflowId);
        open(
          {
            kind: 'child',
            name: id,
            row: `child:${id}`,
            rowLabel: `Child ${id}`,
            scheduled: t,
            outcome: 'open',
            notes: [...note('type', typeName(a.workflowType)), ...note('input', a.input)],
            firstEventId: e.eventId,
          },
          e.eventId,
        );
        story.children.push({ workflowId: id, type: a.workflowType as TypeRef, outcome: 'open' });
        break;
      }
      case 'StartChildWorkflowExecutionFailed': {
        const id = str(a.workflowId);
        const why = note('could not start', a.cause);
        // Refused with its decision (initiatedEventId 0): nothing was initiated, so a point.
        if (byScheduled.has(Number(a.initiatedEventId))) close(a.initiatedEventId, t, 'failed', why);
        else point('child', id, `child:${id}`, `Child ${id}`, e, 'failed', why);
        childOutcome(story, id, 'failed');
        break;
      }
      case 'ChildWorkflowExecutionStarted': {
        const run = a.workflowExecution as WorkflowExecution;
        const span = byScheduled.get(Number(a.initiatedEventId));
        if (span) {
          span.started = t;
          span.run = run;
        }
        const child = [...story.children].reverse().find((c) => c.workflowId === run.workflowId && !c.runId);
        if (child) child.runId = run.runId;
        break;
      }
      case 'ChildWorkflowExecutionCompleted':
      case 'ChildWorkflowExecutionFailed':
      case 'ChildWorkflowExecutionTimedOut':
      case 'ChildWorkflowExecutionCanceled':
      case 'ChildWorkflowExecutionTerminated': {
        const outcome = CHILD_OUTCOME[e.eventType]!;
        close(a.initiatedEventId, t, outcome, [
          ...note('result', a.result),
          ...note('reason', a.reason),
          ...note('details', a.details),
          ...note('timeout', a.timeoutType),
        ]);
        childOutcome(story, (a.workflowExecution as WorkflowExecution).workflowId, outcome, (a.workflowExecution as WorkflowExecution).runId);
        break;
      }
      case 'LambdaFunctionScheduled': {
        const id = str(a.id);
        const name = str(a.name);
        open(
          {
            kind: 'lambda',
            name,
            row: `lambda:${id}`,
            rowLabel: `λ ${name} · ${id}`,
            scheduled: t,
            outcome: 'open',
            notes: note('input', a.input),
            firstEventId: e.eventId,
          },
          e.eventId,
        );
        break;
      }
      case 'ScheduleLambdaFunctionFailed': {
        const id = str(a.id);
        const name = str(a.name);
        point('lambda', name, `lambda:${id}`, `λ ${name} · ${id}`, e, 'failed', note('could not schedule', a.cause));
        break;
      }
      case 'LambdaFunctionStarted':
        started(a.scheduledEventId, t);
        break;
      case 'LambdaFunctionCompleted':
        close(a.scheduledEventId, t, 'completed', note('result', a.result));
        break;
      case 'LambdaFunctionFailed':
        close(a.scheduledEventId, t, 'failed', [...note('reason', a.reason), ...note('details', a.details)]);
        break;
      case 'LambdaFunctionTimedOut':
        close(a.scheduledEventId, t, 'timed-out', note('timeout', a.timeoutType));
        break;
      case 'StartLambdaFunctionFailed':
        close(a.scheduledEventId, t, 'failed', [...note('could not start', a.cause), ...note('message', a.message)]);
        break;
      case 'WorkflowExecutionSignaled':
        point('signal', str(a.signalName), 'signals', 'Signals', e, 'received', [
          ...note('input', a.input),
          ...note('from', (a.externalWorkflowExecution as WorkflowExecution | undefined)?.workflowId),
        ]);
        break;
      case 'MarkerRecorded':
        point('marker', str(a.markerName), 'markers', 'Markers', e, 'recorded', note('details', a.details));
        break;
      case 'WorkflowExecutionCancelRequested':
        workflow?.notes.push('cancel requested');
        break;
    }
  }
  story.pending = spans.filter((s) => s.ended === undefined && s.kind !== 'workflow' && s.kind !== 'decision');
  return story;
}

const CLOSE_OUTCOME: Record<string, Outcome> = {
  WorkflowExecutionCompleted: 'completed',
  WorkflowExecutionFailed: 'failed',
  WorkflowExecutionTimedOut: 'timed-out',
  WorkflowExecutionCanceled: 'canceled',
  WorkflowExecutionTerminated: 'terminated',
  WorkflowExecutionContinuedAsNew: 'continued-as-new',
};

const CHILD_OUTCOME: Record<string, Outcome> = {
  ChildWorkflowExecutionCompleted: 'completed',
  ChildWorkflowExecutionFailed: 'failed',
  ChildWorkflowExecutionTimedOut: 'timed-out',
  ChildWorkflowExecutionCanceled: 'canceled',
  ChildWorkflowExecutionTerminated: 'terminated',
};

function childOutcome(story: RunStory, workflowId: string, outcome: Outcome, runId?: string) {
  const child = [...story.children]
    .reverse()
    .find((c) => c.workflowId === workflowId && c.outcome === 'open' && (runId === undefined || c.runId === runId));
  if (child) child.outcome = outcome;
}
