// A domain's executions: open or closed, filtered as SWF allows, counted, paged by token.

import { useMemo, useState } from 'preact/hooks';
import { swf, swfAll } from '../api/client';
import type { Count, WorkflowExecutionInfo, WorkflowExecutionInfos, WorkflowTypeInfo } from '../api/swf-types';
import { CLOSE_STATUSES } from '../api/swf-types';
import { ErrorBox, Show, useAsync } from '../components/async';
import { Segmented } from '../components/segmented';
import { formatTime, fromLocalInput, short, toLocalInput } from '../format';
import { href, links, navigate, rowClick, useRoute } from '../router';
import {
  type ExecutionFilter,
  type FilterBy,
  PAGE_SIZES,
  filterFromQuery,
  filterInput,
  filterProblem,
  filterToQuery,
} from './execution-filter';

export function ExecutionsTab({ domain }: { domain: string }) {
  const { query } = useRoute();
  const queryKey = query.toString();
  const filter = useMemo(() => filterFromQuery(query), [queryKey]);
  const hasFrom = query.has('from');
  const go = (f: ExecutionFilter, keepFrom: boolean) =>
    navigate(href(['domains', domain, 'executions'], filterToQuery(f, keepFrom)));

  return (
    <div>
      <div class="title-row">
        <h2 class="visually-hidden">Executions</h2>
        <Segmented
          label="Executions"
          value={filter.state}
          options={[
            ['open', 'Open'],
            ['closed', 'Closed'],
          ]}
          onChange={(state) => go({ ...filter, state, time: 'start', by: filter.by === 'closeStatus' ? 'none' : filter.by }, hasFrom)}
          testid="exec-state"
        />
      </div>
      <FilterForm domain={domain} filter={filter} key={queryKey} onApply={(f, keepFrom) => go(f, keepFrom || hasFrom)} />
      <ExecutionCount domain={domain} filter={filter} queryKey={queryKey} />
      <ExecutionTable domain={domain} filter={filter} queryKey={queryKey} key={`${domain}?${queryKey}`} />
    </div>
  );
}

const BY_LABELS: [FilterBy, string][] = [
  ['none', 'Nothing else'],
  ['workflowId', 'Workflow ID'],
  ['type', 'Workflow type'],
  ['tag', 'Tag'],
  ['closeStatus', 'Close status'],
];

function FilterForm({
  domain,
  filter,
  onApply,
}: {
  domain: string;
  filter: ExecutionFilter;
  onApply: (f: ExecutionFilter, fromChanged: boolean) => void;
}) {
  const [draft, setDraft] = useState(filter);
  const initialFrom = toLocalInput(filter.from);
  const [fromInput, setFromInput] = useState(initialFrom);
  const [toInput, setToInput] = useState(filter.to ? toLocalInput(filter.to) : '');
  const [problem, setProblem] = useState<string | undefined>();
  const set = (patch: Partial<ExecutionFilter>) => setDraft((d) => ({ ...d, ...patch }));
  const closed = filter.state === 'closed';
  // Type names for the type filter's suggestions; a failure here only loses the suggestions.
  const types = useAsync(
    () => swfAll<WorkflowTypeInfo, 'typeInfos'>('ListWorkflowTypes', { domain, registrationStatus: 'REGISTERED' }, 'typeInfos'),
    [domain],
  );
  const names = [...new Set((types.data ?? []).map((t) => t.workflowType.name))];

  const submit = (e: Event) => {
    e.preventDefault();
    const from = fromLocalInput(fromInput);
    if (!from) return setProblem('Enter the start of the time range.');
    const next: ExecutionFilter = { ...draft, from };
    const to = fromLocalInput(toInput);
    if (to) next.to = to;
    else delete next.to;
    const p = filterProblem(next);
    setProblem(p);
    if (!p) onApply(next, fromInput !== initialFrom);
  };

  return (
    <form class="filters" onSubmit={submit} data-testid="filter-form" aria-label="Filter executions">
      <fieldset>
        <legend>{closed ? 'Time range' : 'Started between'}</legend>
        {closed && (
          <label>
            Time of
            <select
              data-testid="filter-time-field"
              value={draft.time}
              onChange={(e) => set({ time: e.currentTarget.value as 'start' | 'close' })}
            >
              <option value="start">Start</option>
              <option value="close">Close</option>
            </select>
          </label>
        )}
        <label>
          From
          <input
            type="datetime-local"
            data-testid="filter-oldest"
            required
            value={fromInput}
            onInput={(e) => setFromInput(e.currentTarget.value)}
          />
        </label>
        <label>
          <span>
            To <span class="muted">(optional)</span>
          </span>
          <input type="datetime-local" data-testid="filter-latest" value={toInput} onInput={(e) => setToInput(e.currentTarget.value)} />
        </label>
      </fieldset>
      <fieldset>
        <legend>And</legend>
        <label>
          Filter by
          <select data-testid="filter-by" value={draft.by} onChange={(e) => set({ by: e.currentTarget.value as FilterBy })}>
            {BY_LABELS.filter(([by]) => closed || by !== 'closeStatus').map(([by, label]) => (
              <option key={by} value={by}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {draft.by === 'workflowId' && (
          <label>
            Workflow ID
            <input
              data-testid="filter-workflow-id"
              spellcheck={false}
              value={draft.workflowId}
              onInput={(e) => set({ workflowId: e.currentTarget.value })}
            />
          </label>
        )}
        {draft.by === 'type' && (
          <>
            <label>
              Type name
              <input
                data-testid="filter-type-name"
                list="workflow-type-names"
                spellcheck={false}
                value={draft.typeName}
                onInput={(e) => set({ typeName: e.currentTarget.value })}
              />
              <datalist id="workflow-type-names">
                {names.map((n) => (
                  <option key={n} value={n} />
                ))}
              </datalist>
            </label>
            <label>
              <span>
                Version <span class="muted">(optional)</span>
              </span>
              <input
                data-testid="filter-type-version"
                spellcheck={false}
                value={draft.typeVersion}
                onInput={(e) => set({ typeVersion: e.currentTarget.value })}
              />
            </label>
          </>
        )}
        {draft.by === 'tag' && (
          <label>
            Tag
            <input data-testid="filter-tag" spellcheck={false} value={draft.tag} onInput={(e) => set({ tag: e.currentTarget.value })} />
          </label>
        )}
        {draft.by === 'closeStatus' && (
          <label>
            Close status
            <select
              data-testid="filter-close-status"
              value={draft.closeStatus}
              onChange={(e) => set({ closeStatus: e.currentTarget.value as ExecutionFilter['closeStatus'] })}
            >
              {CLOSE_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
        )}
      </fieldset>
      <fieldset>
        <legend>Pages</legend>
        <label>
          Page size
          <select data-testid="page-size" value={draft.pageSize} onChange={(e) => set({ pageSize: Number(e.currentTarget.value) })}>
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <label class="check">
          <input
            type="checkbox"
            data-testid="reverse-order"
            checked={draft.reverse}
            onChange={(e) => set({ reverse: e.currentTarget.checked })}
          />
          Oldest first
        </label>
      </fieldset>
      <div class="actions">
        <button type="submit" class="primary" data-testid="filter-apply">
          Apply
        </button>
        {problem && (
          <span class="form-problem" role="alert">
            {problem}
          </span>
        )}
      </div>
    </form>
  );
}

function ExecutionCount({ domain, filter, queryKey }: { domain: string; filter: ExecutionFilter; queryKey: string }) {
  const op = filter.state === 'open' ? 'CountOpenWorkflowExecutions' : 'CountClosedWorkflowExecutions';
  const count = useAsync(() => swf<Count>(op, filterInput(domain, filter)), [domain, queryKey]);
  if (count.error !== undefined) return <ErrorBox error={count.error} />;
  const c = count.data;
  return (
    <p class="count" data-testid="execution-count" aria-live="polite">
      {c === undefined
        ? 'Counting…'
        : `${c.truncated ? 'At least ' : ''}${c.count} ${filter.state} execution${c.count === 1 ? '' : 's'} match${c.count === 1 ? 'es' : ''}${c.truncated ? ' (count truncated)' : ''}.`}
    </p>
  );
}

function ExecutionTable({ domain, filter, queryKey }: { domain: string; filter: ExecutionFilter; queryKey: string }) {
  // Tokens of the pages seen so far: tokens[i] fetched page i (undefined for the first). A new
  // filter mounts a new table (keyed by the query), so they start over.
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const token = tokens[tokens.length - 1];
  const op = filter.state === 'open' ? 'ListOpenWorkflowExecutions' : 'ListClosedWorkflowExecutions';
  const page = useAsync(
    () =>
      swf<WorkflowExecutionInfos>(op, {
        ...filterInput(domain, filter),
        maximumPageSize: filter.pageSize,
        reverseOrder: filter.reverse,
        ...(token ? { nextPageToken: token } : {}),
      }),
    [domain, queryKey, token],
  );
  return (
    <Show state={page} what="executions">
      {({ executionInfos, nextPageToken }) => (
        <>
          {executionInfos.length === 0 ? (
            <p class="empty" data-testid="executions-empty">
              No {filter.state} executions match.
            </p>
          ) : (
            <div class="scroll">
              <table data-testid="executions-table" class="executions">
                <thead>
                  <tr>
                    <th scope="col">Workflow ID</th>
                    <th scope="col">Run ID</th>
                    <th scope="col">Type</th>
                    <th scope="col">Started</th>
                    <th scope="col">{filter.state === 'closed' ? 'Closed' : 'Status'}</th>
                    <th scope="col">Tags</th>
                    <th scope="col">Cancel requested</th>
                  </tr>
                </thead>
                <tbody>
                  {executionInfos.map((e) => (
                    <ExecutionRow key={e.execution.runId} domain={domain} e={e} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <div class="pager">
            {tokens.length > 1 && (
              <button type="button" onClick={() => setTokens([undefined])} data-testid="first-page">
                First page
              </button>
            )}
            <span class="muted">Page {tokens.length}</span>
            <button
              type="button"
              disabled={!nextPageToken || page.loading}
              onClick={() => nextPageToken && setTokens((t) => [...t, nextPageToken])}
              data-testid="next-page"
            >
              Next page
            </button>
          </div>
        </>
      )}
    </Show>
  );
}

function ExecutionRow({ domain, e }: { domain: string; e: WorkflowExecutionInfo }) {
  const to = links.execution(domain, e.execution.workflowId, e.execution.runId);
  return (
    <tr
      class="clickable"
      data-workflow-id={e.execution.workflowId}
      data-run-id={e.execution.runId}
      onClick={(ev) => rowClick(ev, to)}
    >
      <td>
        <a href={to}>{e.execution.workflowId}</a>
      </td>
      <td>
        <code title={e.execution.runId}>{short(e.execution.runId)}</code>
      </td>
      <td>
        {e.workflowType.name}:{e.workflowType.version}
      </td>
      <td class="nowrap">{formatTime(e.startTimestamp)}</td>
      <td class="nowrap">
        {e.executionStatus === 'OPEN' ? (
          <span class="status open">OPEN</span>
        ) : (
          <>
            <span class={`status ${(e.closeStatus ?? '').toLowerCase()}`}>{e.closeStatus}</span> {formatTime(e.closeTimestamp)}
          </>
        )}
      </td>
      <td>
        {(e.tagList ?? []).map((t) => (
          <span class="tag" key={t}>
            {t}
          </span>
        ))}
      </td>
      <td>{e.cancelRequested ? 'yes' : ''}</td>
    </tr>
  );
}
