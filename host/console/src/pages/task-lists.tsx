// A domain's task lists as Weft sees them (pending tasks, waiting pollers, in-process bindings),
// and SWF's own CountPending*Tasks for any list by name.

import { useState } from 'preact/hooks';
import { swf, v1Get } from '../api/client';
import type { Count } from '../api/swf-types';
import type { TaskListState } from '../api/weft-types';
import { ErrorBox, Show, useAsync } from '../components/async';

export function TaskListsTab({ domain }: { domain: string }) {
  const lists = useAsync(() => v1Get<{ taskLists: TaskListState[] }>('domains', domain, 'task-lists'), [domain]);
  return (
    <div>
      <h2 class="visually-hidden">Task lists</h2>
      <div class="tools">
        <p class="muted">Every task list with pending tasks, waiting pollers or an in-process binding.</p>
        <button type="button" onClick={lists.reload} disabled={lists.loading}>
          Refresh
        </button>
      </div>
      <Show state={lists} what="task lists">
        {({ taskLists }) =>
          taskLists.length === 0 ? (
            <p class="empty">No task list has pending tasks, pollers or a binding.</p>
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
                  </tr>
                </thead>
                <tbody>
                  {taskLists.map((t) => (
                    <tr key={`${t.kind}/${t.name}`} data-kind={t.kind} data-name={t.name}>
                      <td>{t.kind}</td>
                      <td>{t.name}</td>
                      <td class="num">{t.pending}</td>
                      <td class="num">{t.pollers}</td>
                      <td>{t.bound ? 'yes' : 'no'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
      <CountPending domain={domain} />
    </div>
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
