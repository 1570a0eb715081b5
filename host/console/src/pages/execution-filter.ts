// The executions list's filter, as SWF allows it, and its round trip through the URL's query so
// that a link reproduces the view.
//
// SWF's rules: the open list needs a start-time filter; the closed list takes exactly one of a
// start-time and a close-time filter; besides it, at most one of workflow id, type, tag and
// (closed only) close status.

import type { CloseStatus } from '../api/swf-types';
import { CLOSE_STATUSES } from '../api/swf-types';

export type FilterBy = 'none' | 'workflowId' | 'type' | 'tag' | 'closeStatus';

export interface ExecutionFilter {
  state: 'open' | 'closed';
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
  const state = q.get('state') === 'closed' ? 'closed' : 'open';
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
    state: f.state === 'closed' ? 'closed' : undefined,
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

/** The members of a ListXWorkflowExecutions or CountXWorkflowExecutions request that `f` names (no paging). */
export function filterInput(domain: string, f: ExecutionFilter): Record<string, unknown> {
  const range: Record<string, number> = { oldestDate: f.from.getTime() / 1000 };
  if (f.to) range.latestDate = f.to.getTime() / 1000;
  const input: Record<string, unknown> = {
    domain,
    [f.state === 'closed' && f.time === 'close' ? 'closeTimeFilter' : 'startTimeFilter']: range,
  };
  switch (f.by) {
    case 'workflowId':
      input.executionFilter = { workflowId: f.workflowId.trim() };
      break;
    case 'type':
      input.typeFilter = f.typeVersion.trim()
        ? { name: f.typeName.trim(), version: f.typeVersion.trim() }
        : { name: f.typeName.trim() };
      break;
    case 'tag':
      input.tagFilter = { tag: f.tag };
      break;
    case 'closeStatus':
      if (f.state === 'closed') input.closeStatusFilter = { status: f.closeStatus };
      break;
    case 'none':
      break;
  }
  return input;
}
