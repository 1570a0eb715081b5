/// <reference types="vite/client" />
// The recorded histories every history reader is tested against (tests/fixtures/histories,
// written by the end-to-end suite from the real engine): the execution page's story of each
// shows what its fixture expects.
import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '../api/swf-types';
import { readHistory, type Outcome, type Span } from './model';

/** A fixture's answer for one activity, timer, child or function (see the fixtures' README). */
interface Answer {
  state: string;
  result?: string;
}

interface Fixture {
  events: HistoryEvent[];
  expect: {
    decisionTasks: number;
    activities: Record<string, Answer | null>;
    timers: Record<string, Answer | null>;
    children: Record<string, Answer | null>;
    lambdas: Record<string, Answer | null>;
    signals: { name: string }[];
    markers: { name: string }[];
    close: Answer | null;
  };
}

const fixtures = Object.entries(
  import.meta.glob<Fixture>('../../../../tests/fixtures/histories/*.json', { eager: true, import: 'default' }),
).map(([path, fixture]) => [path.split('/').pop()!.replace('.json', ''), fixture] as const);

/** The outcome the timeline shows for a fixture's state. */
const OUTCOME: Record<string, Outcome> = {
  scheduled: 'open',
  started: 'open',
  cancelRequested: 'open',
  completed: 'completed',
  failed: 'failed',
  timedOut: 'timed-out',
  canceled: 'canceled',
  terminated: 'terminated',
  // Refused at once: a point marked failed, with the cause.
  notStarted: 'failed',
  startFailed: 'failed',
  fired: 'fired',
  continuedAsNew: 'continued-as-new',
};

describe('the recorded histories', () => {
  it('are all here', () => expect(fixtures.length).toBeGreaterThanOrEqual(7));

  for (const [name, { events, expect: expected }] of fixtures) {
    it(`${name}: its story shows what the history expects`, () => {
      const story = readHistory(events);
      const rows: [string, Record<string, Answer | null>][] = [
        ['activity', expected.activities],
        ['timer', expected.timers],
        ['child', expected.children],
        ['lambda', expected.lambdas],
      ];
      const open: string[] = [];
      for (const [kind, answers] of rows) {
        for (const [id, answer] of Object.entries(answers)) {
          const row = story.spans.filter((s: Span) => s.row === `${kind}:${id}`);
          if (answer === null) {
            expect(row, `${kind} ${id}`).toEqual([]);
            continue;
          }
          // The row's latest span, as the SDKs' queries answer the latest.
          const latest = row.at(-1)!;
          expect(latest.outcome, `${kind} ${id}`).toBe(OUTCOME[answer.state]);
          expect(latest.started !== undefined || latest.point === true, `${kind} ${id} started`).toBe(
            answer.state !== 'scheduled',
          );
          if (answer.result !== undefined) expect(latest.notes).toContain(`result: ${answer.result}`);
          if (latest.outcome === 'open') open.push(`${kind}:${id}`);
        }
      }
      expect(story.pending.map((s) => s.row).sort()).toEqual(open.sort());
      expect(story.spans.filter((s) => s.kind === 'signal').map((s) => s.name)).toEqual(
        expected.signals.map((s) => s.name),
      );
      expect(story.spans.filter((s) => s.kind === 'marker').map((s) => s.name)).toEqual(
        expected.markers.map((s) => s.name),
      );
      const decisions = story.spans.filter((s) => s.kind === 'decision' && s.outcome === 'completed');
      expect(decisions.length).toBe(expected.decisionTasks);
      const workflow = story.spans.find((s) => s.kind === 'workflow')!;
      expect(workflow.outcome).toBe(expected.close ? OUTCOME[expected.close.state] : 'open');
      expect(story.end === undefined).toBe(expected.close === null);
    });
  }
});
