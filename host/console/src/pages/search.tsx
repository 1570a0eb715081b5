// Finding a workflow id across every domain the key may see: each domain's runs of that id,
// open and closed, newest first.

import { useState } from 'preact/hooks';
import { swfAll, v1Query } from '../api/client';
import type { DomainInfo } from '../api/swf-types';
import type { RunList, RunSummary } from '../api/weft-types';
import { Show, useAsync } from '../components/async';
import { formatAgo, formatTime, short } from '../format';
import { href, links, navigate, rowClick, useRoute } from '../router';

/** The search box: a workflow id, looked for on the search page. */
export function SearchBox({ initial = '' }: { initial?: string }) {
  const [id, setId] = useState(initial);
  return (
    <form
      role="search"
      class="row search"
      onSubmit={(e) => {
        e.preventDefault();
        if (id.trim()) navigate(href(['search'], { workflowId: id.trim() }));
      }}
    >
      <input
        type="search"
        aria-label="Workflow ID to find in every domain"
        placeholder="Find a workflow ID"
        spellcheck={false}
        data-testid="search-input"
        value={id}
        onInput={(e) => setId(e.currentTarget.value)}
      />
      <button type="submit" data-testid="search-submit">
        Find
      </button>
    </form>
  );
}

interface Found {
  domain: string;
  run: RunSummary;
}

export function SearchPage() {
  const { query } = useRoute();
  const workflowId = query.get('workflowId') ?? '';
  const found = useAsync(async (): Promise<Found[]> => {
    if (!workflowId) return [];
    const domains = (
      await Promise.all(
        (['REGISTERED', 'DEPRECATED'] as const).map((registrationStatus) =>
          swfAll<DomainInfo, 'domainInfos'>('ListDomains', { registrationStatus }, 'domainInfos'),
        ),
      )
    ).flat();
    const pages = await Promise.all(
      domains.map(({ name }) =>
        v1Query<RunList>(['domains', name, 'runs'], { workflowId, limit: 100 }).then((page) =>
          page.runs.map((run) => ({ domain: name, run })),
        ),
      ),
    );
    return pages.flat().sort((a, b) => b.run.startedAt - a.run.startedAt);
  }, [workflowId]);
  const now = Date.now() / 1000;

  return (
    <section>
      <div class="title-row">
        <h1>Find a workflow</h1>
        <SearchBox initial={workflowId} key={workflowId} />
      </div>
      <Show state={found} what="runs">
        {(rows) =>
          rows.length === 0 ? (
            <p class="empty" data-testid="search-empty">
              {workflowId ? `No domain you can see has a run of ${workflowId}.` : 'Enter a workflow ID to find.'}
            </p>
          ) : (
            <div class="scroll">
              <table data-testid="search-results">
                <thead>
                  <tr>
                    <th scope="col">Domain</th>
                    <th scope="col">Workflow ID</th>
                    <th scope="col">Run ID</th>
                    <th scope="col">Type</th>
                    <th scope="col">Status</th>
                    <th scope="col">Started</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map(({ domain, run }) => {
                    const to = links.execution(domain, run.workflowId, run.runId);
                    return (
                      <tr key={`${domain}/${run.runId}`} class="clickable" data-domain={domain} onClick={(e) => rowClick(e, to)}>
                        <td>{domain}</td>
                        <td>
                          <a href={to}>{run.workflowId}</a>
                        </td>
                        <td>
                          <code title={run.runId}>{short(run.runId)}</code>
                        </td>
                        <td>
                          {run.workflowType.name}:{run.workflowType.version}
                        </td>
                        <td class="nowrap">
                          <span class={`status ${run.status.toLowerCase()}`}>{run.status}</span>
                          {run.failing && (
                            <span class="badge bad" title={run.failing.reason}>
                              failing
                            </span>
                          )}
                        </td>
                        <td class="nowrap">
                          {formatTime(run.startedAt)} <span class="muted">{formatAgo(run.startedAt, now)}</span>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
    </section>
  );
}
