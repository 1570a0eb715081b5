//! Upgrades of the on-disk format, made at open, in place, inside the transaction that opens
//! the store: a store is either wholly upgraded or left as it was.

use redb::{ReadableTable, Table, TableDefinition, WriteTransaction};
use serde_json::{Map, Value};

use crate::model::{ItemKind, Run};

use crate::store::codec::{decode, encode};
use crate::store::seam::Listing;
use crate::store::{OpenError, StoreError};

use super::runs::index;
use super::tables::{Bytes, ITEM_NAMES, ITEMS, ItemKey, ItemNameKey, RUNS, VISIBILITY};

/// Format 1's visibility: (domain id, listing, time in ms, run seq), by time only.
const LISTINGS_1: TableDefinition<(u64, u8, i64, u64), ()> = TableDefinition::new("listings");

/// Runs upgraded between two reads of the runs table.
const BATCH: usize = 512;

/// Upgrades a store of format `from` to the current one.
pub(super) fn upgrade(txn: &WriteTransaction, from: u32) -> Result<(), StoreError> {
    match from {
        1 => to_2(txn),
        // Format 3 adds tables (made at every open) and members records read as absent.
        2 => Ok(()),
        other => Err(OpenError::Config(format!(
            "the database has format {other}, which no build upgrades from"
        ))
        .into()),
    }
}

/// Format 1 to 2, for each run:
/// - its open activities, timers, children and Lambda tasks move out of its record into
///   `ITEMS` (and `ITEM_NAMES`), and the record keeps their counts;
/// - it is indexed in `VISIBILITY` where format 1 listed it (open runs by start time, closed
///   ones by start and by close time), and format 1's listings go.
fn to_2(txn: &WriteTransaction) -> Result<(), StoreError> {
    let mut runs = txn.open_table(RUNS)?;
    let mut items = txn.open_table(ITEMS)?;
    let mut names = txn.open_table(ITEM_NAMES)?;
    let mut visibility = txn.open_table(VISIBILITY)?;
    let mut next = 0;
    loop {
        let mut batch = Vec::with_capacity(BATCH);
        for entry in runs.range(next..)?.take(BATCH) {
            let (seq, bytes) = entry?;
            batch.push((seq.value(), bytes.value().to_vec()));
        }
        let Some(&(last, _)) = batch.last() else {
            break;
        };
        for (seq, bytes) in batch {
            let mut record: Map<String, Value> = decode("runs", &bytes)?;
            let open = move_items(seq, &mut record, &mut items, &mut names)?;
            record.insert("open".into(), open);
            let run: Run =
                serde_json::from_value(Value::Object(record)).map_err(|e| StoreError::Corrupt {
                    table: "runs",
                    detail: format!("run {seq}: {e}"),
                })?;
            runs.insert(seq, encode(&run).as_slice())?;
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
        next = last + 1;
    }
    txn.delete_table(LISTINGS_1)?;
    Ok(())
}

/// Moves the item maps out of the format-1 run record `record` of run `seq` into the item
/// tables; answers their counts (`OpenItems`).
fn move_items(
    seq: u64,
    record: &mut Map<String, Value>,
    items: &mut Table<'_, ItemKey, Bytes>,
    names: &mut Table<'_, ItemNameKey, u64>,
) -> Result<Value, StoreError> {
    let mut counts = Map::new();
    for (member, kind) in [
        ("activities", ItemKind::Activity),
        ("timers", ItemKind::Timer),
        ("children", ItemKind::Child),
        ("lambdas", ItemKind::Lambda),
    ] {
        let map = match record.remove(member) {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        };
        counts.insert(member.into(), map.len().into());
        for (key, mut item) in map {
            let (key, name) = match kind {
                // Format 1 keyed timers by id and kept the TimerStarted id inside.
                ItemKind::Timer => {
                    let started = item.get("started_event_id").and_then(Value::as_u64);
                    if let Some(object) = item.as_object_mut() {
                        object.insert("timer_id".into(), key.clone().into());
                    }
                    (started, Some(key))
                }
                ItemKind::Activity => (key.parse().ok(), str_of(&item, "activity_id")),
                ItemKind::Lambda => (key.parse().ok(), str_of(&item, "id")),
                ItemKind::Child => (key.parse().ok(), None),
            };
            let key = key.ok_or_else(|| StoreError::Corrupt {
                table: "runs",
                detail: format!("run {seq}: a {member} entry without its event id"),
            })?;
            let json = serde_json::to_vec(&item).map_err(StoreError::broken)?;
            items.insert((seq, kind as u8, key), json.as_slice())?;
            if let Some(name) = name {
                names.insert((seq, kind as u8, name.as_str()), key)?;
            }
        }
    }
    Ok(Value::Object(counts))
}

fn str_of(item: &Value, member: &str) -> Option<String> {
    item.get(member).and_then(Value::as_str).map(str::to_owned)
}
