//! Uploaded Wasm modules: upload (with a name and version label), list with the bindings that
//! use each, delete, and find one by its digest or a prefix of it.

use crate::fault::{Fault, echo};
use crate::model::{Binding, BindingRef, ModuleLabel, ModuleRecord};
use crate::store::Reads;
use crate::tenancy::Quotas;

use super::compiles::room;
use super::pins::{account_pinned_count, pinned_count};
use super::{Ctx, Service};

/// The largest module accepted, in bytes.
pub(crate) const MAX_MODULE_BYTES: usize = 32 << 20;

/// Uploads `code`: checks that it is a component of one of the three worlds (compiling it; a
/// large one's optimized code follows in the background, see `runtime::loading`), then stores
/// it under its digest. Uploading the same
/// bytes again answers the same record. A `dry_run` checks all the same (the quota, the
/// component, its world) and stores nothing: it answers the record it would store.
pub(crate) async fn upload_module(
    svc: &Service,
    ctx: &Ctx,
    code: Vec<u8>,
    label: ModuleLabel,
    dry_run: bool,
) -> Result<ModuleRecord, Fault> {
    check_upload(&code, &label)?;
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
    match existing {
        Some(existing) if dry_run => return Ok(existing),
        Some(existing) => return relabel(svc, ctx, existing, label).await,
        None => {}
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
    let record = ModuleRecord {
        digest: module.digest.clone(),
        world: module.world,
        size: code.len() as u64,
        uploaded_at: svc.clock.now(),
        name: label.name.clone(),
        version: label.version.clone(),
        used_by: Vec::new(),
        pinned_runs: 0,
    };
    if dry_run {
        // Stored nowhere: its compiled code stays only if another account holds the module.
        let digest = record.digest.clone();
        if !svc.store.read(move |tx| tx.module_held(&digest)).await? {
            svc.runtime.unload(&record.digest);
        }
        return Ok(record);
    }
    store_module(svc, ctx, record, code, label).await
}

/// Stores the module `record` of `code`, if its account still has room for it; a module of
/// the same bytes stored meanwhile (through another node) is labelled `label` instead.
async fn store_module(
    svc: &Service,
    ctx: &Ctx,
    record: ModuleRecord,
    code: Vec<u8>,
    label: ModuleLabel,
) -> Result<ModuleRecord, Fault> {
    let account = ctx.scope.account.clone();
    let quotas = ctx.tenant.quotas.clone();
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

/// Refuses an upload whose label or size no module may have.
fn check_upload(code: &[u8], label: &ModuleLabel) -> Result<(), Fault> {
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
    Ok(())
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

/// The account's modules, by digest, each with the bindings that run it and the open runs
/// pinned to it.
pub(crate) async fn list_modules(svc: &Service, ctx: &Ctx) -> Result<Vec<ModuleRecord>, Fault> {
    let account = ctx.scope.account.clone();
    svc.store
        .read_long(move |tx| {
            let mut modules = tx.modules(&account)?;
            let mut bindings = tx.bindings(None)?;
            bindings.retain(|(_, b)| b.account == account);
            let domains: Vec<u64> = tx
                .every_domain()?
                .into_iter()
                .filter(|(scope, _)| scope.account == account)
                .map(|(_, domain)| domain.id)
                .collect();
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
                for &domain in &domains {
                    module.pinned_runs += pinned_count(tx, domain, &module.digest)?;
                }
            }
            Ok(modules)
        })
        .await
}

/// Deletes a module no binding uses and no open run is pinned to; the bindings that had it as
/// an older version forget it.
pub(crate) async fn delete_module(svc: &Service, ctx: &Ctx, digest: String) -> Result<(), Fault> {
    let account = ctx.scope.account.clone();
    let (kept_elsewhere, unloaded) = svc
        .store
        .write(
            move |tx| {
                let digest = find_module(tx, &account, &digest)?.digest;
                let mut bindings = tx.bindings(None)?;
                bindings.retain(|(_, b)| b.account == account);
                let runs_it = |b: &Binding| {
                    let ramp = b.ramp.is_some() && b.previous_module.as_deref() == Some(&digest);
                    b.module == digest || ramp
                };
                let users: Vec<String> = bindings
                    .iter()
                    .filter(|(_, b)| runs_it(b))
                    .map(|(_, b)| format!("{} {} {}", b.domain, b.kind.name(), b.name))
                    .collect();
                if !users.is_empty() {
                    return Err(Fault::InUse(format!(
                        "Module {digest} is bound: {}",
                        users.join(", ")
                    )));
                }
                let runs = account_pinned_count(tx, &account, &digest)?;
                if runs > 0 {
                    return Err(Fault::InUse(format!(
                        "Module {digest} decides {runs} open run{}, pinned to it: it can be \
                         deleted once they close, or an upgrade moves them",
                        if runs == 1 { "" } else { "s" }
                    )));
                }
                bindings.retain(|(_, b)| b.version_of(&digest).is_some());
                Ok((account, digest, bindings))
            },
            |tx, (account, digest, bindings)| {
                for (domain, mut binding) in bindings {
                    binding.versions.retain(|v| v.module != digest);
                    tx.put_binding(domain, &binding)?;
                }
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
            pinned_runs: 0,
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
