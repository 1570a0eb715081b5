//! Weft's extension beside SWF: upload, list and delete Wasm modules; bind them to a domain's
//! task lists and function names; read what their guests failed. Every change is committed by
//! the writer like any SWF change, and the in-process workers follow the bindings.

use std::collections::BTreeMap;

use crate::fault::{Fault, echo};
use crate::model::{
    Bind, BindLimits, Binding, BindingKind, BindingRef, GuestFailureRecord, ModuleLabel,
    ModuleRecord, TaskListInfo,
};
use crate::runtime::{self, GuestLimits};
use crate::store::Reads;
use crate::tenancy::Quotas;

use super::compiles::room;
use super::{Ctx, Service, known_domain};

/// The largest module accepted, in bytes.
pub(crate) const MAX_MODULE_BYTES: usize = 32 << 20;

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

/// Uploads `code`: checks that it is a component of one of the three worlds (compiling it, which
/// also fills the compiled-code cache), then stores it under its digest. Uploading the same
/// bytes again answers the same record.
pub(crate) async fn upload_module(
    svc: &Service,
    ctx: &Ctx,
    code: Vec<u8>,
    label: ModuleLabel,
) -> Result<ModuleRecord, Fault> {
    check_label("name", label.name.as_deref())?;
    check_label("version", label.version.as_deref())?;
    if code.is_empty() {
        return Err(Fault::Validation(
            "Invalid module: it is empty; send the bytes of a WebAssembly component".into(),
        ));
    }
    if code.len() > MAX_MODULE_BYTES {
        return Err(Fault::RequestTooLarge(format!(
            "A module may be at most {MAX_MODULE_BYTES} bytes"
        )));
    }
    // The same bytes again answer the module stored; new ones take their place in the quota
    // before they compile, so a refused upload costs no compile (and are checked again when
    // stored: another node may have stored modules meanwhile).
    let account = ctx.scope.account.clone();
    let digest = crate::runtime::Runtime::digest(&code);
    let (existing, stored) = svc
        .store
        .read(move |tx| {
            let existing = tx.module(&account, &digest)?;
            let stored = match existing {
                Some(_) => Vec::new(),
                None => tx.modules(&account)?,
            };
            Ok::<_, Fault>((existing, stored))
        })
        .await?;
    if let Some(existing) = existing {
        return relabel(svc, ctx, existing, label).await;
    }
    let size = code.len() as u64;
    let quotas = &ctx.tenant.quotas;
    let _place = svc
        .compiles
        .reserve(&ctx.scope.account, &stored, size, quotas)?;
    let runtime = svc.runtime.clone();
    let (code, module) = svc
        .compiles
        .run(&ctx.tenant, move || {
            let module = runtime.load(&code);
            (code, module)
        })
        .await?;
    let module = module.map_err(|e| Fault::Validation(format!("Invalid module: {e}")))?;
    let account = ctx.scope.account.clone();
    let quotas = ctx.tenant.quotas.clone();
    let record = ModuleRecord {
        digest: module.digest.clone(),
        world: module.world,
        size: code.len() as u64,
        uploaded_at: svc.clock.now(),
        name: label.name.clone(),
        version: label.version.clone(),
        used_by: Vec::new(),
    };
    let answer = record.clone();
    let stored = svc
        .store
        .write(
            move |tx| {
                let existing = module_room(tx, &account, &record.digest, record.size, &quotas)?;
                Ok::<_, Fault>((account, record, existing))
            },
            move |tx, (account, record, existing)| match existing {
                Some(existing) => Ok(Some(existing)),
                None => {
                    tx.add_module(&account, &record, &code)?;
                    Ok(None)
                }
            },
        )
        .await?;
    match stored {
        // Stored through another node meanwhile: label that one.
        Some(existing) => relabel(svc, ctx, existing, label).await,
        None => Ok(answer),
    }
}

/// `module` with the name and version `label` gives (members it leaves out keep theirs),
/// stored if that changes it.
async fn relabel(
    svc: &Service,
    ctx: &Ctx,
    module: ModuleRecord,
    label: ModuleLabel,
) -> Result<ModuleRecord, Fault> {
    let labeled = ModuleRecord {
        name: label.name.or(module.name.clone()),
        version: label.version.or(module.version.clone()),
        ..module.clone()
    };
    if labeled == module {
        return Ok(module);
    }
    let account = ctx.scope.account.clone();
    svc.store
        .write(
            move |tx| {
                let stored = find_module(tx, &account, &labeled.digest)?;
                let labeled = ModuleRecord {
                    uploaded_at: stored.uploaded_at,
                    ..labeled
                };
                Ok((account, labeled))
            },
            |tx, (account, labeled)| {
                tx.put_module(&account, &labeled)?;
                Ok(labeled)
            },
        )
        .await
}

/// Refuses a module's name or version label unless it is 1 to 128 characters without control
/// characters.
fn check_label(what: &str, label: Option<&str>) -> Result<(), Fault> {
    let Some(label) = label else { return Ok(()) };
    let chars = label.chars().count();
    if chars == 0 || chars > 128 || label.chars().any(char::is_control) {
        return Err(Fault::Validation(format!(
            "Invalid module {what} '{}': it must be 1 to 128 characters, none of them control \
             characters",
            echo(label)
        )));
    }
    Ok(())
}

/// The module `digest` if `account` has it already; else whether the tenant has room for one
/// more module of `size` bytes within its `quotas`, or `LimitExceededFault`.
fn module_room(
    tx: &dyn Reads,
    account: &str,
    digest: &str,
    size: u64,
    quotas: &Quotas,
) -> Result<Option<ModuleRecord>, Fault> {
    if let Some(existing) = tx.module(account, digest)? {
        return Ok(Some(existing));
    }
    let modules = tx.modules(account)?;
    let held: u64 = modules.iter().map(|m| m.size).sum();
    room(modules.len(), held, size, quotas)?;
    Ok(None)
}

/// The account's modules, by digest, each with the bindings that run it.
pub(crate) async fn list_modules(svc: &Service, ctx: &Ctx) -> Result<Vec<ModuleRecord>, Fault> {
    let account = ctx.scope.account.clone();
    svc.store
        .read(move |tx| {
            let mut modules = tx.modules(&account)?;
            let mut bindings = tx.bindings(None)?;
            bindings.retain(|(_, b)| b.account == account);
            for module in &mut modules {
                module.used_by = bindings
                    .iter()
                    .filter(|(_, b)| b.module == module.digest)
                    .map(|(_, b)| BindingRef {
                        domain: b.domain.clone(),
                        kind: b.kind,
                        name: b.name.clone(),
                    })
                    .collect();
                module.used_by.sort();
            }
            Ok(modules)
        })
        .await
}

/// Deletes a module no binding uses.
pub(crate) async fn delete_module(svc: &Service, ctx: &Ctx, digest: String) -> Result<(), Fault> {
    let account = ctx.scope.account.clone();
    let (kept_elsewhere, unloaded) = svc
        .store
        .write(
            move |tx| {
                let digest = find_module(tx, &account, &digest)?.digest;
                let users: Vec<String> = tx
                    .bindings(None)?
                    .into_iter()
                    .filter(|(_, b)| b.account == account && b.module == digest)
                    .map(|(_, b)| format!("{} {} {}", b.domain, b.kind.name(), b.name))
                    .collect();
                if !users.is_empty() {
                    return Err(Fault::InUse(format!(
                        "Module {digest} is bound: {}",
                        users.join(", ")
                    )));
                }
                Ok((account, digest))
            },
            |tx, (account, digest)| {
                tx.delete_module(&account, &digest)?;
                Ok((tx.module_held(&digest)?, digest))
            },
        )
        .await?;
    // Compiled code is shared by digest: keep it while another account has the same module.
    if !kept_elsewhere {
        svc.runtime.unload(&unloaded);
    }
    Ok(())
}

/// Binds a module to serve `kind` `name` in `domain`, replacing any binding it had.
pub(crate) async fn bind(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    kind: BindingKind,
    name: String,
    input: Bind,
) -> Result<Binding, Fault> {
    if name.is_empty() || name.len() > 256 {
        return Err(Fault::Validation(format!(
            "A {} name must be 1 to 256 characters",
            kind.name()
        )));
    }
    let limits = input.limits.resolve(ctx)?;
    check_http_hosts(kind, &input.http_hosts)?;
    for host in &input.http_hosts {
        if !ctx.tenant.may_grant_http(host) {
            return Err(Fault::AccessDenied(format!(
                "The tenant may not grant HTTP to {host}: it is not in the tenant's http_hosts"
            )));
        }
    }
    let concurrency = input.concurrency.unwrap_or(Binding::DEFAULT_CONCURRENCY);
    if !(1..=Binding::MAX_CONCURRENCY).contains(&concurrency) {
        return Err(Fault::Validation(format!(
            "concurrency must be 1 to {}",
            Binding::MAX_CONCURRENCY
        )));
    }
    let scope = ctx.scope.clone();
    let now = svc.clock.now();
    let binding = svc
        .store
        .write(
            move |tx| {
                let domain = known_domain(tx, &scope, &domain)?;
                if domain.deprecated_at.is_some() {
                    return Err(Fault::DomainDeprecated(format!(
                        "Domain is deprecated: {}",
                        domain.name
                    )));
                }
                let module = find_module(tx, &scope.account, &input.module)?;
                if module.world != kind.world() {
                    return Err(Fault::Validation(format!(
                        "Module {} is {}; {} binding needs {}",
                        module.digest,
                        a(module.world.name()),
                        a(kind.name()),
                        a(kind.world().name())
                    )));
                }
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
                };
                // The same binding again changes nothing: its workers keep running, and it
                // keeps its time, by which `weft apply` sees that nothing changed.
                let existing = tx.binding(domain.id, kind, &binding.name)?;
                // Another module remembers the one it replaces, for a rollback.
                let binding = Binding {
                    previous_module: match &existing {
                        Some(e) if e.module != binding.module => Some(e.module.clone()),
                        Some(e) => e.previous_module.clone(),
                        None => None,
                    },
                    ..binding
                };
                let same = existing.filter(|e| {
                    Binding {
                        created_at: now,
                        ..e.clone()
                    } == binding
                });
                Ok((domain.id, binding, same))
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
    let (binding, changed) = binding;
    if changed {
        svc.bindings_changed.send_replace(());
    }
    Ok(binding)
}

/// Binds `kind` `name` in `domain` to the module it ran before its module last changed, with
/// its other settings as they are; the module replaced becomes the one a second rollback
/// restores.
pub(crate) async fn rollback(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    kind: BindingKind,
    name: String,
) -> Result<Binding, Fault> {
    let scope = ctx.scope.clone();
    let now = svc.clock.now();
    let binding = svc
        .store
        .write(
            move |tx| {
                let domain = known_domain(tx, &scope, &domain)?;
                let current = tx
                    .binding(domain.id, kind, &name)?
                    .ok_or_else(|| unknown_binding(kind, &name))?;
                let Some(previous) = current.previous_module.clone() else {
                    return Err(Fault::Validation(format!(
                        "The {} binding {name} has run only module {}: there is no previous \
                         module to roll back to",
                        kind.name(),
                        current.module
                    )));
                };
                let module = find_module(tx, &scope.account, &previous).map_err(|e| match e {
                    Fault::UnknownResource(_) => Fault::UnknownResource(format!(
                        "Module {previous}, which the {} binding {name} ran before, was deleted",
                        kind.name()
                    )),
                    other => other,
                })?;
                let binding = Binding {
                    module: module.digest,
                    previous_module: Some(current.module.clone()),
                    created_at: now,
                    ..current
                };
                Ok((domain.id, binding))
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
            Ok(tx
                .bindings(Some(domain.id))?
                .into_iter()
                .map(|(_, b)| b)
                .collect())
        })
        .await
}

/// The task lists of a domain that have tasks waiting, polls waiting (at this node) or a
/// binding, by kind then name.
pub(crate) async fn task_lists(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
) -> Result<Vec<TaskListInfo>, Fault> {
    let scope = ctx.scope.clone();
    let (id, queued, bindings) = svc
        .store
        .read(move |tx| {
            let domain = known_domain(tx, &scope, &domain)?;
            let queued = tx.queued(Some(domain.id))?;
            Ok::<_, Fault>((domain.id, queued, tx.bindings(Some(domain.id))?))
        })
        .await?;
    let mut lists = BTreeMap::new();
    for q in queued {
        list(&mut lists, q.kind.served_by(), q.list).pending = q.count;
    }
    for (kind, name, count) in svc.engine.wakers.dispatch.pollers(id) {
        list(&mut lists, kind.served_by(), name).pollers = count as u64;
    }
    for (_, binding) in bindings {
        list(&mut lists, binding.kind, binding.name).bound = true;
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

/// The account's module that `given` names: its digest, or a prefix of at least 8 hex digits
/// (as the console and the CLI print them) that one module's digest alone starts with.
pub(crate) fn find_module(
    tx: &dyn Reads,
    account: &str,
    given: &str,
) -> Result<ModuleRecord, Fault> {
    const SHORTEST: usize = 8;
    let prefix =
        (SHORTEST..64).contains(&given.len()) && given.bytes().all(|b| b.is_ascii_hexdigit());
    if !prefix {
        return tx
            .module(account, given)?
            .ok_or_else(|| unknown_module(given));
    }
    one_by_prefix(tx.modules(account)?, &given.to_ascii_lowercase())
}

/// The one module of `modules` whose digest starts with `prefix`.
fn one_by_prefix(modules: Vec<ModuleRecord>, prefix: &str) -> Result<ModuleRecord, Fault> {
    let mut matching = modules.into_iter().filter(|m| m.digest.starts_with(prefix));
    match (matching.next(), matching.next()) {
        (Some(one), None) => Ok(one),
        (None, _) => Err(unknown_module(prefix)),
        (Some(_), Some(_)) => Err(Fault::Validation(format!(
            "Module {prefix} is ambiguous: more than one module's digest starts so; give more \
             of the digest"
        ))),
    }
}

fn unknown_module(digest: &str) -> Fault {
    Fault::UnknownResource(format!("Unknown module: {}", echo(digest)))
}

fn unknown_binding(kind: BindingKind, name: &str) -> Fault {
    Fault::UnknownResource(format!("No {} binding: {}", kind.name(), echo(name)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Timestamp;
    use crate::runtime::World;

    fn module(digest: &str) -> ModuleRecord {
        ModuleRecord {
            digest: digest.to_owned(),
            world: World::Decider,
            size: 1,
            uploaded_at: Timestamp::default(),
            name: None,
            version: None,
            used_by: Vec::new(),
        }
    }

    #[test]
    fn a_prefix_names_the_one_module_whose_digest_starts_so() {
        let modules = || vec![module("0100d8fc3c45aa"), module("0100d8fd0000bb")];
        let found = one_by_prefix(modules(), "0100d8fc").expect("one module starts so");
        assert_eq!(found.digest, "0100d8fc3c45aa");
        let none = one_by_prefix(modules(), "0100d8fe").expect_err("none starts so");
        assert!(matches!(none, Fault::UnknownResource(_)), "{none:?}");
        let both = one_by_prefix(modules(), "0100d8f").expect_err("two start so");
        match both {
            Fault::Validation(message) => assert!(message.contains("ambiguous"), "{message}"),
            other => panic!("expected a validation fault, got {other:?}"),
        }
    }
}
