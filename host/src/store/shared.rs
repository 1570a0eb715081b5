//! What the backends share to keep the contract alike: how a create that finds its name taken
//! fails, and the key range a cursor reads.

use std::ops::Bound;

use super::StoreError;

/// A create's outcome: the one writer checked that `name` was new in the same transaction, so
/// finding it taken is a broken check, which rolls the batch back rather than overwrite.
pub(crate) fn created(table: &str, name: &str, new: bool) -> Result<(), StoreError> {
    match new {
        true => Ok(()),
        false => Err(StoreError::broken(format!(
            "{table}: {name} exists already"
        ))),
    }
}

/// The range `[lo, hi)`, or the part of it beyond `after` in the reading direction.
pub(crate) fn bounds<T>(lo: T, hi: T, after: Option<T>, reverse: bool) -> (Bound<T>, Bound<T>) {
    match (after, reverse) {
        (None, _) => (Bound::Included(lo), Bound::Excluded(hi)),
        (Some(after), false) => (Bound::Excluded(after), Bound::Excluded(hi)),
        (Some(after), true) => (Bound::Included(lo), Bound::Excluded(after)),
    }
}
