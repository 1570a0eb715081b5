// Bodies of Weft's /v1 API (host/src/model/wasm.rs, schedules.rs, batches.rs; serde camelCase). Times are
// epoch seconds.

export type BindingKind = 'decision' | 'activity' | 'function';
export type World = 'decider' | 'activity-worker' | 'function';

/** A binding, by where it is. */
export interface BindingRef {
  domain: string;
  kind: BindingKind;
  name: string;
}

export interface ModuleRecord {
  digest: string;
  world: World;
  size: number;
  uploadedAt: number;
  name?: string;
  version?: string;
  /** The bindings that run it (`GET /v1/modules` only). */
  usedBy?: BindingRef[];
  /** Open runs pinned to it (`GET /v1/modules` only). */
  pinnedRuns?: number;
}

/** A module a decision binding has been bound to, with the open runs pinned to it. */
export interface BindingVersion {
  number: number;
  module: string;
  boundAt: number;
  pinnedRuns?: number;
}

/** The decider module a run is pinned to (host/src/model/pins.rs). */
export interface PinnedDecider {
  module: string;
  /** When the run was pinned to it, or moved to it by an upgrade. */
  at: number;
  movedFrom?: string;
  name?: string;
  version?: string;
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
  /** The module it ran before its module last changed: what a rollback restores. */
  previousModule?: string;
  /** A decision binding's modules, oldest first; `module` is the current one. */
  versions?: BindingVersion[];
  /** What binding a new module does to open runs pinned to older ones. */
  upgrade?: 'pinned' | 'replay' | 'all';
  /** While ramping up: the share of new runs, in percent, that `module` takes. */
  ramp?: number;
}

export interface GuestFailureRecord {
  at: number;
  workflowId: string;
  runId: string;
  task: string;
  reason: string;
  /** What the guest logged at `error` as it failed: a traceback, a stack. */
  details?: string;
}

/** A line a run's bound guest logged (`GET /v1/domains/{d}/workflows/{w}/runs/{r}/logs`). */
export interface RunLogLine {
  at: number;
  level: 'debug' | 'info' | 'warn' | 'error';
  kind: BindingKind;
  binding: string;
  task: string;
  message: string;
}

/** A bound guest's failure on one run (`GET /v1/domains/{d}/workflows/{w}/runs/{r}/failures`). */
export interface RunFailure extends GuestFailureRecord {
  kind: BindingKind;
  binding: string;
}

/** Who paused a run or a task list, when and why (host/src/model/pauses.rs). */
export interface Pause {
  at: number;
  /** The `identity` the pause was asked with, else the caller's account; for a pause the server made, what made it. */
  by: string;
  reason?: string;
}

/** What `POST /v1/domains/{domain}/workflows/{workflowId}/pause` or `.../resume` did. */
export interface PauseReport {
  runId: string;
  /** Its pause now: absent once resumed. A run paused already keeps its first pause. */
  paused?: Pause;
  /** False for a pause of a paused run, or a resume of a running one. */
  changed: boolean;
  /** The queued tasks held (pause) or queued again (resume). */
  tasks: number;
}

/** A task list (or, kind `function`, a Lambda function's queue) of `GET /v1/domains/{domain}/task-lists`. */
export interface TaskListState {
  kind: BindingKind;
  name: string;
  pending: number;
  pollers: number;
  bound: boolean;
  /** While it is paused: none of its tasks is handed to a poller. */
  paused?: Pause;
  /** The tasks it hands out per second at most, across every node and poller; absent without a limit. */
  rate?: number;
  /** Its tasks started and not finished at most, across every node and poller; absent without a cap. */
  concurrency?: number;
  /** How its tasks are keyed and the keys weighed, if they are. */
  fairness?: Fairness;
  /** The tasks waiting under each key, while any task is keyed or the list has fairness keys. */
  keys?: KeyState[];
}

/**
 * A task list's fairness keys: a run's key is the rest of its first tag that starts with
 * `tagPrefix` (`tenant=` keys the tag `tenant=acme` as `acme`); each key gets a share of the
 * list's hand-outs in proportion to its weight.
 */
export interface Fairness {
  tagPrefix: string;
  /** The weight of each key named (1 to 1000). */
  weights?: Record<string, number>;
  /** The weight of every other key, and of the runs without one (1 to 1000). */
  defaultWeight: number;
}

/** The tasks waiting in a task list under one fairness key. */
export interface KeyState {
  /** The key; `""` for the tasks of runs without one. */
  key: string;
  pending: number;
  /** Its weight, while the list has fairness keys. */
  weight?: number;
}

/** What `POST /v1/domains/{domain}/task-lists/{kind}/{name}/pause` or `.../resume` did. */
export interface ListPauseReport {
  kind: BindingKind;
  name: string;
  /** Its pause now: absent once resumed. A list paused already keeps its first pause. */
  paused?: Pause;
  changed: boolean;
}

/**
 * The body of `POST /v1/domains/{domain}/task-lists/{kind}/{name}/limit`: each member given is set
 * (`null` removes it), each one left out stays as it is; an empty body is refused.
 */
export interface ListLimitRequest {
  /** Tasks handed out per second at most (more than 0). */
  rate?: number | null;
  /** Tasks started and not finished at most (1 to 10000). */
  concurrency?: number | null;
  /** The fairness keys, replacing what was; `defaultWeight` is 1 if left out. */
  fairness?: (Omit<Fairness, 'defaultWeight'> & { defaultWeight?: number }) | null;
}

/** What `POST /v1/domains/{domain}/task-lists/{kind}/{name}/limit` did. */
export interface ListLimitReport {
  kind: BindingKind;
  name: string;
  /** Its rate now, in tasks per second: absent without one. */
  rate?: number;
  /** Its concurrency cap now: absent without one. */
  concurrency?: number;
  /** Its fairness keys now: absent without them. */
  fairness?: Fairness;
  /** False when the list had those limits already. */
  changed: boolean;
}

/** A run of `GET /v1/domains/{domain}/runs`: open and closed together. */
export interface RunSummary {
  workflowId: string;
  runId: string;
  workflowType: { name: string; version: string };
  /** `OPEN`, or how it closed. */
  status: string;
  startedAt: number;
  closedAt?: number;
  tags?: string[];
  cancelRequested?: boolean;
  /** Why an open run's last decision or activity attempt failed. */
  failing?: { at: number; reason: string };
  /** Recorded elsewhere and imported (`weft import`): never given a task. */
  imported?: boolean;
  /** The Wasm decider module it is pinned to. */
  decider?: PinnedDecider;
  /** While it is paused: none of its queued tasks is handed to a poller. */
  paused?: Pause;
}

/** What `POST /v1/domains/{domain}/workflows/{workflowId}/reset` did. */
export interface ResetReport {
  workflowId: string;
  /** The new run. */
  runId: string;
  /** The run it was reset from. */
  resetRunId: string;
  terminated: boolean;
  /** The new run begins with the old run's events 1 to this one. */
  carriedEvents: number;
  /** The carried DecisionTaskScheduled of the task decided again. */
  decisionTask: number;
  reappliedSignals: number;
  /** The decider module the new run is pinned to. */
  module?: string;
  replayedDecisionTasks: number;
}

export interface RunList {
  runs: RunSummary[];
  nextPageToken?: string;
}

/** A run a batch could not act on, and why. */
export interface BatchFailure {
  workflowId: string;
  runId: string;
  message: string;
}

/** What `POST /v1/domains/{domain}/runs/batch` did. */
export interface BatchOutcome {
  matched: number;
  done: number;
  failures?: BatchFailure[];
}

/** The runs a `/v1` listing, count or batch picks (host/src/model/runs.rs `RunFilter`). */
export interface RunFilter {
  status?: 'open' | 'closed';
  workflowId?: string;
  tag?: string;
  /** A workflow type's name. */
  type?: string;
  /** With `type`: only this version. */
  version?: string;
  closeStatus?: string;
  startedAfter?: number;
  startedBefore?: number;
  closedAfter?: number;
  closedBefore?: number;
  /** Open runs pinned to this decider module (its digest, or a prefix of 8 or more hex digits). */
  module?: string;
}

/** A batch job's action, with that action's members (flattened into the job, as `action`). */
export type BatchJobAction =
  | { action: 'terminate'; reason?: string; details?: string }
  | { action: 'requestCancel' }
  | { action: 'signal'; signalName: string; input?: string }
  | { action: 'pause'; reason?: string }
  | { action: 'resume' }
  /** Each run decided again from the decision task `to` names, unchecked against the decider
   * (as a forced reset), signals received after it recorded again; `reason` is the old run's
   * termination reason. */
  | { action: 'reset'; to: ResetTo; reason?: string };

/** The decision task a batch's reset decides again: a run's first, or its last before its first failure. */
export type ResetTo = 'first' | 'lastGood';

export type BatchJobState = 'running' | 'done' | 'canceled';

/** A batch job (`GET /v1/domains/{domain}/batches/{id}`), run by the server at `rate` runs a second. */
export type BatchJob = BatchJobAction & {
  id: string;
  /** Which runs: only open ones, started no later than the job was made. */
  filter: RunFilter;
  /** Runs acted on per second. */
  rate: number;
  state: BatchJobState;
  /** Who made it: the `identity` it was made with, else the caller's account. */
  by: string;
  createdAt: number;
  /** When it was done or canceled. */
  finishedAt?: number;
  /** Open runs the filter picked when it was made. */
  matched: number;
  /** Runs acted on. */
  done: number;
  /** Runs it could not act on. */
  failed: number;
  /** The latest of those, with why (at most 100). */
  failures?: BatchFailure[];
};

/** The body of `POST /v1/domains/{domain}/batches`. */
export type BatchJobRequest = BatchJobAction & {
  filter: RunFilter;
  rate?: number;
  identity?: string;
};

/** `GET /v1/domains/{domain}/batches`: the domain's jobs, newest first (at most 100). */
export interface BatchJobList {
  jobs: BatchJob[];
}

/** What a nominal time of a schedule does while a run it started is open. */
export type Overlap = 'skip' | 'bufferOne' | 'bufferAll' | 'cancelOther' | 'terminateOther' | 'allowAll';

/** When a schedule's nominal times are: every `every` seconds (plus `offset`), or cron expressions. */
export interface ScheduleSpec {
  every?: number;
  offset?: number;
  cron?: string[];
  /** The IANA time zone of the cron expressions; UTC if not given. */
  timeZone?: string;
  startAt?: number;
  endAt?: number;
  jitter?: number;
}

/** The run each nominal time starts (the type's defaults where members are left out). */
export interface StartAction {
  workflowType: { name: string; version: string };
  taskList?: string;
  taskPriority?: string;
  input?: string;
  executionStartToCloseTimeout?: string;
  tagList?: string[];
  taskStartToCloseTimeout?: string;
  childPolicy?: string;
  lambdaRole?: string;
}

/** What a schedule is (the body of `POST` and `PUT /v1/domains/{domain}/schedules/{id}`). */
export interface ScheduleDefinition {
  spec: ScheduleSpec;
  action: StartAction;
  overlap?: Overlap;
  /** Seconds after a nominal time within which it is still acted on; 60 if not given. */
  catchupWindow?: number;
  /** Runs it starts at most, all told. */
  limit?: number;
}

/** A run a schedule started, or tried to: `runId` if it started, `error` why not. */
export interface ScheduleAction {
  nominalTime: number;
  actualTime: number;
  workflowId: string;
  runId?: string;
  error?: string;
}

/** What a schedule has done, and holds. */
export interface ScheduleState {
  createdAt: number;
  updatedAt: number;
  paused?: boolean;
  /** Why it was last paused or unpaused. */
  note?: string;
  /** Runs it started. */
  actions: number;
  skipped: number;
  missed: number;
  /** The open runs it started. */
  running?: { workflowId: string; runId: string }[];
  /** Nominal times waiting for the open runs to close, earliest first. */
  buffered?: number[];
  /** Its last actions, newest last. */
  recent?: ScheduleAction[];
}

/** A schedule as `GET /v1/domains/{domain}/schedules/{id}` describes it. */
export interface ScheduleDescription {
  id: string;
  schedule: ScheduleDefinition;
  info: ScheduleState;
  /** The next nominal times (up to 5), when it is not paused. */
  nextTimes: number[];
}

/** One page of `GET /v1/domains/{domain}/schedules`, in id order. */
export interface ScheduleList {
  schedules: ScheduleDescription[];
  nextPageToken?: string;
}

/** What `POST .../schedules/{id}/trigger` or `.../backfill` did. */
export interface ScheduleOutcome {
  /** Nominal times acted on. */
  times: number;
  /** Runs started at once. */
  started: number;
}
