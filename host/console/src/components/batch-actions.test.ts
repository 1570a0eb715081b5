import { describe, expect, it } from 'vitest';
import type { BatchJob } from '../api/weft-types';
import {
  batchAction,
  batchJobRequest,
  batchRequest,
  confirmWords,
  emptyBatchForm,
  jobMadeWords,
  outcomeWords,
  rateProblem,
} from './batch-actions';

const tagged = { status: 'open' as const, tag: 'nightly' };

describe("the batch dialog's request", () => {
  it('carries each action with its members, those left empty left out', () => {
    const form = { ...emptyBatchForm, reason: 'bad deploy', signalName: 'wake', input: 'now' };
    expect(batchAction({ ...form, action: 'terminate' })).toStrictEqual({ action: 'terminate', reason: 'bad deploy' });
    expect(batchAction({ ...form, action: 'requestCancel' })).toStrictEqual({ action: 'requestCancel' });
    expect(batchAction({ ...form, action: 'signal' })).toStrictEqual({ action: 'signal', signalName: 'wake', input: 'now' });
    expect(batchAction({ ...form, action: 'signal', input: '' })).toStrictEqual({ action: 'signal', signalName: 'wake' });
    expect(batchAction({ ...form, action: 'pause' })).toStrictEqual({ action: 'pause', reason: 'bad deploy' });
    expect(batchAction({ ...form, action: 'resume' })).toStrictEqual({ action: 'resume' });
    expect(batchAction({ ...emptyBatchForm, action: 'terminate' })).toStrictEqual({ action: 'terminate' });
  });

  it('resets to the first or the last good decision task, with a reason if one is given', () => {
    expect(batchAction({ ...emptyBatchForm, action: 'reset' })).toStrictEqual({ action: 'reset', to: 'first' });
    expect(batchAction({ ...emptyBatchForm, action: 'reset', to: 'lastGood', reason: 'fixed decider' })).toStrictEqual({
      action: 'reset',
      to: 'lastGood',
      reason: 'fixed decider',
    });
  });

  it('acts at once on the runs the filter picks', () => {
    expect(batchRequest(tagged, { ...emptyBatchForm, action: 'reset', to: 'lastGood' })).toStrictEqual({
      filter: tagged,
      action: 'reset',
      to: 'lastGood',
    });
  });

  it("makes a job at the rate typed, or at the server's most", () => {
    const reset = { ...emptyBatchForm, action: 'reset' as const, asJob: true, reason: 'r' };
    expect(batchJobRequest(tagged, reset)).toStrictEqual({ filter: tagged, action: 'reset', to: 'first', reason: 'r' });
    expect(batchJobRequest(tagged, { ...reset, rate: ' 5 ' })).toStrictEqual({
      filter: tagged,
      action: 'reset',
      to: 'first',
      reason: 'r',
      rate: 5,
    });
    // JSON as the server reads it.
    expect(JSON.parse(JSON.stringify(batchJobRequest(tagged, { ...reset, rate: '2' })))).toStrictEqual({
      filter: { status: 'open', tag: 'nightly' },
      action: 'reset',
      to: 'first',
      reason: 'r',
      rate: 2,
    });
  });

  it('takes a whole number of runs a second, at least 1, or nothing', () => {
    expect(rateProblem('')).toBe('');
    expect(rateProblem(' ')).toBe('');
    expect(rateProblem('1')).toBe('');
    expect(rateProblem('100')).toBe('');
    expect(rateProblem('0')).not.toBe('');
    expect(rateProblem('1.5')).not.toBe('');
    expect(rateProblem('-2')).not.toBe('');
    expect(rateProblem('abc')).not.toBe('');
  });
});

describe("the batch dialog's words", () => {
  it('name the action on its confirm button, at once or as a job', () => {
    expect(confirmWords('reset', '3 open runs', false)).toBe('Reset 3 open runs');
    expect(confirmWords('reset', '3 open runs', true)).toBe('Reset 3 open runs as a batch job');
    expect(confirmWords('requestCancel', '1 open run', false)).toBe('Request cancel of 1 open run');
  });

  it('say what a batch did at once', () => {
    expect(outcomeWords('terminate', { matched: 3, done: 3 })).toBe('Terminated 3 of 3 runs.');
    expect(
      outcomeWords('reset', {
        matched: 2,
        done: 1,
        failures: [{ workflowId: 'w', runId: 'r', message: 'No decision task of the run was started' }],
      }),
    ).toBe('Reset 1 of 2 runs; 1 could not be: No decision task of the run was started');
    expect(outcomeWords('resume', { matched: 1, done: 1 })).toBe('Resumed 1 of 1 run.');
  });

  it('say which job was made', () => {
    const job: BatchJob = {
      id: '12',
      action: 'reset',
      to: 'first',
      filter: tagged,
      rate: 10,
      state: 'running',
      by: 'me',
      createdAt: 0,
      matched: 3,
      done: 0,
      failed: 0,
    };
    expect(jobMadeWords(job)).toBe('Made batch job 12 (reset, 3 open runs, 10/s).');
    expect(jobMadeWords({ ...job, action: 'signal', signalName: 'wake', matched: 1 })).toBe(
      'Made batch job 12 (signal wake, 1 open run, 10/s).',
    );
  });
});
