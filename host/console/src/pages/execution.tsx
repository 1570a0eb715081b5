// One run: its summary and relatives, its pause, timeline, pending work, history, and the
// actions on it.

import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { swf, v1Get } from '../api/client';
import type { History, HistoryEvent, WorkflowExecutionDetail } from '../api/swf-types';
import type { Pause, PinnedDecider, RunFailure, RunLogLine, RunSummary } from '../api/weft-types';
import { Show, useAsync } from '../components/async';
import { ExecutionActions } from '../components/execution-actions';
import { GuestLog } from '../components/guest-log';
import { HistoryTable } from '../components/history-table';
import { GuestFailures, RunCards } from '../components/run-cards';
import { Timeline } from '../components/timeline';
import { formatDuration, formatTime, formatTimeout, short } from '../format';
import { readHistory, type RunStory, type Span } from '../history/model';
import { links } from '../router';

interface RunData {
  detail: WorkflowExecutionDetail;
  events: HistoryEvent[];
  /** Its bound guests' latest failures, oldest first. */
  failures: RunFailure[];
  /** What its bound guests logged lately, oldest first. */
  logs: RunLogLine[];
  /** The Wasm decider module it is pinned to, if one decides it. */
  decider?: PinnedDecider;
  /** Who paused it, when and why, while it is paused. */
  paused?: Pause;
  /** When it was loaded: open things are drawn up to here. */
  now: number;
}

async function loadRun(domain: string, workflowId: string, runId: string): Promise<RunData> {
  const execution = { workflowId, runId };
  const detail = swf<WorkflowExecutionDetail>('DescribeWorkflowExecution', { domain, execution });
  // A key that may not read them sees none: the rest of the page still serves.
  const failures = v1Get<{ failures: RunFailure[] }>('domains', domain, 'workflows', workflowId, 'runs', runId, 'failures')
    .then((list) => list.failures)
    .catch(() => [] as RunFailure[]);
  const logs = v1Get<{ lines: RunLogLine[] }>('domains', domain, 'workflows', workflowId, 'runs', runId, 'logs')
    .then((list) => list.lines)
    .catch(() => [] as RunLogLine[]);
  const summary = v1Get<RunSummary>('domains', domain, 'workflows', workflowId, 'runs', runId).catch(() => undefined);
  const events: HistoryEvent[] = [];
  let nextPageToken: string | undefined;
  do {
    const page = await swf<History>('GetWorkflowExecutionHistory', {
      domain,
      execution,
      maximumPageSize: 1000,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    events.push(...page.events);
    nextPageToken = page.nextPageToken;
  } while (nextPageToken);
  const weft = await summary;
  return {
    detail: await detail,
    events,
    failures: await failures,
    logs: await logs,
    decider: weft?.decider,
    paused: weft?.paused,
    now: Date.now() / 1000,
  };
}

export function ExecutionPage({ domain, workflowId, runId }: { domain: string; workflowId: string; runId: string }) {
  const run = useAsync(() => loadRun(domain, workflowId, runId), [domain, workflowId, runId]);
  const [auto, setAuto] = useState(false);
  const isOpen = run.data?.detail.executionInfo.executionStatus === 'OPEN';
  useEffect(() => {
    if (!auto || !isOpen) return;
    const timer = setInterval(run.reload, 5000);
    return () => clearInterval(timer);
  }, [auto, isOpen, run.reload]);

  return (
    <section>
      <p class="crumbs">
        <a href={links.domains()}>Domains</a> / <a href={links.domain(domain)}>{domain}</a> / Executions /
      </p>
      <div class="title-row">
        <h1 class="wrap-anywhere">{workflowId}</h1>
      </div>
      <p class="muted wrap-anywhere">
        Run <code>{runId}</code>
      </p>
      <Show state={run} what="the execution">
        {(data) => <RunView domain={domain} data={data} onReload={run.reload} loading={run.loading} auto={auto} setAuto={setAuto} />}
      </Show>
    </section>
  );
}

function RunView({
  domain,
  data,
  onReload,
  loading,
  auto,
  setAuto,
}: {
  domain: string;
  data: RunData;
  onReload: () => void;
  loading: boolean;
  auto: boolean;
  setAuto: (on: boolean) => void;
}) {
  const { detail, events, failures, logs, decider, now } = data;
  const info = detail.executionInfo;
  const story = useMemo(() => readHistory(events), [events]);
  const open = info.executionStatus === 'OPEN';
  // A closed run holds nothing, whatever was said of it while it was open.
  const paused = open ? data.paused : undefined;
  return (
    <>
      <div class="toolbar">
        <span class={`status big ${open ? 'open' : (info.closeStatus ?? '').toLowerCase()}`} data-testid="execution-status">
          {open ? 'OPEN' : `CLOSED · ${info.closeStatus}`}
        </span>
        {info.cancelRequested && <span class="badge warn">cancel requested</span>}
        {paused && <span class="badge warn">paused</span>}
        <span class="push" />
        <ExecutionActions domain={domain} run={info.execution} open={open} paused={paused} onDone={onReload} />
        <button type="button" onClick={onReload} disabled={loading} data-testid="refresh">
          {loading ? 'Refreshing…' : 'Refresh'}
        </button>
        {open && (
          <label class="check">
            <input type="checkbox" checked={auto} onChange={(e) => setAuto(e.currentTarget.checked)} data-testid="auto-refresh" />
            Every 5 s
          </label>
        )}
      </div>
      <RunCards events={events} failures={failures} open={open} paused={paused} />
      <Relatives domain={domain} story={story} workflowId={info.execution.workflowId} parent={info.parent} />
      <Summary detail={detail} />
      {decider && <Decider decider={decider} />}
      <section aria-labelledby="timeline-h">
        <h2 id="timeline-h">Timeline</h2>
        {events.length === 0 ? <p class="empty">No events.</p> : <Timeline story={story} now={now} domain={domain} />}
      </section>
      <section aria-labelledby="pending-h">
        <h2 id="pending-h">Pending</h2>
        <Pending story={story} now={now} open={open} />
      </section>
      <section aria-labelledby="failures-h">
        <h2 id="failures-h">Guest failures</h2>
        <GuestFailures failures={failures} />
      </section>
      <section aria-labelledby="guest-log-h">
        <h2 id="guest-log-h">Guest log</h2>
        <GuestLog lines={logs} />
      </section>
      <section aria-labelledby="history-h">
        <h2 id="history-h">History</h2>
        <HistoryTable events={events} />
      </section>
    </>
  );
}

/** Which Wasm decider decides the run: the module it is pinned to, and the one an upgrade moved it from. */
function Decider({ decider }: { decider: PinnedDecider }) {
  const label = decider.name ? (decider.version ? `${decider.name} ${decider.version}` : decider.name) : undefined;
  return (
    <dl class="relatives" data-testid="decider" data-module={decider.module}>
      <dt>Decider</dt>
      <dd>
        {label && <strong>{label}</strong>} <code title={decider.module}>{short(decider.module, 12)}</code>
        <span class="muted"> · pinned {formatTime(decider.at)}</span>
        {decider.movedFrom && (
          <span class="muted">
            {' '}
            · moved from <code title={decider.movedFrom}>{short(decider.movedFrom, 12)}</code>
          </span>
        )}
      </dd>
    </dl>
  );
}

function Relatives({
  domain,
  story,
  workflowId,
  parent,
}: {
  domain: string;
  story: RunStory;
  workflowId: string;
  parent: RunStory['parent'];
}) {
  const up = story.parent ?? parent;
  if (!up && !story.previousRunId && !story.nextRunId && story.children.length === 0) return null;
  return (
    <dl class="relatives" data-testid="relatives">
      {up && (
        <>
          <dt>Parent</dt>
          <dd>
            <a href={links.execution(domain, up.workflowId, up.runId)} data-testid="parent-link">
              {up.workflowId}
            </a>{' '}
            <code class="muted">{short(up.runId)}</code>
          </dd>
        </>
      )}
      {story.previousRunId && (
        <>
          <dt>Continues</dt>
          <dd>
            <a href={links.execution(domain, workflowId, story.previousRunId)} data-testid="previous-run">
              previous run <code>{short(story.previousRunId)}</code>
            </a>
          </dd>
        </>
      )}
      {story.nextRunId && (
        <>
          <dt>Continued as</dt>
          <dd>
            <a href={links.execution(domain, workflowId, story.nextRunId)} data-testid="next-run">
              next run <code>{short(story.nextRunId)}</code>
            </a>
          </dd>
        </>
      )}
      {story.children.length > 0 && (
        <>
          <dt>Children</dt>
          <dd>
            <ul class="inline-list" data-testid="children">
              {story.children.map((c, i) => (
                <li key={i}>
                  {c.runId ? <a href={links.execution(domain, c.workflowId, c.runId)}>{c.workflowId}</a> : c.workflowId}{' '}
                  <span class={`status ${c.outcome}`}>{c.outcome}</span>
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
    </dl>
  );
}

function Summary({ detail }: { detail: WorkflowExecutionDetail }) {
  const info = detail.executionInfo;
  const conf = detail.executionConfiguration;
  const counts = detail.openCounts;
  const rows: [string, ComponentChildren][] = [
    ['Type', `${info.workflowType.name}:${info.workflowType.version}`],
    ['Started', formatTime(info.startTimestamp, true)],
    [
      info.closeTimestamp ? 'Closed' : 'Running for',
      info.closeTimestamp
        ? `${formatTime(info.closeTimestamp, true)} (after ${formatDuration(info.closeTimestamp - info.startTimestamp)})`
        : formatDuration(Date.now() / 1000 - info.startTimestamp),
    ],
    ['Task list', conf.taskList.name],
    ['Task priority', conf.taskPriority ?? '0'],
    ['Execution timeout', formatTimeout(conf.executionStartToCloseTimeout)],
    ['Decision task timeout', formatTimeout(conf.taskStartToCloseTimeout)],
    ['Child policy', conf.childPolicy],
    [
      'Open now',
      `${counts.openActivityTasks} activities · ${counts.openDecisionTasks} decision tasks · ${counts.openTimers} timers · ` +
        `${counts.openChildWorkflowExecutions} children · ${counts.openLambdaFunctions ?? 0} Lambda functions`,
    ],
    ['Tags', (info.tagList ?? []).length ? (info.tagList ?? []).map((t) => <span class="tag" key={t}>{t}</span>) : '—'],
  ];
  if (conf.lambdaRole) rows.push(['Lambda role', conf.lambdaRole]);
  if (detail.latestActivityTaskTimestamp) rows.push(['Last activity scheduled', formatTime(detail.latestActivityTaskTimestamp, true)]);
  return (
    <section aria-labelledby="summary-h">
      <h2 id="summary-h" class="visually-hidden">
        Summary
      </h2>
      <dl class="summary-grid" data-testid="execution-summary">
        {rows.map(([k, v]) => (
          <div key={k} class={k === 'Open now' || k === 'Lambda role' ? 'wide' : undefined}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      {detail.latestExecutionContext && (
        <details class="context">
          <summary>Latest execution context</summary>
          <pre>{detail.latestExecutionContext}</pre>
        </details>
      )}
    </section>
  );
}

const PENDING_LABEL: Record<string, string> = { activity: 'Activity', timer: 'Timer', child: 'Child workflow', lambda: 'Lambda function' };

function Pending({ story, now, open }: { story: RunStory; now: number; open: boolean }) {
  if (story.pending.length === 0) return <p class="empty">Nothing pending.</p>;
  const end = story.end ?? now;
  const state = (s: Span) =>
    s.kind === 'timer' ? 'waiting to fire' : s.started === undefined ? (s.kind === 'child' ? 'starting' : 'scheduled') : 'started';
  return (
    <>
      {!open && <p class="muted">The run closed with these still open.</p>}
      <div class="scroll">
        <table data-testid="pending-table">
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Name</th>
              <th scope="col">State</th>
              <th scope="col">Since</th>
              <th scope="col">For</th>
            </tr>
          </thead>
          <tbody>
            {story.pending.map((s) => (
              <tr key={s.firstEventId} data-kind={s.kind}>
                <td>{PENDING_LABEL[s.kind]}</td>
                <td>
                  {s.rowLabel.replace(/^(Timer|Child|λ) /, '')}
                  {s.attempt && s.attempt > 1 ? ` (attempt ${s.attempt})` : ''}
                </td>
                <td>{state(s)}</td>
                <td class="nowrap">{formatTime(s.started ?? s.scheduled)}</td>
                <td class="nowrap">{formatDuration(end - (s.started ?? s.scheduled))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
