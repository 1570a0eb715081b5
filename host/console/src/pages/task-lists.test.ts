import { describe, expect, it } from 'vitest';
import { rateWords } from '../format';
import { rateProblem } from './task-lists';

describe("a task list's rate", () => {
  it('reads as the most tasks a second, or no limit', () => {
    expect(rateWords(5)).toBe('at most 5/s');
    expect(rateWords(0.5)).toBe('at most 0.5/s');
    expect(rateWords(undefined)).toBe('no limit');
  });

  it('is typed as more than 0 tasks a second, at most a million, or nothing for no limit', () => {
    expect(rateProblem('')).toBe('');
    expect(rateProblem('  ')).toBe('');
    expect(rateProblem('5')).toBe('');
    expect(rateProblem('0.25')).toBe('');
    expect(rateProblem('1000000')).toBe('');
    expect(rateProblem('0')).not.toBe('');
    expect(rateProblem('-1')).not.toBe('');
    expect(rateProblem('1000001')).not.toBe('');
    expect(rateProblem('abc')).not.toBe('');
  });
});
