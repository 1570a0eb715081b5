import { describe, expect, it } from 'vitest';
import { rateWords } from '../format';
import {
  capProblem,
  fairWords,
  keyWords,
  limitForm,
  limitRequest,
  limitWords,
  parseWeights,
  prefixProblem,
  rateProblem,
  weightProblem,
  weightsText,
} from './task-lists';

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

describe("a task list's limits", () => {
  const acme = { tagPrefix: 'tenant=', weights: { acme: 3 }, defaultWeight: 1 };

  it('read a line each, as weft task-lists says them, or none', () => {
    expect(limitWords({})).toEqual([]);
    expect(limitWords({ rate: 20 })).toEqual(['at most 20/s']);
    expect(limitWords({ concurrency: 5 })).toEqual(['at most 5 started']);
    expect(limitWords({ rate: 20, concurrency: 5, fairness: acme })).toEqual([
      'at most 20/s',
      'at most 5 started',
      'fair by tag tenant= (acme 3, others 1)',
    ]);
  });

  it('name fairness weights in key order, the first few of many', () => {
    expect(fairWords({ tagPrefix: 'team:', defaultWeight: 2 })).toBe('fair by tag team: (others 2)');
    const weights = { globex: 2, acme: 3, '10': 5 };
    expect(fairWords({ tagPrefix: 't=', weights, defaultWeight: 1 })).toBe('fair by tag t= (10 5, acme 3, globex 2, others 1)');
    expect(fairWords({ tagPrefix: 't=', weights, defaultWeight: 1 }, 2)).toBe('fair by tag t= (10 5, acme 3, 1 more, others 1)');
  });

  it('are a concurrency cap of 1 to 10000 whole tasks, or nothing for no cap', () => {
    expect(capProblem('')).toBe('');
    expect(capProblem('3')).toBe('');
    expect(capProblem('10000')).toBe('');
    expect(capProblem('0')).not.toBe('');
    expect(capProblem('2.5')).not.toBe('');
    expect(capProblem('10001')).not.toBe('');
    expect(capProblem('x')).not.toBe('');
  });

  it('weigh keys 1 to 1000, a KEY=WEIGHT line each', () => {
    expect(weightProblem('')).toBe('');
    expect(weightProblem('1000')).toBe('');
    expect(weightProblem('0')).not.toBe('');
    expect(weightProblem('1.5')).not.toBe('');
    expect(parseWeights('')).toEqual({ weights: {} });
    expect(parseWeights(' acme = 3 \n\nglobex=2\n')).toEqual({ weights: { acme: 3, globex: 2 } });
    // The key is what comes before the last `=`.
    expect(parseWeights('region=eu=4')).toEqual({ weights: { 'region=eu': 4 } });
    expect(parseWeights('__proto__=2')).toEqual({ weights: JSON.parse('{"__proto__": 2}') });
    expect(JSON.stringify(parseWeights('__proto__=2'))).toBe('{"weights":{"__proto__":2}}');
    for (const bad of ['acme', '=3', 'acme=', 'acme=0', 'acme=1001', 'acme=x', 'acme=1\nacme=2']) {
      expect(parseWeights(bad), bad).toHaveProperty('problem');
    }
    const many = Array.from({ length: 101 }, (_, i) => `k${i}=1`).join('\n');
    expect(parseWeights(many)).toHaveProperty('problem');
    expect(weightsText({ globex: 2, acme: 3 })).toBe('acme=3\nglobex=2');
    expect(parseWeights(weightsText({ globex: 2, acme: 3 }))).toEqual({ weights: { acme: 3, globex: 2 } });
  });

  it('have a tag prefix of at most 256 characters, no control characters', () => {
    expect(prefixProblem('tenant=')).toBe('');
    expect(prefixProblem('é'.repeat(256))).toBe('');
    expect(prefixProblem('x'.repeat(257))).not.toBe('');
    expect(prefixProblem('a\tb')).not.toBe('');
  });
});

describe("a task list's limit request", () => {
  const fairness = { tagPrefix: 'tenant=', weights: { acme: 3 }, defaultWeight: 1 };
  const list = { rate: 5, concurrency: 3, fairness };

  it('starts from the list as it is, and asks nothing if nothing changes', () => {
    expect(limitForm({})).toEqual({ rate: '', concurrency: '', tagPrefix: '', weights: '', defaultWeight: '' });
    expect(limitForm(list)).toEqual({ rate: '5', concurrency: '3', tagPrefix: 'tenant=', weights: 'acme=3', defaultWeight: '1' });
    expect(limitRequest(list, limitForm(list))).toEqual({ request: {} });
    expect(limitRequest({}, limitForm({}))).toEqual({ request: {} });
    // The same values typed otherwise are the same.
    expect(limitRequest(list, { ...limitForm(list), rate: '5.0', weights: 'acme = 3\n' })).toEqual({ request: {} });
  });

  it('sends only what changed, so that setting a cap keeps the rate', () => {
    expect(limitRequest({ rate: 5 }, { ...limitForm({ rate: 5 }), concurrency: '3' })).toEqual({ request: { concurrency: 3 } });
    expect(limitRequest(list, { ...limitForm(list), rate: '10' })).toEqual({ request: { rate: 10 } });
  });

  it('sends null for what was cleared', () => {
    expect(limitRequest(list, { ...limitForm(list), rate: '' })).toEqual({ request: { rate: null } });
    expect(limitRequest(list, { ...limitForm(list), concurrency: ' ' })).toEqual({ request: { concurrency: null } });
    expect(limitRequest(list, { ...limitForm(list), tagPrefix: '' })).toEqual({ request: { fairness: null } });
    expect(limitRequest(list, { rate: '', concurrency: '', tagPrefix: '', weights: '', defaultWeight: '' })).toEqual({
      request: { rate: null, concurrency: null, fairness: null },
    });
  });

  it('sends the whole of fairness when any of it changed', () => {
    const keyed = limitRequest({}, { ...limitForm({}), tagPrefix: 'tenant=', weights: 'acme=3' });
    expect(keyed).toEqual({ request: { fairness: { tagPrefix: 'tenant=', weights: { acme: 3 }, defaultWeight: 1 } } });
    const reweighed = limitRequest(list, { ...limitForm(list), weights: 'acme=3\nglobex=2', defaultWeight: '2' });
    expect(reweighed).toEqual({ request: { fairness: { tagPrefix: 'tenant=', weights: { acme: 3, globex: 2 }, defaultWeight: 2 } } });
    const unweighed = limitRequest(list, { ...limitForm(list), weights: '' });
    expect(unweighed).toEqual({ request: { fairness: { tagPrefix: 'tenant=', defaultWeight: 1 } } });
    expect(limitRequest(list, { ...limitForm(list), tagPrefix: 'team=' })).toEqual({
      request: { fairness: { ...fairness, tagPrefix: 'team=' } },
    });
  });

  it('says why a form is not a limit', () => {
    expect(limitRequest({}, { ...limitForm({}), rate: '0' })).toHaveProperty('problem');
    expect(limitRequest({}, { ...limitForm({}), concurrency: '0' })).toHaveProperty('problem');
    expect(limitRequest({}, { ...limitForm({}), tagPrefix: 'tenant=', weights: 'acme' })).toHaveProperty('problem');
    expect(limitRequest({}, { ...limitForm({}), tagPrefix: 'tenant=', defaultWeight: '0' })).toHaveProperty('problem');
    // Without a prefix, weights are not read.
    expect(limitRequest({}, { ...limitForm({}), weights: 'acme' })).toEqual({ request: {} });
  });
});

describe("a task list's waiting tasks by key", () => {
  it('shows the keys with the most waiting first, the runs without a key as (no key)', () => {
    const keys = [
      { key: '', pending: 1 },
      { key: 'acme', pending: 15, weight: 3 },
      { key: 'globex', pending: 5, weight: 1 },
    ];
    expect(keyWords(keys)).toEqual(['acme 15', 'globex 5', '(no key) 1']);
    // On a tie, in key order, the runs without a key last.
    expect(keyWords([{ key: '', pending: 1 }, { key: 'b', pending: 1 }, { key: 'a', pending: 1 }])).toEqual(['a 1', 'b 1', '(no key) 1']);
  });

  it('past the first few, says how many more keys and what waits under them', () => {
    const keys = Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, pending: 10 - i }));
    expect(keyWords(keys, 2)).toEqual(['k0 10', 'k1 9', '3 more keys: 21']);
    expect(keyWords(keys, 4)).toEqual(['k0 10', 'k1 9', 'k2 8', 'k3 7', '1 more key: 6']);
  });
});
