//! What other processes sharing the database committed, acted on here: tasks they queued are
//! offered to this process's waiting polls, deadlines they set wake the timer loop, and binding
//! changes wake the in-process workers' supervisor.
//!
//! Signals only make this happen sooner. Every [`RECHECK`] the loop also offers whatever is
//! queued on the lists this process's polls wait on, and has the timer loop look again, so a
//! lost signal delays work by at most that long and loses none.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::watch;

use crate::dispatch::ListKey;
use crate::engine;
use crate::ops::Service;
use crate::store::Signal;

/// How often the loop looks for what signals may have missed. Real time: it is the database's.
const RECHECK: Duration = Duration::from_secs(1);

/// Runs until `stop` turns true or the signals end.
pub(crate) async fn run(
    svc: Arc<Service>,
    mut signals: UnboundedReceiver<Signal>,
    mut stop: watch::Receiver<bool>,
) {
    let mut recheck = tokio::time::interval(RECHECK);
    recheck.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let dispatch = svc.engine.wakers.dispatch.clone();
    loop {
        let lists = tokio::select! {
            signal = signals.recv() => match signal {
                Some(Signal::Queued { domain, kind, list }) => {
                    let key = (domain, kind, list);
                    if !dispatch.is_waited_on(&key) {
                        continue;
                    }
                    vec![key]
                }
                Some(Signal::Deadline) => {
                    svc.engine.wakers.timers.notify_one();
                    continue;
                }
                Some(Signal::Bindings) => {
                    svc.bindings_changed.send_replace(());
                    continue;
                }
                Some(Signal::Resync) => {
                    svc.engine.wakers.timers.notify_one();
                    svc.bindings_changed.send_replace(());
                    dispatch.waiting()
                }
                None => return,
            },
            _ = recheck.tick() => {
                svc.engine.wakers.timers.notify_one();
                dispatch.waiting()
            }
            _ = stop.wait_for(|stopped| *stopped) => return,
        };
        if !lists.is_empty() {
            offer(&svc, lists).await;
        }
    }
}

/// Offers what is queued on `lists` to the polls waiting there, in one writer job.
async fn offer(svc: &Service, lists: Vec<ListKey>) {
    let setup = svc.engine.clone();
    let offered = svc
        .store
        .apply(move |tx| {
            for list in lists.iter().cloned() {
                engine::offer(tx, &setup, list)?;
            }
            Ok(())
        })
        .await;
    if let Err(error) = offered {
        tracing::warn!(%error, "cannot offer queued tasks to waiting polls");
    }
}
