// What can be done to a run: signal it, ask it to cancel, pause or resume it, terminate it (while
// it is open), reset it (open or closed). Each behind a confirmation dialog; `onDone` reloads the
// page so the new events (or the pause) show; a reset goes to the new run's page.

import { useState } from 'preact/hooks';
import { swf, v1Send } from '../api/client';
import { CHILD_POLICIES, type WorkflowExecution } from '../api/swf-types';
import type { Pause, PauseReport, ResetReport } from '../api/weft-types';
import { links, navigate } from '../router';
import { ConfirmDialog } from './dialog';

type Action = 'signal' | 'cancel' | 'pause' | 'resume' | 'terminate' | 'reset';

export function ExecutionActions({
  domain,
  run,
  open,
  paused,
  onDone,
}: {
  domain: string;
  run: WorkflowExecution;
  open: boolean;
  /** Its pause, while the open run is paused. */
  paused?: Pause;
  onDone: () => void;
}) {
  const [action, setAction] = useState<Action | null>(null);
  const close = () => setAction(null);
  const target = { domain, workflowId: run.workflowId, runId: run.runId };
  const reset = (
    <button type="button" onClick={() => setAction('reset')} data-testid="action-reset">
      Reset…
    </button>
  );
  if (!open) {
    return (
      <div class="row" role="group" aria-label="Actions">
        {reset}
        {action === 'reset' && <ResetDialog target={target} onClose={close} onDone={onDone} />}
      </div>
    );
  }
  return (
    <div class="row" role="group" aria-label="Actions">
      {reset}
      <button type="button" onClick={() => setAction('signal')} data-testid="action-signal">
        Signal
      </button>
      <button type="button" onClick={() => setAction('cancel')} data-testid="action-request-cancel">
        Request cancel
      </button>
      {paused ? (
        <button type="button" onClick={() => setAction('resume')} data-testid="action-resume">
          Resume
        </button>
      ) : (
        <button type="button" onClick={() => setAction('pause')} data-testid="action-pause">
          Pause
        </button>
      )}
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
      {action === 'pause' && <PauseDialog target={target} onClose={close} onDone={onDone} />}
      {action === 'resume' && (
        <ConfirmDialog
          title={`Resume ${run.workflowId}`}
          confirmLabel="Resume"
          onClose={close}
          onConfirm={async () => {
            await v1Send<PauseReport>('POST', ['domains', domain, 'workflows', run.workflowId, 'resume'], { runId: run.runId });
            onDone();
          }}
        >
          <p>
            The tasks held for <strong>{run.workflowId}</strong> are queued again in their places, and handed to its pollers in the
            order they would have been.
          </p>
        </ConfirmDialog>
      )}
      {action === 'terminate' && <TerminateDialog target={target} onClose={close} onDone={onDone} />}
      {action === 'reset' && <ResetDialog target={target} onClose={close} onDone={onDone} />}
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

function PauseDialog({ target, onClose, onDone }: DialogProps) {
  const [reason, setReason] = useState('');
  return (
    <ConfirmDialog
      title={`Pause ${target.workflowId}`}
      confirmLabel="Pause"
      onClose={onClose}
      onConfirm={async () => {
        await v1Send<PauseReport>('POST', ['domains', target.domain, 'workflows', target.workflowId, 'pause'], {
          runId: target.runId,
          ...(reason ? { reason } : {}),
        });
        onDone();
      }}
    >
      <p>
        None of its queued tasks is handed to a poller until it is resumed. Tasks already started run on, timers and timeouts keep
        firing, and signals, cancel requests and terminations are taken as usual.
      </p>
      <label>
        <span>
          Reason <span class="muted">(optional; shown with the run)</span>
        </span>
        <input autofocus maxLength={256} data-testid="pause-reason" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
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

/** Where a reset starts the run again: a decision task named by where it is, or by an event id. */
type Point = 'lastGood' | 'first' | 'event';

function ResetDialog({ target, onClose }: DialogProps) {
  const [point, setPoint] = useState<Point>('lastGood');
  const [eventId, setEventId] = useState('');
  const [reason, setReason] = useState('');
  const [force, setForce] = useState(false);
  const [signals, setSignals] = useState(true);
  return (
    <ConfirmDialog
      title={`Reset ${target.workflowId}`}
      confirmLabel="Reset"
      danger
      onClose={onClose}
      onConfirm={async () => {
        const to = point === 'event' ? Number(eventId) : point;
        const report = await v1Send<ResetReport>('POST', ['domains', target.domain, 'workflows', target.workflowId, 'reset'], {
          runId: target.runId,
          to,
          ...(reason ? { reason } : {}),
          ...(force ? { force } : {}),
          ...(signals ? {} : { reapplySignals: false }),
        });
        navigate(links.execution(target.domain, report.workflowId, report.runId));
      }}
    >
      <p>
        A new run of <strong>{target.workflowId}</strong> begins with this run’s events up to a decision task, which its
        decider (the one bound now) decides again; this run, if open, is terminated.
      </p>
      <label>
        Decide again
        <select data-testid="reset-point" value={point} onChange={(e) => setPoint(e.currentTarget.value as Point)}>
          <option value="lastGood">the last decision task before the first failure</option>
          <option value="first">the first decision task</option>
          <option value="event">the decision task of event…</option>
        </select>
      </label>
      {point === 'event' && (
        <label>
          Event id
          <input
            required
            type="number"
            min={1}
            data-testid="reset-event"
            value={eventId}
            onInput={(e) => setEventId(e.currentTarget.value)}
          />
        </label>
      )}
      <label>
        <span>
          Reason <span class="muted">(optional)</span>
        </span>
        <input maxLength={256} data-testid="reset-reason" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      </label>
      <label class="check">
        <input type="checkbox" checked={signals} onChange={(e) => setSignals(e.currentTarget.checked)} data-testid="reset-signals" />
        Record again the signals received after that task
      </label>
      <label class="check">
        <input type="checkbox" checked={force} onChange={(e) => setForce(e.currentTarget.checked)} data-testid="reset-force" />
        Even if the decider decides the carried events otherwise than recorded
      </label>
    </ConfirmDialog>
  );
}
