/// The order's three ends, run in the testing `Environment`.
#[cfg(test)]
mod tests {
    use std::time::Duration;

    use weft_guest::Decision;
    use weft_guest::testing::Environment;
    use weft_guest::workflow;

    use super::order;

    fn an_order() -> Environment {
        Environment::new("Order", "1.0", Some("sku-1"))
            .activity("Reserve", |_| Ok(Some("reserved".into())))
            .activity("Charge", |_| Ok(Some("receipt-1".into())))
            .activity("Refund", |_| Ok(Some("refunded".into())))
            .child("Ship", |_| Ok(Some("tracking-1".into())))
    }

    #[test]
    fn unconfirmed_it_ships_a_day_later() {
        let run = an_order().run(|h| workflow::run(h, order));
        assert_eq!(run.result(), Some("receipt-1 tracking-1 confirmed=false"));
        assert!(run.elapsed() >= Duration::from_secs(24 * 3600), "{:?}", run.elapsed());
    }

    #[test]
    fn a_signal_confirms_it() {
        let run = an_order()
            .signal(Duration::from_secs(60), "confirm", None)
            .run(|h| workflow::run(h, order));
        assert_eq!(run.result(), Some("receipt-1 tracking-1 confirmed=true"));
        assert!(run.elapsed() < Duration::from_secs(3600), "{:?}", run.elapsed());
    }

    #[test]
    fn a_cancel_in_the_wait_refunds_the_charge() {
        let run = an_order()
            .cancel_request(Duration::from_secs(3600))
            .run(|h| workflow::run(h, order));
        let Some(Decision::CancelWorkflowExecution(close)) = &run.close else {
            panic!("{:?}", run.close)
        };
        assert_eq!(close.details.as_deref(), Some("refunded"));
        // Reserve, Charge and Refund; no shipping.
        assert_eq!(run.events("ActivityTaskCompleted").len(), 3);
        assert!(run.events("ChildWorkflowExecutionCompleted").is_empty());
    }
}
