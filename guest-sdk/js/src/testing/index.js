// Unit-testing deciders under plain node: hand-built histories (HistoryBuilder) and histories
// exported from SWF (loadHistory). Not for components: it imports node modules.

export { HistoryBuilder, DEFAULT_TASK_LIST } from './builder.js';
export { Environment } from './environment.js';
export { loadHistory, RecordedHistory } from './recorded.js';
export { task, taskFromWire } from './tasks.js';
