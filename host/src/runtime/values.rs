//! Between SWF's wire JSON and component values, by the one naming rule of `wit/`: a member
//! `scheduledEventId` is the field `scheduled-event-id`, an enum value `START_TO_CLOSE` the case
//! `start-to-close`, an event type `TimerFired` the variant case `timer-fired` (its payload the
//! `timerFiredEventAttributes` member) and a decision type likewise (`...DecisionAttributes`).
//!
//! Driven by the component's own types, so the 54 events and 13 decisions need no conversion code
//! of their own, and whatever the host stores or accepts is exactly what the guest sees or sends.

use serde_json::{Map, Value};
use wasmtime::component::{Type, Val};

/// The field of a history event that holds its typed attributes (`wit/history.wit`).
const EVENT_ATTRIBUTES: &str = "attributes";

/// The value of type `ty` that `json` (wire JSON) stands for.
pub(crate) fn from_json(json: &Value, ty: &Type) -> Result<Val, String> {
    Ok(match ty {
        Type::Bool => Val::Bool(json.as_bool().ok_or_else(|| expected("a boolean", json))?),
        Type::U32 => Val::U32(
            json.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| expected("a u32", json))?,
        ),
        Type::S32 => Val::S32(
            json.as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .ok_or_else(|| expected("an s32", json))?,
        ),
        Type::U64 => Val::U64(json.as_u64().ok_or_else(|| expected("a u64", json))?),
        Type::S64 => Val::S64(json.as_i64().ok_or_else(|| expected("an s64", json))?),
        Type::Float64 => Val::Float64(json.as_f64().ok_or_else(|| expected("a number", json))?),
        Type::String => Val::String(
            json.as_str()
                .ok_or_else(|| expected("a string", json))?
                .to_owned(),
        ),
        Type::Option(inner) => match json {
            Value::Null => Val::Option(None),
            json => Val::Option(Some(Box::new(from_json(json, &inner.ty())?))),
        },
        Type::List(list) => {
            let items = json.as_array().ok_or_else(|| expected("a list", json))?;
            let element = list.ty();
            Val::List(
                items
                    .iter()
                    .map(|item| from_json(item, &element))
                    .collect::<Result<_, _>>()?,
            )
        }
        Type::Enum(cases) => {
            let wire = json
                .as_str()
                .ok_or_else(|| expected("an enum value", json))?;
            let case = wire.to_ascii_lowercase().replace('_', "-");
            if !cases.names().any(|name| name == case) {
                return Err(format!("{wire:?} is not a known value"));
            }
            Val::Enum(case)
        }
        Type::Record(record) => {
            let object = json
                .as_object()
                .ok_or_else(|| expected("an object", json))?;
            let mut fields = Vec::with_capacity(record.fields().len());
            for field in record.fields() {
                let val = match (&field.ty, field.name) {
                    (Type::Variant(_), EVENT_ATTRIBUTES) => event_attributes(object, &field.ty)?,
                    (ty, name) => {
                        let member = camel(name);
                        let json = object.get(&member).unwrap_or(&Value::Null);
                        from_json(json, ty).map_err(|e| format!("{member}: {e}"))?
                    }
                };
                fields.push((field.name.to_owned(), val));
            }
            Val::Record(fields)
        }
        other => return Err(format!("no wire form for {other:?}")),
    })
}

/// The typed attributes of the history event `event`: the case its `eventType` names, with the
/// payload from its `<eventType>EventAttributes` member.
fn event_attributes(event: &Map<String, Value>, ty: &Type) -> Result<Val, String> {
    let Type::Variant(variant) = ty else {
        return Err("event attributes must be a variant".into());
    };
    let event_type = event
        .get("eventType")
        .and_then(Value::as_str)
        .ok_or("an event without an eventType")?;
    let case = kebab(event_type);
    let payload = variant
        .cases()
        .find(|c| c.name == case)
        .ok_or_else(|| format!("unknown event type {event_type:?}"))?
        .ty;
    let member = format!("{}EventAttributes", lower_first(event_type));
    let json = event.get(&member).unwrap_or(&Value::Null);
    let payload = match payload {
        Some(ty) => Some(Box::new(
            from_json(json, &ty).map_err(|e| format!("{member}.{e}"))?,
        )),
        None => None,
    };
    Ok(Val::Variant(case, payload))
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

/// `ActivityTaskCompleted` → `activity-task-completed`.
fn kebab(pascal: &str) -> String {
    let mut out = String::with_capacity(pascal.len() + 4);
    for (i, c) in pascal.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
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
        assert_eq!(kebab("ActivityTaskCompleted"), "activity-task-completed");
        assert_eq!(
            kebab(&pascal("start-child-workflow-execution")),
            "start-child-workflow-execution"
        );
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
