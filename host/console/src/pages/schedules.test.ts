import { describe, expect, it } from 'vitest';
import { specWords } from './schedules';

describe('a schedule spec in words', () => {
  it('says an interval in the largest unit that divides it, with its offset', () => {
    expect(specWords({ every: 3600 })).toBe('every 1h');
    expect(specWords({ every: 3600, offset: 300 })).toBe('every 1h +5m');
    expect(specWords({ every: 90 })).toBe('every 90s');
    expect(specWords({ every: 2 * 86400, offset: 0 })).toBe('every 2d +0s');
  });

  it('quotes cron expressions and names their time zone, UTC by default', () => {
    expect(specWords({ cron: ['30 2 * * *'], timeZone: 'Europe/Berlin' })).toBe('cron "30 2 * * *" Europe/Berlin');
    expect(specWords({ cron: ['0 * * * *', '15 3 * * 1'] })).toBe('cron "0 * * * *" "15 3 * * 1" UTC');
  });
});
