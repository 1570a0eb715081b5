//! What a task list's stored controls let a claim take (`model::task_lists`): its rate's next
//! token and its cap's started tasks (`stored_gate`), and the key whose turn it is on a keyed
//! list (`pop_keyed`). The claims themselves are in `claims.rs`.

use crate::model::{Activity, DecisionTask, Lambda, ListControl, ListKey, TaskKind, keyed_queue};
use crate::store::{ItemReads, StoreError};

use super::Engine;

/// Takes the first task of the keyed list `list` from the queue of the key whose turn it is
/// (`model::Shares`); once its fairness is removed and no keyed task is left, the list is
/// done with keys.
pub(super) fn pop_keyed(
    eng: &mut Engine<'_, '_>,
    kind: TaskKind,
    list: &str,
    control: &mut ListControl,
) -> Result<Option<(u64, u64)>, StoreError> {
    let mut keys = eng.tx.keyed_queues(eng.domain, kind, list)?;
    // The key-less tasks share as one more key.
    keys.insert(0, String::new());
    let shares = control.shares.get_or_insert_default();
    while let Some(key) = shares.next(&keys).map(str::to_owned) {
        let Some(task) = eng
            .tx
            .pop_task(eng.domain, kind, &keyed_queue(list, &key))?
        else {
            keys.retain(|k| *k != key);
            continue;
        };
        let weight = control.fairness.as_ref().map_or(1, |f| f.weight(&key));
        shares.handed_out(&key, weight, &keys);
        let (metrics, list) = (eng.setup.metrics.clone(), list.to_owned());
        eng.tx.after_commit(Box::new(move || {
            metrics.own.key_handed_out(kind, &list, &key);
        }));
        return Ok(Some(task));
    }
    if control.fairness.is_none() {
        control.shares = None;
    }
    Ok(None)
}

/// Whether the list's rate and cap, read from the store, let a task be handed out now: `Some`
/// with the list's controls, to count the task in; `None` if not now. A rate that holds the
/// claim back tells the throttle loop when its next token comes; a cap's polls are offered the
/// list again as its started tasks end ([`Engine::record`]).
pub(super) fn stored_gate(
    eng: &mut Engine<'_, '_>,
    kind: TaskKind,
    list: &str,
) -> Result<Option<(ListKey, ListControl)>, StoreError> {
    let key = (eng.domain, kind, list.to_owned());
    let mut control = eng.tx.list_control(&key)?.unwrap_or_default();
    if let Some(at) = control.next_token(eng.tx.now()) {
        let throttled = eng.setup.wakers.throttled.clone();
        let metrics = eng.setup.metrics.clone();
        eng.tx.after_commit(Box::new(move || {
            metrics.own.list_throttled(kind, &key.2, "rate");
            throttled.wake_at(key, at);
        }));
        return Ok(None);
    }
    if control.is_full() {
        // Forget the starts that ended: their tasks completed, failed, timed out or closed.
        let mut running = Vec::with_capacity(control.running.len());
        for start in std::mem::take(&mut control.running) {
            if still_started(eng, kind, start)? {
                running.push(start);
            }
        }
        control.running = running;
        if control.is_full() {
            let metrics = eng.setup.metrics.clone();
            eng.tx.after_commit(Box::new(move || {
                metrics.own.list_throttled(kind, &key.2, "concurrency");
            }));
            return Ok(None);
        }
    }
    Ok(Some((key, control)))
}

/// Whether the task start `[run, scheduled, started]` of `kind` is still its task's current one.
fn still_started(
    eng: &Engine<'_, '_>,
    kind: TaskKind,
    [seq, scheduled, started]: [u64; 3],
) -> Result<bool, StoreError> {
    let Some(run) = eng.open_run(seq)? else {
        return Ok(false);
    };
    Ok(match kind {
        TaskKind::Decision => matches!(
            run.decision,
            DecisionTask::Started { scheduled: s, started: t, .. } if (s, t) == (scheduled, started)
        ),
        TaskKind::Activity => (eng.tx.open_item::<Activity>(seq, scheduled)?)
            .is_some_and(|a| a.state.is_start(started)),
        TaskKind::Function => {
            (eng.tx.open_item::<Lambda>(seq, scheduled)?).is_some_and(|l| l.state.is_start(started))
        }
    })
}
