// The one boundary between jco's representation of `weft:swf` WIT values and SWF's wire JSON.
//
// jco gives records as objects with lowerCamelCase keys (the wire's keys already), variants as
// `{tag: 'activity-task-completed', val}`, enums as kebab-case strings, options as the value or
// undefined, and u64 as BigInt. The wire has `eventType: 'ActivityTaskCompleted'` with the
// attributes under `activityTaskCompletedEventAttributes`, enums as `REQUEST_CANCEL`, plain
// numbers, and no absent members. The conversion is generic: the WIT follows SWF's names, so
// three facts suffice, and test/wit.test.js checks them against wit/*.wit:

/** The record fields whose type is an enum (SWF's causes, timeout types and child policies). */
export const ENUM_FIELDS = new Set(['cause', 'timeoutType', 'childPolicy']);

/** Whether a field is a u64 (BigInt in jco): every u64 in the package is an event id. */
export function isU64Field(key) {
  return key === 'eventId' || key.endsWith('EventId');
}

/** `activity-task-completed` → `ActivityTaskCompleted`. */
export function kebabToPascal(kebab) {
  return kebab.replace(/(^|-)([a-z0-9])/g, (_, __, c) => c.toUpperCase());
}

/** `ActivityTaskCompleted` → `activity-task-completed`. */
export function pascalToKebab(pascal) {
  return pascal.replace(/[A-Z]/g, (c, i) => (i ? '-' : '') + c.toLowerCase());
}

/** The member holding a wire event's attributes: `activityTaskCompletedEventAttributes`. */
export function eventAttributesKey(eventType) {
  return eventType[0].toLowerCase() + eventType.slice(1) + 'EventAttributes';
}

/** The member holding a wire decision's attributes: `startTimerDecisionAttributes`. */
export function decisionAttributesKey(decisionType) {
  return decisionType[0].toLowerCase() + decisionType.slice(1) + 'DecisionAttributes';
}

/** An enum case to its wire value: `request-cancel` → `REQUEST_CANCEL`. */
export function enumToWire(kebab) {
  return kebab.toUpperCase().replaceAll('-', '_');
}

/** A wire enum value to its case: `REQUEST_CANCEL` → `request-cancel`. */
export function enumFromWire(wire) {
  return wire.toLowerCase().replaceAll('_', '-');
}

/**
 * A jco record (or list, or scalar) as wire JSON: BigInt → number, enums → wire values,
 * undefined members dropped.
 */
export function recordToWire(value, key) {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') return ENUM_FIELDS.has(key) ? enumToWire(value) : value;
  if (Array.isArray(value)) return value.map((v) => recordToWire(v));
  if (typeof value !== 'object') return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    const w = recordToWire(v, k);
    if (w !== undefined) out[k] = w;
  }
  return out;
}

/** Wire JSON as a jco record: numbers → BigInt for u64 fields, enums → cases, null → absent. */
export function recordFromWire(value, key) {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && key !== undefined && isU64Field(key)) return BigInt(value);
  if (typeof value === 'string') return ENUM_FIELDS.has(key) ? enumFromWire(value) : value;
  if (Array.isArray(value)) return value.map((v) => recordFromWire(v));
  if (typeof value !== 'object') return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    const j = recordFromWire(v, k);
    if (j !== undefined) out[k] = j;
  }
  return out;
}

/** A jco `history-event` as a wire event. */
export function eventToWire(event) {
  const eventType = kebabToPascal(event.attributes.tag);
  return {
    eventId: Number(event.eventId),
    eventTimestamp: event.eventTimestamp,
    eventType,
    [eventAttributesKey(eventType)]: recordToWire(event.attributes.val) ?? {},
  };
}

/** A wire event as a jco `history-event` (for tests that play the host's part). */
export function eventFromWire(event) {
  return {
    eventId: BigInt(event.eventId),
    eventTimestamp: event.eventTimestamp,
    attributes: {
      tag: pascalToKebab(event.eventType),
      val: recordFromWire(event[eventAttributesKey(event.eventType)] ?? {}),
    },
  };
}

/** A jco `decision-task` as a wire decision task (the shape of `PollForDecisionTask`). */
export function decisionTaskToWire(task) {
  return {
    workflowExecution: recordToWire(task.workflowExecution),
    workflowType: recordToWire(task.workflowType),
    events: task.events.map(eventToWire),
    previousStartedEventId: Number(task.previousStartedEventId),
    startedEventId: Number(task.startedEventId),
  };
}

/** A wire decision task as a jco `decision-task`. */
export function decisionTaskFromWire(task) {
  return {
    workflowExecution: recordFromWire(task.workflowExecution),
    workflowType: recordFromWire(task.workflowType),
    events: task.events.map(eventFromWire),
    previousStartedEventId: BigInt(task.previousStartedEventId ?? 0),
    startedEventId: BigInt(task.startedEventId),
  };
}

/** A wire decision as a jco `decision` variant. */
export function decisionFromWire(decision) {
  const key = decisionAttributesKey(decision.decisionType);
  return { tag: pascalToKebab(decision.decisionType), val: recordFromWire(decision[key] ?? {}) };
}

/** A jco `decision` variant as a wire decision. */
export function decisionToWire(decision) {
  const decisionType = kebabToPascal(decision.tag);
  return { decisionType, [decisionAttributesKey(decisionType)]: recordToWire(decision.val) ?? {} };
}

/** A wire decision response (`RespondDecisionTaskCompleted` less its token) as jco's. */
export function responseFromWire(response) {
  return {
    decisions: response.decisions.map(decisionFromWire),
    executionContext: response.executionContext ?? undefined,
    taskList: recordFromWire(response.taskList),
    taskListScheduleToStartTimeout: response.taskListScheduleToStartTimeout ?? undefined,
  };
}
