//! The throttle loop: when a task list's rate held a poll back, offers the list's tasks to the
//! polls waiting there once its next token comes (`engine::Throttled`). It waits on the
//! service's clock, so a test's manual clock decides when tokens come.

use std::sync::Arc;

use tokio::sync::watch;

use crate::clock::Wait;
use crate::ops::Service;
use crate::ops::controls::offer_list;

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
            offer_list(&svc, list, "throttled").await;
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
