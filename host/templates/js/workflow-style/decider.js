// The Greeting workflow, as ordinary async code: run `Greet`, wait a second, complete with the
// greeting. Weft replays it over the run's history on every decision task: each awaited
// activity or timer is a decision the first time the code reaches it, and is answered from the
// history on every replay after. (`weft-js-build`, and `node --import @weft/guest/register`
// under `npm test`, make async functions resume within the one call that decides a task.)

import { workflow } from '@weft/guest';

async function greeting(wf) {
  // A failed Greet throws an ActivityError here, which fails the run with its reason.
  const greeting = await wf.activity('Greet', '1', { input: wf.input() ?? 'world' });
  await wf.sleep(1);
  return greeting;
}

export default workflow(greeting);
