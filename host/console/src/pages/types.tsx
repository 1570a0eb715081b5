// A domain's workflow and activity types, registered or deprecated; a row opens to the defaults
// its type was registered with.

import { useState } from 'preact/hooks';
import { swf, swfAll } from '../api/client';
import type { ActivityTypeInfo, RegistrationStatus, TaskList, TypeDetail, TypeRef, WorkflowTypeInfo } from '../api/swf-types';
import { ErrorBox, Loading, Show, useAsync } from '../components/async';
import { Segmented } from '../components/segmented';
import { formatTime, formatTimeout } from '../format';

type Which = 'workflow' | 'activity';

export function TypesTab({ domain }: { domain: string }) {
  const [status, setStatus] = useState<RegistrationStatus>('REGISTERED');
  return (
    <div>
      <div class="title-row">
        <h2 class="visually-hidden">Types</h2>
        <Segmented
          label="Registration status"
          value={status}
          options={[
            ['REGISTERED', 'Registered'],
            ['DEPRECATED', 'Deprecated'],
          ]}
          onChange={setStatus}
          testid="type-status"
        />
      </div>
      <TypeTable domain={domain} which="workflow" status={status} />
      <TypeTable domain={domain} which="activity" status={status} />
    </div>
  );
}

function TypeTable({ domain, which, status }: { domain: string; which: Which; status: RegistrationStatus }) {
  const op = which === 'workflow' ? 'ListWorkflowTypes' : 'ListActivityTypes';
  const types = useAsync(
    () => swfAll<WorkflowTypeInfo | ActivityTypeInfo, 'typeInfos'>(op, { domain, registrationStatus: status }, 'typeInfos'),
    [domain, op, status],
  );
  const [open, setOpen] = useState<string | null>(null);
  const title = which === 'workflow' ? 'Workflow types' : 'Activity types';
  return (
    <section aria-label={title}>
      <h3>{title}</h3>
      <Show state={types} what={title.toLowerCase()}>
        {(infos) =>
          infos.length === 0 ? (
            <p class="empty">None {status.toLowerCase()}.</p>
          ) : (
            <div class="scroll">
              <table data-testid={`${which}-types`}>
                <thead>
                  <tr>
                    <th scope="col">
                      <span class="visually-hidden">Defaults</span>
                    </th>
                    <th scope="col">Name</th>
                    <th scope="col">Version</th>
                    <th scope="col">Status</th>
                    <th scope="col">Description</th>
                    <th scope="col">Registered</th>
                    {status === 'DEPRECATED' && <th scope="col">Deprecated</th>}
                  </tr>
                </thead>
                <tbody>
                  {infos.map((info) => {
                    const type = 'workflowType' in info ? info.workflowType : info.activityType;
                    const key = `${type.name}\u0000${type.version}`;
                    const expanded = open === key;
                    return [
                      <tr key={key} data-type-name={type.name} data-type-version={type.version}>
                        <td>
                          <button
                            type="button"
                            class="disclose"
                            aria-expanded={expanded}
                            aria-label={`Defaults of ${type.name} ${type.version}`}
                            onClick={() => setOpen(expanded ? null : key)}
                          >
                            {expanded ? '▾' : '▸'}
                          </button>
                        </td>
                        <td>{type.name}</td>
                        <td>{type.version}</td>
                        <td>
                          <span class={`status ${info.status.toLowerCase()}`}>{info.status}</span>
                        </td>
                        <td>{info.description ?? ''}</td>
                        <td class="nowrap">{formatTime(info.creationDate)}</td>
                        {status === 'DEPRECATED' && <td class="nowrap">{formatTime(info.deprecationDate)}</td>}
                      </tr>,
                      expanded && (
                        <tr key={`${key}-defaults`} class="details">
                          <td colSpan={7}>
                            <TypeDefaults domain={domain} which={which} type={type} />
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
    </section>
  );
}

const DEFAULT_LABELS: Record<string, string> = {
  defaultTaskList: 'Task list',
  defaultTaskPriority: 'Task priority',
  defaultChildPolicy: 'Child policy',
  defaultLambdaRole: 'Lambda role',
  defaultExecutionStartToCloseTimeout: 'Execution timeout',
  defaultTaskStartToCloseTimeout: 'Task start-to-close timeout',
  defaultTaskHeartbeatTimeout: 'Heartbeat timeout',
  defaultTaskScheduleToStartTimeout: 'Schedule-to-start timeout',
  defaultTaskScheduleToCloseTimeout: 'Schedule-to-close timeout',
};

function TypeDefaults({ domain, which, type }: { domain: string; which: Which; type: TypeRef }) {
  const detail = useAsync(
    () =>
      which === 'workflow'
        ? swf<TypeDetail>('DescribeWorkflowType', { domain, workflowType: type })
        : swf<TypeDetail>('DescribeActivityType', { domain, activityType: type }),
    [domain, which, type.name, type.version],
  );
  if (detail.error !== undefined) return <ErrorBox error={detail.error} />;
  if (!detail.data) return <Loading what="defaults" />;
  const entries = Object.entries(detail.data.configuration);
  if (entries.length === 0) return <p class="muted">Registered with no defaults.</p>;
  return (
    <dl class="defaults" data-testid="type-defaults">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{DEFAULT_LABELS[k] ?? k}</dt>
          <dd>{typeof v === 'object' && v ? (v as TaskList).name : /Timeout$/.test(k) ? formatTimeout(v) : v}</dd>
        </div>
      ))}
    </dl>
  );
}
