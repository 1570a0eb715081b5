// How times, durations, sizes and ids are shown.

import type { Pause } from './api/weft-types';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Epoch seconds as local `YYYY-MM-DD HH:MM:SS`, with milliseconds when `precise`. */
export function formatTime(secs: number | undefined, precise = false): string {
  if (secs === undefined || secs === null) return '';
  const d = new Date(secs * 1000);
  const base =
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return precise ? `${base}.${pad(d.getMilliseconds(), 3)}` : base;
}

/** How long before `now` (epoch seconds) `secs` was, roughly: `just now`, `5 min ago`, `3 d ago`. */
export function formatAgo(secs: number, now = Date.now() / 1000): string {
  const ago = now - secs;
  if (ago < 5) return 'just now';
  if (ago < 60) return `${Math.floor(ago)} s ago`;
  if (ago < 3600) return `${Math.floor(ago / 60)} min ago`;
  if (ago < 86400) return `${Math.floor(ago / 3600)} h ago`;
  return `${Math.floor(ago / 86400)} d ago`;
}

/** The time zone times are shown in (the browser's), as its offset and name: `UTC+01:00 Europe/Paris`. */
export function timeZone(at = new Date()): string {
  const offset = -at.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const hm = `${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const named = name && !['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT'].includes(name);
  return `UTC${sign}${hm}${named ? ` ${name}` : ''}`;
}

/** A duration in seconds, briefly: `850 ms`, `12.3 s`, `4 min 5 s`, `2 h 3 min`, `3 d 4 h`. */
export function formatDuration(secs: number): string {
  if (!isFinite(secs)) return '';
  if (secs < 0) secs = 0;
  if (secs < 1) return `${Math.round(secs * 1000)} ms`;
  if (secs < 60) return `${(Math.round(secs * 10) / 10).toString()} s`;
  const s = Math.round(secs);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

/** An SWF timeout string (`"300"`, `"NONE"`) for people. */
export function formatTimeout(t: string | undefined): string {
  if (t === undefined) return '';
  if (t === 'NONE') return 'none';
  const n = Number(t);
  return isFinite(n) ? `${formatDuration(n)} (${t})` : t;
}

export function formatBytes(n: number): string {
  const [value, unit] =
    n < 1024 ? [n, 'B'] : n < 1024 ** 2 ? [n / 1024, 'KiB'] : n < 1024 ** 3 ? [n / 1024 ** 2, 'MiB'] : [n / 1024 ** 3, 'GiB'];
  return `${Number(value.toFixed(1))} ${unit}`;
}

/** The first characters of a long id (run ids, digests); the full one goes in a title. */
export const short = (id: string, n = 8) => (id.length > n + 1 ? id.slice(0, n) + '…' : id);

/**
 * `Date` ⇄ a time typed as the tables show times, `YYYY-MM-DD HH:MM[:SS]` in local time: one
 * format on the page, where a `datetime-local` input would show the browser's locale's.
 */
export function toLocalInput(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
export function fromLocalInput(v: string): Date | null {
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?\s*$/.exec(v);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map((x) => Number(x ?? 0)) as number[];
  const d = new Date(year!, month! - 1, day!, hour!, minute!, second!);
  // `new Date` rolls 2026-02-30 over to March: such a date was not a date.
  return d.getMonth() === month! - 1 && d.getDate() === day! && hour! < 24 && minute! < 60 && second! < 60 ? d : null;
}

/** Who paused a run or a task list, when and why: `by 111111111111 at 2026-03-01 10:00:00: bad deploy`. */
export const pausedWords = (p: Pause) => `by ${p.by} at ${formatTime(p.at)}${p.reason ? `: ${p.reason}` : ''}`;

/** A task list's rate: `at most 20/s`, or `no limit`. */
export const rateWords = (rate: number | undefined) => (rate === undefined ? 'no limit' : `at most ${rate}/s`);

/** Long text, cut for one line. */
export const clip = (s: string, n = 80) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** A retention period, as registered (a string of days). */
export const days = (n: string) => `${n} day${n === '1' ? '' : 's'}`;
