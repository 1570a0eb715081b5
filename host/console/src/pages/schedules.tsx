// A domain's schedules (Weft's own, beside SWF): when each starts a run of which type, what it
// has done, and its next time; pause (with a note), unpause, trigger or delete one. A row opens
// to its definition, open runs and recent actions.

import { useState } from 'preact/hooks';
import { v1Delete, v1Query, v1Send } from '../api/client';
import type { Overlap, ScheduleDescription, ScheduleList, ScheduleOutcome, ScheduleSpec } from '../api/weft-types';
import { ErrorBox, Show, useAsync } from '../components/async';
import { ConfirmDialog } from '../components/dialog';
import { formatTime } from '../format';
import { links } from '../router';

/** Every page of the domain's schedules, in id order. */
async function loadAll(domain: string): Promise<ScheduleDescription[]> {
  const out: ScheduleDescription[] = [];
  let nextPageToken: string | undefined;
  do {
    const page = await v1Query<ScheduleList>(['domains', domain, 'schedules'], { nextPageToken });
    out.push(...page.schedules);
    nextPageToken = page.nextPageToken;
  } while (nextPageToken);
  return out;
}

/** Seconds as the largest unit that divides them, as `weft schedule` writes them: `90s`, `5m`, `2h`, `1d`. */
function span(secs: number): string {
  if (secs === 0) return '0s';
  if (secs % 86400 === 0) return `${secs / 86400}d`;
  if (secs % 3600 === 0) return `${secs / 3600}h`;
  if (secs % 60 === 0) return `${secs / 60}m`;
  return `${secs}s`;
}

/** A spec in words, as `weft schedule list` says it: `every 1h`, `every 1h +5m`, `cron "30 2 * * *" Europe/Berlin`. */
export function specWords(spec: ScheduleSpec): string {
  if (spec.every !== undefined) return `every ${span(spec.every)}${spec.offset !== undefined ? ` +${span(spec.offset)}` : ''}`;
  const crons = (spec.cron ?? []).map((c) => JSON.stringify(c)).join(' ');
  return `cron ${crons} ${spec.timeZone ?? 'UTC'}`;
}

/** An overlap policy as `--overlap` names it: `buffer-one`. */
const overlapWords = (o: Overlap | undefined) => (o ?? 'skip').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const runs = (n: number) => `${n} run${n === 1 ? '' : 's'}`;

export function SchedulesTab({ domain }: { domain: string }) {
  const list = useAsync(() => loadAll(domain), [domain]);
  const [open, setOpen] = useState<string | null>(null);
  const [pausing, setPausing] = useState<ScheduleDescription | null>(null);
  const [deleting, setDeleting] = useState<ScheduleDescription | null>(null);
  /** The row whose unpause or trigger is under way. */
  const [busy, setBusy] = useState<string | null>(null);
  const [said, setSaid] = useState<{ text: string } | { error: unknown } | undefined>();

  /** Runs a row's action that needs no confirmation, then shows its outcome and loads the list again. */
  const act = async (id: string, action: () => Promise<string | undefined>) => {
    setBusy(id);
    setSaid(undefined);
    try {
      const text = await action();
      if (text) setSaid({ text });
    } catch (error) {
      setSaid({ error });
    }
    setBusy(null);
    list.reload();
  };
  const unpause = (s: ScheduleDescription) =>
    act(s.id, async () => {
      await v1Send('POST', ['domains', domain, 'schedules', s.id, 'unpause'], {});
      return undefined;
    });
  const trigger = (s: ScheduleDescription) =>
    act(s.id, async () => {
      const outcome = await v1Send<ScheduleOutcome>('POST', ['domains', domain, 'schedules', s.id, 'trigger'], {});
      return `Triggered ${s.id}: ${runs(outcome.started)} started${outcome.started === 0 ? ' (its overlap policy skipped the time or made it wait, or the start failed: see its recent actions)' : ''}.`;
    });

  return (
    <div>
      <h2 class="visually-hidden">Schedules</h2>
      <div class="tools">
        <p class="muted">
          Runs started at the times an interval or cron expressions name (<code>weft schedule</code>). Times are in the zone the header
          names.
        </p>
        <div class="row">
          {said && 'text' in said && (
            <span role="status" data-testid="schedules-outcome">
              {said.text}
            </span>
          )}
          <button type="button" onClick={list.reload} disabled={list.loading} data-testid="schedules-refresh">
            Refresh
          </button>
        </div>
      </div>
      {said && 'error' in said && <ErrorBox error={said.error} />}
      <Show state={list} what="schedules">
        {(schedules) =>
          schedules.length === 0 ? (
            <p class="empty" data-testid="schedules-empty">
              No schedules. Make one with <code>weft schedule create</code> or <code>[[schedule]]</code> in <code>weft-app.toml</code>.
            </p>
          ) : (
            <div class="scroll">
              <table data-testid="schedules-table">
                <thead>
                  <tr>
                    <th scope="col">
                      <span class="visually-hidden">Details</span>
                    </th>
                    <th scope="col">ID</th>
                    <th scope="col">When</th>
                    <th scope="col">Workflow type</th>
                    <th scope="col">Overlap</th>
                    <th scope="col">Next</th>
                    <th scope="col" class="num">
                      Runs started
                    </th>
                    <th scope="col" class="num">
                      Skipped
                    </th>
                    <th scope="col" class="num">
                      Missed
                    </th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {schedules.map((s) => {
                    const ty = s.schedule.action.workflowType;
                    const expanded = open === s.id;
                    return [
                      <tr key={s.id} data-id={s.id} data-paused={s.info.paused ? 'true' : 'false'}>
                        <td>
                          <button
                            type="button"
                            class="disclose"
                            aria-expanded={expanded}
                            aria-label={`Details of ${s.id}`}
                            onClick={() => setOpen(expanded ? null : s.id)}
                            data-testid="schedule-disclose"
                          >
                            {expanded ? '▾' : '▸'}
                          </button>
                        </td>
                        <td>{s.id}</td>
                        <td class="nowrap" data-testid="schedule-spec">
                          {specWords(s.schedule.spec)}
                        </td>
                        <td>
                          {ty.name}:{ty.version}
                        </td>
                        <td class="nowrap">{overlapWords(s.schedule.overlap)}</td>
                        <td data-testid="schedule-next" class={s.info.paused ? undefined : 'nowrap'}>
                          {s.info.paused ? (
                            `paused${s.info.note ? `: ${s.info.note}` : ''}`
                          ) : s.nextTimes.length > 0 ? (
                            formatTime(s.nextTimes[0])
                          ) : (
                            <span class="muted">no next time</span>
                          )}
                        </td>
                        <td class="num">{s.info.actions}</td>
                        <td class="num">{s.info.skipped}</td>
                        <td class="num">{s.info.missed}</td>
                        <td class="nowrap">
                          {s.info.paused ? (
                            <button type="button" class="small" disabled={busy === s.id} onClick={() => unpause(s)} data-testid="schedule-unpause">
                              Unpause
                            </button>
                          ) : (
                            <button type="button" class="small" disabled={busy === s.id} onClick={() => setPausing(s)} data-testid="schedule-pause">
                              Pause…
                            </button>
                          )}{' '}
                          <button type="button" class="small" disabled={busy === s.id} onClick={() => trigger(s)} data-testid="schedule-trigger">
                            Trigger
                          </button>{' '}
                          <button type="button" class="small danger" disabled={busy === s.id} onClick={() => setDeleting(s)} data-testid="schedule-delete">
                            Delete…
                          </button>
                        </td>
                      </tr>,
                      expanded && (
                        <tr key={`${s.id}-details`} class="details">
                          <td colSpan={10}>
                            <ScheduleDetails domain={domain} schedule={s} />
                          </td>
                        </tr>
                      ),
                    ];
                  })}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
      {pausing && (
        <PauseDialog
          domain={domain}
          schedule={pausing}
          onClose={() => setPausing(null)}
          onDone={() => {
            setSaid(undefined);
            list.reload();
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.id}`}
          confirmLabel="Delete"
          danger
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await v1Delete('domains', domain, 'schedules', deleting.id);
            setSaid(undefined);
            if (open === deleting.id) setOpen(null);
            list.reload();
          }}
        >
          <p>
            The schedule <strong>{deleting.id}</strong> starts no more runs of{' '}
            <strong>
              {deleting.schedule.action.workflowType.name}:{deleting.schedule.action.workflowType.version}
            </strong>
            , and what it has done is forgotten; the runs it started run on. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function PauseDialog({
  domain,
  schedule,
  onClose,
  onDone,
}: {
  domain: string;
  schedule: ScheduleDescription;
  onClose: () => void;
  onDone: () => void;
}) {
  const [note, setNote] = useState('');
  return (
    <ConfirmDialog
      title={`Pause ${schedule.id}`}
      confirmLabel="Pause"
      onClose={onClose}
      onConfirm={async () => {
        await v1Send('POST', ['domains', domain, 'schedules', schedule.id, 'pause'], note ? { note } : {});
        onDone();
      }}
    >
      <p>Its times pass without a run until it is unpaused, and are not caught up then. Runs it started run on.</p>
      <label>
        <span>
          Note: why <span class="muted">(optional; shown with the schedule)</span>
        </span>
        <input autofocus spellcheck={false} data-testid="schedule-pause-note" value={note} onInput={(e) => setNote(e.currentTarget.value)} />
      </label>
    </ConfirmDialog>
  );
}

/** A schedule's definition, next times, open runs, waiting times and recent actions. */
function ScheduleDetails({ domain, schedule: s }: { domain: string; schedule: ScheduleDescription }) {
  const { spec, action } = s.schedule;
  const info = s.info;
  const defs: [string, string][] = [
    ['Created', formatTime(info.createdAt)],
    ['Changed or acted', formatTime(info.updatedAt)],
  ];
  if (!info.paused && info.note) defs.push(['Note', info.note]);
  if (spec.startAt !== undefined) defs.push(['Not before', formatTime(spec.startAt)]);
  if (spec.endAt !== undefined) defs.push(['Not after', formatTime(spec.endAt)]);
  if (spec.jitter) defs.push(['Jitter', `up to ${span(spec.jitter)}`]);
  defs.push(['Catch-up window', span(s.schedule.catchupWindow ?? 60)]);
  if (s.schedule.limit !== undefined) defs.push(['Limit', `${runs(s.schedule.limit)} in all`]);
  if (action.taskList) defs.push(['Task list', action.taskList]);
  if (action.taskPriority) defs.push(['Task priority', action.taskPriority]);
  if (action.tagList?.length) defs.push(['Tags', action.tagList.join(', ')]);
  if (action.executionStartToCloseTimeout) defs.push(['Execution timeout', action.executionStartToCloseTimeout]);
  if (action.taskStartToCloseTimeout) defs.push(['Decision task timeout', action.taskStartToCloseTimeout]);
  if (action.childPolicy) defs.push(['Child policy', action.childPolicy]);
  if (action.lambdaRole) defs.push(['Lambda role', action.lambdaRole]);
  if (action.input !== undefined) defs.push(['Input', action.input]);
  if (s.nextTimes.length > 0) defs.push(['Next times', s.nextTimes.map((t) => formatTime(t)).join(', ')]);
  if (info.buffered?.length) defs.push(['Waiting', info.buffered.map((t) => formatTime(t)).join(', ')]);
  const running = info.running ?? [];
  const recent = [...(info.recent ?? [])].reverse();
  return (
    <div class="stack" data-testid="schedule-details">
      <dl class="defaults">
        {defs.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      <div>
        <h4>Open runs it started</h4>
        {running.length === 0 ? (
          <p class="muted">None.</p>
        ) : (
          <ul class="inline-list" data-testid="schedule-running">
            {running.map((r) => (
              <li key={r.runId}>
                <a href={links.execution(domain, r.workflowId, r.runId)}>{r.workflowId}</a>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div>
        <h4>Recent actions</h4>
        {recent.length === 0 ? (
          <p class="muted">None yet.</p>
        ) : (
          <table data-testid="schedule-recent">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Acted</th>
                <th scope="col">Run</th>
              </tr>
            </thead>
            <tbody>
              {recent.map((a) => (
                <tr key={`${a.nominalTime}-${a.actualTime}-${a.workflowId}`}>
                  <td class="nowrap">{formatTime(a.nominalTime)}</td>
                  <td class="nowrap">{formatTime(a.actualTime)}</td>
                  <td>
                    {a.runId ? (
                      <a href={links.execution(domain, a.workflowId, a.runId)}>{a.workflowId}</a>
                    ) : (
                      <span class="reason">
                        {a.workflowId} not started{a.error ? `: ${a.error}` : ''}
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </div>
  );
}
