//! The timer loop: sleeps until the earliest durable deadline, then has the writer act on every
//! deadline that has come. Deadlines live in the store, so they survive restarts; one that passed
//! while the server was down fires as soon as it is back.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::engine;
use crate::ops::Service;

/// How many due deadlines one writer job handles, so one job stays short.
const BATCH: usize = 256;

/// The longest sleep between two looks at the store: a safety net, since every new deadline
/// wakes the loop anyway.
const MAX_SLEEP: Duration = Duration::from_secs(60);

/// Runs until `stop` turns true.
pub(crate) async fn run(svc: Arc<Service>, mut stop: watch::Receiver<bool>) {
    loop {
        // Registered before reading, so a deadline set meanwhile still wakes this loop.
        let woken = svc.engine.wakers.timers.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        let sleep = match svc.store.next_deadline() {
            Ok(Some(at)) if at <= svc.clock.now() => match fire_due(&svc).await {
                Ok(()) => continue,
                Err(error) => {
                    tracing::error!(?error, "cannot fire deadlines");
                    Duration::from_secs(1)
                }
            },
            Ok(Some(at)) => {
                let wait = at.as_millis() - svc.clock.now().as_millis();
                Duration::from_millis(u64::try_from(wait).unwrap_or(0)).min(MAX_SLEEP)
            }
            Ok(None) => MAX_SLEEP,
            Err(error) => {
                tracing::error!(%error, "cannot read deadlines");
                Duration::from_secs(1)
            }
        };
        tokio::select! {
            () = &mut woken => {}
            () = tokio::time::sleep(sleep) => {}
            _ = stop.wait_for(|stopped| *stopped) => return,
        }
    }
}

/// Acts on (up to a batch of) the deadlines that have come.
async fn fire_due(svc: &Arc<Service>) -> Result<(), crate::store::StoreError> {
    let setup = svc.engine.clone();
    svc.store
        .apply(move |tx| engine::fire_due(tx, &setup, BATCH).map(drop))
        .await
}
