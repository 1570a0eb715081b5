import { describe, expect, it } from 'vitest';
import { actionWords, filterWords, progressWords } from './batches';

describe('a batch job in words', () => {
  it('names its action as weft batch list does, with a signal its name', () => {
    expect(actionWords({ action: 'terminate' })).toBe('terminate');
    expect(actionWords({ action: 'requestCancel' })).toBe('request cancel');
    expect(actionWords({ action: 'signal', signalName: 'wake' })).toBe('signal wake');
    expect(actionWords({ action: 'resume' })).toBe('resume');
    expect(actionWords({ action: 'reset' })).toBe('reset');
  });

  it('says how far it got', () => {
    expect(progressWords({ done: 3, failed: 1, matched: 10 })).toBe('3 done, 1 failed of 10');
  });

  it('says which open runs its filter picks', () => {
    expect(filterWords({ status: 'open' })).toBe('every open run');
    expect(filterWords({ status: 'open', tag: 'nightly', type: 'Order', version: '1' })).toBe('open runs of type Order:1, with tag nightly');
    expect(filterWords({ workflowId: 'order-1' })).toBe('open runs of workflow id order-1');
  });
});
