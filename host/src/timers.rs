//! The timer loop: sleeps until the earliest durable deadline, then has the writer act on every
//! deadline that has come. Deadlines live in the store, so they survive restarts; one that passed
//! while the server was down fires as soon as it is back. It waits on the service's clock, so a
//! test's manual clock decides when deadlines come.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::archive::Archive;
use crate::clock::{Timestamp, Wait};
use crate::engine::{self, Heard};
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
    /// No deadline to jump to, on a clock that jumps to what the loop waits for: wait for a
    /// new deadline, or look again after the safety net's real-time sleep (a purge may have
    /// come by then).
    AwaitDeadline,
    /// The store failed: pause, then look again.
    Pause,
}

/// Runs until `stop` turns true; writes closed runs to `archive`, if given, before their purge.
pub(crate) async fn run(
    svc: Arc<Service>,
    archive: Option<Arc<Archive>>,
    mut stop: watch::Receiver<bool>,
) {
    let alarm = svc.engine.wakers.timers.clone();
    // What the loop knows it must do next without reading the store, if it knows.
    let mut known = None;
    loop {
        // Registered before reading, so a deadline set meanwhile still wakes this loop.
        let woken = alarm.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        alarm.arm(None);
        let next = match known.take() {
            Some(next) => next,
            None => next(&svc).await,
        };
        let wake_at = match next {
            Next::Fire => match fire_due(&svc, archive.as_deref()).await {
                Ok(()) => continue,
                Err(error) => {
                    tracing::error!(?error, "cannot fire deadlines");
                    None
                }
            },
            Next::SleepUntil(at) => Some(at),
            Next::Pause | Next::AwaitDeadline => None,
        };
        alarm.arm(wake_at);
        let pause = !matches!(next, Next::AwaitDeadline);
        let sleep = async {
            match wake_at {
                Some(at) => svc.clock.sleep_until(at, Wait::Deadline).await,
                None if pause => tokio::time::sleep(PAUSE_AFTER_ERROR).await,
                None => tokio::time::sleep(MAX_SLEEP).await,
            }
        };
        tokio::select! {
            () = &mut woken => {
                // A deadline committed moves the wake-up earlier at most: no need to read
                // what the loop already knows.
                known = match (alarm.heard(), wake_at) {
                    (Heard::Deadline(at), Some(_)) if at <= svc.clock.now() => {
                        Some(Next::Fire)
                    }
                    (Heard::Deadline(at), Some(wake_at)) => Some(Next::SleepUntil(at.min(wake_at))),
                    (Heard::Nothing, Some(wake_at)) => Some(Next::SleepUntil(wake_at)),
                    _ => None,
                };
            }
            // Due, or time for the safety net's look: firing finds what is due, if anything.
            () = sleep => known = wake_at.map(|_| Next::Fire),
            _ = stop.wait_for(|stopped| *stopped) => return,
        }
    }
}

/// Whether a deadline is due, else when to look again.
async fn next(svc: &Service) -> Next {
    let jumps = svc.clock.jumps();
    let read = svc.store.read(move |tx| {
        let earliest = tx.next_deadline(true)?;
        // A jumping clock jumps to the next deadline but a purge or a schedule's time, so that
        // a test's closed runs stay readable and a schedule does not run time on without end;
        // those on the way fire as time passes them.
        let jump_to = match jumps {
            true => tx.next_deadline(false)?,
            false => None,
        };
        Ok::<_, crate::store::StoreError>((earliest, jump_to))
    });
    let now = svc.clock.now();
    let safety_net = now.plus_millis(MAX_SLEEP.as_millis() as u64);
    match read.await {
        Ok((Some(at), _)) if at <= now => Next::Fire,
        // A jumping clock would jump to the safety net's look, and on from there.
        Ok((_, Some(at))) if jumps => Next::SleepUntil(at),
        Ok(_) if jumps => Next::AwaitDeadline,
        Ok((Some(at), _)) => Next::SleepUntil(at.min(safety_net)),
        Ok((None, _)) => Next::SleepUntil(safety_net),
        Err(error) => {
            tracing::error!(%error, "cannot read deadlines");
            Next::Pause
        }
    }
}

/// Acts on (up to a batch of) the deadlines that have come, then writes out the closed runs
/// whose purge waits for the archive.
async fn fire_due(
    svc: &Arc<Service>,
    archive: Option<&Archive>,
) -> Result<(), crate::store::StoreError> {
    let setup = svc.engine.clone();
    svc.store
        .apply(move |tx| engine::fire_due(tx, &setup, BATCH).map(drop))
        .await?;
    if let Some(archive) = archive {
        archive.write_wanted(svc).await;
    }
    Ok(())
}
