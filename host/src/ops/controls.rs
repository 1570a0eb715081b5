//! Task lists' controls (`/v1/domains/{domain}/task-lists/{kind}/{name}/pause`, `.../resume`
//! and `.../limit`; see `model::task_lists`): changed in the store, then read again into every
//! node's memory, where claims consult them.

use crate::engine::offer;
use crate::fault::Fault;
use crate::model::{
    BindingKind, Fairness, ListControl, ListKey, ListLimitReport, ListLimitRequest,
    ListPauseReport, ListPauseRequest, MAX_LIST_CONCURRENCY, MAX_LIST_RATE, MAX_WEIGHT,
    MAX_WEIGHTED_KEYS, Pause, TaskKind, is_control,
};
use crate::store::{About, Reads, StoreError};

use super::pauses::{caller, check_reason, no_reason};
use super::{Ctx, Service, known_domain};

/// Pauses the list `name` of `kind` in `domain`.
pub(crate) async fn pause_list(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    (kind, name): (BindingKind, String),
    input: ListPauseRequest,
) -> Result<ListPauseReport, Fault> {
    check_reason(input.reason.as_deref())?;
    let by = caller(ctx, input.identity);
    let reason = input.reason;
    let list = (kind, name);
    let (name, control, changed) = change(svc, ctx, domain, list, move |control, now| {
        if control.paused.is_some() {
            return false;
        }
        control.paused = Some(Pause {
            at: now,
            by,
            reason,
        });
        true
    })
    .await?;
    Ok(pause_report(kind, name, control, changed))
}

fn pause_report(
    kind: BindingKind,
    name: String,
    control: ListControl,
    changed: bool,
) -> ListPauseReport {
    ListPauseReport {
        kind,
        name,
        paused: control.paused,
        changed,
    }
}

/// Sets (or, with `null`, removes) the rate, the concurrency cap and the fairness keys of the
/// list `name` of `kind` in `domain`, each as given; a member left out stays as it is.
pub(crate) async fn limit_list(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    (kind, name): (BindingKind, String),
    input: ListLimitRequest,
) -> Result<ListLimitReport, Fault> {
    check_limit(&input)?;
    let (name, control, changed) = change(svc, ctx, domain, (kind, name), move |control, _| {
        let mut changed = false;
        if let Some(rate) = input.rate
            && control.rate != rate
        {
            // A new rate starts with its token there.
            (control.rate, control.bucket, changed) = (rate, None, true);
        }
        if let Some(cap) = input.concurrency
            && control.concurrency != cap
        {
            // The starts already counted stay counted: they are still running.
            if cap.is_none() {
                control.running.clear();
            }
            (control.concurrency, changed) = (cap, true);
        }
        if let Some(fairness) = input.fairness
            && control.fairness != fairness
        {
            // Keys set, the list is keyed at once; removed, it stays keyed until a claim finds
            // no task left in a key's queue.
            if fairness.is_some() {
                control.shares.get_or_insert_default();
            }
            (control.fairness, changed) = (fairness, true);
        }
        changed
    })
    .await?;
    Ok(ListLimitReport {
        kind,
        name,
        rate: control.rate,
        concurrency: control.concurrency,
        fairness: control.fairness,
        changed,
    })
}

/// Refuses a limit that sets nothing, or sets something out of range.
fn check_limit(input: &ListLimitRequest) -> Result<(), Fault> {
    if input.rate.is_none() && input.concurrency.is_none() && input.fairness.is_none() {
        return Err(Fault::Validation(
            "a limit sets rate (tasks per second), concurrency (tasks started and not \
             finished), fairness (keys and their weights) or several; null removes one"
                .into(),
        ));
    }
    if let Some(Some(fairness)) = &input.fairness {
        check_fairness(fairness)?;
    }
    if let Some(Some(rate)) = input.rate
        && !(rate > 0.0 && rate <= MAX_LIST_RATE)
    {
        return Err(Fault::Validation(format!(
            "rate is the tasks the list hands out per second: more than 0, at most \
             {MAX_LIST_RATE}, or null for no limit"
        )));
    }
    if let Some(Some(cap)) = input.concurrency
        && !(1..=MAX_LIST_CONCURRENCY).contains(&cap)
    {
        return Err(Fault::Validation(format!(
            "concurrency is the list's tasks started and not finished at most: 1 to \
             {MAX_LIST_CONCURRENCY}, or null for no cap"
        )));
    }
    Ok(())
}

/// Refuses fairness keys that name no tag or weigh out of range.
fn check_fairness(fairness: &Fairness) -> Result<(), Fault> {
    let prefix = &fairness.tag_prefix;
    if prefix.is_empty() || prefix.chars().count() > 256 || prefix.chars().any(is_control) {
        return Err(Fault::Validation(
            "fairness.tagPrefix names the tag that carries a run's key, such as \"tenant=\": 1 \
             to 256 characters, no control characters"
                .into(),
        ));
    }
    if fairness.weights.len() > MAX_WEIGHTED_KEYS {
        return Err(Fault::Validation(format!(
            "fairness.weights names at most {MAX_WEIGHTED_KEYS} keys; the others take \
             defaultWeight"
        )));
    }
    let weights = (fairness.weights.iter()).map(|(key, w)| (format!("the weight of {key:?}"), *w));
    let default = ("defaultWeight".to_owned(), fairness.default_weight);
    for (what, weight) in weights.chain([default]) {
        if !(1..=MAX_WEIGHT).contains(&weight) {
            return Err(Fault::Validation(format!(
                "fairness: {what} is {weight}; weights are 1 to {MAX_WEIGHT}"
            )));
        }
    }
    Ok(())
}

/// Resumes the list `name` of `kind` in `domain`: polls waiting there are handed its tasks.
pub(crate) async fn resume_list(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    (kind, name): (BindingKind, String),
    input: ListPauseRequest,
) -> Result<ListPauseReport, Fault> {
    no_reason(input.reason.as_deref())?;
    let (name, control, changed) = change(svc, ctx, domain, (kind, name), |control, _| {
        control.paused.take().is_some()
    })
    .await?;
    Ok(pause_report(kind, name, control, changed))
}

/// Applies `edit` (which answers whether it changed anything) to the list's controls, then
/// reads every list's controls again; answers the list's name, its controls and whether they
/// changed.
async fn change(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    (kind, name): (BindingKind, String),
    edit: impl FnOnce(&mut ListControl, crate::clock::Timestamp) -> bool + Clone + Send + 'static,
) -> Result<(String, ListControl, bool), Fault> {
    let scope = ctx.scope.clone();
    let task_kind = TaskKind::from_key(kind as u8).expect("every binding kind is a task kind");
    let report = svc
        .store
        .write(
            move |tx| {
                let domain = known_domain(tx, &scope, &domain)?;
                let key = (domain.id, task_kind, name);
                let control = control_of(tx, &key)?;
                Ok::<_, Fault>((key, control))
            },
            move |tx, (key, mut control)| {
                let changed = edit(&mut control, tx.now());
                if changed {
                    tx.put_list_control(&key, &control, false)?;
                }
                Ok((key.2, control, changed))
            },
        )
        .await?;
    if report.2 {
        refresh_controls(svc).await;
    }
    Ok(report)
}

/// The controls of the list `key`, as stored (locked, in the writer's transaction).
fn control_of(tx: &dyn Reads, key: &ListKey) -> Result<ListControl, StoreError> {
    Ok(tx.list_control(key)?.unwrap_or_default())
}

/// Reads every list's controls again into this process's memory (after a change here, or one
/// another node told of), and offers the tasks of the lists whose controls changed (resumed,
/// or limited differently) to the polls waiting there.
pub(crate) async fn refresh_controls(svc: &Service) {
    // One refresh at a time, so that an older read never replaces a newer one.
    let _turn = svc.controls_turn.lock().await;
    let read = svc.store.read(|tx| tx.list_controls()).await;
    let controls = match read {
        Ok(controls) => controls,
        Err(error) => {
            tracing::warn!(%error, "cannot read task lists' controls");
            return;
        }
    };
    let changed = svc.engine.controls.replace(controls);
    for list in changed {
        offer_list(svc, list, "changed").await;
    }
}

/// Offers what is queued on `list` to the polls waiting there at this node; a failure is
/// logged (as the list's `why`: why it was offered), since the polls still wait their time.
pub(crate) async fn offer_list(svc: &Service, list: ListKey, why: &str) {
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
            offer(tx, &setup, list)
        })
        .await;
    if let Err(error) = offered {
        tracing::warn!(%error, "cannot offer a {why} list's tasks to waiting polls");
    }
}
