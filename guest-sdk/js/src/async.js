// What the guest's async functions, compiled for workflows (transform.js), import: the driver
// that runs them at once in a workflow and as promises elsewhere.

export { __weftAsync } from './workflow.js';
