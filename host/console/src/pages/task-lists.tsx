// A domain's task lists as Weft sees them (pending tasks, by fairness key where they are keyed,
// waiting pollers, in-process bindings, pauses, limits), pause (with a reason) or resume one, set
// or remove its limits (a rate, a concurrency cap, fairness keys), and SWF's own
// CountPending*Tasks for any list by name.

import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { swf, v1Get, v1Send } from '../api/client';
import type { Count } from '../api/swf-types';
import type { Fairness, KeyState, ListLimitReport, ListLimitRequest, ListPauseReport, TaskListState } from '../api/weft-types';
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
          Every task list with pending tasks, waiting pollers, an in-process binding, a pause or a limit. A paused list hands none of
          its tasks to any poller until it is resumed. Across every node and poller, a list with a rate hands out at most that many
          tasks a second; one with a cap, a task only while fewer than the cap are started and not finished; one with fairness keys
          shares its hand-outs between the keys its runs are tagged with, by weight.
        </p>
        <button type="button" onClick={lists.reload} disabled={lists.loading} data-testid="task-lists-refresh">
          Refresh
        </button>
      </div>
      {error !== undefined && <ErrorBox error={error} />}
      <Show state={lists} what="task lists">
        {({ taskLists }) =>
          taskLists.length === 0 ? (
            <p class="empty">No task list has pending tasks, pollers, a binding, a pause or a limit.</p>
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
                    <th scope="col">Limits</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {taskLists.map((t) => (
                    <tr key={key(t)} data-kind={t.kind} data-name={t.name} data-paused={t.paused ? 'true' : 'false'}>
                      <td>{t.kind}</td>
                      <td>
                        {t.name}
                        {t.keys && t.keys.length > 0 && <Keys keys={t.keys} />}
                      </td>
                      <td class="num">{t.pending}</td>
                      <td class="num">{t.pollers}</td>
                      <td>{t.bound ? 'yes' : 'no'}</td>
                      <td data-testid="task-list-paused">{t.paused ? pausedWords(t.paused) : 'no'}</td>
                      <td class="nowrap" data-testid="task-list-limits">
                        <Limits list={t} />
                      </td>
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

/** A list's limits, a line each, or `no limit`; the fairness line's title names every weight. */
function Limits({ list }: { list: TaskListState }) {
  const lines = limitWords(list);
  if (lines.length === 0) return <>no limit</>;
  const all = list.fairness && fairWords(list.fairness, Infinity);
  return (
    <>
      {lines.map((line, i) => (
        <div key={i} title={all && i === lines.length - 1 ? all : undefined}>
          {line}
        </div>
      ))}
    </>
  );
}

/** The tasks waiting under each fairness key, under the list's name; the title has them all, with their weights. */
function Keys({ keys }: { keys: KeyState[] }) {
  const all = [...keys]
    .sort(byBacklog)
    .map((k) => `${keyName(k.key)}: ${k.pending} waiting${k.weight === undefined ? '' : `, weight ${k.weight}`}`)
    .join('\n');
  return (
    <div class="keys muted">
      waiting by key:{' '}
      <span data-testid="task-list-keys" title={all}>
        {keyWords(keys).map((words, i) => (
          <Fragment key={i}>
            {i > 0 && ' · '}
            <span class="nowrap">{words}</span>
          </Fragment>
        ))}
      </span>
    </div>
  );
}

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
/** The most a list's concurrency cap may be (`MAX_LIST_CONCURRENCY`). */
const MAX_CAP = 10_000;
/** The most a fairness key's weight may be (`MAX_WEIGHT`). */
const MAX_WEIGHT = 1000;
/** The most keys fairness may weigh by name (`MAX_WEIGHTED_KEYS`). */
const MAX_WEIGHTED_KEYS = 100;
/** The longest a fairness tag prefix may be, in characters. */
const MAX_PREFIX = 256;

/** A list's concurrency cap: `at most 5 started` (as `weft task-lists` says it). */
export const capWords = (cap: number) => `at most ${cap} started`;

/** Named weights in key order, as the server keeps them. */
const weightsInOrder = (weights: Record<string, number> | undefined) =>
  Object.entries(weights ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** Fairness keys: `fair by tag tenant= (acme 3, others 1)`, naming the first `most` weights. */
export function fairWords(f: Fairness, most = 5): string {
  const named = weightsInOrder(f.weights);
  const words = named.slice(0, most).map(([key, weight]) => `${key} ${weight}`);
  if (named.length > most) words.push(`${named.length - most} more`);
  words.push(`others ${f.defaultWeight}`);
  return `fair by tag ${f.tagPrefix} (${words.join(', ')})`;
}

/** A list's limits, a line each (its rate, its cap, its fairness keys); none without any. */
export function limitWords(t: Pick<TaskListState, 'rate' | 'concurrency' | 'fairness'>): string[] {
  const lines: string[] = [];
  if (t.rate !== undefined) lines.push(rateWords(t.rate));
  if (t.concurrency !== undefined) lines.push(capWords(t.concurrency));
  if (t.fairness) lines.push(fairWords(t.fairness));
  return lines;
}

/** A fairness key as shown: `(no key)` for the runs without one. */
export const keyName = (key: string) => (key === '' ? '(no key)' : key);

/** Keys with the most waiting first; on a tie in key order, the runs without a key last. */
const byBacklog = (a: KeyState, b: KeyState) => {
  if (a.pending !== b.pending) return b.pending - a.pending;
  if ((a.key === '') !== (b.key === '')) return a.key === '' ? 1 : -1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
};

/**
 * The tasks waiting under each key, most first: `['acme 15', 'globex 5', '(no key) 1']`; past the
 * first `most` keys, how many more there are and what waits under them.
 */
export function keyWords(keys: KeyState[], most = 8): string[] {
  const sorted = [...keys].sort(byBacklog);
  const words = sorted.slice(0, most).map((k) => `${keyName(k.key)} ${k.pending}`);
  const rest = sorted.slice(most);
  if (rest.length > 0) {
    const waiting = rest.reduce((n, k) => n + k.pending, 0);
    words.push(`${rest.length} more key${rest.length === 1 ? '' : 's'}: ${waiting}`);
  }
  return words;
}

/** Why `text` (a rate input's value; empty for no limit) is not a rate, or `''` if it is one. */
export function rateProblem(text: string): string {
  if (text.trim() === '') return '';
  const rate = Number(text);
  return Number.isFinite(rate) && rate > 0 && rate <= MAX_RATE ? '' : `A rate is more than 0 tasks a second, at most ${MAX_RATE}.`;
}

/** Why `text` (a cap input's value; empty for no cap) is not a concurrency cap, or `''` if it is one. */
export function capProblem(text: string): string {
  if (text.trim() === '') return '';
  const cap = Number(text);
  return Number.isInteger(cap) && cap >= 1 && cap <= MAX_CAP ? '' : `A concurrency cap is a whole number of tasks, 1 to ${MAX_CAP}.`;
}

/** Why `text` is not a fairness tag prefix (empty for no fairness keys), or `''` if it is one. */
export function prefixProblem(text: string): string {
  if ([...text].length > MAX_PREFIX) return `A tag prefix is at most ${MAX_PREFIX} characters.`;
  if (/[\u0000-\u001f\u007f-\u009f]/.test(text)) return 'A tag prefix has no control characters.';
  return '';
}

/** Why `text` (a weight input's value) is not a weight, or `''` if it is one; empty is the default, 1. */
export function weightProblem(text: string): string {
  if (text.trim() === '') return '';
  const weight = Number(text);
  return Number.isInteger(weight) && weight >= 1 && weight <= MAX_WEIGHT ? '' : `A weight is a whole number, 1 to ${MAX_WEIGHT}.`;
}

/** Named weights as the dialog shows them: a `KEY=WEIGHT` line each, in key order. */
export const weightsText = (weights: Record<string, number> | undefined) =>
  weightsInOrder(weights)
    .map(([key, weight]) => `${key}=${weight}`)
    .join('\n');

/**
 * The weights `text` names, a `KEY=WEIGHT` line each (the key is what comes before the last `=`;
 * blank lines are skipped), or why it does not name weights.
 */
export function parseWeights(text: string): { weights: Record<string, number> } | { problem: string } {
  const weights = new Map<string, number>();
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const at = line.lastIndexOf('=');
    const key = at < 0 ? '' : line.slice(0, at).trim();
    if (key === '') return { problem: `Weights line ${i + 1} is not KEY=WEIGHT, such as acme=3.` };
    const value = line.slice(at + 1).trim();
    const weight = Number(value);
    if (value === '' || weightProblem(value)) return { problem: `The weight of ${key} is not a whole number, 1 to ${MAX_WEIGHT}.` };
    if (weights.has(key)) return { problem: `Weights name ${key} twice.` };
    weights.set(key, weight);
  }
  if (weights.size > MAX_WEIGHTED_KEYS) return { problem: `Weights name at most ${MAX_WEIGHTED_KEYS} keys; the others take the default weight.` };
  // `fromEntries`, not assignment: a key `__proto__` is a key like any other.
  return { weights: Object.fromEntries(weights) };
}

/** What the limit dialog's fields hold, as typed. */
export interface LimitForm {
  /** Tasks per second; empty for no rate. */
  rate: string;
  /** Tasks started and not finished at most; empty for no cap. */
  concurrency: string;
  /** The fairness tag prefix; empty (or blank) for no fairness keys. */
  tagPrefix: string;
  /** A `KEY=WEIGHT` line each. */
  weights: string;
  /** The weight of the other keys; empty for 1. */
  defaultWeight: string;
}

/** The limit dialog's fields for the list `t`, as it is. */
export function limitForm(t: Pick<TaskListState, 'rate' | 'concurrency' | 'fairness'>): LimitForm {
  return {
    rate: t.rate === undefined ? '' : String(t.rate),
    concurrency: t.concurrency === undefined ? '' : String(t.concurrency),
    tagPrefix: t.fairness?.tagPrefix ?? '',
    weights: weightsText(t.fairness?.weights),
    defaultWeight: t.fairness ? String(t.fairness.defaultWeight) : '',
  };
}

const sameFairness = (a: Fairness | undefined, b: Fairness | undefined) =>
  a === undefined || b === undefined
    ? a === b
    : a.tagPrefix === b.tagPrefix && a.defaultWeight === b.defaultWeight && weightsText(a.weights) === weightsText(b.weights);

/**
 * The limit request that makes the list `t` as `form` says: only the members that differ from the
 * list's (`null` for one cleared), so that what was left alone stays as it is, even if it changed
 * meanwhile; `{}` when nothing differs. Or why the form does not say a limit.
 */
export function limitRequest(
  t: Pick<TaskListState, 'rate' | 'concurrency' | 'fairness'>,
  form: LimitForm,
): { request: ListLimitRequest } | { problem: string } {
  const problem = rateProblem(form.rate) || capProblem(form.concurrency);
  if (problem) return { problem };
  const request: ListLimitRequest = {};
  const rate = form.rate.trim() === '' ? undefined : Number(form.rate);
  if (rate !== t.rate) request.rate = rate ?? null;
  const cap = form.concurrency.trim() === '' ? undefined : Number(form.concurrency);
  if (cap !== t.concurrency) request.concurrency = cap ?? null;
  let fairness: Fairness | undefined;
  if (form.tagPrefix.trim() !== '') {
    const problem = prefixProblem(form.tagPrefix) || weightProblem(form.defaultWeight);
    if (problem) return { problem };
    const parsed = parseWeights(form.weights);
    if ('problem' in parsed) return parsed;
    fairness = {
      tagPrefix: form.tagPrefix,
      ...(Object.keys(parsed.weights).length > 0 ? { weights: parsed.weights } : {}),
      defaultWeight: form.defaultWeight.trim() === '' ? 1 : Number(form.defaultWeight),
    };
  }
  if (!sameFairness(fairness, t.fairness)) request.fairness = fairness ?? null;
  return { request };
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
  const [form, setForm] = useState(() => limitForm(list));
  const set = (change: Partial<LimitForm>) => setForm((f) => ({ ...f, ...change }));
  const none = form.rate.trim() === '' && form.concurrency.trim() === '' && form.tagPrefix.trim() === '';
  const keyed = form.tagPrefix.trim() !== '';
  /** An input's value, checked as the browser checks it on submit. */
  const checked = (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }, problem: (text: string) => string) => {
    e.currentTarget.setCustomValidity(problem(e.currentTarget.value));
    return e.currentTarget.value;
  };
  const weightsProblem = (text: string) => {
    const parsed = parseWeights(text);
    return 'problem' in parsed ? parsed.problem : '';
  };
  return (
    <ConfirmDialog
      title={`Limit ${list.name}`}
      confirmLabel={none ? 'Remove limits' : 'Limit'}
      onClose={onClose}
      onConfirm={async () => {
        const asked = limitRequest(list, form);
        if ('problem' in asked) throw new Error(asked.problem);
        // Nothing changed: nothing to ask.
        if (Object.keys(asked.request).length === 0) return;
        await v1Send<ListLimitReport>('POST', ['domains', domain, 'task-lists', list.kind, list.name, 'limit'], asked.request);
        onDone();
      }}
    >
      <p>
        The {KIND_WORDS[list.kind]} <strong>{list.name}</strong> hands out its tasks within these limits, across every node and poller:
        polls it holds back wait as on an empty list, and tasks keep being queued on it, in order. Only what you change here is
        changed.
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
          value={form.rate}
          onInput={(e) => set({ rate: checked(e, rateProblem) })}
        />
      </label>
      <p class="muted hint">
        After a quiet while (and when the rate is new) the list hands out a second’s worth, at least one task, at once.
      </p>
      <label>
        <span>
          Tasks started at once <span class="muted">(started and not finished, 1 to {MAX_CAP}; empty for no cap)</span>
        </span>
        <input
          type="number"
          step={1}
          min={1}
          max={MAX_CAP}
          data-testid="task-list-limit-concurrency"
          value={form.concurrency}
          onInput={(e) => set({ concurrency: checked(e, capProblem) })}
        />
      </label>
      <fieldset class="stack">
        <legend>Fairness keys</legend>
        <p class="muted hint">
          A run’s key is the rest of its first tag that starts with the prefix: <code>tenant=</code> keys the tag{' '}
          <code>tenant=acme</code> as <code>acme</code>. Keys with tasks waiting share the hand-outs in proportion to their weights,
          so that one key’s backlog does not starve another’s; runs without a key share as one more key.
        </p>
        <label>
          <span>
            Tag prefix <span class="muted">(empty for no keys)</span>
          </span>
          <input
            spellcheck={false}
            maxLength={MAX_PREFIX}
            data-testid="task-list-limit-tag-prefix"
            value={form.tagPrefix}
            onInput={(e) => set({ tagPrefix: checked(e, prefixProblem) })}
          />
        </label>
        <label>
          <span>
            Weights <span class="muted">(a KEY=WEIGHT line each, 1 to {MAX_WEIGHT}, such as acme=3)</span>
          </span>
          <textarea
            rows={3}
            spellcheck={false}
            disabled={!keyed}
            data-testid="task-list-limit-weights"
            value={form.weights}
            onInput={(e) => set({ weights: checked(e, weightsProblem) })}
          />
        </label>
        <label>
          <span>
            Weight of the other keys <span class="muted">(and of runs without one; empty for 1)</span>
          </span>
          <input
            type="number"
            step={1}
            min={1}
            max={MAX_WEIGHT}
            placeholder="1"
            disabled={!keyed}
            data-testid="task-list-limit-default-weight"
            value={form.defaultWeight}
            onInput={(e) => set({ defaultWeight: checked(e, weightProblem) })}
          />
        </label>
      </fieldset>
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
