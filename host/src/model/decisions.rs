//! Decisions: the one definition of their wire format (spec §6).
//!
//! A decision is `{decisionType, <decisionType>DecisionAttributes}`; only the attributes member
//! matching the type is read. The model-driven schema has already checked every member's JSON
//! type, length and required flag, so what is left here is choosing the member, requiring it, and
//! the rules the model states only in prose (names, durations, priorities).

use serde::Deserialize;
use serde_json::Value;

use crate::fault::{Fault, Violations, echo};

use super::rules::{NoneAllowed, Rule};
use super::{ChildPolicy, Priority, RunId, TaskList, Timeout, TypeName, WorkflowId};

macro_rules! decisions {
    ($(
        $name:ident => $member:literal {
            $($field:ident : $ty:ty,)*
        } $([$($rule_member:literal: $rule:expr),* $(,)?])?
    )*) => {
        /// The attributes of each decision type, named after it, with the prose rules already
        /// applied: durations and priorities are typed.
        pub(crate) mod attrs {
            use super::*;
            $(
                #[doc = concat!("`", $member, "`.")]
                #[derive(Clone, Debug, Deserialize)]
                #[serde(rename_all = "camelCase")]
                pub(crate) struct $name {
                    $(pub(crate) $field: $ty,)*
                }
            )*
        }

        /// One decision of a RespondDecisionTaskCompleted.
        #[derive(Clone, Debug)]
        pub(crate) enum Decision {
            $($name(attrs::$name),)*
        }

        impl Decision {
            /// Reads the decision at `path` (`decisions.N.member`): its prose rules are checked
            /// on the raw attributes, so reading them typed cannot fail on a rule.
            fn read(mut value: Value, path: &str, v: &mut Violations) -> Result<Option<Decision>, Fault> {
                let kind = value.get("decisionType").and_then(Value::as_str).unwrap_or_default().to_owned();
                match kind.as_str() {
                    $(stringify!($name) => {
                        let at = format!("{path}.{}", $member);
                        let given = value.get_mut($member).map(Value::take);
                        let present = given.is_some();
                        let mut raw = given.unwrap_or_else(|| Value::Object(Default::default()));
                        let rules: &[(&str, Rule)] = &[$($(($rule_member, $rule)),*)?];
                        let before = v.len();
                        if let Value::Object(members) = &mut raw {
                            for (member, rule) in rules {
                                rule.apply(members, member, &at, v);
                            }
                        }
                        if v.len() > before {
                            return Ok(None);
                        }
                        match attrs::$name::deserialize(raw) {
                            Ok(attrs) => Ok(Some(Decision::$name(attrs))),
                            Err(e) if present => Err(Fault::Serialization(format!("{at}: {}", echo(&e.to_string())))),
                            // AWS accepts a decision without its attributes when none of them
                            // is required (the four close decisions), as if they were empty.
                            Err(_) => {
                                v.add(&at, None, "Member must not be null");
                                Ok(None)
                            }
                        }
                    })*
                    // The schema has checked the enum already.
                    other => Err(Fault::Validation(format!("Unknown decisionType: {other}"))),
                }
            }
        }
    };
}

decisions! {
    ScheduleActivityTask => "scheduleActivityTaskDecisionAttributes" {
        activity_type: TypeName,
        activity_id: String,
        control: Option<String>,
        input: Option<String>,
        schedule_to_close_timeout: Option<Timeout>,
        task_list: Option<TaskList>,
        task_priority: Option<Priority>,
        schedule_to_start_timeout: Option<Timeout>,
        start_to_close_timeout: Option<Timeout>,
        heartbeat_timeout: Option<Timeout>,
    } [
        "taskList": Rule::TaskList,
        "taskPriority": Rule::Priority,
        "scheduleToCloseTimeout": Rule::Duration(NoneAllowed::Yes),
        "scheduleToStartTimeout": Rule::Duration(NoneAllowed::Yes),
        "startToCloseTimeout": Rule::Duration(NoneAllowed::Yes),
        "heartbeatTimeout": Rule::Duration(NoneAllowed::Yes),
    ]
    RequestCancelActivityTask => "requestCancelActivityTaskDecisionAttributes" {
        activity_id: String,
    }
    CompleteWorkflowExecution => "completeWorkflowExecutionDecisionAttributes" {
        result: Option<String>,
    }
    FailWorkflowExecution => "failWorkflowExecutionDecisionAttributes" {
        reason: Option<String>,
        details: Option<String>,
    }
    CancelWorkflowExecution => "cancelWorkflowExecutionDecisionAttributes" {
        details: Option<String>,
    }
    ContinueAsNewWorkflowExecution => "continueAsNewWorkflowExecutionDecisionAttributes" {
        input: Option<String>,
        execution_start_to_close_timeout: Option<Timeout>,
        task_list: Option<TaskList>,
        task_priority: Option<Priority>,
        task_start_to_close_timeout: Option<Timeout>,
        child_policy: Option<ChildPolicy>,
        tag_list: Option<Vec<String>>,
        workflow_type_version: Option<String>,
        lambda_role: Option<String>,
    } [
        "taskList": Rule::TaskList,
        "taskPriority": Rule::Priority,
        "executionStartToCloseTimeout": Rule::Duration(NoneAllowed::No),
        "taskStartToCloseTimeout": Rule::Duration(NoneAllowed::Yes),
    ]
    RecordMarker => "recordMarkerDecisionAttributes" {
        marker_name: String,
        details: Option<String>,
    }
    StartTimer => "startTimerDecisionAttributes" {
        timer_id: String,
        control: Option<String>,
        start_to_fire_timeout: Timeout,
    } [
        "startToFireTimeout": Rule::RequiredDuration,
    ]
    CancelTimer => "cancelTimerDecisionAttributes" {
        timer_id: String,
    }
    SignalExternalWorkflowExecution => "signalExternalWorkflowExecutionDecisionAttributes" {
        workflow_id: WorkflowId,
        run_id: Option<RunId>,
        signal_name: String,
        input: Option<String>,
        control: Option<String>,
    }
    RequestCancelExternalWorkflowExecution => "requestCancelExternalWorkflowExecutionDecisionAttributes" {
        workflow_id: WorkflowId,
        run_id: Option<RunId>,
        control: Option<String>,
    }
    StartChildWorkflowExecution => "startChildWorkflowExecutionDecisionAttributes" {
        workflow_type: TypeName,
        workflow_id: WorkflowId,
        control: Option<String>,
        input: Option<String>,
        execution_start_to_close_timeout: Option<Timeout>,
        task_list: Option<TaskList>,
        task_priority: Option<Priority>,
        task_start_to_close_timeout: Option<Timeout>,
        child_policy: Option<ChildPolicy>,
        tag_list: Option<Vec<String>>,
        lambda_role: Option<String>,
    } [
        "taskList": Rule::TaskList,
        "taskPriority": Rule::Priority,
        "executionStartToCloseTimeout": Rule::Duration(NoneAllowed::No),
        "taskStartToCloseTimeout": Rule::Duration(NoneAllowed::Yes),
    ]
    ScheduleLambdaFunction => "scheduleLambdaFunctionDecisionAttributes" {
        id: String,
        name: String,
        control: Option<String>,
        input: Option<String>,
        start_to_close_timeout: Option<Timeout>,
    } [
        "startToCloseTimeout": Rule::LambdaTimeout,
    ]
}

impl Decision {
    /// Whether the decision closes the run: it must then be the last of its batch.
    pub(crate) fn closes(&self) -> bool {
        matches!(
            self,
            Decision::CompleteWorkflowExecution(_)
                | Decision::FailWorkflowExecution(_)
                | Decision::CancelWorkflowExecution(_)
                | Decision::ContinueAsNewWorkflowExecution(_)
        )
    }
}

/// An optional member, with `""` read as absent (the model lets SDKs send empty durations).
pub(crate) fn given(value: &Option<String>) -> Option<&str> {
    value.as_deref().filter(|s| !s.is_empty())
}

/// Reads and checks the `decisions` of a RespondDecisionTaskCompleted (spec §8.7 step 1): each
/// needs the attributes member of its type, and a closing decision must be the last one.
pub(crate) fn parse(values: Vec<Value>) -> Result<Vec<Decision>, Fault> {
    let mut v = Violations::default();
    let mut decisions = Vec::with_capacity(values.len());
    for (i, value) in values.into_iter().enumerate() {
        let path = format!("decisions.{}.member", i + 1);
        if let Some(decision) = Decision::read(value, &path, &mut v)? {
            decisions.push(decision);
        }
    }
    v.finish()?;
    let last = decisions.len().saturating_sub(1);
    if decisions
        .iter()
        .enumerate()
        .any(|(i, d)| d.closes() && i != last)
    {
        return Err(Fault::close_not_last());
    }
    Ok(decisions)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_the_member_of_the_type_only() {
        let decisions = parse(vec![json!({
            "decisionType": "StartTimer",
            "startTimerDecisionAttributes": {"timerId": "t", "startToFireTimeout": "5"},
            "recordMarkerDecisionAttributes": {"markerName": "ignored"}
        })])
        .unwrap();
        assert!(matches!(&decisions[..], [Decision::StartTimer(t)] if t.timer_id == "t"));
    }

    #[test]
    fn the_member_of_the_type_is_required_if_it_has_a_required_member() {
        let err = parse(vec![json!({"decisionType": "CancelTimer"})]).unwrap_err();
        assert!(
            matches!(&err, Fault::Validation(m)
            if m.contains("Value null at 'decisions.1.member.cancelTimerDecisionAttributes'")),
            "{err:?}"
        );
        // Every member of the close decisions' attributes is optional: AWS takes them bare.
        for close in [
            "CompleteWorkflowExecution",
            "FailWorkflowExecution",
            "CancelWorkflowExecution",
            "ContinueAsNewWorkflowExecution",
        ] {
            let decisions = parse(vec![json!({ "decisionType": close })]).unwrap();
            assert!(decisions[0].closes(), "{close}");
        }
        let bare = parse(vec![json!({"decisionType": "CompleteWorkflowExecution"})]).unwrap();
        assert!(
            matches!(&bare[..], [Decision::CompleteWorkflowExecution(a)] if a.result.is_none())
        );
        // The others each have a required member.
        for other in [
            "ScheduleActivityTask",
            "RequestCancelActivityTask",
            "RecordMarker",
            "StartTimer",
            "CancelTimer",
            "SignalExternalWorkflowExecution",
            "RequestCancelExternalWorkflowExecution",
            "StartChildWorkflowExecution",
            "ScheduleLambdaFunction",
        ] {
            let err = parse(vec![json!({ "decisionType": other })]).unwrap_err();
            assert!(
                matches!(&err, Fault::Validation(m) if m.contains("Member must not be null")),
                "{other}: {err:?}"
            );
        }
    }

    #[test]
    fn a_close_must_be_last() {
        let complete = json!({"decisionType": "CompleteWorkflowExecution",
            "completeWorkflowExecutionDecisionAttributes": {}});
        let marker = json!({"decisionType": "RecordMarker",
            "recordMarkerDecisionAttributes": {"markerName": "m"}});
        assert!(parse(vec![marker.clone(), complete.clone()]).is_ok());
        for batch in [
            vec![complete.clone(), marker],
            vec![complete.clone(), complete],
        ] {
            assert_eq!(
                parse(batch).unwrap_err(),
                Fault::Validation("Close must be last decision in list".into())
            );
        }
    }

    #[test]
    fn a_lambda_timeout_is_one_to_900_seconds() {
        let lambda = |timeout: Option<&str>| {
            let mut attributes = json!({"id": "l", "name": "f"});
            if let Some(t) = timeout {
                attributes["startToCloseTimeout"] = json!(t);
            }
            parse(vec![json!({"decisionType": "ScheduleLambdaFunction",
                "scheduleLambdaFunctionDecisionAttributes": attributes})])
        };
        for ok in [None, Some(""), Some("1"), Some("900")] {
            assert!(lambda(ok).is_ok(), "{ok:?}");
        }
        for bad in ["0", "901", "NONE"] {
            let Err(Fault::Validation(m)) = lambda(Some(bad)) else {
                panic!("{bad} was accepted")
            };
            assert!(
                m.contains("decisions.1.member.scheduleLambdaFunctionDecisionAttributes.startToCloseTimeout"),
                "{m}"
            );
            assert!(m.contains("from 1 to 900"), "{m}");
        }
    }

    #[test]
    fn prose_rules_apply_with_paths() {
        let err = parse(vec![json!({"decisionType": "ScheduleActivityTask",
            "scheduleActivityTaskDecisionAttributes": {"activityId": "a", "taskList": {"name": "a:b"},
                "activityType": {"name": "t", "version": "1"}, "heartbeatTimeout": "x"}})])
        .unwrap_err();
        let Fault::Validation(m) = err else { panic!() };
        assert!(m.starts_with("2 validation errors"), "{m}");
        assert!(
            m.contains("decisions.1.member.scheduleActivityTaskDecisionAttributes.taskList.name"),
            "{m}"
        );
    }

    #[test]
    fn ids_take_what_aws_takes() {
        // Recorded from AWS (2016): a timer id and a child workflow id with ':'; AWS's Flow
        // Framework names children `<runId>:<n>`, run ids holding '/' and '+'.
        let decisions = parse(vec![
            json!({"decisionType": "StartTimer",
                "startTimerDecisionAttributes": {"timerId": "delayed_task-0-0:t", "startToFireTimeout": "3"}}),
            json!({"decisionType": "ScheduleActivityTask",
                "scheduleActivityTaskDecisionAttributes": {"activityId": "x:1/2|3",
                    "activityType": {"name": "t", "version": "1"}}}),
            json!({"decisionType": "StartChildWorkflowExecution",
                "startChildWorkflowExecutionDecisionAttributes": {"workflowId": "22a+b/c=:1",
                    "workflowType": {"name": "w", "version": "1"}}}),
        ]);
        assert!(decisions.is_ok(), "{decisions:?}");
    }
}
