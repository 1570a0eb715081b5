// The executions list's filter form: time range, one filter besides it, page size and order.
// It edits a draft and hands the whole filter over on Apply, checked.

import { useState } from 'preact/hooks';
import { swfAll } from '../api/client';
import type { WorkflowTypeInfo } from '../api/swf-types';
import { CLOSE_STATUSES } from '../api/swf-types';
import { useAsync } from '../components/async';
import { fromLocalInput, timeZone, toLocalInput } from '../format';
import { type ExecutionFilter, type FilterBy, PAGE_SIZES, filterProblem } from './execution-filter';

const BY_LABELS: [FilterBy, string][] = [
  ['none', 'Nothing else'],
  ['workflowId', 'Workflow ID'],
  ['type', 'Workflow type'],
  ['tag', 'Tag'],
  ['closeStatus', 'Close status'],
];

export function FilterForm({
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
    if (!from) return setProblem('Enter the start of the time range as YYYY-MM-DD HH:MM.');
    const next: ExecutionFilter = { ...draft, from };
    const to = fromLocalInput(toInput);
    if (toInput.trim() && !to) return setProblem('Enter the end of the time range as YYYY-MM-DD HH:MM, or nothing.');
    if (to) next.to = to;
    else delete next.to;
    const p = filterProblem(next);
    setProblem(p);
    if (!p) onApply(next, fromInput !== initialFrom);
  };

  return (
    <form class="filters" onSubmit={submit} data-testid="filter-form" aria-label="Filter executions">
      <fieldset>
        <legend>
          {closed ? 'Time range' : 'Started between'} <span class="muted">(local time, {timeZone()})</span>
        </legend>
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
            data-testid="filter-oldest"
            required
            placeholder="YYYY-MM-DD HH:MM"
            size={16}
            spellcheck={false}
            value={fromInput}
            onInput={(e) => setFromInput(e.currentTarget.value)}
          />
        </label>
        <label>
          <span>
            To <span class="muted">(optional)</span>
          </span>
          <input
            data-testid="filter-latest"
            placeholder="YYYY-MM-DD HH:MM"
            size={16}
            spellcheck={false}
            value={toInput}
            onInput={(e) => setToInput(e.currentTarget.value)}
          />
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
