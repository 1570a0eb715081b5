//! Domain and type records by name, kept by each node: nearly every request names its domain,
//! and many a type, and these records change seldom, so reading them from the database each
//! time would be most of a request's round trips.
//!
//! The cache is emptied whenever a record may have changed: after this node's writer commits a
//! change to one, and when another node's notice of such a commit arrives (or may have been
//! missed). Another node's change is so seen a notice's delay late, as AWS's own reads are
//! eventually consistent. Reads that are about to change a record (`..._to_change`) and the
//! writer's reads after it changed one in the same transaction go to the database.
//!
//! A read that began before an emptying must not fill the cache with what it read: each read
//! carries the generation of the cache when its transaction began, and fills only if no
//! emptying happened since.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::model::{AnyType, Domain, Kind, Scope};

/// The most records of each kind kept: past it the cache starts again empty, so that names
/// that exist in great numbers cannot grow a node's memory without bound.
const MOST: usize = 10_000;

/// A domain's key: account, region, name.
type DomainKey = (String, String, String);

/// A type's key: domain id, kind, name, version.
type TypeKey = (u64, Kind, String, String);

/// The cached records of one node.
#[derive(Default)]
pub(super) struct Catalog(Mutex<Records>);

#[derive(Default)]
struct Records {
    /// How many times the cache has been emptied.
    generation: u64,
    domains: HashMap<DomainKey, Domain>,
    types: HashMap<TypeKey, AnyType>,
}

impl Catalog {
    fn records(&self) -> std::sync::MutexGuard<'_, Records> {
        // The records are only ever replaced whole: a panic elsewhere leaves them sound.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The generation a transaction beginning now reads at.
    pub(super) fn generation(&self) -> u64 {
        self.records().generation
    }

    /// Forgets every record: one may have changed.
    pub(super) fn empty(&self) {
        let mut records = self.records();
        records.generation += 1;
        records.domains.clear();
        records.types.clear();
    }

    /// The domain `name` in `scope`, if cached.
    pub(super) fn domain(&self, scope: &Scope, name: &str) -> Option<Domain> {
        let key = (scope.account.clone(), scope.region.clone(), name.to_owned());
        self.records().domains.get(&key).cloned()
    }

    /// Keeps `domain`, read by a transaction that began at `generation`.
    pub(super) fn keep_domain(&self, generation: u64, scope: &Scope, domain: &Domain) {
        let mut records = self.records();
        if records.generation != generation {
            return;
        }
        if records.domains.len() >= MOST {
            records.domains.clear();
        }
        let key = (
            scope.account.clone(),
            scope.region.clone(),
            domain.name.clone(),
        );
        records.domains.insert(key, domain.clone());
    }

    /// The type `name`/`version` of `kind` in domain `domain`, if cached.
    pub(super) fn stored_type(
        &self,
        domain: u64,
        kind: Kind,
        name: &str,
        version: &str,
    ) -> Option<AnyType> {
        let key = (domain, kind, name.to_owned(), version.to_owned());
        self.records().types.get(&key).cloned()
    }

    /// Keeps `record`, read by a transaction that began at `generation`.
    pub(super) fn keep_type(
        &self,
        generation: u64,
        key: (u64, Kind, &str, &str),
        record: &AnyType,
    ) {
        let mut records = self.records();
        if records.generation != generation {
            return;
        }
        if records.types.len() >= MOST {
            records.types.clear();
        }
        let (domain, kind, name, version) = key;
        let key = (domain, kind, name.to_owned(), version.to_owned());
        records.types.insert(key, record.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scope;

    fn domain(name: &str) -> Domain {
        Domain {
            id: 7,
            name: name.into(),
            description: None,
            retention: "1".into(),
            deprecated_at: None,
            tags: Vec::new(),
        }
    }

    #[test]
    fn a_read_begun_before_an_emptying_does_not_fill() {
        let catalog = Catalog::default();
        let scope = Scope {
            account: "123456789012".into(),
            region: "us-east-1".into(),
        };
        let before = catalog.generation();
        catalog.empty();
        catalog.keep_domain(before, &scope, &domain("d"));
        assert!(catalog.domain(&scope, "d").is_none());
        let now = catalog.generation();
        catalog.keep_domain(now, &scope, &domain("d"));
        assert_eq!(
            catalog.domain(&scope, "d").map(|d| d.name),
            Some("d".into())
        );
        catalog.empty();
        assert!(catalog.domain(&scope, "d").is_none());
    }
}
