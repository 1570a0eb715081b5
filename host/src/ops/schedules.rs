//! Schedules (`/v1/domains/{domain}/schedules`, `model::schedules`): made, changed, paused,
//! triggered, backfilled and removed, each in one writer transaction with the schedule locked,
//! as the engine acts on them when their deadlines come.

use crate::clock::Timestamp;
use crate::engine::{
    Acting, Engine, StartRequest, action_type, resolve_start, spent, start_request,
};
use crate::fault::Fault;
use crate::model::schedules::{MAX_BUFFERED, ScheduleState};
use crate::model::{
    Backfill, Domain, Schedule, ScheduleDefinition, ScheduleDescription, ScheduleList,
    ScheduleOutcome, Times,
};
use crate::store::{Reads, StoreError};

use super::{Ctx, Service, known_domain};

/// The longest schedule id: its runs' workflow ids add 21 characters (`-2026-03-29T01:00:00Z`)
/// and may have 256.
const MAX_ID: usize = 256 - 21;
/// Schedules a listing answers at most per page.
const MAX_PAGE: usize = 1000;
/// Nominal times a description shows ahead.
const NEXT_TIMES: usize = 5;

/// Makes schedule `id` in `domain`; refuses an id in use.
pub(crate) async fn create(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    id: String,
    definition: ScheduleDefinition,
) -> Result<ScheduleDescription, Fault> {
    let scope = ctx.scope.clone();
    let setup = svc.engine_for(ctx);
    svc.store
        .write(
            move |tx| {
                let domain = known_domain(tx, &scope, &domain)?;
                check_id(&id)?;
                check_definition(tx, &domain, &definition)?;
                if tx.schedule_named(domain.id, &id)?.is_some() {
                    return Err(Fault::InUse(format!(
                        "schedule {id} exists in domain {}: change it with PUT, or delete it first",
                        domain.name
                    )));
                }
                Ok((domain, scope, id, definition))
            },
            move |tx, (domain, scope, id, definition)| {
                let now = tx.now();
                let mut schedule = Schedule {
                    seq: tx.next_id()?,
                    domain: domain.id,
                    account: scope.account,
                    region: scope.region,
                    domain_name: domain.name,
                    id,
                    definition,
                    state: ScheduleState {
                        created_at: now,
                        updated_at: now,
                        ..ScheduleState::default()
                    },
                    cursor: now,
                    armed: None,
                    max_open_runs: setup.max_open_runs,
                };
                let mut eng = Engine::new(tx, domain.id, &setup);
                act(&mut eng, &mut schedule, |_| Ok(()))?;
                eng.finish()?;
                Ok(describe_now(&schedule))
            },
        )
        .await
}

/// Replaces schedule `id`'s definition; what it has done (counts, open runs, buffered times)
/// stays, and nominal times from now on follow the new spec.
pub(crate) async fn update(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    id: String,
    definition: ScheduleDefinition,
) -> Result<ScheduleDescription, Fault> {
    let max_open_runs = svc.engine_for(ctx).max_open_runs;
    let check = move |tx: &dyn Reads, domain: &Domain| {
        check_definition(tx, domain, &definition).map(|()| definition)
    };
    let edit = move |schedule: &mut Schedule, definition, now| {
        schedule.definition = definition;
        schedule.cursor = schedule.cursor.max(now);
        schedule.max_open_runs = max_open_runs;
    };
    change(svc, ctx, (domain, id), check, edit, |_, ()| Ok(()))
        .await
        .map(|(description, ())| description)
}

/// Pauses (`paused`) or unpauses schedule `id`, with a note saying why. Times that pass while
/// it is paused start nothing, and are not caught up when it is unpaused.
pub(crate) async fn pause(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    id: String,
    paused: bool,
    note: Option<String>,
) -> Result<ScheduleDescription, Fault> {
    let edit = move |schedule: &mut Schedule, (), now| {
        schedule.state.paused = paused;
        schedule.state.note = note.unwrap_or_default();
        schedule.cursor = schedule.cursor.max(now);
    };
    change(svc, ctx, (domain, id), |_, _| Ok(()), edit, |_, ()| Ok(()))
        .await
        .map(|(description, ())| description)
}

/// Acts on nominal time now for schedule `id`, as its overlap policy says.
pub(crate) async fn trigger(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    id: String,
) -> Result<ScheduleOutcome, Fault> {
    let trigger = |acting: &mut Acting<'_, '_, '_, '_>, ()| {
        let before = acting.schedule.state.actions;
        let now = acting.eng.tx.now();
        acting.take(now)?;
        Ok(before)
    };
    change(
        svc,
        ctx,
        (domain, id),
        |_, _| Ok(()),
        |_, (), _| (),
        trigger,
    )
    .await
    .map(|(description, before)| ScheduleOutcome {
        times: 1,
        started: description.info.actions - before,
    })
}

/// Acts on the nominal times of schedule `id` from `from` to `to`, whatever its catch-up
/// window, as its overlap policy says.
pub(crate) async fn backfill(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    id: String,
    range: Backfill,
) -> Result<ScheduleOutcome, Fault> {
    let check = move |_: &dyn Reads, _: &Domain| {
        if range.to < range.from {
            return Err(Fault::Validation("backfill's to is before its from".into()));
        }
        Ok(range)
    };
    let backfill = |acting: &mut Acting<'_, '_, '_, '_>, range: Backfill| {
        let before = acting.schedule.state.actions;
        // Times after the cursor are the schedule's own, acted on when they come.
        let to = range.to.min(acting.schedule.cursor);
        let after = Timestamp::from_millis(range.from.as_millis() - 1);
        let times: Vec<Timestamp> = std::iter::successors(acting.times.next_after(after), |t| {
            acting.times.next_after(*t)
        })
        .take_while(|t| *t <= to)
        .take(MAX_BUFFERED)
        .collect();
        for &nominal in &times {
            acting.take(nominal)?;
        }
        Ok((times.len() as u64, before))
    };
    change(svc, ctx, (domain, id), check, |_, range, _| range, backfill)
        .await
        .map(|(description, (times, before))| ScheduleOutcome {
            times,
            started: description.info.actions - before,
        })
}

/// Removes schedule `id`. The runs it started run on.
pub(crate) async fn delete(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    id: String,
) -> Result<(), Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .write(
            move |tx| {
                let domain = known_domain(tx, &scope, &domain)?;
                known_schedule(tx, &domain, &id)
            },
            move |tx, schedule| {
                if let Some(at) = schedule.armed {
                    tx.clear_deadline(at, schedule.seq, 0, crate::store::Deadline::Schedule)?;
                }
                tx.delete_schedule(&schedule)
            },
        )
        .await
}

/// Schedule `id` of `domain`, described.
pub(crate) async fn describe(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    id: String,
) -> Result<ScheduleDescription, Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .read(move |tx| {
            let domain = known_domain(tx, &scope, &domain)?;
            Ok(describe_now(&known_schedule(tx, &domain, &id)?))
        })
        .await
}

/// A page of `domain`'s schedules in id order, after the id `after`.
pub(crate) async fn list(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    after: Option<String>,
    limit: Option<usize>,
) -> Result<ScheduleList, Fault> {
    let scope = ctx.scope.clone();
    let limit = limit.unwrap_or(100).clamp(1, MAX_PAGE);
    svc.store
        .read(move |tx| {
            let domain = known_domain(tx, &scope, &domain)?;
            let page = tx.schedules(domain.id, after.as_deref(), limit)?;
            let next_page_token = (page.len() == limit)
                .then(|| page.last().map(|s| s.id.clone()))
                .flatten();
            Ok(ScheduleList {
                schedules: page.iter().map(describe_now).collect(),
                next_page_token,
            })
        })
        .await
}

/// Changes schedule `id` of a domain: `check` reads what the change depends on (refusing with a
/// fault), `edit` changes the schedule's record, `act` acts through the engine on its times as
/// the record now says; then what waits starts, the deadline is set anew, and the schedule is
/// saved and described.
async fn change<P, Q, T, C, E, A>(
    svc: &Service,
    ctx: &Ctx,
    (domain, id): (String, String),
    check: C,
    edit: E,
    act: A,
) -> Result<(ScheduleDescription, T), Fault>
where
    P: Send + 'static,
    T: Send + 'static,
    C: FnOnce(&dyn Reads, &Domain) -> Result<P, Fault> + Clone + Send + 'static,
    E: FnOnce(&mut Schedule, P, Timestamp) -> Q + Clone + Send + 'static,
    A: FnOnce(&mut Acting<'_, '_, '_, '_>, Q) -> Result<T, StoreError> + Clone + Send + 'static,
{
    let (scope, setup) = (ctx.scope.clone(), svc.engine_for(ctx));
    svc.store
        .write(
            move |tx| {
                let domain = known_domain(tx, &scope, &domain)?;
                let schedule = known_schedule(tx, &domain, &id)?;
                let input = check(tx, &domain)?;
                Ok((schedule, input))
            },
            move |tx, (mut schedule, input)| {
                let edited = edit(&mut schedule, input, tx.now());
                let mut eng = Engine::new(tx, schedule.domain, &setup);
                let done = self::act(&mut eng, &mut schedule, |acting| act(acting, edited))?;
                eng.finish()?;
                Ok((describe_now(&schedule), done))
            },
        )
        .await
}

/// Runs `change` on `schedule` with its runs refreshed, then starts what waits, sets its
/// deadline and saves it.
fn act<T>(
    eng: &mut Engine<'_, '_>,
    schedule: &mut Schedule,
    change: impl FnOnce(&mut Acting<'_, '_, '_, '_>) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let Ok(times) = Times::parse(&schedule.definition.spec) else {
        return Err(StoreError::broken(
            "a stored schedule's spec no longer reads",
        ));
    };
    let mut acting = Acting {
        eng,
        schedule,
        times: &times,
    };
    acting.refresh()?;
    acting.drain()?;
    let done = change(&mut acting)?;
    acting.drain()?;
    acting.arm(false)?;
    acting.schedule.state.updated_at = acting.eng.tx.now();
    acting.eng.tx.put_schedule(acting.schedule)?;
    Ok(done)
}

/// The schedule `id` of `domain`, or a fault naming it.
fn known_schedule(tx: &dyn Reads, domain: &Domain, id: &str) -> Result<Schedule, Fault> {
    tx.schedule_named(domain.id, id)?.ok_or_else(|| {
        Fault::UnknownResource(format!("Unknown schedule: {id} in domain {}", domain.name))
    })
}

fn check_id(id: &str) -> Result<(), Fault> {
    let mut v = crate::fault::Violations::default();
    v.name("id", id);
    if id.is_empty() || id.chars().count() > MAX_ID {
        v.add(
            "id",
            Some(id),
            format!("Member must have length between 1 and {MAX_ID}"),
        );
    }
    v.finish()
}

/// Checks a definition as StartWorkflowExecution checks a start, and its spec.
fn check_definition(
    tx: &dyn Reads,
    domain: &Domain,
    definition: &ScheduleDefinition,
) -> Result<(), Fault> {
    let request = check_shape(definition)?;
    let workflow_type = action_type(&definition.action);
    resolve_start(tx, domain, &workflow_type, request)?.map_err(|e| e.fault(&workflow_type))?;
    Ok(())
}

/// Checks what a definition says on its own (its spec, its action's members; not whether its
/// type is registered); answers its start request.
pub(crate) fn check_shape(definition: &ScheduleDefinition) -> Result<StartRequest, Fault> {
    Times::parse(&definition.spec).map_err(Fault::Validation)?;
    let action = &definition.action;
    if action.tag_list.len() > 5 || action.tag_list.iter().any(|t| t.chars().count() > 256) {
        return Err(Fault::Validation(
            "action.tagList holds at most 5 tags of at most 256 characters".into(),
        ));
    }
    if action
        .input
        .as_ref()
        .is_some_and(|i| i.chars().count() > 32_768)
    {
        return Err(Fault::Validation(
            "action.input holds at most 32768 characters".into(),
        ));
    }
    if definition.catchup_window == Some(0) {
        return Err(Fault::Validation(
            "catchupWindow must be at least 1 second".into(),
        ));
    }
    start_request(action).map_err(Fault::Validation)
}

/// `schedule` as described now: with its next nominal times, if it will act on them.
fn describe_now(schedule: &Schedule) -> ScheduleDescription {
    let next_times = match Times::parse(&schedule.definition.spec) {
        Ok(times) if !schedule.state.paused && !spent(schedule) => {
            std::iter::successors(times.next_after(schedule.cursor), |t| times.next_after(*t))
                .take(NEXT_TIMES)
                .collect()
        }
        _ => Vec::new(),
    };
    ScheduleDescription {
        id: schedule.id.clone(),
        schedule: schedule.definition.clone(),
        info: schedule.state.clone(),
        next_times,
    }
}
