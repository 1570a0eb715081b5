// What a person looks for first on a run's page: what it was given, how it ended (result,
// failure, cancellation or termination with their reasons), and, while it is paused or its
// guests keep failing on it, why it is stuck.

import type { ComponentChildren } from 'preact';
import { attributesOf, type HistoryEvent } from '../api/swf-types';
import type { Pause, RunFailure } from '../api/weft-types';
import { formatTime, pausedWords } from '../format';

const CLOSES: Record<string, string> = {
  WorkflowExecutionCompleted: 'Result',
  WorkflowExecutionFailed: 'Failed',
  WorkflowExecutionTimedOut: 'Timed out',
  WorkflowExecutionCanceled: 'Canceled',
  WorkflowExecutionTerminated: 'Terminated',
  WorkflowExecutionContinuedAsNew: 'Continued as new',
};

const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

function Card({ title, kind, testid, children }: { title: string; kind?: string; testid: string; children: ComponentChildren }) {
  return (
    <div class={`card ${kind ?? ''}`} data-testid={testid}>
      <h3>{title}</h3>
      {children}
    </div>
  );
}

/** A payload as sent: preformatted, or a dash when there is none. */
function Payload({ value }: { value: unknown }) {
  const s = text(value);
  return s === '' ? <p class="muted">none</p> : <pre>{s}</pre>;
}

/** The run's pause and input and, once it closed, how: from its first and last events. */
export function RunCards({
  events,
  failures,
  open,
  paused,
}: {
  events: HistoryEvent[];
  failures: RunFailure[];
  open: boolean;
  paused?: Pause;
}) {
  const started = events.find((e) => e.eventType === 'WorkflowExecutionStarted');
  const close = [...events].reverse().find((e) => CLOSES[e.eventType] !== undefined);
  const a = close ? attributesOf(close) : {};
  return (
    <div class="cards">
      {open && paused && (
        <Card title="Paused" kind="warn wide" testid="run-paused">
          <p>Paused {pausedWords(paused)}</p>
          <p class="muted">None of its queued tasks is handed to a poller until it is resumed; tasks already started run on.</p>
        </Card>
      )}
      {open && failures.length > 0 && <Failing failures={failures} />}
      <Card title="Input" testid="input-card">
        <Payload value={started && attributesOf(started).input} />
      </Card>
      {close && (
        <Card title={CLOSES[close.eventType]!} kind={close.eventType === 'WorkflowExecutionCompleted' ? 'good' : 'bad'} testid="close-card">
          {close.eventType === 'WorkflowExecutionCompleted' ? (
            <Payload value={a.result} />
          ) : (
            <dl class="reasons">
              {(['reason', 'details', 'cause', 'timeoutType', 'childPolicy'] as const)
                .filter((k) => text(a[k]) !== '')
                .map((k) => (
                  <div key={k}>
                    <dt>{k === 'timeoutType' ? 'timeout' : k === 'childPolicy' ? 'child policy' : k}</dt>
                    <dd>
                      <pre>{text(a[k])}</pre>
                    </dd>
                  </div>
                ))}
            </dl>
          )}
        </Card>
      )}
    </div>
  );
}

/** Why an open run is stuck: its guests' latest failure, and how often its task failed. */
function Failing({ failures }: { failures: RunFailure[] }) {
  const last = failures[failures.length - 1]!;
  const attempts = failures.filter((f) => f.task === last.task && f.binding === last.binding).length;
  return (
    <Card title="Failing" kind="bad wide" testid="failure-card">
      <p>
        The {last.kind === 'decision' ? 'decider' : last.kind === 'activity' ? 'activity worker' : 'function'} bound to{' '}
        <code>{last.binding}</code> failed on {last.task}
        {attempts > 1 ? ` (${attempts} attempts)` : ''}, last at {formatTime(last.at, true)}:
      </p>
      <pre data-testid="failure-reason">{last.reason}</pre>
      {last.details && <pre data-testid="failure-details">{last.details}</pre>}
    </Card>
  );
}

/** The run's guests' latest failures, newest first. */
export function GuestFailures({ failures }: { failures: RunFailure[] }) {
  if (failures.length === 0) return <p class="empty">No guest has failed on this run.</p>;
  return (
    <div class="scroll">
      <table data-testid="failures-table">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Guest</th>
            <th scope="col">Task</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {[...failures].reverse().map((f, i) => (
            <tr key={i}>
              <td class="nowrap">{formatTime(f.at, true)}</td>
              <td>
                {f.kind} <code>{f.binding}</code>
              </td>
              <td class="nowrap">{f.task}</td>
              <td class="wrap-anywhere">
                {f.reason}
                {f.details && (
                  <details>
                    <summary>What it logged</summary>
                    <pre>{f.details}</pre>
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
