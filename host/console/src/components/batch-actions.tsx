// One action (terminate, request cancel, signal) applied to every open run the executions
// list's filter picks, through Weft's batch call; the dialog says how many runs that is before
// it is confirmed, and the outcome stays beside the button.

import { useState } from 'preact/hooks';
import { v1Query, v1Send } from '../api/client';
import type { BatchOutcome } from '../api/weft-types';
import { type ExecutionFilter, filterParams, present } from '../pages/execution-filter';
import { useAsync } from './async';
import { ConfirmDialog } from './dialog';

type Action = 'terminate' | 'requestCancel' | 'signal';

const DONE_WORDS: Record<Action, string> = {
  terminate: 'Terminated',
  requestCancel: 'Requested cancellation of',
  signal: 'Signaled',
};

export function BatchActions({ domain, filter, onDone }: { domain: string; filter: ExecutionFilter; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const [said, setSaid] = useState<string | undefined>();
  return (
    <div class="row push">
      {said && (
        <span role="status" data-testid="batch-outcome">
          {said}
        </span>
      )}
      <button type="button" onClick={() => setOpen(true)} data-testid="batch-open">
        Act on matching runs…
      </button>
      {open && (
        <BatchDialog
          domain={domain}
          filter={filter}
          onClose={() => setOpen(false)}
          onDone={(action, outcome) => {
            const failed = outcome.failures?.length ?? 0;
            setSaid(
              `${DONE_WORDS[action]} ${outcome.done} of ${outcome.matched} run${outcome.matched === 1 ? '' : 's'}` +
                (failed ? `; ${failed} could not be: ${outcome.failures![0]!.message}` : '.'),
            );
            onDone();
          }}
        />
      )}
    </div>
  );
}

function BatchDialog({
  domain,
  filter,
  onClose,
  onDone,
}: {
  domain: string;
  filter: ExecutionFilter;
  onClose: () => void;
  onDone: (action: Action, outcome: BatchOutcome) => void;
}) {
  const picks = present({ ...filterParams(filter), status: 'open' });
  const count = useAsync(() => v1Query<{ count: number }>(['domains', domain, 'runs', 'count'], picks), [domain, JSON.stringify(picks)]);
  const [action, setAction] = useState<Action>('terminate');
  const [reason, setReason] = useState('');
  const [signalName, setSignalName] = useState('');
  const [input, setInput] = useState('');
  const n = count.data?.count;
  const runs = n === undefined ? 'the matching runs' : `${n} open run${n === 1 ? '' : 's'}`;
  const members =
    action === 'terminate'
      ? { reason: reason || undefined }
      : action === 'signal'
        ? { signalName, input: input || undefined }
        : {};
  return (
    <ConfirmDialog
      title="Act on matching runs"
      confirmLabel={n === undefined ? 'Counting…' : `${action === 'terminate' ? 'Terminate' : action === 'signal' ? 'Signal' : 'Request cancel of'} ${runs}`}
      danger={action === 'terminate'}
      onClose={onClose}
      onConfirm={async () => {
        const outcome = await v1Send<BatchOutcome>('POST', ['domains', domain, 'runs', 'batch'], { filter: picks, action, ...members });
        onDone(action, outcome);
      }}
    >
      <p data-testid="batch-count">
        {count.error !== undefined ? 'The matching runs could not be counted.' : `The filter picks ${runs}.`} Closed runs are left as
        they are.
      </p>
      <label>
        Action
        <select data-testid="batch-action" value={action} onChange={(e) => setAction(e.currentTarget.value as Action)}>
          <option value="terminate">Terminate</option>
          <option value="requestCancel">Request cancel</option>
          <option value="signal">Signal</option>
        </select>
      </label>
      {action === 'terminate' && (
        <label>
          <span>
            Reason <span class="muted">(optional)</span>
          </span>
          <input maxLength={256} data-testid="batch-reason" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        </label>
      )}
      {action === 'signal' && (
        <>
          <label>
            Signal name
            <input
              required
              maxLength={256}
              spellcheck={false}
              data-testid="batch-signal-name"
              value={signalName}
              onInput={(e) => setSignalName(e.currentTarget.value)}
            />
          </label>
          <label>
            <span>
              Input <span class="muted">(optional)</span>
            </span>
            <textarea rows={3} maxLength={32768} data-testid="batch-signal-input" value={input} onInput={(e) => setInput(e.currentTarget.value)} />
          </label>
        </>
      )}
    </ConfirmDialog>
  );
}
