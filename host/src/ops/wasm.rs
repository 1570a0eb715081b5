//! Weft's extension beside SWF: bind uploaded Wasm modules (`modules.rs`) to a domain's task
//! lists and function names, roll a binding back, read what their guests failed. Every change is
//! committed by the writer like any SWF change, and the in-process workers follow the bindings.

use std::collections::BTreeMap;

use crate::clock::Timestamp;
use crate::fault::{Fault, echo};
use crate::model::{
    Bind, BindLimits, Binding, BindingKind, BindingVersion, Domain, GuestFailureRecord, KeyInfo,
    ModuleRecord, Scope, TaskListInfo, UpgradePolicy, UpgradeReport, queue_key,
};
use crate::runtime::{self, GuestLimits};
use crate::store::{Reads, StoreError};

use super::modules::find_module;
use super::pins::pinned_count;
use super::upgrades::{self, Upgrade};
use super::{Ctx, Service, known_domain};

impl BindLimits {
    /// The limits to bind with: what was asked, else the default lowered to the tenant's quota.
    /// Asking for more than the quota is `LimitExceededFault`, more than the host's ceiling
    /// a `ValidationException`.
    fn resolve(self, ctx: &Ctx) -> Result<GuestLimits, Fault> {
        let defaults = ctx.tenant.clamp(GuestLimits::default());
        let limits = GuestLimits {
            cpu_ms: self.cpu_ms.unwrap_or(defaults.cpu_ms),
            memory_bytes: self.memory_bytes.unwrap_or(defaults.memory_bytes),
            output_bytes: self.output_bytes.unwrap_or(defaults.output_bytes),
        };
        limits
            .check()
            .map_err(|e| Fault::Validation(format!("Invalid limits: {e}")))?;
        let quotas = &ctx.tenant.quotas;
        let over = [
            ("cpuMs", limits.cpu_ms, quotas.wasm_cpu_ms),
            ("memoryBytes", limits.memory_bytes, quotas.wasm_memory_bytes),
        ]
        .into_iter()
        .find(|(_, asked, quota)| asked > quota);
        match over {
            Some((name, asked, quota)) => Err(Fault::LimitExceeded(format!(
                "{name} {asked} is over the tenant's quota of {quota}"
            ))),
            None => Ok(limits),
        }
    }
}

/// What a binding of `kind` `name` with `input` is, if its name, limits, concurrency and HTTP
/// grants are ones the tenant may bind with; the domain and the module are not looked at.
/// `weft apply` asks this (`?dryRun=true`) before it changes anything.
pub(crate) fn check_bind(
    ctx: &Ctx,
    kind: BindingKind,
    name: &str,
    input: &Bind,
) -> Result<(GuestLimits, u32), Fault> {
    if name.is_empty() || name.len() > 256 || name.chars().any(crate::model::is_control) {
        return Err(Fault::Validation(format!(
            "A {} name must be 1 to 256 characters, none of them control characters",
            kind.name()
        )));
    }
    let limits = input.limits.clone().resolve(ctx)?;
    check_http_hosts(kind, &input.http_hosts)?;
    for host in &input.http_hosts {
        if !ctx.tenant.may_grant_http(host) {
            return Err(Fault::AccessDenied(format!(
                "The tenant may not grant HTTP to {host}: it is not in the tenant's http_hosts"
            )));
        }
    }
    match input.upgrade {
        Some(policy) if kind != BindingKind::Decision && !policy.is_pinned() => {
            return Err(Fault::Validation(format!(
                "upgrade is for decision bindings only: {} binding's tasks are not pinned",
                a(kind.name())
            )));
        }
        _ if input.inherit_pin == Some(true) && kind != BindingKind::Decision => {
            return Err(Fault::Validation(format!(
                "inheritPin is for decision bindings only: {} binding's tasks are not pinned",
                a(kind.name())
            )));
        }
        _ if input.pause_after_failures.is_some() && kind != BindingKind::Decision => {
            return Err(Fault::Validation(format!(
                "pauseAfterFailures is for decision bindings only: {} binding's guest fails \
                 its task, not a run's decision task",
                a(kind.name())
            )));
        }
        _ if input.ramp.is_some() && kind != BindingKind::Decision => {
            return Err(Fault::Validation(format!(
                "ramp is for decision bindings only: {} binding's tasks are not pinned",
                a(kind.name())
            )));
        }
        Some(UpgradePolicy::All) if !input.force => {
            return Err(Fault::Validation(
                "upgrade all moves every open run to a new module without replaying it first; \
                 it is for emergencies: give force (weft's --force) to mean it"
                    .into(),
            ));
        }
        _ => {}
    }
    if input
        .pause_after_failures
        .is_some_and(|n| !(1..=1000).contains(&n))
    {
        return Err(Fault::Validation(
            "pauseAfterFailures is the failed attempts in a row that pause a run: 1 to 1000".into(),
        ));
    }
    if input.ramp.is_some_and(|share| !(1..=99).contains(&share)) {
        return Err(Fault::Validation(
            "ramp is the share of new runs the new decider takes: 1 to 99 percent".into(),
        ));
    }
    let concurrency = input.concurrency.unwrap_or(Binding::DEFAULT_CONCURRENCY);
    if !(1..=Binding::MAX_CONCURRENCY).contains(&concurrency) {
        return Err(Fault::Validation(format!(
            "concurrency must be 1 to {}",
            Binding::MAX_CONCURRENCY
        )));
    }
    Ok((limits, concurrency))
}

/// Binds a module to serve `kind` `name` in `domain`, replacing any binding it had. A decider
/// that replaces another moves the open runs pinned to older ones as the binding's upgrade
/// policy says, unless it is ramped up (then its promotion does).
pub(crate) async fn bind(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    kind: BindingKind,
    name: String,
    input: Bind,
) -> Result<Binding, Fault> {
    let (limits, concurrency) = check_bind(ctx, kind, &name, &input)?;
    let scope = ctx.scope.clone();
    let now = svc.clock.now();
    // `all` moves runs once, at this bind: a binding never keeps it.
    let move_all = input.upgrade == Some(UpgradePolicy::All);
    let binding = svc
        .store
        .write(
            move |tx| {
                let (domain, module) = bindable(tx, &scope, &domain, kind, &input.module)?;
                let existing = tx.binding(domain.id, kind, &name)?;
                let binding = Binding {
                    account: scope.account.clone(),
                    region: scope.region.clone(),
                    domain: domain.name.clone(),
                    kind,
                    name,
                    module: module.digest,
                    concurrency,
                    limits,
                    http_hosts: input.http_hosts,
                    created_at: now,
                    previous_module: None,
                    versions: Vec::new(),
                    last_version: 0,
                    upgrade: UpgradePolicy::Pinned,
                    upgraded: None,
                    ramp: input.ramp,
                    inherit_pin: false,
                    pause_after_failures: input.pause_after_failures,
                };
                let kept = (input.upgrade, input.inherit_pin);
                let binding = follow(tx, binding, existing.as_ref(), kept)?;
                // The same binding again changes nothing: its workers keep running, and it
                // keeps its time, by which `weft apply` sees that nothing changed.
                let same = existing.filter(|e| {
                    Binding {
                        created_at: now,
                        ..e.clone()
                    } == binding
                });
                Ok::<_, Fault>((domain.id, binding, same))
            },
            |tx, (domain, binding, same)| {
                if let Some(same) = same {
                    return Ok((same, false));
                }
                tx.put_binding(domain, &binding)?;
                Ok((binding, true))
            },
        )
        .await?;
    let (mut binding, changed) = binding;
    if !changed {
        return Ok(binding);
    }
    svc.bindings_changed.send_replace(());
    let upgrades = move_all || binding.upgrade == UpgradePolicy::Replay;
    if kind == BindingKind::Decision && upgrades && binding.ramp.is_none() {
        binding.upgraded = Some(upgrade_by_policy(svc, ctx, &binding, move_all).await?);
    }
    Ok(binding)
}

/// The domain `domain` of `scope` and the module `given` names, if a `kind` binding of the one
/// may run the other: the domain is not deprecated, the module is of the world `kind` needs.
fn bindable(
    tx: &dyn Reads,
    scope: &Scope,
    domain: &str,
    kind: BindingKind,
    given: &str,
) -> Result<(Domain, ModuleRecord), Fault> {
    let domain = known_domain(tx, scope, domain)?;
    if domain.deprecated_at.is_some() {
        return Err(Fault::DomainDeprecated(format!(
            "Domain is deprecated: {}",
            domain.name
        )));
    }
    let module = find_module(tx, &scope.account, given)?;
    if module.world != kind.world() {
        return Err(Fault::Validation(format!(
            "Module {} is {}; {} binding needs {}",
            module.digest,
            a(module.world.name()),
            a(kind.name()),
            a(kind.world().name())
        )));
    }
    Ok((domain, module))
}

/// `binding`, new, as it follows `existing` (the binding it replaces, if any): it remembers
/// the module it replaces for a rollback, keeps its versions (a decision binding's), its
/// upgrade policy unless `upgrade` gives another (never `all`, which acts once) and whether
/// runs inherit pins unless `inherit_pin` says. Refuses a ramp without another module to share
/// new runs with.
fn follow(
    tx: &dyn Reads,
    binding: Binding,
    existing: Option<&Binding>,
    (upgrade, inherit_pin): (Option<UpgradePolicy>, Option<bool>),
) -> Result<Binding, Fault> {
    let kept = existing.map(|e| e.upgrade).unwrap_or_default();
    let upgrade = match upgrade {
        Some(UpgradePolicy::All) | None => kept,
        Some(policy) => policy,
    };
    let inherit_pin = inherit_pin.unwrap_or(existing.is_some_and(|e| e.inherit_pin));
    let previous_module = match existing {
        Some(e) if e.module != binding.module => Some(e.module.clone()),
        Some(e) => e.previous_module.clone(),
        None => None,
    };
    let (versions, last_version) = match binding.kind {
        BindingKind::Decision => versions_with(existing, &binding.module, binding.created_at),
        _ => (Vec::new(), 0),
    };
    if binding.ramp.is_some() {
        let shares = match previous_module.as_deref() {
            Some(previous) => tx.module_kept(&binding.account, previous)?,
            None => false,
        };
        if !shares {
            return Err(Fault::Validation(format!(
                "A ramp shares new runs between a new decider and the one it replaces: the \
                 decision binding {} has no other module to share them with; bind without a ramp",
                binding.name
            )));
        }
    }
    Ok(Binding {
        previous_module,
        versions,
        last_version,
        upgrade,
        inherit_pin,
        ..binding
    })
}

/// Upgrades the open runs pinned to older versions of decision `binding` to its current
/// module: those it replays as recorded, or, with `all`, every one.
async fn upgrade_by_policy(
    svc: &Service,
    ctx: &Ctx,
    binding: &Binding,
    all: bool,
) -> Result<UpgradeReport, Fault> {
    let how = Upgrade {
        all,
        ..Upgrade::default()
    };
    let (domain, name) = (binding.domain.clone(), binding.name.clone());
    upgrades::upgrade(svc, ctx, domain, name, how).await
}

/// The versions of a binding that `existing` was (if it was one) once bound to `module` at
/// `now`, and the number of the latest: `module` is added if it is new to them, with the next
/// number (never one a deleted version had). A binding stored before versions were kept starts
/// them with the module it had.
fn versions_with(
    existing: Option<&Binding>,
    module: &str,
    now: Timestamp,
) -> (Vec<BindingVersion>, u32) {
    let mut versions = match existing {
        Some(e) if e.versions.is_empty() => vec![BindingVersion {
            number: 1,
            module: e.module.clone(),
            bound_at: e.created_at,
            pinned_runs: None,
        }],
        Some(e) => e.versions.clone(),
        None => Vec::new(),
    };
    let numbers = versions.iter().map(|v| v.number);
    let mut last = numbers
        .chain(existing.map(|e| e.last_version))
        .max()
        .unwrap_or(0);
    if !versions.iter().any(|v| v.module == module) {
        last += 1;
        versions.push(BindingVersion {
            number: last,
            module: module.to_owned(),
            bound_at: now,
            pinned_runs: None,
        });
    }
    (versions, last)
}

/// Binds `kind` `name` in `domain` to the module it ran before its module last changed, with
/// its other settings as they are; the module replaced becomes the one a second rollback
/// restores. The open runs an upgrade moved off the restored decider move back to it if it
/// replays them as recorded.
pub(crate) async fn rollback(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    kind: BindingKind,
    name: String,
) -> Result<Binding, Fault> {
    let (account, now) = (ctx.scope.account.clone(), svc.clock.now());
    let rolled_back = move |tx: &dyn Reads, current: Binding| {
        let name = &current.name;
        let Some(previous) = current.previous_module.clone() else {
            return Err(Fault::Validation(format!(
                "The {} binding {name} has run only module {}: there is no previous module to \
                 roll back to",
                kind.name(),
                current.module
            )));
        };
        let module = find_module(tx, &account, &previous).map_err(|e| match e {
            Fault::UnknownResource(_) => Fault::UnknownResource(format!(
                "Module {previous}, which the {} binding {name} ran before, was deleted",
                kind.name()
            )),
            other => other,
        })?;
        let (versions, last_version) = match kind {
            BindingKind::Decision => versions_with(Some(&current), &module.digest, now),
            _ => (Vec::new(), 0),
        };
        Ok(Binding {
            module: module.digest,
            previous_module: Some(current.module.clone()),
            ramp: None,
            created_at: now,
            versions,
            last_version,
            ..current
        })
    };
    let mut binding = change_binding(svc, ctx, domain, kind, name, rolled_back).await?;
    // Runs an upgrade moved away from the module restored move back if it replays them as
    // recorded.
    if kind == BindingKind::Decision {
        let how = Upgrade {
            back: true,
            ..Upgrade::default()
        };
        let (domain, name) = (binding.domain.clone(), binding.name.clone());
        binding.upgraded = Some(upgrades::upgrade(svc, ctx, domain, name, how).await?);
    }
    Ok(binding)
}

/// Ends the ramp of decision binding `name` in `domain`: its current module takes every new
/// run from now on.
pub(crate) async fn promote(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    name: String,
) -> Result<Binding, Fault> {
    let promoted = |_: &dyn Reads, current: Binding| match current.ramp {
        None => Err(Fault::Validation(format!(
            "The decision binding {} is not ramping up: module {} takes every new run already",
            current.name, current.module
        ))),
        Some(_) => Ok(Binding {
            ramp: None,
            ..current
        }),
    };
    let kind = BindingKind::Decision;
    let mut binding = change_binding(svc, ctx, domain, kind, name, promoted).await?;
    // Promoted, the decider moves the open runs pinned to older ones as the policy says.
    if binding.upgrade == UpgradePolicy::Replay {
        binding.upgraded = Some(upgrade_by_policy(svc, ctx, &binding, false).await?);
    }
    Ok(binding)
}

/// Changes the binding `kind` `name` of `domain` as `change` says, given the store and the
/// binding as it is, and tells the workers. The account's modules are read first, which on a
/// shared database locks them: binds, changes and module deletions go one at a time.
async fn change_binding(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    kind: BindingKind,
    name: String,
    change: impl FnOnce(&dyn Reads, Binding) -> Result<Binding, Fault> + Clone + Send + 'static,
) -> Result<Binding, Fault> {
    let scope = ctx.scope.clone();
    let binding = svc
        .store
        .write(
            move |tx| {
                let domain = known_domain(tx, &scope, &domain)?;
                tx.modules(&scope.account)?;
                let current = tx
                    .binding(domain.id, kind, &name)?
                    .ok_or_else(|| unknown_binding(kind, &name))?;
                Ok::<_, Fault>((domain.id, change(tx, current)?))
            },
            |tx, (domain, binding)| {
                tx.put_binding(domain, &binding)?;
                Ok(binding)
            },
        )
        .await?;
    svc.bindings_changed.send_replace(());
    Ok(binding)
}

/// The domain's bindings, by kind then name.
pub(crate) async fn list_bindings(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
) -> Result<Vec<Binding>, Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .read(move |tx| {
            let domain = known_domain(tx, &scope, &domain)?;
            let bindings = tx.bindings(Some(domain.id))?;
            let bindings = bindings
                .into_iter()
                .map(|(_, b)| with_pinned_runs(tx, domain.id, b));
            Ok(bindings.collect::<Result<_, StoreError>>()?)
        })
        .await
}

/// `binding` (of domain `domain`) with, for a decision binding, each version's count of open
/// runs pinned to it.
fn with_pinned_runs(
    tx: &dyn Reads,
    domain: u64,
    mut binding: Binding,
) -> Result<Binding, StoreError> {
    if binding.kind == BindingKind::Decision {
        (binding.versions, _) = versions_with(Some(&binding), &binding.module, binding.created_at);
        for version in &mut binding.versions {
            version.pinned_runs = Some(pinned_count(tx, domain, &version.module)?);
        }
    }
    Ok(binding)
}

/// The task lists of a domain that have tasks waiting, polls waiting (at this node), a binding,
/// a pause or limits, by kind then name; each with the tasks waiting under each fairness key
/// where any is keyed.
pub(crate) async fn task_lists(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
) -> Result<Vec<TaskListInfo>, Fault> {
    let scope = ctx.scope.clone();
    let (id, queued, bindings) = svc
        .store
        .read_long(move |tx| {
            let domain = known_domain(tx, &scope, &domain)?;
            let queued = tx.queued(Some(domain.id))?;
            Ok::<_, Fault>((domain.id, queued, tx.bindings(Some(domain.id))?))
        })
        .await?;
    let mut lists = BTreeMap::new();
    for q in queued {
        let (name, key) = queue_key(&q.list);
        let list = list(&mut lists, q.kind.served_by(), name.to_owned());
        list.pending += q.count;
        list.keys.push(KeyInfo {
            key: key.to_owned(),
            pending: q.count,
            weight: None,
        });
    }
    for (kind, name, count) in svc.engine.wakers.dispatch.pollers(id) {
        list(&mut lists, kind.served_by(), name).pollers = count as u64;
    }
    for (_, binding) in bindings {
        list(&mut lists, binding.kind, binding.name).bound = true;
    }
    for ((_, kind, name), control) in svc.engine.controls.of_domain(id) {
        let list = list(&mut lists, kind.served_by(), name);
        (list.paused, list.rate) = (control.paused, control.rate);
        (list.concurrency, list.fairness) = (control.concurrency, control.fairness);
    }
    for list in lists.values_mut() {
        // Keys shown only where some task is keyed, or keys are weighed.
        if list.fairness.is_none() && list.keys.iter().all(|k| k.key.is_empty()) {
            list.keys.clear();
        }
        if let Some(fairness) = &list.fairness {
            for key in &mut list.keys {
                key.weight = Some(fairness.weight(&key.key));
            }
        }
    }
    Ok(lists.into_values().collect())
}

/// The list `name` of `kind` among `lists`, added with nothing waiting if it is not there yet.
fn list(
    lists: &mut BTreeMap<(BindingKind, String), TaskListInfo>,
    kind: BindingKind,
    name: String,
) -> &mut TaskListInfo {
    lists.entry((kind, name.clone())).or_insert(TaskListInfo {
        kind,
        name,
        pending: 0,
        pollers: 0,
        bound: false,
        paused: None,
        rate: None,
        concurrency: None,
        fairness: None,
        keys: Vec::new(),
    })
}

/// Removes a binding: its workers stop after the task each is running.
pub(crate) async fn unbind(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    kind: BindingKind,
    name: String,
) -> Result<(), Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .write(
            move |tx| {
                let domain = known_domain(tx, &scope, &domain)?;
                if tx.binding(domain.id, kind, &name)?.is_none() {
                    return Err(unknown_binding(kind, &name));
                }
                Ok((domain.id, name))
            },
            move |tx, (domain, name)| tx.delete_binding(domain, kind, &name).map(drop),
        )
        .await?;
    svc.bindings_changed.send_replace(());
    Ok(())
}

/// The latest failures of a binding's guest, oldest first.
pub(crate) async fn failures(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    kind: BindingKind,
    name: String,
) -> Result<Vec<GuestFailureRecord>, Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .read(move |tx| {
            let domain = known_domain(tx, &scope, &domain)?;
            if tx.binding(domain.id, kind, &name)?.is_none() {
                return Err(unknown_binding(kind, &name));
            }
            Ok(tx.guest_failures(domain.id, kind, &name)?)
        })
        .await
}

/// Checks a binding's outgoing-HTTP allow-list: only activity workers have `wasi:http`, and each
/// entry must be a host the runtime can match (see `runtime::check_http_hosts`). Every check of
/// the list belongs here, so that a ceiling set by the operator (per tenant) is one more line.
fn check_http_hosts(kind: BindingKind, hosts: &[String]) -> Result<(), Fault> {
    if hosts.is_empty() {
        return Ok(());
    }
    if kind != BindingKind::Activity {
        return Err(Fault::Validation(format!(
            "httpHosts is for activity bindings only: a {} binding cannot send HTTP requests",
            kind.name()
        )));
    }
    runtime::check_http_hosts(hosts)
        .map_err(|e| Fault::Validation(format!("Invalid httpHosts: {e}")))
}

/// `word` with its indefinite article: "a decider", "an activity-worker".
fn a(word: &str) -> String {
    let article = if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {word}")
}

fn unknown_binding(kind: BindingKind, name: &str) -> Fault {
    Fault::UnknownResource(format!("No {} binding: {}", kind.name(), echo(name)))
}
