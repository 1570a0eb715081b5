//! The decider of the quote example, for its two workflow types
//! (`weft_examples::quote`):
//!
//! - `QuoteWorkflow`, the parent: its input is `{"items": [{"sku", "quantity"}, ...]}`. It starts
//!   one `PriceItem` child per line item (workflow id `<parent id>-item-<n>`), passing on its
//!   Lambda role; once every child has closed it completes with
//!   `{"lines": [...], "total_cents"}`, or fails if any child did not complete.
//! - `PriceItem`, the child: it runs the function `price` on its item and completes with its
//!   result, or fails with the function's failure.

use serde_json::{Value, json};
use weft_examples::quote::{
    DECISION_TASK_LIST, EXECUTION_TIMEOUT_SECS, PRICE_FUNCTION, PRICE_ITEM_WORKFLOW,
    PRICE_TIMEOUT_SECS, QUOTE_WORKFLOW, TASK_TIMEOUT_SECS,
};
use weft_guest::types::ChildPolicy;
use weft_guest::{Decision, History, Status};

weft_guest::decider!(decide);

/// The id of the child's one function call.
const PRICE_ID: &str = "price";

/// Decides for either workflow type of the example.
pub fn decide(history: &History) -> Result<Vec<Decision>, String> {
    let workflow_type = history.workflow_type();
    match workflow_type.name.as_str() {
        name if name == QUOTE_WORKFLOW.name => quote(history),
        name if name == PRICE_ITEM_WORKFLOW.name => Ok(price_item(history)),
        other => Err(format!(
            "the quote decider does not know the workflow type {other}"
        )),
    }
}

/// The parent: one child per line item, then the total.
fn quote(history: &History) -> Result<Vec<Decision>, String> {
    let input: Value = serde_json::from_str(history.input().unwrap_or_default())
        .map_err(|e| format!("the quote is not JSON: {e}"))?;
    let items = input["items"].as_array().ok_or("the quote has no items")?;
    let parent = &history.workflow_execution().workflow_id;
    let role = history.started().and_then(|s| s.lambda_role.clone());

    let mut decisions = Vec::new();
    let mut lines = Vec::new();
    let mut failures = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let child_id = format!("{parent}-item-{n}");
        match history.child(&child_id) {
            None => {
                let mut child = Decision::start_child(
                    &child_id,
                    PRICE_ITEM_WORKFLOW.name,
                    PRICE_ITEM_WORKFLOW.version,
                )
                .input(item.to_string())
                .task_list(DECISION_TASK_LIST)
                .execution_start_to_close(EXECUTION_TIMEOUT_SECS)
                .task_start_to_close(TASK_TIMEOUT_SECS)
                .child_policy(ChildPolicy::Terminate);
                if let Some(role) = &role {
                    child = child.lambda_role(role);
                }
                decisions.push(child.into());
            }
            Some(Status::Completed(line)) => {
                lines.push(
                    serde_json::from_str::<Value>(line.unwrap_or("null")).unwrap_or_default(),
                );
            }
            Some(status) if status.is_open() => {}
            Some(status) => failures.push(format!("item {n}: {}", describe(&status))),
        }
    }
    let all_closed = decisions.is_empty() && lines.len() + failures.len() == items.len();
    if all_closed {
        decisions.push(if failures.is_empty() {
            let total: u64 = lines.iter().filter_map(|l| l["line_cents"].as_u64()).sum();
            Decision::complete(Some(
                json!({ "lines": lines, "total_cents": total }).to_string(),
            ))
        } else {
            Decision::fail("pricing failed", Some(failures.join("; ")))
        });
    }
    Ok(decisions)
}

/// The child: the function `price` on its item, and its result.
fn price_item(history: &History) -> Vec<Decision> {
    match history.lambda(PRICE_ID) {
        None => {
            let mut call = Decision::schedule_lambda(PRICE_ID, PRICE_FUNCTION)
                .start_to_close(PRICE_TIMEOUT_SECS);
            if let Some(input) = history.input() {
                call = call.input(input);
            }
            vec![call.into()]
        }
        Some(Status::Completed(line)) => vec![Decision::complete(line.map(str::to_owned))],
        Some(status) if status.is_open() => vec![],
        Some(status) => vec![Decision::fail("pricing failed", Some(describe(&status)))],
    }
}

/// A closed child's or function's end, in words.
fn describe(status: &Status<'_>) -> String {
    match status {
        Status::Failed { reason, details } => match (reason, details) {
            (Some(reason), Some(details)) => format!("{reason}: {details}"),
            (reason, details) => reason.or(*details).unwrap_or("failed").to_string(),
        },
        Status::TimedOut(timeout) => format!("timed out ({timeout})"),
        Status::Canceled(_) => "canceled".into(),
        Status::Terminated => "terminated".into(),
        Status::NotStarted(cause) => format!("could not start ({cause})"),
        open => format!("{open:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_examples::quote::{LAMBDA_ROLE, SAMPLE_QUOTE, SAMPLE_UNKNOWN_ITEM_QUOTE};
    use weft_guest::testing::HistoryBuilder;

    fn quote_history(input: &str) -> HistoryBuilder {
        let mut h = HistoryBuilder::new(QUOTE_WORKFLOW.name, QUOTE_WORKFLOW.version, Some(input));
        h.execution("quote-1", "run-1")
            .started_with(|s| s.lambda_role = Some(LAMBDA_ROLE.into()));
        h
    }

    #[test]
    fn the_quote_starts_one_child_per_item_and_totals_their_prices() {
        let mut h = quote_history(SAMPLE_QUOTE);
        let decisions = h.decide(decide).unwrap();
        let children: Vec<_> = decisions
            .iter()
            .map(|d| match d {
                Decision::StartChildWorkflowExecution(c) => c,
                other => panic!("expected children only: {other:?}"),
            })
            .collect();
        assert_eq!(children.len(), 2);
        assert_eq!(children[0].workflow_id, "quote-1-item-0");
        let item: Value = serde_json::from_str(children[1].input.as_deref().unwrap()).unwrap();
        assert_eq!(item, json!({"sku": "tea", "quantity": 3}));
        assert_eq!(children[1].lambda_role.as_deref(), Some(LAMBDA_ROLE));
        assert_eq!(
            children[1].task_list.as_ref().unwrap().name,
            DECISION_TASK_LIST
        );

        h.child_completed("quote-1-item-1", Some(r#"{"line_cents":1350}"#));
        assert_eq!(
            h.decide(decide).unwrap(),
            vec![],
            "waits for the other child"
        );
        h.child_completed("quote-1-item-0", Some(r#"{"line_cents":2500}"#));
        let decisions = h.decide(decide).unwrap();
        let [Decision::CompleteWorkflowExecution(done)] = &decisions[..] else {
            panic!("expected completion: {decisions:?}");
        };
        let result: Value = serde_json::from_str(done.result.as_deref().unwrap()).unwrap();
        assert_eq!(result["total_cents"], 3850);
        assert_eq!(
            result["lines"][0]["line_cents"], 2500,
            "lines keep the items' order"
        );
    }

    #[test]
    fn a_failed_child_fails_the_quote() {
        let mut h = quote_history(SAMPLE_UNKNOWN_ITEM_QUOTE);
        h.decide(decide).unwrap();
        h.child_completed("quote-1-item-0", Some(r#"{"line_cents":2500}"#));
        h.child_failed(
            "quote-1-item-1",
            Some("pricing failed"),
            Some("unknown sku: samovar"),
        );
        assert_eq!(
            h.decide(decide).unwrap(),
            vec![Decision::fail(
                "pricing failed",
                Some("item 1: pricing failed: unknown sku: samovar".into())
            )]
        );
    }

    #[test]
    fn the_child_runs_the_price_function_and_completes_with_its_result() {
        let item = r#"{"sku":"tea","quantity":3}"#;
        let mut h = HistoryBuilder::new(
            PRICE_ITEM_WORKFLOW.name,
            PRICE_ITEM_WORKFLOW.version,
            Some(item),
        );
        assert_eq!(
            h.decide(decide).unwrap(),
            vec![
                Decision::schedule_lambda(PRICE_ID, PRICE_FUNCTION)
                    .start_to_close(PRICE_TIMEOUT_SECS)
                    .input(item)
                    .into()
            ]
        );
        h.lambda_completed(PRICE_ID, Some(r#"{"line_cents":1350}"#));
        assert_eq!(
            h.decide(decide).unwrap(),
            vec![Decision::complete(Some(r#"{"line_cents":1350}"#.into()))]
        );
    }

    #[test]
    fn a_failed_function_fails_the_child() {
        let mut h = HistoryBuilder::new(
            PRICE_ITEM_WORKFLOW.name,
            PRICE_ITEM_WORKFLOW.version,
            Some("{}"),
        );
        h.decide(decide).unwrap();
        h.lambda_failed(PRICE_ID, Some("unknown sku"), Some("samovar"));
        assert_eq!(
            h.decide(decide).unwrap(),
            vec![Decision::fail(
                "pricing failed",
                Some("unknown sku: samovar".into())
            )]
        );
    }

    #[test]
    fn other_workflow_types_and_bad_input_fail_the_decision_task() {
        let mut h = HistoryBuilder::new("Other", "1.0", None);
        assert!(h.decide(decide).is_err());
        let mut h = quote_history(r#"{"lines":[]}"#);
        assert_eq!(h.decide(decide), Err("the quote has no items".to_string()));
    }

    #[test]
    fn an_empty_quote_completes_at_once() {
        let mut h = quote_history(r#"{"items":[]}"#);
        let decisions = h.decide(decide).unwrap();
        assert!(matches!(
            decisions[..],
            [Decision::CompleteWorkflowExecution(_)]
        ));
    }
}
