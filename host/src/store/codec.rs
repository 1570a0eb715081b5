//! One encoding of stored records, whichever backend keeps them: JSON, self-describing, so a
//! record can gain members without a migration.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::model::{AnyType, Kind};

use super::StoreError;

/// A type record as stored: its registry and its bytes.
pub(crate) fn encode_type(record: &AnyType) -> (Kind, Vec<u8>) {
    match record {
        AnyType::Workflow(record) => (Kind::Workflow, encode(record)),
        AnyType::Activity(record) => (Kind::Activity, encode(record)),
    }
}

/// A stored type record of the registry `kind`.
pub(crate) fn decode_type(kind: Kind, bytes: &[u8]) -> Result<AnyType, StoreError> {
    Ok(match kind {
        Kind::Workflow => AnyType::Workflow(decode("types", bytes)?),
        Kind::Activity => AnyType::Activity(decode("types", bytes)?),
    })
}

/// `record` as stored.
pub(crate) fn encode(record: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(record).expect("records serialize to JSON")
}

/// A record read back from `table` (named in the error if it is not one).
pub(crate) fn decode<T: DeserializeOwned>(
    table: &'static str,
    bytes: &[u8],
) -> Result<T, StoreError> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::Corrupt {
        table,
        detail: e.to_string(),
    })
}
