// A domain's executions: open and closed together (or either), newest first, filtered, counted,
// paged by token, each failing run marked; and one action applied to every open run the filter
// picks.

import { useMemo, useState } from 'preact/hooks';
import { v1Query } from '../api/client';
import type { RunList, RunSummary } from '../api/weft-types';
import { ErrorBox, Show, useAsync } from '../components/async';
import { BatchActions } from '../components/batch-actions';
import { Segmented } from '../components/segmented';
import { formatAgo, formatDuration, formatTime, short } from '../format';
import { href, links, navigate, rowClick, useRoute } from '../router';
import { type ExecutionFilter, filterFromQuery, filterParams, filterToQuery, listParams } from './execution-filter';
import { FilterForm } from './filter-form';

export function ExecutionsTab({ domain }: { domain: string }) {
  const { query } = useRoute();
  const queryKey = query.toString();
  const filter = useMemo(() => filterFromQuery(query), [queryKey]);
  const hasFrom = query.has('from');
  // Bumped after a batch action, so that the count and the table are read again.
  const [generation, setGeneration] = useState(0);
  const go = (f: ExecutionFilter, keepFrom: boolean) =>
    navigate(href(['domains', domain, 'executions'], filterToQuery(f, keepFrom)));
  const reads = `${queryKey}#${generation}`;

  return (
    <div>
      <div class="title-row">
        <h2 class="visually-hidden">Executions</h2>
        <Segmented
          label="Executions"
          value={filter.state}
          options={[
            ['all', 'All'],
            ['open', 'Open'],
            ['closed', 'Closed'],
          ]}
          onChange={(state) =>
            go({ ...filter, state, time: 'start', by: state !== 'closed' && filter.by === 'closeStatus' ? 'none' : filter.by }, hasFrom)
          }
          testid="exec-state"
        />
        {filter.state !== 'closed' && (
          <BatchActions domain={domain} filter={filter} onDone={() => setGeneration((g) => g + 1)} />
        )}
      </div>
      <FilterForm domain={domain} filter={filter} key={queryKey} onApply={(f, keepFrom) => go(f, keepFrom || hasFrom)} />
      <ExecutionCount domain={domain} filter={filter} reads={reads} />
      <ExecutionTable domain={domain} filter={filter} reads={reads} key={`${domain}?${reads}`} />
    </div>
  );
}

const STATE_WORDS = { all: '', open: 'open ', closed: 'closed ' };

function ExecutionCount({ domain, filter, reads }: { domain: string; filter: ExecutionFilter; reads: string }) {
  const count = useAsync(() => v1Query<{ count: number }>(['domains', domain, 'runs', 'count'], filterParams(filter)), [domain, reads]);
  if (count.error !== undefined) return <ErrorBox error={count.error} />;
  const n = count.data?.count;
  return (
    <p class="count" data-testid="execution-count" aria-live="polite">
      {n === undefined
        ? 'Counting…'
        : `${n} ${STATE_WORDS[filter.state]}execution${n === 1 ? '' : 's'} match${n === 1 ? 'es' : ''}.`}
    </p>
  );
}

function ExecutionTable({ domain, filter, reads }: { domain: string; filter: ExecutionFilter; reads: string }) {
  // Tokens of the pages seen so far: tokens[i] fetched page i (undefined for the first). A new
  // filter mounts a new table (keyed by the query), so they start over.
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const token = tokens[tokens.length - 1];
  const page = useAsync(() => v1Query<RunList>(['domains', domain, 'runs'], listParams(filter, token)), [domain, reads, token]);
  const now = Date.now() / 1000;
  return (
    <Show state={page} what="executions">
      {({ runs, nextPageToken }) => (
        <>
          {runs.length === 0 ? (
            <p class="empty" data-testid="executions-empty">
              No {STATE_WORDS[filter.state]}executions match.
            </p>
          ) : (
            <div class="scroll">
              <table data-testid="executions-table" class="executions">
                <thead>
                  <tr>
                    <th scope="col">Workflow ID</th>
                    <th scope="col">Run ID</th>
                    <th scope="col">Type</th>
                    <th scope="col">Status</th>
                    <th scope="col">Started</th>
                    <th scope="col">Duration</th>
                    <th scope="col">Tags</th>
                  </tr>
                </thead>
                <tbody>
                  {runs.map((r) => (
                    <ExecutionRow key={r.runId} domain={domain} r={r} now={now} />
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

function ExecutionRow({ domain, r, now }: { domain: string; r: RunSummary; now: number }) {
  const to = links.execution(domain, r.workflowId, r.runId);
  const open = r.status === 'OPEN';
  return (
    <tr class="clickable" data-workflow-id={r.workflowId} data-run-id={r.runId} onClick={(ev) => rowClick(ev, to)}>
      <td>
        <a href={to}>{r.workflowId}</a>
      </td>
      <td>
        <code title={r.runId}>{short(r.runId)}</code>
      </td>
      <td>
        {r.workflowType.name}:{r.workflowType.version}
      </td>
      <td class="nowrap">
        <span class={`status ${r.status.toLowerCase()}`}>{r.status}</span>
        {r.failing && (
          <span class="badge bad" data-testid="failing-badge" title={`${formatTime(r.failing.at)}: ${r.failing.reason}`}>
            failing
          </span>
        )}
        {r.cancelRequested && <span class="badge warn">cancel requested</span>}
        {r.imported && (
          <span class="badge" data-testid="imported-badge" title="recorded elsewhere and imported (weft import): never given a task">
            imported
          </span>
        )}
        {!open && r.closedAt !== undefined && (
          <span class="muted" title={formatTime(r.closedAt)}>
            {' '}
            {formatAgo(r.closedAt, now)}
          </span>
        )}
      </td>
      <td class="nowrap">
        {formatTime(r.startedAt)} <span class="muted">{formatAgo(r.startedAt, now)}</span>
      </td>
      <td class="nowrap">
        {formatDuration((r.closedAt ?? now) - r.startedAt)}
        {open ? <span class="muted"> so far</span> : ''}
      </td>
      <td>
        {(r.tags ?? []).map((t) => (
          <span class="tag" key={t}>
            {t}
          </span>
        ))}
      </td>
    </tr>
  );
}
