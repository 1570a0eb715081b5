//! Between SWF's wire JSON and component values, by the one naming rule of `wit/`: a member
//! `scheduledEventId` is the field `scheduled-event-id`, an enum value `START_TO_CLOSE` the case
//! `start-to-close`, an event type `TimerFired` the variant case `timer-fired` (its payload the
//! `timerFiredEventAttributes` member) and a decision type likewise (`...DecisionAttributes`).
//!
//! Driven by the component's own types, so the 54 events and 13 decisions need no conversion code
//! of their own, and whatever the host stores or accepts is exactly what the guest sees or sends.

use std::collections::HashMap;

use serde_json::{Map, Value};
use wasmtime::component::{Type, Val};

/// The field of a history event that holds its typed attributes (`wit/history.wit`).
const EVENT_ATTRIBUTES: &str = "attributes";

/// How to read wire JSON into a component value of one type: worked out once per module from
/// the component's own types, with every name already in both forms, so that reading a task
/// walks the JSON only.
#[derive(Debug)]
pub(crate) enum Plan {
    Bool,
    U32,
    S32,
    U64,
    S64,
    F64,
    String,
    Option(Box<Plan>),
    List(Box<Plan>),
    /// Wire values (`START_TO_CLOSE`) and their cases (`start-to-close`).
    Enum(Vec<(String, String)>),
    Record(Vec<Field>),
    /// A history event's typed attributes, by its `eventType`.
    Events(HashMap<String, EventCase>),
}

/// A record's field: its name, the wire member it comes from, and how to read that.
#[derive(Debug)]
pub(crate) struct Field {
    name: String,
    member: String,
    plan: Plan,
}

/// One event type: its variant case, the member holding its attributes, and how to read them.
#[derive(Debug)]
pub(crate) struct EventCase {
    case: String,
    member: String,
    payload: Option<Plan>,
}

impl Plan {
    /// The plan for values of type `ty`; an error if `ty` has no wire form.
    pub(crate) fn new(ty: &Type) -> Result<Plan, String> {
        Ok(match ty {
            Type::Bool => Plan::Bool,
            Type::U32 => Plan::U32,
            Type::S32 => Plan::S32,
            Type::U64 => Plan::U64,
            Type::S64 => Plan::S64,
            Type::Float64 => Plan::F64,
            Type::String => Plan::String,
            Type::Option(inner) => Plan::Option(Box::new(Plan::new(&inner.ty())?)),
            Type::List(list) => Plan::List(Box::new(Plan::new(&list.ty())?)),
            Type::Enum(cases) => Plan::Enum(
                cases
                    .names()
                    .map(|case| (case.to_ascii_uppercase().replace('-', "_"), case.to_owned()))
                    .collect(),
            ),
            Type::Record(record) => Plan::Record(
                record
                    .fields()
                    .map(|field| {
                        let plan = match (&field.ty, field.name) {
                            (Type::Variant(variant), EVENT_ATTRIBUTES) => events(variant)?,
                            (ty, _) => Plan::new(ty)?,
                        };
                        Ok(Field {
                            name: field.name.to_owned(),
                            member: camel(field.name),
                            plan,
                        })
                    })
                    .collect::<Result<_, String>>()?,
            ),
            other => return Err(format!("no wire form for {other:?}")),
        })
    }

    /// The value `json` (wire JSON) stands for.
    pub(crate) fn read(&self, json: &Value) -> Result<Val, String> {
        Ok(match self {
            Plan::Bool => Val::Bool(json.as_bool().ok_or_else(|| expected("a boolean", json))?),
            Plan::U32 => Val::U32(
                json.as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| expected("a u32", json))?,
            ),
            Plan::S32 => Val::S32(
                json.as_i64()
                    .and_then(|n| i32::try_from(n).ok())
                    .ok_or_else(|| expected("an s32", json))?,
            ),
            Plan::U64 => Val::U64(json.as_u64().ok_or_else(|| expected("a u64", json))?),
            Plan::S64 => Val::S64(json.as_i64().ok_or_else(|| expected("an s64", json))?),
            Plan::F64 => Val::Float64(json.as_f64().ok_or_else(|| expected("a number", json))?),
            Plan::String => Val::String(
                json.as_str()
                    .ok_or_else(|| expected("a string", json))?
                    .to_owned(),
            ),
            Plan::Option(inner) => match json {
                Value::Null => Val::Option(None),
                json => Val::Option(Some(Box::new(inner.read(json)?))),
            },
            Plan::List(element) => Val::List(
                json.as_array()
                    .ok_or_else(|| expected("a list", json))?
                    .iter()
                    .map(|item| element.read(item))
                    .collect::<Result<_, _>>()?,
            ),
            Plan::Enum(values) => {
                let wire = json
                    .as_str()
                    .ok_or_else(|| expected("an enum value", json))?;
                let (_, case) = values
                    .iter()
                    .find(|(value, _)| value == wire)
                    .ok_or_else(|| format!("{wire:?} is not a known value"))?;
                Val::Enum(case.clone())
            }
            Plan::Record(fields) => {
                let object = json
                    .as_object()
                    .ok_or_else(|| expected("an object", json))?;
                let mut vals = Vec::with_capacity(fields.len());
                for field in fields {
                    let val = match &field.plan {
                        Plan::Events(cases) => event_attributes(object, cases)?,
                        plan => {
                            let json = object.get(&field.member).unwrap_or(&Value::Null);
                            plan.read(json)
                                .map_err(|e| format!("{}: {e}", field.member))?
                        }
                    };
                    vals.push((field.name.clone(), val));
                }
                Val::Record(vals)
            }
            Plan::Events(_) => return Err("event attributes outside an event".into()),
        })
    }
}

/// The plan for the variant of a history event's attributes: a case per event type.
fn events(variant: &wasmtime::component::types::Variant) -> Result<Plan, String> {
    let mut cases = HashMap::with_capacity(variant.cases().len());
    for case in variant.cases() {
        let event_type = pascal(case.name);
        let member = format!("{}EventAttributes", lower_first(&event_type));
        let payload = case.ty.as_ref().map(Plan::new).transpose()?;
        let case = EventCase {
            case: case.name.to_owned(),
            member,
            payload,
        };
        cases.insert(event_type, case);
    }
    Ok(Plan::Events(cases))
}

/// The typed attributes of the history event `event`: the case its `eventType` names, with the
/// payload from its `<eventType>EventAttributes` member.
fn event_attributes(
    event: &Map<String, Value>,
    cases: &HashMap<String, EventCase>,
) -> Result<Val, String> {
    let event_type = event
        .get("eventType")
        .and_then(Value::as_str)
        .ok_or("an event without an eventType")?;
    let case = cases
        .get(event_type)
        .ok_or_else(|| format!("unknown event type {event_type:?}"))?;
    let payload = match &case.payload {
        Some(plan) => {
            let json = event.get(&case.member).unwrap_or(&Value::Null);
            let val = plan
                .read(json)
                .map_err(|e| format!("{}.{e}", case.member))?;
            Some(Box::new(val))
        }
        None => None,
    };
    Ok(Val::Variant(case.case.clone(), payload))
}

/// The wire JSON of `val`. A variant is a decision: `{"decisionType": ..,
/// "<decisionType>DecisionAttributes": ..}`. Absent options are left out.
pub(crate) fn to_json(val: &Val) -> Result<Value, String> {
    Ok(match val {
        Val::Bool(b) => Value::Bool(*b),
        Val::U32(n) => Value::from(*n),
        Val::S32(n) => Value::from(*n),
        Val::U64(n) => Value::from(*n),
        Val::S64(n) => Value::from(*n),
        Val::Float64(n) => Value::from(*n),
        Val::String(s) => Value::String(s.clone()),
        Val::Option(None) => Value::Null,
        Val::Option(Some(v)) => to_json(v)?,
        Val::List(items) => Value::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        Val::Enum(case) => Value::String(case.to_ascii_uppercase().replace('-', "_")),
        Val::Record(fields) => {
            let mut object = Map::new();
            for (name, val) in fields {
                let json = to_json(val)?;
                if !json.is_null() {
                    object.insert(camel(name), json);
                }
            }
            Value::Object(object)
        }
        Val::Variant(case, payload) => {
            let decision_type = pascal(case);
            let mut object = Map::new();
            if let Some(payload) = payload {
                let member = format!("{}DecisionAttributes", lower_first(&decision_type));
                object.insert(member, to_json(payload)?);
            }
            object.insert("decisionType".into(), Value::String(decision_type));
            Value::Object(object)
        }
        other => return Err(format!("no wire form for {other:?}")),
    })
}

fn expected(what: &str, json: &Value) -> String {
    let mut shown = json.to_string();
    shown.truncate(40);
    format!("expected {what}, found {shown}")
}

/// `scheduled-event-id` → `scheduledEventId`.
fn camel(kebab: &str) -> String {
    lower_first(&pascal(kebab))
}

/// `activity-task-completed` → `ActivityTaskCompleted`.
fn pascal(kebab: &str) -> String {
    kebab
        .split('-')
        .flat_map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
        })
        .collect()
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_ascii_lowercase())
        .into_iter()
        .chain(chars)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_rule_both_ways() {
        assert_eq!(camel("scheduled-event-id"), "scheduledEventId");
        assert_eq!(camel("result"), "result");
        assert_eq!(pascal("activity-task-completed"), "ActivityTaskCompleted");
    }

    #[test]
    fn decisions_take_the_wire_form() {
        let decision = Val::Variant(
            "start-timer".into(),
            Some(Box::new(Val::Record(vec![
                ("timer-id".into(), Val::String("t1".into())),
                ("control".into(), Val::Option(None)),
                ("start-to-fire-timeout".into(), Val::String("5".into())),
            ]))),
        );
        assert_eq!(
            to_json(&decision).unwrap(),
            serde_json::json!({
                "decisionType": "StartTimer",
                "startTimerDecisionAttributes": {"timerId": "t1", "startToFireTimeout": "5"},
            })
        );
        let policy = Val::Option(Some(Box::new(Val::Enum("request-cancel".into()))));
        assert_eq!(to_json(&policy).unwrap(), "REQUEST_CANCEL");
    }
}
