//! The backends, in one list. Each is a folder of its own (`memory/`, `redb/`, `pg/`) that tells
//! its own places and opens them; a new backend is a folder beside those and a line here.

use std::sync::Arc;

use crate::clock::Clock;

use super::{Opened, Place, StoreError};

/// Opens the store at a place if the place is the backend's; `None` leaves it to the next.
pub(super) type Open = fn(&Place<'_>, Arc<dyn Clock>) -> Option<Result<Opened, StoreError>>;

/// Every backend, in the order a place is offered to them: the memory store takes an ephemeral
/// one, redb the embedded default (no location given), PostgreSQL any location.
pub(super) const BACKENDS: [Open; 3] = [
    super::memory::open_place,
    super::redb::open_place,
    super::pg::open_place,
];
