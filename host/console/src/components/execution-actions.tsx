// What can be done to an open run: signal it, ask it to cancel, terminate it. Each behind a
// confirmation dialog; `onDone` reloads the page so the new events show.

import { useState } from 'preact/hooks';
import { swf } from '../api/client';
import { CHILD_POLICIES, type WorkflowExecution } from '../api/swf-types';
import { ConfirmDialog } from './dialog';

type Action = 'signal' | 'cancel' | 'terminate';

export function ExecutionActions({ domain, run, onDone }: { domain: string; run: WorkflowExecution; onDone: () => void }) {
  const [action, setAction] = useState<Action | null>(null);
  const close = () => setAction(null);
  const target = { domain, workflowId: run.workflowId, runId: run.runId };
  return (
    <div class="row" role="group" aria-label="Actions">
      <button type="button" onClick={() => setAction('signal')} data-testid="action-signal">
        Signal
      </button>
      <button type="button" onClick={() => setAction('cancel')} data-testid="action-request-cancel">
        Request cancel
      </button>
      <button type="button" class="danger" onClick={() => setAction('terminate')} data-testid="action-terminate">
        Terminate
      </button>
      {action === 'signal' && <SignalDialog target={target} onClose={close} onDone={onDone} />}
      {action === 'cancel' && (
        <ConfirmDialog
          title="Request cancellation"
          confirmLabel="Request cancel"
          onClose={close}
          onConfirm={async () => {
            await swf('RequestCancelWorkflowExecution', target);
            onDone();
          }}
        >
          <p>
            This records <code>WorkflowExecutionCancelRequested</code> in <strong>{run.workflowId}</strong>; its decider decides
            what to do about it.
          </p>
        </ConfirmDialog>
      )}
      {action === 'terminate' && <TerminateDialog target={target} onClose={close} onDone={onDone} />}
    </div>
  );
}

interface DialogProps {
  target: { domain: string; workflowId: string; runId: string };
  onClose: () => void;
  onDone: () => void;
}

function SignalDialog({ target, onClose, onDone }: DialogProps) {
  const [signalName, setName] = useState('');
  const [input, setInput] = useState('');
  return (
    <ConfirmDialog
      title={`Signal ${target.workflowId}`}
      confirmLabel="Send signal"
      onClose={onClose}
      onConfirm={async () => {
        await swf('SignalWorkflowExecution', { ...target, signalName, ...(input ? { input } : {}) });
        onDone();
      }}
    >
      <label>
        Signal name
        <input
          required
          autofocus
          maxLength={256}
          spellcheck={false}
          data-testid="signal-name"
          value={signalName}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <label>
        <span>
          Input <span class="muted">(optional)</span>
        </span>
        <textarea rows={4} maxLength={32768} data-testid="signal-input" value={input} onInput={(e) => setInput(e.currentTarget.value)} />
      </label>
    </ConfirmDialog>
  );
}

function TerminateDialog({ target, onClose, onDone }: DialogProps) {
  const [reason, setReason] = useState('');
  const [details, setDetails] = useState('');
  const [childPolicy, setPolicy] = useState('');
  return (
    <ConfirmDialog
      title={`Terminate ${target.workflowId}`}
      confirmLabel="Terminate"
      danger
      onClose={onClose}
      onConfirm={async () => {
        await swf('TerminateWorkflowExecution', {
          ...target,
          ...(reason ? { reason } : {}),
          ...(details ? { details } : {}),
          ...(childPolicy ? { childPolicy } : {}),
        });
        onDone();
      }}
    >
      <p>The run closes at once, without its decider’s say. This cannot be undone.</p>
      <label>
        <span>
          Reason <span class="muted">(optional)</span>
        </span>
        <input autofocus maxLength={256} data-testid="terminate-reason" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      </label>
      <label>
        <span>
          Details <span class="muted">(optional)</span>
        </span>
        <textarea rows={3} maxLength={32768} data-testid="terminate-details" value={details} onInput={(e) => setDetails(e.currentTarget.value)} />
      </label>
      <label>
        Child policy
        <select data-testid="terminate-child-policy" value={childPolicy} onChange={(e) => setPolicy(e.currentTarget.value)}>
          <option value="">The run’s own</option>
          {CHILD_POLICIES.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </label>
    </ConfirmDialog>
  );
}
