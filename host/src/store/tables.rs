//! Every redb table Weft keeps, with its key layout.
//!
//! Values are JSON-encoded records (`model::*`): self-describing, so a record can gain members
//! without a migration. Keys are tuples ordered the way listings read them, so every listing is a
//! range scan.

use redb::TableDefinition;

/// Stored values: JSON bytes.
pub(crate) type Bytes = &'static [u8];
/// (account id, region, domain name).
pub(crate) type DomainKey = (&'static str, &'static str, &'static str);
/// (domain id, `Kind` as u8, type name, version).
pub(crate) type TypeKey = (u64, u8, &'static str, &'static str);

/// Small named values. Keys: `"format"` (on-disk format version, u32 LE), `"next_id"` (u64 LE,
/// the next domain id), `"secret"` (32 random bytes keying every token the service issues).
pub(crate) const META: TableDefinition<&str, Bytes> = TableDefinition::new("meta");

/// Domains. Key: (account id, region, domain name), so a scope's domains are one range in name
/// order. Value: `Domain`.
pub(crate) const DOMAINS: TableDefinition<DomainKey, Bytes> = TableDefinition::new("domains");

/// Workflow and activity types. Key: (domain id, `Kind` as u8, type name, version), so a domain's
/// types of one kind are one range in (name, version) order. Value: `TypeRecord<Config>`.
pub(crate) const TYPES: TableDefinition<TypeKey, Bytes> = TableDefinition::new("types");

/// Per-domain counts kept for SWF's limits, so that enforcing a limit never rewrites the domain
/// record. Key: (domain id, `Counter::key`). Value: the count.
pub(crate) const COUNTERS: TableDefinition<(u64, u8), u64> = TableDefinition::new("counters");

/// The on-disk format this build writes and reads.
pub(crate) const FORMAT_VERSION: u32 = 1;
