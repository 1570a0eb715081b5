//! PostgreSQL's side of the writes of Wasm modules, bindings and guest failures, in the
//! writer's transaction (`writes.rs` has the rest).

use crate::model::{Binding, BindingKind, GuestFailureRecord, ModuleRecord};
use crate::store::StoreError;
use crate::store::codec::encode;
use crate::store::seam::{FAILURES_KEPT, WasmWrites, Writes as _};

use super::notices;
use super::params::owned;
use super::reads::{Sql as _, big};
use super::session::{Link, Session, Writing};

impl<C: Link> WasmWrites for Session<C, Writing> {
    fn add_module(
        &mut self,
        account: &str,
        record: &ModuleRecord,
        code: &[u8],
    ) -> Result<(), StoreError> {
        let digest = record.digest.as_str();
        // No ON CONFLICT: the same module uploaded through another node first fails this
        // transaction, and the retry's check answers that node's record.
        self.write(
            "INSERT INTO modules (account, digest, record) VALUES ($1, $2, $3)",
            owned![account, digest, encode(record)],
        );
        self.write(
            "INSERT INTO module_code (account, digest, code) VALUES ($1, $2, $3)",
            owned![account, digest, code],
        );
        Ok(())
    }

    fn put_module(&mut self, account: &str, record: &ModuleRecord) -> Result<(), StoreError> {
        let digest = record.digest.as_str();
        self.write(
            "UPDATE modules SET record = $3 WHERE account = $1 AND digest = $2",
            owned![account, digest, encode(record)],
        );
        Ok(())
    }

    fn delete_module(&mut self, account: &str, digest: &str) -> Result<(), StoreError> {
        self.write(
            "DELETE FROM modules WHERE account = $1 AND digest = $2",
            owned![account, digest],
        );
        self.write(
            "DELETE FROM module_code WHERE account = $1 AND digest = $2",
            owned![account, digest],
        );
        Ok(())
    }

    fn notify_deciders(&mut self) -> Result<(), StoreError> {
        self.mode.notices.insert(notices::BINDINGS.to_owned());
        Ok(())
    }

    fn put_binding(&mut self, domain: u64, binding: &Binding) -> Result<(), StoreError> {
        self.write(
            "INSERT INTO bindings (domain, kind, name, record) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (domain, kind, name) DO UPDATE SET record = excluded.record",
            owned![
                big(domain),
                binding.kind as i16,
                &binding.name,
                encode(binding)
            ],
        );
        self.mode.notices.insert(notices::BINDINGS.to_owned());
        Ok(())
    }

    fn delete_binding(
        &mut self,
        domain: u64,
        kind: BindingKind,
        name: &str,
    ) -> Result<bool, StoreError> {
        let (domain, kind) = (big(domain), kind as i16);
        // The one write whose answer is needed: a read, so that it is sent now.
        self.mode.changed = true;
        let removed = self.rows(
            "DELETE FROM bindings WHERE domain = $1 AND kind = $2 AND name = $3 RETURNING 1",
            &[&domain, &kind, &name],
        )?;
        self.write(
            "DELETE FROM guest_failures WHERE domain = $1 AND kind = $2 AND name = $3",
            owned![domain, kind, name],
        );
        self.mode.notices.insert(notices::BINDINGS.to_owned());
        Ok(!removed.is_empty())
    }

    fn record_guest_failure(
        &mut self,
        domain: u64,
        kind: BindingKind,
        name: &str,
        failure: &GuestFailureRecord,
    ) -> Result<(), StoreError> {
        let seq = big(self.next_id()?);
        let (domain, kind) = (big(domain), kind as i16);
        self.write(
            "INSERT INTO guest_failures (domain, kind, name, seq, record) \
             VALUES ($1, $2, $3, $4, $5)",
            owned![domain, kind, name, seq, encode(failure)],
        );
        let kept = i64::try_from(FAILURES_KEPT).unwrap_or(i64::MAX);
        self.write(
            "DELETE FROM guest_failures WHERE domain = $1 AND kind = $2 AND name = $3 \
             AND seq IN (SELECT seq FROM guest_failures \
             WHERE domain = $1 AND kind = $2 AND name = $3 ORDER BY seq DESC OFFSET $4)",
            owned![domain, kind, name, kept],
        );
        Ok(())
    }
}
