// Code the declarations must reject: test/types.test.js runs tsc on this file alone
// (tsconfig.misuse.json) and expects exactly the errors marked `// error TSnnnn` on each line.

import { ActivityWorker, Canceled, Decision, RetryPolicy, Workflow, first, gather, workflow } from '@weft/guest';
import type { WorkflowGenerator } from '@weft/guest';
import { Environment, HistoryBuilder } from '@weft/guest/testing';

export async function wrong(wf: Workflow): Promise<number> {
  await wf.activity(1, 2); // error TS2345
  await wf.activity('Greet'); // error TS2554
  const count: number = await wf.activity('Count', '1.0'); // error TS2322
  await wf.activity('Greet', '1.0', { retry: 3 }); // error TS2322
  await wf.activity('Greet', '1.0', { timeout: 30 }); // error TS2353
  await wf.sleep(5).start(); // error TS2339
  await wf.lambda('price').cancel(); // error TS2339
  const run = await wf.child('Ship', '1.0').start();
  run.execution.workflowID; // error TS2551
  const [index, value] = await first(wf.signal('go'), wf.sleep(10));
  const never: 2 = index; // error TS2322
  const text: string = value; // error TS2322
  const [a, b, c] = await gather(wf.signal('a'), wf.signal('b')); // error TS2493
  wf.cancelActivity(); // error TS2554
  wf.cancelChild(42); // error TS2345
  new Workflow(); // error TS2673
  throw new Canceled(42); // error TS2345
  return count + (a ?? b ?? '').length + (c ? 1 : 0);
}

export function* yieldsJunk(wf: Workflow): WorkflowGenerator<string> {
  yield 42; // error TS2322
  return yield* wf.signal('x'); // error TS2488
}

workflow('wrong'); // error TS2345
workflow((wf: Workflow) => wf.input()); // error TS2345
new RetryPolicy('three'); // error TS2345
Decision.startTimer('t'); // error TS2554
Decision.scheduleActivity('a', 'A', '1.0', { childPolicy: 'ABANDON' }); // error TS2353
new ActivityWorker().activity('Greet', '1.0', 'Hello'); // error TS2345
new Environment('Order', '1.0').activity('Charge', () => 'ok', { secnds: 30 }); // error TS2561
new Environment('Order', '1.0').run(wrong); // error TS2345
new HistoryBuilder('Order', '1.0').respond([{ decisionType: 'StartTimer' }]); // error TS2322
new HistoryBuilder('Order', '1.0').activityCompleted('a', { result: 1 }); // error TS2345
