//! What other processes sharing the database committed, acted on here: tasks they queued are
//! offered to this process's waiting polls, deadlines they set wake the timer loop, binding
//! changes wake the in-process workers' supervisor, and task lists' controls are read again.
//!
//! Signals only make this happen sooner, and PostgreSQL delivers every notice to a connection
//! that listens; when it may have missed some, the loop is told ([`Signal::Resync`]) and looks
//! at everything. One race remains: a task queued elsewhere just as a poll here found its list
//! empty, whose signal arrives before that poll is registered as waiting. The loop keeps such
//! signals for [`MISSED_FOR`], and every [`RECHECK`] offers to lists that now have a waiting
//! poll. An idle node so sends the database nothing of its own.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::watch;

use crate::engine::dispatch::ListKey;
use crate::ops::Service;
use crate::ops::controls::{offer_list, refresh_controls};
use crate::store::Signal;

/// How often the loop offers to lists whose signal came before their poll. Real time.
const RECHECK: Duration = Duration::from_secs(1);

/// How long a signal for a list no poll here waits on is kept.
const MISSED_FOR: Duration = Duration::from_secs(5);

/// The most such signals kept: past it, a node that serves many lists forgets them all.
const MOST_MISSED: usize = 10_000;

/// Runs until `stop` turns true or the signals end.
pub(crate) async fn run(
    svc: Arc<Service>,
    mut signals: UnboundedReceiver<Signal>,
    mut stop: watch::Receiver<bool>,
) {
    let mut recheck = tokio::time::interval(RECHECK);
    recheck.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let dispatch = svc.engine.wakers.dispatch.clone();
    // Lists a task was queued on while no poll here waited there, and when.
    let mut missed: HashMap<ListKey, Instant> = HashMap::new();
    loop {
        // Whether to read task lists' controls again (not within the select: its output
        // holds what `stop` lends).
        let mut refresh = false;
        let lists = tokio::select! {
            signal = signals.recv() => match signal {
                Some(Signal::Queued { domain, kind, list }) => {
                    // A key's queue (`model::keyed_queue`) is its list's: polls wait there.
                    let list = crate::model::queue_key(&list).0.to_owned();
                    let key = (domain, kind, list);
                    if !dispatch.is_waited_on(&key) {
                        if missed.len() >= MOST_MISSED {
                            missed.clear();
                        }
                        missed.insert(key, Instant::now());
                        continue;
                    }
                    vec![key]
                }
                Some(Signal::Deadline(Some(at))) => {
                    svc.engine.wakers.timers.deadline(at);
                    continue;
                }
                Some(Signal::Deadline(None)) => {
                    svc.engine.wakers.timers.look();
                    continue;
                }
                Some(Signal::Bindings) => {
                    svc.bindings_changed.send_replace(());
                    continue;
                }
                Some(Signal::Controls) => {
                    refresh = true;
                    Vec::new()
                }
                Some(Signal::Resync) => {
                    svc.engine.wakers.timers.look();
                    svc.bindings_changed.send_replace(());
                    refresh = true;
                    missed.clear();
                    dispatch.waiting()
                }
                None => return,
            },
            _ = recheck.tick() => {
                missed.retain(|_, at| at.elapsed() < MISSED_FOR);
                let waited: Vec<ListKey> =
                    missed.keys().filter(|key| dispatch.is_waited_on(key)).cloned().collect();
                for key in &waited {
                    missed.remove(key);
                }
                waited
            }
            _ = stop.wait_for(|stopped| *stopped) => return,
        };
        if refresh {
            refresh_controls(&svc).await;
        }
        if !lists.is_empty() {
            offer(&svc, lists).await;
        }
    }
}

/// Offers what is queued on `lists` to the polls waiting there, a writer job for each list,
/// submitted together: the writer commits them in one batch, and may take their first tasks
/// ahead in one round trip (`About::Offer`).
async fn offer(svc: &Service, lists: Vec<ListKey>) {
    join_all(
        lists
            .into_iter()
            .map(|list| offer_list(svc, list, "relayed")),
    )
    .await;
}
