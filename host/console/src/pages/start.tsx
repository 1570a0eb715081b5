// Starting a run of one of the domain's registered workflow types. The type's registered
// defaults show as placeholders: a field left empty takes them.

import { useState } from 'preact/hooks';
import { swf, swfAll } from '../api/client';
import type { ChildPolicy, TaskList, TypeDetail, WorkflowTypeInfo } from '../api/swf-types';
import { CHILD_POLICIES } from '../api/swf-types';
import { ErrorBox, Show, useAsync } from '../components/async';
import { ConfirmDialog } from '../components/dialog';
import { links, navigate } from '../router';

interface Draft {
  type: string; // `name\u0000version`
  workflowId: string;
  taskList: string;
  input: string;
  tags: string;
  executionTimeout: string;
  taskTimeout: string;
  childPolicy: '' | ChildPolicy;
  taskPriority: string;
}

const EMPTY: Draft = {
  type: '',
  workflowId: '',
  taskList: '',
  input: '',
  tags: '',
  executionTimeout: '',
  taskTimeout: '',
  childPolicy: '',
  taskPriority: '',
};

const parseTags = (s: string) =>
  s
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');

/** The StartWorkflowExecution request of `d`; empty fields are left out so that defaults apply. */
function startInput(domain: string, d: Draft): Record<string, unknown> {
  const [name, version] = d.type.split('\u0000');
  const input: Record<string, unknown> = { domain, workflowId: d.workflowId.trim(), workflowType: { name, version } };
  if (d.taskList.trim()) input.taskList = { name: d.taskList.trim() };
  if (d.input) input.input = d.input;
  const tags = parseTags(d.tags);
  if (tags.length) input.tagList = tags;
  if (d.executionTimeout.trim()) input.executionStartToCloseTimeout = d.executionTimeout.trim();
  if (d.taskTimeout.trim()) input.taskStartToCloseTimeout = d.taskTimeout.trim();
  if (d.childPolicy) input.childPolicy = d.childPolicy;
  if (d.taskPriority.trim()) input.taskPriority = d.taskPriority.trim();
  return input;
}

export function StartTab({ domain }: { domain: string }) {
  const types = useAsync(
    () => swfAll<WorkflowTypeInfo, 'typeInfos'>('ListWorkflowTypes', { domain, registrationStatus: 'REGISTERED' }, 'typeInfos'),
    [domain],
  );
  return (
    <div>
      <h2>Start a workflow execution</h2>
      <Show state={types} what="workflow types">
        {(infos) =>
          infos.length === 0 ? (
            <p class="empty">This domain has no registered workflow type to start.</p>
          ) : (
            <StartForm domain={domain} infos={infos} />
          )
        }
      </Show>
    </div>
  );
}

function StartForm({ domain, infos }: { domain: string; infos: WorkflowTypeInfo[] }) {
  const first = infos[0]!.workflowType;
  const [d, setDraft] = useState<Draft>({ ...EMPTY, type: `${first.name}\u0000${first.version}` });
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState<string>();
  const set = (patch: Partial<Draft>) => setDraft((x) => ({ ...x, ...patch }));
  const [name, version] = d.type.split('\u0000') as [string, string];
  const defaults = useAsync(
    () => swf<TypeDetail>('DescribeWorkflowType', { domain, workflowType: { name, version } }).then((t) => t.configuration),
    [domain, d.type],
  );
  const def = (k: string) => {
    const v = defaults.data?.[k];
    return typeof v === 'object' && v ? (v as TaskList).name : (v ?? '');
  };
  const hint = (k: string, none: string) => (def(k) ? `default: ${def(k)}` : none);

  const submit = (e: Event) => {
    e.preventDefault();
    if (parseTags(d.tags).length > 5) return setProblem('At most 5 tags.');
    setProblem(undefined);
    setConfirming(true);
  };

  return (
    <form class="start-form" onSubmit={submit} data-testid="start-form">
      <label>
        Workflow type
        <select value={d.type} onChange={(e) => set({ type: e.currentTarget.value })} data-testid="start-type">
          {infos.map(({ workflowType: t }) => (
            <option key={`${t.name}\u0000${t.version}`} value={`${t.name}\u0000${t.version}`}>
              {t.name} : {t.version}
            </option>
          ))}
        </select>
      </label>
      <label>
        Workflow ID
        <input
          required
          maxLength={256}
          spellcheck={false}
          value={d.workflowId}
          onInput={(e) => set({ workflowId: e.currentTarget.value })}
          data-testid="start-workflow-id"
        />
      </label>
      <label>
        Task list
        <input
          spellcheck={false}
          placeholder={hint('defaultTaskList', 'required: the type has no default')}
          value={d.taskList}
          onInput={(e) => set({ taskList: e.currentTarget.value })}
          data-testid="start-task-list"
        />
      </label>
      <label class="wide">
        <span>
          Input <span class="muted">(optional)</span>
        </span>
        <textarea rows={4} maxLength={32768} value={d.input} onInput={(e) => set({ input: e.currentTarget.value })} data-testid="start-input" />
      </label>
      <label>
        <span>
          Tags <span class="muted">(comma-separated, at most 5)</span>
        </span>
        <input value={d.tags} onInput={(e) => set({ tags: e.currentTarget.value })} data-testid="start-tags" />
      </label>
      <label>
        Execution timeout, seconds
        <input
          inputMode="numeric"
          placeholder={hint('defaultExecutionStartToCloseTimeout', 'required: no default')}
          value={d.executionTimeout}
          onInput={(e) => set({ executionTimeout: e.currentTarget.value })}
          data-testid="start-execution-timeout"
        />
      </label>
      <label>
        Decision task timeout, seconds or NONE
        <input
          placeholder={hint('defaultTaskStartToCloseTimeout', 'required: no default')}
          value={d.taskTimeout}
          onInput={(e) => set({ taskTimeout: e.currentTarget.value })}
          data-testid="start-task-timeout"
        />
      </label>
      <label>
        Child policy
        <select value={d.childPolicy} onChange={(e) => set({ childPolicy: e.currentTarget.value as Draft['childPolicy'] })} data-testid="start-child-policy">
          <option value="">{def('defaultChildPolicy') ? `The type’s default (${def('defaultChildPolicy')})` : 'Choose one (no default)'}</option>
          {CHILD_POLICIES.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>
          Task priority <span class="muted">(optional)</span>
        </span>
        <input
          inputMode="numeric"
          placeholder={hint('defaultTaskPriority', '0')}
          value={d.taskPriority}
          onInput={(e) => set({ taskPriority: e.currentTarget.value })}
          data-testid="start-task-priority"
        />
      </label>
      {defaults.error !== undefined && <ErrorBox error={defaults.error} />}
      <div class="actions wide">
        <button type="submit" class="primary" data-testid="start-submit">
          Start workflow
        </button>
        <a href={links.domain(domain)}>Back to executions</a>
        {problem && (
          <span class="form-problem" role="alert">
            {problem}
          </span>
        )}
      </div>
      {confirming && (
        <ConfirmDialog
          title="Start this execution?"
          confirmLabel="Start"
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            const { runId } = await swf<{ runId: string }>('StartWorkflowExecution', startInput(domain, d));
            navigate(links.execution(domain, d.workflowId.trim(), runId));
          }}
        >
          <dl class="defaults">
            <div>
              <dt>Type</dt>
              <dd>
                {name}:{version}
              </dd>
            </div>
            <div>
              <dt>Workflow ID</dt>
              <dd>{d.workflowId}</dd>
            </div>
            <div>
              <dt>Task list</dt>
              <dd>{d.taskList.trim() || `${def('defaultTaskList') || '—'} (default)`}</dd>
            </div>
            {parseTags(d.tags).length > 0 && (
              <div>
                <dt>Tags</dt>
                <dd>{parseTags(d.tags).join(', ')}</dd>
              </div>
            )}
          </dl>
        </ConfirmDialog>
      )}
    </form>
  );
}
