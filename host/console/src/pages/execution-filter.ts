// The executions list's filter, its round trip through the URL's query so that a link
// reproduces the view, and the query of Weft's run listing (`GET /v1/domains/{d}/runs`) it names.
//
// The listing's rules, SWF's: a start-time range, or (closed runs only) a close-time range;
// besides it, at most one of workflow id, type, tag and (closed only) close status.

import type { CloseStatus } from '../api/swf-types';
import { CLOSE_STATUSES } from '../api/swf-types';

export type FilterBy = 'none' | 'workflowId' | 'type' | 'tag' | 'closeStatus';

export type RunStateFilter = 'all' | 'open' | 'closed';

export interface ExecutionFilter {
  /** Which runs: open and closed together (the default), or one of them. */
  state: RunStateFilter;
  /** Which time `from`/`to` bound; `close` only for closed executions. */
  time: 'start' | 'close';
  from: Date;
  /** No upper bound when absent. */
  to?: Date;
  by: FilterBy;
  workflowId: string;
  typeName: string;
  typeVersion: string;
  tag: string;
  closeStatus: CloseStatus;
  pageSize: number;
  reverse: boolean;
}

export const PAGE_SIZES = [10, 25, 50, 100, 250, 1000];
const DEFAULT_PAGE_SIZE = 25;
/** The default window: the last day. */
const DEFAULT_SPAN_MS = 24 * 3600 * 1000;

function parseDate(s: string | null): Date | undefined {
  if (!s) return undefined;
  const d = /^\d+(\.\d+)?$/.test(s) ? new Date(Number(s) * 1000) : new Date(s);
  return isNaN(d.getTime()) ? undefined : d;
}

/** ISO 8601 in UTC to the second: readable in a URL and the same wherever it is opened. */
const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export function filterFromQuery(q: URLSearchParams, now = new Date()): ExecutionFilter {
  const asked = q.get('state');
  const state: RunStateFilter = asked === 'closed' || asked === 'open' ? asked : 'all';
  const by = q.get('by');
  const closeStatus = q.get('closeStatus') as CloseStatus | null;
  const size = Number(q.get('size'));
  const from = parseDate(q.get('from')) ?? new Date(Math.floor((now.getTime() - DEFAULT_SPAN_MS) / 60000) * 60000);
  const filter: ExecutionFilter = {
    state,
    time: state === 'closed' && q.get('time') === 'close' ? 'close' : 'start',
    from,
    by: by === 'workflowId' || by === 'type' || by === 'tag' || (by === 'closeStatus' && state === 'closed') ? by : 'none',
    workflowId: q.get('workflowId') ?? '',
    typeName: q.get('type') ?? '',
    typeVersion: q.get('version') ?? '',
    tag: q.get('tag') ?? '',
    closeStatus: closeStatus && CLOSE_STATUSES.includes(closeStatus) ? closeStatus : 'COMPLETED',
    pageSize: PAGE_SIZES.includes(size) ? size : DEFAULT_PAGE_SIZE,
    reverse: q.get('reverse') === '1',
  };
  const to = parseDate(q.get('to'));
  if (to) filter.to = to;
  return filter;
}

/**
 * The query naming `f`. `from` is written only when `keepFrom` (a time the user chose), so
 * that a link to the default view keeps meaning "the last day".
 */
export function filterToQuery(f: ExecutionFilter, keepFrom: boolean): Record<string, string | undefined> {
  return {
    state: f.state === 'all' ? undefined : f.state,
    time: f.state === 'closed' && f.time === 'close' ? 'close' : undefined,
    from: keepFrom ? isoSeconds(f.from) : undefined,
    to: f.to ? isoSeconds(f.to) : undefined,
    by: f.by === 'none' ? undefined : f.by,
    workflowId: f.by === 'workflowId' ? f.workflowId : undefined,
    type: f.by === 'type' ? f.typeName : undefined,
    version: f.by === 'type' ? f.typeVersion : undefined,
    tag: f.by === 'tag' ? f.tag : undefined,
    closeStatus: f.by === 'closeStatus' ? f.closeStatus : undefined,
    size: f.pageSize === DEFAULT_PAGE_SIZE ? undefined : String(f.pageSize),
    reverse: f.reverse ? '1' : undefined,
  };
}

/** What is wrong with `f`, if anything, in words for the form. */
export function filterProblem(f: ExecutionFilter): string | undefined {
  if (f.to && f.to < f.from) return 'The end of the time range is before its start.';
  if (f.by === 'workflowId' && !f.workflowId.trim()) return 'Enter the workflow ID to filter by.';
  if (f.by === 'type' && !f.typeName.trim()) return 'Enter the workflow type name to filter by.';
  if (f.by === 'tag' && !f.tag) return 'Enter the tag to filter by.';
  return undefined;
}

/** A query parameter's value; absent ones are left out. */
type Param = string | number | boolean | undefined;

/** The filter of Weft's run listing that `f` names (no paging): also a batch's filter. */
export function filterParams(f: ExecutionFilter): Record<string, Param> {
  const byClose = f.state === 'closed' && f.time === 'close';
  const secs = (d: Date | undefined) => (d ? d.getTime() / 1000 : undefined);
  const params: Record<string, Param> = {
    status: f.state === 'all' ? undefined : f.state,
    [byClose ? 'closedAfter' : 'startedAfter']: secs(f.from),
    [byClose ? 'closedBefore' : 'startedBefore']: secs(f.to),
  };
  switch (f.by) {
    case 'workflowId':
      params.workflowId = f.workflowId.trim();
      break;
    case 'type':
      params.type = f.typeName.trim();
      params.version = f.typeVersion.trim() || undefined;
      break;
    case 'tag':
      params.tag = f.tag;
      break;
    case 'closeStatus':
      if (f.state === 'closed') params.closeStatus = f.closeStatus;
      break;
    case 'none':
      break;
  }
  return params;
}

/** The listing's query for a page of `f`. */
export function listParams(f: ExecutionFilter, nextPageToken?: string): Record<string, Param> {
  return { ...filterParams(f), limit: f.pageSize, oldestFirst: f.reverse || undefined, nextPageToken };
}

/** `params` without its absent members: a JSON body's filter. */
export function present(params: Record<string, Param>): Record<string, string | number | boolean> {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined && v !== '')) as Record<
    string,
    string | number | boolean
  >;
}
