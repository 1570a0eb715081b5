// One readable line of an event's main attributes, for the history table.

import { attributesOf, type HistoryEvent } from '../api/swf-types';
import { clip } from '../format';

// Shown first when present, in this order; the rest follow as they come. Ids that point back
// at other events come last: they matter less to a reader than names and outcomes.
const FIRST = [
  'activityType',
  'workflowType',
  'activityId',
  'timerId',
  'workflowId',
  'workflowExecution',
  'name',
  'id',
  'signalName',
  'markerName',
  'cause',
  'reason',
  'timeoutType',
  'result',
  'input',
  'details',
  'identity',
  'taskList',
];
const LAST = new Set([
  'scheduledEventId',
  'startedEventId',
  'initiatedEventId',
  'decisionTaskCompletedEventId',
  'latestCancelRequestedEventId',
  'externalInitiatedEventId',
  'parentInitiatedEventId',
]);

function value(key: string, v: unknown): string {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if ('name' in o && 'version' in o) return `${String(o.name)}:${String(o.version)}`;
    if ('workflowId' in o) return `${String(o.workflowId)}${o.runId ? ` (${String(o.runId).slice(0, 8)}…)` : ''}`;
    if (key === 'taskList' && 'name' in o) return String(o.name);
  }
  if (Array.isArray(v)) return v.map(String).join(', ');
  return clip(typeof v === 'string' ? v.replace(/\s+/g, ' ') : JSON.stringify(v), 60);
}

export function summarize(event: HistoryEvent): string {
  const attrs = attributesOf(event);
  const keys = Object.keys(attrs);
  const ordered = [
    ...FIRST.filter((k) => k in attrs),
    ...keys.filter((k) => !FIRST.includes(k) && !LAST.has(k)),
    ...keys.filter((k) => LAST.has(k)),
  ];
  return ordered.map((k) => `${k}: ${value(k, attrs[k])}`).join(' · ');
}
