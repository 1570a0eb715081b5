import { describe, expect, it } from 'vitest';
import { filterFromQuery, filterParams, filterToQuery, listParams, present } from './execution-filter';

const NOW = new Date('2026-11-27T12:00:30Z');

describe('the executions filter', () => {
  it('lists open and closed runs of the last day by default', () => {
    const f = filterFromQuery(new URLSearchParams(''), NOW);
    expect(f.state).toBe('all');
    expect(filterParams(f)).toEqual({ status: undefined, startedAfter: Date.parse('2026-11-26T12:00:00Z') / 1000, startedBefore: undefined });
    expect(filterToQuery(f, false)).toEqual(expect.objectContaining({ state: undefined }));
  });

  it('names one filter besides time, and a close-time range only for closed runs', () => {
    const q = new URLSearchParams('state=closed&time=close&from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z&by=closeStatus&closeStatus=FAILED');
    const f = filterFromQuery(q, NOW);
    expect(present(filterParams(f))).toEqual({
      status: 'closed',
      closedAfter: Date.parse('2026-11-01T00:00:00Z') / 1000,
      closedBefore: Date.parse('2026-11-02T00:00:00Z') / 1000,
      closeStatus: 'FAILED',
    });
    const open = filterFromQuery(new URLSearchParams('state=open&by=type&type=Order&version= '), NOW);
    expect(present(filterParams(open))).toEqual(expect.objectContaining({ status: 'open', type: 'Order' }));
    expect(filterParams(open).version).toBeUndefined();
  });

  it('pages with the size and order chosen', () => {
    const f = filterFromQuery(new URLSearchParams('by=tag&tag=nightly&size=10&reverse=1'), NOW);
    expect(present(listParams(f, 'token'))).toEqual(
      expect.objectContaining({ tag: 'nightly', limit: 10, oldestFirst: true, nextPageToken: 'token' }),
    );
    expect(listParams({ ...f, reverse: false }).oldestFirst).toBeUndefined();
  });
});

describe('times typed as the tables show them', () => {
  it('read in local time, with or without seconds, and refuse what is not a date', async () => {
    const { fromLocalInput, toLocalInput } = await import('../format');
    const d = fromLocalInput('2026-11-27 05:30');
    expect(d?.getHours()).toBe(5);
    expect(toLocalInput(d!)).toBe('2026-11-27 05:30');
    expect(fromLocalInput('2026-11-27T05:30:15')?.getSeconds()).toBe(15);
    expect(fromLocalInput('2026-11-27')?.getHours()).toBe(0);
    for (const bad of ['', 'tomorrow', '2026-02-30 10:00', '2026-11-27 24:00', '27/11/2026']) {
      expect(fromLocalInput(bad)).toBeNull();
    }
  });
});
