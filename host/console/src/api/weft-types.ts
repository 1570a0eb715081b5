// Bodies of Weft's /v1 API (host/src/model/wasm.rs; serde camelCase). Times are epoch seconds.

export type BindingKind = 'decision' | 'activity' | 'function';
export type World = 'decider' | 'activity-worker' | 'function';

export interface ModuleRecord {
  digest: string;
  world: World;
  size: number;
  uploadedAt: number;
}

export interface GuestLimits {
  cpuMs: number;
  memoryBytes: number;
  outputBytes: number;
}

export interface Binding {
  account: string;
  region: string;
  domain: string;
  kind: BindingKind;
  name: string;
  module: string;
  concurrency: number;
  limits: GuestLimits;
  httpHosts?: string[];
  createdAt: number;
}

export interface GuestFailureRecord {
  at: number;
  workflowId: string;
  runId: string;
  task: string;
  reason: string;
}

/** A bound guest's failure on one run (`GET /v1/domains/{d}/workflows/{w}/runs/{r}/failures`). */
export interface RunFailure extends GuestFailureRecord {
  kind: BindingKind;
  binding: string;
}

/** A task list (or, kind `function`, a Lambda function's queue) of `GET /v1/domains/{domain}/task-lists`. */
export interface TaskListState {
  kind: 'decision' | 'activity' | 'function';
  name: string;
  pending: number;
  pollers: number;
  bound: boolean;
}
