//! The WIT package mirrors SWF's model by one naming rule, which the host's conversion between
//! wire JSON and component values relies on: a record `x-y` is the shape `XY`, its field `a-b`
//! the member `aB` (optional exactly when the member is not required), an enum case `a-b` the
//! value `A_B`, and the event and decision variants have a case per `EventType` and
//! `DecisionType`. A mismatch here would make a decider fail on the events it cannot read.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use wit_parser::{Resolve, Type, TypeDefKind, TypeId, TypeOwner};

fn model() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("model/service-2.json");
    serde_json::from_slice(&std::fs::read(path).expect("the model")).expect("model JSON")
}

fn resolve() -> Resolve {
    let mut resolve = Resolve::default();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../wit");
    resolve.push_dir(&dir).expect("the WIT package parses");
    resolve
}

/// `task-list` → `TaskList`.
fn pascal(kebab: &str) -> String {
    kebab
        .split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// `scheduled-event-id` → `scheduledEventId`.
fn camel(kebab: &str) -> String {
    let p = pascal(kebab);
    let mut c = p.chars();
    c.next()
        .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// The named types of the interfaces that mirror the model.
fn mirrored(resolve: &Resolve) -> Vec<(String, TypeId)> {
    let mut types = Vec::new();
    for (interface_id, interface) in &resolve.interfaces {
        let name = interface.name.as_deref().unwrap_or_default();
        if !["types", "history", "decisions"].contains(&name) {
            continue;
        }
        for (ty_name, id) in &interface.types {
            // A type `use`d from another interface is checked where it is defined.
            if resolve.types[*id].owner == TypeOwner::Interface(interface_id) {
                types.push((ty_name.clone(), *id));
            }
        }
    }
    types
}

/// What the WIT type `ty` must be in the model: a shape name, or a primitive.
fn matches(resolve: &Resolve, ty: &Type, shape: &Value, shapes: &Value) -> Result<(), String> {
    let kind = shape["type"].as_str().unwrap_or_default();
    match ty {
        Type::String if kind == "string" => Ok(()),
        Type::U64 | Type::S64 if kind == "long" => Ok(()),
        Type::U32 | Type::S32 if kind == "integer" => Ok(()),
        Type::F64 if kind == "timestamp" || kind == "double" => Ok(()),
        Type::Bool if kind == "boolean" => Ok(()),
        Type::Id(id) => {
            let def = &resolve.types[*id];
            match &def.kind {
                TypeDefKind::Type(inner) => matches(resolve, inner, shape, shapes),
                TypeDefKind::List(inner) if kind == "list" => {
                    let member = &shapes[shape["member"]["shape"].as_str().unwrap_or_default()];
                    matches(resolve, inner, member, shapes)
                }
                TypeDefKind::Record(_) | TypeDefKind::Enum(_) => {
                    let name = pascal(def.name.as_deref().unwrap_or_default());
                    if shapes.get(&name) == Some(shape) {
                        Ok(())
                    } else {
                        Err(format!("{name} is not the model's shape here"))
                    }
                }
                other => Err(format!("unexpected WIT type {other:?}")),
            }
        }
        other => Err(format!("WIT {other:?} for a model {kind}")),
    }
}

#[test]
fn records_and_enums_follow_the_models_shapes() {
    let (model, resolve) = (model(), resolve());
    let shapes = &model["shapes"];
    let mut checked = 0;
    for (name, id) in mirrored(&resolve) {
        let shape_name = pascal(&name);
        let def = &resolve.types[id];
        match &def.kind {
            TypeDefKind::Record(record) if name != "history-event" => {
                let shape = &shapes[&shape_name];
                assert_eq!(shape["type"], "structure", "{name}: no shape {shape_name}");
                let members = shape["members"].as_object().expect("members");
                let required: BTreeSet<&str> = shape["required"]
                    .as_array()
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let mut fields = BTreeSet::new();
                for field in &record.fields {
                    let member = camel(&field.name);
                    let spec = members
                        .get(&member)
                        .unwrap_or_else(|| panic!("{name}.{}: no member {member}", field.name));
                    let (optional, ty) = match field.ty {
                        Type::Id(id) => match &resolve.types[id].kind {
                            TypeDefKind::Option(inner) => (true, *inner),
                            _ => (false, field.ty),
                        },
                        ty => (false, ty),
                    };
                    assert_eq!(
                        optional,
                        !required.contains(member.as_str()),
                        "{name}.{}: optional in WIT iff not required in the model",
                        field.name
                    );
                    let member_shape = &shapes[spec["shape"].as_str().unwrap_or_default()];
                    if let Err(e) = matches(&resolve, &ty, member_shape, shapes) {
                        panic!("{name}.{}: {e}", field.name);
                    }
                    fields.insert(member);
                }
                let all: BTreeSet<String> = members.keys().cloned().collect();
                assert_eq!(fields, all, "{name}: every member of {shape_name}, no more");
                checked += 1;
            }
            TypeDefKind::Enum(cases) => {
                let shape = &shapes[&shape_name];
                let values: BTreeSet<String> = shape["enum"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{name}: no enum shape {shape_name}"))
                    .iter()
                    .map(|v| v.as_str().unwrap().to_ascii_lowercase().replace('_', "-"))
                    .collect();
                let wit: BTreeSet<String> = cases.cases.iter().map(|c| c.name.clone()).collect();
                assert_eq!(wit, values, "{name}: the cases are {shape_name}'s values");
                checked += 1;
            }
            _ => {}
        }
    }
    // 54 events, 13 decisions, the shared records and the 21 enums.
    assert!(checked > 54 + 13 + 21, "only {checked} types checked");
}

#[test]
fn the_variants_have_a_case_per_event_and_decision_type() {
    let (model, resolve) = (model(), resolve());
    let shapes = &model["shapes"];
    for (variant, enum_shape, suffix) in [
        ("event-attributes", "EventType", "EventAttributes"),
        ("decision", "DecisionType", "DecisionAttributes"),
    ] {
        let (_, id) = mirrored(&resolve)
            .into_iter()
            .find(|(name, _)| name == variant)
            .expect(variant);
        let TypeDefKind::Variant(v) = &resolve.types[id].kind else {
            panic!("{variant} is not a variant");
        };
        let mut cases = BTreeSet::new();
        for case in &v.cases {
            let Some(Type::Id(payload)) = case.ty else {
                panic!("{variant}.{} has no record", case.name);
            };
            let record = resolve.types[payload].name.clone().unwrap_or_default();
            assert_eq!(pascal(&record), format!("{}{suffix}", pascal(&case.name)));
            cases.insert(pascal(&case.name));
        }
        let values: BTreeSet<String> = shapes[enum_shape]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(cases, values, "{variant}: a case per {enum_shape}");
    }
}
