// A domain's task lists as Weft sees them (pending tasks, waiting pollers, in-process bindings,
// pauses, rates), pause (with a reason) or resume one, limit its rate or remove the limit, and
// SWF's own CountPending*Tasks for any list by name.

import { useState } from 'preact/hooks';
import { swf, v1Get, v1Send } from '../api/client';
import type { Count } from '../api/swf-types';
import type { ListLimitReport, ListPauseReport, TaskListState } from '../api/weft-types';
import { ErrorBox, Show, useAsync } from '../components/async';
import { ConfirmDialog } from '../components/dialog';
import { pausedWords, rateWords } from '../format';

/** A list's key among the rows. */
const key = (t: TaskListState) => `${t.kind}/${t.name}`;

export function TaskListsTab({ domain }: { domain: string }) {
  const lists = useAsync(() => v1Get<{ taskLists: TaskListState[] }>('domains', domain, 'task-lists'), [domain]);
  const [pausing, setPausing] = useState<TaskListState | null>(null);
  const [limiting, setLimiting] = useState<TaskListState | null>(null);
  /** The row whose resume is under way. */
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);

  const resume = async (t: TaskListState) => {
    setBusy(key(t));
    setError(undefined);
    try {
      await v1Send<ListPauseReport>('POST', ['domains', domain, 'task-lists', t.kind, t.name, 'resume'], {});
    } catch (e) {
      setError(e);
    }
    setBusy(null);
    lists.reload();
  };

  return (
    <div>
      <h2 class="visually-hidden">Task lists</h2>
      <div class="tools">
        <p class="muted">
          Every task list with pending tasks, waiting pollers, an in-process binding, a pause or a rate. A paused list hands none of
          its tasks to any poller until it is resumed; a list with a rate hands out at most that many tasks a second, across every
          node and poller.
        </p>
        <button type="button" onClick={lists.reload} disabled={lists.loading}>
          Refresh
        </button>
      </div>
      {error !== undefined && <ErrorBox error={error} />}
      <Show state={lists} what="task lists">
        {({ taskLists }) =>
          taskLists.length === 0 ? (
            <p class="empty">No task list has pending tasks, pollers, a binding, a pause or a rate.</p>
          ) : (
            <div class="scroll">
              <table data-testid="task-lists-table">
                <thead>
                  <tr>
                    <th scope="col">Kind</th>
                    <th scope="col">Name</th>
                    <th scope="col" class="num">
                      Pending
                    </th>
                    <th scope="col" class="num">
                      Waiting pollers
                    </th>
                    <th scope="col">In-process binding</th>
                    <th scope="col">Paused</th>
                    <th scope="col">Rate</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {taskLists.map((t) => (
                    <tr key={key(t)} data-kind={t.kind} data-name={t.name} data-paused={t.paused ? 'true' : 'false'}>
                      <td>{t.kind}</td>
                      <td>{t.name}</td>
                      <td class="num">{t.pending}</td>
                      <td class="num">{t.pollers}</td>
                      <td>{t.bound ? 'yes' : 'no'}</td>
                      <td data-testid="task-list-paused">{t.paused ? pausedWords(t.paused) : 'no'}</td>
                      <td class="nowrap" data-testid="task-list-rate">{rateWords(t.rate)}</td>
                      <td class="nowrap">
                        {t.paused ? (
                          <button type="button" class="small" disabled={busy === key(t)} onClick={() => resume(t)} data-testid="task-list-resume">
                            Resume
                          </button>
                        ) : (
                          <button type="button" class="small" disabled={busy === key(t)} onClick={() => setPausing(t)} data-testid="task-list-pause">
                            Pause…
                          </button>
                        )}{' '}
                        <button type="button" class="small" disabled={busy === key(t)} onClick={() => setLimiting(t)} data-testid="task-list-limit">
                          Limit…
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
      {pausing && (
        <PauseDialog
          domain={domain}
          list={pausing}
          onClose={() => setPausing(null)}
          onDone={() => {
            setError(undefined);
            lists.reload();
          }}
        />
      )}
      {limiting && (
        <LimitDialog
          domain={domain}
          list={limiting}
          onClose={() => setLimiting(null)}
          onDone={() => {
            setError(undefined);
            lists.reload();
          }}
        />
      )}
      <CountPending domain={domain} />
    </div>
  );
}

const KIND_WORDS: Record<TaskListState['kind'], string> = {
  decision: 'decision task list',
  activity: 'activity task list',
  function: 'Lambda function',
};

function PauseDialog({
  domain,
  list,
  onClose,
  onDone,
}: {
  domain: string;
  list: TaskListState;
  onClose: () => void;
  onDone: () => void;
}) {
  const [reason, setReason] = useState('');
  return (
    <ConfirmDialog
      title={`Pause ${list.name}`}
      confirmLabel="Pause"
      onClose={onClose}
      onConfirm={async () => {
        await v1Send<ListPauseReport>('POST', ['domains', domain, 'task-lists', list.kind, list.name, 'pause'], reason ? { reason } : {});
        onDone();
      }}
    >
      <p>
        The {KIND_WORDS[list.kind]} <strong>{list.name}</strong> hands none of its tasks to any poller until it is resumed: polls on it
        wait as on an empty list. Tasks keep being queued on it, in order, and tasks already started run on.
      </p>
      <label>
        <span>
          Reason <span class="muted">(optional; shown with the list)</span>
        </span>
        <input
          autofocus
          maxLength={256}
          data-testid="task-list-pause-reason"
          value={reason}
          onInput={(e) => setReason(e.currentTarget.value)}
        />
      </label>
    </ConfirmDialog>
  );
}

/** The most a list's rate may be, in tasks a second (the server's `MAX_LIST_RATE`). */
const MAX_RATE = 1_000_000;

/** Why `text` (a rate input's value; empty for no limit) is not a rate, or `''` if it is one. */
export function rateProblem(text: string): string {
  if (text.trim() === '') return '';
  const rate = Number(text);
  return Number.isFinite(rate) && rate > 0 && rate <= MAX_RATE ? '' : `A rate is more than 0 tasks a second, at most ${MAX_RATE}.`;
}

function LimitDialog({
  domain,
  list,
  onClose,
  onDone,
}: {
  domain: string;
  list: TaskListState;
  onClose: () => void;
  onDone: () => void;
}) {
  const [rate, setRate] = useState(list.rate === undefined ? '' : String(list.rate));
  const none = rate.trim() === '';
  return (
    <ConfirmDialog
      title={`Limit ${list.name}`}
      confirmLabel={none ? 'Remove limit' : 'Limit'}
      onClose={onClose}
      onConfirm={async () => {
        const problem = rateProblem(rate);
        if (problem) throw new Error(problem);
        await v1Send<ListLimitReport>('POST', ['domains', domain, 'task-lists', list.kind, list.name, 'limit'], {
          rate: none ? null : Number(rate),
        });
        onDone();
      }}
    >
      <p>
        With a rate, the {KIND_WORDS[list.kind]} <strong>{list.name}</strong> hands out at most that many tasks a second, across every
        node and poller: polls it holds back wait as on an empty list. After a quiet while (and when the rate is new) it hands out a
        second’s worth, at least one task, at once. Tasks keep being queued on it, in order.
      </p>
      <label>
        <span>
          Tasks per second <span class="muted">(0.5 is one every 2 s; empty for no limit)</span>
        </span>
        <input
          autofocus
          type="number"
          step="any"
          min={0}
          max={MAX_RATE}
          data-testid="task-list-limit-rate"
          value={rate}
          onInput={(e) => {
            e.currentTarget.setCustomValidity(rateProblem(e.currentTarget.value));
            setRate(e.currentTarget.value);
          }}
        />
      </label>
    </ConfirmDialog>
  );
}

function CountPending({ domain }: { domain: string }) {
  const [kind, setKind] = useState<'decision' | 'activity'>('activity');
  const [name, setName] = useState('');
  const [result, setResult] = useState<{ what: string; count: Count } | { error: unknown } | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const op = kind === 'decision' ? 'CountPendingDecisionTasks' : 'CountPendingActivityTasks';
    try {
      const count = await swf<Count>(op, { domain, taskList: { name } });
      setResult({ what: `${kind} task list ${name}`, count });
    } catch (error) {
      setResult({ error });
    }
  };
  return (
    <section aria-labelledby="count-h">
      <h3 id="count-h">Count pending tasks</h3>
      <form class="inline-form" onSubmit={submit}>
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value as 'decision' | 'activity')} data-testid="count-kind">
            <option value="activity">Activity</option>
            <option value="decision">Decision</option>
          </select>
        </label>
        <label>
          Task list
          <input required spellcheck={false} value={name} onInput={(e) => setName(e.currentTarget.value)} data-testid="count-task-list" />
        </label>
        <button type="submit" data-testid="count-submit">
          Count
        </button>
      </form>
      {result && 'error' in result && <ErrorBox error={result.error} />}
      {result && 'count' in result && (
        <p data-testid="count-result" role="status">
          {result.count.truncated ? 'At least ' : ''}
          {result.count.count} pending on the {result.what}.
        </p>
      )}
    </section>
  );
}
