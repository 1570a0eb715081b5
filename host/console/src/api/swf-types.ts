// The SWF shapes the console reads (service-2.json), with only the members it uses typed.
// Timestamps are epoch seconds (fractional) on the wire.

export type RegistrationStatus = 'REGISTERED' | 'DEPRECATED';
export type CloseStatus =
  | 'COMPLETED'
  | 'FAILED'
  | 'CANCELED'
  | 'TERMINATED'
  | 'CONTINUED_AS_NEW'
  | 'TIMED_OUT';
export const CLOSE_STATUSES: CloseStatus[] = [
  'COMPLETED',
  'FAILED',
  'CANCELED',
  'TERMINATED',
  'CONTINUED_AS_NEW',
  'TIMED_OUT',
];
export type ChildPolicy = 'TERMINATE' | 'REQUEST_CANCEL' | 'ABANDON';
export const CHILD_POLICIES: ChildPolicy[] = ['TERMINATE', 'REQUEST_CANCEL', 'ABANDON'];

export interface DomainInfo {
  name: string;
  status: RegistrationStatus;
  description?: string;
  arn?: string;
}

export interface DomainDetail {
  domainInfo: DomainInfo;
  configuration: { workflowExecutionRetentionPeriodInDays: string };
}

export interface TypeRef {
  name: string;
  version: string;
}

export interface TaskList {
  name: string;
}

interface TypeInfo {
  status: RegistrationStatus;
  description?: string;
  creationDate: number;
  deprecationDate?: number;
}
export type WorkflowTypeInfo = TypeInfo & { workflowType: TypeRef };
export type ActivityTypeInfo = TypeInfo & { activityType: TypeRef };

/** A type's registered defaults; every member is optional. */
export type TypeConfiguration = Record<string, string | TaskList | undefined>;

export interface TypeDetail {
  typeInfo: WorkflowTypeInfo | ActivityTypeInfo;
  configuration: TypeConfiguration;
}

export interface WorkflowExecution {
  workflowId: string;
  runId: string;
}

export interface WorkflowExecutionInfo {
  execution: WorkflowExecution;
  workflowType: TypeRef;
  startTimestamp: number;
  closeTimestamp?: number;
  executionStatus: 'OPEN' | 'CLOSED';
  closeStatus?: CloseStatus;
  parent?: WorkflowExecution;
  tagList?: string[];
  cancelRequested?: boolean;
}

export interface WorkflowExecutionInfos {
  executionInfos: WorkflowExecutionInfo[];
  nextPageToken?: string;
}

export interface Count {
  count: number;
  truncated?: boolean;
}

export interface WorkflowExecutionDetail {
  executionInfo: WorkflowExecutionInfo;
  executionConfiguration: {
    taskStartToCloseTimeout: string;
    executionStartToCloseTimeout: string;
    taskList: TaskList;
    taskPriority?: string;
    childPolicy: ChildPolicy;
    lambdaRole?: string;
  };
  openCounts: {
    openActivityTasks: number;
    openDecisionTasks: number;
    openTimers: number;
    openChildWorkflowExecutions: number;
    openLambdaFunctions?: number;
  };
  latestActivityTaskTimestamp?: number;
  latestExecutionContext?: string;
}

/** One history event; its attributes are under `<eventType with a lowercase first letter>EventAttributes`. */
export interface HistoryEvent {
  eventId: number;
  eventTimestamp: number;
  eventType: string;
  [attributes: string]: unknown;
}

export interface History {
  events: HistoryEvent[];
  nextPageToken?: string;
}

/** The attributes of `event`, whatever its type. */
export function attributesOf(event: HistoryEvent): Record<string, unknown> {
  const key = event.eventType[0]!.toLowerCase() + event.eventType.slice(1) + 'EventAttributes';
  return (event[key] as Record<string, unknown> | undefined) ?? {};
}
