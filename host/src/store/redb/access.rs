//! redb's side of the store's interface: the transactions, the tables they open, and the
//! reads and writes of domains and types. Runs are in `runs.rs`, the Wasm extension in
//! `wasm.rs`, schedules and task lists' controls in `schedules.rs`, batch jobs in `batches.rs`.

use std::cell::OnceCell;
use std::ops::{Bound, Deref};

use redb::{
    AccessGuard, Key, ReadableTable, StorageError, Table, TableDefinition, Value, WriteTransaction,
};

use crate::clock::Timestamp;
use crate::model::{AnyType, Domain, Kind, Scope, TypeName};

use super::tables::{
    BATCHES, BINDINGS, BindingKey, Bytes, COUNTERS, DEADLINES, DOMAIN_BATCHES, DOMAINS,
    DeadlineKey, DomainKey, EVENTS, FailureKey, GUEST_FAILURES, ITEM_NAMES, ITEMS, ItemKey,
    ItemNameKey, LIST_CONTROLS, ListControlKey, META, MODULE_CODE, MODULES, ModuleKey, OPEN_RUNS,
    RUN_IDS, RUNS, RunIdKey, SCHEDULE_IDS, SCHEDULES, TASKS, TYPES, TaskQueueKey, TypeKey,
    VISIBILITY, VisibilityKey,
};
use crate::store::StoreError;
use crate::store::codec::{decode, decode_type, encode, encode_type};
use crate::store::seam::{Counter, Cursor, DomainReads, DomainWrites, Page, Writes};
use crate::store::shared::{bounds, created};

/// A consistent read-only view of the store.
pub(crate) struct ReadTx(pub(super) redb::ReadTransaction);

/// A table opened for one read.
pub(super) struct Opened<T>(T);

impl<T> Deref for Opened<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// A table of the writer's transaction, opened on first use and then kept open for the rest
/// of the batch: opening a table in a write transaction costs more than a lookup, and most
/// batches touch a few of the tables. It notes whether it was written to: every write takes it
/// with [`write`](Self::write), every read with [`read`](Self::read).
pub(super) struct Lazy<'t, K: Key + 'static, V: Value + 'static> {
    txn: &'t WriteTransaction,
    definition: TableDefinition<'static, K, V>,
    table: OnceCell<Table<'t, K, V>>,
    changed: bool,
}

impl<'t, K: Key + 'static, V: Value + 'static> Lazy<'t, K, V> {
    fn new(txn: &'t WriteTransaction, definition: TableDefinition<'static, K, V>) -> Self {
        Lazy {
            txn,
            definition,
            table: OnceCell::new(),
            changed: false,
        }
    }

    /// The table, to read.
    pub(super) fn read(&self) -> Result<&Table<'t, K, V>, StoreError> {
        if let Some(table) = self.table.get() {
            return Ok(table);
        }
        let table = self.txn.open_table(self.definition)?;
        Ok(self.table.get_or_init(|| table))
    }

    /// The table, to write.
    pub(super) fn write(&mut self) -> Result<&mut Table<'t, K, V>, StoreError> {
        self.read()?;
        self.changed = true;
        Ok(self.table.get_mut().expect("opened by read"))
    }
}

macro_rules! tables {
    ($($field:ident / $method:ident : $def:ident <$key:ty, $value:ty>;)*) => {
        /// The writer's transaction: every change of one batch of requests, committed together.
        ///
        /// A table a batch uses stays open for the whole batch (`Lazy`): the writer is the one
        /// serial path every change takes.
        pub(crate) struct WriteTx<'t> {
            $(pub(super) $field: Lazy<'t, $key, $value>,)*
            now: Timestamp,
            after_commit: Vec<Box<dyn FnOnce() + Send>>,
        }

        /// The tables reads use, from either kind of transaction: opened on demand in a
        /// snapshot, already open in the writer.
        #[allow(dead_code, reason = "every table gets a reader, used or not")]
        pub(super) trait Tables {
            $(
                #[doc = concat!("The `", stringify!($def), "` table.")]
                fn $method(&self) -> Result<impl Deref<Target: ReadableTable<$key, $value>>, StoreError>;
            )*
        }

        impl Tables for ReadTx {
            $(
                fn $method(&self) -> Result<impl Deref<Target: ReadableTable<$key, $value>>, StoreError> {
                    Ok(Opened(self.0.open_table($def)?))
                }
            )*
        }

        impl Tables for WriteTx<'_> {
            $(
                fn $method(&self) -> Result<impl Deref<Target: ReadableTable<$key, $value>>, StoreError> {
                    self.$field.read()
                }
            )*
        }

        impl<'t> WriteTx<'t> {
            /// The tables of `txn`, for a batch happening at `now`.
            pub(super) fn new(txn: &'t WriteTransaction, now: Timestamp) -> Self {
                WriteTx {
                    $($field: Lazy::new(txn, $def),)*
                    now,
                    after_commit: Vec::new(),
                }
            }
        }

        impl WriteTx<'_> {
            /// Whether the batch wrote anything: one that did not needs no commit.
            pub(super) fn changed(&self) -> bool {
                false $(|| self.$field.changed)*
            }
        }

        /// Creates every table, so that read snapshots find them all.
        pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
            $(txn.open_table($def)?;)*
            Ok(())
        }
    };
}

tables! {
    meta / meta_table: META<&'static str, Bytes>;
    counters / counter_table: COUNTERS<(u64, u8), u64>;
    domains / domain_table: DOMAINS<DomainKey, Bytes>;
    types / type_table: TYPES<TypeKey, Bytes>;
    runs / run_table: RUNS<u64, Bytes>;
    run_ids / run_id_table: RUN_IDS<RunIdKey, u64>;
    open_runs / open_run_table: OPEN_RUNS<(u64, &'static str), u64>;
    events / event_table: EVENTS<(u64, u64), Bytes>;
    items / item_table: ITEMS<ItemKey, Bytes>;
    item_names / item_name_table: ITEM_NAMES<ItemNameKey, u64>;
    visibility / visibility_table: VISIBILITY<VisibilityKey, ()>;
    tasks / task_table: TASKS<TaskQueueKey, (u64, u64)>;
    deadlines / deadline_table: DEADLINES<DeadlineKey, ()>;
    modules / module_table: MODULES<ModuleKey, Bytes>;
    module_code / module_code_table: MODULE_CODE<ModuleKey, Bytes>;
    bindings / binding_table: BINDINGS<BindingKey, Bytes>;
    guest_failures / guest_failure_table: GUEST_FAILURES<FailureKey, Bytes>;
    schedules / schedule_table: SCHEDULES<u64, Bytes>;
    schedule_ids / schedule_id_table: SCHEDULE_IDS<(u64, &'static str), u64>;
    list_controls / list_control_table: LIST_CONTROLS<ListControlKey, Bytes>;
    batches / batch_table: BATCHES<u64, Bytes>;
    domain_batches / domain_batch_table: DOMAIN_BATCHES<(u64, u64), ()>;
}

impl<T: Tables> DomainReads for T {
    fn domain(&self, scope: &Scope, name: &str) -> Result<Option<Domain>, StoreError> {
        let table = self.domain_table()?;
        let value = table.get((scope.account.as_str(), scope.region.as_str(), name))?;
        value.map(|v| decode("domains", v.value())).transpose()
    }

    fn domains(
        &self,
        scope: &Scope,
        cursor: Cursor<&str>,
        keep: &dyn Fn(&Domain) -> bool,
    ) -> Result<Page<Domain>, StoreError> {
        let table = self.domain_table()?;
        let (account, region) = (scope.account.as_str(), scope.region.as_str());
        // `region + "\0"` is the least string above `region`: the end of this scope's range.
        let next_region = format!("{region}\0");
        let range = bounds(
            (account, region, ""),
            (account, next_region.as_str(), ""),
            cursor.after.map(|name| (account, region, name)),
            cursor.reverse,
        );
        scan(&*table, range, cursor, |_, value| {
            let domain: Domain = decode("domains", value.value())?;
            Ok(keep(&domain).then_some(domain))
        })
    }

    fn domain_count(&self, account: &str, cap: usize) -> Result<usize, StoreError> {
        let table = self.domain_table()?;
        // `account + "\0"` is the least string above `account`: the end of its range.
        let next_account = format!("{account}\0");
        let range = table.range((account, "", "")..(next_account.as_str(), "", ""))?;
        let mut count = 0;
        for entry in range.take(cap) {
            entry?;
            count += 1;
        }
        Ok(count)
    }

    fn every_domain(&self) -> Result<Vec<(Scope, Domain)>, StoreError> {
        let table = self.domain_table()?;
        let mut domains = Vec::new();
        for entry in table.iter()? {
            let (key, value) = entry?;
            let (account, region, _) = key.value();
            let scope = Scope {
                account: account.to_owned(),
                region: region.to_owned(),
            };
            domains.push((scope, decode("domains", value.value())?));
        }
        Ok(domains)
    }

    fn count(&self, domain: u64, counter: Counter) -> Result<u64, StoreError> {
        let table = self.counter_table()?;
        let value = table.get((domain, counter.key()))?;
        Ok(value.map_or(0, |v| v.value()))
    }

    fn stored_type(
        &self,
        domain: u64,
        kind: Kind,
        name: &str,
        version: &str,
    ) -> Result<Option<AnyType>, StoreError> {
        let table = self.type_table()?;
        let value = table.get((domain, kind as u8, name, version))?;
        value.map(|v| decode_type(kind, v.value())).transpose()
    }

    fn stored_types(
        &self,
        domain: u64,
        kind: Kind,
        name: Option<&str>,
        cursor: Cursor<(&str, &str)>,
        keep: &dyn Fn(&AnyType) -> bool,
    ) -> Result<Page<(TypeName, AnyType)>, StoreError> {
        let table = self.type_table()?;
        let (id, k) = (domain, kind as u8);
        let name_end = name.map(|n| format!("{n}\0"));
        let (lo, hi) = match (name, &name_end) {
            (Some(name), Some(end)) => ((id, k, name, ""), (id, k, end.as_str(), "")),
            _ => ((id, k, "", ""), (id, k + 1, "", "")),
        };
        let after = cursor.after.map(|(n, v)| (id, k, n, v));
        scan(
            &*table,
            bounds(lo, hi, after, cursor.reverse),
            cursor,
            |key, value| {
                let record = decode_type(kind, value.value())?;
                let (_, _, name, version) = key.value();
                Ok(keep(&record).then(|| {
                    let name = TypeName {
                        name: name.to_owned(),
                        version: version.to_owned(),
                    };
                    (name, record)
                }))
            },
        )
    }
}

impl WriteTx<'_> {
    /// The actions to run now that the batch is committed.
    pub(super) fn take_after_commit(&mut self) -> Vec<Box<dyn FnOnce() + Send>> {
        std::mem::take(&mut self.after_commit)
    }
}

impl Writes for WriteTx<'_> {
    fn now(&self) -> Timestamp {
        self.now
    }

    fn after_commit(&mut self, action: Box<dyn FnOnce() + Send>) {
        self.after_commit.push(action);
    }

    fn next_id(&mut self) -> Result<u64, StoreError> {
        let next = match self.meta.read()?.get("next_id")? {
            Some(v) => {
                u64::from_le_bytes(v.value().try_into().map_err(|_| StoreError::Corrupt {
                    table: "meta",
                    detail: "next_id is not a u64".into(),
                })?)
            }
            None => 1,
        };
        self.meta
            .write()?
            .insert("next_id", &(next + 1).to_le_bytes()[..])?;
        Ok(next)
    }
}

impl DomainWrites for WriteTx<'_> {
    fn add_count(&mut self, domain: u64, counter: Counter, delta: i64) -> Result<(), StoreError> {
        let count = self.count(domain, counter)?.saturating_add_signed(delta);
        self.counters
            .write()?
            .insert((domain, counter.key()), count)?;
        Ok(())
    }

    fn add_domain(&mut self, scope: &Scope, domain: &Domain) -> Result<(), StoreError> {
        let new = self.store_domain(scope, domain)?;
        created("domains", &domain.name, new)
    }

    fn put_domain(&mut self, scope: &Scope, domain: &Domain) -> Result<(), StoreError> {
        self.store_domain(scope, domain).map(drop)
    }

    fn add_stored_type(
        &mut self,
        domain: u64,
        ty: &TypeName,
        record: &AnyType,
    ) -> Result<(), StoreError> {
        let new = self.store_type(domain, ty, record)?;
        created("types", &ty.name, new)
    }

    fn put_stored_type(
        &mut self,
        domain: u64,
        ty: &TypeName,
        record: &AnyType,
    ) -> Result<(), StoreError> {
        self.store_type(domain, ty, record).map(drop)
    }

    fn delete_stored_type(
        &mut self,
        domain: u64,
        kind: Kind,
        ty: &TypeName,
    ) -> Result<(), StoreError> {
        let key = (domain, kind as u8, ty.name.as_str(), ty.version.as_str());
        self.types.write()?.remove(key)?;
        Ok(())
    }
}

impl WriteTx<'_> {
    /// Stores `domain` in `scope`; answers whether it is new.
    fn store_domain(&mut self, scope: &Scope, domain: &Domain) -> Result<bool, StoreError> {
        let key = (
            scope.account.as_str(),
            scope.region.as_str(),
            domain.name.as_str(),
        );
        Ok(self
            .domains
            .write()?
            .insert(key, encode(domain).as_slice())?
            .is_none())
    }

    /// Stores a type of domain `domain`; answers whether it is new.
    fn store_type(
        &mut self,
        domain: u64,
        ty: &TypeName,
        record: &AnyType,
    ) -> Result<bool, StoreError> {
        let (kind, bytes) = encode_type(record);
        let key = (domain, kind as u8, ty.name.as_str(), ty.version.as_str());
        Ok(self.types.write()?.insert(key, bytes.as_slice())?.is_none())
    }
}

type Entry<'a, K, V> = Result<(AccessGuard<'a, K>, AccessGuard<'a, V>), StorageError>;

/// Reads `range` in the cursor's direction, keeping what `pick` returns, until a page is full.
pub(super) fn scan<'r, K: Key + 'static, V: Value + 'static, T>(
    table: &(impl ReadableTable<K, V> + ?Sized),
    range: (Bound<K::SelfType<'r>>, Bound<K::SelfType<'r>>),
    cursor: Cursor<impl Sized>,
    mut pick: impl FnMut(AccessGuard<'_, K>, AccessGuard<'_, V>) -> Result<Option<T>, StoreError>,
) -> Result<Page<T>, StoreError> {
    let mut page = Page {
        items: Vec::new(),
        more: false,
    };
    let mut visit = |entry: Entry<'_, K, V>| -> Result<bool, StoreError> {
        let (key, value) = entry?;
        if let Some(item) = pick(key, value)? {
            if page.items.len() == cursor.limit {
                page.more = true;
                return Ok(false);
            }
            page.items.push(item);
        }
        Ok(true)
    };
    let entries = table.range::<K::SelfType<'r>>(range)?;
    if cursor.reverse {
        for entry in entries.rev() {
            if !visit(entry)? {
                break;
            }
        }
    } else {
        for entry in entries {
            if !visit(entry)? {
                break;
            }
        }
    }
    Ok(page)
}
