// Echo's worker: answers the value its input's JSON holds, which the SDK's payload rule turns
// back into the result's text (a string as is, nothing as no result, the rest as JSON).

import { ActivityWorker, parseJson } from '../../../guest-sdk/js/src/index.js';

export default new ActivityWorker().activity('Echo', '1', (task) => parseJson(task.input));
