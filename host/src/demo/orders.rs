//! The demo's workload: the two examples' types and guests, a batch of orders with known
//! outcomes, and a quote.

use serde_json::{Value, json};
use weft_examples::{order, quote};

use crate::api::Operation;
use crate::model::BindingKind;

/// A guest the demo uploads, and what it is bound to serve.
pub(crate) struct Guest {
    /// Its crate, as `examples::component` names it.
    pub(crate) name: &'static str,
    pub(crate) kind: BindingKind,
    /// The task list it serves.
    pub(crate) serves: &'static str,
}

/// The examples' guests: the order workflow's decider and activity worker, the quote's decider
/// and its function.
pub(crate) const GUESTS: [Guest; 4] = [
    Guest {
        name: "order-decider",
        kind: BindingKind::Decision,
        serves: order::DECISION_TASK_LIST,
    },
    Guest {
        name: "order-activities",
        kind: BindingKind::Activity,
        serves: order::ACTIVITY_TASK_LIST,
    },
    Guest {
        name: "quote-decider",
        kind: BindingKind::Decision,
        serves: quote::DECISION_TASK_LIST,
    },
    Guest {
        name: "price-function",
        kind: BindingKind::Function,
        serves: quote::PRICE_FUNCTION,
    },
];

/// One SWF call that registers part of the example.
pub(crate) struct Registration {
    pub(crate) operation: Operation,
    pub(crate) input: Value,
}

/// The types of both examples, in `domain`: the order workflow and its six activity types, and
/// the quote's two workflow types.
pub(crate) fn registrations(domain: &str) -> Vec<Registration> {
    let quotes = [quote::QUOTE_WORKFLOW, quote::PRICE_ITEM_WORKFLOW].map(|ty| Registration {
        operation: Operation::RegisterWorkflowType,
        input: json!({
            "domain": domain,
            "name": ty.name,
            "version": ty.version,
            "defaultTaskList": {"name": quote::DECISION_TASK_LIST},
            "defaultExecutionStartToCloseTimeout": quote::EXECUTION_TIMEOUT_SECS.to_string(),
            "defaultTaskStartToCloseTimeout": quote::TASK_TIMEOUT_SECS.to_string(),
            "defaultChildPolicy": "TERMINATE",
            "defaultLambdaRole": quote::LAMBDA_ROLE,
        }),
    });
    let workflow = Registration {
        operation: Operation::RegisterWorkflowType,
        input: json!({
            "domain": domain,
            "name": order::WORKFLOW.name,
            "version": order::WORKFLOW.version,
            "defaultTaskList": {"name": order::DECISION_TASK_LIST},
            "defaultExecutionStartToCloseTimeout": order::EXECUTION_TIMEOUT_SECS.to_string(),
            "defaultTaskStartToCloseTimeout": order::TASK_TIMEOUT_SECS.to_string(),
            "defaultChildPolicy": "TERMINATE",
        }),
    };
    let activities = order::ACTIVITIES.iter().map(|ty| Registration {
        operation: Operation::RegisterActivityType,
        input: json!({
            "domain": domain,
            "name": ty.name,
            "version": ty.version,
            "defaultTaskList": {"name": order::ACTIVITY_TASK_LIST},
        }),
    });
    std::iter::once(workflow)
        .chain(activities)
        .chain(quotes)
        .collect()
}

/// `StartWorkflowExecution`'s input for the sample quote.
pub(crate) fn quote_start(domain: &str) -> Value {
    json!({
        "domain": domain,
        "workflowId": "quote-1",
        "workflowType": {
            "name": quote::QUOTE_WORKFLOW.name,
            "version": quote::QUOTE_WORKFLOW.version,
        },
        "input": quote::SAMPLE_QUOTE,
    })
}

/// One order of the batch and what should become of it.
pub(crate) struct Order {
    pub(crate) workflow_id: String,
    /// What kind of order it is, for the report.
    pub(crate) summary: &'static str,
    pub(crate) card_fails: bool,
    pub(crate) cancel: bool,
    input: String,
}

impl Order {
    /// `StartWorkflowExecution`'s input for this order.
    pub(crate) fn start(&self, domain: &str) -> Value {
        json!({
            "domain": domain,
            "workflowId": self.workflow_id,
            "workflowType": {"name": order::WORKFLOW.name, "version": order::WORKFLOW.version},
            "input": self.input,
        })
    }

    /// `SignalWorkflowExecution`'s input asking to cancel this order.
    pub(crate) fn cancel_signal(&self, domain: &str) -> Value {
        json!({
            "domain": domain,
            "workflowId": self.workflow_id,
            "signalName": order::CANCEL_SIGNAL,
        })
    }
}

/// `count` orders: every fourth has a declined card, and the third is cancelled by signal.
pub(crate) fn orders(count: u32) -> Vec<Order> {
    const CUSTOMERS: [&str; 5] = [
        "ada@example.com",
        "grace@example.com",
        "edsger@example.com",
        "barbara@example.com",
        "ken@example.com",
    ];
    const ITEMS: [&str; 6] = ["teapot", "kettle", "mug", "tea", "saucer", "spoon"];
    (1..=count)
        .map(|n| {
            let card_fails = n % 4 == 0;
            let cancel = n == 3;
            let card = if card_fails {
                format!("411111111111{}", order::DECLINED_CARD_SUFFIX)
            } else {
                "4111111111111111".to_owned()
            };
            let i = n as usize;
            let input = json!({
                "order_id": format!("order-{n}"),
                "customer": CUSTOMERS[i % CUSTOMERS.len()],
                "card": card,
                "amount_cents": 1000 + 250 * n,
                "items": [ITEMS[i % ITEMS.len()], ITEMS[(i + 2) % ITEMS.len()]],
                "cancel_window_seconds": 1,
            });
            let summary = match (card_fails, cancel) {
                (true, _) => "declined card",
                (false, true) => "cancelled by signal",
                (false, false) => "good card",
            };
            Order {
                workflow_id: format!("order-{n}"),
                summary,
                card_fails,
                cancel: cancel && !card_fails,
                input: input.to_string(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_batch_has_every_kind_of_order() {
        let orders = orders(12);
        assert_eq!(orders.iter().filter(|o| o.card_fails).count(), 3);
        assert_eq!(orders.iter().filter(|o| o.cancel).count(), 1);
        let declined: Value = serde_json::from_str(&orders[3].input).unwrap();
        assert!(
            declined["card"]
                .as_str()
                .unwrap()
                .ends_with(order::DECLINED_CARD_SUFFIX)
        );
        assert_eq!(registrations("d").len(), 3 + order::ACTIVITIES.len());
    }
}
