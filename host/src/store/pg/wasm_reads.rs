//! PostgreSQL's reads of Weft's Wasm extension: modules, bindings and their guests' failures.

use super::reads::{Sql as _, big, bytes, unbig};
use super::session::{Link, Mode, Session};
use crate::model::{Binding, BindingKind, GuestFailureRecord, ModuleRecord};
use crate::store::StoreError;
use crate::store::codec::decode;
use crate::store::seam::WasmReads;

impl<C: Link, M: Mode> WasmReads for Session<C, M> {
    fn module(&self, account: &str, digest: &str) -> Result<Option<ModuleRecord>, StoreError> {
        // Uploads, binds and deletes of an account's modules check what they depend on (the
        // quota, that a module exists, that none is bound) one after another.
        self.lock_account(" modules ", account)?;
        let row = self.row(
            "SELECT record FROM modules WHERE account = $1 AND digest = $2",
            &[&account, &digest],
        )?;
        row.map(|row| decode("modules", bytes(&row, 0))).transpose()
    }

    fn module_code(&self, account: &str, digest: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let row = self.row(
            "SELECT code FROM module_code WHERE account = $1 AND digest = $2",
            &[&account, &digest],
        )?;
        Ok(row.map(|row| bytes(&row, 0).to_vec()))
    }

    fn modules(&self, account: &str) -> Result<Vec<ModuleRecord>, StoreError> {
        self.lock_account(" modules ", account)?;
        let rows = self.rows(
            "SELECT record FROM modules WHERE account = $1 ORDER BY digest",
            &[&account],
        )?;
        rows.iter()
            .map(|row| decode("modules", bytes(row, 0)))
            .collect()
    }

    fn module_kept(&self, account: &str, digest: &str) -> Result<bool, StoreError> {
        // Shared, so pins do not wait for each other; deletes take it whole (`module`).
        self.share_account(" modules ", account)?;
        let row = self.row(
            "SELECT 1 FROM modules WHERE account = $1 AND digest = $2",
            &[&account, &digest],
        )?;
        Ok(row.is_some())
    }

    fn module_held(&self, digest: &str) -> Result<bool, StoreError> {
        let row = self.row(
            "SELECT 1 FROM modules WHERE digest = $1 LIMIT 1",
            &[&digest],
        )?;
        Ok(row.is_some())
    }

    fn binding(
        &self,
        domain: u64,
        kind: BindingKind,
        name: &str,
    ) -> Result<Option<Binding>, StoreError> {
        let row = self.row(
            "SELECT record FROM bindings WHERE domain = $1 AND kind = $2 AND name = $3",
            &[&big(domain), &(kind as i16), &name],
        )?;
        row.map(|row| decode("bindings", bytes(&row, 0)))
            .transpose()
    }

    fn function_bound(&self, domain: u64, name: &str) -> Result<bool, StoreError> {
        let row = self.row(
            "SELECT 1 FROM bindings WHERE domain = $1 AND kind = $2 AND name = $3",
            &[&big(domain), &(BindingKind::Function as i16), &name],
        )?;
        Ok(row.is_some())
    }

    fn bindings(&self, domain: Option<u64>) -> Result<Vec<(u64, Binding)>, StoreError> {
        let rows = self.rows(
            "SELECT domain, record FROM bindings WHERE ($1::bigint IS NULL OR domain = $1) \
             ORDER BY domain, kind, name",
            &[&domain.map(big)],
        )?;
        rows.iter()
            .map(|row| Ok((unbig(row, 0), decode("bindings", bytes(row, 1))?)))
            .collect()
    }

    fn guest_failures(
        &self,
        domain: u64,
        kind: BindingKind,
        name: &str,
    ) -> Result<Vec<GuestFailureRecord>, StoreError> {
        let rows = self.rows(
            "SELECT record FROM guest_failures WHERE domain = $1 AND kind = $2 AND name = $3 \
             ORDER BY seq",
            &[&big(domain), &(kind as i16), &name],
        )?;
        rows.iter()
            .map(|row| decode("guest_failures", bytes(row, 0)))
            .collect()
    }
}
