//! The worked example every SDK's README shows, run: `guest-sdk/README.md` shows the code
//! between the markers below, and `the_readme_shows_this_code` checks that it does.

use crate::decisions::Decision;
use crate::testing::Environment;
use crate::workflow;

// README: begin
use std::time::Duration;

use weft_guest::workflow::{Either, Error, RetryPolicy, Workflow, join, select};

// The component: one module serving both workflow types.
// weft_guest::workflows!("Order" => order, "Ship" => ship);

async fn fulfil(wf: &Workflow, sku: &str) -> Result<Option<String>, Error> {
    // Two activities at once.
    let reserve = wf.activity("Reserve", "1.0").input(sku);
    let retry = RetryPolicy::attempts(3);
    let charge = wf
        .activity("Charge", "1.0")
        .id("charge")
        .input(sku)
        .retry(retry);
    let (reserved, receipt) = join(reserve, charge).await;
    reserved?;
    // A signal with a timeout: the customer confirms within a day, or the order ships anyway.
    let day = wf.sleep(Duration::from_secs(24 * 3600));
    let confirmed = matches!(select(wf.signal("confirm"), day).await, Either::Left(_));
    // A child workflow, in the same module.
    let ship = wf.child("Ship", "1.0").id(format!("ship-{sku}")).input(sku);
    let tracking = ship.await?.unwrap_or_default();
    let receipt = receipt?.unwrap_or_default();
    Ok(Some(format!("{receipt} {tracking} confirmed={confirmed}")))
}

async fn order(wf: Workflow) -> Result<Option<String>, Error> {
    let sku = wf.input().unwrap_or_default();
    match select(fulfil(&wf, &sku), wf.cancellation()).await {
        Either::Left(done) => done,
        Either::Right(()) => {
            // Asked to cancel: stop the charge if it still runs, and refund it.
            wf.cancel_activity("charge");
            wf.activity("Refund", "1.0").input(sku).await?;
            Err(Error::canceled().with_details("refunded"))
        }
    }
}

async fn ship(wf: Workflow) -> Result<Option<String>, Error> {
    wf.activity("Pack", "1.0")
        .input(wf.input().unwrap_or_default())
        .await
}
// README: end

fn environment() -> Environment {
    Environment::new("Order", "1.0", Some("sku-1"))
        .activity("Reserve", |_| Ok(None))
        .activity("Charge", |_| Ok(Some("receipt-1".into())))
        .activity("Refund", |_| Ok(None))
        .child("Ship", |_| Ok(Some("tracking-1".into())))
}

#[test]
fn the_order_ships_a_day_later_unconfirmed_or_refunds_when_asked_to_cancel() {
    let shipped = environment().run(|h| workflow::run(h, order));
    assert_eq!(
        shipped.result(),
        Some("receipt-1 tracking-1 confirmed=false")
    );
    assert!(shipped.elapsed() >= Duration::from_secs(24 * 3600));

    let confirmed = environment()
        .signal(Duration::from_secs(60), "confirm", None)
        .run(|h| workflow::run(h, order));
    assert_eq!(
        confirmed.result(),
        Some("receipt-1 tracking-1 confirmed=true")
    );

    let canceled = environment()
        .cancel_request(Duration::from_secs(3600))
        .run(|h| workflow::run(h, order));
    let Some(Decision::CancelWorkflowExecution(close)) = &canceled.close else {
        panic!("{:?}", canceled.close)
    };
    assert_eq!(close.details.as_deref(), Some("refunded"));
    assert_eq!(canceled.events("ChildWorkflowExecutionCompleted").len(), 0);

    let packed = Environment::new("Ship", "1.0", Some("sku-1"))
        .activity("Pack", |sku| Ok(sku.map(|s| format!("packed {s}"))))
        .run(|h| workflow::run(h, ship));
    assert_eq!(packed.result(), Some("packed sku-1"));
}

#[test]
fn the_readme_shows_this_code() {
    let this = include_str!("worked_example.rs");
    let code = this.split("// README: begin\n").nth(1).unwrap();
    let code = code.split("// README: end").next().unwrap();
    let shown = code.replace("// weft_guest::workflows!(", "weft_guest::workflows!(");
    let readme = include_str!("../../README.md");
    assert!(
        readme.contains(&format!("```rust\n{shown}```")),
        "guest-sdk/README.md must show the worked example as guest-sdk/src/tests/worked_example.rs has it:\n{shown}"
    );
}
