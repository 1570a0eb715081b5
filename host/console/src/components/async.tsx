// Loading data for a page: one hook and the two states every page shows the same way.

import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/client';

export interface Async<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Loads again, keeping the current data on screen meanwhile. */
  reload: () => void;
}

/** Runs `load` now and whenever `deps` change; answers that arrive after a newer load are dropped. */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  const run = useCallback(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === generation.current && setState({ data, loading: false }),
      (error: unknown) => mine === generation.current && setState((s) => ({ ...s, error, loading: false })),
    );
  }, deps);
  useEffect(() => {
    // A new subject: forget the old one's data so it is not shown under the new one's name.
    setState({ loading: true });
    run();
  }, [run]);
  return { data: state.data, error: state.error, loading: state.loading, reload: run };
}

export function Loading({ what }: { what?: string }) {
  return (
    <p class="loading" role="status">
      Loading{what ? ` ${what}` : ''}…
    </p>
  );
}

/** A fault as the server named it, with its message; shown in place, never as an alert. */
export function ErrorBox({ error, children }: { error: unknown; children?: ComponentChildren }) {
  const [code, message] =
    error instanceof ApiError
      ? [error.code, error.message]
      : ['Error', error instanceof Error ? error.message : String(error)];
  return (
    <div class="error" role="alert" data-testid="error">
      <strong>{code}</strong>
      {message ? `: ${message}` : ''}
      {children}
    </div>
  );
}

/** What an `Async` holds: its error, a loading line before the first answer, or `children(data)`. */
export function Show<T>({
  state,
  what,
  children,
}: {
  state: Async<T>;
  what?: string;
  children: (data: T) => ComponentChildren;
}) {
  if (state.error !== undefined && state.data === undefined) return <ErrorBox error={state.error} />;
  if (state.data === undefined) return <Loading what={what} />;
  return (
    <>
      {state.error !== undefined && <ErrorBox error={state.error} />}
      {children(state.data)}
    </>
  );
}
