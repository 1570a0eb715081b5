// A modal confirmation (`<dialog>`): focus moves into it, Esc or Cancel dismisses it, and the
// confirm button runs the action, showing its fault in place if it fails.

import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorBox } from './async';

export function ConfirmDialog({
  title,
  confirmLabel,
  danger,
  onConfirm,
  onClose,
  children,
}: {
  title: string;
  confirmLabel: string;
  danger?: boolean;
  /** The action; it closes the dialog when it resolves and shows its error when it rejects. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
  children?: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    const d = ref.current!;
    d.showModal();
    return () => d.open && d.close();
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
      onClose();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={ref}
      aria-labelledby="dialog-title"
      data-testid="dialog"
      onCancel={(e) => {
        // Esc: dismiss, unless the action is under way (its answer must not be lost).
        e.preventDefault();
        if (!busy) onClose();
      }}
    >
      <form onSubmit={submit} class="stack">
        <h2 id="dialog-title">{title}</h2>
        {children}
        {error !== undefined && <ErrorBox error={error} />}
        <div class="row end">
          <button type="button" onClick={onClose} disabled={busy} data-testid="dialog-cancel">
            Cancel
          </button>
          <button type="submit" class={danger ? 'danger' : 'primary'} disabled={busy} data-testid="dialog-confirm">
            {busy ? 'Working…' : confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
