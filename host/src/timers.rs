//! The timer loop: sleeps until the earliest durable deadline, then has the writer act on every
//! deadline that has come. Deadlines live in the store, so they survive restarts; one that passed
//! while the server was down fires as soon as it is back. It waits on the service's clock, so a
//! test's manual clock decides when deadlines come.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::clock::{Timestamp, Wait};
use crate::engine;
use crate::ops::Service;

/// How many due deadlines one writer job handles, so one job stays short.
const BATCH: usize = 256;

/// The longest sleep between two looks at the store: a safety net, since every new deadline
/// wakes the loop anyway.
const MAX_SLEEP: Duration = Duration::from_secs(60);

/// How long the loop pauses after the store failed it: real time, as it is the store's.
const PAUSE_AFTER_ERROR: Duration = Duration::from_secs(1);

/// What the loop does next.
enum Next {
    /// Fire what is due, then look again.
    Fire,
    /// Sleep until this time on the clock, or until a new deadline.
    SleepUntil(Timestamp),
    /// The store failed: pause, then look again.
    Pause,
}

/// Runs until `stop` turns true.
pub(crate) async fn run(svc: Arc<Service>, mut stop: watch::Receiver<bool>) {
    loop {
        // Registered before reading, so a deadline set meanwhile still wakes this loop.
        let woken = svc.engine.wakers.timers.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        let wake_at = match next(&svc).await {
            Next::Fire => match fire_due(&svc).await {
                Ok(()) => continue,
                Err(error) => {
                    tracing::error!(?error, "cannot fire deadlines");
                    None
                }
            },
            Next::SleepUntil(at) => Some(at),
            Next::Pause => None,
        };
        let sleep = async {
            match wake_at {
                Some(at) => svc.clock.sleep_until(at, Wait::Deadline).await,
                None => tokio::time::sleep(PAUSE_AFTER_ERROR).await,
            }
        };
        tokio::select! {
            () = &mut woken => {}
            () = sleep => {}
            _ = stop.wait_for(|stopped| *stopped) => return,
        }
    }
}

/// Whether a deadline is due, else when to look again.
async fn next(svc: &Service) -> Next {
    let earliest = svc.store.read(|tx| tx.next_deadline()).await;
    let now = svc.clock.now();
    let safety_net = now.plus_millis(MAX_SLEEP.as_millis() as u64);
    match earliest {
        Ok(Some(at)) if at <= now => Next::Fire,
        Ok(Some(at)) => Next::SleepUntil(at.min(safety_net)),
        Ok(None) => Next::SleepUntil(safety_net),
        Err(error) => {
            tracing::error!(%error, "cannot read deadlines");
            Next::Pause
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
