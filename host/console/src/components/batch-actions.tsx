// One action (terminate, request cancel, signal, pause, resume, reset) applied to every open run
// the executions list's filter picks: at once, through Weft's batch call, or as a batch job the
// server runs a bounded number of runs a second (followed in the domain's Batch jobs tab). The
// dialog says how many runs that is before it is confirmed, and the outcome stays beside the
// button.

import { useState } from 'preact/hooks';
import { v1Query, v1Send } from '../api/client';
import type { BatchJob, BatchJobAction, BatchJobRequest, BatchOutcome, ResetTo, RunFilter } from '../api/weft-types';
import { actionWords, RESET_TO_WORDS } from '../pages/batches';
import { type ExecutionFilter, filterParams, present } from '../pages/execution-filter';
import { links } from '../router';
import { useAsync } from './async';
import { ConfirmDialog } from './dialog';

export type BatchActionName = BatchJobAction['action'];

/** What the dialog's fields hold. */
export interface BatchForm {
  action: BatchActionName;
  /** Terminate, pause and reset: why; empty for none. */
  reason: string;
  signalName: string;
  /** A signal's input; empty for none. */
  input: string;
  /** A reset's decision task. */
  to: ResetTo;
  /** Made as a batch job rather than at once. */
  asJob: boolean;
  /** A job's runs per second; empty for the server's most. */
  rate: string;
}

export const emptyBatchForm: BatchForm = {
  action: 'terminate',
  reason: '',
  signalName: '',
  input: '',
  to: 'first',
  asJob: false,
  rate: '',
};

/** `form`'s action with its members, those left empty left out. */
export function batchAction(form: BatchForm): BatchJobAction {
  const reason = form.reason ? { reason: form.reason } : {};
  switch (form.action) {
    case 'terminate':
      return { action: 'terminate', ...reason };
    case 'requestCancel':
      return { action: 'requestCancel' };
    case 'signal':
      return { action: 'signal', signalName: form.signalName, ...(form.input ? { input: form.input } : {}) };
    case 'pause':
      return { action: 'pause', ...reason };
    case 'resume':
      return { action: 'resume' };
    case 'reset':
      return { action: 'reset', to: form.to, ...reason };
  }
}

/** The body of `POST /v1/domains/{domain}/runs/batch`: `form`'s action on the runs `filter` picks, at once. */
export const batchRequest = (filter: RunFilter, form: BatchForm) => ({ filter, ...batchAction(form) });

/** The body of `POST /v1/domains/{domain}/batches`: a job doing `form`'s action at its rate, if one is given. */
export function batchJobRequest(filter: RunFilter, form: BatchForm): BatchJobRequest {
  const rate = form.rate.trim();
  return { filter, ...batchAction(form), ...(rate ? { rate: Number(rate) } : {}) };
}

/** What is wrong with a job's rate as typed, or '': a whole number of runs a second, at least 1, or nothing. */
export function rateProblem(text: string): string {
  if (text.trim() === '') return '';
  const rate = Number(text);
  return Number.isInteger(rate) && rate >= 1 ? '' : 'A rate is a whole number of runs a second, at least 1.';
}

/** The confirm button's words: `Reset 3 open runs`, `Reset 3 open runs as a batch job`. */
export const confirmWords = (action: BatchActionName, runs: string, asJob: boolean) =>
  `${VERBS[action]} ${runs}${asJob ? ' as a batch job' : ''}`;

const VERBS: Record<BatchActionName, string> = {
  terminate: 'Terminate',
  requestCancel: 'Request cancel of',
  signal: 'Signal',
  pause: 'Pause',
  resume: 'Resume',
  reset: 'Reset',
};

const DONE_WORDS: Record<BatchActionName, string> = {
  terminate: 'Terminated',
  requestCancel: 'Requested cancellation of',
  signal: 'Signaled',
  pause: 'Paused',
  resume: 'Resumed',
  reset: 'Reset',
};

const runsWords = (n: number) => `${n} run${n === 1 ? '' : 's'}`;

/** What a batch did at once: `Reset 2 of 3 runs; 1 could not be: WHY`. */
export function outcomeWords(action: BatchActionName, outcome: BatchOutcome): string {
  const failed = outcome.failures?.length ?? 0;
  return (
    `${DONE_WORDS[action]} ${outcome.done} of ${runsWords(outcome.matched)}` +
    (failed ? `; ${failed} could not be: ${outcome.failures![0]!.message}` : '.')
  );
}

/** A job just made, in words: `Made batch job 12 (reset, 3 open runs, 10/s).` */
export const jobMadeWords = (job: BatchJob) =>
  `Made batch job ${job.id} (${actionWords(job)}, ${job.matched} open ${job.matched === 1 ? 'run' : 'runs'}, ${job.rate}/s).`;

type Said = { words: string; job?: boolean };

export function BatchActions({ domain, filter, onDone }: { domain: string; filter: ExecutionFilter; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const [said, setSaid] = useState<Said | undefined>();
  return (
    <div class="row push">
      {said && (
        <span role="status" data-testid="batch-outcome">
          {said.words}
          {said.job && (
            <>
              {' '}
              <a href={links.domain(domain, 'batches')} data-testid="batch-job-link">
                See it in Batch jobs
              </a>
            </>
          )}
        </span>
      )}
      <button type="button" onClick={() => setOpen(true)} data-testid="batch-open">
        Act on matching runs…
      </button>
      {open && (
        <BatchDialog
          domain={domain}
          filter={filter}
          onClose={() => setOpen(false)}
          onDone={(s) => {
            setSaid(s);
            onDone();
          }}
        />
      )}
    </div>
  );
}

/** What each action does to a run, under the dialog's action. */
const ACTION_HINTS: Partial<Record<BatchActionName, string>> = {
  pause: 'None of a paused run’s queued tasks is handed to a poller until it is resumed.',
  resume: 'A run that is not paused counts as failed.',
  reset:
    'A new run of each begins with its events up to that decision task, which the decider bound now decides again (unchecked: the run is not replayed against it first); signals received after it are recorded again and the old run is terminated. A child run, an imported run or one whose first decision task never started cannot be reset: it counts as failed.',
};

function BatchDialog({
  domain,
  filter,
  onClose,
  onDone,
}: {
  domain: string;
  filter: ExecutionFilter;
  onClose: () => void;
  onDone: (said: Said) => void;
}) {
  const picks = present({ ...filterParams(filter), status: 'open' });
  const count = useAsync(() => v1Query<{ count: number }>(['domains', domain, 'runs', 'count'], picks), [domain, JSON.stringify(picks)]);
  const [form, setForm] = useState<BatchForm>(emptyBatchForm);
  const set = (change: Partial<BatchForm>) => setForm((f) => ({ ...f, ...change }));
  const { action } = form;
  const n = count.data?.count;
  const runs = n === undefined ? 'the matching runs' : `${n} open run${n === 1 ? '' : 's'}`;
  const hint = ACTION_HINTS[action];
  return (
    <ConfirmDialog
      title="Act on matching runs"
      confirmLabel={n === undefined ? 'Counting…' : confirmWords(action, runs, form.asJob)}
      danger={action === 'terminate' || action === 'reset'}
      onClose={onClose}
      onConfirm={async () => {
        const runFilter = picks as RunFilter;
        if (form.asJob) {
          const job = await v1Send<BatchJob>('POST', ['domains', domain, 'batches'], batchJobRequest(runFilter, form));
          onDone({ words: jobMadeWords(job), job: true });
        } else {
          const outcome = await v1Send<BatchOutcome>('POST', ['domains', domain, 'runs', 'batch'], batchRequest(runFilter, form));
          onDone({ words: outcomeWords(action, outcome) });
        }
      }}
    >
      <p data-testid="batch-count">
        {count.error !== undefined ? 'The matching runs could not be counted.' : `The filter picks ${runs}.`} Closed runs are left as
        they are.
      </p>
      <label>
        Action
        <select data-testid="batch-action" value={action} onChange={(e) => set({ action: e.currentTarget.value as BatchActionName })}>
          <option value="terminate">Terminate</option>
          <option value="requestCancel">Request cancel</option>
          <option value="signal">Signal</option>
          <option value="pause">Pause</option>
          <option value="resume">Resume</option>
          <option value="reset">Reset</option>
        </select>
      </label>
      {hint && <p class="muted hint">{hint}</p>}
      {action === 'reset' && (
        <label>
          Decide again
          <select data-testid="batch-reset-to" value={form.to} onChange={(e) => set({ to: e.currentTarget.value as ResetTo })}>
            {(Object.keys(RESET_TO_WORDS) as ResetTo[]).map((to) => (
              <option key={to} value={to}>
                {RESET_TO_WORDS[to]}
              </option>
            ))}
          </select>
        </label>
      )}
      {(action === 'terminate' || action === 'pause' || action === 'reset') && (
        <label>
          <span>
            Reason <span class="muted">(optional{action === 'reset' ? '; the old run’s termination reason' : ''})</span>
          </span>
          <input maxLength={256} data-testid="batch-reason" value={form.reason} onInput={(e) => set({ reason: e.currentTarget.value })} />
        </label>
      )}
      {action === 'signal' && (
        <>
          <label>
            Signal name
            <input
              required
              maxLength={256}
              spellcheck={false}
              data-testid="batch-signal-name"
              value={form.signalName}
              onInput={(e) => set({ signalName: e.currentTarget.value })}
            />
          </label>
          <label>
            <span>
              Input <span class="muted">(optional)</span>
            </span>
            <textarea
              rows={3}
              maxLength={32768}
              data-testid="batch-signal-input"
              value={form.input}
              onInput={(e) => set({ input: e.currentTarget.value })}
            />
          </label>
        </>
      )}
      <label class="check">
        <input type="checkbox" checked={form.asJob} onChange={(e) => set({ asJob: e.currentTarget.checked })} data-testid="batch-as-job" />
        As a batch job, a bounded number of runs a second
      </label>
      {form.asJob && (
        <>
          <label>
            <span>
              Runs a second <span class="muted">(empty for the server’s most)</span>
            </span>
            <input
              type="number"
              step={1}
              min={1}
              data-testid="batch-rate"
              value={form.rate}
              onInput={(e) => {
                e.currentTarget.setCustomValidity(rateProblem(e.currentTarget.value));
                set({ rate: e.currentTarget.value });
              }}
            />
          </label>
          <p class="muted hint">
            The server acts on the runs open now and started so far, oldest first, and keeps at it across restarts; the job’s progress
            and the runs it could not act on show in the domain’s Batch jobs tab, where it can be canceled.
          </p>
        </>
      )}
    </ConfirmDialog>
  );
}
