//! The throttle loop: when a task list's rate held a poll back, offers the list's tasks to the
//! polls waiting there once its next token comes (`engine::Throttled`). It waits on the
//! service's clock, so a test's manual clock decides when tokens come.

use std::sync::Arc;

use tokio::sync::watch;

use crate::clock::Wait;
use crate::engine;
use crate::ops::Service;
use crate::store::{About, Reads, StoreError};

/// Runs until `stop` turns true.
pub(crate) async fn run(svc: Arc<Service>, mut stop: watch::Receiver<bool>) {
    let throttled = svc.engine.wakers.throttled.clone();
    loop {
        // Registered before looking, so a list added meanwhile still wakes this loop.
        let changed = throttled.changed();
        tokio::pin!(changed);
        changed.as_mut().enable();
        let (due, next) = throttled.take_due(svc.clock.now());
        for list in due {
            offer(&svc, list).await;
        }
        let sleep = async {
            match next {
                Some(at) => svc.clock.sleep_until(at, Wait::Deadline).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = &mut changed => {}
            () = sleep => {}
            _ = stop.wait_for(|stopped| *stopped) => return,
        }
    }
}

/// Offers what is queued on `list` to the polls waiting there.
async fn offer(svc: &Service, list: engine::dispatch::ListKey) {
    let setup = svc.engine.clone();
    let about = About::Offer {
        domain: list.0,
        kind: list.1,
        list: list.2.clone(),
    };
    let nothing_to_check = |_: &dyn Reads| Ok::<_, StoreError>(());
    let offered = svc
        .store
        .write_about(about, nothing_to_check, move |tx, ()| {
            engine::offer(tx, &setup, list)
        })
        .await;
    if let Err(error) = offered {
        tracing::warn!(%error, "cannot offer a throttled list's tasks to waiting polls");
    }
}
