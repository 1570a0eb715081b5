// A domain: its description, and its sections as tabs (each one its own address).

import { swf } from '../api/client';
import type { DomainDetail } from '../api/swf-types';
import { ErrorBox, useAsync } from '../components/async';
import { days } from '../format';
import { links } from '../router';
import { BatchesTab } from './batches';
import { BindingsTab } from './bindings';
import { ExecutionsTab } from './executions';
import { SchedulesTab } from './schedules';
import { StartTab } from './start';
import { TaskListsTab } from './task-lists';
import { TypesTab } from './types';

const TABS: [string, string][] = [
  ['executions', 'Executions'],
  ['types', 'Types'],
  ['task-lists', 'Task lists'],
  ['schedules', 'Schedules'],
  ['batches', 'Batch jobs'],
  ['bindings', 'Bindings & modules'],
];

export function DomainPage({ domain, tab }: { domain: string; tab: string }) {
  const detail = useAsync(() => swf<DomainDetail>('DescribeDomain', { name: domain }), [domain]);
  const info = detail.data?.domainInfo;
  return (
    <section>
      <p class="crumbs">
        <a href={links.domains()}>Domains</a> /
      </p>
      <div class="title-row">
        <h1 data-testid="domain-name">{domain}</h1>
        {info && <span class={`status ${info.status.toLowerCase()}`}>{info.status}</span>}
        {tab !== 'start' && (
          <a class="button primary push" href={links.domain(domain, 'start')} data-testid="start-workflow">
            Start workflow
          </a>
        )}
      </div>
      {detail.error !== undefined && <ErrorBox error={detail.error} />}
      {detail.data && (
        <p class="muted">
          {info?.description ? `${info.description} · ` : ''}
          Closed executions kept {days(detail.data.configuration.workflowExecutionRetentionPeriodInDays)}
        </p>
      )}
      <nav class="tabs" aria-label="Domain sections">
        {TABS.map(([id, label]) => (
          <a key={id} href={links.domain(domain, id)} aria-current={tab === id ? 'page' : undefined} data-testid={`tab-${id}`}>
            {label}
          </a>
        ))}
      </nav>
      {tab === 'executions' && <ExecutionsTab domain={domain} />}
      {tab === 'types' && <TypesTab domain={domain} />}
      {tab === 'task-lists' && <TaskListsTab domain={domain} />}
      {tab === 'schedules' && <SchedulesTab domain={domain} />}
      {tab === 'batches' && <BatchesTab domain={domain} />}
      {tab === 'bindings' && <BindingsTab domain={domain} />}
      {tab === 'start' && <StartTab domain={domain} />}
      {!['start', ...TABS.map(([id]) => id)].includes(tab) && <p>No such section.</p>}
    </section>
  );
}
