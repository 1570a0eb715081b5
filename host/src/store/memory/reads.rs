//! The ephemeral store's reads, the same for a snapshot and for a change under way.

use std::ops::{Bound, Deref};

use crate::clock::Timestamp;
use crate::model::{
    AnyType, BatchRecord, Binding, BindingKind, Domain, GuestFailureRecord, ItemKind, Kind,
    ListControl, ListKey, ModuleRecord, Queued, Run, RunId, Schedule, Scope, TaskKind, TypeName,
    WorkflowId, keyed_queues_end,
};
use crate::store::StoreError;
use crate::store::seam::{
    BatchReads, ControlReads, Counter, Cursor, Deadline, DomainReads, Filter, Listing, Page,
    RunReads, ScheduleReads, WasmReads,
};
use crate::store::shared::bounds;

use super::{Access, Listed, State, between, entries, scan, through};

impl<S: Deref<Target = State>> DomainReads for Access<S> {
    fn domain(&self, scope: &Scope, name: &str) -> Result<Option<Domain>, StoreError> {
        let key = (scope.account.clone(), scope.region.clone(), name.to_owned());
        Ok(self.0.domains.get(&key).cloned())
    }

    fn domains(
        &self,
        scope: &Scope,
        cursor: Cursor<&str>,
        keep: &dyn Fn(&Domain) -> bool,
    ) -> Result<Page<Domain>, StoreError> {
        let key =
            |region: &str, name: &str| (scope.account.clone(), region.to_owned(), name.into());
        // `region + "\0"` is the least string above `region`: the end of this scope's range.
        let range = bounds(
            key(&scope.region, ""),
            key(&format!("{}\0", scope.region), ""),
            cursor.after.map(|name| key(&scope.region, name)),
            cursor.reverse,
        );
        let page = scan(&self.0.domains, range, cursor, |_, domain| {
            keep(domain).then(|| domain.clone())
        });
        Ok(page)
    }

    fn domain_count(&self, account: &str, cap: usize) -> Result<usize, StoreError> {
        let key = |account: String| (account, String::new(), String::new());
        let range = between(key(account.into()), key(format!("{account}\0")));
        Ok(entries(&self.0.domains, range).take(cap).count())
    }

    fn every_domain(&self) -> Result<Vec<(Scope, Domain)>, StoreError> {
        let domains = self.0.domains.iter().map(|((account, region, _), domain)| {
            let scope = Scope {
                account: account.clone(),
                region: region.clone(),
            };
            (scope, domain.clone())
        });
        Ok(domains.collect())
    }

    fn count(&self, domain: u64, counter: Counter) -> Result<u64, StoreError> {
        Ok(self
            .0
            .counters
            .get(&(domain, counter.key()))
            .copied()
            .unwrap_or(0))
    }

    fn stored_type(
        &self,
        domain: u64,
        kind: Kind,
        name: &str,
        version: &str,
    ) -> Result<Option<AnyType>, StoreError> {
        let key = (domain, kind as u8, name.to_owned(), version.to_owned());
        Ok(self.0.types.get(&key).cloned())
    }

    fn stored_types(
        &self,
        domain: u64,
        kind: Kind,
        name: Option<&str>,
        cursor: Cursor<(&str, &str)>,
        keep: &dyn Fn(&AnyType) -> bool,
    ) -> Result<Page<(TypeName, AnyType)>, StoreError> {
        let k = kind as u8;
        let key = |k: u8, name: &str, version: &str| (domain, k, name.to_owned(), version.into());
        let (lo, hi) = match name {
            Some(name) => (key(k, name, ""), key(k, &format!("{name}\0"), "")),
            None => (key(k, "", ""), key(k + 1, "", "")),
        };
        let after = cursor.after.map(|(name, version)| key(k, name, version));
        let range = bounds(lo, hi, after, cursor.reverse);
        let page = scan(
            &self.0.types,
            range,
            cursor,
            |(_, _, name, version), record| {
                keep(record).then(|| {
                    let name = TypeName {
                        name: name.clone(),
                        version: version.clone(),
                    };
                    (name, record.clone())
                })
            },
        );
        Ok(page)
    }
}

impl<S: Deref<Target = State>> Access<S> {
    /// The runs listed in `listing` under `filter` in domain `domain`; `None` if none are.
    fn listed(&self, domain: u64, listing: Listing, filter: &Filter<'_>) -> Option<&Listed> {
        let (f, value) = filter.key();
        let partition = (domain, listing as u8, f, value.into_owned());
        self.0.visibility.get(&partition)
    }
}

impl<S: Deref<Target = State>> RunReads for Access<S> {
    fn run(&self, seq: u64) -> Result<Option<Run>, StoreError> {
        Ok(self.0.runs.get(&seq).cloned())
    }

    fn run_named(
        &self,
        domain: u64,
        workflow_id: &WorkflowId,
        run_id: &RunId,
    ) -> Result<Option<Run>, StoreError> {
        let key = (
            domain,
            String::from(&**workflow_id),
            String::from(&**run_id),
        );
        let seq = self.0.run_ids.get(&key);
        Ok(seq.and_then(|seq| self.0.runs.get(seq)).cloned())
    }

    fn open_run(&self, domain: u64, workflow_id: &WorkflowId) -> Result<Option<Run>, StoreError> {
        let seq = self
            .0
            .open_runs
            .get(&(domain, String::from(&**workflow_id)));
        Ok(seq.and_then(|seq| self.0.runs.get(seq)).cloned())
    }

    fn history(
        &self,
        seq: u64,
        first: u64,
        last: u64,
        cursor: Cursor<u64>,
    ) -> Result<Page<(u64, Vec<u8>)>, StoreError> {
        let range = bounds(
            (seq, first),
            (seq, last.saturating_add(1)),
            cursor.after.map(|id| (seq, id)),
            cursor.reverse,
        );
        let page = scan(&self.0.events, range, cursor, |&(_, id), json| {
            Some((id, json.clone()))
        });
        Ok(page)
    }

    fn event(&self, seq: u64, event_id: u64) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.0.events.get(&(seq, event_id)).cloned())
    }

    fn listed_runs(
        &self,
        domain: u64,
        listing: Listing,
        filter: &Filter<'_>,
        (from, to): (Timestamp, Timestamp),
        cursor: Cursor<(i64, u64)>,
    ) -> Result<Page<Run>, StoreError> {
        let Some(listed) = self.listed(domain, listing, filter) else {
            return Ok(Page {
                items: Vec::new(),
                more: false,
            });
        };
        let range = bounds(
            (from.as_millis(), 0),
            (to.as_millis().saturating_add(1), 0),
            cursor.after,
            cursor.reverse,
        );
        let page = scan(listed, range, cursor, |(_, seq), ()| {
            self.0.runs.get(seq).cloned()
        });
        Ok(page)
    }

    fn count_listed(
        &self,
        domain: u64,
        listing: Listing,
        filter: &Filter<'_>,
        (from, to): (Timestamp, Timestamp),
    ) -> Result<u64, StoreError> {
        let Some(listed) = self.listed(domain, listing, filter) else {
            return Ok(0);
        };
        let range = between((from.as_millis(), 0), (to.as_millis().saturating_add(1), 0));
        Ok(entries(listed, range).count() as u64)
    }

    fn pending_tasks(&self, domain: u64, kind: TaskKind, list: &str) -> Result<u64, StoreError> {
        // The list's own queue and its keys' queues, which sort right after it.
        let key = |list: String| (domain, kind as u8, list, 0, 0);
        let range = between(key(list.to_owned()), key(keyed_queues_end(list)));
        Ok(entries(&self.0.tasks, range).count() as u64)
    }

    fn queued(&self, domain: Option<u64>) -> Result<Vec<Queued>, StoreError> {
        let range = match domain {
            Some(d) => between((d, 0, String::new(), 0, 0), (d + 1, 0, String::new(), 0, 0)),
            None => (Bound::Unbounded, Bound::Unbounded),
        };
        // Keys are in (domain, kind, list) order: each list's tasks are one run of keys.
        let mut queued: Vec<Queued> = Vec::new();
        for ((domain, kind, list, _, _), _) in entries(&self.0.tasks, range) {
            match queued.last_mut() {
                Some(last)
                    if last.domain == *domain && last.kind as u8 == *kind && last.list == *list =>
                {
                    last.count += 1;
                }
                _ => queued.push(Queued {
                    domain: *domain,
                    kind: TaskKind::from_key(*kind)
                        .ok_or_else(|| StoreError::broken("task kind"))?,
                    list: list.clone(),
                    count: 1,
                }),
            }
        }
        Ok(queued)
    }

    fn next_deadline(&self, purges: bool) -> Result<Option<Timestamp>, StoreError> {
        // Past the purges before it, unless asked for them: as many as closed runs are kept.
        let skipped = [Deadline::Purge, Deadline::Schedule, Deadline::Batch].map(|d| d as u8);
        let mut deadlines = self.0.deadlines.keys();
        let next = deadlines.find(|(_, _, _, kind)| purges || !skipped.contains(kind));
        Ok(next.map(|(at, ..)| Timestamp::from_millis(*at)))
    }

    #[cfg(debug_assertions)]
    fn history_seqs(&self) -> Result<Vec<u64>, StoreError> {
        let mut seqs: Vec<u64> = self.0.events.keys().map(|(seq, _)| *seq).collect();
        seqs.dedup();
        Ok(seqs)
    }

    fn item(&self, seq: u64, kind: ItemKind, key: u64) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.0.items.get(&(seq, kind as u8, key)).cloned())
    }

    fn item_named(&self, seq: u64, kind: ItemKind, name: &str) -> Result<Option<u64>, StoreError> {
        let key = (seq, kind as u8, name.to_owned());
        Ok(self.0.item_names.get(&key).copied())
    }

    fn item_keys(&self, seq: u64, kind: ItemKind) -> Result<Vec<u64>, StoreError> {
        let k = kind as u8;
        let range = through((seq, k, 0), (seq, k, u64::MAX));
        Ok(entries(&self.0.items, range)
            .map(|(key, _)| key.2)
            .collect())
    }
}

impl<S: Deref<Target = State>> WasmReads for Access<S> {
    fn module(&self, account: &str, digest: &str) -> Result<Option<ModuleRecord>, StoreError> {
        let key = (account.to_owned(), digest.to_owned());
        Ok(self.0.modules.get(&key).cloned())
    }

    fn module_code(&self, account: &str, digest: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let key = (account.to_owned(), digest.to_owned());
        Ok(self.0.module_code.get(&key).map(|code| code.to_vec()))
    }

    fn modules(&self, account: &str) -> Result<Vec<ModuleRecord>, StoreError> {
        let range = between(
            (account.to_owned(), String::new()),
            (format!("{account}\0"), String::new()),
        );
        let modules = entries(&self.0.modules, range).map(|(_, module)| module.clone());
        Ok(modules.collect())
    }

    fn module_held(&self, digest: &str) -> Result<bool, StoreError> {
        Ok(self.0.modules.keys().any(|(_, held)| held == digest))
    }

    fn module_kept(&self, account: &str, digest: &str) -> Result<bool, StoreError> {
        Ok(self.module(account, digest)?.is_some())
    }

    fn binding(
        &self,
        domain: u64,
        kind: BindingKind,
        name: &str,
    ) -> Result<Option<Binding>, StoreError> {
        let key = (domain, kind as u8, name.to_owned());
        Ok(self.0.bindings.get(&key).cloned())
    }

    fn function_bound(&self, domain: u64, name: &str) -> Result<bool, StoreError> {
        let key = (domain, BindingKind::Function as u8, name.to_owned());
        Ok(self.0.bindings.contains_key(&key))
    }

    fn bindings(&self, domain: Option<u64>) -> Result<Vec<(u64, Binding)>, StoreError> {
        let range = match domain {
            Some(id) => between((id, 0, String::new()), (id + 1, 0, String::new())),
            None => (Bound::Unbounded, Bound::Unbounded),
        };
        let bindings = entries(&self.0.bindings, range);
        Ok(bindings
            .map(|(key, binding)| (key.0, binding.clone()))
            .collect())
    }

    fn guest_failures(
        &self,
        domain: u64,
        kind: BindingKind,
        name: &str,
    ) -> Result<Vec<GuestFailureRecord>, StoreError> {
        let key = |seq| (domain, kind as u8, name.to_owned(), seq);
        let range = through(key(0), key(u64::MAX));
        let failures = entries(&self.0.guest_failures, range).map(|(_, failure)| failure.clone());
        Ok(failures.collect())
    }
}

impl<S: Deref<Target = State>> ScheduleReads for Access<S> {
    fn schedule(&self, seq: u64) -> Result<Option<Schedule>, StoreError> {
        Ok(self.0.schedules.get(&seq).cloned())
    }

    fn schedule_named(&self, domain: u64, id: &str) -> Result<Option<Schedule>, StoreError> {
        let seq = self.0.schedule_ids.get(&(domain, id.to_owned()));
        Ok(seq.and_then(|seq| self.0.schedules.get(seq)).cloned())
    }

    fn schedules(
        &self,
        domain: u64,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Schedule>, StoreError> {
        let lo = match after {
            Some(after) => Bound::Excluded((domain, after.to_owned())),
            None => Bound::Included((domain, String::new())),
        };
        let range = (lo, Bound::Excluded((domain + 1, String::new())));
        let seqs = entries(&self.0.schedule_ids, range).map(|(_, seq)| seq);
        let schedules = seqs.filter_map(|seq| self.0.schedules.get(seq).cloned());
        Ok(schedules.take(limit).collect())
    }
}

impl<S: Deref<Target = State>> ControlReads for Access<S> {
    fn list_controls(&self) -> Result<Vec<(ListKey, ListControl)>, StoreError> {
        let mut controls = Vec::new();
        for ((domain, kind, name), control) in &self.0.list_controls {
            let kind = TaskKind::from_key(*kind).ok_or_else(|| StoreError::Corrupt {
                table: "list_controls",
                detail: format!("task kind {kind}"),
            })?;
            controls.push(((*domain, kind, name.clone()), control.clone()));
        }
        Ok(controls)
    }

    fn list_control(
        &self,
        (domain, kind, name): &ListKey,
    ) -> Result<Option<ListControl>, StoreError> {
        let key = (*domain, *kind as u8, name.clone());
        Ok(self.0.list_controls.get(&key).cloned())
    }
}

impl<S: Deref<Target = State>> BatchReads for Access<S> {
    fn batch(&self, seq: u64) -> Result<Option<BatchRecord>, StoreError> {
        Ok(self.0.batches.get(&seq).cloned())
    }

    fn batches(&self, domain: u64, limit: usize) -> Result<Vec<BatchRecord>, StoreError> {
        let range = through((domain, 0), (domain, u64::MAX));
        let seqs = entries(&self.0.domain_batches, range)
            .rev()
            .map(|((_, seq), ())| seq);
        let batches = seqs.filter_map(|seq| self.0.batches.get(seq).cloned());
        Ok(batches.take(limit).collect())
    }
}
