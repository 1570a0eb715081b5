//! redb's side of the reads and writes of Weft's Wasm extension: modules, their code,
//! bindings, and the failures of each binding's guest.

use redb::ReadableTable;

use crate::model::{Binding, BindingKind, GuestFailureRecord, ModuleRecord};

use crate::store::StoreError;
use crate::store::codec::{decode, encode};
use crate::store::seam::{FAILURES_KEPT, WasmReads, WasmWrites, Writes};

use super::access::{Tables, WriteTx};

impl<T: Tables> WasmReads for T {
    fn module(&self, account: &str, digest: &str) -> Result<Option<ModuleRecord>, StoreError> {
        let table = self.module_table()?;
        let value = table.get((account, digest))?;
        value.map(|v| decode("modules", v.value())).transpose()
    }

    fn module_code(&self, account: &str, digest: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let table = self.module_code_table()?;
        Ok(table.get((account, digest))?.map(|v| v.value().to_vec()))
    }

    fn modules(&self, account: &str) -> Result<Vec<ModuleRecord>, StoreError> {
        let table = self.module_table()?;
        let end = format!("{account}\0");
        let mut modules = Vec::new();
        for entry in table.range((account, "")..(end.as_str(), ""))? {
            modules.push(decode("modules", entry?.1.value())?);
        }
        Ok(modules)
    }

    fn module_kept(&self, account: &str, digest: &str) -> Result<bool, StoreError> {
        // One writer: nothing deletes the module while the transaction runs.
        Ok(self.module(account, digest)?.is_some())
    }

    fn module_held(&self, digest: &str) -> Result<bool, StoreError> {
        let table = self.module_table()?;
        for entry in table.iter()? {
            if entry?.0.value().1 == digest {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn binding(
        &self,
        domain: u64,
        kind: BindingKind,
        name: &str,
    ) -> Result<Option<Binding>, StoreError> {
        let table = self.binding_table()?;
        let value = table.get((domain, kind as u8, name))?;
        value.map(|v| decode("bindings", v.value())).transpose()
    }

    fn function_bound(&self, domain: u64, name: &str) -> Result<bool, StoreError> {
        let table = self.binding_table()?;
        Ok(table
            .get((domain, BindingKind::Function as u8, name))?
            .is_some())
    }

    fn bindings(&self, domain: Option<u64>) -> Result<Vec<(u64, Binding)>, StoreError> {
        let table = self.binding_table()?;
        let mut bindings = Vec::new();
        let mut keep = |entry: Result<(redb::AccessGuard<'_, _>, redb::AccessGuard<'_, _>), _>| {
            let (key, value) = entry?;
            let (id, _, _): (u64, u8, &str) = key.value();
            bindings.push((id, decode("bindings", value.value())?));
            Ok::<_, StoreError>(())
        };
        match domain {
            Some(id) => {
                for entry in table.range((id, 0u8, "")..(id + 1, 0u8, ""))? {
                    keep(entry)?;
                }
            }
            None => {
                for entry in table.iter()? {
                    keep(entry)?;
                }
            }
        }
        Ok(bindings)
    }

    fn guest_failures(
        &self,
        domain: u64,
        kind: BindingKind,
        name: &str,
    ) -> Result<Vec<GuestFailureRecord>, StoreError> {
        let table = self.guest_failure_table()?;
        let kind = kind as u8;
        let mut failures = Vec::new();
        for entry in table.range((domain, kind, name, 0)..=(domain, kind, name, u64::MAX))? {
            failures.push(decode("guest_failures", entry?.1.value())?);
        }
        Ok(failures)
    }
}

impl WasmWrites for WriteTx<'_> {
    fn add_module(
        &mut self,
        account: &str,
        record: &ModuleRecord,
        code: &[u8],
    ) -> Result<(), StoreError> {
        let key = (account, record.digest.as_str());
        let new = self
            .modules
            .write()?
            .insert(key, encode(record).as_slice())?
            .is_none();
        self.module_code.write()?.insert(key, code)?;
        crate::store::shared::created("modules", &record.digest, new)
    }

    fn put_module(&mut self, account: &str, record: &ModuleRecord) -> Result<(), StoreError> {
        let key = (account, record.digest.as_str());
        self.modules
            .write()?
            .insert(key, encode(record).as_slice())?;
        Ok(())
    }

    fn delete_module(&mut self, account: &str, digest: &str) -> Result<(), StoreError> {
        self.modules.write()?.remove((account, digest))?;
        self.module_code.write()?.remove((account, digest))?;
        Ok(())
    }

    fn notify_deciders(&mut self) -> Result<(), StoreError> {
        // One process: the caller tells its own workers.
        Ok(())
    }

    fn put_binding(&mut self, domain: u64, binding: &Binding) -> Result<(), StoreError> {
        let key = (domain, binding.kind as u8, binding.name.as_str());
        self.bindings
            .write()?
            .insert(key, encode(binding).as_slice())?;
        Ok(())
    }

    fn delete_binding(
        &mut self,
        domain: u64,
        kind: BindingKind,
        name: &str,
    ) -> Result<bool, StoreError> {
        let removed = self
            .bindings
            .write()?
            .remove((domain, kind as u8, name))?
            .is_some();
        let kind = kind as u8;
        self.guest_failures.write()?.retain_in(
            (domain, kind, name, 0)..=(domain, kind, name, u64::MAX),
            |_, _| false,
        )?;
        Ok(removed)
    }

    fn record_guest_failure(
        &mut self,
        domain: u64,
        kind: BindingKind,
        name: &str,
        failure: &GuestFailureRecord,
    ) -> Result<(), StoreError> {
        let seq = self.next_id()?;
        let k = kind as u8;
        self.guest_failures
            .write()?
            .insert((domain, k, name, seq), encode(failure).as_slice())?;
        let range = (domain, k, name, 0)..=(domain, k, name, u64::MAX);
        let kept = self.guest_failures.read()?.range(range.clone())?.count();
        if kept > FAILURES_KEPT {
            let oldest: Vec<u64> = self
                .guest_failures
                .read()?
                .range(range)?
                .take(kept - FAILURES_KEPT)
                .map(|e| e.map(|(key, _)| key.value().3))
                .collect::<Result<_, _>>()?;
            for seq in oldest {
                self.guest_failures
                    .write()?
                    .remove((domain, k, name, seq))?;
            }
        }
        Ok(())
    }
}
