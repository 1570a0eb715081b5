//! Upgrades of the on-disk format, made at open, in place, inside the transaction that opens
//! the store: a store is either wholly upgraded or left as it was.

use redb::{ReadableTable, TableDefinition, WriteTransaction};

use crate::model::Run;

use super::StoreError;
use super::access::decode;
use super::runs::index;
use super::seam::Listing;
use super::tables::{RUNS, VISIBILITY};

/// Format 1's visibility: (domain id, listing, time in ms, run seq), by time only.
const LISTINGS_1: TableDefinition<(u64, u8, i64, u64), ()> = TableDefinition::new("listings");

/// Upgrades a store of format `from` to the current one.
pub(super) fn upgrade(txn: &WriteTransaction, from: u32) -> Result<(), StoreError> {
    match from {
        1 => to_2(txn),
        other => Err(StoreError::Format(other)),
    }
}

/// Format 1 to 2: visibility indexed by filter. Each stored run is indexed where format 1
/// listed it (open runs by start time, closed ones by start and by close time), and the old
/// listings go.
fn to_2(txn: &WriteTransaction) -> Result<(), StoreError> {
    let runs = txn.open_table(RUNS)?;
    let mut visibility = txn.open_table(VISIBILITY)?;
    for entry in runs.iter()? {
        let (_, bytes) = entry?;
        let run: Run = decode("runs", bytes.value())?;
        match run.closed {
            None => index(&mut visibility, &run, Listing::Open, run.started_at)?,
            Some(closed) => {
                index(
                    &mut visibility,
                    &run,
                    Listing::ClosedByStart,
                    run.started_at,
                )?;
                index(&mut visibility, &run, Listing::ClosedByClose, closed.at)?;
            }
        }
    }
    txn.delete_table(LISTINGS_1)?;
    Ok(())
}
