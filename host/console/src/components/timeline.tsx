// A run's timeline: one row per decision lane, activity id, timer, child, Lambda function, plus
// rows of signals and markers; each thing a bar from when it was scheduled (lighter while it
// waited in its queue) to when it ended, coloured by outcome, or a point. Every bar is a tab
// stop with a label, and shows its details on hover and on focus.

import { useMemo, useState } from 'preact/hooks';
import { formatDuration, formatTime } from '../format';
import type { RunStory, Span } from '../history/model';
import { links } from '../router';

const ZOOMS = [1, 2, 4, 8, 16, 32];
/** Tick spacings, seconds: the first that gives at most ~8 ticks per screen width is used. */
const STEPS = [
  0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200,
  10800, 21600, 43200, 86400, 172800, 604800, 2592000,
];

const KIND_LABEL: Record<Span['kind'], string> = {
  workflow: 'Execution',
  decision: 'Decision task',
  activity: 'Activity',
  timer: 'Timer',
  child: 'Child workflow',
  lambda: 'Lambda function',
  signal: 'Signal',
  marker: 'Marker',
};

interface Row {
  key: string;
  label: string;
  spans: Span[];
}

/** Rows in reading order: the execution, its decision lanes, then things as they first appeared, signals and markers last. */
function rowsOf(spans: Span[]): Row[] {
  const rows = new Map<string, Row>();
  for (const s of spans) {
    let row = rows.get(s.row);
    if (!row) rows.set(s.row, (row = { key: s.row, label: s.rowLabel, spans: [] }));
    row.spans.push(s);
  }
  const rank = (k: string) =>
    k === 'workflow' ? 0 : k.startsWith('decision:') ? 1 + Number(k.slice(9)) / 100 : k === 'signals' ? 3 : k === 'markers' ? 4 : 2;
  return [...rows.values()].sort((a, b) => rank(a.key) - rank(b.key));
}

export function Timeline({ story, now, domain }: { story: RunStory; now: number; domain: string }) {
  const [zoom, setZoom] = useState(1);
  const [tip, setTip] = useState<{ span: Span; x: number; y: number; above: boolean } | null>(null);
  const rows = useMemo(() => rowsOf(story.spans), [story]);
  const start = story.start;
  // Open things run to now, or, once the run has closed, to its close.
  const end = Math.max(story.end ?? now, ...story.spans.map((s) => s.ended ?? s.scheduled));
  const total = Math.max(end - start, 0.001);
  const pct = (t: number) => `${(((t - start) / total) * 100).toFixed(4)}%`;
  const step = STEPS.find((s) => total / s <= 8 * zoom) ?? STEPS[STEPS.length - 1]!;
  const ticks: number[] = [];
  for (let t = 0; t <= total + 1e-9; t += step) ticks.push(t);

  const show = (span: Span, el: HTMLElement) => {
    const r = el.getBoundingClientRect();
    const above = r.bottom + 180 > innerHeight && r.top > 200;
    setTip({ span, x: Math.max(8, Math.min(r.left, innerWidth - 328)), y: above ? innerHeight - r.top + 6 : r.bottom + 6, above });
  };
  const hide = () => setTip(null);

  return (
    <div class="timeline" onScroll={hide}>
      <div class="tl-tools">
        <span class="muted">
          From {formatTime(start, true)} · {formatDuration(total)}
          {story.end === undefined ? ' so far' : ''}
        </span>
        <label>
          Zoom{' '}
          <select value={zoom} onChange={(e) => setZoom(Number(e.currentTarget.value))} data-testid="timeline-zoom">
            {ZOOMS.map((z) => (
              <option key={z} value={z}>
                {z}×
              </option>
            ))}
          </select>
        </label>
        <Legend />
      </div>
      <div class="scroll tl-scroll" onScroll={hide} data-testid="timeline">
        <div class={`tl-grid${zoom > 1 ? ' zoomed' : ''}`} style={{ '--zoom': String(zoom) }}>
          <div class="tl-row tl-axis" aria-hidden="true">
            <div class="tl-label" />
            <div class="tl-track">
              {ticks.map((t) => (
                <span class="tick" key={t} style={{ left: pct(start + t) }}>
                  {t === 0 ? '0' : formatDuration(t)}
                </span>
              ))}
            </div>
          </div>
          {/* One layer of grid lines behind every row, rather than a set per row. */}
          <div class="tl-gridlines" aria-hidden="true">
            {ticks.map((t) => (
              <span class="gridline" key={t} style={{ left: pct(start + t) }} />
            ))}
          </div>
          {rows.map((row) => (
            <div class="tl-row" key={row.key} data-row={row.key}>
              <div class="tl-label" title={row.label}>
                {row.label}
              </div>
              <div class="tl-track">
                {row.spans.map((s) => (
                  <Bar
                    key={s.firstEventId}
                    span={s}
                    start={start}
                    end={end}
                    pct={pct}
                    href={s.run && links.execution(domain, s.run.workflowId, s.run.runId)}
                    onShow={show}
                    onHide={hide}
                  />
                ))}
              </div>
            </div>
          ))}
        </div>
      </div>
      {tip && <Tip {...tip} start={start} end={end} />}
    </div>
  );
}

function Bar({
  span: s,
  start,
  end,
  pct,
  href,
  onShow,
  onHide,
}: {
  span: Span;
  start: number;
  end: number;
  pct: (t: number) => string;
  /** Where the bar leads: a child's run. */
  href: string | undefined;
  onShow: (s: Span, el: HTMLElement) => void;
  onHide: () => void;
}) {
  const until = s.ended ?? end;
  const length = Math.max(until - s.scheduled, 0);
  // The share of the bar spent waiting in a queue: all of it if never started.
  const queued = s.started === undefined ? length : Math.max(s.started - s.scheduled, 0);
  const queueShare = length > 0 ? Math.min(queued / length, 1) : 0;
  const common = {
    tabIndex: 0,
    'data-kind': s.kind,
    'data-name': s.name,
    'data-outcome': s.outcome,
    'aria-label': describe(s, start, end),
    'aria-describedby': 'timeline-tip',
    onMouseEnter: (e: MouseEvent) => onShow(s, e.currentTarget as HTMLElement),
    onMouseLeave: onHide,
    onFocus: (e: FocusEvent) => onShow(s, e.currentTarget as HTMLElement),
    onBlur: onHide,
  };
  if (s.point) {
    return <div class={`mark k-${s.kind} o-${s.outcome}`} role="img" style={{ left: pct(s.scheduled) }} {...common} />;
  }
  const style = { left: pct(s.scheduled), width: pct(start + length) };
  const inner = queueShare > 0 && <span class="queue" style={{ width: `${(queueShare * 100).toFixed(3)}%` }} />;
  if (href) {
    return (
      <a class={`bar k-${s.kind} o-${s.outcome}`} href={href} style={style} {...common}>
        {inner}
      </a>
    );
  }
  return (
    <div class={`bar k-${s.kind} o-${s.outcome}`} role="img" style={style} {...common}>
      {inner}
    </div>
  );
}

/** The bar's accessible name: what, which, how it ended and how long it took. */
function describe(s: Span, start: number, end: number): string {
  const what = `${KIND_LABEL[s.kind]}${s.kind === 'decision' ? '' : ` ${s.name}`}${s.attempt && s.attempt > 1 ? `, attempt ${s.attempt}` : ''}`;
  const at = `at +${formatDuration(s.scheduled - start)}`;
  if (s.point) return `${what}: ${s.outcome} ${at}`;
  const until = s.ended ?? end;
  return `${what}: ${s.outcome}, ${at}, for ${formatDuration(until - s.scheduled)}${s.run ? '; opens the child run' : ''}`;
}

function Tip({ span: s, x, y, above, start, end }: { span: Span; x: number; y: number; above: boolean; start: number; end: number }) {
  const rel = (t: number) => `${formatTime(t, true)} (+${formatDuration(t - start)})`;
  return (
    <div id="timeline-tip" class="tip" role="tooltip" style={above ? { left: `${x}px`, bottom: `${y}px` } : { left: `${x}px`, top: `${y}px` }}>
      <strong>
        {KIND_LABEL[s.kind]} {s.kind === 'decision' ? '' : s.name}
        {s.attempt && s.attempt > 1 ? ` · attempt ${s.attempt}` : ''}
      </strong>
      <span class={`outcome o-${s.outcome}`}>{s.outcome}</span>
      <dl>
        <dt>{s.point ? 'At' : s.kind === 'timer' || s.kind === 'workflow' ? 'Started' : 'Scheduled'}</dt>
        <dd>{rel(s.scheduled)}</dd>
        {!s.point && s.started !== undefined && s.started !== s.scheduled && (
          <>
            <dt>Started</dt>
            <dd>
              {rel(s.started)} · queued {formatDuration(s.started - s.scheduled)}
            </dd>
          </>
        )}
        {!s.point && (
          <>
            <dt>{s.ended === undefined ? 'Open' : 'Ended'}</dt>
            <dd>
              {s.ended === undefined ? `for ${formatDuration(end - s.scheduled)}` : rel(s.ended)}
              {s.ended !== undefined && ` · ran ${formatDuration(s.ended - (s.started ?? s.scheduled))}`}
            </dd>
          </>
        )}
      </dl>
      {s.notes.map((n, i) => (
        <p key={i}>{n}</p>
      ))}
    </div>
  );
}

function Legend() {
  return (
    <ul class="legend" aria-label="Colours">
      {(['completed', 'fired', 'failed', 'timed-out', 'canceled', 'open'] as const).map((o) => (
        <li key={o}>
          <span class={`swatch o-${o}`} />
          {o === 'canceled' ? 'canceled / terminated' : o}
        </li>
      ))}
      <li>
        <span class="swatch queue-swatch" />
        queued
      </li>
    </ul>
  );
}
