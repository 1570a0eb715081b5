//! The demo's workload: the two examples' types and guests, a batch of orders with known
//! outcomes, and a quote.

use serde_json::json;
use weft_examples::{order, quote};

use crate::model::{
    ActivityKind, ActivityTypeConfiguration, BindingKind, ChildPolicy, TaskList, Timeout, TypeKind,
    TypeName, WorkflowKind, WorkflowTypeConfiguration,
};
use crate::ops::executions::{SignalInput, StartInput};
use crate::ops::types::RegisterTypeInput;

/// A guest the demo uploads, and what it is bound to serve.
pub(crate) struct Guest {
    /// Its crate, as `examples::component` names it.
    pub(crate) name: &'static str,
    pub(crate) kind: BindingKind,
    /// The task list it serves.
    pub(crate) serves: &'static str,
}

/// The examples' guests: the order workflow's decider (written as async code, `order-workflow`)
/// and activity worker, the quote's decider and its function.
pub(crate) const GUESTS: [Guest; 4] = [
    Guest {
        name: "order-workflow",
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
pub(crate) enum Registration {
    /// `RegisterWorkflowType`.
    Workflow(RegisterTypeInput<WorkflowKind>),
    /// `RegisterActivityType`.
    Activity(RegisterTypeInput<ActivityKind>),
}

/// The types of both examples, in `domain`: the order workflow and its six activity types, and
/// the quote's two workflow types.
pub(crate) fn registrations(domain: &str) -> Vec<Registration> {
    let quotes = [quote::QUOTE_WORKFLOW, quote::PRICE_ITEM_WORKFLOW].map(|ty| {
        Registration::Workflow(register(
            domain,
            ty,
            WorkflowTypeConfiguration {
                default_task_list: Some(task_list(quote::DECISION_TASK_LIST)),
                default_execution_start_to_close_timeout: seconds(quote::EXECUTION_TIMEOUT_SECS),
                default_task_start_to_close_timeout: seconds(quote::TASK_TIMEOUT_SECS),
                default_child_policy: Some(ChildPolicy::Terminate),
                default_lambda_role: Some(quote::LAMBDA_ROLE.to_owned()),
                ..Default::default()
            },
        ))
    });
    let workflow = Registration::Workflow(register(
        domain,
        order::WORKFLOW,
        WorkflowTypeConfiguration {
            default_task_list: Some(task_list(order::DECISION_TASK_LIST)),
            default_execution_start_to_close_timeout: seconds(order::EXECUTION_TIMEOUT_SECS),
            default_task_start_to_close_timeout: seconds(order::TASK_TIMEOUT_SECS),
            default_child_policy: Some(ChildPolicy::Terminate),
            ..Default::default()
        },
    ));
    let activities = order::ACTIVITIES.iter().map(|&ty| {
        Registration::Activity(register(
            domain,
            ty,
            ActivityTypeConfiguration {
                default_task_list: Some(task_list(order::ACTIVITY_TASK_LIST)),
                ..Default::default()
            },
        ))
    });
    std::iter::once(workflow)
        .chain(activities)
        .chain(quotes)
        .collect()
}

/// `Register*Type`'s input for type `ty` in `domain` with defaults `config`.
fn register<K: TypeKind>(
    domain: &str,
    ty: weft_examples::TypeName,
    config: K::Config,
) -> RegisterTypeInput<K> {
    RegisterTypeInput::new(domain, ty.name, ty.version, &config)
}

/// A default timeout of `secs` seconds.
fn seconds(secs: u64) -> Option<Timeout> {
    u32::try_from(secs).ok().map(Timeout::Seconds)
}

fn task_list(name: &str) -> TaskList {
    TaskList {
        name: name.to_owned(),
    }
}

/// `StartWorkflowExecution`'s input for a run of `ty` as `workflow_id` in `domain`, with the
/// type's defaults.
fn start(
    domain: &str,
    workflow_id: &str,
    ty: weft_examples::TypeName,
    input: String,
) -> StartInput {
    StartInput {
        domain: domain.to_owned(),
        workflow_id: workflow_id.into(),
        workflow_type: TypeName {
            name: ty.name.to_owned(),
            version: ty.version.to_owned(),
        },
        task_list: None,
        task_priority: None,
        input: Some(input),
        execution_start_to_close_timeout: None,
        tag_list: None,
        task_start_to_close_timeout: None,
        child_policy: None,
        lambda_role: None,
    }
}

/// `StartWorkflowExecution`'s input for the sample quote.
pub(crate) fn quote_start(domain: &str) -> StartInput {
    let input = quote::SAMPLE_QUOTE.to_owned();
    start(domain, QUOTE_ID, quote::QUOTE_WORKFLOW, input)
}

/// The workflow id of the sample quote.
pub(crate) const QUOTE_ID: &str = "quote-1";

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
    pub(crate) fn start(&self, domain: &str) -> StartInput {
        start(
            domain,
            &self.workflow_id,
            order::WORKFLOW,
            self.input.clone(),
        )
    }

    /// `SignalWorkflowExecution`'s input asking to cancel this order.
    pub(crate) fn cancel_signal(&self, domain: &str) -> SignalInput {
        SignalInput {
            domain: domain.to_owned(),
            workflow_id: self.workflow_id.as_str().into(),
            run_id: None,
            signal_name: order::CANCEL_SIGNAL.to_owned(),
            input: None,
        }
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
        let declined: serde_json::Value = serde_json::from_str(&orders[3].input).unwrap();
        assert!(
            declined["card"]
                .as_str()
                .unwrap()
                .ends_with(order::DECLINED_CARD_SUFFIX)
        );
        assert_eq!(registrations("d").len(), 3 + order::ACTIVITIES.len());
    }
}
