// The activity worker of the Greeting workflow: `Greet` answers a greeting for its input.

import { ActivityWorker } from '@weft/guest';

export function greet(task) {
  return `Hello, ${task.input ?? 'world'}!`;
}

export default new ActivityWorker().activity('Greet', '1', greet);
