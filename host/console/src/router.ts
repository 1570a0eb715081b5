// Hash routing (`#/domains/d/executions?state=closed`), so the server only ever serves
// index.html and its assets. Path segments are percent-encoded: workflow ids may hold `/`.

import { useEffect, useMemo, useState } from 'preact/hooks';

export interface Route {
  /** Decoded path segments: `#/domains/a%2Fb` is `['domains', 'a/b']`. */
  path: string[];
  query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const q = raw.indexOf('?');
  const pathPart = q < 0 ? raw : raw.slice(0, q);
  const path = pathPart
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  return { path, query: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)) };
}

/** The hash that names `segments` with `query` (entries with empty values are left out). */
export function href(segments: string[], query?: Record<string, string | undefined>): string {
  let out = '#/' + segments.map(encodeURIComponent).join('/');
  if (query) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, v);
    const s = params.toString();
    if (s) out += '?' + s;
  }
  return out;
}

export function navigate(to: string): void {
  if (location.hash !== to) location.hash = to;
}

/** The current route, following hash changes. */
export function useRoute(): Route {
  const [hash, setHash] = useState(() => location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    addEventListener('hashchange', onChange);
    // A change between the first render and this effect had nobody listening (a page that
    // navigates right after the console signs in did land on the domains list).
    onChange();
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return useMemo(() => parseHash(hash), [hash]);
}

/** Links to the console's pages. */
export const links = {
  domains: () => href(['domains']),
  modules: () => href(['modules']),
  domain: (d: string, tab?: string) => href(tab ? ['domains', d, tab] : ['domains', d]),
  execution: (d: string, workflowId: string, runId: string) =>
    href(['domains', d, 'executions', workflowId, runId]),
};

/** A click anywhere on a table row follows its link, unless it was on a control or text was being selected. */
export function rowClick(e: MouseEvent, to: string): void {
  onRowClick(e, () => navigate(to));
}

/** A click anywhere on a table row does `act`, unless it was on a control or text was being selected. */
export function onRowClick(e: MouseEvent, act: () => void): void {
  const target = e.target as HTMLElement;
  if (target.closest('a, button, input, select, textarea, summary, label')) return;
  if (getSelection()?.toString()) return;
  act();
}
