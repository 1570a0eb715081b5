// Every event of a run: one row each with its main attributes in a line, expandable to the whole
// attributes object; filterable by event type.

import { useMemo, useState } from 'preact/hooks';
import { attributesOf, type HistoryEvent } from '../api/swf-types';
import { formatDuration, formatTime } from '../format';
import { summarize } from '../history/summary';

/** Rows drawn before "Show all": a 25,000-event history would make the page sluggish. */
const FIRST_ROWS = 2000;

export function HistoryTable({ events }: { events: HistoryEvent[] }) {
  const [type, setType] = useState('');
  const [all, setAll] = useState(false);
  const [expanded, setExpanded] = useState<Set<number>>(new Set());
  const counts = useMemo(() => {
    const m = new Map<string, number>();
    for (const e of events) m.set(e.eventType, (m.get(e.eventType) ?? 0) + 1);
    return [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [events]);
  const shown = type ? events.filter((e) => e.eventType === type) : events;
  const rows = all ? shown : shown.slice(0, FIRST_ROWS);
  const start = events[0]?.eventTimestamp ?? 0;
  const toggle = (id: number) =>
    setExpanded((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  return (
    <div>
      <div class="tools">
        <label>
          Event type{' '}
          <select value={type} onChange={(e) => setType(e.currentTarget.value)} data-testid="history-filter">
            <option value="">All ({events.length})</option>
            {counts.map(([t, n]) => (
              <option key={t} value={t}>
                {t} ({n})
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => setExpanded(expanded.size ? new Set() : new Set(rows.map((e) => e.eventId)))}>
          {expanded.size ? 'Collapse all' : 'Expand all'}
        </button>
      </div>
      <div class="scroll">
        <table class="history" data-testid="history-table">
          <thead>
            <tr>
              <th scope="col">
                <span class="visually-hidden">Details</span>
              </th>
              <th scope="col">ID</th>
              <th scope="col">Time</th>
              <th scope="col">Type</th>
              <th scope="col">Attributes</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => {
              const open = expanded.has(e.eventId);
              return [
                <tr key={e.eventId} data-event-type={e.eventType} data-event-id={e.eventId} class={open ? 'expanded' : ''}>
                  <td>
                    <button
                      type="button"
                      class="disclose"
                      aria-expanded={open}
                      aria-controls={`event-${e.eventId}`}
                      aria-label={`Attributes of event ${e.eventId}`}
                      onClick={() => toggle(e.eventId)}
                    >
                      {open ? '▾' : '▸'}
                    </button>
                  </td>
                  <td class="num">{e.eventId}</td>
                  <td class="nowrap" title={`+${formatDuration(e.eventTimestamp - start)}`}>
                    {formatTime(e.eventTimestamp, true)}
                  </td>
                  <td class={`etype ${eventTone(e.eventType)}`}>{e.eventType}</td>
                  <td class="summary">
                    <div>{summarize(e)}</div>
                  </td>
                </tr>,
                open && (
                  <tr key={`${e.eventId}-details`} class="details" id={`event-${e.eventId}`}>
                    <td colSpan={5}>
                      <pre>{JSON.stringify(attributesOf(e), null, 2)}</pre>
                    </td>
                  </tr>
                ),
              ];
            })}
          </tbody>
        </table>
      </div>
      {!all && shown.length > FIRST_ROWS && (
        <p>
          Showing {FIRST_ROWS} of {shown.length} events.{' '}
          <button type="button" onClick={() => setAll(true)}>
            Show all
          </button>
        </p>
      )}
    </div>
  );
}

/** A hint of colour for event types that end things badly or well. */
function eventTone(type: string): string {
  if (/Failed|TimedOut/.test(type)) return 'bad';
  if (/Terminated|Canceled/.test(type)) return 'dim';
  if (/Completed|Fired/.test(type)) return 'good';
  return '';
}
