//! Structural validation of request bodies against the botocore model of SWF.
//!
//! The model (`host/model/service-2.json`) is normative for shapes, so instead of restating 39
//! inputs by hand, the service embeds it and walks each request body along its input shape:
//! JSON types, required members, string lengths, enums, integer ranges and list sizes, with
//! AWS's member paths (`decisions.1.member.startTimerDecisionAttributes.timerId`). Rules the model
//! states only in prose (names, durations, tags) are checked by the operations themselves.
//!
//! The walk also normalises the body: `null` members are removed, since SWF treats them as absent.
//! It refuses control characters in names and ids ([`PLAIN`]), as SWF's rules state for them:
//! they are keys of the store, and PostgreSQL's `text` cannot hold a NUL.

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;

use crate::fault::{Fault, Violations};
use crate::model::{CONTROL_CHARACTERS, is_control};

pub(crate) static MODEL_JSON: &str = include_str!("../../model/service-2.json");

/// The string shapes of names and ids, which hold no control characters: SWF's NAME-RULE
/// says so of each, and AWS's recorded traffic breaks the rule's other clauses in ids only.
const PLAIN: [&str; 11] = [
    "ActivityId",
    "DomainName",
    "FunctionId",
    "FunctionName",
    "Name",
    "TimerId",
    "Version",
    "VersionOptional",
    "WorkflowId",
    "WorkflowRunId",
    "WorkflowRunIdOptional",
];

/// The shapes of every operation's input.
pub(crate) struct Schema {
    shapes: Vec<Shape>,
    inputs: HashMap<String, usize>,
    /// Every shape, by its name in the model.
    named: HashMap<String, usize>,
}

/// A shape with its references resolved to indices into `Schema::shapes`.
#[derive(Debug)]
enum Shape {
    Structure(Vec<Member>),
    String {
        min: usize,
        max: Option<usize>,
        values: Option<Vec<String>>,
        /// Whether control characters are refused ([`PLAIN`]).
        plain: bool,
    },
    /// `integer` and `long`.
    Integer {
        min: Option<i64>,
        max: Option<i64>,
    },
    Boolean,
    Timestamp,
    List {
        member: usize,
        min: usize,
        max: Option<usize>,
    },
}

#[derive(Debug)]
struct Member {
    name: String,
    shape: usize,
    required: bool,
}

/// The model as stored; only what validation needs is read.
#[derive(Deserialize)]
struct RawModel {
    operations: BTreeMap<String, RawOperation>,
    shapes: BTreeMap<String, RawShape>,
}

#[derive(Deserialize)]
struct RawOperation {
    input: Option<RawRef>,
}

#[derive(Deserialize)]
struct RawRef {
    shape: String,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum RawShape {
    Structure {
        // BTreeMap: violations are reported in a stable (alphabetical) member order.
        members: BTreeMap<String, RawRef>,
        #[serde(default)]
        required: Vec<String>,
    },
    String {
        min: Option<usize>,
        max: Option<usize>,
        #[serde(rename = "enum")]
        values: Option<Vec<String>>,
    },
    Integer {
        min: Option<i64>,
        max: Option<i64>,
    },
    Long {
        min: Option<i64>,
        max: Option<i64>,
    },
    Boolean,
    Timestamp,
    List {
        member: RawRef,
        min: Option<usize>,
        max: Option<usize>,
    },
}

impl Schema {
    /// The schema of the embedded model, parsed on first use.
    pub(crate) fn get() -> &'static Schema {
        static SCHEMA: OnceLock<Schema> = OnceLock::new();
        SCHEMA.get_or_init(|| Schema::parse(MODEL_JSON).expect("the embedded SWF model is valid"))
    }

    fn parse(json: &str) -> Result<Schema, String> {
        let raw: RawModel = serde_json::from_str(json).map_err(|e| e.to_string())?;
        let index: HashMap<&str, usize> = raw
            .shapes
            .keys()
            .enumerate()
            .map(|(i, name)| (name.as_str(), i))
            .collect();
        let resolve = |r: &RawRef| {
            index
                .get(r.shape.as_str())
                .copied()
                .ok_or_else(|| format!("unknown shape {}", r.shape))
        };
        let mut shapes = Vec::with_capacity(raw.shapes.len());
        for (name, shape) in &raw.shapes {
            shapes.push(match shape {
                RawShape::Structure { members, required } => Shape::Structure(
                    members
                        .iter()
                        .map(|(name, r)| {
                            Ok(Member {
                                name: name.clone(),
                                shape: resolve(r)?,
                                required: required.contains(name),
                            })
                        })
                        .collect::<Result<_, String>>()?,
                ),
                RawShape::String { min, max, values } => Shape::String {
                    min: min.unwrap_or(0),
                    max: *max,
                    values: values.clone(),
                    plain: PLAIN.contains(&name.as_str()),
                },
                RawShape::Integer { min, max } | RawShape::Long { min, max } => Shape::Integer {
                    min: *min,
                    max: *max,
                },
                RawShape::Boolean => Shape::Boolean,
                RawShape::Timestamp => Shape::Timestamp,
                RawShape::List { member, min, max } => Shape::List {
                    member: resolve(member)?,
                    min: min.unwrap_or(0),
                    max: *max,
                },
            });
        }
        let inputs = raw
            .operations
            .iter()
            .filter_map(|(name, op)| op.input.as_ref().map(|r| (name, r)))
            .map(|(name, r)| Ok((name.clone(), resolve(r)?)))
            .collect::<Result<_, String>>()?;
        let named = index.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        Ok(Schema {
            shapes,
            inputs,
            named,
        })
    }

    /// Whether the model defines an input for `operation`.
    #[cfg(test)]
    pub(crate) fn has_input(&self, operation: &str) -> bool {
        self.inputs.contains_key(operation)
    }

    /// Checks `body` against the input shape of `operation` and removes its `null` members.
    ///
    /// A wrong JSON type is a `SerializationException` (the body cannot be read as the input at
    /// all); every other broken constraint is collected into one `ValidationException`.
    pub(crate) fn validate(&self, operation: &str, body: &mut Value) -> Result<(), Fault> {
        let Some(&shape) = self.inputs.get(operation) else {
            return Err(Fault::internal(format!("no input shape for {operation}")));
        };
        let mut violations = Violations::default();
        let mut path = String::new();
        self.check(shape, body, &mut path, &mut violations)?;
        violations.finish()
    }

    /// Checks `value` against the model's shape named `shape` (a `HistoryEvent`, say), as a
    /// member at `path` of a request, and removes its `null` members; faults as
    /// [`Schema::validate`].
    pub(crate) fn validate_shape(
        &self,
        shape: &str,
        value: &mut Value,
        path: &str,
    ) -> Result<(), Fault> {
        let Some(&shape) = self.named.get(shape) else {
            return Err(Fault::internal(format!("no shape {shape}")));
        };
        let mut violations = Violations::default();
        let mut path = path.to_owned();
        self.check(shape, value, &mut path, &mut violations)?;
        violations.finish()
    }

    /// Checks `value` against shape `shape`, noting violations in `out` under `path`; a value
    /// of the wrong type is answered at once.
    fn check(
        &self,
        shape: usize,
        value: &mut Value,
        path: &mut String,
        out: &mut Violations,
    ) -> Result<(), Fault> {
        match &self.shapes[shape] {
            Shape::Structure(members) => {
                let Value::Object(fields) = value else {
                    return Err(wrong_type(path, "a structure", value));
                };
                self.check_structure(members, fields, path, out)?;
            }
            Shape::String {
                min,
                max,
                values,
                plain,
            } => {
                let Value::String(s) = value else {
                    return Err(wrong_type(path, "a string", value));
                };
                check_string(s, (*min, *max), values.as_deref(), path, out);
                if *plain && s.chars().any(is_control) {
                    out.add(path, Some(s), CONTROL_CHARACTERS);
                }
            }
            Shape::Integer { min, max } => {
                let Some(n) = value.as_i64() else {
                    return Err(wrong_type(path, "an integer", value));
                };
                check_integer(n, (*min, *max), path, out);
            }
            Shape::Boolean => {
                if !value.is_boolean() {
                    return Err(wrong_type(path, "a boolean", value));
                }
            }
            Shape::Timestamp => {
                let numeric = match value {
                    Value::Number(_) => true,
                    Value::String(s) => s.trim().parse::<f64>().is_ok(),
                    _ => false,
                };
                if !numeric {
                    return Err(wrong_type(path, "a timestamp in epoch seconds", value));
                }
            }
            Shape::List { member, min, max } => {
                let Value::Array(items) = value else {
                    return Err(wrong_type(path, "a list", value));
                };
                self.check_list(*member, (*min, *max), items, path, out)?;
            }
        }
        Ok(())
    }

    /// A structure's members: nulls dropped (as AWS ignores them), required ones present.
    fn check_structure(
        &self,
        members: &[Member],
        fields: &mut serde_json::Map<String, Value>,
        path: &mut String,
        out: &mut Violations,
    ) -> Result<(), Fault> {
        fields.retain(|_, v| !v.is_null());
        for member in members {
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&member.name);
            match fields.get_mut(&member.name) {
                Some(v) => self.check(member.shape, v, path, out)?,
                None if member.required => out.add(path, None, "Member must not be null"),
                None => {}
            }
            path.truncate(len);
        }
        Ok(())
    }

    /// A list's length, and each item against shape `member`.
    fn check_list(
        &self,
        member: usize,
        (min, max): (usize, Option<usize>),
        items: &mut [Value],
        path: &mut String,
        out: &mut Violations,
    ) -> Result<(), Fault> {
        let len = items.len();
        if len < min || max.is_some_and(|max| len > max) {
            let shown = summarize(items);
            let constraint = if len < min {
                format!("Member must have length greater than or equal to {min}")
            } else {
                format!(
                    "Member must have length less than or equal to {}",
                    max.unwrap_or(0)
                )
            };
            out.add(path, Some(&shown), constraint);
        }
        for (i, item) in items.iter_mut().enumerate() {
            let base = path.len();
            path.push_str(&format!(".{}.member", i + 1));
            if item.is_null() {
                out.add(path, None, "Member must not be null");
            } else {
                self.check(member, item, path, out)?;
            }
            path.truncate(base);
        }
        Ok(())
    }
}

/// A string's length in characters, and its enum values if it has any.
fn check_string(
    s: &str,
    (min, max): (usize, Option<usize>),
    values: Option<&[String]>,
    path: &str,
    out: &mut Violations,
) {
    let chars = s.chars().count();
    if chars < min {
        out.add(
            path,
            Some(s),
            format_args!("Member must have length greater than or equal to {min}"),
        );
    } else if let Some(max) = max.filter(|&max| chars > max) {
        out.add(
            path,
            Some(s),
            format_args!("Member must have length less than or equal to {max}"),
        );
    }
    if let Some(values) = values.filter(|v| !v.iter().any(|value| value == s)) {
        out.add(
            path,
            Some(s),
            format_args!(
                "Member must satisfy enum value set: [{}]",
                values.join(", ")
            ),
        );
    }
}

/// An integer's range.
fn check_integer(n: i64, (min, max): (Option<i64>, Option<i64>), path: &str, out: &mut Violations) {
    let shown = n.to_string();
    if let Some(min) = min.filter(|&min| n < min) {
        out.add(
            path,
            Some(&shown),
            format_args!("Member must have value greater than or equal to {min}"),
        );
    } else if let Some(max) = max.filter(|&max| n > max) {
        out.add(
            path,
            Some(&shown),
            format_args!("Member must have value less than or equal to {max}"),
        );
    }
}

fn wrong_type(path: &str, expected: &str, found: &Value) -> Fault {
    let found = match found {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    };
    let at = if path.is_empty() {
        "the request body".to_owned()
    } else {
        format!("'{path}'")
    };
    Fault::Serialization(format!("Expected {expected} at {at}, found {found}"))
}

/// A list as Coral quotes it in a message: `[a, b, c]`.
fn summarize(items: &[Value]) -> String {
    let parts: Vec<String> = items
        .iter()
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(op: &str, mut body: Value) -> Result<Value, Fault> {
        Schema::get().validate(op, &mut body).map(|()| body)
    }

    fn message(f: Fault) -> String {
        match f {
            Fault::Validation(m) | Fault::Serialization(m) => m,
            other => panic!("unexpected fault {other:?}"),
        }
    }

    #[test]
    fn every_operation_has_an_input() {
        let schema = Schema::get();
        assert_eq!(schema.inputs.len(), 39);
    }

    #[test]
    fn accepts_a_valid_body_and_drops_nulls() {
        let body = check(
            "RegisterDomain",
            json!({"name": "d", "workflowExecutionRetentionPeriodInDays": "1",
                   "description": null, "unknownMember": 5}),
        )
        .unwrap();
        assert_eq!(
            body,
            json!({"name": "d", "workflowExecutionRetentionPeriodInDays": "1", "unknownMember": 5})
        );
    }

    #[test]
    fn reports_missing_members_and_lengths_with_paths() {
        let msg = message(
            check(
                "RegisterDomain",
                json!({"name": "x".repeat(257), "tags": [{"value": "v"}]}),
            )
            .unwrap_err(),
        );
        assert!(msg.starts_with("3 validation errors detected: "), "{msg}");
        assert!(msg.contains("at 'name' failed to satisfy constraint: Member must have length less than or equal to 256"), "{msg}");
        assert!(msg.contains("Value null at 'tags.1.member.key' failed to satisfy constraint: Member must not be null"), "{msg}");
        assert!(msg.contains("Value null at 'workflowExecutionRetentionPeriodInDays'"));
    }

    #[test]
    fn checks_enums_ranges_and_list_sizes() {
        let msg = message(
            check(
                "ListDomains",
                json!({"registrationStatus": "GONE", "maximumPageSize": 1001}),
            )
            .unwrap_err(),
        );
        assert!(msg.contains("Value 'GONE' at 'registrationStatus' failed to satisfy constraint: Member must satisfy enum value set: [REGISTERED, DEPRECATED]"), "{msg}");
        assert!(msg.contains("Value '1001' at 'maximumPageSize' failed to satisfy constraint: Member must have value less than or equal to 1000"), "{msg}");

        let tags: Vec<String> = (0..6).map(|i| format!("t{i}")).collect();
        let msg = message(
            check(
                "StartWorkflowExecution",
                json!({"domain": "d", "workflowId": "w",
                       "workflowType": {"name": "n", "version": "v"}, "tagList": tags}),
            )
            .unwrap_err(),
        );
        assert!(msg.contains("Value '[t0, t1, t2, t3, t4, t5]' at 'tagList' failed to satisfy constraint: Member must have length less than or equal to 5"), "{msg}");
    }

    #[test]
    fn nested_decision_paths_use_one_based_member_indices() {
        let msg = message(
            check(
                "RespondDecisionTaskCompleted",
                json!({"taskToken": "t", "decisions": [
                    {"decisionType": "RecordMarker", "recordMarkerDecisionAttributes": {"markerName": "m"}},
                    {"decisionType": "RecordMarker", "recordMarkerDecisionAttributes": {}}
                ]}),
            )
            .unwrap_err(),
        );
        assert!(
            msg.contains(
                "Value null at 'decisions.2.member.recordMarkerDecisionAttributes.markerName'"
            ),
            "{msg}"
        );
    }

    #[test]
    fn wrong_json_types_are_serialization_errors() {
        for (body, path) in [
            (
                json!({"name": 5, "workflowExecutionRetentionPeriodInDays": "1"}),
                "'name'",
            ),
            (
                json!({"registrationStatus": "REGISTERED", "maximumPageSize": "10"}),
                "'maximumPageSize'",
            ),
            (
                json!({"registrationStatus": "REGISTERED", "maximumPageSize": 1.5}),
                "'maximumPageSize'",
            ),
            (
                json!({"registrationStatus": "REGISTERED", "reverseOrder": "yes"}),
                "'reverseOrder'",
            ),
            (json!([1, 2]), "the request body"),
        ] {
            let op = if body.get("name").is_some() {
                "RegisterDomain"
            } else {
                "ListDomains"
            };
            let fault = check(op, body).unwrap_err();
            assert!(matches!(fault, Fault::Serialization(_)), "{fault:?}");
            assert!(message(fault).contains(path));
        }
    }

    #[test]
    fn timestamps_accept_numbers_and_numeric_strings() {
        let base = json!({"domain": "d", "closeTimeFilter": {"oldestDate": 1.5}});
        assert!(check("CountClosedWorkflowExecutions", base).is_ok());
        let s = json!({"domain": "d", "closeTimeFilter": {"oldestDate": "1700000000"}});
        assert!(check("CountClosedWorkflowExecutions", s).is_ok());
        let bad = json!({"domain": "d", "closeTimeFilter": {"oldestDate": "yesterday"}});
        assert!(matches!(
            check("CountClosedWorkflowExecutions", bad),
            Err(Fault::Serialization(_))
        ));
    }

    #[test]
    fn lengths_count_characters_not_bytes() {
        let name = "é".repeat(256);
        assert!(
            check(
                "RegisterDomain",
                json!({"name": name, "workflowExecutionRetentionPeriodInDays": "1"})
            )
            .is_ok()
        );
    }
}
