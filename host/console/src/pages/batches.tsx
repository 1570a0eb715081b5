// A domain's batch jobs (Weft's own, beside SWF): what each does to the open runs its filter
// picked, where it stands and how far it got, newest first; cancel a running one. While one runs
// the list is read again every 2 seconds. A row opens to the job's filter, members and failures.

import { useEffect, useState } from 'preact/hooks';
import { v1Get, v1Send } from '../api/client';
import type { BatchJob, BatchJobList, BatchJobState, ResetTo, RunFilter } from '../api/weft-types';
import { Show, useAsync } from '../components/async';
import { ConfirmDialog } from '../components/dialog';
import { formatTime, short } from '../format';
import { links, onRowClick } from '../router';

/** How often the list is read again while a job runs, in milliseconds. */
const REFRESH_MS = 2000;

/** A job's action in words, as `weft batch list` names it, with a signal's name: `signal wake`. */
export function actionWords(job: Pick<BatchJob, 'action'> & { signalName?: string }): string {
  switch (job.action) {
    case 'requestCancel':
      return 'request cancel';
    case 'signal':
      return `signal ${job.signalName ?? ''}`.trim();
    default:
      return job.action;
  }
}

/** How far a job got: `3 done, 1 failed of 10`. */
export const progressWords = (job: Pick<BatchJob, 'done' | 'failed' | 'matched'>) =>
  `${job.done} done, ${job.failed} failed of ${job.matched}`;

/** The runs a job's filter picks, in words: `open runs with tag nightly, of type Order:1`. */
export function filterWords(f: RunFilter): string {
  const parts: string[] = [];
  if (f.workflowId) parts.push(`of workflow id ${f.workflowId}`);
  if (f.type) parts.push(`of type ${f.type}${f.version ? `:${f.version}` : ''}`);
  if (f.tag) parts.push(`with tag ${f.tag}`);
  if (f.module) parts.push(`pinned to module ${short(f.module, 12)}`);
  if (f.startedAfter !== undefined) parts.push(`started from ${formatTime(f.startedAfter)}`);
  if (f.startedBefore !== undefined) parts.push(`started until ${formatTime(f.startedBefore)}`);
  return parts.length === 0 ? 'every open run' : `open runs ${parts.join(', ')}`;
}

/** A state's badge class, as runs' statuses are drawn. */
const STATE_CLASS: Record<BatchJobState, string> = { running: 'open', done: 'completed', canceled: 'canceled' };

export function BatchesTab({ domain }: { domain: string }) {
  const list = useAsync(() => v1Get<BatchJobList>('domains', domain, 'batches'), [domain]);
  const [open, setOpen] = useState<string | null>(null);
  const [canceling, setCanceling] = useState<BatchJob | null>(null);
  const running = list.data?.jobs.some((j) => j.state === 'running') ?? false;
  // While a job runs: read the list again 2 s after each answer; leaving the tab stops it.
  useEffect(() => {
    if (!running || list.loading) return;
    const timer = setTimeout(list.reload, REFRESH_MS);
    return () => clearTimeout(timer);
  }, [running, list.loading, list.reload]);

  return (
    <div>
      <h2 class="visually-hidden">Batch jobs</h2>
      <div class="tools">
        <p class="muted" data-testid="batches-help">
          Jobs that terminate, request cancellation of, signal, pause, resume or reset the open runs a filter picks, run by the server a
          bounded number of runs a second. Make one with <strong>Act on matching runs</strong> in Executions (<em>as a batch job</em>),{' '}
          <code>weft workflow batch</code> or <code>POST /v1/domains/{domain}/batches</code>.
        </p>
        <div class="row">
          {running && <span class="muted">Refreshing every 2 s while a job runs.</span>}
          <button type="button" onClick={list.reload} disabled={list.loading} data-testid="batches-refresh">
            Refresh
          </button>
        </div>
      </div>
      <Show state={list} what="batch jobs">
        {({ jobs }) =>
          jobs.length === 0 ? (
            <p class="empty" data-testid="batches-empty">
              No batch jobs.
            </p>
          ) : (
            <div class="scroll">
              <table data-testid="batch-jobs-table">
                <thead>
                  <tr>
                    <th scope="col">
                      <span class="visually-hidden">Details</span>
                    </th>
                    <th scope="col">ID</th>
                    <th scope="col">Action</th>
                    <th scope="col">State</th>
                    <th scope="col">Progress</th>
                    <th scope="col" class="num">
                      Rate
                    </th>
                    <th scope="col">Made</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {jobs.map((job) => {
                    const expanded = open === job.id;
                    const toggle = () => setOpen(expanded ? null : job.id);
                    return [
                      <tr key={job.id} class="clickable" data-id={job.id} data-state={job.state} onClick={(e) => onRowClick(e, toggle)}>
                        <td>
                          <button
                            type="button"
                            class="disclose"
                            aria-expanded={expanded}
                            aria-label={`Details of batch job ${job.id}`}
                            onClick={toggle}
                            data-testid="batch-disclose"
                          >
                            {expanded ? '▾' : '▸'}
                          </button>
                        </td>
                        <td>{job.id}</td>
                        <td class="nowrap" data-testid="batch-action-words">
                          {actionWords(job)}
                        </td>
                        <td>
                          <span class={`status ${STATE_CLASS[job.state]}`} data-testid="batch-state">
                            {job.state}
                          </span>
                        </td>
                        <td class="nowrap">
                          <Progress job={job} /> <span data-testid="batch-progress-words">{progressWords(job)}</span>
                        </td>
                        <td class="num nowrap">{job.rate}/s</td>
                        <td class="nowrap">
                          by {job.by}
                          <br />
                          <span class="muted">{formatTime(job.createdAt)}</span>
                        </td>
                        <td class="nowrap">
                          {job.state === 'running' && (
                            <button type="button" class="small danger" onClick={() => setCanceling(job)} data-testid="batch-cancel">
                              Cancel…
                            </button>
                          )}
                        </td>
                      </tr>,
                      expanded && (
                        <tr key={`${job.id}-details`} class="details">
                          <td colSpan={8}>
                            <JobDetails domain={domain} job={job} />
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
      {canceling && (
        <ConfirmDialog
          title={`Cancel batch job ${canceling.id}`}
          confirmLabel="Cancel the job"
          danger
          onClose={() => setCanceling(null)}
          onConfirm={async () => {
            await v1Send<BatchJob>('POST', ['domains', domain, 'batches', canceling.id, 'cancel'], {});
            list.reload();
          }}
        >
          <p>
            Batch job <strong>{canceling.id}</strong> ({actionWords(canceling)}) acts on no more runs. The runs it has acted on (
            {progressWords(canceling)} so far) stay as they are. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

/** The runs a job has acted on (or failed on) of those it matched; full once it is done. */
function Progress({ job }: { job: BatchJob }) {
  const acted = job.done + job.failed;
  // A job that matched no run has nothing to do: done, it is complete.
  const [value, max] = job.matched === 0 ? [job.state === 'done' ? 1 : 0, 1] : [Math.min(acted, job.matched), job.matched];
  return (
    <progress
      class="batch-progress"
      value={value}
      max={max}
      aria-label={`Batch job ${job.id}: ${acted} of ${job.matched} runs acted on`}
      data-testid="batch-progress"
    />
  );
}

/** A reset's decision task in words. */
export const RESET_TO_WORDS: Record<ResetTo, string> = {
  first: 'the first decision task',
  lastGood: 'the last good decision task (before the first failure)',
};

/** A job's filter, the action's members, its times and the runs it could not act on. */
function JobDetails({ domain, job }: { domain: string; job: BatchJob }) {
  const defs: [string, string][] = [['Runs', filterWords(job.filter)]];
  if (job.action === 'reset') defs.push(['Decided again from', RESET_TO_WORDS[job.to] ?? job.to]);
  if ('reason' in job && job.reason) defs.push(['Reason', job.reason]);
  if ('details' in job && job.details) defs.push(['Details', job.details]);
  if (job.action === 'signal') {
    defs.push(['Signal', job.signalName]);
    if (job.input !== undefined) defs.push(['Input', job.input]);
  }
  defs.push(['Made', `${formatTime(job.createdAt)} by ${job.by}`]);
  if (job.finishedAt !== undefined) defs.push([job.state === 'canceled' ? 'Canceled' : 'Done', formatTime(job.finishedAt)]);
  const failures = job.failures ?? [];
  return (
    <div class="stack" data-testid="batch-details">
      <dl class="defaults">
        {defs.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      <div>
        <h4>Runs it could not act on</h4>
        {job.failed === 0 ? (
          <p class="muted">None.</p>
        ) : (
          <>
            {job.failed > failures.length && (
              <p class="muted">
                The latest {failures.length} of {job.failed}.
              </p>
            )}
            <table data-testid="batch-failures">
              <thead>
                <tr>
                  <th scope="col">Workflow ID</th>
                  <th scope="col">Run ID</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {failures.map((f) => (
                  <tr key={`${f.workflowId}/${f.runId}`} data-workflow-id={f.workflowId} data-run-id={f.runId}>
                    <td>
                      <a href={links.execution(domain, f.workflowId, f.runId)}>{f.workflowId}</a>
                    </td>
                    <td>
                      <code title={f.runId}>{short(f.runId)}</code>
                    </td>
                    <td class="reason">{f.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </div>
    </div>
  );
}
